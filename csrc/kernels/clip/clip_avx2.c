/* clip kernels for avx2: not written yet; the tier falls back to the one below. */
#include "../../internal.h"
#include "../../isa.h"

#if SIMDOPS_COMPILE_AVX2
int clip_register__avx2(simdops_kernel_table *t)
{
    (void)t;
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(clip, avx2)
#endif
