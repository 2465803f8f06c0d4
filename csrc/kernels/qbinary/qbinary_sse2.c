/* Quantized binary ops for SSE2, 8-bit types: the shared body
 * (qbinary_body.h) over 4-lane int32 vectors (qbinary_x86.h), 16 elements a
 * step, with the 32-bit multiplies SSE2 lacks built from pmuludq: the low
 * products from the even and odd lanes' unsigned ones, SRDHM's signed 64-bit
 * products from the unsigned ones less the sign corrections. Widening by
 * unpacks; the clamp to the bounds (inside the type) on the int16 values
 * before the last pack, as SSE2 has no signed byte min / max. The float
 * multiply's conversion is cvtps2dq (MXCSR's rounding): its vectors run while
 * MXCSR rounds to nearest. int16 inherits the scalar kernels. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#include <emmintrin.h>

#define SIMDOPS_TIER sse2
#define QV_BITS 128
#define QV_PREFIX _mm
#define QV_SI si128
#define QV_OWN_MULLO
#define QV_OWN_WIDEN
#define QV_OWN_NARROW
/* the signed 64-bit products of the even lanes: the unsigned product less
 * 2^32 * ((x < 0 ? m : 0) + (m < 0 ? x : 0)) */
static inline __m128i qb_mul_even_i64(__m128i x, __m128i m)
{
    __m128i fix = _mm_add_epi32(_mm_and_si128(_mm_srai_epi32(x, 31), m),
                                _mm_and_si128(_mm_srai_epi32(m, 31), x));
    return _mm_sub_epi64(_mm_mul_epu32(x, m), _mm_slli_epi64(fix, 32));
}
static inline __m128i qb_odd_blend(__m128i e, __m128i o)
{
    const __m128i low = _mm_set1_epi64x(0xFFFFFFFF);
    return _mm_or_si128(_mm_and_si128(low, e), _mm_andnot_si128(low, o));
}
#define QB_MUL_EVEN(x, m) qb_mul_even_i64(x, m)
#define QB_ODD_BLEND(e, o) qb_odd_blend(e, o)
#define QB_CVT_RNE(v) _mm_cvtps_epi32(v) /* QV_FP_VECTORS: MXCSR rounds to nearest */
#define QV_OWN_XNN_ROWS
#define QB_SET1_B(v) _mm_set1_epi16((short)(v))
#define QB_LOAD8(s) _mm_loadl_epi64((const __m128i *)(const void *)(s))
#define QB_WIDEN16_i8(s) _mm_srai_epi16(_mm_unpacklo_epi8(QB_LOAD8(s), QB_LOAD8(s)), 8)
#define QB_WIDEN16_u8(s) _mm_unpacklo_epi8(QB_LOAD8(s), _mm_setzero_si128())
/* the bounds on int16 (as qv_narrow4's), then the pack */
#define QB_XNN_NARROW(PACK, EP, p0, p1, lo, hi)                                                    \
    _mm_##PACK(_mm_min_epi16(_mm_max_epi16(p0, lo), hi), _mm_min_epi16(_mm_max_epi16(p1, lo), hi))
#include "qbinary_x86.h"
#define QV_FP_VECTORS(p) simdops_mxcsr_round_nearest()

/* the low 32 bits of each lane's product (wrapping, sign-agnostic) */
static inline qv_i32 qv_mullo(qv_i32 a, qv_i32 b)
{
    __m128i even = _mm_mul_epu32(a, b);
    __m128i odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(even, 0x08), _mm_shuffle_epi32(odd, 0x08));
}

static inline void qv_widen4_i8(const int8_t *s, qv_i32 v[4])
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i lo = _mm_unpacklo_epi8(x, x), hi = _mm_unpackhi_epi8(x, x);
    v[0] = _mm_srai_epi32(_mm_unpacklo_epi16(lo, lo), 24);
    v[1] = _mm_srai_epi32(_mm_unpackhi_epi16(lo, lo), 24);
    v[2] = _mm_srai_epi32(_mm_unpacklo_epi16(hi, hi), 24);
    v[3] = _mm_srai_epi32(_mm_unpackhi_epi16(hi, hi), 24);
}
static inline void qv_widen4_u8(const uint8_t *s, qv_i32 v[4])
{
    const __m128i z = _mm_setzero_si128();
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i lo = _mm_unpacklo_epi8(x, z), hi = _mm_unpackhi_epi8(x, z);
    v[0] = _mm_unpacklo_epi16(lo, z);
    v[1] = _mm_unpackhi_epi16(lo, z);
    v[2] = _mm_unpacklo_epi16(hi, z);
    v[3] = _mm_unpackhi_epi16(hi, z);
}

/* packssdw, the clamp on int16 (the bounds lie inside the type, so clamping
 * before the last pack equals the packs' narrowing then the clamp), the pack */
static inline __m128i qb_pack_clamp(__m128i v0, __m128i v1, qv_b lo, qv_b hi)
{
    return _mm_min_epi16(_mm_max_epi16(_mm_packs_epi32(v0, v1), lo), hi);
}
static inline void qv_narrow4_i8(int8_t *d, qv_i32 v0, qv_i32 v1, qv_i32 v2, qv_i32 v3, qv_b lo, qv_b hi)
{
    _mm_storeu_si128((__m128i *)(void *)d,
                     _mm_packs_epi16(qb_pack_clamp(v0, v1, lo, hi), qb_pack_clamp(v2, v3, lo, hi)));
}
static inline void qv_narrow4_u8(uint8_t *d, qv_i32 v0, qv_i32 v1, qv_i32 v2, qv_i32 v3, qv_b lo, qv_b hi)
{
    _mm_storeu_si128((__m128i *)(void *)d,
                     _mm_packus_epi16(qb_pack_clamp(v0, v1, lo, hi), qb_pack_clamp(v2, v3, lo, hi)));
}

#include "qbinary_body.h"
SIMDOPS_DEFINE_REGISTER(qbinary, QBINARY_BODY_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qbinary, sse2)
#endif
