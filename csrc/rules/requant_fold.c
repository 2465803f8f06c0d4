/* A float chain's plan: oneDNN's power-of-two multipliers folded once, when the handle
 * is prepared (simdops_requant_fold_prepare), and applied by each call before the driver
 * picks a kernel (simdops_requant_fold_apply: a test per tensor, the scales' window per
 * channel; rq_chain_fold.h states the fold and its proof). Folded per call, the fold's
 * ~110 instructions (two copies of the parameters among them) were most of the ~40 ns a
 * folded chain's Python call cost over the default's at 64K elements. A chain that folds
 * to requantize_fp32's default then runs the default's entry, the same kernel code as the
 * plain call: the kernels' own fold (rq_chain_avx2.h,
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

/* 1 / v for v = 2^e, -1022 <= e <= 1022 (rqc_chain_c's lo and hi, 2^-126 .. 2^95): the
 * exponent field E = e + 1023 made 1023 - e = 2046 - E, the significand zero; exact, as the
 * division it replaces (~13 cycles of latency, two of them per prepare) */
static double pow2_recip(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    b = (uint64_t)(2046 - (b >> 52)) << 52; /* v > 0: no sign bit */
    memcpy(&v, &b, sizeof v);
    return v;
}

/* Whether every |scale[k]| of n finite float32 scales has its magnitude's bits b in
 * [lb, lb + span), the window simdops_requant_fold_prepare made of two powers of two
 * (their bits' order is the numbers'; lo > 0: a zero scale is outside): b - lb, below the
 * span, as one unsigned test per scale whose failures are OR-ed into a sign bit (d = b -
 * lb wraps above 2^31 when b < lb; span - 1 - d wraps there when d >= span, both below
 * 2^31): no min / max chain to wait on (a min / max scan of 256 scales took ~135 ns at
 * SSE2, 7% of a 64K-element call; this ~25 ns) */
static int scales_within(const float *scale, int64_t n, uint32_t lb, uint32_t span)
{
    if (!span)
        return n == 0;
    uint32_t bad = 0;
    for (int64_t k = 0; k < n; k++) {
        uint32_t b;
        memcpy(&b, &scale[k], sizeof b);
        const uint32_t d = (b & 0x7FFFFFFFu) - lb;
        bad |= d | (span - 1 - d);
    }
    return !(bad >> 31);
}

void simdops_requant_fold_prepare(simdops_requant_params *p)
{
    const int m = p->fp_mode;
    const int post_bits = SIMDOPS_RQ_FP_POST_MUL | SIMDOPS_RQ_FP_POST_DIV;
    /* the default: no step left but the scale and the multipliers (rqc_fold_plain) */
    const int plain = !(m & ~(SIMDOPS_RQ_FP_PRE | post_bits));
    p->fold = 0;
    p->fold_scale = p->fold_c = 0.0f;
    p->fold_lb = p->fold_span = 0;
    /* a candidate: a multiplier (either or both), float32 precision (the only one the
     * default has), ties even, no offset: every bit but the multipliers' is not there */
    if (!(m & (SIMDOPS_RQ_FP_PRE | post_bits)) || !plain)
        return;
    /* the multipliers' own bounds (rqc_chain_c), shared by both forms */
    double c, lo, hi;
    if (!rqc_chain_c_in(p, 0, &c, &lo, &hi)) /* float32: the bits tested above */
        return;
    /* per tensor: the scale its own bounds; the default on c * scale (exact, rqc_fold_plain) */
    const double s = fabs((double)p->scale);
    if (rqc_scales_fit(lo, hi, s, s, 0)) {
        p->fold |= SIMDOPS_RQ_FOLD_TENSOR;
        p->fold_scale = p->scale * (float)c; /* c: a power of two float32 holds */
    }
    /* per channel: rqc_scales_fit's bounds as a window: lo * smin >= 2^-126 and hi * smax
     * < 2^96 are smin >= 2^-126 / lo and smax < 2^96 / hi, exactly (a float32 times a
     * power of two is exact in double here, and so are the quotients, powers of two
     * formed as products by the exact reciprocals). With the scales
     * inside it, the chain folds for each of them. The call's known range [floor, 1) lies
     * inside the window when 2^-126 / lo <= floor, that is lo >= 2^-126 / floor (exact:
     * powers of two; 1 <= 2^96 / hi holds: hi < 2^96 by rqc_chain_c), and then the
     * scales need no scan of their own. */
    const uint32_t lb = pow2_bits(0x1p-126 * pow2_recip(lo)), hb = pow2_bits(0x1p96 * pow2_recip(hi));
    p->fold |= SIMDOPS_RQ_FOLD_CHANNELS;
    p->fold_lb = lb;
    p->fold_span = hb > lb ? hb - lb : 0;
    if (lo >= 0x1p-126 / (double)SIMDOPS_RQ_SCALE_FLOOR)
        p->fold |= SIMDOPS_RQ_FOLD_KNOWN;
    /* c != 1: the default on the scales times c (rqc_fold_scales' argument,
     * rq_chain_avx2.h: c * s[k] is exact, normal by the window) */
    if (c != 1.0) {
        p->fold |= SIMDOPS_RQ_FOLD_C;
        p->fold_c = (float)c;
    }
}

int simdops_requant_fold_apply(simdops_requant_params *p, const float *scales, int64_t n,
                               int known, float *c)
{
    const int f = p->fold;
    if (!scales) {
        if (!(f & SIMDOPS_RQ_FOLD_TENSOR))
            return 0;
        if (p->fold_scale != p->scale) /* c != 1 (the scale is nonzero) */
            p->scale64 = p->scale = p->fold_scale;
        p->fp_mode = 0;
        return 1;
    }
    if (!(f & SIMDOPS_RQ_FOLD_CHANNELS) ||
        (!(known && (f & SIMDOPS_RQ_FOLD_KNOWN)) &&
         !scales_within(scales, n, p->fold_lb, p->fold_span)))
        return 0;
    p->fp_mode = 0;
    if (!(f & SIMDOPS_RQ_FOLD_C))
        return 1;
    *c = p->fold_c;
    return 2;
}
