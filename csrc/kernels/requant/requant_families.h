/* Per-element reference arithmetic of the requantization families other than
 * gemmlowp's double rounding (that one is fixedpoint.h). Exact integer
 * arithmetic in int64, floats rounded once per operation (the build never
 * contracts to FMA). The scalar kernels are loops over these; SIMD kernels
 * must match them bit for bit. Float rounding assumes the default rounding
 * mode, as numpy, ONNX Runtime and XNNPACK do. */
#ifndef SIMDOPS_REQUANT_FAMILIES_H
#define SIMDOPS_REQUANT_FAMILIES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/fixedpoint.h"
#include "core/kernel_abi.h"

/* inlined into each call site, so a constant argument (a NULL bias) removes its
 * branches from the loop */
#if defined(_MSC_VER)
#define RQF_INLINE static __forceinline
#else
#define RQF_INLINE static inline __attribute__((always_inline))
#endif

/* floor(v / 2^t), t in [0, 63], without relying on >> of negative values */
static inline int64_t rqf_floor_shift(int64_t v, int t)
{
    return v >= 0 ? (int64_t)((uint64_t)v >> t) : -(int64_t)((uint64_t)(-(v + 1)) >> t) - 1;
}

static inline int32_t rqf_clamp(int64_t v, int32_t lo, int32_t hi)
{
    return (int32_t)(v < lo ? lo : (v > hi ? hi : v));
}

/* single rounding: t = 31 + shift in [1, 62]; |a * m| <= 2^62, so the sum fits */
static inline int32_t rqf_single(int32_t a, int32_t m, int32_t shift, int32_t offset, int32_t lo,
                                 int32_t hi)
{
    const int t = 31 + shift;
    int64_t q = rqf_floor_shift((int64_t)a * m + ((int64_t)1 << (t - 1)), t);
    return rqf_clamp(q + offset, lo, hi);
}

/* single rounding with ties away from zero (TVM QNN rounding="TONEAREST": the
 * rounding term is 2^(t-1) - 1 where the product is negative) */
static inline int32_t rqf_single_away(int32_t a, int32_t m, int32_t shift, int32_t offset,
                                      int32_t lo, int32_t hi)
{
    const int t = 31 + shift;
    const int64_t prod = (int64_t)a * m;
    int64_t q = rqf_floor_shift(prod + ((int64_t)1 << (t - 1)) - (prod < 0), t);
    return rqf_clamp(q + offset, lo, hi);
}

/* Single rounding's pair with the total shift t = 31 + shift raised to at least
 * 32: for t < 32, m << (32 - t) with shift 1 gives the same quotient when it
 * fits int32. 0 (the pair unchanged) when it does not: the vector kernels then
 * take the scalar arithmetic. */
static inline int rqf_single_normalise(int32_t *m, int32_t *shift)
{
    const int t = 31 + *shift;
    int64_t mk;
    if (t >= 32)
        return 1;
    mk = (int64_t)*m * ((int64_t)1 << (32 - t));
    if (mk < INT32_MIN || mk > INT32_MAX)
        return 0;
    *m = (int32_t)mk;
    *shift = 1;
    return 1;
}

/* LiteRT's optimized int8 kernels on x86 (ruy's x86 paths): the left part of
 * the shift wraps in int32; q1 = floor((a*m + 2^30) / 2^31) exactly (ties toward
 * +inf, where gemmlowp's SRDHM rounds negative ties away, and no saturation:
 * INT32_MIN * INT32_MIN gives 2^31); then a rounding right shift by r with ties
 * toward +inf; the offset is a wrapping int32 add before the clamp. */
static inline int32_t rqf_ties_up(int32_t a, int32_t m, int32_t shift, int32_t offset, int32_t lo,
                                  int32_t hi)
{
    const int l = shift < 0 ? -shift : 0, r = shift > 0 ? shift : 0;
    int32_t as = simdops_wrap32((int64_t)((uint64_t)(uint32_t)a << l));
    int64_t q = rqf_floor_shift((int64_t)as * m + ((int64_t)1 << 30), 31);
    if (r > 0)
        q = rqf_floor_shift(q + ((int64_t)1 << (r - 1)), r);
    int32_t v = simdops_wrap32(q + offset);
    return v < lo ? lo : (v > hi ? hi : v);
}

/* ACL QUANTIZE_DOWN: ((a + offset) * m) >> shift in wrapping int32, floor shift */
static inline int32_t rqf_floor(int32_t a, int32_t m, int32_t shift, int32_t offset, int32_t lo,
                                int32_t hi)
{
    int32_t v = simdops_wrap32((int64_t)simdops_wrap32((int64_t)a + offset) * m);
    return rqf_clamp(rqf_floor_shift(v, shift), lo, hi);
}

