/* int8 matmul accumulators for AVX2: 32 elements of k a step. Exact: both
 * operands widened to int16 and VPMADDWD (pair sums of int16 products fit
 * int32 exactly), added in int32. Pair-saturating: VPMADDUBSW (u8 x s8, adjacent
 * pairs saturated to int16, the very instruction it models), VPMADDWD with
 * ones, added in int32; an int8 a is flipped to a + 128 (xor 0x80) and the
 * row's 128 * sum(w) subtracted at the end. The pairs start at even k in the
 * vector loop and in the scalar tail alike (a step is 32 elements), so the
 * tail pairs as the scalar kernel does. */
#include "kernels/registry.h"

#include "kernels/int8mm/int8mm_rows.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#include <immintrin.h>

#define SIMDOPS_TIER avx2

static inline uint32_t hsum_epi32(__m256i v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return (uint32_t)_mm_cvtsi128_si32(s);
}

/* Elements [0, i) of a row, 32 a step; WIDEN: the 16 bytes at p as 16 int16
 * (zero- or sign-extended) */
#define EXACT_VEC_PART(WIDEN, a, w, i, k, acc)                                                    \
    do {                                                                                          \
        __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();                     \
        for (; (i) + 32 <= (k); (i) += 32) {                                                      \
            __m256i a0 = WIDEN(_mm_loadu_si128((const __m128i *)((a) + (i))));                    \
            __m256i a1 = WIDEN(_mm_loadu_si128((const __m128i *)((a) + (i) + 16)));               \
            __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)((w) + (i))));     \
            __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)((w) + (i) + 16))); \
            acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(a0, w0));                             \
            acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(a1, w1));                             \
        }                                                                                         \
        (acc) = hsum_epi32(_mm256_add_epi32(acc0, acc1));                                         \
    } while (0)
#define EXACT_VEC_PART_U8(...) EXACT_VEC_PART(_mm256_cvtepu8_epi16, __VA_ARGS__)
#define EXACT_VEC_PART_I8(...) EXACT_VEC_PART(_mm256_cvtepi8_epi16, __VA_ARGS__)
INT8MM_EXACT_KERNEL(SIMDOPS_KERNEL_NAME(u8, int8_dot), uint8_t, EXACT_VEC_PART_U8)
INT8MM_EXACT_KERNEL(SIMDOPS_KERNEL_NAME(i8, int8_dot), int8_t, EXACT_VEC_PART_I8)

/* Elements [0, i) of a row, 32 a step; OFF: 0 for uint8 a, 128 for int8 a
 * (flipped to a + 128 by xor 0x80) */
#define PAIRSAT_VEC_PART(OFF, a, w, i, k, acc, wsum)                                              \
    do {                                                                                          \
        const __m256i ones16 = _mm256_set1_epi16(1), ones8 = _mm256_set1_epi8(1);                 \
        const __m256i flip = _mm256_set1_epi8(OFF ? (char)0x80 : 0);                              \
        __m256i accv = _mm256_setzero_si256(), ws = _mm256_setzero_si256();                       \
        for (; (i) + 32 <= (k); (i) += 32) {                                                      \
            __m256i av8 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)((a) + (i))), flip); \
            __m256i wv = _mm256_loadu_si256((const __m256i *)((w) + (i)));                        \
            accv = _mm256_add_epi32(accv, _mm256_madd_epi16(_mm256_maddubs_epi16(av8, wv), ones16)); \
            if (OFF) /* pair sums of w: at most 256 in magnitude, no saturation */               \
                ws = _mm256_add_epi32(ws, _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, wv), ones16)); \
        }                                                                                         \
        (acc) = hsum_epi32(accv);                                                                 \
        (wsum) = OFF ? hsum_epi32(ws) : 0u;                                                       \
    } while (0)
#define PAIRSAT_VEC_PART_U8(...) PAIRSAT_VEC_PART(0, __VA_ARGS__)
#define PAIRSAT_VEC_PART_I8(...) PAIRSAT_VEC_PART(128, __VA_ARGS__)
INT8MM_PAIRSAT_KERNEL(SIMDOPS_KERNEL_NAME(u8, int8_dot_pairsat), uint8_t, 0, PAIRSAT_VEC_PART_U8)
INT8MM_PAIRSAT_KERNEL(SIMDOPS_KERNEL_NAME(i8, int8_dot_pairsat), int8_t, 128, PAIRSAT_VEC_PART_I8)

#define INT8MM_KERNELS(X) X(int8_dot, u8) X(int8_dot, i8) X(int8_dot_pairsat, u8) X(int8_dot_pairsat, i8)
SIMDOPS_DEFINE_REGISTER(int8mm, INT8MM_KERNELS)

#else
SIMDOPS_TIER_NOT_COMPILED(int8mm, avx2)
#endif
