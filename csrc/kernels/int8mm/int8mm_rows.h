/* The pair-saturating accumulator's rule (VPMADDUBSW, then VPMADDWD with ones),
 * one element pair at a time: the scalar kernel's whole loop and the SIMD
 * kernels' tail, written once. */
#ifndef SIMDOPS_INT8MM_PAIRSAT_H
#define SIMDOPS_INT8MM_PAIRSAT_H

#include <stddef.h>
#include <stdint.h>

/* a0*w0 + a1*w1 saturated to int16 (a0, a1 in [0, 255]: a uint8 or a + 128) */
static inline uint32_t sat16_pair(int32_t a0, int32_t w0, int32_t a1, int32_t w1)
{
    int32_t s = a0 * w0 + a1 * w1;
    return (uint32_t)(s > 32767 ? 32767 : s < -32768 ? -32768 : s);
}

/* Elements [i, k) of one row: the pairs (i, i + 1), ... added to acc, w's sum
 * to wsum (both uint32, wrapping); an odd count pairs the last element with a
 * zero. OFF: what makes a uint8 (0 for uint8 a, 128 for int8 a). */
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

#endif
