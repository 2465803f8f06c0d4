/* requant kernels for SSE2 (docs/semantics.md): SRDHM from pmuludq with a sign fix-up;
 * per-channel shifts as multiplies by 2^k (SSE2 has no per-lane shifts). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#include "requant_x86.h"

#define RQ_BLOCK 16
#define RQ_ODDLOAD 0

typedef struct rq_consts {
    __m128i mult, ls, rs, mask, half, offset, off16, lo16, hi16, lo8, hi8;
} rq_consts;

RQ_INLINE void rq_consts_init(rq_consts *c, const simdops_requant_params *p)
{
    int32_t mask = (int32_t)(((int64_t)1 << p->right_shift) - 1);
    c->mult = _mm_set1_epi32(p->multiplier);
    c->ls = _mm_cvtsi32_si128(p->left_shift);
    c->rs = _mm_cvtsi32_si128(p->right_shift);
    c->mask = _mm_set1_epi32(mask);
    c->half = _mm_set1_epi32(mask >> 1);
    c->offset = _mm_set1_epi32(p->offset);
    c->off16 = _mm_set1_epi16((int16_t)p->offset); /* used only under RQ_F_OFF16 */
    /* bounds are inside the output type (uint8 bounds as byte patterns) */
    c->lo16 = _mm_set1_epi16((int16_t)p->min);
    c->hi16 = _mm_set1_epi16((int16_t)p->max);
    c->lo8 = _mm_set1_epi8((char)p->min);
    c->hi8 = _mm_set1_epi8((char)p->max);
}

RQ_INLINE __m128i rq_vec(__m128i a, const rq_consts *c, int f)
{
    __m128i q;
    if (f & RQ_F_GENERAL)
        a = _mm_sll_epi32(a, c->ls);
    q = rq_srdhm_sse2(a, c->mult, c->mult, f & RQ_F_GENERAL);
    q = rq_round_sse2(q, _mm_sra_epi32(q, c->rs), c->mask, c->half);
    return (f & RQ_F_OFF16) ? q : _mm_add_epi32(q, c->offset);
}

/* Per-lane shifts by multiplying: a << ls is a * 2^ls mod 2^32, and RDBPOT in
 * its sign(q) form shifts logically with rq_srlv_sse2 (abs/sign by xor). */
/* Per channel, deriving the shifts from ch->shift (see requant_sse41.c). */
RQ_INLINE __m128i rq_pc_vec(__m128i a, const simdops_requant_channels *ch, size_t k,
                            const rq_consts *c, int f)
{
    const __m128i zero = _mm_setzero_si128();
    __m128i m = RQ_LD(ch->mult, k), s = RQ_LD(ch->shift, k), q, sg, u;
    __m128i rs = _mm_and_si128(s, _mm_cmpgt_epi32(s, zero));
    __m128i half = _mm_srli_epi32(rq_pow2_sse2(rs), 1);
    if (f & RQ_F_GENERAL) {
        __m128i neg = _mm_sub_epi32(zero, s);
        a = rq_mullo_sse2(a, rq_pow2_sse2(_mm_and_si128(neg, _mm_cmpgt_epi32(neg, zero))));
    }
    q = rq_srdhm_sse2(a, m, _mm_srli_epi64(m, 32), f & RQ_F_GENERAL);
    sg = _mm_srai_epi32(q, 31);
    u = _mm_add_epi32(_mm_sub_epi32(_mm_xor_si128(q, sg), sg), half);
    u = rq_srlv_sse2(u, rq_pow2_sse2(_mm_sub_epi32(_mm_set1_epi32(31), rs)));
    q = _mm_sub_epi32(_mm_xor_si128(u, sg), sg);
    return (f & RQ_F_OFF16) ? q : _mm_add_epi32(q, c->offset);
}

/* int32 pair -> int16 with the offset (RQ_F_OFF16) and, for int8/int16, the clamp */
RQ_INLINE __m128i rq_pack16(__m128i v0, __m128i v1, const rq_consts *c, int f, int clamp)
{
    __m128i w = _mm_packs_epi32(v0, v1);
    if (f & RQ_F_OFF16)
        w = _mm_adds_epi16(w, c->off16);
    if (clamp && !(f & RQ_F_NOCLAMP))
        w = _mm_min_epi16(_mm_max_epi16(w, c->lo16), c->hi16);
    return w;
}

RQ_INLINE void rq_store_u8(uint8_t *y, __m128i v0, __m128i v1, __m128i v2, __m128i v3,
                           const rq_consts *c, int f)
{
    __m128i b = _mm_packus_epi16(rq_pack16(v0, v1, c, f, 0), rq_pack16(v2, v3, c, f, 0));
    if (!(f & RQ_F_NOCLAMP))
        b = _mm_min_epu8(_mm_max_epu8(b, c->lo8), c->hi8);
    _mm_storeu_si128((__m128i *)y, b);
}

RQ_INLINE void rq_store_i8(int8_t *y, __m128i v0, __m128i v1, __m128i v2, __m128i v3,
                           const rq_consts *c, int f)
{
    /* no pminsb before SSE4.1: clamp in int16, then packsswb cannot saturate */
    _mm_storeu_si128((__m128i *)y,
                     _mm_packs_epi16(rq_pack16(v0, v1, c, f, 1), rq_pack16(v2, v3, c, f, 1)));
}

RQ_INLINE void rq_store_i16(int16_t *y, __m128i v0, __m128i v1, __m128i v2, __m128i v3,
                            const rq_consts *c, int f)
{
    _mm_storeu_si128((__m128i *)y, rq_pack16(v0, v1, c, f, 1));
    _mm_storeu_si128((__m128i *)(y + 8), rq_pack16(v2, v3, c, f, 1));
}

RQ_SSE_BLOCKS(uint8_t, u8)
RQ_SSE_BLOCKS(int8_t, i8)
RQ_SSE_BLOCKS(int16_t, i16)
#include "requant_x86_skeleton.h"
RQ_X86_TIER(sse2)

#else
SIMDOPS_TIER_NOT_COMPILED(requant, sse2)
#endif
