/* The AVX-512 and AVX2 float32 column kernels of hardmax_f32_body.h for
 * tools/hm_axis0.c, as the package builds them and without the next rows'
 * prefetch (HB_COL_PF_NEXT 0): each tier's file is included (its register
 * function made local by objcopy in tools/cbench.sh), then the body once more
 * under another prefix. Compiled with the AVX-512 flags (-DHM_TOOL_AVX2: the
 * AVX2 ones, for the AVX2 pair). */
#include "hm_axis0_kern.h"

#ifndef HM_TOOL_AVX2
#include "kernels/hardmax/hardmax_avx512.c"
#define HM_TOOL_PKG hm_f32z_cols
#define HM_TOOL_NAME(n) hm_axis0_cols_avx512_##n
#else
#include "kernels/hardmax/hardmax_avx2.c"
#define HM_TOOL_PKG hm_f32b_cols
#define HM_TOOL_NAME(n) hm_axis0_cols_avx2_##n
#endif

#undef HB_PREFIX
#undef HB_COL_PF_NEXT
#define HB_PREFIX hm_nopf_
#define HB_COL_PF_NEXT 0
#include "kernels/hardmax/hardmax_f32_body.h"

void HM_TOOL_NAME(pkg)(const void *x, int64_t s, size_t rows, size_t cols, int64_t r, void *best,
                       int64_t *bi)
{
    HM_TOOL_PKG(x, s, rows, cols, r, (float *)best, bi);
}
void HM_TOOL_NAME(nopf)(const void *x, int64_t s, size_t rows, size_t cols, int64_t r,
                        void *best, int64_t *bi)
{
    hm_nopf_cols(x, s, rows, cols, r, (float *)best, bi);
}
