/* Kernel skeleton of the x86 requant tiers, as static inline functions over
 * the output kind (SIMDOPS_RQ_U8/I8/I16, a compile-time constant at every
 * call, so each kernel is specialised as a macro instance would be).
 *
 * Include after requant_x86.h and after the file's RQ_BLOCK (elements per
 * block), RQ_ODDLOAD, rq_consts, rq_consts_init(c, p) and, per output tag,
 * rq_block_<tag>(x, bias, y, c, f) and rq_pc_block_<tag>(x, bias, mult, shift,
 * y, c, f) handling RQ_BLOCK elements. One loop is instantiated per flag
 * variant. The tail runs the general block on zero-padded copies; every
 * variant is exact, so it computes what the body computes. A block reads all
 * its input before storing, so y may alias x. */
#ifndef SIMDOPS_REQUANT_X86_SKELETON_H
#define SIMDOPS_REQUANT_X86_SKELETON_H

RQ_INLINE size_t rq_out_size(int out)
{
    return out == SIMDOPS_RQ_I16 ? 2 : 1;
}

RQ_INLINE void rq_block(const int32_t *x, const int32_t *b, void *y, const rq_consts *c, int f,
                        int out)
{
    switch (out) {
    case SIMDOPS_RQ_U8: rq_block_u8(x, b, (uint8_t *)y, c, f); break;
    case SIMDOPS_RQ_I8: rq_block_i8(x, b, (int8_t *)y, c, f); break;
    default: rq_block_i16(x, b, (int16_t *)y, c, f); break;
    }
}

RQ_INLINE void rq_pc_block(const int32_t *x, const int32_t *b, const int32_t *m,
                           const int32_t *s, void *y, const rq_consts *c, int f, int out)
{
    switch (out) {
    case SIMDOPS_RQ_U8: rq_pc_block_u8(x, b, m, s, (uint8_t *)y, c, f); break;
    case SIMDOPS_RQ_I8: rq_pc_block_i8(x, b, m, s, (int8_t *)y, c, f); break;
    default: rq_pc_block_i16(x, b, m, s, (int16_t *)y, c, f); break;
    }
}

/* Whole blocks of one flag variant; returns the elements done. */
RQ_INLINE size_t rq_loop(const int32_t *x, const int32_t *bias, unsigned char *y, size_t n,
                         const rq_consts *c, int f, int out)
{
    size_t i = 0;
    for (; n - i >= (size_t)RQ_BLOCK + ((f & RQ_F_ODDLOAD) ? 1 : 0); i += RQ_BLOCK)
        rq_block(x + i, (f & RQ_F_BIAS) ? bias + i : NULL, y + i * rq_out_size(out), c, f, out);
    return i;
}

RQ_INLINE void rq_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                         const simdops_requant_params *p, int out, int32_t tlo, int32_t thi)
{
    unsigned char *y = (unsigned char *)yv;
    const size_t es = rq_out_size(out);
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

RQ_INLINE void rq_pc_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                            const int32_t *mult, const int32_t *shift,
                            const simdops_requant_params *p, int out)
{
    unsigned char *y = (unsigned char *)yv;
    const size_t es = rq_out_size(out);
    rq_consts c;
    size_t i = 0;
    rq_consts_init(&c, p);
    if (bias) {
        for (; n - i >= RQ_BLOCK; i += RQ_BLOCK)
            rq_pc_block(x + i, bias + i, mult + i, shift + i, y + i * es, &c, RQ_F_BIAS, out);
    } else {
        for (; n - i >= RQ_BLOCK; i += RQ_BLOCK)
            rq_pc_block(x + i, NULL, mult + i, shift + i, y + i * es, &c, 0, out);
    }
    if (i < n) {
        int32_t xt[RQ_BLOCK], bt[RQ_BLOCK], mt[RQ_BLOCK], st[RQ_BLOCK];
        int16_t yt[RQ_BLOCK];
        memset(xt, 0, sizeof xt);
        memset(bt, 0, sizeof bt);
        memset(mt, 0, sizeof mt);
        memset(st, 0, sizeof st);
        memcpy(xt, x + i, (n - i) * sizeof(int32_t));
        if (bias)
            memcpy(bt, bias + i, (n - i) * sizeof(int32_t));
        memcpy(mt, mult + i, (n - i) * sizeof(int32_t));
        memcpy(st, shift + i, (n - i) * sizeof(int32_t));
        rq_pc_block(xt, bt, mt, st, yt, &c, RQ_F_BIAS, out);
        memcpy(y + i * es, yt, (n - i) * es);
    }
}

/* The six table entries and the register function of one tier: one-line
 * wrappers, so the kernels above stay functions. */
#define RQ_X86_ENTRY(name, pc_name, out, tlo, thi)                                     \
    static void name(const int32_t *x, void *y, size_t n, const int32_t *bias,         \
                     const simdops_requant_params *p)                                  \
    {                                                                                  \
        rq_kernel(x, y, n, bias, p, out, tlo, thi);                                    \
    }                                                                                  \
    static void pc_name(const int32_t *x, void *y, size_t n, const int32_t *bias,      \
                        const int32_t *mult, const int32_t *shift,                     \
                        const simdops_requant_params *p)                               \
    {                                                                                  \
        rq_pc_kernel(x, y, n, bias, mult, shift, p, out);                              \
    }

#define RQ_X86_TIER(isa)                                                               \
    RQ_X86_ENTRY(i32_u8_requant__##isa, i32_u8_requant_pc__##isa, SIMDOPS_RQ_U8, 0, 255) \
    RQ_X86_ENTRY(i32_i8_requant__##isa, i32_i8_requant_pc__##isa, SIMDOPS_RQ_I8, -128, 127) \
    RQ_X86_ENTRY(i32_i16_requant__##isa, i32_i16_requant_pc__##isa, SIMDOPS_RQ_I16,      \
                 -32768, 32767)                                                        \
    int requant_register__##isa(simdops_kernel_table *t)                               \
    {                                                                                  \
        t->requant[SIMDOPS_RQ_U8] = i32_u8_requant__##isa;                             \
        t->requant[SIMDOPS_RQ_I8] = i32_i8_requant__##isa;                             \
        t->requant[SIMDOPS_RQ_I16] = i32_i16_requant__##isa;                           \
        t->requant_pc[SIMDOPS_RQ_U8] = i32_u8_requant_pc__##isa;                       \
        t->requant_pc[SIMDOPS_RQ_I8] = i32_i8_requant_pc__##isa;                       \
        t->requant_pc[SIMDOPS_RQ_I16] = i32_i16_requant_pc__##isa;                     \
        return 1;                                                                      \
    }

#endif