/* round to integer, |v| < 2^52: ties to even, or away from zero */
static inline int64_t rqf_round(double v, int away)
{
    int64_t t = (int64_t)v; /* toward zero */
    double d = v - (double)t; /* exact */
    if (d > 0.5 || (d == 0.5 && (away || (t & 1))))
        t++;
    else if (d < -0.5 || (d == -0.5 && (away || (t & 1))))
        t--;
    return t;
}

/* The float families (SIMDOPS_FP_* mode). float32 products are formed in
 * float; a float widened to double and compared or rounded there keeps its value. */
static inline int32_t rqf_fp(int32_t a, float scale, double scale64, int mode, int32_t zp,
                             int32_t lo, int32_t hi)
{
    if (mode == SIMDOPS_FP_ACL) {
        volatile float prod = (float)a * scale; /* two roundings, as ACL's reference */
        float f = prod + (float)zp;
        int64_t r;
        if (f >= 2147483648.0f)
            r = INT32_MAX;
        else if (f < -2147483648.0f)
            r = INT32_MIN;
        else {
            r = rqf_round((double)f, 1);
            r = r > INT32_MAX ? INT32_MAX : r;
        }
        return rqf_clamp(r, lo, hi);
    } else {
        const double flo = (double)lo - zp, fhi = (double)hi - zp;
        /* the assignment rounds to float even where float arithmetic runs wider (x87) */
        float prod = (float)a * scale;
        double v = (mode & SIMDOPS_FP_FLOAT64) ? (double)a * scale64 : (double)prod;
        v = v < flo ? flo : (v > fhi ? fhi : v);
        return (int32_t)(rqf_round(v, mode & SIMDOPS_FP_TIES_AWAY) + zp);
    }
}

/* The float families' chain (simdops_requant_fp_chain) and ties="add_half": each
 * step rounded to the working precision, in the chain's order; fb is the float32
 * bias (0 unless SIMDOPS_RQ_FP_FLOAT_BIAS). A NaN (inf * 0 inside the chain)
 * gives lo; clamping before rounding equals clamping after (every rounding here
 * is monotone and keeps the integer bounds, |bound| <= 65535). */
static inline int32_t rqf_fp_ext(int32_t a, float fb, float scale, double scale64,
                                 const simdops_requant_params *p)
{
    const int mode = p->fp_mode;
    const double flo = (double)p->min - p->offset, fhi = (double)p->max - p->offset;
    double d;
    int64_t r;
    if (mode & SIMDOPS_FP_FLOAT64) {
        const int fb_first = (mode & SIMDOPS_RQ_FP_FLOAT_BIAS) && !(mode & SIMDOPS_FP_BIAS_SCALED);
        d = (double)a;
        if (fb_first)
            d = d + (double)fb;
        if (mode & SIMDOPS_RQ_FP_PRE)
            d = d * p->pre64;
        d = d * scale64;
        if ((mode & SIMDOPS_RQ_FP_FLOAT_BIAS) && !fb_first)
            d = d + (double)fb;
        if (mode & SIMDOPS_RQ_FP_POST_MUL)
            d = d * p->post64;
        else if (mode & SIMDOPS_RQ_FP_POST_DIV)
            d = d / p->post64;
        if (mode & SIMDOPS_RQ_FP_OFFSET)
            d = d + p->offset64;
    } else {
        /* each assignment rounds to float (the build never contracts) */
        const int fb_first = (mode & SIMDOPS_RQ_FP_FLOAT_BIAS) && !(mode & SIMDOPS_FP_BIAS_SCALED);
        float v = (float)a;
        if (fb_first)
            v = v + fb;
        if (mode & SIMDOPS_RQ_FP_PRE)
            v = v * p->pre_scale;
        v = v * scale;
        if ((mode & SIMDOPS_RQ_FP_FLOAT_BIAS) && !fb_first)
            v = v + fb;
        if (mode & SIMDOPS_RQ_FP_POST_MUL)
            v = v * p->post;
        else if (mode & SIMDOPS_RQ_FP_POST_DIV)
            v = v / p->post;
        if (mode & SIMDOPS_RQ_FP_OFFSET)
            v = v + p->offset_f;
        d = (double)v;
    }
    if (d != d)
        return p->min;
    d = d < flo ? flo : (d > fhi ? fhi : d);
    if (mode & SIMDOPS_FP_TIES_ADD_HALF) {
        if (mode & SIMDOPS_FP_FLOAT64) {
            double t = d + (d < 0 || (d == 0 && signbit(d)) ? -0.5 : 0.5);
            r = (int64_t)t; /* toward zero */
        } else {
            float f = (float)d; /* exact: d is a float, or an integer bound */
            float t = f + (signbit(f) ? -0.5f : 0.5f);
            r = (int64_t)t;
        }
    } else {
        r = rqf_round(d, mode & SIMDOPS_FP_TIES_AWAY);
    }
    return (int32_t)(r + p->offset);
}

