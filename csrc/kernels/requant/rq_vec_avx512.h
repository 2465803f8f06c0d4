/* The requant vector helpers (requant_x86_body.h's rqv_*) for AVX-512
 * (F+BW+VL+DQ): 16 int32 lanes; as rq_vec_avx2.h, but with no vpsignd the
 * sign goes on by a masked negate, and SRDHM saturates by a masked subtract.
 * One vpermd/vpermq per store puts the per-128-bit-lane packs in order. */
#ifndef SIMDOPS_RQ_VEC_AVX512_H
#define SIMDOPS_RQ_VEC_AVX512_H

#include <immintrin.h>

#include "requant_x86.h"

typedef __m512i rqv;
#define RQV_LANES 16
#define RQ_ODDLOAD RQ_F_ODDLOAD
#define RQV_USES_DERIVED 1
#define RQV_HAS_MINMAX_I8 1
#define RQV_RDBPOT_BY_MASK 0

RQ_INLINE rqv rqv_load(const int32_t *p) { return _mm512_loadu_si512((const void *)p); }
RQ_INLINE void rqv_store(void *p, rqv v) { _mm512_storeu_si512(p, v); }
RQ_INLINE rqv rqv_set1_32(int32_t v) { return _mm512_set1_epi32(v); }
RQ_INLINE rqv rqv_set1_16(int16_t v) { return _mm512_set1_epi16(v); }
RQ_INLINE rqv rqv_set1_8(char v) { return _mm512_set1_epi8(v); }
RQ_INLINE rqv rqv_count(int32_t k) { return _mm512_set1_epi32(k); }
RQ_INLINE rqv rqv_add32(rqv a, rqv b) { return _mm512_add_epi32(a, b); }
RQ_INLINE rqv rqv_sub32(rqv a, rqv b) { return _mm512_sub_epi32(a, b); }
RQ_INLINE rqv rqv_odd(rqv a) { return _mm512_srli_epi64(a, 32); }
RQ_INLINE rqv rqv_sll_n(rqv a, rqv count) { return _mm512_sllv_epi32(a, count); }
RQ_INLINE rqv rqv_srl_n(rqv a, rqv count) { return _mm512_srlv_epi32(a, count); }
RQ_INLINE rqv rqv_shl(rqv a, rqv l) { return _mm512_sllv_epi32(a, l); }
RQ_INLINE rqv rqv_srl(rqv u, rqv s) { return _mm512_srlv_epi32(u, s); }
RQ_INLINE rqv rqv_max0(rqv s) { return _mm512_max_epi32(s, _mm512_setzero_si512()); }
RQ_INLINE rqv rqv_half_of(rqv k)
{
    return _mm512_srli_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), k), 1);
}
RQ_INLINE rqv rqv_abs(rqv q) { return _mm512_abs_epi32(q); }
/* u >= 0; q == 0 leaves u, which RDBPOT makes 0 already (half < 2^rs) */
RQ_INLINE rqv rqv_setsign(rqv u, rqv q)
{
    return _mm512_mask_sub_epi32(u, _mm512_movepi32_mask(q), _mm512_setzero_si512(), u);
}

/* SRDHM(a, b) as rq_vec_avx2.h's: exact vpmuldq products, +2^30, bits 31..62;
 * 0x80000000 only from INT32_MIN*INT32_MIN, which saturates to INT32_MAX. */
RQ_INLINE rqv rqv_srdhm(rqv a, rqv ao, rqv b, rqv bo, int sat)
{
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, b), nudge);
    __m512i po = _mm512_add_epi64(_mm512_mul_epi32(ao, bo), nudge);
    __m512i q = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 31),
                                        _mm512_slli_epi64(po, 1));
    if (sat)
        q = _mm512_mask_sub_epi32(q, _mm512_cmpeq_epi32_mask(q, _mm512_set1_epi32(INT32_MIN)), q,
                                  _mm512_set1_epi32(1));
    return q;
}

RQ_INLINE rqv rqv_packs32(rqv a, rqv b) { return _mm512_packs_epi32(a, b); }
RQ_INLINE rqv rqv_packs16(rqv a, rqv b) { return _mm512_packs_epi16(a, b); }
RQ_INLINE rqv rqv_packus16(rqv a, rqv b) { return _mm512_packus_epi16(a, b); }
RQ_INLINE rqv rqv_adds16(rqv a, rqv b) { return _mm512_adds_epi16(a, b); }
RQ_INLINE rqv rqv_min_i16(rqv a, rqv b) { return _mm512_min_epi16(a, b); }
RQ_INLINE rqv rqv_max_i16(rqv a, rqv b) { return _mm512_max_epi16(a, b); }
RQ_INLINE rqv rqv_min_u8(rqv a, rqv b) { return _mm512_min_epu8(a, b); }
RQ_INLINE rqv rqv_max_u8(rqv a, rqv b) { return _mm512_max_epu8(a, b); }
RQ_INLINE rqv rqv_min_i8(rqv a, rqv b) { return _mm512_min_epi8(a, b); }
RQ_INLINE rqv rqv_max_i8(rqv a, rqv b) { return _mm512_max_epi8(a, b); }

/* dword 4l + j of a byte pack of four vectors holds outputs 4l..4l+3 of v[j] */
RQ_INLINE rqv rqv_unlane8(rqv b)
{
    return _mm512_permutexvar_epi32(
        _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), b);
}

/* qword 2l of a 16-bit pack is v0's lane l, qword 2l + 1 v1's */
RQ_INLINE rqv rqv_unlane16(rqv w)
{
    return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), w);
}

#endif
