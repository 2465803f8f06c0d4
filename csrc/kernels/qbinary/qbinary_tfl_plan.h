/* TFLite's 8-bit add (qb_tflite_add_one) as XNNPACK's linear form plus a
 * window: the plan of the AVX-512 fast rows (qbinary_tfl_avx512.h), decided
 * once a call in portable C (no intrinsics, so the harness can ask for it).
 *
 * The reference: ra = RDBPOT(SRDHM((a + oa) 2^ls, ma), sa), rb likewise,
 * y = RDBPOT(SRDHM(ra + rb, my), sy) + oy, clamped. Every rounding there is
 * to nearest (error <= 1/2; SRDHM floors x m + 2^30, RDBPOT ties away), so
 * with the exact reals ea = (a + oa) 2^ls ma / 2^(31 + sa) (eb likewise):
 *   |ra - ea| <= 1/2 + (1/2) / 2^sa <= 1, |ra + rb - (ea + eb)| <= 2,
 * and with U = (ea + eb) my / 2^(31 + sy), linear in (a, b),
 *   |SRDHM(ra + rb, my) / 2^sy - U| <= (2 |my| / 2^31 + 1/2) / 2^sy < E1 = 3 / 2^sy.
 * When U lies farther than E1 from every half-integer, the last RDBPOT's
 * argument lies strictly inside the same unit interval around an integer k
 * as U, so y = k + oy = floor(U + 1/2) + oy, whatever the double rounding.
 *
 * The fast form: V = (a + oa) Ma + (b + ob) Mb + B0 in int32 (exact: every
 * corner of the type's box is checked, V is affine), Ma = round(2^S Ka) with
 * Ka = 2^ls ma my / 2^(62 + sa + sy) (exact integers: ma my in int64), B0 =
 * 2^S (oy + 1/2) + W. Then V = R + D + W with R = 2^S (U + oy + 1/2) and
 * |D| <= Dmax = max|a + oa| |Ma - 2^S Ka| + max|b + ob| |Mb - 2^S Kb|.
 * The rows flag a lane when V mod 2^S < 2W (bits w..S-1 of V all zero, 2W =
 * 2^w) and recompute it by the scalar element. An unflagged lane has V in
 * [k 2^S + 2W, (k + 1) 2^S), so R lies in [k 2^S + W - Dmax, (k + 1) 2^S - W
 * + Dmax), and with W > Dmax + 2^S E1, U + oy + 1/2 lies in (k + E1, k + 1 -
 * E1): y = k = V >> S, the rows' arithmetic shift (the packs then saturate
 * as the clamp to the type would).
 *
 * S is the largest with |Ma|, |Mb| < 2^21 (the pair rows' split, qbinary_xnn_plan.h) and V inside
 * int32 (the fewest flagged lanes, 2^(w - S) of uniform V: Dmax stays as S
 * falls, 2^S E1 halves); the plan is refused (the int32 rows run) for a left shift other
 * than 20, shifts outside [0, 31], sums that could wrap in the reference, or
 * more than one lane in 2^10 flagged. */
#ifndef SIMDOPS_QBINARY_TFL_PLAN_H
#define SIMDOPS_QBINARY_TFL_PLAN_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/kernel_abi.h"
#include "qbinary_xnn_plan.h"

enum { QB_TFL_MIN_GAP = 10 }; /* S - w: at most 2^-10 of the lanes flagged */

typedef struct qb_tfl_plan {
    int ok;
    int S, w;             /* the shift, the window's bit (2W = 2^w) */
    int32_t ma, mb, bias; /* V = a Ma + b Mb + bias (the raw inputs) */
    uint32_t window;      /* bits w..S-1: a lane is flagged when V has none */
} qb_tfl_plan;

/* round(P / 2^k) (ties up) and |round - P / 2^k| as a double, k in [1, 62] */
static inline int64_t qb_tfl_round_shift(int64_t P, int k, double *err)
{
    int64_t r = (P + ((int64_t)1 << (k - 1))) >> k; /* floor of P / 2^k + 1/2 */
    int64_t d = r * ((int64_t)1 << k) - P;             /* |d| <= 2^(k-1): no overflow */
    *err = fabs((double)d) / ldexp(1.0, k);
    return r;
}

