/* The requant vector helpers (requant_x86_body.h's rqv_*) for AVX2: 8 int32
 * lanes, vpmuldq, vpsllvd/vpsrlvd, vpabsd/vpsignd. Packs work per 128-bit
 * lane; one cross-lane permute per store puts the elements back in order. */
#ifndef SIMDOPS_RQ_VEC_AVX2_H
#define SIMDOPS_RQ_VEC_AVX2_H

#include <immintrin.h>

#include "requant_x86.h"

typedef __m256i rqv;
#define RQV_LANES 8
#define RQ_ODDLOAD RQ_F_ODDLOAD
#define RQV_USES_DERIVED 1
#define RQV_HAS_MINMAX_I8 1
#define RQV_RDBPOT_BY_MASK 0

RQ_INLINE rqv rqv_load(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
RQ_INLINE void rqv_store(void *p, rqv v) { _mm256_storeu_si256((__m256i *)p, v); }
RQ_INLINE rqv rqv_set1_32(int32_t v) { return _mm256_set1_epi32(v); }
RQ_INLINE rqv rqv_set1_16(int16_t v) { return _mm256_set1_epi16(v); }
RQ_INLINE rqv rqv_set1_8(char v) { return _mm256_set1_epi8(v); }
/* the per-tensor shift counts in every lane: vpsllvd/vpsrlvd are one uop, a count in xmm two */
RQ_INLINE rqv rqv_count(int32_t k) { return _mm256_set1_epi32(k); }
RQ_INLINE rqv rqv_add32(rqv a, rqv b) { return _mm256_add_epi32(a, b); }
RQ_INLINE rqv rqv_sub32(rqv a, rqv b) { return _mm256_sub_epi32(a, b); }
RQ_INLINE rqv rqv_odd(rqv a) { return _mm256_srli_epi64(a, 32); }
RQ_INLINE rqv rqv_sll_n(rqv a, rqv count) { return _mm256_sllv_epi32(a, count); }
RQ_INLINE rqv rqv_srl_n(rqv a, rqv count) { return _mm256_srlv_epi32(a, count); }
RQ_INLINE rqv rqv_shl(rqv a, rqv l) { return _mm256_sllv_epi32(a, l); }
RQ_INLINE rqv rqv_srl(rqv u, rqv s) { return _mm256_srlv_epi32(u, s); }
RQ_INLINE rqv rqv_max0(rqv s) { return _mm256_max_epi32(s, _mm256_setzero_si256()); }
RQ_INLINE rqv rqv_half_of(rqv k)
{
    return _mm256_srli_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), k), 1);
}
RQ_INLINE rqv rqv_abs(rqv q) { return _mm256_abs_epi32(q); }
RQ_INLINE rqv rqv_setsign(rqv u, rqv q) { return _mm256_sign_epi32(u, q); }

/* SRDHM(a, b); ao, bo hold the odd lanes of a, b in even positions. vpmuldq
 * gives the exact signed products; +2^30 then bits 31..62 is the floor
 * division by 2^31. 0x80000000 only comes from INT32_MIN*INT32_MIN (see
 * rq_vec_sse2.h). */
RQ_INLINE rqv rqv_srdhm(rqv a, rqv ao, rqv b, rqv bo, int sat)
{
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(a, b), nudge);
    __m256i po = _mm256_add_epi64(_mm256_mul_epi32(ao, bo), nudge);
    __m256i q = _mm256_blend_epi32(_mm256_srli_epi64(pe, 31), _mm256_slli_epi64(po, 1), 0xAA);
    return sat ? _mm256_add_epi32(q, _mm256_cmpeq_epi32(q, _mm256_set1_epi32(INT32_MIN))) : q;
}

RQ_INLINE rqv rqv_packs32(rqv a, rqv b) { return _mm256_packs_epi32(a, b); }
RQ_INLINE rqv rqv_packs16(rqv a, rqv b) { return _mm256_packs_epi16(a, b); }
RQ_INLINE rqv rqv_packus16(rqv a, rqv b) { return _mm256_packus_epi16(a, b); }
RQ_INLINE rqv rqv_adds16(rqv a, rqv b) { return _mm256_adds_epi16(a, b); }
RQ_INLINE rqv rqv_min_i16(rqv a, rqv b) { return _mm256_min_epi16(a, b); }
RQ_INLINE rqv rqv_max_i16(rqv a, rqv b) { return _mm256_max_epi16(a, b); }
RQ_INLINE rqv rqv_min_u8(rqv a, rqv b) { return _mm256_min_epu8(a, b); }
RQ_INLINE rqv rqv_max_u8(rqv a, rqv b) { return _mm256_max_epu8(a, b); }
RQ_INLINE rqv rqv_min_i8(rqv a, rqv b) { return _mm256_min_epi8(a, b); }
RQ_INLINE rqv rqv_max_i8(rqv a, rqv b) { return _mm256_max_epi8(a, b); }

/* dword j of a byte pack of four vectors holds 4 outputs of v[j % 4], half j / 4 */
RQ_INLINE rqv rqv_unlane8(rqv b)
{
    return _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* qwords of a 16-bit pack come as v0.lo, v1.lo, v0.hi, v1.hi */
RQ_INLINE rqv rqv_unlane16(rqv w) { return _mm256_permute4x64_epi64(w, _MM_SHUFFLE(3, 1, 2, 0)); }

#endif
