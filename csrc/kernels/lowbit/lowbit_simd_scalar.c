/* The scalar form of the low-bit hot paths: the tails' loops over every
 * element (the reference the SIMD tiers are checked against). */
#include "kernels/lowbit/lowbit_simd_tail.h"

#define LBS_SCALAR(name, xt, yt)                                                             \
    void simdops_lbs_##name##__scalar(const void *x, void *y, size_t n, const lbs_params *p) \
    {                                                                                        \
        lbs_##name##_tail((const xt *)x, (yt *)y, 0, n, p);                                  \
    }
LBS_KERNELS(LBS_SCALAR)
