/* A call's plan for a float chain: oneDNN's power-of-two multipliers folded once per
 * call, before the driver picks a kernel (rq_chain_fold.h states the fold and its
 * proof). A chain that folds to requantize_fp32's default then runs the default's
 * entry, the same kernel code as the plain call: the kernels' own fold (rq_chain_avx2.h,
 * rq_chain_avx512.h) ran the default's loops as a second, inlined copy, which the
 * compiler placed differently (per tensor, on AVX-512, the 64-byte step's loop started
 * off a 16-byte boundary and spanned four 64-byte code lines for the plain copy's three:
 * 0.82-0.93 of the default at 64K elements, every instruction the same), and the
 * per-channel kernels scanned the scales on every call and copied them times c. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/kernel_abi.h"
#include "kernels/requant/rq_chain_fold.h"
#include "rules/params.h"

/* the bits of the power of two v as a float32 magnitude bound: v itself when float32 holds
 * it (normal or subnormal), else (below 2^-149) 1, the smallest magnitude above zero, or
 * (from 2^128 on) infinity's, above every finite one */
static uint32_t pow2_bits(double v)
{
    const float f = (float)v; /* exact where float32 holds v */
    uint32_t b;
    if (v < 0x1p-149)
        return 1;
    if (v >= 0x1p128)
        return 0x7F800000u;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* Whether every |scale[k]| of n finite float32 scales lies in [lo, hi), lo and hi powers
 * of two (lo > 0: a zero scale is outside): the magnitudes' bits, whose order is the
 * numbers', less lo's bits, below the span, as one unsigned test per scale whose
 * failures are OR-ed into a sign bit (d = b - lb wraps above 2^31 when b < lb; span - 1
 * - d wraps there when d >= span, both below 2^31): no min / max chain to wait on
 * (a min / max scan of 256 scales took ~135 ns at SSE2, 7% of a 64K-element call; this
 * ~25 ns) */
static int scales_within(const float *scale, int64_t n, double lo, double hi)
{
    const uint32_t lb = pow2_bits(lo), hb = pow2_bits(hi);
    if (hb <= lb)
        return n == 0;
    const uint32_t span = hb - lb;
    uint32_t bad = 0;
    for (int64_t k = 0; k < n; k++) {
        uint32_t b;
        memcpy(&b, &scale[k], sizeof b);
        const uint32_t d = (b & 0x7FFFFFFFu) - lb;
        bad |= d | (span - 1 - d);
    }
    return !(bad >> 31);
}

int simdops_requant_fold_chain(simdops_requant_params *p, const int32_t *bias,
                               const float *scales, int64_t n, int known, float *c)
{
    const int m = p->fp_mode;
    const int post_bits = SIMDOPS_RQ_FP_POST_MUL | SIMDOPS_RQ_FP_POST_DIV;
    simdops_requant_params q;
    /* a candidate: a multiplier (either or both), float32 precision (the only one the
     * default has) */
    if (!(m & (SIMDOPS_RQ_FP_PRE | post_bits)) || (m & (SIMDOPS_FP_FLOAT64 | SIMDOPS_FP_ACL)))
        return 0;
    if (!scales) {
        const double s = fabs((double)p->scale); /* the kernels' per-tensor bounds */
        if (!rqc_fold_pow2(p, bias, s, s, &q))
            return 0;
    } else {
        /* rqc_fold_pow2's bounds on the scales as a window: lo * smin >= 2^-126 and
         * hi * smax < 2^96 (lo, hi: the smaller and larger of |pre| and |c|, powers of
         * two; a step not there is 1) are smin >= 2^-126 / lo and smax < 2^96 / hi,
         * exactly (a float32 times a power of two is exact in double here, and so are
         * the quotients). With the scales inside it, rqc_fold_pow2 at smin = smax = 1
         * (inside too: 2^-126 / lo <= 1 < 2^96 / hi once lo >= 2^-126 and hi < 2^96,
         * tested here; no division) tests the rest and gives the fold. The caller's
         * known range [floor, 1) lies inside the window when 2^-126 / lo <= floor, that is
         * lo >= 2^-126 / floor (exact: powers of two; 1 <= 2^96 / hi holds already),
         * and then the scales need no scan of their own. */
        const double pre = (m & SIMDOPS_RQ_FP_PRE) ? fabs((double)p->pre_scale) : 1.0;
        const double post = (m & post_bits) ? fabs((double)p->post) : 1.0;
        if (!rqc_pow2(pre) || !rqc_pow2(post))
            return 0;
        const double cm = (m & SIMDOPS_RQ_FP_POST_DIV) ? pre / post : pre * post; /* |c| */
        const double lo = pre < cm ? pre : cm, hi = pre > cm ? pre : cm;
        if (!(lo >= 0x1p-126 && hi < 0x1p96))
            return 0;
        if (!(known && lo >= 0x1p-126 / (double)SIMDOPS_RQ_SCALE_FLOOR) &&
            !scales_within(scales, n, 0x1p-126 / lo, 0x1p96 / hi))
            return 0;
        if (!rqc_fold_pow2(p, bias, 1.0, 1.0, &q))
            return 0;
    }
    if (rqc_fold_plain(&q, scales != NULL)) {
        *p = q;
        return 1;
    }
    /* per channel, c != 1: the default on the scales times c, when nothing but c is left
     * (rqc_fold_scales' argument, rq_chain_avx2.h: c * s[k] is exact, normal by
     * rqc_fold_pow2's bounds on |c| smin and |c| smax) */
    if (!scales || q.fp_mode != SIMDOPS_RQ_FP_PRE)
        return 0;
    *c = q.pre_scale;
    q.fp_mode = 0;
    *p = q;
    return 2;
}
