/* The argmax templates of hardmax_x86.h over 128-bit vectors (hm_f32x4,
 * hm_f64x2, hm_f16x8): the kernels of sse2 and sse41, and avx2's for rows and
 * column blocks narrower than its vectors. Include inside the TU's
 * SIMDOPS_COMPILE_<ISA> block, with SIMDOPS_TIER defined. A TU whose flags give
 * SSE4.1 (sse41, avx2) defines HM_SSE41 1 first: it selects blendv/psignw. The
 * TU flag, not isa.h, decides, since MSVC reports SSE4.1 as compiled in every
 * x64 TU. */
#ifndef SIMDOPS_HARDMAX_SSE_H
#define SIMDOPS_HARDMAX_SSE_H

#include "hardmax_x86.h"

#ifndef HM_SSE41
#define HM_SSE41 0
#endif

/* ---- 128-bit vectors (SSE2; SSE4.1 where HM_SSE41) ---- */

static inline __m128i hm_seli(__m128i m, __m128i a, __m128i b) /* m ? a : b */
{
#if HM_SSE41
    return _mm_blendv_epi8(b, a, m);
#else
    return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b));
#endif
}
static inline void hm_idx2(int64_t *p, __m128i m, __m128i rv)
{
    _mm_storeu_si128((__m128i *)p, hm_seli(m, rv, _mm_loadu_si128((const __m128i *)p)));
}

/* float32 x 4 */
#define hm_f32x4_V __m128
#define hm_f32x4_M hm_f32x4_V
#define hm_f32x4_IV __m128i
#define hm_f32x4_W 4
#define hm_f32x4_SHIFT 0
#define hm_f32x4_LOAD(p) _mm_loadu_ps(p)
#define hm_f32x4_STORE(p, v) _mm_storeu_ps(p, v)
#define hm_f32x4_KEY(v) (v)
#define hm_f32x4_MAX(a, b) _mm_max_ps(a, b)
#define hm_f32x4_OR(a, b) _mm_or_ps(a, b)
#define hm_f32x4_NANINIT() _mm_setzero_ps()
#define hm_f32x4_NAN1(u, b) _mm_or_ps(u, _mm_cmpunord_ps(b, b))
#define hm_f32x4_NAN2(u, b0, b1) _mm_or_ps(u, _mm_cmpunord_ps(b0, b1))
#define hm_f32x4_ANYNAN(u, m) (_mm_movemask_ps(u) != 0)
/* v > best or v NaN (best is never NaN) */
#define hm_f32x4_TRIG(v, rv) _mm_cmpnle_ps(v, rv)
#define hm_f32x4_EQ(v, vm) _mm_cmpeq_ps(v, vm)
#define hm_f32x4_ISNAN(v) _mm_cmpunord_ps(v, v)
#define hm_f32x4_BITS(v) ((unsigned)_mm_movemask_ps(v))
#define hm_f32x4_NARROW hm_f32s_row
#define hm_f32x4_NARROWCOLS hm_f32s_cols
/* (v > b or v NaN) and b not NaN */
#define hm_f32x4_BEATS(v, b) _mm_and_ps(_mm_cmpnle_ps(v, b), _mm_cmpord_ps(b, b))
#define hm_f32x4_SEL(m, a, b) \
    _mm_castsi128_ps(hm_seli(_mm_castps_si128(m), _mm_castps_si128(a), _mm_castps_si128(b)))
#define hm_f32x4_RIDX(r) _mm_set1_epi64x(r)
static inline __m128 hm_f32x4_VMAX(__m128 v)
{
    v = _mm_max_ps(v, _mm_shuffle_ps(v, v, 0x4e));
    return _mm_max_ps(v, _mm_shuffle_ps(v, v, 0xb1));
}
static inline void hm_f32x4_IDX(int64_t *p, __m128 m, __m128i rv)
{
    __m128i mi = _mm_castps_si128(m);
    hm_idx2(p, _mm_unpacklo_epi32(mi, mi), rv);
    hm_idx2(p + 2, _mm_unpackhi_epi32(mi, mi), rv);
}
HM_ROW(hm_f32x4, float)
HM_COLS(hm_f32x4, float)

/* float64 x 2 */
#define hm_f64x2_V __m128d
#define hm_f64x2_M hm_f64x2_V
#define hm_f64x2_IV __m128i
#define hm_f64x2_W 2
#define hm_f64x2_SHIFT 0
#define hm_f64x2_LOAD(p) _mm_loadu_pd(p)
#define hm_f64x2_STORE(p, v) _mm_storeu_pd(p, v)
#define hm_f64x2_KEY(v) (v)
#define hm_f64x2_MAX(a, b) _mm_max_pd(a, b)
#define hm_f64x2_OR(a, b) _mm_or_pd(a, b)
#define hm_f64x2_NANINIT() _mm_setzero_pd()
#define hm_f64x2_NAN1(u, b) _mm_or_pd(u, _mm_cmpunord_pd(b, b))
#define hm_f64x2_NAN2(u, b0, b1) _mm_or_pd(u, _mm_cmpunord_pd(b0, b1))
#define hm_f64x2_ANYNAN(u, m) (_mm_movemask_pd(u) != 0)
/* v > best or v NaN (best is never NaN) */
#define hm_f64x2_TRIG(v, rv) _mm_cmpnle_pd(v, rv)
#define hm_f64x2_EQ(v, vm) _mm_cmpeq_pd(v, vm)
#define hm_f64x2_ISNAN(v) _mm_cmpunord_pd(v, v)
#define hm_f64x2_BITS(v) ((unsigned)_mm_movemask_pd(v))
#define hm_f64x2_NARROW hm_f64s_row
#define hm_f64x2_NARROWCOLS hm_f64s_cols
#define hm_f64x2_BEATS(v, b) _mm_and_pd(_mm_cmpnle_pd(v, b), _mm_cmpord_pd(b, b))
#define hm_f64x2_SEL(m, a, b) \
    _mm_castsi128_pd(hm_seli(_mm_castpd_si128(m), _mm_castpd_si128(a), _mm_castpd_si128(b)))
