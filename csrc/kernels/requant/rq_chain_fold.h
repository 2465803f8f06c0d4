/* oneDNN's chain of power-of-two multipliers folded to fewer steps, and to
 * requantize_fp32's default where only the scale is left: the tests and the proof,
 * in portable C. Two users: the prepared handle (rules/requant_fold.c) folds a chain
 * once, when it is prepared, so a call of a folded chain runs the default's entry, code
 * and all, after a test or two; the x86 chain kernels (rq_chain_avx2.h,
 * rq_chain_avx512.h) fold what reaches them (the kernel table's own callers, and the
 * partial folds to one multiplier). */
#ifndef SIMDOPS_RQ_CHAIN_FOLD_H
#define SIMDOPS_RQ_CHAIN_FOLD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/kernel_abi.h"

/* whether v is +-2^k (normal or subnormal) from its bits: what fabs(frexp(v)) == 0.5
 * says, without libm's two calls (~5 ns of a folded chain's call) */
static inline int rqc_pow2(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    const uint64_t e = (b >> 52) & 0x7FF, m = b & 0xFFFFFFFFFFFFFull;
    return e ? e != 0x7FF && !m : m && !(m & (m - 1)); /* inf, NaN, zero: no */
}

/* oneDNN's chain with both multipliers powers of two, pre = +-2^i, post = +-2^j (or a
 * divisor 2^j): fl(fl(fl(A * pre) * s) * post) = fl(fl(A * c) * s), c = pre * post
 * (pre / post), for A = (float)a, so the chain runs as one multiplier c, or none when
 * c = 1 (the step oneDNN's JIT spends on scales it leaves at 1.0 and 2^k). Why: a
 * product of a finite x by 2^k is exact, and fl(2^k x) = 2^k fl(x), when |x| and
 * |2^k x| lie in the normal range [2^emin, 2^emax) (the significand rounds at the same
 * bit); A * pre and A * c are then exact, fl(A pre s) * post = fl(A pre s post)
 * = fl(A c s) = fl(fl(A c) s); A = 0 gives a zero of the same sign either way. With
 * 1 <= |A| <= 2^31 and smin <= |s| <= smax, normal means |pre|, |c|, |pre| smin and
 * |c| smin >= 2^emin, and 2^31 times |pre|, |c|, |pre| smax and |c| smax below 2^emax
 * (then no rounding reaches infinity). No float bias (it lies between the steps or
 * before them, where |A + b| has no lower bound). A chain with one of the two steps
 * (pre_scale alone, or post_scale / post_divide alone) is the case pre = 1 or post = 1:
 * a step that is not there is a product by 1, exact, so the chain with it added gives
 * the same bits; the bounds above are then tested with that 1 as with any pre or post
 * (pre = 1 still asks smin >= 2^emin and 2^31 smax < 2^emax, post = 1 gives c = pre).
 * The test, in two parts: rqc_chain_c, of the multipliers alone (both powers of two,
 * |pre| and |c| >= 2^emin, 2^31 |pre| and 2^31 |c| < 2^emax: writes c = pre * post, or
 * pre / post, and lo, hi, the smaller and larger of |pre| and |c|, and returns 1, else
 * 0), and rqc_scales_fit, of the scales' bounds against lo and hi; rqc_fold_c, both:
 * writes c and returns 1 when the chain folds for every scale in [smin, smax], else 0. */
static inline int rqc_chain_c_in(const simdops_requant_params *p, int f64, double *c_out,
                                 double *lo_out, double *hi_out)
{
    const int m = p->fp_mode;
    const int post_bits = SIMDOPS_RQ_FP_POST_MUL | SIMDOPS_RQ_FP_POST_DIV;
    /* a step not there: a multiplier 1 */
    const double pre = !(m & SIMDOPS_RQ_FP_PRE) ? 1.0 : f64 ? p->pre64 : (double)p->pre_scale;
    const double post = !(m & post_bits) ? 1.0 : f64 ? p->post64 : (double)p->post;
    const double emin = f64 ? 0x1p-1022 : 0x1p-126, top = (f64 ? 0x1p1023 : 0x1p127) / 0x1p31;
    if (!(m & (SIMDOPS_RQ_FP_PRE | post_bits)) || !rqc_pow2(pre) || !rqc_pow2(post))
        return 0;
    const double c = (m & SIMDOPS_RQ_FP_POST_DIV) ? pre / post : pre * post; /* exact */
    const double lo = fabs(pre) < fabs(c) ? fabs(pre) : fabs(c);
    const double hi = fabs(pre) > fabs(c) ? fabs(pre) : fabs(c);
    if (!(lo >= emin && hi < top))
        return 0;
    *c_out = c;
    *lo_out = lo;
    *hi_out = hi;
    return 1;
}

