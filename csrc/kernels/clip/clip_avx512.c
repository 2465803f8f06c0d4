/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) clip kernels, bit-exact with
 * clip_scalar.c: 64-byte vectors, opmask blends and masked tails
 * (avx512_util.h). Entries left NULL (ScaleBias of integers) inherit avx2's. */
#include "../../internal.h"
#include "../../isa.h"

#if SIMDOPS_COMPILE_AVX512
#include "../avx2_util.h" /* the float16 key bounds */
#include "../avx512_util.h"

/* minps/maxps return their second operand when either is NaN, so this is
 * t = hi < x ? hi : x; y = lo > t ? lo : t, NaN x and -0.0 included. */
static inline __m512i f32_clip_v(__m512i v, __m512 lo, __m512 hi)
{
    return _mm512_castps_si512(_mm512_max_ps(lo, _mm512_min_ps(hi, _mm512_castsi512_ps(v))));
}

static inline __m512i f64_clip_v(__m512i v, __m512d lo, __m512d hi)
{
    return _mm512_castpd_si512(_mm512_max_pd(lo, _mm512_min_pd(hi, _mm512_castsi512_pd(v))));
}

#define INT_CLIP_V(name, vmin, vmax)                                   \
    static inline __m512i name(__m512i v, __m512i lo, __m512i hi)      \
    {                                                                  \
        return vmax(lo, vmin(hi, v));                                  \
    }
INT_CLIP_V(u8_clip_v, _mm512_min_epu8, _mm512_max_epu8)
INT_CLIP_V(i8_clip_v, _mm512_min_epi8, _mm512_max_epi8)
INT_CLIP_V(u16_clip_v, _mm512_min_epu16, _mm512_max_epu16)
INT_CLIP_V(i16_clip_v, _mm512_min_epi16, _mm512_max_epi16)
INT_CLIP_V(u32_clip_v, _mm512_min_epu32, _mm512_max_epu32)
INT_CLIP_V(i32_clip_v, _mm512_min_epi32, _mm512_max_epi32)
INT_CLIP_V(u64_clip_v, _mm512_min_epu64, _mm512_max_epu64)
INT_CLIP_V(i64_clip_v, _mm512_min_epi64, _mm512_max_epi64)

/* float16 without converting, in key space (avx2_util.h): key = h < 0 ?
 * -|h| : |h|; x > hi is key > gt_bound, x < lo is key < lt_bound, as the
 * scalar's float compares. x > hi picks hsel (hi_h, or lo_h if lo > hi); a
 * NaN x keeps its bits. */
static inline __m512i f16_clip_v(__m512i h, __m512i gt_bound, __m512i lt_bound, __m512i lo_h,
                                 __m512i hsel)
{
    const __m512i mag = _mm512_and_si512(h, _mm512_set1_epi16(0x7fff));
    const __m512i key = _mm512_mask_sub_epi16(mag, _mm512_movepi16_mask(h),
                                              _mm512_setzero_si512(), mag);
    const __mmask32 num = _mm512_cmple_epi16_mask(mag, _mm512_set1_epi16(0x7c00));
    __m512i r = _mm512_mask_mov_epi16(h, num & _mm512_cmpgt_epi16_mask(lt_bound, key), lo_h);
    return _mm512_mask_mov_epi16(r, num & _mm512_cmpgt_epi16_mask(key, gt_bound), hsel);
}

static void f32_clip__avx512(const void *x, void *y, size_t n, const simdops_clip_params *p)
{
    const __m512 lo = _mm512_set1_ps(p->min.f32), hi = _mm512_set1_ps(p->max.f32);
    SIMDOPS_AVX512_MAP(x, y, n * 4, 4, f32_clip_v, lo, hi);
}

static void f64_clip__avx512(const void *x, void *y, size_t n, const simdops_clip_params *p)
{
    const __m512d lo = _mm512_set1_pd(p->min.f64), hi = _mm512_set1_pd(p->max.f64);
    SIMDOPS_AVX512_MAP(x, y, n * 8, 8, f64_clip_v, lo, hi);
}

static void f16_clip__avx512(const void *x, void *y, size_t n, const simdops_clip_params *p)
{
    const float lo = p->min.f32, hi = p->max.f32;
    const uint16_t lo_h = simdops_f32_to_f16(lo), hi_h = simdops_f32_to_f16(hi);
    const __m512i gt = _mm512_set1_epi16(simdops_f16_gt_bound(hi));
    const __m512i lt = _mm512_set1_epi16(simdops_f16_lt_bound(lo));
    const __m512i lov = _mm512_set1_epi16((short)lo_h);
    const __m512i hsel = _mm512_set1_epi16((short)(lo > hi ? lo_h : hi_h));
    SIMDOPS_AVX512_MAP(x, y, n * 2, 2, f16_clip_v, gt, lt, lov, hsel);
}

