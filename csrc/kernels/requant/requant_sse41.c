/* requant kernels for SSE4.1 (docs/semantics.md): SRDHM from the signed pmuldq, RDBPOT
 * with pabsd/psignd, pmulld for per-channel left shifts, pminsb/pmaxsb. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE41
#include <smmintrin.h>

#include "requant_x86.h"

#define RQ_BLOCK 16
#define RQ_ODDLOAD 0

typedef struct rq_consts {
    __m128i mult, ls, rs, half, offset, off16, lo16, hi16, lo8, hi8;
} rq_consts;

RQ_INLINE void rq_consts_init(rq_consts *c, const simdops_requant_params *p)
{
    c->mult = _mm_set1_epi32(p->multiplier);
    c->ls = _mm_cvtsi32_si128(p->left_shift);
    c->rs = _mm_cvtsi32_si128(p->right_shift);
    c->half = _mm_set1_epi32((int32_t)(((int64_t)1 << p->right_shift) >> 1));
    c->offset = _mm_set1_epi32(p->offset);
    c->off16 = _mm_set1_epi16((int16_t)p->offset); /* used only under RQ_F_OFF16 */
    /* bounds are inside the output type (uint8 bounds as byte patterns) */
    c->lo16 = _mm_set1_epi16((int16_t)p->min);
    c->hi16 = _mm_set1_epi16((int16_t)p->max);
    c->lo8 = _mm_set1_epi8((char)p->min);
    c->hi8 = _mm_set1_epi8((char)p->max);
}

/* SRDHM(a, b), bo = b's odd lanes in even positions. pmuldq gives the exact
 * signed products; +2^30 then bits 31..62 is the floor division by 2^31.
 * 0x80000000 only comes from INT32_MIN*INT32_MIN (see rq_srdhm_sse2). */
RQ_INLINE __m128i rq_srdhm_sse41(__m128i a, __m128i b, __m128i bo, int sat)
{
    const __m128i nudge = _mm_set1_epi64x((int64_t)1 << 30);
    __m128i pe = _mm_add_epi64(_mm_mul_epi32(a, b), nudge);
    __m128i po = _mm_add_epi64(_mm_mul_epi32(_mm_srli_epi64(a, 32), bo), nudge);
    __m128i q = _mm_blend_epi16(_mm_srli_epi64(pe, 31), _mm_slli_epi64(po, 1), 0xCC);
    return sat ? _mm_add_epi32(q, _mm_cmpeq_epi32(q, _mm_set1_epi32(INT32_MIN))) : q;
}

/* RDBPOT as sign(q) * ((|q| + half) >>> e), see requant_x86.h. */
RQ_INLINE __m128i rq_vec(__m128i a, const rq_consts *c, int f)
{
    __m128i q, u;
    if (f & RQ_F_GENERAL)
        a = _mm_sll_epi32(a, c->ls);
    q = rq_srdhm_sse41(a, c->mult, c->mult, f & RQ_F_GENERAL);
    u = _mm_sign_epi32(_mm_srl_epi32(_mm_add_epi32(_mm_abs_epi32(q), c->half), c->rs), q);
    return (f & RQ_F_OFF16) ? u : _mm_add_epi32(u, c->offset);
}

/* Per lane: a << ls as pmulld by 2^ls; RDBPOT's logical shift by rs as
 * rq_srlv_sse2 (a multiply by 2^(31-rs)). */
/* Per channel, deriving the shifts from ch->shift (this tier ignores the
 * derived arrays: pow2 for the variable shifts costs more than loading). */
RQ_INLINE __m128i rq_pc_vec(__m128i a, const simdops_requant_channels *ch, size_t k,
                            const rq_consts *c, int f)
{
    const __m128i zero = _mm_setzero_si128();
    __m128i m = RQ_LD(ch->mult, k), s = RQ_LD(ch->shift, k), q, u;
    __m128i rs = _mm_max_epi32(s, zero);
    __m128i half = _mm_srli_epi32(rq_pow2_sse2(rs), 1);
    if (f & RQ_F_GENERAL)
        a = _mm_mullo_epi32(a, rq_pow2_sse2(_mm_max_epi32(_mm_sub_epi32(zero, s), zero)));
    q = rq_srdhm_sse41(a, m, _mm_srli_epi64(m, 32), f & RQ_F_GENERAL);
    u = _mm_add_epi32(_mm_abs_epi32(q), half);
    u = rq_srlv_sse2(u, rq_pow2_sse2(_mm_sub_epi32(_mm_set1_epi32(31), rs)));
    u = _mm_sign_epi32(u, q);
    return (f & RQ_F_OFF16) ? u : _mm_add_epi32(u, c->offset);
}

RQ_INLINE __m128i rq_pack16(__m128i v0, __m128i v1, const rq_consts *c, int f)
{
    __m128i w = _mm_packs_epi32(v0, v1);
    return (f & RQ_F_OFF16) ? _mm_adds_epi16(w, c->off16) : w;
}

RQ_INLINE void rq_store_u8(uint8_t *y, __m128i v0, __m128i v1, __m128i v2, __m128i v3,
                           const rq_consts *c, int f)
{
    __m128i b = _mm_packus_epi16(rq_pack16(v0, v1, c, f), rq_pack16(v2, v3, c, f));
    if (!(f & RQ_F_NOCLAMP))
        b = _mm_min_epu8(_mm_max_epu8(b, c->lo8), c->hi8);
    _mm_storeu_si128((__m128i *)y, b);
}

RQ_INLINE void rq_store_i8(int8_t *y, __m128i v0, __m128i v1, __m128i v2, __m128i v3,
                           const rq_consts *c, int f)
{
    __m128i b = _mm_packs_epi16(rq_pack16(v0, v1, c, f), rq_pack16(v2, v3, c, f));
    if (!(f & RQ_F_NOCLAMP))
        b = _mm_min_epi8(_mm_max_epi8(b, c->lo8), c->hi8);
    _mm_storeu_si128((__m128i *)y, b);
}

RQ_INLINE void rq_store_i16(int16_t *y, __m128i v0, __m128i v1, __m128i v2, __m128i v3,
                            const rq_consts *c, int f)
{
    __m128i w0 = rq_pack16(v0, v1, c, f), w1 = rq_pack16(v2, v3, c, f);
    if (!(f & RQ_F_NOCLAMP)) {
        w0 = _mm_min_epi16(_mm_max_epi16(w0, c->lo16), c->hi16);
        w1 = _mm_min_epi16(_mm_max_epi16(w1, c->lo16), c->hi16);
    }
    _mm_storeu_si128((__m128i *)y, w0);
    _mm_storeu_si128((__m128i *)(y + 8), w1);
}

RQ_SSE_BLOCKS(uint8_t, u8)
RQ_SSE_BLOCKS(int8_t, i8)
RQ_SSE_BLOCKS(int16_t, i16)
#include "requant_x86_skeleton.h"
RQ_X86_TIER(sse41)

#else
SIMDOPS_TIER_NOT_COMPILED(requant, sse41)
#endif
