/* requant_x86_rules.h's ops beyond the double-rounding helpers, for AVX2
 * (kept apart from rq_vec_avx2.h: the families' kernels only). */
#ifndef SIMDOPS_RQ_RULES_AVX2_H
#define SIMDOPS_RQ_RULES_AVX2_H

RQ_INLINE rqv rqv_set1_64(int64_t v) { return _mm256_set1_epi64x(v); }
RQ_INLINE rqv rqv_mullo(rqv a, rqv b) { return _mm256_mullo_epi32(a, b); }
RQ_INLINE rqv rqv_sra_n(rqv a, rqv count) { return _mm256_srav_epi32(a, count); }
RQ_INLINE rqv rqv_sra(rqv v, rqv s) { return _mm256_srav_epi32(v, s); }
RQ_INLINE rqv rqv_sel_min(rqv r, rqv q, rqv alt)
{
    return _mm256_blendv_epi8(r, alt, _mm256_cmpeq_epi32(q, _mm256_set1_epi32(INT32_MIN)));
}

/* floor((q + h) / 2^r) per lane, h = 2^r >> 1, q in [-2^31 + 1, 2^31 - 1]
 * (the ties-up rounding shift): s = q + h wraps only for q >= 0, where s is
 * right as uint32 (a logical shift); for q < 0 it cannot wrap and needs the
 * arithmetic shift, which differs from the logical one only when s < 0 too:
 * sg = (s & q) >> 31 flips exactly those lanes around a logical shift. */
RQ_INLINE rqv rqv_shift_ties_up(rqv q, rqv h, rqv r)
{
    __m256i s = _mm256_add_epi32(q, h);
    __m256i sg = _mm256_srai_epi32(_mm256_and_si256(s, q), 31);
    return _mm256_xor_si256(_mm256_srlv_epi32(_mm256_xor_si256(s, sg), r), sg);
}

/* the high word of a * b + c per lane; ao, bo hold the odd lanes in even positions */
RQ_INLINE rqv rqv_mulhi_add(rqv a, rqv ao, rqv b, rqv bo, rqv c)
{
    __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(a, b), c);
    __m256i po = _mm256_add_epi64(_mm256_mul_epi32(ao, bo), c);
    return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}

#endif
