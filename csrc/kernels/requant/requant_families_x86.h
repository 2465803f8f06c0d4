/* Single rounding (ties up) and single rounding with ties away from zero, per
 * tensor and per channel, written once over the x86 tier's rqv_* helpers
 * (rq_vec_<isa>.h) and requant_x86_body.h's narrowing (rq_consts, rq_store);
 * re-included by requant_families_<tier>.c. Bit for bit requant_families.h's
 * rqf_single / rqf_single_away.
 *
 * The arithmetic is on magnitudes, with s = sign(a * m) (from a ^ m):
 *   away:     q = s * floor((|a m| + 2^(t-1)) / 2^t)
 *   ties up:  q = s * floor((|a m| + 2^(t-1) - [s < 0]) / 2^t)
 * (for p < 0, floor((p + 2^(t-1)) / 2^t) = -floor((|p| + 2^(t-1) - 1) / 2^t);
 * a zero product with s < 0 gives floor((2^(t-1) - 1) / 2^t) = 0 as it should).
 * |a| |m| is pmuludq's unsigned product of |a| and |m| (|INT32_MIN| = 2^31 as
 * uint32), so SSE2 needs no signed multiply. A total shift t < 32 (per channel
 * t < 33) is raised by |m| << k when that fits uint32: the quotient is the same
 * (floor((X 2^k - c) / 2^(t+k)) = floor((X - c) / 2^t) for integers X, c in
 * {0, 1}); then |quotient| < 2^31. With t = 32 + u the quotient is
 * floor((hi + 2^(u-1)) / 2^u), hi the high word of |a m| - c (+ 2^31 when u = 0,
 * per tensor only), as uint32; the last shift is logical.
 * The offset is added after the first pack with a saturating int16 add (rq_store
 * under RQ_F_OFF16: exact for any int32 q when max - 32767 <= offset <= min +
 * 32768, see rq_flags); parameters outside that, or a multiplier that cannot be
 * raised, run the scalar arithmetic. Tails run it too. */
#ifndef SIMDOPS_REQUANT_FAMILIES_X86_H
#define SIMDOPS_REQUANT_FAMILIES_X86_H

#include "requant_families.h"

/* ------------------------------------------------------------------ the few ops rqv lacks
 * (the same instructions at both widths, but for the high words' gather) */
#if RQV_LANES == 16
#define RQFX_(op) _mm512_##op
#define RQFX_XOR _mm512_xor_si512
RQ_INLINE rqv rqfx_hi32(rqv pe, rqv po)
{
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
}
RQ_INLINE int rqfx_all_eq(rqv a, rqv b) { return _mm512_cmpeq_epi32_mask(a, b) == 0xFFFF; }
#define RQFX_SHUFFLE(s, imm) _mm512_shuffle_epi32(s, (_MM_PERM_ENUM)(imm))
#define RQFX_SET1_64 _mm512_set1_epi64
#elif RQV_LANES == 8
#define RQFX_(op) _mm256_##op
#define RQFX_XOR _mm256_xor_si256
#define RQFX_ALL_BYTES (-1)
#define RQFX_SHUFFLE(s, imm) _mm256_shuffle_epi32(s, imm)
#define RQFX_SET1_64 _mm256_set1_epi64x
/* the high words of the 64-bit lanes of pe (lanes 0, 2, ..) and po (1, 3, ..) */
RQ_INLINE rqv rqfx_hi32(rqv pe, rqv po)
{
    return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}