/* rqc_chain_c_in in p's precision (f64: SIMDOPS_FP_FLOAT64 set; a caller that knows it
 * passes the constant, and the other precision's branches go) */
static inline int rqc_chain_c(const simdops_requant_params *p, double *c_out, double *lo_out,
                              double *hi_out)
{
    return rqc_chain_c_in(p, (p->fp_mode & SIMDOPS_FP_FLOAT64) != 0, c_out, lo_out, hi_out);
}

/* The rest of the fold's bounds, on the scales: |pre| smin, |c| smin >= 2^emin and 2^31
 * |pre| smax, 2^31 |c| smax < 2^emax, with lo, hi from rqc_chain_c (NaN: no). */
static inline int rqc_scales_fit(double lo, double hi, double smin, double smax, int f64)
{
    const double emin = f64 ? 0x1p-1022 : 0x1p-126, top = (f64 ? 0x1p1023 : 0x1p127) / 0x1p31;
    return lo * smin >= emin && hi * smax < top;
}

static inline int rqc_fold_c(const simdops_requant_params *p, double smin, double smax,
                             double *c_out)
{
    double lo, hi;
    return rqc_chain_c(p, c_out, &lo, &hi) &&
           rqc_scales_fit(lo, hi, smin, smax, (p->fp_mode & SIMDOPS_FP_FLOAT64) != 0);
}

/* Whether a call with bias (NULL: none; the vector, or its tensor, whichever the caller
 * holds) may fold p's chain: not with a float32 bias (SIMDOPS_RQ_FP_FLOAT_BIAS), which lies
 * between the steps or before them, where |A + b| has no lower bound (the proof above
 * needs 1 <= |A| or A = 0). The one rule for both folds: the prepared handle's, applied
 * per call (api_requant.c), and the kernels' own (rqc_fold_pow2). */
static inline int rqc_bias_allows_fold(const simdops_requant_params *p, const void *bias)
{
    return !(bias && (p->fp_mode & SIMDOPS_RQ_FP_FLOAT_BIAS));
}

/* rqc_fold_c's fold as parameters: writes q (p with c as the pre multiplier and no post
 * step; no pre step when c = 1) and returns 1, else 0 (a float32 bias:
 * rqc_bias_allows_fold). */
static inline int rqc_fold_pow2(const simdops_requant_params *p, const int32_t *bias,
                                double smin, double smax, simdops_requant_params *q)
{
    const int post_bits = SIMDOPS_RQ_FP_POST_MUL | SIMDOPS_RQ_FP_POST_DIV;
    double c;
    if (!rqc_bias_allows_fold(p, bias) || !rqc_fold_c(p, smin, smax, &c))
        return 0;
    *q = *p;
    q->fp_mode = (p->fp_mode & ~(post_bits | SIMDOPS_RQ_FP_PRE)) |
                 (c == 1.0 ? 0 : SIMDOPS_RQ_FP_PRE);
    q->pre_scale = (float)c; /* exact: a power of two in float32's normal range */
    q->pre64 = c;
    return 1;
}

/* The chain as requantize_fp32's default (fp_mode 0, one multiplier): q, folded by
 * rqc_fold_pow2, in float32 precision and ties even with no step left but the scale
 * and c = pre * post (pre / post). Then fl(fl(fl(A * pre) * s) * post) = fl(A * s'),
 * s' = c * s, for every int32 a (A = (float)a), under rqc_fold_pow2's conditions
 * (|pre|, |c|, |pre| smin, |c| smin >= 2^-126; 2^31 |pre|, |c|, |pre| smax, |c| smax
 * < 2^127): A * pre is exact, fl(A pre s) is normal, so its product by post is exact
 * and equals fl(A pre s post) = fl(A c s); and c * s is exact in float32 (a power of
 * two times a float, landing in [2^-126, 2^127)), so one rounding of the same real
 * A c s either way. A step that would leave the normal range (pre = 2^-130, or
 * 2^31 s pre >= 2^127) is not folded (rqc_fold_pow2 returns 0) and keeps the chain.
 * The scales s are finite and nonzero then, so neither form meets a NaN or an
 * infinity. Per channel only c = 1 (s' = s: the caller's scales, no copy to make).
 * Rewrites q (c into its scale) and returns 1, else leaves q and returns 0. */
static inline int rqc_fold_plain(simdops_requant_params *q, int per_channel)
{
    if (q->fp_mode & ~SIMDOPS_RQ_FP_PRE)
        return 0;
    if (q->fp_mode) { /* c != 1: into the scale */
        if (per_channel)
            return 0;
        q->scale = q->scale * q->pre_scale; /* exact (see above) */
        q->scale64 = (double)q->scale;
        q->fp_mode = 0;
    }
    return 1;
}

#endif
