/* The vector vocabulary of vec_map.h for AVX2: 32-byte vectors, tails
 * through a zeroed stack buffer (avx2_util.h), stores aligned to 32 bytes on
 * rows of 512 bytes and more. Include only inside #if SIMDOPS_COMPILE_AVX2. */
#ifndef SIMDOPS_VEC_AVX2_H
#define SIMDOPS_VEC_AVX2_H

#include "kernels/vec/avx2_util.h"
#define VEC_ALIGN_BYTES 32u
#define VEC_ALIGN_MIN_BYTES 512u
#include "kernels/vec/vec_map.h"

#define VEC_AVX2_OP(op, SUF) _mm256_##op##_##SUF
#define VEC_AVX2_CMP(SUF, a, b, pred) _mm256_cmp_##SUF(a, b, VEC_AVX2_CMP_##pred)
#define VEC_AVX2_CMP_gt _CMP_GT_OQ
#define VEC_AVX2_CMP_lt _CMP_LT_OQ

/* Integer kinds: __m256i; set1 through the signed type of the width. */
#define VEC_AVX2_INT(K, SET1)                                                                  \
    VEC_KIND(K, __m256i, 32, _mm256_loadu_si256, _mm256_storeu_si256, simdops_avx2_load_part,  \
             simdops_avx2_store_part, VEC_SAME_BITS, VEC_SAME_BITS, _mm256_set1_##SET1)
#define VEC_AVX2_SMALL_INT(K, SET1, MINMAX) VEC_AVX2_INT(K, SET1) VEC_MINMAX(K, VEC_AVX2_OP, MINMAX)
VEC_X86_INT_KINDS(VEC_AVX2_SMALL_INT)
VEC_AVX2_INT(u64, epi64x)
VEC_AVX2_INT(i64, epi64x)
#undef VEC_AVX2_SMALL_INT
#undef VEC_AVX2_INT

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
#define VEC_AVX2_FLOAT(K, V, SUF)                                                              \
    VEC_KIND(K, V, 32, _mm256_loadu_##SUF, _mm256_storeu_##SUF, simdops_avx2_load_part,        \
             simdops_avx2_store_part, _mm256_castsi256_##SUF, _mm256_cast##SUF##_si256,        \
             _mm256_set1_##SUF)                                                                \
    typedef V vmask_##K;                                                                       \
    VEC_MINMAX(K, VEC_AVX2_OP, SUF)                                                            \
    VEC_FLOAT_ARITH(K, VEC_AVX2_OP, VEC_AVX2_CMP, SUF)                                         \
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
    VEC_FLOAT_BITS_OPS(K, VEC_AVX2_OP, SUF, _mm256_castsi256_##SUF(ABS))                       \
    static inline vmask_##K vec_gt_bits_##K(vec_##K a, vec_##K b)                              \
    {                                                                                          \
        return _mm256_castsi256_##SUF(                                                         \
            _mm256_cmpgt_##ISUF(_mm256_cast##SUF##_si256(a), _mm256_cast##SUF##_si256(b)));    \
    }                                                                                          \
    static inline vec_##K vec_keep_##K(vmask_##K m, vec_##K v) { return _mm256_and_##SUF(v, m); } \
    static inline vec_##K vec_keep_signed_##K(vmask_##K m, vec_##K v, vec_##K x, vec_##K mag)  \
    {                                                                                          \
        return vec_keep_##K(m, _mm256_or_##SUF(v, _mm256_xor_##SUF(x, mag)));                 \
    }
VEC_AVX2_FLOAT_BITS(f32, ps, epi32, _mm256_set1_epi32(0x7fffffff))
VEC_AVX2_FLOAT_BITS(f64, pd, epi64, _mm256_set1_epi64x(INT64_MAX))
#undef VEC_AVX2_FLOAT_BITS

#define VEC_MINMAX_KINDS VEC_ALL_KINDS

#endif