#else
#define RQFX_(op) _mm_##op
#define RQFX_XOR _mm_xor_si128
#define RQFX_ALL_BYTES 0xFFFF
#define RQFX_SHUFFLE(s, imm) _mm_shuffle_epi32(s, imm)
#define RQFX_SET1_64 _mm_set1_epi64x
RQ_INLINE rqv rqfx_hi32(rqv pe, rqv po)
{
    __m128 t = _mm_shuffle_ps(_mm_castsi128_ps(pe), _mm_castsi128_ps(po), _MM_SHUFFLE(3, 1, 3, 1));
    return _mm_shuffle_epi32(_mm_castps_si128(t), _MM_SHUFFLE(3, 1, 2, 0));
}
#endif
RQ_INLINE rqv rqfx_xor(rqv a, rqv b) { return RQFX_XOR(a, b); }
RQ_INLINE rqv rqfx_sign(rqv a) { return RQFX_(srai_epi32)(a, 31); }
RQ_INLINE rqv rqfx_mulu(rqv a, rqv b) { return RQFX_(mul_epu32)(a, b); }
RQ_INLINE rqv rqfx_add64(rqv a, rqv b) { return RQFX_(add_epi64)(a, b); }
RQ_INLINE rqv rqfx_set1_64(int64_t v) { return RQFX_SET1_64(v); }
/* lane 2j's (even) or 2j+1's (odd) 32-bit mask as a 64-bit one */
RQ_INLINE rqv rqfx_even64(rqv s) { return RQFX_SHUFFLE(s, _MM_SHUFFLE(2, 2, 0, 0)); }
RQ_INLINE rqv rqfx_odd64(rqv s) { return RQFX_SHUFFLE(s, _MM_SHUFFLE(3, 3, 1, 1)); }
#if RQV_LANES != 16
RQ_INLINE int rqfx_all_eq(rqv a, rqv b)
{
    return RQFX_(movemask_epi8)(RQFX_(cmpeq_epi32)(a, b)) == RQFX_ALL_BYTES;
}
#endif

/* ------------------------------------------------------------------ the rule */
/* flags beside rq_flags' RQ_F_* (compile-time constants at every call) */
enum {
    RQFX_AWAY = 64,     /* ties away from zero (else ties up) */
    RQFX_ROUND31 = 128, /* per tensor, u = 0: 2^31 added to the products */
    RQFX_PC = 256,      /* per channel: u per lane */
    RQFX_DERIVED = 512  /* per channel: the driver's normalised arrays (ch->right = u >= 1) */
};

/* One vector: a (bias added) with multiplier sign msign (its sign bit is m's),
 * magnitude mag (normalised) and its odd lanes in even positions mago; u the
 * count (per tensor rqv_count(u), per channel a vector), half = 2^(u-1) or 0. */
RQ_INLINE rqv rqfx_vec(rqv a, rqv msign, rqv mag, rqv mago, rqv round31, rqv half, rqv u, int f)
{
    rqv s = rqfx_sign(rqfx_xor(a, msign)), aa = rqv_abs(a), q;
    rqv pe = rqfx_mulu(aa, mag), po = rqfx_mulu(rqv_odd(aa), mago);
    if (!(f & RQFX_AWAY)) {
        pe = rqfx_add64(pe, rqfx_even64(s));
        po = rqfx_add64(po, rqfx_odd64(s));
    }
    if (f & RQFX_ROUND31) {
        pe = rqfx_add64(pe, round31);
        po = rqfx_add64(po, round31);
    }
    q = rqv_add32(rqfx_hi32(pe, po), half);
    q = (f & RQFX_PC) ? rqv_srl(q, u) : rqv_srl_n(q, u);
    return rqv_sub32(rqfx_xor(q, s), s);
}

typedef struct rqfx_consts {
    rq_consts base; /* the offset and the bounds of rq_store's narrowing */
    rqv msign, mag, round31, half, u;
} rqfx_consts;

/* The output type's range: [min, max] equal to it needs no clamp after the packs. */
static inline int rqfx_noclamp(const simdops_requant_params *p, int out)
{
    int32_t tlo = out == SIMDOPS_RQ_U8 ? 0 : (out == SIMDOPS_RQ_I8 ? -128 : -32768);
    int32_t thi = out == SIMDOPS_RQ_U8 ? 255 : (out == SIMDOPS_RQ_I8 ? 127 : 32767);
    return p->min == tlo && p->max == thi;
}

