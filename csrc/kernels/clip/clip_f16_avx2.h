/* float16 clip in key space on 256-bit vectors (AVX2): the avx2 kernel, and the
 * avx512 kernel's form for bounds its opmask forms do not take. Include from a file
 * compiled with AVX2 flags, after kernels/vec/avx2.h (simdops_f16_gt_bound,
 * simdops_f16_lt_bound). */
#ifndef SIMDOPS_CLIP_F16_AVX2_H
#define SIMDOPS_CLIP_F16_AVX2_H

/* float16 without converting: in key space (see avx2_util.h), x > hi is
 * key > gt_bound and x < lo is key < lt_bound, exactly as the scalar float
 * compares. When x > hi the scalar picks hi_h, or lo_h if lo > hi: that
 * choice is the constant hsel. NaN x keeps its bits. */
static inline __m256i f16_clip_v(__m256i h, __m256i gt_bound, __m256i lt_bound, __m256i lo_h,
                                 __m256i hsel)
{
    const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    const __m256i key = _mm256_sign_epi16(mag, h);
    const __m256i nan = _mm256_cmpgt_epi16(mag, _mm256_set1_epi16(0x7c00));
    __m256i r = _mm256_blendv_epi8(h, lo_h, _mm256_cmpgt_epi16(lt_bound, key));
    r = _mm256_blendv_epi8(r, hsel, _mm256_cmpgt_epi16(key, gt_bound));
    return _mm256_blendv_epi8(r, h, nan);
}

typedef struct f16_bounds {
    __m256i gt, lt, lo_h, hsel;
} f16_bounds;

static f16_bounds f16_bounds_of(const simdops_clip_params *p)
{
    const float lo = p->min.f32, hi = p->max.f32;
    const uint16_t lo_h = simdops_f32_to_f16(lo), hi_h = simdops_f32_to_f16(hi);
    f16_bounds c;
    c.gt = _mm256_set1_epi16(simdops_f16_gt_bound(hi));
    c.lt = _mm256_set1_epi16(simdops_f16_lt_bound(lo));
    c.lo_h = _mm256_set1_epi16((short)lo_h);
    c.hsel = _mm256_set1_epi16((short)(lo > hi ? lo_h : hi_h));
    return c;
}

#endif
