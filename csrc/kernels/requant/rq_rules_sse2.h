/* requant_x86_rules.h's extra ops for SSE2 (see rq_rules_sse_common.h): no
 * pmulld or pmuldq, so both products come from pmuludq. */
#ifndef SIMDOPS_RQ_RULES_SSE2_H
#define SIMDOPS_RQ_RULES_SSE2_H

/* the low 32 bits of a * b per lane */
RQ_INLINE rqv rqv_mullo(rqv a, rqv b)
{
    __m128i e = _mm_mul_epu32(a, b);
    __m128i o = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(e, _MM_SHUFFLE(0, 0, 2, 0)),
                              _mm_shuffle_epi32(o, _MM_SHUFFLE(0, 0, 2, 0)));
}

/* The high word of a * b + c per lane (signed product, c a 64-bit constant in
 * [0, 2^32)); ao, bo hold the odd lanes in even positions. As rqv_srdhm: the
 * signed product is the unsigned one minus 2^32 * ((a<0 ? b : 0) + (b<0 ? a :
 * 0)) mod 2^64, which leaves the low word (so the carry of + c) alone and
 * takes that sum off the high word. */
RQ_INLINE rqv rqv_mulhi_add(rqv a, rqv ao, rqv b, rqv bo, rqv c)
{
    __m128i pe = _mm_add_epi64(_mm_mul_epu32(a, b), c);
    __m128i po = _mm_add_epi64(_mm_mul_epu32(ao, bo), c);
    __m128 t = _mm_shuffle_ps(_mm_castsi128_ps(pe), _mm_castsi128_ps(po), _MM_SHUFFLE(3, 1, 3, 1));
    __m128i h = _mm_shuffle_epi32(_mm_castps_si128(t), _MM_SHUFFLE(3, 1, 2, 0));
    __m128i fix = _mm_add_epi32(_mm_and_si128(_mm_srai_epi32(a, 31), b),
                                _mm_and_si128(_mm_srai_epi32(b, 31), a));
    return _mm_sub_epi32(h, fix);
}

#include "rq_rules_sse_common.h"

#endif