/* the float32 bias at i (its bits travel in the int32 bias vector) */
static inline float rqf_float_bias(const int32_t *bias, size_t k)
{
    float f;
    memcpy(&f, &bias[k], sizeof f);
    return f;
}

/* the float64 scale at k: a per-channel float64 array is only 4-byte aligned when
 * it is the caller's (the driver's repeated copy is 8-byte aligned), so it is read
 * through memcpy, one unaligned load */
static inline double rqf_f64_at(const double *s, size_t k)
{
    double d;
    memcpy(&d, (const char *)(const void *)s + k * sizeof d, sizeof d);
    return d;
}

/* one result (already in [min, max]) stored as the output type */
static inline void rqf_store_one(void *y, size_t i, int32_t v, int out)
{
    if (out == SIMDOPS_RQ_U8)
        ((uint8_t *)y)[i] = (uint8_t)v;
    else if (out == SIMDOPS_RQ_I8)
        ((int8_t *)y)[i] = (int8_t)v;
    else
        ((int16_t *)y)[i] = (int16_t)v;
}

/* x[i] plus bias[k], wrapping, or x[i] without bias */
static inline int32_t rqf_biased(const int32_t *x, const int32_t *bias, size_t i, size_t k)
{
    return bias ? simdops_wrap32((int64_t)x[i] + bias[k]) : x[i];
}

/* The integer families, by a constant at every call */
enum { RQF_SINGLE, RQF_SINGLE_AWAY, RQF_TIES_UP, RQF_FLOOR };

/* An integer family over [i, n) in the scalar arithmetic, per channel when ch:
 * the scalar kernels, and the SIMD kernels' tails and fallbacks. */
RQF_INLINE void rqf_int_rest(const int32_t *x, void *y, size_t i, size_t n, const int32_t *bias,
                             const simdops_requant_channels *ch, const simdops_requant_params *p,
                             int out, int fam)
{
    const int32_t shift = p->right_shift - p->left_shift;
    for (; i < n; i++) {
        const int32_t a = rqf_biased(x, bias, i, i);
        const int32_t m = ch ? ch->mult[i] : p->multiplier, s = ch ? ch->shift[i] : shift;
        int32_t v;
        if (fam == RQF_SINGLE)
            v = rqf_single(a, m, s, p->offset, p->min, p->max);
        else if (fam == RQF_SINGLE_AWAY)
            v = rqf_single_away(a, m, s, p->offset, p->min, p->max);
        else if (fam == RQF_TIES_UP)
            v = rqf_ties_up(a, m, s, p->offset, p->min, p->max);
        else
            v = rqf_floor(a, m, s, p->offset, p->min, p->max);
        rqf_store_one(y, i, v, out);
    }
}

/* rqf_int_rest over a whole call, per channel in pieces of ch->period
 * elements when it is set (simdops_requant_stretch): each piece reads the
 * arrays and bias from their start, as a call of the driver's per period did */
RQF_INLINE void rqf_int_pieces(const int32_t *x, void *y, size_t n, const int32_t *bias,
                               const simdops_requant_channels *ch,
                               const simdops_requant_params *p, int out, int fam)
{
    const size_t es = simdops_requant_out_size(out);
    for (size_t done = 0, m; done < n; done += m) {
        m = ch ? simdops_requant_stretch(ch, n - done) : n;
        rqf_int_rest(x + done, (char *)y + done * es, 0, m, bias, ch, p, out, fam);
    }
}

/* A family's two entries (per tensor, per channel) for one output type, each a
 * call of fn(x, y, n, bias, ch, p, out, arg), ch NULL per tensor; arg is fn's
 * constant (a family, a rounding rule). Every tier's entries are these. */
