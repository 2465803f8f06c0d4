/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) shrink kernels, bit-exact with
 * shrink_scalar.c: float32 and float64 from the shared body (shrink_body.h)
 * on 64-byte vectors with opmask compares and blends, and here float16
 * through 512-bit conversions (16 halves per vcvtph2ps / vcvtps2ph). The
 * integer entries inherit avx2's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#include "kernels/vec/avx512.h"
#include "kernels/shrink/shrink_body.h"

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

#define SHRINK_KERNELS(X) SHRINK_BODY_KERNELS(X) X(shrink, f16)
SIMDOPS_DEFINE_REGISTER(shrink, SHRINK_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(shrink, avx512)
#endif
