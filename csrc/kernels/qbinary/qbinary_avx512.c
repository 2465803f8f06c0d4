/* Quantized binary ops for AVX-512 (F+BW+VL+DQ), 8-bit types: 64 elements a
 * step as four 16-lane int32 vectors, the exact arithmetic of
 * qbinary_element.h, narrowed with the saturating packs (int32 -> int16 -> 8
 * bits: a clamp to the type, as the runtimes narrow), then the activation
 * bounds; tails through qbinary_element.h.
 * Float steps use embedded rounding (round to nearest even, no exceptions):
 * ONNX Runtime's add is two fused multiply-adds (vfmadd, the bits of fmaf) and
 * a convert, the fp32 multiply a multiply, an add and a convert. Those are the
 * scalar element's bits only while MXCSR rounds to nearest (fmaf and the
 * scalar multiply follow the caller's rounding mode), so under any other mode
 * the two float entries run the scalar element for the whole row. int16
 * inherits avx2's (scalar) kernels. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#include <immintrin.h>

#define SIMDOPS_TIER avx512
#include "qbinary_element.h"

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* 16 elements of an 8-bit type widened to int32 */
static inline __m512i load16_i8(const int8_t *p) { return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)); }
static inline __m512i load16_u8(const uint8_t *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)); }

/* The packs work within 128-bit lanes: after them dword 4j + k holds v_k's
 * elements 4j..4j+3; this index puts v0's 16 first, then v1's, ... */
static inline __m512i unlane(__m512i p)
{
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), p);
}
/* four 16-lane int32 vectors (elements 0..63 in order) to 64 saturated bytes,
 * clamped to [lo, hi] */
static inline __m512i narrow_i8(__m512i v0, __m512i v1, __m512i v2, __m512i v3, __m512i lo, __m512i hi)
{
    __m512i p = unlane(_mm512_packs_epi16(_mm512_packs_epi32(v0, v1), _mm512_packs_epi32(v2, v3)));
    return _mm512_min_epi8(_mm512_max_epi8(p, lo), hi);
}
static inline __m512i narrow_u8(__m512i v0, __m512i v1, __m512i v2, __m512i v3, __m512i lo, __m512i hi)
{
    __m512i p = unlane(_mm512_packus_epi16(_mm512_packs_epi32(v0, v1), _mm512_packs_epi32(v2, v3)));
    return _mm512_min_epu8(_mm512_max_epu8(p, lo), hi);
}

/* ---------------------------------------------------------------- per-arithmetic steps
 * Each takes 16 widened a and b lanes (a one-element input arrives broadcast)
 * and returns the int32 result before narrowing. */

typedef struct qb_consts {
    __m512i a_mult, b_mult, bias, y_offset, a_offset, b_offset, y_mult, half, one, mask_a, thr_a,
        mask_b, thr_b, mask_y, thr_y;
    __m128i shift, sa, sb, sy, ls;
    __m512 scale, y_offset_f, ratio_a, ratio_b, fixed;
} qb_consts;

static inline void qb_consts_init(qb_consts *c, const simdops_qbinary_params *p)
{
    c->a_mult = _mm512_set1_epi32(p->a_mult);
    c->b_mult = _mm512_set1_epi32(p->b_mult);
    c->y_mult = _mm512_set1_epi32(p->y_mult);
    c->bias = _mm512_set1_epi32(p->bias);
    c->y_offset = _mm512_set1_epi32(p->y_offset);
    c->a_offset = _mm512_set1_epi32(p->a_offset);
    c->b_offset = _mm512_set1_epi32(p->b_offset);
    c->half = _mm512_set1_epi64((int64_t)1 << 30);
    c->one = _mm512_set1_epi32(1);
    c->shift = _mm_cvtsi32_si128(p->shift);
    c->ls = _mm_cvtsi32_si128(p->left_shift);
    c->sa = _mm_cvtsi32_si128(p->a_shift);
    c->sb = _mm_cvtsi32_si128(p->b_shift);
    c->sy = _mm_cvtsi32_si128(p->y_shift);
    c->mask_a = _mm512_set1_epi32((int32_t)(((int64_t)1 << p->a_shift) - 1));
    c->mask_b = _mm512_set1_epi32((int32_t)(((int64_t)1 << p->b_shift) - 1));
    c->mask_y = _mm512_set1_epi32((int32_t)(((int64_t)1 << p->y_shift) - 1));
    c->thr_a = _mm512_srli_epi32(c->mask_a, 1);
    c->thr_b = _mm512_srli_epi32(c->mask_b, 1);
    c->thr_y = _mm512_srli_epi32(c->mask_y, 1);
    c->scale = _mm512_set1_ps(p->scale);
    c->y_offset_f = _mm512_set1_ps(p->y_offset_f);
    c->ratio_a = _mm512_set1_ps(p->ratio_a);
    c->ratio_b = _mm512_set1_ps(p->ratio_b);
    c->fixed = _mm512_set1_ps(p->fixed);
}

