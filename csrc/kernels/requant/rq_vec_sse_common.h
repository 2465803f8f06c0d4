/* The requant vector helpers the two 128-bit tiers share (included by
 * rq_vec_sse2.h and rq_vec_sse41.h, which add the ones that differ). Shift
 * counts of the per-tensor shifts sit in the low quadword (psllD/psrlD by xmm);
 * per-lane shifts are multiplies by 2^k, SSE having no vpsllvd. */
#ifndef SIMDOPS_RQ_VEC_SSE_COMMON_H
#define SIMDOPS_RQ_VEC_SSE_COMMON_H

#include <emmintrin.h>

typedef __m128i rqv;
#define RQV_LANES 4
#define RQ_ODDLOAD 0
#define RQV_USES_DERIVED 0 /* deriving the shifts in registers costs no more than loading */

RQ_INLINE rqv rqv_load(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
RQ_INLINE void rqv_store(void *p, rqv v) { _mm_storeu_si128((__m128i *)p, v); }
RQ_INLINE rqv rqv_set1_32(int32_t v) { return _mm_set1_epi32(v); }
RQ_INLINE rqv rqv_set1_16(int16_t v) { return _mm_set1_epi16(v); }
RQ_INLINE rqv rqv_set1_8(char v) { return _mm_set1_epi8(v); }
RQ_INLINE rqv rqv_count(int32_t k) { return _mm_cvtsi32_si128(k); }
RQ_INLINE rqv rqv_add32(rqv a, rqv b) { return _mm_add_epi32(a, b); }
RQ_INLINE rqv rqv_sub32(rqv a, rqv b) { return _mm_sub_epi32(a, b); }
RQ_INLINE rqv rqv_odd(rqv a) { return _mm_srli_epi64(a, 32); }
RQ_INLINE rqv rqv_sll_n(rqv a, rqv count) { return _mm_sll_epi32(a, count); }
RQ_INLINE rqv rqv_srl_n(rqv a, rqv count) { return _mm_srl_epi32(a, count); }

/* Bits 31..62 of the 64-bit lanes of pe (products of lanes 0, 2) and po
 * (lanes 1, 3), i.e. floor(p / 2^31) mod 2^32, back in lane order. */
RQ_INLINE __m128i rq_hi31_sse2(__m128i pe, __m128i po)
{
    __m128 t = _mm_shuffle_ps(_mm_castsi128_ps(_mm_srli_epi64(pe, 31)),
                              _mm_castsi128_ps(_mm_srli_epi64(po, 31)), _MM_SHUFFLE(2, 0, 2, 0));
    return _mm_shuffle_epi32(_mm_castps_si128(t), _MM_SHUFFLE(3, 1, 2, 0));
}

/* SRDHM's result q: 0x80000000 only comes from the one overflow
 * INT32_MIN*INT32_MIN (2^31 wrapped), which saturates to INT32_MAX (add -1). */
RQ_INLINE rqv rq_srdhm_saturate_sse(rqv q, int sat)
{
    return sat ? _mm_add_epi32(q, _mm_cmpeq_epi32(q, _mm_set1_epi32(INT32_MIN))) : q;
}

/* 2^k per lane for k in [0, 31], as uint32 bits: the float 2^k truncated;
 * 2^31 is out of int32 range and cvttps gives 0x80000000, which is 2^31. */
RQ_INLINE __m128i rq_pow2_sse2(__m128i k)
{
    __m128i e = _mm_slli_epi32(_mm_add_epi32(k, _mm_set1_epi32(127)), 23);
    return _mm_cvttps_epi32(_mm_castsi128_ps(e));
}

/* 2^k >> 1 per lane (RDBPOT's half), k in [0, 31] */
RQ_INLINE rqv rqv_half_of(rqv k) { return _mm_srli_epi32(rq_pow2_sse2(k), 1); }

/* u >> s per lane (logical), s in [0, 31]: floor(u * 2^(31-s) / 2^31), exact
 * since u * 2^(31-s) < 2^63. */
RQ_INLINE rqv rqv_srl(rqv u, rqv s)
{
    __m128i m = rq_pow2_sse2(_mm_sub_epi32(_mm_set1_epi32(31), s));
    __m128i pe = _mm_mul_epu32(u, m);
    __m128i po = _mm_mul_epu32(_mm_srli_epi64(u, 32), _mm_srli_epi64(m, 32));
    return rq_hi31_sse2(pe, po);
}

/* narrowing; packs work on the whole register, already in element order */
RQ_INLINE rqv rqv_packs32(rqv a, rqv b) { return _mm_packs_epi32(a, b); }
RQ_INLINE rqv rqv_packs16(rqv a, rqv b) { return _mm_packs_epi16(a, b); }
RQ_INLINE rqv rqv_packus16(rqv a, rqv b) { return _mm_packus_epi16(a, b); }
RQ_INLINE rqv rqv_adds16(rqv a, rqv b) { return _mm_adds_epi16(a, b); }
RQ_INLINE rqv rqv_min_i16(rqv a, rqv b) { return _mm_min_epi16(a, b); }
RQ_INLINE rqv rqv_max_i16(rqv a, rqv b) { return _mm_max_epi16(a, b); }
RQ_INLINE rqv rqv_min_u8(rqv a, rqv b) { return _mm_min_epu8(a, b); }
RQ_INLINE rqv rqv_max_u8(rqv a, rqv b) { return _mm_max_epu8(a, b); }
RQ_INLINE rqv rqv_unlane8(rqv b) { return b; }
RQ_INLINE rqv rqv_unlane16(rqv w) { return w; }

#endif
