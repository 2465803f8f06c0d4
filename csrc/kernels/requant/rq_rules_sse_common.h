/* The ops requant_x86_rules.h needs beyond the double-rounding helpers, for
 * the two 128-bit tiers (included by rq_rules_sse2.h and rq_rules_sse41.h
 * after their rqv_mullo and rqv_mulhi_add). SSE has no per-lane shift: an
 * arithmetic one is the logical rqv_srl (a multiply) on the value with its
 * sign xored away. */
#ifndef SIMDOPS_RQ_RULES_SSE_COMMON_H
#define SIMDOPS_RQ_RULES_SSE_COMMON_H

RQ_INLINE rqv rqv_set1_64(int64_t v) { return _mm_set1_epi64x(v); }
RQ_INLINE rqv rqv_and(rqv a, rqv b) { return _mm_and_si128(a, b); }
RQ_INLINE rqv rqv_sra_n(rqv a, rqv count) { return _mm_sra_epi32(a, count); }
/* 2^k per lane, k in [0, 31] (2^31 as its uint32 bits) */
RQ_INLINE rqv rqv_pow2(rqv k) { return rq_pow2_sse2(k); }
/* v >> s per lane, arithmetic, s in [0, 31] */
RQ_INLINE rqv rqv_sra(rqv v, rqv s)
{
    __m128i sg = _mm_srai_epi32(v, 31);
    return _mm_xor_si128(rqv_srl(_mm_xor_si128(v, sg), s), sg);
}
/* r + 1 where a > b (signed), else r */
RQ_INLINE rqv rqv_inc_gt(rqv r, rqv a, rqv b) { return _mm_sub_epi32(r, _mm_cmpgt_epi32(a, b)); }
/* alt where q == INT32_MIN, else r */
RQ_INLINE rqv rqv_sel_min(rqv r, rqv q, rqv alt)
{
    __m128i k = _mm_cmpeq_epi32(q, _mm_set1_epi32(INT32_MIN));
    return _mm_or_si128(_mm_and_si128(k, alt), _mm_andnot_si128(k, r));
}

#endif
