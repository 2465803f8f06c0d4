/* The requant vector helpers (requant_x86_body.h's rqv_*) for SSE2: 4 int32
 * lanes; no signed 32x32->64 multiply, per-lane shift, pmulld or byte
 * min/max, so those are built from pmuludq and 2^k multiplies. */
#ifndef SIMDOPS_RQ_VEC_SSE2_H
#define SIMDOPS_RQ_VEC_SSE2_H

#include <emmintrin.h>

#include "requant_x86.h"

#define RQV_HAS_MINMAX_I8 0
#define RQV_RDBPOT_BY_MASK 1

#include "rq_vec_sse_common.h"

/* SRDHM(a, b) with SSE2's unsigned 32x32->64 multiply; ao, bo hold a's and b's
 * odd lanes in the even positions. The signed product is the unsigned one
 * minus 2^32 * ((a<0 ? b : 0) + (b<0 ? a : 0)) mod 2^64, so its floor(./2^31)
 * is the unsigned one's minus twice that sum, mod 2^32. The true result lies
 * in [-2^31+1, 2^31]; bits 0x80000000 therefore only come from the one
 * overflow INT32_MIN*INT32_MIN (2^31 wrapped) and become INT32_MAX (add -1). */
RQ_INLINE rqv rqv_srdhm(rqv a, rqv ao, rqv b, rqv bo, int sat)
{
    const __m128i nudge = _mm_set1_epi64x((int64_t)1 << 30);
    __m128i pe = _mm_add_epi64(_mm_mul_epu32(a, b), nudge);
    __m128i po = _mm_add_epi64(_mm_mul_epu32(ao, bo), nudge);
    __m128i q = rq_hi31_sse2(pe, po);
    __m128i fix = _mm_add_epi32(_mm_and_si128(_mm_srai_epi32(a, 31), b),
                                _mm_and_si128(_mm_srai_epi32(b, 31), a));
    q = _mm_sub_epi32(q, _mm_add_epi32(fix, fix));
    return rq_srdhm_saturate_sse(q, sat);
}

RQ_INLINE rqv rqv_max0(rqv s) { return _mm_and_si128(s, _mm_cmpgt_epi32(s, _mm_setzero_si128())); }

/* low 32 bits of a * b per lane (SSE2 has no pmulld) */
RQ_INLINE rqv rqv_shl(rqv a, rqv l)
{
    __m128i b = rq_pow2_sse2(l);
    __m128i e = _mm_mul_epu32(a, b);
    __m128i o = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(e, _MM_SHUFFLE(0, 0, 2, 0)),
                              _mm_shuffle_epi32(o, _MM_SHUFFLE(0, 0, 2, 0)));
}

/* |q| and sign(q) * u by xor with q's sign (no pabsd/psignd) */
RQ_INLINE rqv rqv_abs(rqv q) { return _mm_sub_epi32(_mm_xor_si128(q, _mm_srai_epi32(q, 31)), _mm_srai_epi32(q, 31)); }
RQ_INLINE rqv rqv_setsign(rqv u, rqv q) { return _mm_sub_epi32(_mm_xor_si128(u, _mm_srai_epi32(q, 31)), _mm_srai_epi32(q, 31)); }

/* RDBPOT by the per-tensor shift in its remainder form, one op shorter here
 * than the sign form without pabsd/psignd: (q >> e) + ((q & mask) > mask_half
 * + (q < 0)), mask = 2^e - 1, mask_half = mask >> 1. rem is in [0, 2^31 - 1]
 * and thr in [0, 2^30], so the signed compare is exact. */
RQ_INLINE rqv rqv_rdbpot_by_mask(rqv q, rqv rs, rqv mask, rqv mask_half)
{
    __m128i rem = _mm_and_si128(q, mask);
    __m128i thr = _mm_sub_epi32(mask_half, _mm_srai_epi32(q, 31));
    return _mm_sub_epi32(_mm_sra_epi32(q, rs), _mm_cmpgt_epi32(rem, thr));
}

#endif
