/* The vector vocabulary of vec_map.h for AVX-512 (F+BW+VL+DQ): 64-byte
 * vectors, opmask compares, tails as one masked load and store (faults are
 * suppressed on masked-off lanes, so nothing past the row is touched), loads
 * aligned to 64 bytes on rows of 1024 bytes and more (VEC_ALIGN_LOADS: with x
 * and y on different offsets in their lines, the line-split loads cost more
 * than the line-split stores: float32 shrink of 64K elements in L2 took 3.1
 * cycles per 64 bytes with x 16 bytes off a line against 2.0 with y off,
 * tools/ew_cache_bound.c). Include only inside #if SIMDOPS_COMPILE_AVX512. */
#ifndef SIMDOPS_VEC_AVX512_H
#define SIMDOPS_VEC_AVX512_H

#include "kernels/vec/avx2_util.h" /* SIMDOPS_MXCSR_DAZ */
#include "kernels/vec/avx512_util.h"
#define VEC_ALIGN_BYTES 64u
#define VEC_ALIGN_MIN_BYTES 1024u
#define VEC_ALIGN_LOADS 1
#include "kernels/vec/vec_map.h"

#define VEC_AVX512_OP(op, SUF) _mm512_##op##_##SUF
#define VEC_AVX512_CMP(SUF, a, b, pred) _mm512_cmp_##SUF##_mask(a, b, VEC_AVX512_CMP_##pred)
#define VEC_AVX512_CMP_gt _CMP_GT_OQ
#define VEC_AVX512_CMP_lt _CMP_LT_OQ

#define VEC_AVX512_INT(K, SET1, MINMAX)                                                        \
    VEC_KIND(K, __m512i, 64, _mm512_loadu_si512, _mm512_storeu_si512, simdops_avx512_load_part, \
             simdops_avx512_store_part, VEC_SAME_BITS, VEC_SAME_BITS, _mm512_set1_##SET1)      \
    VEC_MINMAX(K, VEC_AVX512_OP, MINMAX)
VEC_X86_INT_KINDS(VEC_AVX512_INT)
VEC_AVX512_INT(u64, epi64, epu64)
VEC_AVX512_INT(i64, epi64, epi64)
#undef VEC_AVX512_INT

/* Float kinds: minps/maxps return their second operand when either is NaN
 * (the vocabulary's a < b ? a : b). Masks are opmasks. */
#define VEC_AVX512_FLOAT(K, V, M, SUF)                                                         \
    VEC_KIND(K, V, 64, _mm512_loadu_##SUF, _mm512_storeu_##SUF, simdops_avx512_load_part,      \
             simdops_avx512_store_part, _mm512_castsi512_##SUF, _mm512_cast##SUF##_si512,      \
             _mm512_set1_##SUF)                                                                \
    typedef M vmask_##K;                                                                       \
    VEC_MINMAX(K, VEC_AVX512_OP, SUF)                                                          \
    VEC_FLOAT_ARITH(K, VEC_AVX512_OP, VEC_AVX512_CMP, SUF)                                     \
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
#define VEC_AVX512_FLOAT_BITS(K, SUF, ISUF, ABS, SIGN)                                               \
    VEC_FLOAT_BITS_OPS(K, VEC_AVX512_OP, SUF, _mm512_castsi512_##SUF(ABS))                     \
    static inline vmask_##K vec_gt_bits_##K(vec_##K a, vec_##K b)                              \
    {                                                                                          \
        return _mm512_cmpgt_##ISUF##_mask(_mm512_cast##SUF##_si512(a), _mm512_cast##SUF##_si512(b)); \
    }                                                                                          \
    static inline vec_##K vec_keep_##K(vmask_##K m, vec_##K v) { return _mm512_maskz_mov_##SUF(m, v); } \
    /* m ? v | (x's sign) : +0.0 in one zeroing ternlog (A | B & C: 0xF8); mag unused */      \
    static inline vec_##K vec_keep_signed_##K(vmask_##K m, vec_##K v, vec_##K x, vec_##K mag)  \
    {                                                                                          \
        (void)mag;                                                                             \
        return _mm512_castsi512_##SUF(_mm512_maskz_ternarylogic_##ISUF(                        \
            m, _mm512_cast##SUF##_si512(v), _mm512_cast##SUF##_si512(x), SIGN, 0xF8));         \
    }
VEC_AVX512_FLOAT_BITS(f32, ps, epi32, _mm512_set1_epi32(0x7fffffff), _mm512_set1_epi32(INT32_MIN))
VEC_AVX512_FLOAT_BITS(f64, pd, epi64, _mm512_set1_epi64(INT64_MAX), _mm512_set1_epi64(INT64_MIN))
#undef VEC_AVX512_FLOAT_BITS

#define VEC_MINMAX_KINDS VEC_ALL_KINDS

#endif
