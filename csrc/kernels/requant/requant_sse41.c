/* requant kernels for sse41: not written yet; the tier falls back to the one below. */
#include "../../internal.h"
#include "../../isa.h"

#if SIMDOPS_COMPILE_SSE41
int requant_register__sse41(simdops_kernel_table *t)
{
    (void)t;
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(requant, sse41)
#endif
