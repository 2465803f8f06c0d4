/* qlow_body.h's vocabulary on SSE2: 4 lanes (SSE4.1 inherits the SSE2 kernels). */
#ifndef SIMDOPS_QLOW_VEC_SSE2_H
#define SIMDOPS_QLOW_VEC_SSE2_H
#include <emmintrin.h>

#define QV_W 4
typedef __m128i qv_i;
typedef __m128 qv_f;
static inline qv_i qv_set1_i(int32_t v) { return _mm_set1_epi32(v); }
static inline qv_f qv_set1_f(float v) { return _mm_set1_ps(v); }
static inline qv_i qv_and(qv_i a, qv_i b) { return _mm_and_si128(a, b); }
static inline qv_i qv_or(qv_i a, qv_i b) { return _mm_or_si128(a, b); }
static inline qv_i qv_xor(qv_i a, qv_i b) { return _mm_xor_si128(a, b); }
static inline qv_i qv_add_i(qv_i a, qv_i b) { return _mm_add_epi32(a, b); }
static inline qv_i qv_sub_i(qv_i a, qv_i b) { return _mm_sub_epi32(a, b); }
static inline qv_i qv_shl(qv_i a, int c) { return _mm_sll_epi32(a, _mm_cvtsi32_si128(c)); }
static inline qv_i qv_eq_i(qv_i a, qv_i b) { return _mm_cmpeq_epi32(a, b); }
static inline qv_i qv_gt_i(qv_i a, qv_i b) { return _mm_cmpgt_epi32(a, b); }
static inline qv_i qv_sel(qv_i m, qv_i a, qv_i b) { return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b)); }
static inline qv_f qv_cvt_f(qv_i a) { return _mm_cvtepi32_ps(a); }
static inline qv_f qv_cast_f(qv_i a) { return _mm_castsi128_ps(a); }
static inline qv_i qv_cast_i(qv_f a) { return _mm_castps_si128(a); }
static inline qv_f qv_sub_f(qv_f a, qv_f b) { return _mm_sub_ps(a, b); }
static inline qv_f qv_mul_f(qv_f a, qv_f b) { return _mm_mul_ps(a, b); }
static inline qv_f qv_loadu_f(const float *p) { return _mm_loadu_ps(p); }
static inline void qv_storeu_f(float *p, qv_f v) { _mm_storeu_ps(p, v); }
/* 16 bytes (as 16 lanes in order) zero-extended to four vectors */
static inline void qv_bytes16(__m128i b, qv_i o[4])
{
    const __m128i z = _mm_setzero_si128();
    __m128i lo = _mm_unpacklo_epi8(b, z), hi = _mm_unpackhi_epi8(b, z);
    o[0] = _mm_unpacklo_epi16(lo, z);
    o[1] = _mm_unpackhi_epi16(lo, z);
    o[2] = _mm_unpacklo_epi16(hi, z);
    o[3] = _mm_unpackhi_epi16(hi, z);
}
static inline void qv_u8x4(const uint8_t *b, qv_i o[4]) { qv_bytes16(_mm_loadu_si128((const __m128i *)b), o); }
static inline void qv_nib4(const uint8_t *b, qv_i o[4])
{
    const __m128i m = _mm_set1_epi8(0x0f);
    __m128i v = _mm_loadl_epi64((const __m128i *)b); /* 8 bytes: 16 nibbles */
    qv_bytes16(_mm_unpacklo_epi8(_mm_and_si128(v, m), _mm_and_si128(_mm_srli_epi16(v, 4), m)), o);
}
#endif
