/* The x86 kernels of two more requantization families, written once over the
 * tier's rqv_* helpers (rq_vec_<isa>.h, plus rq_rules_<isa>.h's few more) and
 * requant_x86_body.h's constants, flags and narrowing (rq_consts, rq_flags,
 * rq_store): the rule that turns the product into the result is a parameter
 * (RQR_*, a compile-time constant at every call), the loops and the stores
 * are the double-rounding kernels'. Bit for bit requant_families.h's
 *   rqf_ties_up (LiteRT's x86 kernels): q1 = floor((a' * m + 2^30) / 2^31)
 *     exactly, a' = a << l wrapping, then floor((q1 + 2^(r-1)) / 2^r) (ties
 *     toward +inf, no saturation); + offset wrapping; clamp.
 *   rqf_floor (ACL QUANTIZE_DOWN): ((a + offset) * m) >> s, wrapping, floor; clamp.
 * Include after requant_x86_body.h and the tier's rq_rules_<isa>.h. */
#ifndef SIMDOPS_REQUANT_X86_RULES_H
#define SIMDOPS_REQUANT_X86_RULES_H

/* The rules (beside rq_flags' RQ_F_* bits):
 * RQR_TIES_UP, right shift r >= 1, per tensor: the two roundings are one,
 *   floor((p + 2^30 + 2^(30+r)) / 2^(31+r)) with p = a' * m (nested floors of
 *   integer divisions: floor((floor(x / 2^31) + k) / 2^r) = floor((x + k 2^31)
 *   / 2^(31+r)) for integers x, k). For r >= 2 the 2^(30+r) is 2^(r-2) in the
 *   high word: q = (hi(p + 2^30) + 2^(r-2)) >> (r-1); for r = 1, q = hi(p + 2^30
 *   + 2^31). |p| <= 2^62 (INT32_MIN * INT32_MIN included, no special case), so
 *   p + 2^31 + 2^30 fits int64 and the high word plus 2^(r-2) fits int32.
 * RQR_TIES_UP0, r = 0: q1 itself; its one value outside int32, 2^31 (from
 *   INT32_MIN * INT32_MIN), wraps to INT32_MIN, as the offset's wrapping add
 *   would have it anyway: the SRDHM helper without its saturation.
 * RQR_TIES_UP_PC, per channel (r per lane): q1 as RQR_TIES_UP0, then
 *   floor((q1 + 2^(r-1)) / 2^r) by rqv_shift_ties_up (rq_rules_<isa>.h); a lane
 *   with q1 = INT32_MIN (2^31 wrapped) takes q1 >>> r, the logical shift, which
 *   is 2^(31-r) for r >= 1 and q1 itself for r = 0.
 * RQR_FLOOR / RQR_FLOOR_PC: pmulld's low word is the wrapping product; the
 *   arithmetic shift is the floor. The offset goes in before the multiply. */
enum {
    RQR_TIES_UP = 64,
    RQR_TIES_UP0 = 128,
    RQR_TIES_UP_PC = 256,
    RQR_FLOOR = 512,
    RQR_FLOOR_PC = 1024
};

typedef struct rqr_consts {
    rq_consts base;  /* mult, ls, rs, offset and the narrowing's bounds */
    rqv round64;     /* RQR_TIES_UP: 2^30 (+ 2^31 when r = 1), added to the products */
    rqv round_hi;    /* RQR_TIES_UP: 2^(r-2) for r >= 2, else 0 */
    rqv rs1;         /* RQR_TIES_UP: the count r - 1 */
} rqr_consts;

RQ_INLINE void rqr_consts_init(rqr_consts *c, const simdops_requant_params *p)
{
    const int r = p->right_shift;
    rq_consts_init(&c->base, p);
    c->round64 = rqv_set1_64(((int64_t)1 << 30) + (r == 1 ? (int64_t)1 << 31 : 0));
    c->round_hi = rqv_set1_32(r >= 2 ? (int32_t)1 << (r - 2) : 0);
    c->rs1 = rqv_count(r >= 1 ? r - 1 : 0);
}

/* One vector of the product a * m (after bias, and the wrapping left shift
 * under RQ_F_GENERAL) turned into the family's result, offset included unless
 * RQ_F_OFF16 adds it after the first pack. */
