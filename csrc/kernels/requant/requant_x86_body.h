/* The x86 requant kernels (gemmlowp's double rounding, docs/semantics.md)
 * written once: SRDHM, RDBPOT, the offset and the narrowing of one vector,
 * over the tier's rqv_* helpers (rq_vec_<isa>.h: rqv, RQV_LANES and the ops
 * whose instructions differ), re-included by each requant_<isa>.c. Blocks are
 * four vectors (RQ_BLOCK elements); requant_x86_skeleton.h runs them over the
 * row. Include inside the tier's SIMDOPS_COMPILE_<ISA> block, after its
 * rq_vec_<isa>.h and with SIMDOPS_TIER defined. */
#ifndef SIMDOPS_REQUANT_X86_BODY_H
#define SIMDOPS_REQUANT_X86_BODY_H

#include <string.h>

#include "requant_x86.h"

#define RQ_BLOCK (4 * RQV_LANES)

/* Per-tensor constants. ls, rs: the shifts as the tier's uniform shift count
 * (rqv_count); half = 2^rs >> 1, RDBPOT's term in its sign form; mask =
 * 2^rs - 1 and mask_half = mask >> 1 in its remainder form (RQV_RDBPOT_BY_MASK). Bounds are inside the output type (uint8 bounds as byte
 * patterns); off16 is used only under RQ_F_OFF16. */
typedef struct rq_consts {
    rqv mult, ls, rs, half, offset, off16, lo16, hi16, lo8, hi8;
#if RQV_RDBPOT_BY_MASK
    rqv mask, mask_half;
#endif
} rq_consts;

RQ_INLINE void rq_consts_init(rq_consts *c, const simdops_requant_params *p)
{
    c->mult = rqv_set1_32(p->multiplier);
    c->ls = rqv_count(p->left_shift);
    c->rs = rqv_count(p->right_shift);
    c->half = rqv_set1_32((int32_t)(((int64_t)1 << p->right_shift) >> 1));
#if RQV_RDBPOT_BY_MASK
    c->mask = rqv_set1_32((int32_t)(((int64_t)1 << p->right_shift) - 1));
    c->mask_half = rqv_set1_32((int32_t)((((int64_t)1 << p->right_shift) - 1) >> 1));
#endif
    c->offset = rqv_set1_32(p->offset);
    c->off16 = rqv_set1_16((int16_t)p->offset);
    c->lo16 = rqv_set1_16((int16_t)p->min);
    c->hi16 = rqv_set1_16((int16_t)p->max);
    c->lo8 = rqv_set1_8((char)p->min);
    c->hi8 = rqv_set1_8((char)p->max);
}

/* One vector at x + k (+ bias). Under RQ_F_ODDLOAD the odd lanes come from a
 * load one element on, which saves a shift. */
RQ_INLINE rqv rq_vec(const int32_t *x, const int32_t *b, size_t k, const rq_consts *c, int f)
{
    rqv a = rqv_load(x + k), ao, q;
    if (f & RQ_F_BIAS)
        a = rqv_add32(a, rqv_load(b + k));
    if (f & RQ_F_GENERAL)
        a = rqv_sll_n(a, c->ls);
    ao = (f & RQ_F_ODDLOAD) ? rqv_load(x + k + 1) : rqv_odd(a);
    q = rqv_srdhm(a, ao, c->mult, c->mult, f & RQ_F_GENERAL);
#if RQV_RDBPOT_BY_MASK
    q = rqv_rdbpot_by_mask(q, c->rs, c->mask, c->mask_half);
#else
    /* RDBPOT (round half away from zero) is odd-symmetric, so RDBPOT(q, e) =
     * sign(q) * ((|q| + half) >>> e); SRDHM never returns INT32_MIN, so
     * |q| + half < 2^32 and the logical shift is exact. */
    q = rqv_setsign(rqv_srl_n(rqv_add32(rqv_abs(q), c->half), c->rs), q);
#endif
    return (f & RQ_F_OFF16) ? q : rqv_add32(q, c->offset);
}

/* One vector at x + j (+ bias) of channels k + j... Under RQ_F_DERIVED (on a
 * tier that uses them) ch's derived arrays, built once per call, make this the
 * per-tensor arithmetic plus loads, the multiplier's odd lanes coming from a
 * load one element on (ch->mult[n] is readable); else the shifts are derived
 * from ch->shift: right = max(s, 0), left = right - s = max(-s, 0). */