/* The flags of a call, or -1 where the offset does not fit RQ_F_OFF16's rule. */
static inline int rqfx_flags(const simdops_requant_params *p, int out)
{
    if (p->offset < -32768 || p->offset > 32767 || p->offset < p->max - 32767 ||
        p->offset > p->min + 32768)
        return -1;
    return RQ_F_OFF16 | (rqfx_noclamp(p, out) ? RQ_F_NOCLAMP : 0);
}

/* Per tensor: -1 when |m| cannot be raised to a total shift of 32 within uint32;
 * else the flag the total shift asks (RQFX_ROUND31 at 32, or 0). */
static inline int rqfx_consts_init(rqfx_consts *c, const simdops_requant_params *p)
{
    const int32_t m = p->multiplier;
    int t = 31 + p->right_shift - p->left_shift, u;
    int64_t mag = m < 0 ? -(int64_t)m : m;
    if (t < 32) {
        mag <<= 32 - t; /* t >= 1: at most 2^62 */
        t = 32;
    }
    if (mag > (int64_t)UINT32_MAX)
        return -1;
    u = t - 32;
    rq_consts_init(&c->base, p);
    c->msign = rqv_set1_32(m);
    c->mag = rqv_set1_32((int32_t)(uint32_t)mag);
    /* 0 when u > 0: rqfx_exact adds it whatever u is */
    c->round31 = rqfx_set1_64(u == 0 ? (int64_t)1 << 31 : 0);
    c->half = rqv_set1_32(u ? (int32_t)1 << (u - 1) : 0);
    c->u = rqv_count(u);
    return u == 0 ? RQFX_ROUND31 : 0;
}

RQ_INLINE rqv rqfx_load(const int32_t *x, const int32_t *b, size_t k, int f)
{
    rqv a = rqv_load(x + k);
    return (f & RQ_F_BIAS) ? rqv_add32(a, rqv_load(b + k)) : a;
}

/* One vector at k: per tensor from c; per channel (RQFX_PC) from ch's arrays,
 * 0 when a lane's multiplier cannot be raised to a total shift of 33 (the block
 * then runs the scalar arithmetic). */
RQ_INLINE int rqfx_vec_at(const int32_t *x, const int32_t *b, size_t k,
                          const simdops_requant_channels *ch, const rqfx_consts *c, int f,
                          rqv *res)
{
    rqv m, mag, u;
    if (!(f & RQFX_PC)) {
        *res = rqfx_vec(rqfx_load(x, b, k, f), c->msign, c->mag, c->mag, c->round31, c->half,
                        c->u, f);
        return 1;
    }
    m = rqv_load(ch->mult + k);
    mag = rqv_abs(m);
    if (f & RQFX_DERIVED) {
        u = rqv_load(ch->right + k);
    } else {
        rqv t = rqv_add32(rqv_load(ch->shift + k), rqv_set1_32(31));
        rqv up = rqv_max0(rqv_sub32(rqv_set1_32(33), t)); /* in [0, 32] */
        rqv raised = rqv_shl(mag, up);
        if (!rqfx_all_eq(rqv_srl(raised, up), mag))
            return 0;
        mag = raised;
        u = rqv_sub32(rqv_add32(t, up), rqv_set1_32(32));
    }
    *res = rqfx_vec(rqfx_load(x, b, k, f), m, mag, rqv_odd(mag), mag, rqv_half_of(u), u, f);
    return 1;
}

/* A vector the float32 fast path flagged (rq_fast_x86.h's rqf_exact): the rule
 * for the vector at x + j, channels k + j.. (pc: the driver's derived arrays),
 * with the offset added in int32: the path runs only for t >= 32, where |q| <=
 * 2^30 + 1 and |offset| <= 65536, so the add does not wrap. */
