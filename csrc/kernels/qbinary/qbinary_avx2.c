/* Quantized binary ops for AVX2, 8-bit types: 32 elements a step as four
 * 8-lane int32 vectors, the exact integer arithmetic of qbinary_element.h in
 * 32-bit lanes (64-bit products where TFLite's SRDHM needs them), narrowed
 * with the x86 saturating packs (int32 -> int16 -> 8 bits: a clamp to the
 * type, as the runtimes narrow), then the activation bounds; tails through
 * qbinary_element.h. Rounding of the float multiply is roundps with an
 * explicit nearest-even mode: no dependence on MXCSR.
 * ONNX Runtime's add (fused multiply-adds; the tier does not require FMA) is
 * computed in double where the parameters make that exact (ort_double_exact);
 * int16 inherits the scalar kernels. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#include <immintrin.h>

#define SIMDOPS_TIER avx2
#include "qbinary_element.h"

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* 8 elements of an 8-bit type widened to int32 */
static inline __m256i load8_i8(const int8_t *p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)); }
static inline __m256i load8_u8(const uint8_t *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)); }

/* four 8-lane int32 vectors (elements 0..31 in order) to 32 saturated bytes,
 * clamped to [lo, hi] */
static inline __m256i narrow_i8(__m256i v0, __m256i v1, __m256i v2, __m256i v3, __m256i lo, __m256i hi)
{
    __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
    p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    return _mm256_min_epi8(_mm256_max_epi8(p, lo), hi);
}
static inline __m256i narrow_u8(__m256i v0, __m256i v1, __m256i v2, __m256i v3, __m256i lo, __m256i hi)
{
    __m256i p = _mm256_packus_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
    p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    return _mm256_min_epu8(_mm256_max_epu8(p, lo), hi);
}

/* ---------------------------------------------------------------- per-arithmetic steps
 * Each takes 8 widened a and b lanes (a one-element input arrives broadcast)
 * and returns the int32 result before narrowing. */

typedef struct qb_consts {
    __m256i a_mult, b_mult, bias, y_offset, a_offset, b_offset, y_mult, half, mask_a, thr_a,
        mask_b, thr_b, mask_y, thr_y;
    __m128i shift, sa, sb, sy, ls;
    __m256 scale, y_offset_f;
    __m256d ratio_a, ratio_b, fixed;
} qb_consts;

static inline void qb_consts_init(qb_consts *c, const simdops_qbinary_params *p)
{
    c->a_mult = _mm256_set1_epi32(p->a_mult);
    c->b_mult = _mm256_set1_epi32(p->b_mult);
    c->y_mult = _mm256_set1_epi32(p->y_mult);
    c->bias = _mm256_set1_epi32(p->bias);
    c->y_offset = _mm256_set1_epi32(p->y_offset);
    c->a_offset = _mm256_set1_epi32(p->a_offset);
    c->b_offset = _mm256_set1_epi32(p->b_offset);
    c->half = _mm256_set1_epi64x((int64_t)1 << 30);
    c->shift = _mm_cvtsi32_si128(p->shift);
    c->ls = _mm_cvtsi32_si128(p->left_shift);
    c->sa = _mm_cvtsi32_si128(p->a_shift);
    c->sb = _mm_cvtsi32_si128(p->b_shift);
    c->sy = _mm_cvtsi32_si128(p->y_shift);
    c->mask_a = _mm256_set1_epi32((int32_t)(((int64_t)1 << p->a_shift) - 1));
    c->mask_b = _mm256_set1_epi32((int32_t)(((int64_t)1 << p->b_shift) - 1));
    c->mask_y = _mm256_set1_epi32((int32_t)(((int64_t)1 << p->y_shift) - 1));
    c->thr_a = _mm256_srli_epi32(c->mask_a, 1);
    c->thr_b = _mm256_srli_epi32(c->mask_b, 1);
    c->thr_y = _mm256_srli_epi32(c->mask_y, 1);
    c->scale = _mm256_set1_ps(p->scale);
    c->y_offset_f = _mm256_set1_ps(p->y_offset_f);
    c->ratio_a = _mm256_set1_pd(p->ratio_a);
    c->ratio_b = _mm256_set1_pd(p->ratio_b);
    c->fixed = _mm256_set1_pd(p->fixed);
}

