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

static inline __m128i vec_sse_load_part(const void *p, size_t nbytes)
{
    unsigned char buf[16] = {0};
    memcpy(buf, p, nbytes);
    return _mm_loadu_si128((const __m128i *)(const void *)buf);
}

static inline void vec_sse_store_part(void *p, __m128i v, size_t nbytes)
{
    unsigned char buf[16];
    _mm_storeu_si128((__m128i *)(void *)buf, v);
    memcpy(p, buf, nbytes);
}

#define VEC_SSE_INT(K, ST, SET1)                                                               \
    typedef __m128i vec_##K;                                                                   \
    enum { VEC_LANES_##K = 16 / sizeof(vec_elem_##K) };                                        \
    static inline vec_##K vec_loadu_##K(const void *p) { return _mm_loadu_si128((const __m128i *)p); } \
    static inline void vec_storeu_##K(void *p, vec_##K v) { _mm_storeu_si128((__m128i *)p, v); } \
    static inline vec_##K vec_load_tail_##K(const void *p, size_t k)                           \
    {                                                                                          \
        return vec_sse_load_part(p, k * sizeof(vec_elem_##K));                                 \
    }                                                                                          \
    static inline void vec_store_tail_##K(void *p, vec_##K v, size_t k)                        \
    {                                                                                          \
        vec_sse_store_part(p, v, k * sizeof(vec_elem_##K));                                    \
    }                                                                                          \
    static inline vec_##K vec_set1_##K(vec_elem_##K e) { return SET1((ST)e); }
VEC_SSE_INT(u8, char, _mm_set1_epi8)
VEC_SSE_INT(i8, char, _mm_set1_epi8)
VEC_SSE_INT(u16, short, _mm_set1_epi16)
VEC_SSE_INT(i16, short, _mm_set1_epi16)
VEC_SSE_INT(u32, int, _mm_set1_epi32)
VEC_SSE_INT(i32, int, _mm_set1_epi32)
#undef VEC_SSE_INT

#define VEC_SSE_MINMAX(K, MIN, MAX)                                                            \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return MIN(a, b); }             \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return MAX(a, b); }
VEC_SSE_MINMAX(u8, _mm_min_epu8, _mm_max_epu8)
VEC_SSE_MINMAX(i16, _mm_min_epi16, _mm_max_epi16)
#if defined(VEC_SSE41)
VEC_SSE_MINMAX(i8, _mm_min_epi8, _mm_max_epi8)
VEC_SSE_MINMAX(u16, _mm_min_epu16, _mm_max_epu16)
VEC_SSE_MINMAX(u32, _mm_min_epu32, _mm_max_epu32)
VEC_SSE_MINMAX(i32, _mm_min_epi32, _mm_max_epi32)
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
VEC_SSE_MINMAX(i32, sseu_min_epi32, sseu_max_epi32)
#endif
#undef VEC_SSE_MINMAX

/* Float kinds: minps/maxps return their second operand when either is NaN
 * (the vocabulary's a < b ? a : b). Masks are all-ones lanes, so a merge
 * into a rest that is zero under the mask is one AND and one OR. */
#define VEC_SSE_FLOAT(K, V, SUF)                                                               \
    typedef V vec_##K;                                                                         \
    typedef V vmask_##K;                                                                       \
    enum { VEC_LANES_##K = 16 / sizeof(vec_elem_##K) };                                        \
    static inline vec_##K vec_loadu_##K(const void *p) { return _mm_loadu_##SUF((const vec_elem_##K *)p); } \
    static inline void vec_storeu_##K(void *p, vec_##K v) { _mm_storeu_##SUF((vec_elem_##K *)p, v); } \
    static inline vec_##K vec_load_tail_##K(const void *p, size_t k)                           \
    {                                                                                          \
        return _mm_castsi128_##SUF(vec_sse_load_part(p, k * sizeof(vec_elem_##K)));           \
    }                                                                                          \
    static inline void vec_store_tail_##K(void *p, vec_##K v, size_t k)                        \
    {                                                                                          \
        vec_sse_store_part(p, _mm_cast##SUF##_si128(v), k * sizeof(vec_elem_##K));            \
    }                                                                                          \
    static inline vec_##K vec_set1_##K(vec_elem_##K e) { return _mm_set1_##SUF(e); }          \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return _mm_min_##SUF(a, b); }   \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return _mm_max_##SUF(a, b); }   \
    static inline vec_##K vec_add_##K(vec_##K a, vec_##K b) { return _mm_add_##SUF(a, b); }   \
    static inline vec_##K vec_sub_##K(vec_##K a, vec_##K b) { return _mm_sub_##SUF(a, b); }   \
    static inline vec_##K vec_mul_##K(vec_##K a, vec_##K b) { return _mm_mul_##SUF(a, b); }   \
    static inline vmask_##K vec_gt_##K(vec_##K a, vec_##K b) { return _mm_cmpgt_##SUF(a, b); } \
    static inline vmask_##K vec_lt_##K(vec_##K a, vec_##K b) { return _mm_cmplt_##SUF(a, b); } \
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
#define VEC_FLOAT_KINDS(X, a) X(f32, a) X(f64, a)

#endif
