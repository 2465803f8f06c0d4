/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) shrink kernels, bit-exact with
 * shrink_scalar.c: the float forms of shrink_avx2.c on 64-byte vectors with
 * opmask compares and blends, float16 through 512-bit conversions (16 halves
 * per vcvtph2ps / vcvtps2ph). The integer entries inherit avx2's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#include "kernels/vec/avx2_util.h" /* SIMDOPS_MXCSR_DAZ, the float16 bounds */
#include "kernels/vec/avx512_util.h"

/* General parameters: NaN x passes, x > thr gives x - b, x < neg_thr x + b, else +0. */
#define GENERAL_V(name, V, CAST_F, CAST_I, CMP, MAXZ, MOV, ADD, SUB)                          \
    static inline __m512i name(__m512i v, V thr, V neg_thr, V b)                               \
    {                                                                                          \
        const V x = CAST_F(v);                                                                 \
        V r = MAXZ(CMP(x, x, _CMP_UNORD_Q), x);                                                \
        r = MOV(r, CMP(x, neg_thr, _CMP_LT_OQ), ADD(x, b));                                    \
        return CAST_I(MOV(r, CMP(x, thr, _CMP_GT_OQ), SUB(x, b)));                             \
    }
GENERAL_V(f32_shrink_v, __m512, _mm512_castsi512_ps, _mm512_castps_si512, _mm512_cmp_ps_mask,
          _mm512_maskz_mov_ps, _mm512_mask_mov_ps, _mm512_add_ps, _mm512_sub_ps)
GENERAL_V(f64_shrink_v, __m512d, _mm512_castsi512_pd, _mm512_castpd_si512, _mm512_cmp_pd_mask,
          _mm512_maskz_mov_pd, _mm512_mask_mov_pd, _mm512_add_pd, _mm512_sub_pd)

/* Symmetric parameters (shrink_avx2.c): |x| > thr on the magnitude bits, then
 * x - (b with x's sign); a NaN x keeps its bits. */
#define SYM_V(name, V, CAST_F, CAST_I, ABS, INF, CMPGT, MOVI, MAXZI, SUB)                      \
    static inline __m512i name(__m512i v, __m512i thr_bits, V b)                               \
    {                                                                                          \
        const __m512i mag = _mm512_and_si512(v, ABS);                                          \
        const V bx = CAST_F(_mm512_xor_si512(CAST_I(b), _mm512_xor_si512(v, mag)));            \
        const __m512i r = MOVI(CAST_I(SUB(CAST_F(v), bx)), CMPGT(mag, INF), v);                \
        return MAXZI(CMPGT(mag, thr_bits), r);                                                 \
    }
SYM_V(f32_shrink_sym_v, __m512, _mm512_castsi512_ps, _mm512_castps_si512,
      _mm512_set1_epi32(0x7fffffff), _mm512_set1_epi32(0x7f800000), _mm512_cmpgt_epi32_mask,
      _mm512_mask_mov_epi32, _mm512_maskz_mov_epi32, _mm512_sub_ps)
SYM_V(f64_shrink_sym_v, __m512d, _mm512_castsi512_pd, _mm512_castpd_si512,
      _mm512_set1_epi64(INT64_MAX), _mm512_set1_epi64(0x7ff0000000000000ll),
      _mm512_cmpgt_epi64_mask, _mm512_mask_mov_epi64, _mm512_maskz_mov_epi64, _mm512_sub_pd)

/* ... and bias <= thr: (|x| - b) with x's sign, min/max keeping |x| where |x| - b is NaN. */
#define MAG_V(name, V, CAST_F, CAST_I, ABS, CMPGT, MAXZI, SUB, SEL)                             \
    static inline __m512i name(__m512i v, __m512i thr_bits, V b)                               \
    {                                                                                          \
        const __m512i mag = _mm512_and_si512(v, ABS);                                          \
        const V m = CAST_F(mag);                                                               \
        const __m512i r = _mm512_or_si512(CAST_I(SEL(SUB(m, b), m)), _mm512_xor_si512(v, mag)); \
        return MAXZI(CMPGT(mag, thr_bits), r);                                                 \
    }