#define RQF_ENTRIES(tag, out, fam, fn, arg)                                            \
    static void SIMDOPS_KERNEL_NAME(tag, requant_##fam)(const int32_t *x, void *y,     \
                                                        size_t n, const int32_t *bias, \
                                                        const simdops_requant_params *p) \
    {                                                                                  \
        fn(x, y, n, bias, NULL, p, out, arg);                                          \
    }                                                                                  \
    static void SIMDOPS_KERNEL_NAME(tag, requant_##fam##_pc)(                          \
        const int32_t *x, void *y, size_t n, const int32_t *bias,                      \
        const simdops_requant_channels *ch, const simdops_requant_params *p)           \
    {                                                                                  \
        fn(x, y, n, bias, ch, p, out, arg);                                            \
    }
/* ... for the three output types */
#define RQF_ENTRIES3(fam, fn, arg)                                                     \
    RQF_ENTRIES(u8, SIMDOPS_RQ_U8, fam, fn, arg)                                       \
    RQF_ENTRIES(i8, SIMDOPS_RQ_I8, fam, fn, arg)                                       \
    RQF_ENTRIES(i16, SIMDOPS_RQ_I16, fam, fn, arg)
/* a family's three per-channel entries, (entry, tag) pairs */
#define RQF_PC_LIST(X, fam)                                                            \
    X(requant_##fam##_pc, u8) X(requant_##fam##_pc, i8) X(requant_##fam##_pc, i16)
/* a family's six entries as SIMDOPS_DEFINE_REGISTER's (entry, tag) pairs */
#define RQF_LIST(X, fam)                                                               \
    X(requant_##fam, u8) X(requant_##fam, i8) X(requant_##fam, i16)                    \
    X(requant_##fam##_pc, u8) X(requant_##fam##_pc, i8) X(requant_##fam##_pc, i16)

/* The float families over a row in the scalar arithmetic: the scalar kernels,
 * and what the SIMD kernels run for the modes they have no vector form of. */
RQF_INLINE void rqf_fp_row(const int32_t *x, void *y, size_t n, const int32_t *bias,
                           const simdops_requant_params *p, int out)
{
    if (p->fp_mode & SIMDOPS_RQ_FP_EXT) {
        const int fbias = bias && (p->fp_mode & SIMDOPS_RQ_FP_FLOAT_BIAS);
        for (size_t i = 0; i < n; i++)
            rqf_store_one(y, i, rqf_fp_ext(fbias ? x[i] : rqf_biased(x, bias, i, i),
                                           fbias ? rqf_float_bias(bias, i) : 0.0f, p->scale,
                                           p->scale64, p), out);
        return;
    }
    for (size_t i = 0; i < n; i++)
        rqf_store_one(y, i, rqf_fp(rqf_biased(x, bias, i, i), p->scale, p->scale64, p->fp_mode,
                                   p->offset, p->min, p->max), out);
}

/* per channel: scale and bias restart every ch->period elements (when nonzero) */
RQF_INLINE void rqf_fp_pc_row(const int32_t *x, void *y, size_t n, const int32_t *bias,
                              const simdops_requant_channels *ch,
                              const simdops_requant_params *p, int out)
{
    if ((p->fp_mode & SIMDOPS_RQ_FP_EXT) || ch->scale64) {
        const int fbias = bias && (p->fp_mode & SIMDOPS_RQ_FP_FLOAT_BIAS);
        for (size_t i = 0, k = 0; i < n; i++, k = k + 1 == ch->period ? 0 : k + 1) {
            double s64 = ch->scale64 ? rqf_f64_at(ch->scale64, k) : (double)ch->scale[k];
            rqf_store_one(y, i, rqf_fp_ext(fbias ? x[i] : rqf_biased(x, bias, i, k),
                                           fbias ? rqf_float_bias(bias, k) : 0.0f,
                                           ch->scale64 ? 0.0f : ch->scale[k], s64, p), out);
        }
        return;
    }
    for (size_t i = 0, k = 0; i < n; i++, k = k + 1 == ch->period ? 0 : k + 1)
        rqf_store_one(y, i, rqf_fp(rqf_biased(x, bias, i, k), ch->scale[k], (double)ch->scale[k],
                                   p->fp_mode, p->offset, p->min, p->max), out);
}

/* the float families' scalar rows as an RQF_ENTRIES function */
RQF_INLINE void rqf_fp_rows(const int32_t *x, void *y, size_t n, const int32_t *bias,
                            const simdops_requant_channels *ch, const simdops_requant_params *p,
                            int out, int unused)
{
    (void)unused;
    if (ch)
        rqf_fp_pc_row(x, y, n, bias, ch, p, out);
    else
        rqf_fp_row(x, y, n, bias, p, out);
}

#endif