/* XNNPACK add: bias + a * a_mult + b * b_mult (int32, wrapping), arithmetic
 * shift, + zero point */
static inline __m512i xnn_add16(__m512i a, __m512i b, const qb_consts *c)
{
    __m512i acc = _mm512_add_epi32(c->bias, _mm512_add_epi32(_mm512_mullo_epi32(a, c->a_mult),
                                                             _mm512_mullo_epi32(b, c->b_mult)));
    return _mm512_add_epi32(_mm512_sra_epi32(acc, c->shift), c->y_offset);
}

/* float32(product) * scale, + ONNX Runtime's zero point in float, converted
 * half to even (INT32_MIN beyond int32, as qb_cvt_rne), + XNNPACK's zero
 * point (wrapping). The product of two offset 8-bit values is exact in float. */
static inline __m512i fp_mul16(__m512i a, __m512i b, const qb_consts *c)
{
    __m512i prod = _mm512_mullo_epi32(_mm512_sub_epi32(a, c->a_offset), _mm512_sub_epi32(b, c->b_offset));
    __m512 v = _mm512_mul_round_ps(_mm512_cvtepi32_ps(prod), c->scale, RN);
    v = _mm512_add_round_ps(v, c->y_offset_f, RN);
    return _mm512_add_epi32(_mm512_cvt_roundps_epi32(v, RN), c->y_offset);
}

/* ONNX Runtime add: fma(a, ra, fma(b, rb, fixed)) on the raw inputs (exact in
 * float), converted half to even (INT32_MIN beyond int32, as qb_cvt_rne) */
static inline __m512i ort_add16(__m512i a, __m512i b, const qb_consts *c)
{
    __m512 t = _mm512_fmadd_round_ps(_mm512_cvtepi32_ps(b), c->ratio_b, c->fixed, RN);
    __m512 v = _mm512_fmadd_round_ps(_mm512_cvtepi32_ps(a), c->ratio_a, t, RN);
    return _mm512_cvt_roundps_epi32(v, RN);
}

/* SRDHM(x, m) without the saturating case (see qbinary_avx2.c: never met by
 * the 8-bit kernels), i.e. floor((x * m + 2^30) / 2^31), from the 64-bit
 * products of the even and of the odd lanes (m is uniform). */
static inline __m512i srdhm16(__m512i x, __m512i m, __m512i half)
{
    __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x, m), half);
    __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), m), half);
    /* bits 31..62 of each product: the low dword of even >> 31, the high dword of odd << 1 */
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 31), _mm512_slli_epi64(odd, 1));
}

/* RDBPOT(x, e), e uniform: (x >> e) + ((x & mask) > (mask >> 1) + (x < 0)) */
static inline __m512i rdbpot16(__m512i x, __m128i e, __m512i mask, __m512i thr, __m512i one)
{
    __m512i rem = _mm512_and_si512(x, mask);
    __m512i t = _mm512_add_epi32(thr, _mm512_srli_epi32(x, 31));
    __m512i s = _mm512_sra_epi32(x, e);
    return _mm512_mask_add_epi32(s, _mm512_cmpgt_epi32_mask(rem, t), s, one);
}

static inline __m512i tfl_add16(__m512i a, __m512i b, const qb_consts *c)
{
    __m512i xa = _mm512_sll_epi32(_mm512_add_epi32(a, c->a_offset), c->ls);
    __m512i xb = _mm512_sll_epi32(_mm512_add_epi32(b, c->b_offset), c->ls);
    __m512i ra = rdbpot16(srdhm16(xa, c->a_mult, c->half), c->sa, c->mask_a, c->thr_a, c->one);
    __m512i rb = rdbpot16(srdhm16(xb, c->b_mult, c->half), c->sb, c->mask_b, c->thr_b, c->one);
    __m512i sum = _mm512_add_epi32(ra, rb);
    return _mm512_add_epi32(rdbpot16(srdhm16(sum, c->y_mult, c->half), c->sy, c->mask_y, c->thr_y, c->one),
                            c->y_offset);
}

/* TFLite mul (8-bit): the product shifted left (wrapping as TFLite's int32
 * does), SRDHM, RDBPOT, + zero point (see qbinary_avx2.c) */
static inline __m512i tfl_mul16(__m512i a, __m512i b, const qb_consts *c)
{
    __m512i prod = _mm512_mullo_epi32(_mm512_add_epi32(a, c->a_offset), _mm512_add_epi32(b, c->b_offset));
    __m512i x = _mm512_sll_epi32(prod, c->ls);
    return _mm512_add_epi32(rdbpot16(srdhm16(x, c->y_mult, c->half), c->sy, c->mask_y, c->thr_y, c->one),
                            c->y_offset);
}

/* ---------------------------------------------------------------- loops
 * KERNEL(entry, tag, T, STEP, ONE): 64 elements a step in each form, then the
 * scalar element for the tail. */
