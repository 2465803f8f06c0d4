/* QuantizeLinear / DequantizeLinear for SSE2: the loops of qlinear_x86.h over
 * qlinear_sse.h's 128-bit operations, with SSE2's rounding, unsigned 16-bit
 * pack and widening. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#define SIMDOPS_TIER sse2
#include "qlinear_sse.h"

/* cvtps2dq rounds as MXCSR says: nearest-even unless a program changed it
 * (numpy's rint makes the same assumption); it spares roundps, which SSE2 lacks */
static inline __m128i ql_quantize_vec(__m128 q, __m128 lo, __m128 hi, __m128i zp)
{
    return _mm_add_epi32(_mm_cvtps_epi32(_mm_min_ps(_mm_max_ps(q, lo), hi)), zp);
}

/* no packusdw: shift [0, 65535] into int16's range, pack signed, shift back */
static inline __m128i ql_pack_u16(__m128i a, __m128i b)
{
    const __m128i k = _mm_set1_epi32(32768);
    return _mm_xor_si128(_mm_packs_epi32(_mm_sub_epi32(a, k), _mm_sub_epi32(b, k)),
                         _mm_set1_epi16((short)0x8000));
}

/* 4 elements of x widened to int32: no pmovzx/pmovsx, so unpack (a signed
 * lane sign-extends by an arithmetic shift from the top) */
static inline __m128i ql_widen_u8(const uint8_t *x, int m)
{
    const __m128i z = _mm_setzero_si128();
    (void)m;
    return _mm_unpacklo_epi16(_mm_unpacklo_epi8(ql_load4(x), z), z);
}
static inline __m128i ql_widen_i8(const int8_t *x, int m)
{
    __m128i b = ql_load4(x);
    (void)m;
    b = _mm_unpacklo_epi8(b, b);
    return _mm_srai_epi32(_mm_unpacklo_epi16(b, b), 24);
}
static inline __m128i ql_widen_u16(const uint16_t *x, int m)
{
    (void)m;
    return _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)x), _mm_setzero_si128());
}
static inline __m128i ql_widen_i16(const int16_t *x, int m)
{
    __m128i h = _mm_loadl_epi64((const __m128i *)x);
    (void)m;
    return _mm_srai_epi32(_mm_unpacklo_epi16(h, h), 16);
}

#include "qlinear_x86.h"

SIMDOPS_DEFINE_REGISTER(qlinear, QLINEAR_KERNELS_F32)
#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, sse2)
#endif
