/* The vector vocabulary of vec_map.h for AVX-512 (F+BW+VL+DQ): 64-byte
 * vectors, opmask compares, tails as one masked load and store (faults are
 * suppressed on masked-off lanes, so nothing past the row is touched), stores
 * aligned to 64 bytes on rows of 1024 bytes and more. Include only inside
 * #if SIMDOPS_COMPILE_AVX512. */
#ifndef SIMDOPS_VEC_AVX512_H
#define SIMDOPS_VEC_AVX512_H

#include "kernels/vec/avx2_util.h" /* SIMDOPS_MXCSR_DAZ */
#include "kernels/vec/avx512_util.h"
#define VEC_ALIGN_BYTES 64u
#define VEC_ALIGN_MIN_BYTES 1024u
#include "kernels/vec/vec_map.h"

#define VEC_AVX512_INT(K, ST, SET1, SUF)                                                       \
    typedef __m512i vec_##K;                                                                   \
    enum { VEC_LANES_##K = 64 / sizeof(vec_elem_##K) };                                        \
    static inline vec_##K vec_loadu_##K(const void *p) { return _mm512_loadu_si512(p); }       \
    static inline void vec_storeu_##K(void *p, vec_##K v) { _mm512_storeu_si512(p, v); }       \
    static inline vec_##K vec_load_tail_##K(const void *p, size_t k)                           \
    {                                                                                          \
        return _mm512_maskz_loadu_epi8(simdops_avx512_bytes(k * sizeof(vec_elem_##K)), p);     \
    }                                                                                          \
    static inline void vec_store_tail_##K(void *p, vec_##K v, size_t k)                        \
    {                                                                                          \
        _mm512_mask_storeu_epi8(p, simdops_avx512_bytes(k * sizeof(vec_elem_##K)), v);         \
    }                                                                                          \
    static inline vec_##K vec_set1_##K(vec_elem_##K e) { return SET1((ST)e); }                \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return _mm512_min_##SUF(a, b); } \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return _mm512_max_##SUF(a, b); }
VEC_AVX512_INT(u8, char, _mm512_set1_epi8, epu8)
VEC_AVX512_INT(i8, char, _mm512_set1_epi8, epi8)
VEC_AVX512_INT(u16, short, _mm512_set1_epi16, epu16)
VEC_AVX512_INT(i16, short, _mm512_set1_epi16, epi16)
VEC_AVX512_INT(u32, int, _mm512_set1_epi32, epu32)
VEC_AVX512_INT(i32, int, _mm512_set1_epi32, epi32)
VEC_AVX512_INT(u64, long long, _mm512_set1_epi64, epu64)
VEC_AVX512_INT(i64, long long, _mm512_set1_epi64, epi64)
#undef VEC_AVX512_INT

/* Float kinds: minps/maxps return their second operand when either is NaN
 * (the vocabulary's a < b ? a : b). Masks are opmasks. */
#define VEC_AVX512_FLOAT(K, V, M, SUF)                                                         \
    typedef V vec_##K;                                                                         \
    typedef M vmask_##K;                                                                       \
    enum { VEC_LANES_##K = 64 / sizeof(vec_elem_##K) };                                        \
    static inline vec_##K vec_loadu_##K(const void *p) { return _mm512_loadu_##SUF(p); }       \
    static inline void vec_storeu_##K(void *p, vec_##K v) { _mm512_storeu_##SUF(p, v); }       \
    static inline vec_##K vec_load_tail_##K(const void *p, size_t k)                           \
    {                                                                                          \
        return _mm512_castsi512_##SUF(                                                         \
            _mm512_maskz_loadu_epi8(simdops_avx512_bytes(k * sizeof(vec_elem_##K)), p));       \
    }                                                                                          \
    static inline void vec_store_tail_##K(void *p, vec_##K v, size_t k)                        \
    {                                                                                          \
        _mm512_mask_storeu_epi8(p, simdops_avx512_bytes(k * sizeof(vec_elem_##K)),             \
                                _mm512_cast##SUF##_si512(v));                                  \
    }                                                                                          \
    static inline vec_##K vec_set1_##K(vec_elem_##K e) { return _mm512_set1_##SUF(e); }       \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return _mm512_min_##SUF(a, b); } \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return _mm512_max_##SUF(a, b); } \
    static inline vec_##K vec_add_##K(vec_##K a, vec_##K b) { return _mm512_add_##SUF(a, b); } \
    static inline vec_##K vec_sub_##K(vec_##K a, vec_##K b) { return _mm512_sub_##SUF(a, b); } \
    static inline vec_##K vec_mul_##K(vec_##K a, vec_##K b) { return _mm512_mul_##SUF(a, b); } \
    static inline vmask_##K vec_gt_##K(vec_##K a, vec_##K b) { return _mm512_cmp_##SUF##_mask(a, b, _CMP_GT_OQ); } \
    static inline vmask_##K vec_lt_##K(vec_##K a, vec_##K b) { return _mm512_cmp_##SUF##_mask(a, b, _CMP_LT_OQ); } \
    static inline vec_##K vec_nan_keep_##K(vec_##K a)                                          \
    {                                                                                          \
        return _mm512_maskz_mov_##SUF(_mm512_cmp_##SUF##_mask(a, a, _CMP_UNORD_Q), a);         \
    }                                                                                          \
    static inline vec_##K vec_merge_##K(vmask_##K m, vec_##K v, vec_##K rest)                  \
    {                                                                                          \
        return _mm512_mask_mov_##SUF(rest, m, v);                                              \
    }
VEC_AVX512_FLOAT(f32, __m512, __mmask16, ps)
VEC_AVX512_FLOAT(f64, __m512d, __mmask8, pd)
#undef VEC_AVX512_FLOAT

/* Float bits as integers, for shrink_body.h's sign-magnitude forms. */
#define VEC_HAS_FLOAT_BITS 1
#define VEC_DAZ() ((_mm_getcsr() & SIMDOPS_MXCSR_DAZ) != 0)
#define VEC_AVX512_FLOAT_BITS(K, SUF, ISUF, ABS)                                               \
    static inline vec_##K vec_abs_##K(vec_##K a) { return _mm512_and_##SUF(a, _mm512_castsi512_##SUF(ABS)); } \
    static inline vec_##K vec_xor_##K(vec_##K a, vec_##K b) { return _mm512_xor_##SUF(a, b); } \
    static inline vec_##K vec_or_##K(vec_##K a, vec_##K b) { return _mm512_or_##SUF(a, b); }   \
    static inline vmask_##K vec_gt_bits_##K(vec_##K a, vec_##K b)                              \
    {                                                                                          \
        return _mm512_cmpgt_##ISUF##_mask(_mm512_cast##SUF##_si512(a), _mm512_cast##SUF##_si512(b)); \
    }                                                                                          \
    static inline vec_##K vec_blend_##K(vmask_##K m, vec_##K v, vec_##K rest)                  \
    {                                                                                          \
        return _mm512_mask_mov_##SUF(rest, m, v);                                              \
    }                                                                                          \
    static inline vec_##K vec_keep_##K(vmask_##K m, vec_##K v) { return _mm512_maskz_mov_##SUF(m, v); }
VEC_AVX512_FLOAT_BITS(f32, ps, epi32, _mm512_set1_epi32(0x7fffffff))
VEC_AVX512_FLOAT_BITS(f64, pd, epi64, _mm512_set1_epi64(INT64_MAX))
#undef VEC_AVX512_FLOAT_BITS

#define VEC_MINMAX_KINDS(X, a)                                                                 \
    X(u8, a) X(i8, a) X(u16, a) X(i16, a) X(u32, a) X(i32, a) X(u64, a) X(i64, a) X(f32, a)    \
    X(f64, a)
#define VEC_FLOAT_KINDS(X, a) X(f32, a) X(f64, a)

#endif