RQ_INLINE rqv rq_pc_vec(const int32_t *x, const int32_t *b, size_t j,
                        const simdops_requant_channels *ch, size_t k, const rq_consts *c, int f)
{
    rqv a = rqv_load(x + j), m, mo, rs, half, q, u;
    k += j;
    m = rqv_load(ch->mult + k);
    if (f & RQ_F_BIAS)
        a = rqv_add32(a, rqv_load(b + j));
    if (RQV_USES_DERIVED && (f & RQ_F_DERIVED)) {
        mo = rqv_load(ch->mult + k + 1);
        rs = rqv_load(ch->right + k);
        half = rqv_load(ch->half + k);
        if (f & RQ_F_GENERAL)
            a = rqv_shl(a, rqv_load(ch->left + k));
    } else {
        rqv s = rqv_load(ch->shift + k);
        mo = rqv_odd(m);
        rs = rqv_max0(s);
        half = rqv_half_of(rs);
        if (f & RQ_F_GENERAL)
            a = rqv_shl(a, rqv_sub32(rs, s));
    }
    q = rqv_srdhm(a, rqv_odd(a), m, mo, f & RQ_F_GENERAL);
    u = rqv_setsign(rqv_srl(rqv_add32(rqv_abs(q), half), rs), q); /* RDBPOT's sign form */
    return (f & RQ_F_OFF16) ? u : rqv_add32(u, c->offset);
}

/* Narrowing. The kernels pack with saturation and clamp in the narrow type:
 * saturating to [-32768, 32767] (then to [0, 255] or [-128, 127]) is a clamp
 * to a range containing [min, max], so clamp(sat(r)) == clamp(r); when
 * [min, max] is the whole output range the packs alone are the clamp
 * (RQ_F_NOCLAMP). RQ_F_OFF16 adds the offset after the first pack (see
 * rq_flags). */
RQ_INLINE rqv rq_pack16(rqv v0, rqv v1, const rq_consts *c, int f)
{
    rqv w = rqv_packs32(v0, v1);
    return (f & RQ_F_OFF16) ? rqv_adds16(w, c->off16) : w;
}

RQ_INLINE rqv rq_clamp16(rqv w, const rq_consts *c, int f)
{
    return (f & RQ_F_NOCLAMP) ? w : rqv_min_i16(rqv_max_i16(w, c->lo16), c->hi16);
}

/* the four vectors of a block stored as the output type */
RQ_INLINE void rq_store(void *y, rqv v0, rqv v1, rqv v2, rqv v3, const rq_consts *c, int f,
                        int out)
{
    rqv b;
    if (out == SIMDOPS_RQ_I16) {
        rqv_store(y, rq_clamp16(rqv_unlane16(rq_pack16(v0, v1, c, f)), c, f));
        rqv_store((int16_t *)y + 2 * RQV_LANES,
                  rq_clamp16(rqv_unlane16(rq_pack16(v2, v3, c, f)), c, f));
        return;
    }
    if (out == SIMDOPS_RQ_U8) {
        b = rqv_packus16(rq_pack16(v0, v1, c, f), rq_pack16(v2, v3, c, f));
        if (!(f & RQ_F_NOCLAMP))
            b = rqv_min_u8(rqv_max_u8(b, c->lo8), c->hi8);
    } else {
#if RQV_HAS_MINMAX_I8
        b = rqv_packs16(rq_pack16(v0, v1, c, f), rq_pack16(v2, v3, c, f));
        if (!(f & RQ_F_NOCLAMP))
            b = rqv_min_i8(rqv_max_i8(b, c->lo8), c->hi8);
#else
        /* no signed byte min/max: clamp in int16, then packsswb cannot saturate */
        b = rqv_packs16(rq_clamp16(rq_pack16(v0, v1, c, f), c, f),
                        rq_clamp16(rq_pack16(v2, v3, c, f), c, f));
#endif
    }
    rqv_store(y, rqv_unlane8(b));
}

/* RQ_BLOCK elements; reads all its input before storing, so y may alias x */
RQ_INLINE void rq_block(const int32_t *x, const int32_t *b, void *y, const rq_consts *c, int f,
                        int out)
{
    rqv v0 = rq_vec(x, b, 0, c, f), v1 = rq_vec(x, b, RQV_LANES, c, f);
    rqv v2 = rq_vec(x, b, 2 * RQV_LANES, c, f), v3 = rq_vec(x, b, 3 * RQV_LANES, c, f);
    rq_store(y, v0, v1, v2, v3, c, f, out);
}

/* RQ_BLOCK elements of channels k.. */
RQ_INLINE void rq_pc_block(const int32_t *x, const int32_t *b,
                           const simdops_requant_channels *ch, size_t k, void *y,
                           const rq_consts *c, int f, int out)
{
    rqv v0 = rq_pc_vec(x, b, 0, ch, k, c, f), v1 = rq_pc_vec(x, b, RQV_LANES, ch, k, c, f);
    rqv v2 = rq_pc_vec(x, b, 2 * RQV_LANES, ch, k, c, f);
    rqv v3 = rq_pc_vec(x, b, 3 * RQV_LANES, ch, k, c, f);
    rq_store(y, v0, v1, v2, v3, c, f, out);
}

#include "requant_x86_skeleton.h"

#endif