MAG_V(f32_shrink_mag_min_v, __m512, _mm512_castsi512_ps, _mm512_castps_si512,
      _mm512_set1_epi32(0x7fffffff), _mm512_cmpgt_epi32_mask, _mm512_maskz_mov_epi32,
      _mm512_sub_ps, _mm512_min_ps)
MAG_V(f32_shrink_mag_max_v, __m512, _mm512_castsi512_ps, _mm512_castps_si512,
      _mm512_set1_epi32(0x7fffffff), _mm512_cmpgt_epi32_mask, _mm512_maskz_mov_epi32,
      _mm512_sub_ps, _mm512_max_ps)
MAG_V(f64_shrink_mag_min_v, __m512d, _mm512_castsi512_pd, _mm512_castpd_si512,
      _mm512_set1_epi64(INT64_MAX), _mm512_cmpgt_epi64_mask, _mm512_maskz_mov_epi64,
      _mm512_sub_pd, _mm512_min_pd)
MAG_V(f64_shrink_mag_max_v, __m512d, _mm512_castsi512_pd, _mm512_castpd_si512,
      _mm512_set1_epi64(INT64_MAX), _mm512_cmpgt_epi64_mask, _mm512_maskz_mov_epi64,
      _mm512_sub_pd, _mm512_max_pd)

/* float16, 16 halves at a time through float32 with one rounding to half. */
static inline __m256i f16_shrink_16(__m256i h, __m512 thr, __m512 neg_thr, __m512 b)
{
    const __m512 x = _mm512_cvtph_ps(h);
    __m512 r = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, neg_thr, _CMP_LT_OQ), _mm512_add_ps(x, b));
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, thr, _CMP_GT_OQ), _mm512_sub_ps(x, b));
    return _mm512_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT);
}

static inline __m512i f16_join(__m256i lo, __m256i hi)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

static inline __m512i f16_shrink_v(__m512i h, __m512 thr, __m512 neg_thr, __m512 b)
{
    const __m512i mag = _mm512_and_si512(h, _mm512_set1_epi16(0x7fff));
    const __mmask32 nan = _mm512_cmpgt_epi16_mask(mag, _mm512_set1_epi16(0x7c00));
    const __m512i r = f16_join(f16_shrink_16(_mm512_castsi512_si256(h), thr, neg_thr, b),
                               f16_shrink_16(_mm512_extracti64x4_epi64(h, 1), thr, neg_thr, b));
    return _mm512_mask_mov_epi16(r, nan, h);
}

static inline __m256i f16_sub_signed_16(__m256i h, __m512 b)
{
    const __m512 x = _mm512_cvtph_ps(h);
    const __m512 bx = _mm512_xor_ps(b, _mm512_and_ps(x, _mm512_set1_ps(-0.0f)));
    return _mm512_cvtps_ph(_mm512_sub_ps(x, bx), _MM_FROUND_TO_NEAREST_INT);
}

static inline __m512i f16_shrink_sym_v(__m512i h, __m512i bound, __m512 b)
{
    const __m512i mag = _mm512_and_si512(h, _mm512_set1_epi16(0x7fff));
    const __mmask32 nan = _mm512_cmpgt_epi16_mask(mag, _mm512_set1_epi16(0x7c00));
    __m512i r = f16_join(f16_sub_signed_16(_mm512_castsi512_si256(h), b),
                         f16_sub_signed_16(_mm512_extracti64x4_epi64(h, 1), b));
    r = _mm512_mask_mov_epi16(r, nan, h);
    return _mm512_maskz_mov_epi16(_mm512_cmpgt_epi16_mask(mag, bound), r);
}

static inline __m512i f16_shrink0_v(__m512i h, __m512i bound)
{
    const __m512i mag = _mm512_and_si512(h, _mm512_set1_epi16(0x7fff));
    return _mm512_maskz_mov_epi16(_mm512_cmpgt_epi16_mask(mag, bound), h);
}

