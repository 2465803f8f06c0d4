/* clip kernels for SSE2: y = max(lo, min(hi, g(x))) as clip_scalar.c. The
 * integer and float kinds come from the shared body (clip_body.h over
 * vec/sse2.h, which builds the min/max SSE2 lacks); here float16 compares
 * order-preserving integer keys, and integer ScaleBias runs in double as the
 * scalar kernel does. 64-bit integers stay scalar: without
 * pcmpgtq (SSE4.2) two emulated 64-bit compares and selects cost more than
 * the scalar compare + cmov loop (measured ~0.8x). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#include "core/fp16.h"
#include "kernels/vec/sse_util.h"
#define SIMDOPS_TIER sse2
#include "kernels/vec/sse2.h"
#include "kernels/clip/clip_body.h"

/* float16 without ScaleBias, in the integer domain. key(h) = +-(h & 0x7fff)
 * orders non-NaN halves as their values (+0 and -0 equal). For float bounds
 * (exact halves or not), with g a non-NaN half:
 *   hi < g  <=>  key(g) > khi,  khi = largest key whose value <= hi
 *   lo > g  <=>  key(g) < klo,  klo = smallest key whose value >= lo
 * lo > hi makes every non-NaN g give lo (klo = INT16_MAX); lo <= hi makes the
 * two cases exclusive, so y = (lo > g) ? lo_h : (hi < g) ? hi_h : g with lo_h,
 * hi_h the bits f16_clip_one outputs. A NaN g matches neither. */
typedef struct f16clip {
    __m128i klo, khi, lo_h, hi_h;
} f16clip;

static int f16_key(uint16_t h) { return (h & 0x8000u) ? -(int)(h & 0x7fffu) : (int)h; }
static uint16_t f16_from_key(int k) { return (uint16_t)(k < 0 ? 0x8000u | (unsigned)-k : (unsigned)k); }

static void f16_init(f16clip *c, const simdops_clip_params *p)
{
    const float lo = p->min.f32, hi = p->max.f32;
    uint16_t lo_h = simdops_f32_to_f16(lo), hi_h = simdops_f32_to_f16(hi);
    int khi = f16_key(hi_h), klo = f16_key(lo_h);
    if (simdops_f16_to_f32(f16_from_key(khi)) > hi)
        khi--;
    if (simdops_f16_to_f32(f16_from_key(klo)) < lo)
        klo++;
    if (lo > hi)
        klo = INT16_MAX;
    c->klo = _mm_set1_epi16((short)klo);
    c->khi = _mm_set1_epi16((short)khi);
    c->lo_h = _mm_set1_epi16((short)lo_h);
    c->hi_h = _mm_set1_epi16((short)hi_h);
}

static inline __m128i f16_op(__m128i h, const f16clip *c)
{
    __m128i mag = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
    __m128i sign = _mm_srai_epi16(h, 15);
    __m128i key = _mm_sub_epi16(_mm_xor_si128(mag, sign), sign);
    __m128i nan = _mm_cmpgt_epi16(mag, _mm_set1_epi16(0x7c00));
    __m128i above = _mm_andnot_si128(nan, _mm_cmpgt_epi16(key, c->khi));
    __m128i below = _mm_andnot_si128(nan, _mm_cmpgt_epi16(c->klo, key));
    return sseu_select(below, c->lo_h, sseu_select(above, c->hi_h, h));
}

SSEU_MAP_KERNEL(f16_clip__sse2, simdops_clip_params, 2, 4, f16clip, f16_init, f16_op)

#include "kernels/clip/clip_sse_sb.h"

static inline __m128i u8_sb_op(__m128i x, const sseu_sb *c)
{
    const __m128i z = _mm_setzero_si128();
    __m128i w0 = _mm_unpacklo_epi8(x, z), w1 = _mm_unpackhi_epi8(x, z);
    __m128i q0 = sseu_sb_epi32(_mm_unpacklo_epi16(w0, z), c);
    __m128i q1 = sseu_sb_epi32(_mm_unpackhi_epi16(w0, z), c);
    __m128i q2 = sseu_sb_epi32(_mm_unpacklo_epi16(w1, z), c);
    __m128i q3 = sseu_sb_epi32(_mm_unpackhi_epi16(w1, z), c);
    return _mm_packus_epi16(_mm_packs_epi32(q0, q1), _mm_packs_epi32(q2, q3));
}