/* XNNPACK add: bias + a * a_mult + b * b_mult, arithmetic shift, + zero point */
static inline __m256i xnn_add8(__m256i a, __m256i b, const qb_consts *c)
{
    __m256i acc = _mm256_add_epi32(c->bias, _mm256_add_epi32(_mm256_mullo_epi32(a, c->a_mult),
                                                             _mm256_mullo_epi32(b, c->b_mult)));
    return _mm256_add_epi32(_mm256_sra_epi32(acc, c->shift), c->y_offset);
}

/* float32(product) * scale (+ ONNX Runtime's zero point in float) rounded half
 * to even (cvttps of the rounded value: beyond int32 it is INT32_MIN, as
 * cvtps2dq gives), + XNNPACK's zero point (wrapping) */
static inline __m256i fp_mul8(__m256i a, __m256i b, const qb_consts *c)
{
    __m256i prod = _mm256_mullo_epi32(_mm256_sub_epi32(a, c->a_offset), _mm256_sub_epi32(b, c->b_offset));
    __m256 v = _mm256_round_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(prod), c->scale),
                                             c->y_offset_f), RN);
    return _mm256_add_epi32(_mm256_cvttps_epi32(v), c->y_offset);
}

/* SRDHM(x, m) without the saturating case (TFLite's 8-bit add never has
 * x == m == INT32_MIN: |x| < 2^28, |m| < 2^31): floor((x * m + 2^30) / 2^31)
 * from the 64-bit products of the even and of the odd lanes. */
static inline __m256i srdhm8(__m256i x, __m256i m, __m256i half)
{
    __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, m), half);
    __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(m, 32)), half);
    /* bits 31..62 of each product: the low dword of even >> 31, the high dword of odd << 1 */
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
}

/* RDBPOT(x, e), e uniform: (x >> e) + ((x & mask) > (mask >> 1) + (x < 0)) */
static inline __m256i rdbpot8(__m256i x, __m128i e, __m256i mask, __m256i thr)
{
    __m256i rem = _mm256_and_si256(x, mask);
    __m256i t = _mm256_add_epi32(thr, _mm256_srli_epi32(x, 31));
    return _mm256_sub_epi32(_mm256_sra_epi32(x, e), _mm256_cmpgt_epi32(rem, t));
}

static inline __m256i tfl_scale_a(__m256i a, const qb_consts *c)
{
    __m256i x = _mm256_sll_epi32(_mm256_add_epi32(a, c->a_offset), c->ls);
    return rdbpot8(srdhm8(x, c->a_mult, c->half), c->sa, c->mask_a, c->thr_a);
}
static inline __m256i tfl_scale_b(__m256i b, const qb_consts *c)
{
    __m256i x = _mm256_sll_epi32(_mm256_add_epi32(b, c->b_offset), c->ls);
    return rdbpot8(srdhm8(x, c->b_mult, c->half), c->sb, c->mask_b, c->thr_b);
}
/* TFLite add: the scaled inputs summed, scaled by the output's multiplier */
static inline __m256i tfl_out(__m256i sum, const qb_consts *c)
{
    return _mm256_add_epi32(rdbpot8(srdhm8(sum, c->y_mult, c->half), c->sy, c->mask_y, c->thr_y), c->y_offset);
}
static inline __m256i tfl_add8(__m256i a, __m256i b, const qb_consts *c)
{
    return tfl_out(_mm256_add_epi32(tfl_scale_a(a, c), tfl_scale_b(b, c)), c);
}