enum shrink_form { SHRINK_GENERAL, SHRINK_SYM, SHRINK_MAG_MIN, SHRINK_MAG_MAX };
static enum shrink_form float_shrink_form(double t, double nt, double bias)
{
    if (!(t >= 0.0 && nt == -t && bias == bias) || (_mm_getcsr() & SIMDOPS_MXCSR_DAZ))
        return SHRINK_GENERAL;
    if (bias > t)
        return SHRINK_SYM;
    return bias >= 0.0 ? SHRINK_MAG_MIN : SHRINK_MAG_MAX;
}

static void f32_shrink__avx512(const void *x, void *y, size_t n, const simdops_shrink_params *p)
{
    const float t = p->thr.f32, nt = p->neg_thr.f32, bias = p->bias.f32;
    const __m512 b = _mm512_set1_ps(bias);
    const __m512i thr_bits = _mm512_set1_epi32((int)(simdops_f32_bits(t) & 0x7fffffffu));
    switch (float_shrink_form(t, nt, bias)) {
    case SHRINK_MAG_MIN: SIMDOPS_AVX512_MAP(x, y, n * 4, 4, f32_shrink_mag_min_v, thr_bits, b); break;
    case SHRINK_MAG_MAX: SIMDOPS_AVX512_MAP(x, y, n * 4, 4, f32_shrink_mag_max_v, thr_bits, b); break;
    case SHRINK_SYM: SIMDOPS_AVX512_MAP(x, y, n * 4, 4, f32_shrink_sym_v, thr_bits, b); break;
    default: {
        const __m512 thr = _mm512_set1_ps(t), neg_thr = _mm512_set1_ps(nt);
        SIMDOPS_AVX512_MAP(x, y, n * 4, 4, f32_shrink_v, thr, neg_thr, b);
    }
    }
}

static void f64_shrink__avx512(const void *x, void *y, size_t n, const simdops_shrink_params *p)
{
    const double t = p->thr.f64, nt = p->neg_thr.f64, bias = p->bias.f64;
    const __m512d b = _mm512_set1_pd(bias);
    const __m512i thr_bits =
        _mm512_set1_epi64((long long)(simdops_f64_bits(t) & 0x7fffffffffffffffull));
    switch (float_shrink_form(t, nt, bias)) {
    case SHRINK_MAG_MIN: SIMDOPS_AVX512_MAP(x, y, n * 8, 8, f64_shrink_mag_min_v, thr_bits, b); break;
    case SHRINK_MAG_MAX: SIMDOPS_AVX512_MAP(x, y, n * 8, 8, f64_shrink_mag_max_v, thr_bits, b); break;
    case SHRINK_SYM: SIMDOPS_AVX512_MAP(x, y, n * 8, 8, f64_shrink_sym_v, thr_bits, b); break;
    default: {
        const __m512d thr = _mm512_set1_pd(t), neg_thr = _mm512_set1_pd(nt);
        SIMDOPS_AVX512_MAP(x, y, n * 8, 8, f64_shrink_v, thr, neg_thr, b);
    }
    }
}

static void f16_shrink__avx512(const void *x, void *y, size_t n, const simdops_shrink_params *p)
{
    const float t = p->thr.f32, nt = p->neg_thr.f32, bias = p->bias.f32;
    const __m512 b = _mm512_set1_ps(bias);
    if (t >= 0.0f && nt == -t && bias == bias) {
        const __m512i bound = _mm512_set1_epi16(simdops_f16_gt_bound(t));
        if (bias == 0.0f)
            SIMDOPS_AVX512_MAP(x, y, n * 2, 2, f16_shrink0_v, bound);
        else
            SIMDOPS_AVX512_MAP(x, y, n * 2, 2, f16_shrink_sym_v, bound, b);
    } else {
        const __m512 thr = _mm512_set1_ps(t), neg_thr = _mm512_set1_ps(nt);
        SIMDOPS_AVX512_MAP(x, y, n * 2, 2, f16_shrink_v, thr, neg_thr, b);
    }
}

int shrink_register__avx512(simdops_kernel_table *t)
{
    t->shrink[SIMDOPS_FLOAT32] = f32_shrink__avx512;
    t->shrink[SIMDOPS_FLOAT16] = f16_shrink__avx512;
    t->shrink[SIMDOPS_FLOAT64] = f64_shrink__avx512;
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(shrink, avx512)
#endif
