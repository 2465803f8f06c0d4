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

void simdops_requant_scale_range(const float *scale, int64_t n, double *smin, double *smax)
{
    /* the magnitudes' bits as unsigned integers, whose order is the numbers' (finite
     * scales): a min / max of integers, which the compiler vectorises */
    uint32_t lo = 0xFFFFFFFFu, hi = 0;
    for (int64_t k = 0; k < n; k++) {
        uint32_t b;
        memcpy(&b, &scale[k], sizeof b);
        b &= 0x7FFFFFFFu;
        lo = b < lo ? b : lo;
        hi = b > hi ? b : hi;
    }
    float f;
    memcpy(&f, &lo, sizeof f);
    *smin = n > 0 ? (double)f : INFINITY;
    memcpy(&f, &hi, sizeof f);
    *smax = n > 0 ? (double)f : 0.0;
}

int simdops_requant_fold_chain(simdops_requant_params *p, const int32_t *bias,
                               const float *scales, int64_t n, float *c)
{
    const int m = p->fp_mode;
    simdops_requant_params q;
    double smin, smax;
    /* a candidate: both multipliers, float32 precision (the only one the default has) */
    if (!(m & SIMDOPS_RQ_FP_PRE) || !(m & (SIMDOPS_RQ_FP_POST_MUL | SIMDOPS_RQ_FP_POST_DIV)) ||
        (m & (SIMDOPS_FP_FLOAT64 | SIMDOPS_FP_ACL)))
        return 0;
    if (scales)
        simdops_requant_scale_range(scales, n, &smin, &smax);
    else
        smin = smax = fabs((double)p->scale); /* the kernels' per-tensor bounds */
    if (!rqc_fold_pow2(p, bias, smin, smax, &q))
        return 0;
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
