/* The vector vocabulary of vec_map.h for AVX2: 32-byte vectors, tails
 * through a zeroed stack buffer (avx2_util.h), stores aligned to 32 bytes on
 * rows of 512 bytes and more. Include only inside #if SIMDOPS_COMPILE_AVX2. */
#ifndef SIMDOPS_VEC_AVX2_H
#define SIMDOPS_VEC_AVX2_H

#include "kernels/vec/avx2_util.h"
#define VEC_ALIGN_BYTES 32u
#define VEC_ALIGN_MIN_BYTES 512u
#include "kernels/vec/vec_map.h"

/* Integer kinds: __m256i; set1 through the signed type of the width. */
#define VEC_AVX2_INT(K, ST, SET1)                                                              \
    typedef __m256i vec_##K;                                                                   \
    enum { VEC_LANES_##K = 32 / sizeof(vec_elem_##K) };                                        \
    static inline vec_##K vec_loadu_##K(const void *p) { return _mm256_loadu_si256((const __m256i *)p); } \
    static inline void vec_storeu_##K(void *p, vec_##K v) { _mm256_storeu_si256((__m256i *)p, v); } \
    static inline vec_##K vec_load_tail_##K(const void *p, size_t k)                           \
    {                                                                                          \
        return simdops_avx2_load_part(p, k * sizeof(vec_elem_##K));                            \
    }                                                                                          \
    static inline void vec_store_tail_##K(void *p, vec_##K v, size_t k)                        \
    {                                                                                          \
        simdops_avx2_store_part(p, v, k * sizeof(vec_elem_##K));                               \
    }                                                                                          \
    static inline vec_##K vec_set1_##K(vec_elem_##K e) { return SET1((ST)e); }
VEC_AVX2_INT(u8, char, _mm256_set1_epi8)
VEC_AVX2_INT(i8, char, _mm256_set1_epi8)
VEC_AVX2_INT(u16, short, _mm256_set1_epi16)
VEC_AVX2_INT(i16, short, _mm256_set1_epi16)
VEC_AVX2_INT(u32, int, _mm256_set1_epi32)
VEC_AVX2_INT(i32, int, _mm256_set1_epi32)
VEC_AVX2_INT(u64, long long, _mm256_set1_epi64x)
VEC_AVX2_INT(i64, long long, _mm256_set1_epi64x)
#undef VEC_AVX2_INT

#define VEC_AVX2_MINMAX(K, MIN, MAX)                                                           \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return MIN(a, b); }             \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return MAX(a, b); }
VEC_AVX2_MINMAX(u8, _mm256_min_epu8, _mm256_max_epu8)
VEC_AVX2_MINMAX(i8, _mm256_min_epi8, _mm256_max_epi8)
VEC_AVX2_MINMAX(u16, _mm256_min_epu16, _mm256_max_epu16)
VEC_AVX2_MINMAX(i16, _mm256_min_epi16, _mm256_max_epi16)
VEC_AVX2_MINMAX(u32, _mm256_min_epu32, _mm256_max_epu32)
VEC_AVX2_MINMAX(i32, _mm256_min_epi32, _mm256_max_epi32)
#undef VEC_AVX2_MINMAX

/* 64-bit lanes have only a signed compare: select on it, the unsigned kind
 * with both operands' sign bits flipped (a constant operand's flip is
 * hoisted out of the loop). */
static inline __m256i vec_avx2_lt_i64(__m256i a, __m256i b) { return _mm256_cmpgt_epi64(b, a); }
static inline __m256i vec_avx2_lt_u64(__m256i a, __m256i b)
{
    const __m256i s = _mm256_set1_epi64x(INT64_MIN);
    return _mm256_cmpgt_epi64(_mm256_xor_si256(b, s), _mm256_xor_si256(a, s));
}
static inline vec_i64 vec_min_i64(vec_i64 a, vec_i64 b) { return _mm256_blendv_epi8(b, a, vec_avx2_lt_i64(a, b)); }
static inline vec_i64 vec_max_i64(vec_i64 a, vec_i64 b) { return _mm256_blendv_epi8(b, a, vec_avx2_lt_i64(b, a)); }
static inline vec_u64 vec_min_u64(vec_u64 a, vec_u64 b) { return _mm256_blendv_epi8(b, a, vec_avx2_lt_u64(a, b)); }
static inline vec_u64 vec_max_u64(vec_u64 a, vec_u64 b) { return _mm256_blendv_epi8(b, a, vec_avx2_lt_u64(b, a)); }

/* Float kinds. minps/maxps return their second operand when either is NaN,
 * which is the vocabulary's a < b ? a : b, -0.0 against +0.0 included. */
#define VEC_AVX2_FLOAT(K, V, SUF)                                                        \
    typedef V vec_##K;                                                                         \
    typedef V vmask_##K;                                                                       \
    enum { VEC_LANES_##K = 32 / sizeof(vec_elem_##K) };                                        \
    static inline vec_##K vec_loadu_##K(const void *p) { return _mm256_loadu_##SUF((const vec_elem_##K *)p); } \
    static inline void vec_storeu_##K(void *p, vec_##K v) { _mm256_storeu_##SUF((vec_elem_##K *)p, v); } \
    static inline vec_##K vec_load_tail_##K(const void *p, size_t k)                           \
    {                                                                                          \
        return _mm256_castsi256_##SUF(simdops_avx2_load_part(p, k * sizeof(vec_elem_##K)));    \
    }                                                                                          \
    static inline void vec_store_tail_##K(void *p, vec_##K v, size_t k)                        \
    {                                                                                          \
        simdops_avx2_store_part(p, _mm256_cast##SUF##_si256(v), k * sizeof(vec_elem_##K));     \
    }                                                                                          \
    static inline vec_##K vec_set1_##K(vec_elem_##K e) { return _mm256_set1_##SUF(e); }       \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return _mm256_min_##SUF(a, b); } \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return _mm256_max_##SUF(a, b); } \
    static inline vec_##K vec_add_##K(vec_##K a, vec_##K b) { return _mm256_add_##SUF(a, b); } \
    static inline vec_##K vec_sub_##K(vec_##K a, vec_##K b) { return _mm256_sub_##SUF(a, b); } \
    static inline vec_##K vec_mul_##K(vec_##K a, vec_##K b) { return _mm256_mul_##SUF(a, b); } \
    static inline vmask_##K vec_gt_##K(vec_##K a, vec_##K b) { return _mm256_cmp_##SUF(a, b, _CMP_GT_OQ); } \
    static inline vmask_##K vec_lt_##K(vec_##K a, vec_##K b) { return _mm256_cmp_##SUF(a, b, _CMP_LT_OQ); } \
    static inline vec_##K vec_nan_keep_##K(vec_##K a)                                          \
    {                                                                                          \
        return _mm256_and_##SUF(a, _mm256_cmp_##SUF(a, a, _CMP_UNORD_Q));                      \
    }                                                                                          \
    static inline vec_##K vec_merge_##K(vmask_##K m, vec_##K v, vec_##K rest)                  \
    {                                                                                          \
        return _mm256_blendv_##SUF(rest, v, m);                                                \
    }
VEC_AVX2_FLOAT(f32, __m256, ps)
VEC_AVX2_FLOAT(f64, __m256d, pd)
#undef VEC_AVX2_FLOAT

/* Float bits as integers, for shrink_body.h's sign-magnitude forms. */
#define VEC_HAS_FLOAT_BITS 1
#define VEC_DAZ() ((_mm_getcsr() & SIMDOPS_MXCSR_DAZ) != 0)
#define VEC_AVX2_FLOAT_BITS(K, SUF, ISUF, ABS)                                                 \
    static inline vec_##K vec_abs_##K(vec_##K a) { return _mm256_and_##SUF(a, _mm256_castsi256_##SUF(ABS)); } \
    static inline vec_##K vec_xor_##K(vec_##K a, vec_##K b) { return _mm256_xor_##SUF(a, b); } \
    static inline vec_##K vec_or_##K(vec_##K a, vec_##K b) { return _mm256_or_##SUF(a, b); }   \
    static inline vmask_##K vec_gt_bits_##K(vec_##K a, vec_##K b)                              \
    {                                                                                          \
        return _mm256_castsi256_##SUF(                                                         \
            _mm256_cmpgt_##ISUF(_mm256_cast##SUF##_si256(a), _mm256_cast##SUF##_si256(b)));    \
    }                                                                                          \
    static inline vec_##K vec_blend_##K(vmask_##K m, vec_##K v, vec_##K rest)                  \
    {                                                                                          \
        return _mm256_blendv_##SUF(rest, v, m);                                                \
    }                                                                                          \
    static inline vec_##K vec_keep_##K(vmask_##K m, vec_##K v) { return _mm256_and_##SUF(v, m); }
VEC_AVX2_FLOAT_BITS(f32, ps, epi32, _mm256_set1_epi32(0x7fffffff))
VEC_AVX2_FLOAT_BITS(f64, pd, epi64, _mm256_set1_epi64x(INT64_MAX))
#undef VEC_AVX2_FLOAT_BITS

#define VEC_MINMAX_KINDS(X, a)                                                                 \
    X(u8, a) X(i8, a) X(u16, a) X(i16, a) X(u32, a) X(i32, a) X(u64, a) X(i64, a) X(f32, a)    \
    X(f64, a)
#define VEC_FLOAT_KINDS(X, a) X(f32, a) X(f64, a)

#endif
