/* TFLite's 8-bit multiply (qb_tflite_mul_one) as one float multiply-add plus
 * a window: the plan of the AVX-512 fast rows (qbinary_tflm_avx512.h), decided
 * once a call in portable C (the harness asks for it too).
 *
 * The reference: p = (a + oa)(b + ob), x = p << ls, y = RDBPOT(SRDHM(x, my),
 * sy) + oy, clamped. With max|p| 2^ls < 2^31 nothing wraps; SRDHM rounds to
 * nearest (error <= 1/2), so with U = p K, K = my 2^(ls - 31 - sy) (exact),
 *   |SRDHM(x, my) / 2^sy - U| <= E1 = 2^-(sy + 1),
 * and when U lies farther than E1 from every half-integer, y = floor(U + 1/2)
 * + oy (the argument of the last rounding is inside U's unit interval).
 *
 * The fast form, F fractional bits: V = cvt_rne(fma(float(p), Kf, C)) with
 * Kf = float(2^F K), C = 2^F (oy + 1/2) + W (exact in float: checked), the
 * fused multiply-add and the conversion rounding to nearest in the
 * instruction (no MXCSR). float(p) is exact (|p| < 2^17), so V = R + W + D
 * with R = 2^F (U + oy + 1/2) and |D| <= max|p| |Kf - 2^F K| + 2^-24 Vmax + 1/2
 * (the fma's one rounding, relative 2^-24, then the conversion's), Vmax =
 * max|p| |Kf| + C bounding every |fma| (and kept below 2^31 - 2^9, so the
 * conversion never overflows). The rows flag a lane when bits w..F-1 of V
 * are all zero (2W = 2^w); an unflagged lane, with W > Dmax + 2^F E1, is V >> F
 * (the same argument as qbinary_tfl_plan.h's). F is chosen for the fewest
 * flagged lanes; at most one in 2^10, else the plan refuses (the int32 rows). */
#ifndef SIMDOPS_QBINARY_TFLM_PLAN_H
#define SIMDOPS_QBINARY_TFLM_PLAN_H

#include <math.h>
#include <stdint.h>

#include "core/kernel_abi.h"

typedef struct qb_tflm_plan {
    int ok;
    int F, w;        /* fractional bits, the window's bit (2W = 2^w) */
    float k, c;      /* V = cvt_rne(fma(p, k, c)) */
    uint32_t window; /* bits w..F-1: a lane is flagged when V has none */
} qb_tflm_plan;

static inline void qb_tflm_plan_init(qb_tflm_plan *pl, const simdops_qbinary_params *p, int is_u8)
{
    const int32_t tlo = is_u8 ? 0 : -128, thi = is_u8 ? 255 : 127;
    const double xa = fmax(fabs((double)tlo + p->a_offset), fabs((double)thi + p->a_offset));
    const double xb = fmax(fabs((double)tlo + p->b_offset), fabs((double)thi + p->b_offset));
    const double pmax = xa * xb;
    int best_gap = 9;
    pl->ok = 0;
    if (p->left_shift < 0 || p->left_shift > 30 || p->y_shift < 0 || p->y_shift > 31 ||
        xa > 32767.0 || xb > 32767.0 || pmax * ldexp(1.0, p->left_shift) >= 2147483648.0 ||
        pmax >= 16777216.0)
        return;
    for (int F = 30; F >= 1; F--) {
        const double k2f = ldexp((double)p->y_mult, p->left_shift - 31 - p->y_shift + F);
        const float kf = (float)k2f;
        const double ek = fabs((double)kf - k2f); /* exact: both have few bits */
        double need, c, vmax;
        int w;
        if (!isfinite(k2f) || fabs(k2f) > 1e30)
            continue;
        for (w = 1; w < F; w++) {
            c = ldexp((double)p->y_offset * 2.0 + 1.0, F - 1) + ldexp(1.0, w - 1);
            vmax = pmax * fabs((double)kf) + fabs(c);
            need = pmax * ek + ldexp(vmax, -24) + 0.5 + ldexp(1.0, F - p->y_shift - 1) + 2.0;
            if (ldexp(1.0, w - 1) > need)
                break;
        }
        if (w >= F || F - w <= best_gap)
            continue;
        c = ldexp((double)p->y_offset * 2.0 + 1.0, F - 1) + ldexp(1.0, w - 1);
        vmax = pmax * fabs((double)kf) + fabs(c);
        if ((double)(float)c != c || vmax * (1.0 + ldexp(1.0, -22)) + 2.0 >= 2147483648.0 - 512.0)
            continue;
        best_gap = F - w;
        pl->ok = 1;
        pl->F = F;
        pl->w = w;
        pl->k = kf;
        pl->c = (float)c;
        pl->window = (uint32_t)((((uint64_t)1 << F) - 1) & ~(((uint64_t)1 << w) - 1));
    }
}

#endif