static inline __m128i i8_sb_op(__m128i x, const sseu_sb *c)
{
    __m128i w0 = _mm_srai_epi16(_mm_unpacklo_epi8(x, x), 8);
    __m128i w1 = _mm_srai_epi16(_mm_unpackhi_epi8(x, x), 8);
    __m128i q0 = sseu_sb_epi32(_mm_srai_epi32(_mm_unpacklo_epi16(w0, w0), 16), c);
    __m128i q1 = sseu_sb_epi32(_mm_srai_epi32(_mm_unpackhi_epi16(w0, w0), 16), c);
    __m128i q2 = sseu_sb_epi32(_mm_srai_epi32(_mm_unpacklo_epi16(w1, w1), 16), c);
    __m128i q3 = sseu_sb_epi32(_mm_srai_epi32(_mm_unpackhi_epi16(w1, w1), 16), c);
    return _mm_packs_epi16(_mm_packs_epi32(q0, q1), _mm_packs_epi32(q2, q3));
}

/* uint16 results exceed packssdw's range: pack r - 32768, then flip back. */
static inline __m128i u16_sb_op(__m128i x, const sseu_sb *c)
{
    const __m128i z = _mm_setzero_si128(), off = _mm_set1_epi32(32768);
    __m128i q0 = sseu_sb_epi32(_mm_unpacklo_epi16(x, z), c);
    __m128i q1 = sseu_sb_epi32(_mm_unpackhi_epi16(x, z), c);
    __m128i r = _mm_packs_epi32(_mm_sub_epi32(q0, off), _mm_sub_epi32(q1, off));
    return _mm_xor_si128(r, _mm_set1_epi16((short)0x8000));
}

static inline __m128i i16_sb_op(__m128i x, const sseu_sb *c)
{
    __m128i q0 = sseu_sb_epi32(_mm_srai_epi32(_mm_unpacklo_epi16(x, x), 16), c);
    __m128i q1 = sseu_sb_epi32(_mm_srai_epi32(_mm_unpackhi_epi16(x, x), 16), c);
    return _mm_packs_epi32(q0, q1);
}

static inline __m128i i32_sb_op(__m128i x, const sseu_sb *c) { return sseu_sb_epi32(x, c); }

/* uint32: v in [0, 2^32). cvttpd2dq is exact below 2^31 and gives 0x80000000
 * above; there v - 2^31 is exact and converts to the low 31 bits, which are
 * ORed in (below 2^31 that second conversion is <= 0 and is masked off). */
static inline __m128i u32_sb_op(__m128i x, const sseu_sb *c)
{
    const __m128d two31 = _mm_set1_pd(2147483648.0);
    __m128d d0, d1;
    __m128i a, b;
    sseu_cvtepu32_pd(x, &d0, &d1);
    d0 = sseu_sb_pd(d0, c);
    d1 = sseu_sb_pd(d1, c);
    a = _mm_unpacklo_epi64(_mm_cvttpd_epi32(d0), _mm_cvttpd_epi32(d1));
    b = _mm_unpacklo_epi64(_mm_cvttpd_epi32(_mm_sub_pd(d0, two31)),
                           _mm_cvttpd_epi32(_mm_sub_pd(d1, two31)));
    return _mm_or_si128(a, _mm_andnot_si128(_mm_srai_epi32(b, 31), b));
}

#define SB_TYPES(Y, C) Y(C, u8, 1, 1) Y(C, i8, 1, 1) Y(C, u16, 2, 2) Y(C, i16, 2, 2) \
    Y(C, u32, 4, 2) Y(C, i32, 4, 4)
SB_TYPES(CLIP_SSE_SB_KERNEL, _)

#define CLIP_KERNELS(X) CLIP_BODY_KERNELS(X) X(clip, f16) SB_TYPES(CLIP_SSE_SB_ENTRY, X)
SIMDOPS_DEFINE_REGISTER(clip, CLIP_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(clip, sse2)
#endif
