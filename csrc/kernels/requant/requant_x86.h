/* Shared pieces of the x86 requant kernels (requant_{sse2,sse41,avx2}.c):
 * SSE2-level helpers for per-lane shifts and the loop skeleton that
 * instantiates the uint8/int8/int16 kernels. Include only inside a
 * SIMDOPS_COMPILE_<ISA> block. */
#ifndef SIMDOPS_REQUANT_X86_H
#define SIMDOPS_REQUANT_X86_H

#include <emmintrin.h>
#include <stdint.h>
#include <string.h>

#include "kernels/registry.h"

#if defined(_MSC_VER)
#define RQ_INLINE static __forceinline
#else
#define RQ_INLINE static inline __attribute__((always_inline))
#endif

/* Bits 31..62 of the 64-bit lanes of pe (products of lanes 0, 2) and po
 * (lanes 1, 3), i.e. floor(p / 2^31) mod 2^32, back in lane order. */
RQ_INLINE __m128i rq_hi31_sse2(__m128i pe, __m128i po)
{
    __m128 t = _mm_shuffle_ps(_mm_castsi128_ps(_mm_srli_epi64(pe, 31)),
                              _mm_castsi128_ps(_mm_srli_epi64(po, 31)), _MM_SHUFFLE(2, 0, 2, 0));
    return _mm_shuffle_epi32(_mm_castps_si128(t), _MM_SHUFFLE(3, 1, 2, 0));
}

/* SRDHM(a, b) with SSE2's unsigned 32x32->64 multiply. bo holds b's odd lanes
 * in the even positions. The signed product is the unsigned one minus
 * 2^32 * ((a<0 ? b : 0) + (b<0 ? a : 0)) mod 2^64, so its floor(./2^31) is the
 * unsigned one's minus twice that sum, mod 2^32. The true result lies in
 * [-2^31+1, 2^31]; bits 0x80000000 therefore only come from the one overflow
 * INT32_MIN*INT32_MIN (2^31 wrapped) and become INT32_MAX (add -1). */
RQ_INLINE __m128i rq_srdhm_sse2(__m128i a, __m128i b, __m128i bo, int sat)
{
    const __m128i nudge = _mm_set1_epi64x((int64_t)1 << 30);
    __m128i pe = _mm_add_epi64(_mm_mul_epu32(a, b), nudge);
    __m128i po = _mm_add_epi64(_mm_mul_epu32(_mm_srli_epi64(a, 32), bo), nudge);
    __m128i q = rq_hi31_sse2(pe, po);
    __m128i fix = _mm_add_epi32(_mm_and_si128(_mm_srai_epi32(a, 31), b),
                                _mm_and_si128(_mm_srai_epi32(b, 31), a));
    q = _mm_sub_epi32(q, _mm_add_epi32(fix, fix));
    return sat ? _mm_add_epi32(q, _mm_cmpeq_epi32(q, _mm_set1_epi32(INT32_MIN))) : q;
}

/* 2^k per lane for k in [0, 31], as uint32 bits: the float 2^k truncated;
 * 2^31 is out of int32 range and cvttps gives 0x80000000, which is 2^31. */
RQ_INLINE __m128i rq_pow2_sse2(__m128i k)
{
    __m128i e = _mm_slli_epi32(_mm_add_epi32(k, _mm_set1_epi32(127)), 23);
    return _mm_cvttps_epi32(_mm_castsi128_ps(e));
}

/* Low 32 bits of a * b per lane (SSE2 has no pmulld). */
RQ_INLINE __m128i rq_mullo_sse2(__m128i a, __m128i b)
{
    __m128i e = _mm_mul_epu32(a, b);
    __m128i o = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(e, _MM_SHUFFLE(0, 0, 2, 0)),
                              _mm_shuffle_epi32(o, _MM_SHUFFLE(0, 0, 2, 0)));
}

/* u >> s per lane (logical), s in [0, 31], given m = 2^(31-s) (uint32 bits):
 * floor(u * m / 2^31), exact since u * m < 2^63. */
RQ_INLINE __m128i rq_srlv_sse2(__m128i u, __m128i m)
{
    __m128i pe = _mm_mul_epu32(u, m);
    __m128i po = _mm_mul_epu32(_mm_srli_epi64(u, 32), _mm_srli_epi64(m, 32));
    return rq_hi31_sse2(pe, po);
}

/* RDBPOT (round half away from zero) is odd-symmetric, so
 * RDBPOT(q, e) = sign(q) * ((|q| + half) >>> e) with half = 2^e >> 1; SRDHM
 * never returns INT32_MIN, so |q| + half < 2^32 and the logical shift is
 * exact. The SSE4.1/AVX2 kernels use this with pabsd/psignd; SSE2's
 * per-tensor kernel uses the scalar formula: */

/* RDBPOT's tail: (q >> e) + ((q & mask) > (mask >> 1) + (q < 0)), given
 * sh = q >> e, mask = 2^e - 1 and half = mask >> 1. rem is in [0, 2^31 - 1]
 * and thr in [0, 2^30], so the signed compare is exact. */
