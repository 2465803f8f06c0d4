/* AVX2 (+F16C) shrink kernels, bit-exact with shrink_scalar.c: float32 and
 * float64 from the shared body (shrink_body.h), and here float16 through
 * vcvtph2ps/vcvtps2ph and the integers. Each *_v function maps 32 bytes of
 * elements; SIMDOPS_AVX2_MAP runs it over the row. The x > thr branch is
 * blended last, as the scalar tests it first. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#define SIMDOPS_TIER avx2
#include "kernels/vec/avx2.h"
#include "kernels/shrink/shrink_body.h"
#include "kernels/shrink/shrink_int_form.h"

/* float16: x -/+ b in float32 with one rounding to half (vcvtps2ph, which
 * bounds these kernels). Lanes of neither branch come out as +0 from the
 * float side; NaN lanes take x's bits. */
static inline __m128i f16_shrink_8(__m128i h, __m256 thr, __m256 neg_thr, __m256 b)
{
    const __m256 x = _mm256_cvtph_ps(h);
    __m256 r = _mm256_and_ps(_mm256_add_ps(x, b), _mm256_cmp_ps(x, neg_thr, _CMP_LT_OQ));
    r = _mm256_blendv_ps(r, _mm256_sub_ps(x, b), _mm256_cmp_ps(x, thr, _CMP_GT_OQ));
    return _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT);
}

static inline __m256i f16_shrink_v(__m256i h, __m256 thr, __m256 neg_thr, __m256 b)
{
    const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    const __m256i nan = _mm256_cmpgt_epi16(mag, _mm256_set1_epi16(0x7c00));
    __m256i r = _mm256_set_m128i(f16_shrink_8(_mm256_extracti128_si256(h, 1), thr, neg_thr, b),
                                 f16_shrink_8(_mm256_castsi256_si128(h), thr, neg_thr, b));
    return _mm256_or_si256(r, _mm256_and_si256(h, nan));
}

/* Symmetric parameters, as for float32: |x| > thr is (h & 0x7fff) > bound
 * (avx2_util.h), and only x - (b with x's sign) is converted. Widened halves
 * are never denormal floats, so DAZ cannot change the scalar's compares. */
static inline __m128i f16_sub_signed_8(__m128i h, __m256 b)
{
    const __m256 x = _mm256_cvtph_ps(h);
    const __m256 bx = _mm256_xor_ps(b, _mm256_and_ps(x, _mm256_set1_ps(-0.0f)));
    return _mm256_cvtps_ph(_mm256_sub_ps(x, bx), _MM_FROUND_TO_NEAREST_INT);
}

static inline __m256i f16_shrink_sym_v(__m256i h, __m256i bound, __m256 b)
{
    const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    const __m256i keep = _mm256_cmpgt_epi16(mag, bound);
    const __m256i nan = _mm256_cmpgt_epi16(mag, _mm256_set1_epi16(0x7c00));
    __m256i r = _mm256_set_m128i(f16_sub_signed_8(_mm256_extracti128_si256(h, 1), b),
                                 f16_sub_signed_8(_mm256_castsi256_si128(h), b));
    return _mm256_and_si256(_mm256_blendv_epi8(r, h, nan), keep);
}

/* ... and with bias 0 nothing is converted: y = x where |x| > thr or x is
 * NaN, else +0 (x -/+ 0 is x there, as x is not zero). */
static inline __m256i f16_shrink0_v(__m256i h, __m256i bound)
{
    const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    return _mm256_and_si256(h, _mm256_cmpgt_epi16(mag, bound));
}

static void f16_shrink__avx2(const void *x, void *y, size_t n, const simdops_shrink_params *p)
{
    const float t = p->thr.f32, nt = p->neg_thr.f32, bias = p->bias.f32;
    if (t >= 0.0f && nt == -t && bias == bias) {
        const __m256i bound = _mm256_set1_epi16(simdops_f16_gt_bound(t));
        const __m256 b = _mm256_set1_ps(bias);
        if (bias == 0.0f)
            SIMDOPS_AVX2_MAP(x, y, n * 2, 2, f16_shrink0_v, bound);
        else
            SIMDOPS_AVX2_MAP(x, y, n * 2, 2, f16_shrink_sym_v, bound, b);
    } else {
        const __m256 thr = _mm256_set1_ps(t), neg_thr = _mm256_set1_ps(nt);
        const __m256 b = _mm256_set1_ps(bias);
        SIMDOPS_AVX2_MAP(x, y, n * 2, 2, f16_shrink_v, thr, neg_thr, b);
    }
}

/* Integers: the clamp forms of shrink_int_form.h, on 256-bit vectors (two
 * operations of eight a vector saved by CLAMP_NONE). */
