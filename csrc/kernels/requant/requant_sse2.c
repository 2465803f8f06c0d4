/* requant kernels for sse2: not written yet; the tier falls back to the one below. */
#include "../../internal.h"
#include "../../isa.h"

#if SIMDOPS_COMPILE_SSE2
int requant_register__sse2(simdops_kernel_table *t)
{
    (void)t;
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(requant, sse2)
#endif