RQ_INLINE rqv rqfx_exact(const int32_t *x, const int32_t *b, size_t j,
                         const simdops_requant_channels *ch, size_t k, const rqfx_consts *c,
                         int f, int away, int pc)
{
    rqv q;
    f = (f & RQ_F_BIAS) | (away ? RQFX_AWAY : 0) | (pc ? RQFX_PC | RQFX_DERIVED : RQFX_ROUND31);
    /* rqfx_vec_at indexes x and ch alike: x and b moved back by k */
    rqfx_vec_at(x - k, (f & RQ_F_BIAS) ? b - k : NULL, k + j, ch, c, f, &q);
    return rqv_add32(q, c->base.offset);
}

/* Whole blocks of one flag variant; returns the elements done. */
RQ_INLINE size_t rqfx_loop(const int32_t *x, const int32_t *bias, unsigned char *y, size_t n,
                           const simdops_requant_channels *ch, const simdops_requant_params *p,
                           const rqfx_consts *c, int f, int out)
{
    const size_t es = simdops_requant_out_size(out);
    const int32_t *b = (f & RQ_F_BIAS) ? bias : NULL;
    size_t i = 0;
    for (; n - i >= (size_t)RQ_BLOCK; i += RQ_BLOCK) {
        rqv v0, v1, v2, v3;
        if (rqfx_vec_at(x, b, i, ch, c, f, &v0) &&
            rqfx_vec_at(x, b, i + RQV_LANES, ch, c, f, &v1) &&
            rqfx_vec_at(x, b, i + 2 * RQV_LANES, ch, c, f, &v2) &&
            rqfx_vec_at(x, b, i + 3 * RQV_LANES, ch, c, f, &v3))
            rq_store(y + i * es, v0, v1, v2, v3, &c->base, f, out);
        else
            rqf_int_rest(x, y, i, i + RQ_BLOCK, b, ch, p, out,
                         (f & RQFX_AWAY) ? RQF_SINGLE_AWAY : RQF_SINGLE);
    }
    return i;
}

/* A call of one flag variant: per channel in pieces of ch->period elements
 * when it is set (simdops_requant_stretch; the arrays and bias from their start
 * in each, as a call of the driver's per period), each piece's blocks, then its
 * tail in the scalar arithmetic. */
RQ_INLINE void rqfx_pieces(const int32_t *x, const int32_t *bias, unsigned char *y, size_t n,
                           const simdops_requant_channels *ch, const simdops_requant_params *p,
                           const rqfx_consts *c, int f, int out, int fam)
{
    const size_t es = simdops_requant_out_size(out);
    for (size_t done = 0, m; done < n; done += m) {
        m = ch ? simdops_requant_stretch(ch, n - done) : n;
        rqf_int_rest(x + done, y + done * es,
                     rqfx_loop(x + done, bias, y + done * es, m, ch, p, c, f, out), m, bias, ch,
                     p, out, fam);
    }
}

/* RQF_ENTRIES' function: fam RQF_SINGLE or RQF_SINGLE_AWAY (a constant), per
 * channel when ch; per-channel calls may bring the driver's derived arrays
 * (simdops_requant_channels_init_single: every channel raised to u >= 1 unless
 * ch->general; the raised pair gives either rounding the same quotient), and a
 * period (the arrays and bias restart every ch->period elements: rqfx_pieces). */
