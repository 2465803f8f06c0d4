/* requant_x86_rules.h's extra ops for SSE4.1 (see rq_rules_sse_common.h):
 * pmulld, and the signed pmuldq for the 64-bit products. */
#ifndef SIMDOPS_RQ_RULES_SSE41_H
#define SIMDOPS_RQ_RULES_SSE41_H

RQ_INLINE rqv rqv_mullo(rqv a, rqv b) { return _mm_mullo_epi32(a, b); }

/* the high word of a * b + c per lane; ao, bo hold the odd lanes in even positions */
RQ_INLINE rqv rqv_mulhi_add(rqv a, rqv ao, rqv b, rqv bo, rqv c)
{
    __m128i pe = _mm_add_epi64(_mm_mul_epi32(a, b), c);
    __m128i po = _mm_add_epi64(_mm_mul_epi32(ao, bo), c);
    return _mm_blend_epi16(_mm_srli_epi64(pe, 32), po, 0xCC);
}

#include "rq_rules_sse_common.h"

#endif
