/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) clip kernels, bit-exact with
 * clip_scalar.c: 64-byte vectors, opmask blends and masked tails
 * (avx512_util.h). Entries left NULL inherit avx2's: ScaleBias of integers, and
 * float16, whose opmask form (sign to mask, masked negate, two compares, two
 * masked moves) ran at 0.77-0.81 of avx2's blend form in four interleaved runs
 * at 64K and 1M on this Zen 4 core. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#include "kernels/vec/avx512_util.h"

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