/* TFLite mul (8-bit): the product (|p| <= 65025) shifted left (left_shift <= 30,
 * wrapping as TFLite's int32 does), SRDHM, RDBPOT, + zero point. SRDHM's
 * saturating case needs x == INT32_MIN and m == INT32_MIN; m < 2^31. */
static inline __m256i tfl_mul8(__m256i a, __m256i b, const qb_consts *c)
{
    __m256i prod = _mm256_mullo_epi32(_mm256_add_epi32(a, c->a_offset), _mm256_add_epi32(b, c->b_offset));
    __m256i x = _mm256_sll_epi32(prod, c->ls);
    return _mm256_add_epi32(rdbpot8(srdhm8(x, c->y_mult, c->half), c->sy, c->mask_y, c->thr_y), c->y_offset);
}

/* ONNX Runtime add without FMA: fmaf(x, r, z) for an 8-bit integer x and
 * floats r, z as RN_f(x * r + z) computed in double: x * r (at most 8 + 24
 * significant bits) is exact in double, and so is the sum when every nonzero
 * value it can take spans at most 53 bits: ort_double_exact proves that from
 * the parameters, for both steps (t = fmaf(b, rb, fixed), then fmaf(a, ra, t)).
 * The one rounding left is the conversion to float (MXCSR's: the kernel runs
 * when it rounds to nearest), i.e. fmaf's. Otherwise the scalar element runs. */
static int ort_double_exact(const simdops_qbinary_params *p)
{
    const double ra = p->ratio_a, rb = p->ratio_b, z = fabs((double)p->fixed);
    int lsb, top;
    if ((_mm_getcsr() & 0x6000) != 0) /* not rounding to nearest */
        return 0;
    /* ratios and fixed normal floats (a multiple of 2^(exponent - 23) each) */
    if (!(ra >= 0x1p-126 && ra <= 0x1p100 && rb >= 0x1p-126 && rb <= 0x1p100 &&
          (z == 0.0 || (z >= 0x1p-126 && z <= 0x1p100))))
        return 0;
    /* every product and sum (and t, the float the first step rounds to) is a
     * multiple of 2^lsb ... */
    lsb = ilogb(ra) < ilogb(rb) ? ilogb(ra) : ilogb(rb);
    if (z != 0.0 && ilogb(z) < lsb)
        lsb = ilogb(z);
    lsb -= 23;
    /* ... below 2^top in magnitude: |x| <= 255, |t| <= |b * rb + fixed| (1 + 2^-24) */
    top = ilogb((256.0 * ra + 256.0 * rb + z) * 1.001) + 1;
    return top - lsb <= 53;
}
static inline __m128 fma_d4(__m128i x, __m256d r, __m256d z)
{
    return _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(x), r), z));
}
static inline __m256i ort_add8(__m256i a, __m256i b, const qb_consts *c)
{
    __m128 t0 = fma_d4(_mm256_castsi256_si128(b), c->ratio_b, c->fixed);
    __m128 t1 = fma_d4(_mm256_extracti128_si256(b, 1), c->ratio_b, c->fixed);
    __m128 v0 = fma_d4(_mm256_castsi256_si128(a), c->ratio_a, _mm256_cvtps_pd(t0));
    __m128 v1 = fma_d4(_mm256_extracti128_si256(a, 1), c->ratio_a, _mm256_cvtps_pd(t1));
    __m256 v = _mm256_round_ps(_mm256_set_m128(v1, v0), RN);
    return _mm256_cvttps_epi32(v); /* beyond int32: INT32_MIN, as qb_cvt_rne */
}

#define QB_ORT_STEP(AV, BV, tag)                                                                   \
    _mm256_storeu_si256((__m256i *)(void *)(y + i),                                                \
                        narrow_##tag(ort_add8(AV(0), BV(0), &c), ort_add8(AV(8), BV(8), &c),       \
                                     ort_add8(AV(16), BV(16), &c), ort_add8(AV(24), BV(24), &c),   \
                                     lo, hi))