typedef struct shrink_int {
    __m256i thr, neg_thr, b, sub_lo, sub_hi, add_lo, add_hi;
} shrink_int;

/* gt/lt: the masks of x > thr and x < neg_thr, or their complements (inv)
 * for unsigned types, which compare through min/max. */
#define SHRINK_INT_V(name, GT, LT, inv, vmin, vmax, vadd, vsub)                        \
    static inline __m256i name(__m256i x, const shrink_int *c, const int form, const int lt) \
    {                                                                                  \
        __m256i s = x, a = x, r;                                                       \
        if (form == CLAMP_BOTH || form == CLAMP_NEG) s = vmin(s, c->sub_hi);           \
        if (form == CLAMP_BOTH || form == CLAMP_POS) s = vmax(c->sub_lo, s);           \
        s = vsub(s, c->b);                                                             \
        if (!lt)                                                                       \
            return inv ? _mm256_andnot_si256(GT(x, c->thr), s) : _mm256_and_si256(s, GT(x, c->thr)); \
        if (form == CLAMP_BOTH || form == CLAMP_POS) a = vmin(a, c->add_hi);           \
        if (form == CLAMP_BOTH || form == CLAMP_NEG) a = vmax(c->add_lo, a);           \
        a = vadd(a, c->b);                                                             \
        r = inv ? _mm256_andnot_si256(LT(x, c->neg_thr), a) : _mm256_and_si256(a, LT(x, c->neg_thr)); \
        return inv ? _mm256_blendv_epi8(s, r, GT(x, c->thr)) : _mm256_blendv_epi8(r, s, GT(x, c->thr)); \
    }

#define GT_I8(x, t) _mm256_cmpgt_epi8(x, t)
#define LT_I8(x, t) _mm256_cmpgt_epi8(t, x)
#define GT_I16(x, t) _mm256_cmpgt_epi16(x, t)
#define LT_I16(x, t) _mm256_cmpgt_epi16(t, x)
#define GT_I32(x, t) _mm256_cmpgt_epi32(x, t)
#define LT_I32(x, t) _mm256_cmpgt_epi32(t, x)
/* unsigned: x <= t and x >= t */
#define LE_U8(x, t) _mm256_cmpeq_epi8(_mm256_min_epu8(x, t), x)
#define GE_U8(x, t) _mm256_cmpeq_epi8(_mm256_max_epu8(x, t), x)
#define LE_U16(x, t) _mm256_cmpeq_epi16(_mm256_min_epu16(x, t), x)
#define GE_U16(x, t) _mm256_cmpeq_epi16(_mm256_max_epu16(x, t), x)
#define LE_U32(x, t) _mm256_cmpeq_epi32(_mm256_min_epu32(x, t), x)
#define GE_U32(x, t) _mm256_cmpeq_epi32(_mm256_max_epu32(x, t), x)

SHRINK_INT_V(i8_shrink_v, GT_I8, LT_I8, 0, _mm256_min_epi8, _mm256_max_epi8, _mm256_add_epi8, _mm256_sub_epi8)
SHRINK_INT_V(i16_shrink_v, GT_I16, LT_I16, 0, _mm256_min_epi16, _mm256_max_epi16, _mm256_add_epi16, _mm256_sub_epi16)
SHRINK_INT_V(i32_shrink_v, GT_I32, LT_I32, 0, _mm256_min_epi32, _mm256_max_epi32, _mm256_add_epi32, _mm256_sub_epi32)
SHRINK_INT_V(u8_shrink_v, LE_U8, GE_U8, 1, _mm256_min_epu8, _mm256_max_epu8, _mm256_add_epi8, _mm256_sub_epi8)
SHRINK_INT_V(u16_shrink_v, LE_U16, GE_U16, 1, _mm256_min_epu16, _mm256_max_epu16, _mm256_add_epi16, _mm256_sub_epi16)
SHRINK_INT_V(u32_shrink_v, LE_U32, GE_U32, 1, _mm256_min_epu32, _mm256_max_epu32, _mm256_add_epi32, _mm256_sub_epi32)

/* the kernels: one per row of shrink_int_form.h's SHRINK_INT_TYPES */
#define SHRINK_INT_CT shrink_int
#define SHRINK_INT_MAP SIMDOPS_AVX2_MAP
SHRINK_INT_TYPES(SHRINK_INT_TIER_ROW, _mm256)

#define SHRINK_KERNELS(X)                                                                         \
    SHRINK_BODY_KERNELS(X) X(shrink, f16) SHRINK_INT_TYPES(SHRINK_INT_ENTRY, X)
SIMDOPS_DEFINE_REGISTER(shrink, SHRINK_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(shrink, avx2)
#endif