RQ_INLINE void rqfx_run(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                        const simdops_requant_channels *ch, const simdops_requant_params *p,
                        int out, int fam)
{
    const int away = fam == RQF_SINGLE_AWAY ? RQFX_AWAY : 0, fl = rqfx_flags(p, out);
    unsigned char *y = (unsigned char *)yv;
    rqfx_consts c;
    int kind;
#define RQFX_CASE(flags)                                                               \
    case flags:                                                                        \
        rqfx_pieces(x, bias, y, n, ch, p, &c, (flags) | away, out, fam);               \
        return;
#define RQFX_CASES(flags)                                                              \
    RQFX_CASE(flags) RQFX_CASE((flags) | RQ_F_BIAS) RQFX_CASE((flags) | RQ_F_NOCLAMP)   \
    RQFX_CASE((flags) | RQ_F_BIAS | RQ_F_NOCLAMP)
    if (fl < 0) {
        /* the scalar arithmetic below */
    } else if (ch) {
        rq_consts_init(&c.base, p);
        kind = ch->right && !ch->general ? RQFX_DERIVED : 0;
        switch (fl | RQFX_PC | kind | (bias ? RQ_F_BIAS : 0)) {
            RQFX_CASES(RQ_F_OFF16 | RQFX_PC)
            RQFX_CASES(RQ_F_OFF16 | RQFX_PC | RQFX_DERIVED)
        }
    } else if ((kind = rqfx_consts_init(&c, p)) >= 0) {
        switch (fl | kind | (bias ? RQ_F_BIAS : 0)) {
            RQFX_CASES(RQ_F_OFF16)
            RQFX_CASES(RQ_F_OFF16 | RQFX_ROUND31)
        }
    }
#undef RQFX_CASES
#undef RQFX_CASE
    rqf_int_pieces(x, y, n, bias, ch, p, out, fam);
}

#if defined(RQ_X86_FAST) && RQ_X86_FAST
#include "rq_fast_x86.h"

/* Single rounding (fam RQF_SINGLE or RQF_SINGLE_AWAY) through the exact float32
 * fast path (rq_fast_x86.h), per tensor or (AVX-512, the driver's arrays) per
 * channel, in pieces of ch->period elements when it is set, the tails in the
 * scalar arithmetic: 1 when it ran the call, 0 when
 * the path does not cover it (nothing done: the caller runs its integer kernel). */
RQ_INLINE int rqfx_fast(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                        const simdops_requant_channels *ch, const simdops_requant_params *p,
                        int out, int fam)
{
    const int s = RQF_S_SINGLE | (fam == RQF_SINGLE_AWAY ? RQF_S_AWAY : 0);
    const int noclamp = rqfx_noclamp(p, out) ? RQ_F_NOCLAMP : 0;
    unsigned char *y = (unsigned char *)yv;
    rqf_consts fc;
    rqfx_consts c;
    size_t i;
    if (n < (size_t)RQ_BLOCK)
        return 0;
    if (!ch) {
        if (!rqf_init(&fc, p, s) || rqfx_consts_init(&c, p) < 0)
            return 0;
        i = rqf_run(x, y, n, bias, NULL, &c, &fc, out, noclamp, s);
    } else {
#if RQV_LANES == 16
        /* pieces of ch->period elements when it is set (rqfx_pieces), the
         * constants set up once for all of them */
        const size_t piece = simdops_requant_stretch(ch, n), es = simdops_requant_out_size(out);
        if (!ch->fast_mult || piece < (size_t)RQ_BLOCK)
            return 0;
        rqf_pc_init(&fc, ch);
        rq_consts_init(&c.base, p);
        for (size_t done = 0, m; done < n; done += m) {
            m = piece < n - done ? piece : n - done;
            i = rqf_run(x + done, y + done * es, m, bias, ch, &c, &fc, out, noclamp,
                        s | RQF_S_PC);
            rqf_int_rest(x + done, y + done * es, i, m, bias, ch, p, out, fam);
        }
        return 1;
#else
        return 0; /* per channel the fast path is AVX-512's (arrays built for K = 16) */
#endif
    }
    rqf_int_rest(x, y, i, n, bias, ch, p, out, fam);
    return 1;
}

/* RQF_ENTRIES' function: the fast path, or rqfx_run where it does not cover the call */
RQ_INLINE void rqfx_fast_run(const int32_t *x, void *y, size_t n, const int32_t *bias,
                             const simdops_requant_channels *ch, const simdops_requant_params *p,
                             int out, int fam)
{
    if (!rqfx_fast(x, y, n, bias, ch, p, out, fam))
        rqfx_run(x, y, n, bias, ch, p, out, fam);
}
#endif

#endif