#define QB_STEP64(STEP, A0, A1, A2, A3, B0, B1, B2, B3, tag)                                     \
    _mm512_storeu_si512((void *)(y + i),                                                          \
                        narrow_##tag(STEP(A0, B0, &c), STEP(A1, B1, &c), STEP(A2, B2, &c),        \
                                     STEP(A3, B3, &c), lo, hi))
/* FLOAT: the entry's vector steps round to nearest in the instruction, the
 * scalar element in MXCSR's mode: vectors only while MXCSR rounds to nearest
 * (nv, the elements the vector loops may take, is 0 otherwise). */
#define QB_AVX512_KERNEL(entry, tag, T, STEP, ONE, FLOAT)                                          \
    static void SIMDOPS_KERNEL_NAME(tag, entry)(const void *av, const void *bv, void *yv,         \
                                                size_t n, int form,                               \
                                                const simdops_qbinary_params *p)                  \
    {                                                                                              \
        const T *a = (const T *)av;                                                                \
        const T *b = (const T *)bv;                                                                \
        T *y = (T *)yv;                                                                            \
        qb_consts c;                                                                               \
        const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);    \
        const size_t nv = (FLOAT) && (_mm_getcsr() & 0x6000) != 0 ? 0 : n;                        \
        size_t i = 0;                                                                              \
        qb_consts_init(&c, p);                                                                     \
        if (form == SIMDOPS_QB_VV) {                                                               \
            for (; i + 64 <= nv; i += 64)                                                          \
                QB_STEP64(STEP, load16_##tag(a + i), load16_##tag(a + i + 16),                     \
                          load16_##tag(a + i + 32), load16_##tag(a + i + 48), load16_##tag(b + i), \
                          load16_##tag(b + i + 16), load16_##tag(b + i + 32),                      \
                          load16_##tag(b + i + 48), tag);                                          \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE((int32_t)a[i], (int32_t)b[i], p);                                    \
        } else if (form == SIMDOPS_QB_SV) {                                                        \
            const int32_t a0 = a[0];                                                               \
            const __m512i va = _mm512_set1_epi32(a0);                                              \
            for (; i + 64 <= nv; i += 64)                                                          \
                QB_STEP64(STEP, va, va, va, va, load16_##tag(b + i), load16_##tag(b + i + 16),     \
                          load16_##tag(b + i + 32), load16_##tag(b + i + 48), tag);                \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE(a0, (int32_t)b[i], p);                                               \
        } else {                                                                                   \
            const int32_t b0 = b[0];                                                               \
            const __m512i vb = _mm512_set1_epi32(b0);                                              \
            for (; i + 64 <= nv; i += 64)                                                          \
                QB_STEP64(STEP, load16_##tag(a + i), load16_##tag(a + i + 16),                     \
                          load16_##tag(a + i + 32), load16_##tag(a + i + 48), vb, vb, vb, vb, tag); \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE((int32_t)a[i], b0, p);                                               \
        }                                                                                          \
    }

QB_AVX512_KERNEL(qadd_xnnpack, i8, int8_t, xnn_add16, qb_xnnpack_add_one, 0)
QB_AVX512_KERNEL(qadd_xnnpack, u8, uint8_t, xnn_add16, qb_xnnpack_add_one, 0)
QB_AVX512_KERNEL(qmul_fp, i8, int8_t, fp_mul16, qb_fp_mul_one, 1)
QB_AVX512_KERNEL(qmul_fp, u8, uint8_t, fp_mul16, qb_fp_mul_one, 1)
QB_AVX512_KERNEL(qadd_ort, i8, int8_t, ort_add16, qb_ort_add_vv, 1)
QB_AVX512_KERNEL(qadd_ort, u8, uint8_t, ort_add16, qb_ort_add_vv, 1)
QB_AVX512_KERNEL(qadd_tflite, i8, int8_t, tfl_add16, qb_tflite_add_one, 0)
QB_AVX512_KERNEL(qadd_tflite, u8, uint8_t, tfl_add16, qb_tflite_add_one, 0)
QB_AVX512_KERNEL(qmul_tflite, i8, int8_t, tfl_mul16, qb_tflite_mul_one, 0)
QB_AVX512_KERNEL(qmul_tflite, u8, uint8_t, tfl_mul16, qb_tflite_mul_one, 0)

#define QBINARY_KERNELS(X)                                                                         \
    X(qadd_xnnpack, i8) X(qadd_xnnpack, u8) X(qmul_fp, i8) X(qmul_fp, u8)                          \
    X(qadd_ort, i8) X(qadd_ort, u8)                                                                \
    X(qadd_tflite, i8) X(qadd_tflite, u8) X(qmul_tflite, i8) X(qmul_tflite, u8)
SIMDOPS_DEFINE_REGISTER(qbinary, QBINARY_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qbinary, avx512)
#endif
