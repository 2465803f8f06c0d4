/* Kernel skeleton of the x86 requant tiers, as static inline functions over
 * the output kind (SIMDOPS_RQ_U8/I8/I16, a compile-time constant at every
 * call, so each kernel is specialised as a macro instance would be).
 *
 * Included by requant_x86_body.h after RQ_BLOCK (elements per block),
 * RQ_ODDLOAD, rq_consts, rq_consts_init(c, p), rq_block(x, bias, y, c, f, out)
 * and rq_pc_block(x, bias, ch, k, y, c, f, out) handling RQ_BLOCK elements
 * (the per-channel block reads element j's parameters from ch's arrays at
 * k + j). One loop is instantiated per flag
 * variant. The tail runs the general block on zero-padded copies; every
 * variant is exact, so it computes what the body computes. A block reads all
 * its input before storing, so y may alias x. */
#ifndef SIMDOPS_REQUANT_X86_SKELETON_H
#define SIMDOPS_REQUANT_X86_SKELETON_H

/* Whole blocks of one flag variant; returns the elements done. */
RQ_INLINE size_t rq_loop(const int32_t *x, const int32_t *bias, unsigned char *y, size_t n,
                         const rq_consts *c, int f, int out)
{
    size_t i = 0;
    for (; n - i >= (size_t)RQ_BLOCK + ((f & RQ_F_ODDLOAD) ? 1 : 0); i += RQ_BLOCK)
        rq_block(x + i, (f & RQ_F_BIAS) ? bias + i : NULL, y + i * simdops_requant_out_size(out), c, f, out);
    return i;
}

RQ_INLINE void rq_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                         const simdops_requant_params *p, int out, int32_t tlo, int32_t thi)
{
    unsigned char *y = (unsigned char *)yv;
    const size_t es = simdops_requant_out_size(out);
    rq_consts c;
    size_t i = 0;
    rq_consts_init(&c, p);
    switch (rq_flags(p, tlo, thi) | (bias ? RQ_F_BIAS : 0)) {
    case RQ_F_GENERAL:
        i = rq_loop(x, NULL, y, n, &c, RQ_F_GENERAL, out);
        break;
    case RQ_F_GENERAL | RQ_F_BIAS:
        i = rq_loop(x, bias, y, n, &c, RQ_F_GENERAL | RQ_F_BIAS, out);
        break;
    case 0:
        i = rq_loop(x, NULL, y, n, &c, RQ_ODDLOAD, out);
        break;
    case RQ_F_OFF16:
        i = rq_loop(x, NULL, y, n, &c, RQ_ODDLOAD | RQ_F_OFF16, out);
        break;
    case RQ_F_NOCLAMP:
        i = rq_loop(x, NULL, y, n, &c, RQ_ODDLOAD | RQ_F_NOCLAMP, out);
        break;
    case RQ_F_OFF16 | RQ_F_NOCLAMP:
        i = rq_loop(x, NULL, y, n, &c, RQ_ODDLOAD | RQ_F_OFF16 | RQ_F_NOCLAMP, out);
        break;
    case RQ_F_BIAS:
        i = rq_loop(x, bias, y, n, &c, RQ_F_BIAS, out);
        break;
    case RQ_F_BIAS | RQ_F_OFF16:
        i = rq_loop(x, bias, y, n, &c, RQ_F_BIAS | RQ_F_OFF16, out);
        break;
    case RQ_F_BIAS | RQ_F_NOCLAMP:
        i = rq_loop(x, bias, y, n, &c, RQ_F_BIAS | RQ_F_NOCLAMP, out);
        break;
    case RQ_F_BIAS | RQ_F_OFF16 | RQ_F_NOCLAMP:
        i = rq_loop(x, bias, y, n, &c, RQ_F_BIAS | RQ_F_OFF16 | RQ_F_NOCLAMP, out);
        break;
    }
    if (i < n) {
        int32_t xt[RQ_BLOCK], bt[RQ_BLOCK];
        int16_t yt[RQ_BLOCK]; /* room for the widest output */
        memset(xt, 0, sizeof xt);
        memset(bt, 0, sizeof bt);
        memcpy(xt, x + i, (n - i) * sizeof(int32_t));
        if (bias)
            memcpy(bt, bias + i, (n - i) * sizeof(int32_t));
        rq_block(xt, bt, yt, &c, RQ_F_BIAS | RQ_F_GENERAL, out);
        memcpy(y + i * es, yt, (n - i) * es);
    }
}

