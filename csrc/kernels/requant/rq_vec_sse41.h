/* The requant vector helpers (requant_x86_body.h's rqv_*) for SSE4.1: 4 int32
 * lanes, the signed pmuldq, pabsd/psignd, pmulld, pminsb/pmaxsb; per-lane
 * shifts are still multiplies by 2^k. */
#ifndef SIMDOPS_RQ_VEC_SSE41_H
#define SIMDOPS_RQ_VEC_SSE41_H

#include <smmintrin.h>

#include "requant_x86.h"

#define RQV_HAS_MINMAX_I8 1
#define RQV_RDBPOT_BY_MASK 0

#include "rq_vec_sse_common.h"

/* SRDHM(a, b); ao, bo hold the odd lanes in even positions. pmuldq gives the
 * exact signed products; +2^30 then bits 31..62 is the floor division by
 * 2^31. 0x80000000 only comes from INT32_MIN*INT32_MIN (see rq_vec_sse2.h). */
RQ_INLINE rqv rqv_srdhm(rqv a, rqv ao, rqv b, rqv bo, int sat)
{
    const __m128i nudge = _mm_set1_epi64x((int64_t)1 << 30);
    __m128i pe = _mm_add_epi64(_mm_mul_epi32(a, b), nudge);
    __m128i po = _mm_add_epi64(_mm_mul_epi32(ao, bo), nudge);
    __m128i q = _mm_blend_epi16(_mm_srli_epi64(pe, 31), _mm_slli_epi64(po, 1), 0xCC);
    return rq_srdhm_saturate_sse(q, sat);
}

RQ_INLINE rqv rqv_max0(rqv s) { return _mm_max_epi32(s, _mm_setzero_si128()); }
RQ_INLINE rqv rqv_shl(rqv a, rqv l) { return _mm_mullo_epi32(a, rq_pow2_sse2(l)); }
RQ_INLINE rqv rqv_abs(rqv q) { return _mm_abs_epi32(q); }
RQ_INLINE rqv rqv_setsign(rqv u, rqv q) { return _mm_sign_epi32(u, q); }
RQ_INLINE rqv rqv_min_i8(rqv a, rqv b) { return _mm_min_epi8(a, b); }
RQ_INLINE rqv rqv_max_i8(rqv a, rqv b) { return _mm_max_epi8(a, b); }

#endif
