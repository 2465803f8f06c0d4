/* The ops requant_x86_rules.h needs beyond the double-rounding helpers, for
 * the two 128-bit tiers (included by rq_rules_sse2.h and rq_rules_sse41.h
 * after their rqv_mullo and rqv_mulhi_add). SSE has no per-lane shift: an
 * arithmetic one is the logical rqv_srl (a multiply) on the value with its
 * sign xored away. */
#ifndef SIMDOPS_RQ_RULES_SSE_COMMON_H
#define SIMDOPS_RQ_RULES_SSE_COMMON_H

RQ_INLINE rqv rqv_set1_64(int64_t v) { return _mm_set1_epi64x(v); }
RQ_INLINE rqv rqv_sra_n(rqv a, rqv count) { return _mm_sra_epi32(a, count); }
/* v >> s per lane, arithmetic, s in [0, 31] */
RQ_INLINE rqv rqv_sra(rqv v, rqv s)
{
    __m128i sg = _mm_srai_epi32(v, 31);
    return _mm_xor_si128(rqv_srl(_mm_xor_si128(v, sg), s), sg);
}
/* floor((q + h) / 2^r) per lane, h = 2^r >> 1, q in [-2^31 + 1, 2^31 - 1]
 * (the ties-up rounding shift): s = q + h wraps only for q >= 0, where s is
 * right as uint32 (a logical shift); for q < 0 it cannot wrap and needs the
 * arithmetic shift, which differs from the logical one only when s < 0 too:
 * sg = (s & q) >> 31 flips exactly those lanes around a logical shift. */
RQ_INLINE rqv rqv_shift_ties_up(rqv q, rqv h, rqv r)
{
    __m128i s = _mm_add_epi32(q, h);
    __m128i sg = _mm_srai_epi32(_mm_and_si128(s, q), 31);
    return _mm_xor_si128(rqv_srl(_mm_xor_si128(s, sg), r), sg);
}
/* alt where q == INT32_MIN, else r */
RQ_INLINE rqv rqv_sel_min(rqv r, rqv q, rqv alt)
{
    __m128i k = _mm_cmpeq_epi32(q, _mm_set1_epi32(INT32_MIN));
    return _mm_or_si128(_mm_and_si128(k, alt), _mm_andnot_si128(k, r));
}

#endif