/* Whole per-channel blocks of one flag variant; returns the elements done. */
RQ_INLINE size_t rq_pc_loop(const int32_t *x, const int32_t *bias, unsigned char *y, size_t n,
                            const simdops_requant_channels *ch, const rq_consts *c, int f,
                            int out)
{
    size_t i = 0;
    for (; n - i >= (size_t)RQ_BLOCK; i += RQ_BLOCK)
        rq_pc_block(x + i, (f & RQ_F_BIAS) ? bias + i : NULL, ch, i, y + i * simdops_requant_out_size(out), c,
                    f, out);
    return i;
}

/* rq_flags for derived per-channel parameters: rq_flags' rules applied to
 * the channels' worst case (GENERAL when any channel needs it; RQ_F_OFF16
 * only when every right shift is >= 1). */
static inline int rq_pc_flags(const simdops_requant_channels *ch,
                              const simdops_requant_params *p, int32_t tlo, int32_t thi)
{
    simdops_requant_params q = *p;
    q.multiplier = ch->general ? INT32_MIN : 1;
    q.right_shift = ch->min_right;
    q.left_shift = 0;
    return rq_flags(&q, tlo, thi) | RQ_F_DERIVED;
}

RQ_INLINE void rq_pc_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                            const simdops_requant_channels *ch,
                            const simdops_requant_params *p, int out, int32_t tlo, int32_t thi)
{
    unsigned char *y = (unsigned char *)yv;
    const size_t es = simdops_requant_out_size(out);
    const int f = (ch->half ? rq_pc_flags(ch, p, tlo, thi) : RQ_F_GENERAL) |
                  (bias ? RQ_F_BIAS : 0);
    rq_consts c;
    size_t i = 0;
    rq_consts_init(&c, p);
    switch (f) {
#define RQ_PC_CASE(flags)                                                              \
    case flags:                                                                        \
        i = rq_pc_loop(x, bias, y, n, ch, &c, flags, out);                             \
        break;
    RQ_PC_CASE(RQ_F_GENERAL)
    RQ_PC_CASE(RQ_F_GENERAL | RQ_F_BIAS)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_GENERAL)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_GENERAL | RQ_F_BIAS)
    RQ_PC_CASE(RQ_F_DERIVED)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_OFF16)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_NOCLAMP)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_OFF16 | RQ_F_NOCLAMP)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_BIAS)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_BIAS | RQ_F_OFF16)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_BIAS | RQ_F_NOCLAMP)
    RQ_PC_CASE(RQ_F_DERIVED | RQ_F_BIAS | RQ_F_OFF16 | RQ_F_NOCLAMP)
#undef RQ_PC_CASE
    }
    if (i < n) {
        /* zero-padded copies, through the general block deriving from shift */
        int32_t xt[RQ_BLOCK], bt[RQ_BLOCK], mt[RQ_BLOCK], st[RQ_BLOCK];
        int16_t yt[RQ_BLOCK];
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
        memcpy(mt, ch->mult + i, rest);
        memcpy(st, ch->shift + i, rest);
        tail.mult = mt;
        tail.shift = st;
        rq_pc_block(xt, bt, &tail, 0, yt, &c, RQ_F_BIAS | RQ_F_GENERAL, out);
        memcpy(y + i * es, yt, (n - i) * es);
    }
}

#endif
