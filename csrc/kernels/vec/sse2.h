/* The vector vocabulary of vec_map.h for SSE2 (and, through sse41.h, SSE4.1):
 * 16-byte vectors, tails through a zeroed stack buffer, no alignment head.
 * The min/max SSE2 lacks are built from what it has: i8 and u16 with the
 * sign bit flipped into pminub / pminsw, 32-bit lanes by compare and select
 * (u32 flipped into signed order); the flips of a constant bound are hoisted
 * and x ^ f ^ f folds, so a clip costs one flip each way. Include only inside
 * #if SIMDOPS_COMPILE_SSE2; sse41.h sets VEC_SSE41 for the native forms. */
#ifndef SIMDOPS_VEC_SSE2_H
#define SIMDOPS_VEC_SSE2_H

#include <emmintrin.h>
#include <string.h>
#if defined(VEC_SSE41)
#include <smmintrin.h>
#endif

#include "kernels/vec/sse_util.h" /* sseu_min_epi32, sseu_max_epi32 */
#include "kernels/vec/vec_map.h"
#include "kernels/vec/vec_parts.h"

/* Tails through a zeroed stack buffer: vec_sse_load_part, vec_sse_store_part */
VEC_BUFFER_PARTS(vec_sse, __m128i, 16, _mm_loadu_si128, _mm_storeu_si128)

#define VEC_SSE_OP(op, SUF) _mm_##op##_##SUF
#define VEC_SSE_CMP(SUF, a, b, pred) _mm_cmp##pred##_##SUF(a, b)

#define VEC_SSE_INT(K, SET1, MINMAX)                                                           \
    VEC_KIND(K, __m128i, 16, _mm_loadu_si128, _mm_storeu_si128, vec_sse_load_part,             \
             vec_sse_store_part, VEC_SAME_BITS, VEC_SAME_BITS, _mm_set1_##SET1)
VEC_X86_INT_KINDS(VEC_SSE_INT)
#undef VEC_SSE_INT

/* min/max SSE2 has natively; SSE4.1 has the rest */
VEC_MINMAX(u8, VEC_SSE_OP, epu8)
VEC_MINMAX(i16, VEC_SSE_OP, epi16)
#if defined(VEC_SSE41)
VEC_MINMAX(i8, VEC_SSE_OP, epi8)
VEC_MINMAX(u16, VEC_SSE_OP, epu16)
VEC_MINMAX(u32, VEC_SSE_OP, epu32)
VEC_MINMAX(i32, VEC_SSE_OP, epi32)
#else
#define VEC_SSE2_FLIPPED(K, MIN, MAX, FLIP)                                                    \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b)                                    \
    {                                                                                          \
        const __m128i f = FLIP;                                                                \
        return _mm_xor_si128(MIN(_mm_xor_si128(a, f), _mm_xor_si128(b, f)), f);                \
    }                                                                                          \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b)                                    \
    {                                                                                          \
        const __m128i f = FLIP;                                                                \
        return _mm_xor_si128(MAX(_mm_xor_si128(a, f), _mm_xor_si128(b, f)), f);                \
    }
VEC_SSE2_FLIPPED(i8, _mm_min_epu8, _mm_max_epu8, _mm_set1_epi8((char)0x80))
VEC_SSE2_FLIPPED(u16, _mm_min_epi16, _mm_max_epi16, _mm_set1_epi16((short)0x8000))
VEC_SSE2_FLIPPED(u32, sseu_min_epi32, sseu_max_epi32, _mm_set1_epi32((int)0x80000000u))
#undef VEC_SSE2_FLIPPED
#define VEC_SSEU_OP(op, SUF) sseu_##op##_##SUF /* sse_util.h's compare and select */
VEC_MINMAX(i32, VEC_SSEU_OP, epi32)
#undef VEC_SSEU_OP
#endif

/* Float kinds: minps/maxps return their second operand when either is NaN
 * (the vocabulary's a < b ? a : b). Masks are all-ones lanes, so a merge
 * into a rest that is zero under the mask is one AND and one OR. */
#define VEC_SSE_FLOAT(K, V, SUF)                                                               \
    VEC_KIND(K, V, 16, _mm_loadu_##SUF, _mm_storeu_##SUF, vec_sse_load_part, vec_sse_store_part, \
             _mm_castsi128_##SUF, _mm_cast##SUF##_si128, _mm_set1_##SUF)                       \
    typedef V vmask_##K;                                                                       \
    VEC_MINMAX(K, VEC_SSE_OP, SUF)                                                             \
    VEC_FLOAT_ARITH(K, VEC_SSE_OP, VEC_SSE_CMP, SUF)                                           \
    static inline vec_##K vec_nan_keep_##K(vec_##K a) { return _mm_and_##SUF(_mm_cmpunord_##SUF(a, a), a); } \
    static inline vec_##K vec_merge_##K(vmask_##K m, vec_##K v, vec_##K rest)                  \
    {                                                                                          \
        return _mm_or_##SUF(_mm_and_##SUF(m, v), rest);                                        \
    }
VEC_SSE_FLOAT(f32, __m128, ps)
VEC_SSE_FLOAT(f64, __m128d, pd)
#undef VEC_SSE_FLOAT

/* 64-bit integer lanes: none (pcmpgtq is SSE4.2; two emulated 64-bit
 * compares and selects cost more than the scalar compare + cmov loop). */
#define VEC_MINMAX_KINDS(X, a)                                                                 \
    X(u8, a) X(i8, a) X(u16, a) X(i16, a) X(u32, a) X(i32, a) X(f32, a) X(f64, a)

#endif
