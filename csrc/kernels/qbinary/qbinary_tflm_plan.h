/* TFLite's 8-bit multiply (qb_tflite_mul_one): its first rounding by one
 * float multiply-add plus a window, its last one in integers; the plan of
 * the AVX-512 fast rows (qbinary_tflm_avx512.h), decided once a call in
 * portable C (the harness asks for it too).
 *
 * The reference: p = (a + oa)(b + ob), z1 = SRDHM(p << ls, my) = floor(p K1 +
 * 1/2) with K1 = my 2^(ls - 31) (exact, nothing wraps: max|p| 2^ls < 2^31 is
 * checked), y = RDBPOT(z1, sy) + oy = floor((z1 + c - [z1 < 0 and sy > 0]) /
 * 2^sy), c = 2^(sy - 1) + oy 2^sy (0 + oy for sy = 0), clamped.
 *
 * The fast form, G fractional bits: V = cvt_rne(fma(float(p), Kf, C)), Kf =
 * float(2^G K1), C = 2^G (1/2 + c) + W (exact in float: checked), the fused
 * multiply-add and the conversion rounding to nearest in the instruction (no
 * MXCSR). float(p) is exact (|p| < 2^17), so V = 2^G (p K1 + 1/2 + c) + W + D
 * with |D| <= max|p| |Kf - 2^G K1| + 2^-24 |v| + 1/2 (the fma's one rounding,
 * then the conversion's). The rows flag a lane when bits w..G-1 of V are all
 * zero (2W = 2^w). Where |v| <= T = 2^(G + sy) (ymax + 8), ymax = 256 (beyond
 * every 8-bit bound), D <= Dmax; with W > Dmax + 1 an unflagged lane has
 * floor(V / 2^G) = z1 + c exactly (as in qbinary_tfl_plan.h), z1 < 0 iff V <
 * c 2^G, and y = (V - 2^G [V < c 2^G and sy > 0]) >> (G + sy). Where |v| > T
 * (errors up to 2^-23 |v|), the true and the computed y both lie beyond
 * +-(ymax + 2): both saturate the same way. |v| stays below 2^31 - 2^G - 2^9
 * (no conversion overflow, no wrap in the subtraction). G is the largest that
 * fits (the fewest flagged lanes: the error terms grow with 2^G but the
 * constant ones), at most one in 2^8 flagged, else the plan refuses (the int32
 * rows run). */
#ifndef SIMDOPS_QBINARY_TFLM_PLAN_H
#define SIMDOPS_QBINARY_TFLM_PLAN_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/kernel_abi.h"

enum { QB_TFLM_MIN_GAP = 8 }; /* G - w: at most 2^-8 of the lanes flagged */

typedef struct qb_tflm_plan {
    int ok;
    int G, w;          /* fractional bits, the window's bit (2W = 2^w) */
    float k, c;        /* V = cvt_rne(fma(p, k, c)) */
    int32_t c2g, adj;  /* c 2^G (z1 < 0 iff V < c2g); 2^G when sy > 0, else 0 */
    uint32_t window;   /* bits w..G-1: a lane is flagged when V has none */
} qb_tflm_plan;

static inline void qb_tflm_plan_init(qb_tflm_plan *pl, const simdops_qbinary_params *p, int is_u8)
{
    const int32_t tlo = is_u8 ? 0 : -128, thi = is_u8 ? 255 : 127;
    const double xa = fmax(fabs((double)tlo + p->a_offset), fabs((double)thi + p->a_offset));
    const double xb = fmax(fabs((double)tlo + p->b_offset), fabs((double)thi + p->b_offset));
    const double pmax = xa * xb;
    const int sy = p->y_shift;
    const double cint = (sy > 0 ? ldexp(1.0, sy - 1) : 0.0) + ldexp((double)p->y_offset, sy);
    int best_gap = QB_TFLM_MIN_GAP - 1;
    memset(pl, 0, sizeof(*pl));
    if (p->left_shift < 0 || p->left_shift > 30 || sy < 0 || sy > 31 || xa > 32767.0 ||
        xb > 32767.0 || pmax * ldexp(1.0, p->left_shift) >= 2147483648.0)
        return;
    int ev, G0; /* |v| < 2^31 needs G < 31 - log2(max|p| |K1| + |1/2 + c| + 1/2): start near it */
    (void)frexp(pmax * ldexp(fabs((double)p->y_mult), p->left_shift - 31) + fabs(0.5 + cint) + 0.5, &ev);
    G0 = 31 - ev + 1;
    for (int G = G0 < 30 - sy ? G0 : 30 - sy; G >= 1; G--) {
        const double k2g = ldexp((double)p->y_mult, p->left_shift - 31 + G);
        const float kf = (float)k2g;
        const double ek = fabs((double)kf - k2g); /* exact: both have few bits */
        const double T = ldexp(256.0 + 8.0, G + sy);
        double c, vmax, need;
        int w;
        /* the window's own W (< 2^(G-1)) counted in |v| at its largest */
        vmax = pmax * fabs((double)kf) + fabs(ldexp(0.5 + cint, G)) + ldexp(1.0, G - 1);
        need = pmax * ek + ldexp(fmin(vmax, T), -24) * 1.001 + 0.5 + 2.0;
        (void)frexp(need, &w); /* 2^(w-1) <= need < 2^w */
        w += 1;                /* the least w with 2^(w-1) > need */
        if (w >= G || G - w <= best_gap)
            break; /* a smaller G has no wider gap (the constant terms stay) */
        c = ldexp(0.5 + cint, G) + ldexp(1.0, w - 1);
        vmax = pmax * fabs((double)kf) + fabs(c);
        if ((double)(float)c != c || vmax * (1.0 + ldexp(1.0, -22)) + ldexp(1.0, G) + 1024.0 >= 2147483648.0 ||
            fabs(cint) * ldexp(1.0, G) >= 2147483648.0)
            continue;
        best_gap = G - w;
        pl->ok = 1;
        pl->G = G;
        pl->w = w;
        pl->k = kf;
        pl->c = (float)c;
        pl->c2g = (int32_t)ldexp(cint, G);
        pl->adj = sy > 0 ? (int32_t)1 << G : 0;
        pl->window = (uint32_t)((((uint64_t)1 << G) - 1) & ~(((uint64_t)1 << w) - 1));
        break; /* the largest G that fits: the widest gap */
    }
}

#endif