RQ_INLINE rqv rqr_vec(const int32_t *x, const int32_t *b, size_t k, const rqr_consts *c, int f)
{
    rqv a = rqv_load(x + k), ao, q;
    if (f & RQ_F_BIAS)
        a = rqv_add32(a, rqv_load(b + k));
    if (f & RQR_FLOOR)
        return rqv_sra_n(rqv_mullo(rqv_add32(a, c->base.offset), c->base.mult), c->base.rs);
    if (f & RQ_F_GENERAL)
        a = rqv_sll_n(a, c->base.ls);
    ao = (f & RQ_F_ODDLOAD) ? rqv_load(x + k + 1) : rqv_odd(a);
    if (f & RQR_TIES_UP)
        q = rqv_sra_n(rqv_add32(rqv_mulhi_add(a, ao, c->base.mult, c->base.mult, c->round64),
                                c->round_hi),
                      c->rs1);
    else
        q = rqv_srdhm(a, ao, c->base.mult, c->base.mult, 0); /* RQR_TIES_UP0 */
    return (f & RQ_F_OFF16) ? q : rqv_add32(q, c->base.offset);
}

/* One vector at x + j (+ bias) of channels k + j... Under RQ_F_DERIVED ch has
 * the driver's derived arrays (the double-rounding ones: left, right; then
 * RQ_F_GENERAL only when some channel shifts left or has INT32_MIN, the one
 * multiplier whose product can reach 2^31); else the shifts come from
 * ch->shift and RQ_F_GENERAL is always set. */
RQ_INLINE rqv rqr_pc_vec(const int32_t *x, const int32_t *b, size_t j,
                         const simdops_requant_channels *ch, size_t k, const rqr_consts *c,
                         int f)
{
    rqv a = rqv_load(x + j), m, mo, s, r, h, q, u;
    k += j;
    m = rqv_load(ch->mult + k);
    if (f & RQ_F_BIAS)
        a = rqv_add32(a, rqv_load(b + j));
    if (f & RQR_FLOOR_PC)
        return rqv_sra(rqv_mullo(rqv_add32(a, c->base.offset), m), rqv_load(ch->shift + k));
    if (f & RQ_F_DERIVED) {
        r = rqv_load(ch->right + k);
        h = rqv_load(ch->half + k);
        mo = RQV_USES_DERIVED ? rqv_load(ch->mult + k + 1) : rqv_odd(m); /* mult[n] is readable */
        if (f & RQ_F_GENERAL)
            a = rqv_shl(a, rqv_load(ch->left + k));
    } else {
        s = rqv_load(ch->shift + k);
        r = rqv_max0(s);
        h = rqv_half_of(r);
        mo = rqv_odd(m);
        a = rqv_shl(a, rqv_sub32(r, s)); /* left = max(-s, 0) = r - s */
    }
    q = rqv_srdhm(a, rqv_odd(a), m, mo, 0);
    u = rqv_shift_ties_up(q, h, r);
    if (f & RQ_F_GENERAL)
        u = rqv_sel_min(u, q, rqv_srl(q, r));
    return rqv_add32(u, c->base.offset);
}

RQ_INLINE void rqr_block(const int32_t *x, const int32_t *b, void *y, const rqr_consts *c,
                         int f, int out)
{
    rqv v0 = rqr_vec(x, b, 0, c, f), v1 = rqr_vec(x, b, RQV_LANES, c, f);
    rqv v2 = rqr_vec(x, b, 2 * RQV_LANES, c, f), v3 = rqr_vec(x, b, 3 * RQV_LANES, c, f);
    rq_store(y, v0, v1, v2, v3, &c->base, f, out);
}

RQ_INLINE void rqr_pc_block(const int32_t *x, const int32_t *b,
                            const simdops_requant_channels *ch, size_t k, void *y,
                            const rqr_consts *c, int f, int out)
{
    rqv v0 = rqr_pc_vec(x, b, 0, ch, k, c, f), v1 = rqr_pc_vec(x, b, RQV_LANES, ch, k, c, f);
    rqv v2 = rqr_pc_vec(x, b, 2 * RQV_LANES, ch, k, c, f);
    rqv v3 = rqr_pc_vec(x, b, 3 * RQV_LANES, ch, k, c, f);
    rq_store(y, v0, v1, v2, v3, &c->base, f, out);
}

