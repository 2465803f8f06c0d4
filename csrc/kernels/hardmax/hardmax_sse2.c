/* argmax kernels behind hardmax for sse2: one-pass chunked max with a first-hit
 * search, templates in hardmax_x86.h. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#include "hardmax_x86.h"

HM_KERNELS(sse2, hm_f32x4, hm_f64x2, hm_f16x8)

int hardmax_register__sse2(simdops_kernel_table *t)
{
    t->argmax_row[SIMDOPS_FLOAT32] = f32_argmax_row__sse2;
    t->argmax_row[SIMDOPS_FLOAT64] = f64_argmax_row__sse2;
    t->argmax_row[SIMDOPS_FLOAT16] = f16_argmax_row__sse2;
    t->argmax_cols[SIMDOPS_FLOAT32] = f32_argmax_cols__sse2;
    t->argmax_cols[SIMDOPS_FLOAT64] = f64_argmax_cols__sse2;
    t->argmax_cols[SIMDOPS_FLOAT16] = f16_argmax_cols__sse2;
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, sse2)
#endif
