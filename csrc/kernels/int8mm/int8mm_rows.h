/* The int8 matmul accumulators' two kernel shapes (simdops_int8_dot_fn: one
 * row of a against n rows of w transposed), written once for the scalar
 * kernels and the SIMD tiers: per row, a tier's VEC_PART runs elements
 * [0, i) of k (the scalar kernels pass INT8MM_NO_VEC_PART) and the scalar
 * rule below finishes [i, k), so a tier's tail is the reference itself. */
#ifndef SIMDOPS_INT8MM_ROWS_H
#define SIMDOPS_INT8MM_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* a0*w0 + a1*w1 saturated to int16 (a0, a1 in [0, 255]: a uint8 or a + 128) */
static inline uint32_t sat16_pair(int32_t a0, int32_t w0, int32_t a1, int32_t w1)
{
    int32_t s = a0 * w0 + a1 * w1;
    return (uint32_t)(s > 32767 ? 32767 : s < -32768 ? -32768 : s);
}

/* The pair-saturating rule (VPMADDUBSW, then VPMADDWD with ones) on elements
 * [i, k) of one row: the pairs (i, i + 1), ... added to acc, w's sum to wsum
 * (both uint32, wrapping); an odd count pairs the last element with a zero.
 * OFF: what makes a uint8 (0 for uint8 a, 128 for int8 a). */
#define INT8MM_PAIRSAT_FROM(a, w, i, k, OFF, acc, wsum)                                          \
    do {                                                                                          \
        for (; (i) + 1 < (k); (i) += 2) {                                                         \
            (acc) += sat16_pair((int32_t)(a)[i] + (OFF), (w)[i], (int32_t)(a)[(i) + 1] + (OFF),   \
                                (w)[(i) + 1]);                                                    \
            (wsum) += (uint32_t)((int32_t)(w)[i] + (int32_t)(w)[(i) + 1]);                        \
        }                                                                                         \
        if ((i) < (k)) {                                                                          \
            (acc) += sat16_pair((int32_t)(a)[i] + (OFF), (w)[i], 0, 0);                           \
            (wsum) += (uint32_t)(int32_t)(w)[i];                                                  \
        }                                                                                         \
    } while (0)

#define INT8MM_NO_VEC_PART(...) ((void)0)

/* Exact: products summed in uint32 (wrapping, as the runtimes' int32 adds
 * do). VEC_PART(a, w, i, k, acc) adds elements [0, i) to acc. */
#define INT8MM_EXACT_KERNEL(fname, T, VEC_PART)                                                   \
    static void fname(const void *av, const int8_t *wt, int32_t *out, size_t n, size_t k)        \
    {                                                                                             \
        const T *a = (const T *)av;                                                               \
        for (size_t j = 0; j < n; j++) {                                                          \
            const int8_t *w = wt + j * k;                                                         \
            uint32_t acc = 0;                                                                     \
            size_t i = 0;                                                                         \
            VEC_PART(a, w, i, k, acc);                                                            \
            for (; i < k; i++)                                                                    \
                acc += (uint32_t)((int32_t)a[i] * (int32_t)w[i]);                                 \
            out[j] = (int32_t)acc;                                                                \
        }                                                                                         \
    }

/* Pair-saturating, an int8 a taken as the uint8 a + OFF and OFF * sum(w)
 * taken off at the end. VEC_PART(a, w, i, k, acc, wsum) adds elements
 * [0, i) (i even) to acc and w's sum to wsum. */
#define INT8MM_PAIRSAT_KERNEL(fname, T, OFF, VEC_PART)                                            \
    static void fname(const void *av, const int8_t *wt, int32_t *out, size_t n, size_t k)        \
    {                                                                                             \
        const T *a = (const T *)av;                                                               \
        for (size_t j = 0; j < n; j++) {                                                          \
            const int8_t *w = wt + j * k;                                                         \
            uint32_t acc = 0, wsum = 0;                                                           \
            size_t i = 0;                                                                         \
            VEC_PART(a, w, i, k, acc, wsum);                                                      \
            INT8MM_PAIRSAT_FROM(a, w, i, k, OFF, acc, wsum);                                      \
            out[j] = (int32_t)(acc - (uint32_t)OFF * wsum);                                       \
        }                                                                                         \
    }

#endif