#define QB_ORT_KERNEL(tag, T_)                                                                     \
    static void SIMDOPS_KERNEL_NAME(tag, qadd_ort)(const void *av, const void *bv, void *yv,      \
                                                   size_t n, int form,                            \
                                                   const simdops_qbinary_params *p)               \
    {                                                                                              \
        typedef T_ T;                                                                              \
        const T *a = (const T *)av;                                                                \
        const T *b = (const T *)bv;                                                                \
        T *y = (T *)yv;                                                                            \
        qb_consts c;                                                                               \
        const __m256i lo = _mm256_set1_epi8((char)p->lo), hi = _mm256_set1_epi8((char)p->hi);    \
        const size_t sa = form == SIMDOPS_QB_SV ? 0 : 1, sb = form == SIMDOPS_QB_VS ? 0 : 1;      \
        /* a one-element input, read only when it is one (and there is a row) */                \
        const __m256i va = _mm256_set1_epi32(form == SIMDOPS_QB_SV && n ? (int32_t)a[0] : 0);     \
        const __m256i vb = _mm256_set1_epi32(form == SIMDOPS_QB_VS && n ? (int32_t)b[0] : 0);     \
        size_t i = 0;                                                                              \
        qb_consts_init(&c, p);                                                                     \
        if (ort_double_exact(p))                                                                   \
            for (; i + 32 <= n; i += 32) {                                                         \
                if (form == SIMDOPS_QB_VV)                                                         \
                    QB_ORT_STEP(QB_LA_##tag, QB_LB_##tag, tag);                                    \
                else if (form == SIMDOPS_QB_SV)                                                    \
                    QB_ORT_STEP(QB_VA, QB_LB_##tag, tag);                                          \
                else                                                                               \
                    QB_ORT_STEP(QB_LA_##tag, QB_VB, tag);                                          \
            }                                                                                      \
        for (; i < n; i++)                                                                         \
            y[i] = (T)qb_ort_add_vv(SA(i), SB(i), p);                                              \
    }
#define SA(k) ((int32_t)a[(k) * sa])
#define SB(k) ((int32_t)b[(k) * sb])
#define QB_VA(o) va
#define QB_VB(o) vb
#define QB_LA_i8(o) load8_i8((const int8_t *)a + i + (o))
#define QB_LB_i8(o) load8_i8((const int8_t *)b + i + (o))
#define QB_LA_u8(o) load8_u8((const uint8_t *)a + i + (o))
#define QB_LB_u8(o) load8_u8((const uint8_t *)b + i + (o))

/* ---------------------------------------------------------------- loops
 * KERNEL(entry, tag, T, STEP, ONE): 32 elements a step in each form, then the
 * scalar element for the tail. */
#define QB_AVX2_KERNEL(entry, tag, T, STEP, ONE)                                                   \
    static void SIMDOPS_KERNEL_NAME(tag, entry)(const void *av, const void *bv, void *yv,         \
                                                size_t n, int form,                               \
                                                const simdops_qbinary_params *p)                  \
    {                                                                                              \
        const T *a = (const T *)av;                                                                \
        const T *b = (const T *)bv;                                                                \
        T *y = (T *)yv;                                                                            \
        qb_consts c;                                                                               \
        const __m256i lo = _mm256_set1_epi8((char)p->lo), hi = _mm256_set1_epi8((char)p->hi);    \
        size_t i = 0;                                                                              \
        qb_consts_init(&c, p);                                                                     \
        if (form == SIMDOPS_QB_VV) {                                                               \
            for (; i + 32 <= n; i += 32) {                                                         \
                __m256i r0 = STEP(load8_##tag(a + i), load8_##tag(b + i), &c);                     \
                __m256i r1 = STEP(load8_##tag(a + i + 8), load8_##tag(b + i + 8), &c);             \
                __m256i r2 = STEP(load8_##tag(a + i + 16), load8_##tag(b + i + 16), &c);           \
                __m256i r3 = STEP(load8_##tag(a + i + 24), load8_##tag(b + i + 24), &c);           \
                _mm256_storeu_si256((__m256i *)(void *)(y + i), narrow_##tag(r0, r1, r2, r3, lo, hi)); \
            }                                                                                      \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE((int32_t)a[i], (int32_t)b[i], p);                                    \
        } else if (form == SIMDOPS_QB_SV) {                                                        \
            const int32_t a0 = a[0];                                                               \
            const __m256i va = _mm256_set1_epi32(a0);                                              \
            for (; i + 32 <= n; i += 32) {                                                         \
                __m256i r0 = STEP(va, load8_##tag(b + i), &c);                                     \
                __m256i r1 = STEP(va, load8_##tag(b + i + 8), &c);                                 \
                __m256i r2 = STEP(va, load8_##tag(b + i + 16), &c);                                \
                __m256i r3 = STEP(va, load8_##tag(b + i + 24), &c);                                \
                _mm256_storeu_si256((__m256i *)(void *)(y + i), narrow_##tag(r0, r1, r2, r3, lo, hi)); \
            }                                                                                      \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE(a0, (int32_t)b[i], p);                                               \
        } else {                                                                                   \
            const int32_t b0 = b[0];                                                               \
            const __m256i vb = _mm256_set1_epi32(b0);                                              \
            for (; i + 32 <= n; i += 32) {                                                         \
                __m256i r0 = STEP(load8_##tag(a + i), vb, &c);                                     \
                __m256i r1 = STEP(load8_##tag(a + i + 8), vb, &c);                                 \
                __m256i r2 = STEP(load8_##tag(a + i + 16), vb, &c);                                \
                __m256i r3 = STEP(load8_##tag(a + i + 24), vb, &c);                                \
                _mm256_storeu_si256((__m256i *)(void *)(y + i), narrow_##tag(r0, r1, r2, r3, lo, hi)); \
            }                                                                                      \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE((int32_t)a[i], b0, p);                                               \
        }                                                                                          \
    }

QB_AVX2_KERNEL(qadd_xnnpack, i8, int8_t, xnn_add8, qb_xnnpack_add_one)
QB_AVX2_KERNEL(qadd_xnnpack, u8, uint8_t, xnn_add8, qb_xnnpack_add_one)
QB_AVX2_KERNEL(qmul_fp, i8, int8_t, fp_mul8, qb_fp_mul_one)
QB_AVX2_KERNEL(qmul_fp, u8, uint8_t, fp_mul8, qb_fp_mul_one)
QB_AVX2_KERNEL(qadd_tflite, i8, int8_t, tfl_add8, qb_tflite_add_one)
QB_AVX2_KERNEL(qadd_tflite, u8, uint8_t, tfl_add8, qb_tflite_add_one)
QB_AVX2_KERNEL(qmul_tflite, i8, int8_t, tfl_mul8, qb_tflite_mul_one)
QB_AVX2_KERNEL(qmul_tflite, u8, uint8_t, tfl_mul8, qb_tflite_mul_one)
QB_ORT_KERNEL(i8, int8_t)
QB_ORT_KERNEL(u8, uint8_t)

#define QBINARY_KERNELS(X)                                                                         \
    X(qadd_xnnpack, i8) X(qadd_xnnpack, u8) X(qmul_fp, i8) X(qmul_fp, u8)                          \
    X(qadd_tflite, i8) X(qadd_tflite, u8) X(qmul_tflite, i8) X(qmul_tflite, u8)                    \
    X(qadd_ort, i8) X(qadd_ort, u8)
SIMDOPS_DEFINE_REGISTER(qbinary, QBINARY_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qbinary, avx2)
#endif