#define hm_f64x2_RIDX(r) _mm_set1_epi64x(r)
#define hm_f64x2_IDX(p, m, rv) hm_idx2(p, _mm_castpd_si128(m), rv)
static inline __m128d hm_f64x2_VMAX(__m128d v)
{
    return _mm_max_pd(v, _mm_shuffle_pd(v, v, 1));
}
HM_ROW(hm_f64x2, double)
HM_COLS(hm_f64x2, double)

/* float16 x 8 as int16 keys: +-magnitude - 0x400, wrapping. Non-NaN halves land in
 * [-0x8000, 0x7800] in value order (both zeros -> -0x400), every NaN in
 * [0x7801, 0x7fff] above them, so "v beats best" is one signed compare
 * whenever best is not NaN. */
static inline __m128i hm_h8_key(__m128i h)
{
    __m128i mag = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
#if HM_SSE41
    __m128i k = _mm_sign_epi16(mag, h);
#else
    __m128i s = _mm_srai_epi16(h, 15);
    __m128i k = _mm_sub_epi16(_mm_xor_si128(mag, s), s);
#endif
    return _mm_sub_epi16(k, _mm_set1_epi16(0x400));
}
#define HM_H_NANKEY 0x7800 /* keys above this are NaN */
/* float16 "v beats b" over the int16 keys of a vector type V (KEY: its key
 * function, GT/ANDNOT/SET1: its int16 compare, and-not, broadcast) */
#define HM_H_BEATS(P, V, KEY, GT, ANDNOT, SET1)                                             \
    static inline V P##_BEATS(V v, V b)                                                     \
    {                                                                                       \
        V kb = KEY(b);                                                                      \
        return ANDNOT(GT(kb, SET1(HM_H_NANKEY)), GT(KEY(v), kb));                           \
    }
#define hm_f16x8_V __m128i
#define hm_f16x8_M hm_f16x8_V
#define hm_f16x8_IV __m128i
#define hm_f16x8_W 8
#define hm_f16x8_SHIFT 1
#define hm_f16x8_LOAD(p) _mm_loadu_si128((const __m128i *)(p))
#define hm_f16x8_STORE(p, v) _mm_storeu_si128((__m128i *)(p), v)
#define hm_f16x8_KEY(v) hm_h8_key(v)
#define hm_f16x8_MAX(a, b) _mm_max_epi16(a, b)
#define hm_f16x8_OR(a, b) _mm_or_si128(a, b)
/* NaN shows in the max key itself */
#define hm_f16x8_NANINIT() _mm_setzero_si128()
#define hm_f16x8_NAN1(u, b) (u)
#define hm_f16x8_NAN2(u, b0, b1) (u)
#define hm_f16x8_ANYNAN(u, m) \
    (_mm_movemask_epi8(_mm_cmpgt_epi16(m, _mm_set1_epi16(HM_H_NANKEY))) != 0)
#define hm_f16x8_ISNAN(v) _mm_cmpgt_epi16(hm_h8_key(v), _mm_set1_epi16(HM_H_NANKEY))
#define hm_f16x8_TRIG(v, rv) _mm_cmpgt_epi16(hm_h8_key(v), rv)
#define hm_f16x8_EQ(v, vm) _mm_cmpeq_epi16(hm_h8_key(v), vm)
#define hm_f16x8_BITS(v) ((unsigned)_mm_movemask_epi8(v))
#define hm_f16x8_NARROW hm_f16s_row
#define hm_f16x8_NARROWCOLS hm_f16s_cols
#define hm_f16x8_SEL(m, a, b) hm_seli(m, a, b)
#define hm_f16x8_RIDX(r) _mm_set1_epi64x(r)
static inline __m128i hm_f16x8_VMAX(__m128i v)
{
    v = _mm_max_epi16(v, _mm_shuffle_epi32(v, 0x4e));
    v = _mm_max_epi16(v, _mm_shuffle_epi32(v, 0xb1));
    return _mm_max_epi16(v, _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xb1), 0xb1));
}
HM_H_BEATS(hm_f16x8, __m128i, hm_h8_key, _mm_cmpgt_epi16, _mm_andnot_si128, _mm_set1_epi16)
static inline void hm_f16x8_IDX(int64_t *p, __m128i m, __m128i rv)
{
    __m128i lo = _mm_unpacklo_epi16(m, m), hi = _mm_unpackhi_epi16(m, m);
    hm_idx2(p, _mm_unpacklo_epi32(lo, lo), rv);
    hm_idx2(p + 2, _mm_unpackhi_epi32(lo, lo), rv);
    hm_idx2(p + 4, _mm_unpacklo_epi32(hi, hi), rv);
    hm_idx2(p + 6, _mm_unpackhi_epi32(hi, hi), rv);
}
HM_ROW(hm_f16x8, uint16_t)
HM_COLS(hm_f16x8, uint16_t)

#endif
