/* argmax kernels behind hardmax for sse2: one-pass chunked max with a first-hit
 * search, templates in hardmax_x86.h. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#define SIMDOPS_TIER sse2
#include "hardmax_sse.h"

HM_KERNELS(hm_f32x4, hm_f64x2, hm_f16x8)

SIMDOPS_DEFINE_REGISTER(hardmax, HARDMAX_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, sse2)
#endif
