/* clip kernels for sse41: not written yet; the tier falls back to the one below. */
#include "../../internal.h"
#include "../../isa.h"

#if SIMDOPS_COMPILE_SSE41
int clip_register__sse41(simdops_kernel_table *t)
{
    (void)t;
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(clip, sse41)
#endif