static inline void qb_tfl_plan_init(qb_tfl_plan *pl, const simdops_qbinary_params *p, int is_u8)
{
    const int32_t tlo = is_u8 ? 0 : -128, thi = is_u8 ? 255 : 127;
    const int64_t oa = p->a_offset, ob = p->b_offset, oy = p->y_offset;
    const double xa = fmax(fabs((double)(tlo + oa)), fabs((double)(thi + oa)));
    const double xb = fmax(fabs((double)(tlo + ob)), fabs((double)(thi + ob)));
    const int64_t pa = (int64_t)p->a_mult * p->y_mult, pb = (int64_t)p->b_mult * p->y_mult;
    int best_gap = QB_TFL_MIN_GAP - 1;
    memset(pl, 0, sizeof(*pl));
    if (p->left_shift != 20 || p->a_shift < 0 || p->a_shift > 31 || p->b_shift < 0 ||
        p->b_shift > 31 || p->y_shift < 0 || p->y_shift > 31)
        return;
    /* the reference without wraps: |(a + oa) 2^20| < 2^31, |ra + rb| < 2^31 - 3 */
    if (xa >= 2048.0 || xb >= 2048.0 ||
        xa * ldexp(fabs((double)p->a_mult), -11 - p->a_shift) +
                xb * ldexp(fabs((double)p->b_mult), -11 - p->b_shift) + 4.0 >= 2147483648.0)
        return;
    int ea_bits, eb_bits, S0; /* |Ma| < 2^21 needs S < 63 + sa + sy - log2|pa|: start near it */
    (void)frexp((double)(pa < 0 ? -pa : pa), &ea_bits);
    (void)frexp((double)(pb < 0 ? -pb : pb), &eb_bits);
    S0 = 63 + p->y_shift + (p->a_shift - ea_bits < p->b_shift - eb_bits ? p->a_shift - ea_bits
                                                                          : p->b_shift - eb_bits) + 1;
    for (int S = S0 < 30 ? S0 : 30; S >= 1; S--) {
        const int ka = 42 + p->a_shift + p->y_shift - S, kb = 42 + p->b_shift + p->y_shift - S;
        double ea, eb, need;
        int64_t Ma, Mb, b0, bias;
        int w, ok = 1;
        if (ka < 1 || ka > 62 || kb < 1 || kb > 62)
            continue;
        Ma = qb_tfl_round_shift(pa, ka, &ea);
        Mb = qb_tfl_round_shift(pb, kb, &eb);
        if (Ma <= -(1 << 21) || Ma >= (1 << 21) || Mb <= -(1 << 21) || Mb >= (1 << 21))
            continue;
        /* W > Dmax + 2^S E1, with slack for the doubles (all far below 2^52) */
        need = xa * ea + xb * eb + ldexp(3.0, S - p->y_shift) + 2.0;
        (void)frexp(need, &w); /* 2^(w-1) <= need < 2^w */
        w += 1;                /* the least w with 2^(w-1) > need */
        if (w >= S || S - w <= best_gap)
            break; /* a smaller S has no wider gap: the rounding errors stay, 2^S E1 halves */
        b0 = (oy * 2 + 1) * ((int64_t)1 << (S - 1)) + ((int64_t)1 << (w - 1));
        bias = oa * Ma + ob * Mb + b0;
        for (int c = 0; c < 4; c++) {
            int64_t v = bias + (int64_t)(c & 1 ? thi : tlo) * Ma + (int64_t)(c & 2 ? thi : tlo) * Mb;
            if (v < INT32_MIN || v > INT32_MAX)
                ok = 0;
        }
        if (!ok || bias < INT32_MIN || bias > INT32_MAX)
            continue;
        best_gap = S - w;
        pl->ok = 1;
        pl->S = S;
        pl->w = w;
        pl->ma = (int32_t)Ma;
        pl->mb = (int32_t)Mb;
        pl->bias = (int32_t)bias;
        pl->window = (uint32_t)((((uint64_t)1 << S) - 1) & ~(((uint64_t)1 << w) - 1));
        break; /* the largest S that fits: the widest gap (a few ldexp a call, not 30) */
    }
}

/* What the AVX-512 rows take from the plan into *out (the parameters' plan slot,
 * kernel_abi.h): the plan, and the linear form's split into XNNPACK's pairs
 * (qbinary_xnn_plan.h) with the pairs' constant in the bias; pairs 0 where either
 * refuses (the int32 rows run). A function of the fields of p and the type only, so
 * deriving it once a parameter set (simdops_qbinary_params_init) or once a kernel call
 * gives the same. */
static inline void qb_tfl_rows_derive(simdops_qb_tfl_add_plan *out,
                                      const simdops_qbinary_params *p, int is_u8)
{
    qb_tfl_plan tp;
    qb_xnn_plan pl;
    simdops_qbinary_params lin;
    memset(out, 0, sizeof(*out));
    qb_tfl_plan_init(&tp, p, is_u8);
    if (!tp.ok)
        return;
    lin = *p; /* the linear form as XNNPACK's parameters: the split, the pair bias */
    lin.a_mult = tp.ma;
    lin.b_mult = tp.mb;
    lin.bias = tp.bias;
    lin.shift = tp.S;
    lin.y_offset = 0;
    qb_xnn_plan_init(&pl, &lin, is_u8);
    if (!pl.pairs)
        return;
    out->pairs = 1;
    out->shift = (uint8_t)tp.S;
    out->window = tp.window;
    out->pair_bias = pl.pair_bias;
    out->q_ab = ((uint32_t)(uint16_t)pl.q_b << 16) | (uint16_t)pl.q_a;
    out->r_ab = ((uint32_t)(uint8_t)pl.r_b << 16) | (uint8_t)pl.r_a;
}

#endif
