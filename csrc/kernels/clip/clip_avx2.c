/* AVX2 (+F16C) clip kernels, bit-exact with clip_scalar.c: the shared body
 * (clip_body.h) for every integer and float kind, and here what is AVX2's
 * own: float16 in key space and integer ScaleBias through double. Each *_v
 * function maps 32 bytes of elements; SIMDOPS_AVX2_MAP runs it over the row. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#define SIMDOPS_TIER avx2
#include "kernels/vec/avx2.h"
#include "kernels/clip/clip_body.h"
#include "kernels/clip/clip_f16_avx2.h"

static void f16_clip__avx2(const void *x, void *y, size_t n, const simdops_clip_params *p)
{
    const f16_bounds c = f16_bounds_of(p);
    SIMDOPS_AVX2_MAP(x, y, n * 2, 2, f16_clip_v, c.gt, c.lt, c.lo_h, c.hsel);
}

/* ---- ScaleBias: g = x*scale + bias, multiply then add (no FMA). ---- */

/* float16: g in float32, rounded once to half, then clipped as a half. */
static inline __m256i f16_clip_sb_v(__m256i h, __m256 s, __m256 b, __m256i gt_bound,
                                    __m256i lt_bound, __m256i lo_h, __m256i hsel)
{
    __m256 f0 = _mm256_cvtph_ps(_mm256_castsi256_si128(h));
    __m256 f1 = _mm256_cvtph_ps(_mm256_extracti128_si256(h, 1));
    __m128i g0 = _mm256_cvtps_ph(_mm256_add_ps(_mm256_mul_ps(f0, s), b), _MM_FROUND_TO_NEAREST_INT);
    __m128i g1 = _mm256_cvtps_ph(_mm256_add_ps(_mm256_mul_ps(f1, s), b), _MM_FROUND_TO_NEAREST_INT);
    return f16_clip_v(_mm256_set_m128i(g1, g0), gt_bound, lt_bound, lo_h, hsel);
}

static void f16_clip_scale_bias__avx2(const void *x, void *y, size_t n,
                                      const simdops_clip_params *p)
{
    const __m256 s = _mm256_set1_ps(p->scale), b = _mm256_set1_ps(p->bias);
    const f16_bounds c = f16_bounds_of(p);
    SIMDOPS_AVX2_MAP(x, y, n * 2, 2, f16_clip_sb_v, s, b, c.gt, c.lt, c.lo_h, c.hsel);
}

/* Integers: v = (double)x*s + b, clamped to the type's range in double,
 * truncated toward zero, clipped. Eight lanes go through int32 at a time;
 * every value fits int32 except uint32's, which are offset by 2^31. */
typedef struct sb_int {
    __m256d s, b, tmin, tmax;
    __m256i lo, hi; /* clip bounds widened to 32-bit lanes */
} sb_int;

static inline __m256d sb_affine(__m256d d, const sb_int *c)
{
    __m256d v = _mm256_add_pd(_mm256_mul_pd(d, c->s), c->b);
    /* v < tmin ? tmin : v, then v > tmax ? tmax : v (v is never NaN) */
    return _mm256_min_pd(c->tmax, _mm256_max_pd(c->tmin, v));
}

/* 8 int32 lanes of x -> 8 int32 lanes of y, for types that fit int32. */
static inline __m256i sb_group_i32(__m256i xi, const sb_int *c)
{
    __m128i r0 = _mm256_cvttpd_epi32(sb_affine(_mm256_cvtepi32_pd(_mm256_castsi256_si128(xi)), c));
    __m128i r1 = _mm256_cvttpd_epi32(sb_affine(_mm256_cvtepi32_pd(_mm256_extracti128_si256(xi, 1)), c));
    return _mm256_max_epi32(c->lo, _mm256_min_epi32(c->hi, _mm256_set_m128i(r1, r0)));
}

/* uint32: (double)x = (double)(int32)(x ^ 2^31) + 2^31; the truncation is
 * done in double first (cvttpd2dq is signed), then offset back. */
static inline __m128i sb_half_u32(__m128i x, const sb_int *c)
{
    const __m256d off = _mm256_set1_pd(2147483648.0);
    const __m128i sgn = _mm_set1_epi32(INT32_MIN);
    __m256d d = _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(x, sgn)), off);
    __m256d v = _mm256_round_pd(sb_affine(d, c), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    return _mm_xor_si128(_mm256_cvttpd_epi32(_mm256_sub_pd(v, off)), sgn);
}

