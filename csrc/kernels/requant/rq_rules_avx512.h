/* requant_x86_rules.h's ops beyond the double-rounding helpers, for AVX-512
 * (kept apart from rq_vec_avx512.h: the families' kernels only). Compares give
 * masks, so the conditional steps are masked ops. */
#ifndef SIMDOPS_RQ_RULES_AVX512_H
#define SIMDOPS_RQ_RULES_AVX512_H

RQ_INLINE rqv rqv_set1_64(int64_t v) { return _mm512_set1_epi64(v); }
RQ_INLINE rqv rqv_mullo(rqv a, rqv b) { return _mm512_mullo_epi32(a, b); }
RQ_INLINE rqv rqv_sra_n(rqv a, rqv count) { return _mm512_srav_epi32(a, count); }
RQ_INLINE rqv rqv_sra(rqv v, rqv s) { return _mm512_srav_epi32(v, s); }
RQ_INLINE rqv rqv_sel_min(rqv r, rqv q, rqv alt)
{
    return _mm512_mask_mov_epi32(r, _mm512_cmpeq_epi32_mask(q, _mm512_set1_epi32(INT32_MIN)), alt);
}

/* floor((q + h) / 2^r) per lane, h = 2^r >> 1, q in [-2^31 + 1, 2^31 - 1]
 * (the ties-up rounding shift): s = q + h wraps only for q >= 0, where s is
 * right as uint32 (a logical shift); for q < 0 it cannot wrap, and the
 * arithmetic shift is right (for s >= 0 it equals the logical one). */
RQ_INLINE rqv rqv_shift_ties_up(rqv q, rqv h, rqv r)
{
    __m512i s = _mm512_add_epi32(q, h);
    return _mm512_mask_srav_epi32(_mm512_srlv_epi32(s, r), _mm512_movepi32_mask(q), s, r);
}

/* the high word of a * b + c per lane; ao, bo hold the odd lanes in even positions */
RQ_INLINE rqv rqv_mulhi_add(rqv a, rqv ao, rqv b, rqv bo, rqv c)
{
    __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, b), c);
    __m512i po = _mm512_add_epi64(_mm512_mul_epi32(ao, bo), c);
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
}

#endif