/* Whole blocks of one flag variant (per channel when ch); returns the elements done. */
RQ_INLINE size_t rqr_loop(const int32_t *x, const int32_t *bias, unsigned char *y, size_t n,
                          const simdops_requant_channels *ch, const rqr_consts *c, int f,
                          int out)
{
    const size_t es = simdops_requant_out_size(out);
    size_t i = 0;
    for (; n - i >= (size_t)RQ_BLOCK + ((f & RQ_F_ODDLOAD) ? 1 : 0); i += RQ_BLOCK) {
        if (ch)
            rqr_pc_block(x + i, (f & RQ_F_BIAS) ? bias + i : NULL, ch, i, y + i * es, c, f, out);
        else
            rqr_block(x + i, (f & RQ_F_BIAS) ? bias + i : NULL, y + i * es, c, f, out);
    }
    return i;
}

/* The tail: the general block on zero-padded copies (every variant is exact,
 * so it computes what the body computes), per channel from ch->shift. */
RQ_INLINE void rqr_tail(const int32_t *x, const int32_t *bias, unsigned char *y, size_t i,
                        size_t n, const simdops_requant_channels *ch, const rqr_consts *c,
                        int rule, int out)
{
    const size_t es = simdops_requant_out_size(out);
    int32_t xt[RQ_BLOCK], bt[RQ_BLOCK], mt[RQ_BLOCK], st[RQ_BLOCK];
    int16_t yt[RQ_BLOCK]; /* room for the widest output */
    simdops_requant_channels tail;
    const size_t rest = (n - i) * sizeof(int32_t);
    memset(xt, 0, sizeof xt);
    memset(bt, 0, sizeof bt);
    memset(mt, 0, sizeof mt);
    memset(st, 0, sizeof st);
    memset(&tail, 0, sizeof tail);
    memcpy(xt, x + i, rest);
    if (bias)
        memcpy(bt, bias + i, rest);
    if (ch) {
        memcpy(mt, ch->mult + i, rest);
        memcpy(st, ch->shift + i, rest);
        tail.mult = mt;
        tail.shift = st;
        rqr_pc_block(xt, bt, &tail, 0, yt, c, RQ_F_BIAS | RQ_F_GENERAL | rule, out);
    } else {
        rqr_block(xt, bt, yt, c, RQ_F_BIAS | RQ_F_GENERAL | rule, out);
    }
    memcpy(y + i * es, yt, (n - i) * es);
}

/* Per tensor, rule RQR_TIES_UP (which picks its r = 0 form here) or RQR_FLOOR,
 * with rq_flags' variants: the double-rounding kernels' rules hold here
 * (RQ_F_OFF16 asks r >= 1, and then |q| <= 2^30 in the ties-up form too;
 * RQ_F_GENERAL: a left shift, or INT32_MIN), except that the floor rule adds its
 * offset first (no RQ_F_OFF16) and has no left shift. A block reads all its
 * input before storing, so y may alias x. */
RQ_INLINE void rqr_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                          const simdops_requant_params *p, int rule, int out, int32_t tlo,
                          int32_t thi)
{
    unsigned char *y = (unsigned char *)yv;
    const int noclamp = p->min == tlo && p->max == thi ? RQ_F_NOCLAMP : 0;
    rqr_consts c;
    size_t i = 0;
    if (rule == RQR_TIES_UP && p->right_shift == 0)
        rule = RQR_TIES_UP0;
    rqr_consts_init(&c, p);
    switch ((rule == RQR_FLOOR ? noclamp : rq_flags(p, tlo, thi)) | (bias ? RQ_F_BIAS : 0)) {
#define RQR_CASE(flags, odd)                                                           \
    case flags:                                                                        \
        if (rule == RQR_TIES_UP)                                                       \
            i = rqr_loop(x, bias, y, n, NULL, &c, (flags) | (odd) | RQR_TIES_UP, out); \
        else if (rule == RQR_TIES_UP0)                                                 \
            i = rqr_loop(x, bias, y, n, NULL, &c, (flags) | (odd) | RQR_TIES_UP0, out); \
        else                                                                           \
            i = rqr_loop(x, bias, y, n, NULL, &c, (flags) | RQR_FLOOR, out);           \
        break;
    RQR_CASE(RQ_F_GENERAL, 0)
    RQR_CASE(RQ_F_GENERAL | RQ_F_BIAS, 0)
    RQR_CASE(0, RQ_ODDLOAD)
    RQR_CASE(RQ_F_OFF16, RQ_ODDLOAD)
    RQR_CASE(RQ_F_NOCLAMP, RQ_ODDLOAD)
    RQR_CASE(RQ_F_OFF16 | RQ_F_NOCLAMP, RQ_ODDLOAD)
    RQR_CASE(RQ_F_BIAS, 0)
    RQR_CASE(RQ_F_BIAS | RQ_F_OFF16, 0)
    RQR_CASE(RQ_F_BIAS | RQ_F_NOCLAMP, 0)
    RQR_CASE(RQ_F_BIAS | RQ_F_OFF16 | RQ_F_NOCLAMP, 0)
#undef RQR_CASE
    }
    if (i < n)
        rqr_tail(x, bias, y, i, n, NULL, &c, rule, out);
}

