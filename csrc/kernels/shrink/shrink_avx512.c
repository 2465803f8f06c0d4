/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) shrink kernels, bit-exact with
 * shrink_scalar.c: float32 and float64 from the shared body (shrink_body.h)
 * on 64-byte vectors with opmask compares and blends, here float16 through
 * 512-bit conversions (16 halves per vcvtph2ps / vcvtps2ph; with a bias and
 * symmetric thresholds, 256-bit halves in and out, f16_shrink_sym), and the
 * integers with opmasks (below). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#include "kernels/vec/avx512.h"
#include "kernels/shrink/shrink_body.h"
#include "kernels/shrink/shrink_int_form.h"

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

/* The same 16 halves at a time, read and written as 256-bit vectors: each is
 * converted as loaded (no 512-bit vector split into halves and joined again,
 * two shuffles per 32 halves), and the lanes at or below the threshold are
 * zeroed by the rounding convert's own mask (NaN lanes, all of them above the
 * threshold, then take the input's bits). 64K halves: 1.20x the 512-bit form above, measured
 * in one process (docs/performance.md). The subtraction stays vsubps: as an
 * FMA (x - bx = fnmadd(bx, 1, x), the same single rounding, so the same bits)
 * it measured 1.19x, not faster. */
static inline __m256i f16_shrink_sym_16(const uint16_t *p, __m256i bound, __m512 b)
{
    const __m256i h = _mm256_loadu_si256((const __m256i *)p);
    const __m512 x = _mm512_cvtph_ps(h);
    const __m512 bx = _mm512_xor_ps(b, _mm512_and_ps(x, _mm512_set1_ps(-0.0f)));
    const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    const __mmask16 keep = _mm256_cmpgt_epi16_mask(mag, bound);
    const __mmask16 nan = _mm256_cmpgt_epi16_mask(mag, _mm256_set1_epi16(0x7c00));
    const __m256i r = _mm512_maskz_cvtps_ph(keep, _mm512_sub_ps(x, bx), _MM_FROUND_TO_NEAREST_INT);
    return _mm256_mask_mov_epi16(r, nan, h);
}

static void f16_shrink_sym(const uint16_t *x, uint16_t *y, size_t n, int16_t bound16, __m512 b)
{
    const __m256i bound = _mm256_set1_epi16(bound16);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m256i r0 = f16_shrink_sym_16(x + i, bound, b);
        const __m256i r1 = f16_shrink_sym_16(x + i + 16, bound, b);
        const __m256i r2 = f16_shrink_sym_16(x + i + 32, bound, b);
        const __m256i r3 = f16_shrink_sym_16(x + i + 48, bound, b);
        _mm256_storeu_si256((__m256i *)(y + i), r0);
        _mm256_storeu_si256((__m256i *)(y + i + 16), r1);
        _mm256_storeu_si256((__m256i *)(y + i + 32), r2);
        _mm256_storeu_si256((__m256i *)(y + i + 48), r3);
    }
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(y + i), f16_shrink_sym_16(x + i, bound, b));
    if (i < n) { /* fewer than 16: one masked vector (masked-off lanes are not touched) */
        const __mmask32 k = (__mmask32)((1u << (n - i)) - 1u);
        _mm512_mask_storeu_epi16(y + i, k,
                                 f16_shrink_sym_v(_mm512_maskz_loadu_epi16(k, x + i),
                                                  _mm512_set1_epi16(bound16), b));
    }
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
            f16_shrink_sym((const uint16_t *)x, (uint16_t *)y, n, simdops_f16_gt_bound(t), b);
    } else {
        const __m512 thr = _mm512_set1_ps(t), neg_thr = _mm512_set1_ps(nt);
        SIMDOPS_AVX512_MAP(x, y, n * 2, 2, f16_shrink_v, thr, neg_thr, b);
    }
}

/* Integers: shrink_int_form.h's clamp forms with opmasks: the compares give
 * masks, the subtraction is a zeroing one under x > thr and the addition merges
 * into it under x < neg_thr (unsigned types compare unsigned; their neg_thr is
 * the minimum, so they have no addition). CLAMP_NONE is two compares, a zeroing
 * subtract and a merging add per 64 bytes where the avx2 form takes six
 * operations per 32 bytes (blends, and-masks): 1.6 against 3.0 cycles per 64
 * bytes over L1 data (tools/ew_cache_bound.c). */
typedef struct shrink_int512 {
    __m512i thr, neg_thr, b, sub_lo, sub_hi, add_lo, add_hi;
} shrink_int512;

#define SHRINK_INT512_V(name, SUF, USUF, MSUF)                                                 \
    static inline __m512i name(__m512i x, const shrink_int512 *c, const int form, const int lt) \
    {                                                                                          \
        __m512i s = x, a = x, r;                                                               \
        if (form == CLAMP_BOTH || form == CLAMP_NEG) s = _mm512_min_##MSUF(s, c->sub_hi);      \
        if (form == CLAMP_BOTH || form == CLAMP_POS) s = _mm512_max_##MSUF(c->sub_lo, s);      \
        r = _mm512_maskz_sub_##SUF(_mm512_cmpgt_##USUF##_mask(x, c->thr), s, c->b);            \
        if (!lt)                                                                               \
            return r;                                                                          \
        if (form == CLAMP_BOTH || form == CLAMP_POS) a = _mm512_min_##MSUF(a, c->add_hi);      \
        if (form == CLAMP_BOTH || form == CLAMP_NEG) a = _mm512_max_##MSUF(c->add_lo, a);      \
        return _mm512_mask_add_##SUF(r, _mm512_cmplt_##USUF##_mask(x, c->neg_thr), a, c->b);  \
    }
SHRINK_INT512_V(i8_shrink_v, epi8, epi8, epi8)
SHRINK_INT512_V(u8_shrink_v, epi8, epu8, epu8)
SHRINK_INT512_V(i16_shrink_v, epi16, epi16, epi16)
SHRINK_INT512_V(u16_shrink_v, epi16, epu16, epu16)
SHRINK_INT512_V(i32_shrink_v, epi32, epi32, epi32)
SHRINK_INT512_V(u32_shrink_v, epi32, epu32, epu32)

/* the kernels: one per row of shrink_int_form.h's SHRINK_INT_TYPES */
#define SHRINK_INT_CT shrink_int512
#define SHRINK_INT_MAP SIMDOPS_AVX512_MAP
SHRINK_INT_TYPES(SHRINK_INT_TIER_ROW, _mm512)

#define SHRINK_KERNELS(X)                                                                         \
    SHRINK_BODY_KERNELS(X) X(shrink, f16) SHRINK_INT_TYPES(SHRINK_INT_ENTRY, X)
SIMDOPS_DEFINE_REGISTER(shrink, SHRINK_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(shrink, avx512)
#endif
