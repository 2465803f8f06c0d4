/* Reference argmax kernels behind hardmax: the first maximum wins, the first
 * NaN beats everything, +0.0 == -0.0 (numpy.argmax semantics). */
#define SIMDOPS_TIER scalar
#include "kernels/registry.h"
#include "core/fp16.h"

#include "hardmax_kernels.h"

/* 1 when v replaces the running best b. */
#define BEATS(v, b) ((v) > (b) || ((v) != (v) && (b) == (b)))

#define ARGMAX_KERNELS(T, LOAD, row_name, cols_name)                                   \
    static size_t row_name(const void *xv, size_t n)                                   \
    {                                                                                  \
        const T *x = (const T *)xv;                                                    \
        float_or_double best = LOAD(x[0]);                                             \
        size_t at = 0;                                                                 \
        for (size_t i = 1; i < n && best == best; i++) {                               \
            float_or_double v = LOAD(x[i]);                                            \
            if (BEATS(v, best)) { best = v; at = i; }                                  \
        }                                                                              \
        return at;                                                                     \
    }                                                                                  \
    static void cols_name(const void *xv, int64_t stride, size_t rows, size_t cols,    \
                          int64_t r, void *bestv, int64_t *best_index)                 \
    {                                                                                  \
        T *best = (T *)bestv;                                                          \
        for (size_t k = 0; k < rows; k++, r++) {                                       \
            const T *row = (const T *)((const char *)xv + (int64_t)k * stride);        \
            for (size_t j = 0; j < cols; j++) {                                        \
                float_or_double v = LOAD(row[j]), b = LOAD(best[j]);                   \
                if (BEATS(v, b)) { best[j] = row[j]; best_index[j] = r; }              \
            }                                                                          \
        }                                                                              \
    }

#define LOAD_SAME(v) (v)
#define float_or_double float
ARGMAX_KERNELS(float, LOAD_SAME, f32_argmax_row__scalar, f32_argmax_cols__scalar)
ARGMAX_KERNELS(uint16_t, simdops_f16_to_f32, f16_argmax_row__scalar, f16_argmax_cols__scalar)
#undef float_or_double
#define float_or_double double
ARGMAX_KERNELS(double, LOAD_SAME, f64_argmax_row__scalar, f64_argmax_cols__scalar)
#undef float_or_double

SIMDOPS_DEFINE_REGISTER(hardmax, HARDMAX_KERNELS)
