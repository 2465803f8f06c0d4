/* tools/hm_axis0_kern.c's float32 column kernels (argmax_cols's signature). */
#include <stddef.h>
#include <stdint.h>
#define HM_TOOL_DECL(name)                                                                   \
    void name(const void *x, int64_t s, size_t rows, size_t cols, int64_t r, void *best,     \
              int64_t *bi);
HM_TOOL_DECL(hm_axis0_cols_avx512_pkg)
HM_TOOL_DECL(hm_axis0_cols_avx512_nopf)
HM_TOOL_DECL(hm_axis0_cols_avx2_pkg)
HM_TOOL_DECL(hm_axis0_cols_avx2_nopf)