#define INT_CLIP_KERNEL(name, fn, esize, set1, ST, field)                                \
    static void name(const void *x, void *y, size_t n, const simdops_clip_params *p)     \
    {                                                                                    \
        const __m512i lo = set1((ST)p->min.field), hi = set1((ST)p->max.field);          \
        SIMDOPS_AVX512_MAP(x, y, n * (esize), esize, fn, lo, hi);                        \
    }
INT_CLIP_KERNEL(u8_clip__avx512, u8_clip_v, 1, _mm512_set1_epi8, char, u8)
INT_CLIP_KERNEL(i8_clip__avx512, i8_clip_v, 1, _mm512_set1_epi8, char, i8)
INT_CLIP_KERNEL(u16_clip__avx512, u16_clip_v, 2, _mm512_set1_epi16, short, u16)
INT_CLIP_KERNEL(i16_clip__avx512, i16_clip_v, 2, _mm512_set1_epi16, short, i16)
INT_CLIP_KERNEL(u32_clip__avx512, u32_clip_v, 4, _mm512_set1_epi32, int, u32)
INT_CLIP_KERNEL(i32_clip__avx512, i32_clip_v, 4, _mm512_set1_epi32, int, i32)
INT_CLIP_KERNEL(u64_clip__avx512, u64_clip_v, 8, _mm512_set1_epi64, long long, u64)
INT_CLIP_KERNEL(i64_clip__avx512, i64_clip_v, 8, _mm512_set1_epi64, long long, i64)

/* ScaleBias of floats: g = x*scale + bias, multiply then add (no FMA). */
static inline __m512i f32_clip_sb_v(__m512i v, __m512 s, __m512 b, __m512 lo, __m512 hi)
{
    __m512 g = _mm512_add_ps(_mm512_mul_ps(_mm512_castsi512_ps(v), s), b);
    return f32_clip_v(_mm512_castps_si512(g), lo, hi);
}

static inline __m512i f64_clip_sb_v(__m512i v, __m512d s, __m512d b, __m512d lo, __m512d hi)
{
    __m512d g = _mm512_add_pd(_mm512_mul_pd(_mm512_castsi512_pd(v), s), b);
    return f64_clip_v(_mm512_castpd_si512(g), lo, hi);
}

static void f32_clip_scale_bias__avx512(const void *x, void *y, size_t n,
                                        const simdops_clip_params *p)
{
    const __m512 s = _mm512_set1_ps(p->scale), b = _mm512_set1_ps(p->bias);
    const __m512 lo = _mm512_set1_ps(p->min.f32), hi = _mm512_set1_ps(p->max.f32);
    SIMDOPS_AVX512_MAP(x, y, n * 4, 4, f32_clip_sb_v, s, b, lo, hi);
}

static void f64_clip_scale_bias__avx512(const void *x, void *y, size_t n,
                                        const simdops_clip_params *p)
{
    const __m512d s = _mm512_set1_pd((double)p->scale), b = _mm512_set1_pd((double)p->bias);
    const __m512d lo = _mm512_set1_pd(p->min.f64), hi = _mm512_set1_pd(p->max.f64);
    SIMDOPS_AVX512_MAP(x, y, n * 8, 8, f64_clip_sb_v, s, b, lo, hi);
}

int clip_register__avx512(simdops_kernel_table *t)
{
    t->clip[SIMDOPS_FLOAT32] = f32_clip__avx512;
    t->clip[SIMDOPS_FLOAT16] = f16_clip__avx512;
    t->clip[SIMDOPS_FLOAT64] = f64_clip__avx512;
    t->clip[SIMDOPS_UINT8] = u8_clip__avx512;
    t->clip[SIMDOPS_INT8] = i8_clip__avx512;
    t->clip[SIMDOPS_UINT16] = u16_clip__avx512;
    t->clip[SIMDOPS_INT16] = i16_clip__avx512;
    t->clip[SIMDOPS_UINT32] = u32_clip__avx512;
    t->clip[SIMDOPS_INT32] = i32_clip__avx512;
    t->clip[SIMDOPS_UINT64] = u64_clip__avx512;
    t->clip[SIMDOPS_INT64] = i64_clip__avx512;
    t->clip_scale_bias[SIMDOPS_FLOAT32] = f32_clip_scale_bias__avx512;
    t->clip_scale_bias[SIMDOPS_FLOAT64] = f64_clip_scale_bias__avx512;
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(clip, avx512)
#endif