RQ_INLINE __m128i rq_round_sse2(__m128i q, __m128i sh, __m128i mask, __m128i half)
{
    __m128i rem = _mm_and_si128(q, mask);
    __m128i thr = _mm_sub_epi32(half, _mm_srai_epi32(q, 31));
    return _mm_sub_epi32(sh, _mm_cmpgt_epi32(rem, thr));
}

/* Narrowing. The kernels pack with saturation and clamp in the narrow type:
 * saturating to [-32768, 32767] (then to [0, 255] or [-128, 127]) is a clamp
 * to a range containing [min, max], so clamp(sat(r)) == clamp(r); when
 * [min, max] is the whole output range the packs alone are the clamp
 * (RQ_F_NOCLAMP).
 * RQ_F_OFF16 adds the offset after the first pack, with a saturating int16
 * add: valid when right_shift >= 1 (then |RDBPOT| <= 2^30, so q + offset
 * needs no wrap) and max - 32767 <= offset <= min + 32768: an s above 32767
 * then gives sat16(32767 + offset) >= max, as s + offset does, and
 * symmetrically below -32768; inside int16 nothing saturates before the
 * clamp. */

/* Variant flags, compile-time constants inside the kernels: RQ_F_BIAS adds
 * bias; RQ_F_GENERAL handles left_shift != 0 and multiplier == INT32_MIN (the
 * only case where SRDHM saturates); without it those steps are skipped, which
 * is exact when rq_general(p) is 0 (per channel: ch->general is 0).
 * RQ_F_ODDLOAD (no-bias fast path) lets a block read one element past its
 * end; a file without that trick defines RQ_ODDLOAD as 0. */
enum {
    RQ_F_BIAS = 1,
    RQ_F_GENERAL = 2,
    RQ_F_ODDLOAD = 4,
    RQ_F_OFF16 = 8,
    RQ_F_NOCLAMP = 16,
    RQ_F_DERIVED = 32 /* per channel: ch has its derived arrays (a tier may ignore them) */
};

static inline int rq_general(const simdops_requant_params *p)
{
    return p->left_shift != 0 || p->multiplier == INT32_MIN;
}

static inline int rq_flags(const simdops_requant_params *p, int32_t tlo, int32_t thi)
{
    int f = 0;
    if (rq_general(p))
        return RQ_F_GENERAL;
    if (p->right_shift >= 1 && p->offset >= -32768 && p->offset <= 32767 &&
        p->offset >= p->max - 32767 && p->offset <= p->min + 32768)
        f |= RQ_F_OFF16;
    if (p->min == tlo && p->max == thi)
        f |= RQ_F_NOCLAMP;
    return f;
}

/* 16-element blocks for the 128-bit tiers, from the file's rq_vec(a, c, f),
 * rq_pc_vec(a, ch, k, c, f) (int32 results) and
 * rq_store_<tag>(y, v0, v1, v2, v3, c, f). */
#define RQ_LD(p, k) _mm_loadu_si128((const __m128i *)((p) + (k)))
RQ_INLINE __m128i rq_load_sse2(const int32_t *x, const int32_t *bias, size_t k, int f)
{
    return (f & RQ_F_BIAS) ? _mm_add_epi32(RQ_LD(x, k), RQ_LD(bias, k)) : RQ_LD(x, k);
}
#define RQ_SSE_BLOCKS(T, tag)                                                          \
    RQ_INLINE void rq_block_##tag(const int32_t *x, const int32_t *b, T *y,            \
                                  const rq_consts *c, int f)                           \
    {                                                                                  \
        __m128i v0 = rq_vec(rq_load_sse2(x, b, 0, f), c, f);                           \
        __m128i v1 = rq_vec(rq_load_sse2(x, b, 4, f), c, f);                           \
        __m128i v2 = rq_vec(rq_load_sse2(x, b, 8, f), c, f);                           \
        __m128i v3 = rq_vec(rq_load_sse2(x, b, 12, f), c, f);                          \
        rq_store_##tag(y, v0, v1, v2, v3, c, f);                                       \
    }                                                                                  \
    RQ_INLINE void rq_pc_block_##tag(const int32_t *x, const int32_t *b,               \
                                     const simdops_requant_channels *ch, size_t k,     \
                                     T *y, const rq_consts *c, int f)                  \
    {                                                                                  \
        __m128i v0 = rq_pc_vec(rq_load_sse2(x, b, 0, f), ch, k, c, f);                 \
        __m128i v1 = rq_pc_vec(rq_load_sse2(x, b, 4, f), ch, k + 4, c, f);             \
        __m128i v2 = rq_pc_vec(rq_load_sse2(x, b, 8, f), ch, k + 8, c, f);             \
        __m128i v3 = rq_pc_vec(rq_load_sse2(x, b, 12, f), ch, k + 12, c, f);           \
        rq_store_##tag(y, v0, v1, v2, v3, c, f);                                       \
    }

/* The kernel skeleton (rq_kernel, rq_pc_kernel) is in requant_x86_skeleton.h,
 * included after the file's block functions. */

#endif