static inline __m256i u32_clip_sb_v(__m256i v, const sb_int *c)
{
    __m256i g = _mm256_set_m128i(sb_half_u32(_mm256_extracti128_si256(v, 1), c),
                                 sb_half_u32(_mm256_castsi256_si128(v), c));
    return _mm256_max_epu32(c->lo, _mm256_min_epu32(c->hi, g));
}

static inline __m256i i32_clip_sb_v(__m256i v, const sb_int *c)
{
    return sb_group_i32(v, c);
}

/* 16-bit: two groups of 8, packed back (values are in range, so the
 * saturating pack is exact); the pack interleaves 64-bit quarters. */
#define SB16_V(name, widen, pack)                                                     \
    static inline __m256i name(__m256i v, const sb_int *c)                            \
    {                                                                                 \
        __m256i g0 = sb_group_i32(widen(_mm256_castsi256_si128(v)), c);               \
        __m256i g1 = sb_group_i32(widen(_mm256_extracti128_si256(v, 1)), c);          \
        return _mm256_permute4x64_epi64(pack(g0, g1), 0xD8);                          \
    }
SB16_V(u16_clip_sb_v, _mm256_cvtepu16_epi32, _mm256_packus_epi32)
SB16_V(i16_clip_sb_v, _mm256_cvtepi16_epi32, _mm256_packs_epi32)

/* 8-bit: four groups of 8, packed twice, then the 32-bit quarters reordered. */
#define SB8_V(name, widen, pack32, pack16)                                            \
    static inline __m256i name(__m256i v, const sb_int *c)                            \
    {                                                                                 \
        __m128i v0 = _mm256_castsi256_si128(v), v1 = _mm256_extracti128_si256(v, 1);  \
        __m256i g0 = sb_group_i32(widen(v0), c);                                      \
        __m256i g1 = sb_group_i32(widen(_mm_srli_si128(v0, 8)), c);                   \
        __m256i g2 = sb_group_i32(widen(v1), c);                                      \
        __m256i g3 = sb_group_i32(widen(_mm_srli_si128(v1, 8)), c);                   \
        __m256i r = pack16(pack32(g0, g1), pack32(g2, g3));                           \
        return _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)); \
    }
SB8_V(u8_clip_sb_v, _mm256_cvtepu8_epi32, _mm256_packus_epi32, _mm256_packus_epi16)
SB8_V(i8_clip_sb_v, _mm256_cvtepi8_epi32, _mm256_packs_epi32, _mm256_packs_epi16)

#define INT_CLIP_SB_KERNEL(name, fn, esize, type_min, type_max, lo32, hi32)               \
    static void name(const void *x, void *y, size_t n, const simdops_clip_params *p)     \
    {                                                                                    \
        sb_int c;                                                                        \
        c.s = _mm256_set1_pd((double)p->scale);                                          \
        c.b = _mm256_set1_pd((double)p->bias);                                           \
        c.tmin = _mm256_set1_pd((double)(type_min));                                       \
        c.tmax = _mm256_set1_pd((double)(type_max));                                       \
        c.lo = _mm256_set1_epi32(lo32);                                                  \
        c.hi = _mm256_set1_epi32(hi32);                                                  \
        SIMDOPS_AVX2_MAP(x, y, n * (esize), esize, fn, &c);                              \
    }
INT_CLIP_SB_KERNEL(u8_clip_scale_bias__avx2, u8_clip_sb_v, 1, 0, UINT8_MAX,
                   p->min.u8, p->max.u8)
INT_CLIP_SB_KERNEL(i8_clip_scale_bias__avx2, i8_clip_sb_v, 1, INT8_MIN, INT8_MAX,
                   p->min.i8, p->max.i8)
INT_CLIP_SB_KERNEL(u16_clip_scale_bias__avx2, u16_clip_sb_v, 2, 0, UINT16_MAX,
                   p->min.u16, p->max.u16)
INT_CLIP_SB_KERNEL(i16_clip_scale_bias__avx2, i16_clip_sb_v, 2, INT16_MIN, INT16_MAX,
                   p->min.i16, p->max.i16)
INT_CLIP_SB_KERNEL(u32_clip_scale_bias__avx2, u32_clip_sb_v, 4, 0, UINT32_MAX,
                   (int)p->min.u32, (int)p->max.u32)
INT_CLIP_SB_KERNEL(i32_clip_scale_bias__avx2, i32_clip_sb_v, 4, INT32_MIN, INT32_MAX,
                   p->min.i32, p->max.i32)

SIMDOPS_DEFINE_REGISTER(clip, CLIP_EVERY_KERNEL)
#else
SIMDOPS_TIER_NOT_COMPILED(clip, avx2)
#endif