/* A per-channel call of one flag variant in pieces of ch->period elements when
 * it is set (simdops_requant_stretch; the arrays and bias from their start in
 * each, as a call of the driver's per period): each piece's blocks, then its
 * tail. */
RQ_INLINE void rqr_pc_pieces(const int32_t *x, const int32_t *bias, unsigned char *y, size_t n,
                             const simdops_requant_channels *ch, const rqr_consts *c, int f,
                             int rule, int out)
{
    const size_t es = simdops_requant_out_size(out);
    for (size_t done = 0, m, i; done < n; done += m) {
        m = simdops_requant_stretch(ch, n - done);
        i = rqr_loop(x + done, bias, y + done * es, m, ch, c, f, out);
        if (i < m)
            rqr_tail(x + done, bias, y + done * es, i, m, ch, c, rule, out);
    }
}

/* Per channel, rule RQR_TIES_UP_PC or RQR_FLOOR_PC; the ties-up rule reads the
 * driver's derived arrays when ch has them (ch->half: see rqr_pc_vec); with
 * ch->period set the arrays and bias restart every period elements
 * (rqr_pc_pieces). */
RQ_INLINE void rqr_pc_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                             const simdops_requant_channels *ch,
                             const simdops_requant_params *p, int rule, int out, int32_t tlo,
                             int32_t thi)
{
    unsigned char *y = (unsigned char *)yv;
    int f = (p->min == tlo && p->max == thi ? RQ_F_NOCLAMP : 0) | (bias ? RQ_F_BIAS : 0);
    rqr_consts c;
    rqr_consts_init(&c, p);
    if (rule == RQR_TIES_UP_PC)
        f |= ch->half ? RQ_F_DERIVED | (ch->general ? RQ_F_GENERAL : 0) : RQ_F_GENERAL;
    switch (f) {
#define RQR_PC_CASE(flags)                                                             \
    case flags:                                                                        \
        if (rule == RQR_TIES_UP_PC)                                                    \
            rqr_pc_pieces(x, bias, y, n, ch, &c, (flags) | RQR_TIES_UP_PC, rule, out); \
        return;
#define RQR_PC_CASES(flags)                                                            \
    RQR_PC_CASE(flags)                                                                 \
    RQR_PC_CASE((flags) | RQ_F_BIAS)                                                   \
    RQR_PC_CASE((flags) | RQ_F_NOCLAMP)                                                \
    RQR_PC_CASE((flags) | RQ_F_BIAS | RQ_F_NOCLAMP)
    RQR_PC_CASES(RQ_F_GENERAL)
    RQR_PC_CASES(RQ_F_DERIVED)
    RQR_PC_CASES(RQ_F_DERIVED | RQ_F_GENERAL)
#undef RQR_PC_CASES
#undef RQR_PC_CASE
    case 0:
        rqr_pc_pieces(x, bias, y, n, ch, &c, RQR_FLOOR_PC, rule, out);
        return;
    case RQ_F_BIAS:
        rqr_pc_pieces(x, bias, y, n, ch, &c, RQ_F_BIAS | RQR_FLOOR_PC, rule, out);
        return;
    case RQ_F_NOCLAMP:
        rqr_pc_pieces(x, bias, y, n, ch, &c, RQ_F_NOCLAMP | RQR_FLOOR_PC, rule, out);
        return;
    case RQ_F_BIAS | RQ_F_NOCLAMP:
        rqr_pc_pieces(x, bias, y, n, ch, &c, RQ_F_BIAS | RQ_F_NOCLAMP | RQR_FLOOR_PC, rule, out);
        return;
    }
}

#endif
