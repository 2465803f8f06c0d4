/* argmax kernels behind hardmax for sse41: the sse2 kernels with blendv (column
 * updates) and psignw (float16 keys), see hardmax_x86.h. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE41
#define SIMDOPS_TIER sse41
#define HM_SSE41 1
#include "hardmax_sse.h"

HM_KERNELS(hm_f32x4, hm_f64x2, hm_f16x8)

SIMDOPS_DEFINE_REGISTER(hardmax, HARDMAX_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, sse41)
#endif
