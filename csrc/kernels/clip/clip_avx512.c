/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) clip kernels, bit-exact with
 * clip_scalar.c: the shared body (clip_body.h) over 64-byte vectors, opmask
 * blends and masked tails (vec/avx512.h), and float16 on the halves' bits with
 * opmasks (below). Entries left NULL inherit avx2's: ScaleBias of integers and
 * of float16. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#include "kernels/vec/avx512.h"
#include "kernels/clip/clip_body.h"
#include "kernels/clip/clip_f16_avx2.h"

/* float16 without converting or forming the key (AVX-512 has no vpsignw): with
 * G = simdops_f16_gt_bound(hi) >= 0 and L = simdops_f16_lt_bound(lo) <= 0, a
 * non-NaN x > hi (key > G >= 0) only for a positive half, where the key is the
 * bits: h > G as signed int16 (every negative half is a negative int16); and
 * x < lo (key < L <= 0) only for a negative half, where the key is -(h & 0x7fff):
 * h > 0x8000 - L as unsigned. NaN lanes are the halves above +inf as signed
 * (0x7c01..0x7fff) and above -inf as unsigned (0xfc01..0xffff), so each compare
 * is made under the mask of "not that NaN": x > hi is G < h <= 0x7c00 signed,
 * x < lo is 0x8000 - L < h <= 0xfc00 unsigned, both x's bits elsewhere.
 *
 * f16_clip_range: those two masks and two masked moves (hsel, then lo_h under
 * x > hi's mask, as the scalar tests hi first). f16_clip_min, when moreover lo <=
 * hi, hi_h has no sign bit, lo_h has it, G is hi_h or hi_h - 1 and L is key(lo_h)
 * or key(lo_h) + 1 (every non-NaN pair of bounds of the same signs: G and L are
 * the nearest halves' keys, one off when the bound is not a half): the clip of a
 * positive half is min(h, hi_h) as signed int16, as the halves in (G, hi_h] are
 * at most hi_h itself, and of a negative half min(h, lo_h) as unsigned (a larger
 * unsigned negative half is a smaller value), as the halves in [key(lo_h), L) are
 * at most lo_h itself; a positive h is below every negative lo_h unsigned, a
 * negative h below every positive hi_h signed, so the two mins, each under its
 * NaN mask, leave the other sign alone: two compares and two masked mins.
 * Other bounds (hi < -0, lo > +0) take the avx2 kernel's key-space form. */
enum f16_clip_form { F16_CLIP_MIN, F16_CLIP_RANGE, F16_CLIP_KEY };

/* +inf's bits, the last positive half that is not NaN. F16_CLIP_PINF=0x7c01 is the
 * harness's mutant (the first NaN clipped as a number), which test_elementwise.c's
 * every-half sweep catches: bash csrc/tests/build.sh OUT -DF16_CLIP_PINF=0x7c01 */
#ifndef F16_CLIP_PINF
#define F16_CLIP_PINF 0x7c00
#endif

static inline __m512i f16_clip_min_v(__m512i h, __m512i lo_h, __m512i hi_h)
{
    const __mmask32 not_pnan = _mm512_cmple_epi16_mask(h, _mm512_set1_epi16(F16_CLIP_PINF));
    const __mmask32 not_nnan = _mm512_cmple_epu16_mask(h, _mm512_set1_epi16((short)0xfc00));
    const __m512i r = _mm512_mask_min_epi16(h, not_pnan, h, hi_h);
    return _mm512_mask_min_epu16(r, not_nnan, r, lo_h);
}

static inline __m512i f16_clip_range_v(__m512i h, __m512i gt, __m512i ltu, __m512i lo_h,
                                       __m512i hsel)
{
    const __mmask32 above = _mm512_mask_cmple_epi16_mask(_mm512_cmpgt_epi16_mask(h, gt), h,
                                                         _mm512_set1_epi16(F16_CLIP_PINF));
    const __mmask32 below = _mm512_mask_cmple_epu16_mask(_mm512_cmpgt_epu16_mask(h, ltu), h,
                                                         _mm512_set1_epi16((short)0xfc00));
    return _mm512_mask_mov_epi16(_mm512_mask_mov_epi16(h, below, lo_h), above, hsel);
}

static enum f16_clip_form f16_clip_form(float lo, float hi, int gt, int lt, uint16_t lo_h,
                                        uint16_t hi_h)
{
    if (gt < 0 || lt > 0)
        return F16_CLIP_KEY;
    if (lo <= hi && hi_h < 0x8000 && lo_h >= 0x8000 && (gt == hi_h || gt == hi_h - 1) &&
        (lt == -(lo_h & 0x7fff) || lt == 1 - (lo_h & 0x7fff)))
        return F16_CLIP_MIN;
    return F16_CLIP_RANGE;
}

static void f16_clip__avx512(const void *x, void *y, size_t n, const simdops_clip_params *p)
{
    const float lo = p->min.f32, hi = p->max.f32;
    const uint16_t lo_h = simdops_f32_to_f16(lo), hi_h = simdops_f32_to_f16(hi);
    const int gt = simdops_f16_gt_bound(hi), lt = simdops_f16_lt_bound(lo);
    switch (f16_clip_form(lo, hi, gt, lt, lo_h, hi_h)) {
    case F16_CLIP_MIN:
        SIMDOPS_AVX512_MAP(x, y, n * 2, 2, f16_clip_min_v, _mm512_set1_epi16((short)lo_h),
                           _mm512_set1_epi16((short)hi_h));
        return;
    case F16_CLIP_RANGE: { /* lt >= INT16_MIN: 0x8000 - lt <= 0x10000, saturated to 0xffff */
        const int ltu = 0x8000 - lt > 0xffff ? 0xffff : 0x8000 - lt;
        SIMDOPS_AVX512_MAP(x, y, n * 2, 2, f16_clip_range_v, _mm512_set1_epi16((short)gt),
                           _mm512_set1_epi16((short)ltu), _mm512_set1_epi16((short)lo_h),
                           _mm512_set1_epi16((short)(lo > hi ? lo_h : hi_h)));
        return;
    }
    default: {
        const f16_bounds c = f16_bounds_of(p);
        SIMDOPS_AVX2_MAP(x, y, n * 2, 2, f16_clip_v, c.gt, c.lt, c.lo_h, c.hsel);
    }
    }
}

#define CLIP_KERNELS(X) CLIP_BODY_KERNELS(X) X(clip, f16)
SIMDOPS_DEFINE_REGISTER(clip, CLIP_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(clip, avx512)
#endif
