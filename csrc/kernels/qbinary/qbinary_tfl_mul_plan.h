/* TFLite's 8-bit multiply (qb_tflite_mul_one): the plan of the AVX-512 rows
 * (qbinary_tfl_mul_avx512.h, whose comment holds the proof), decided once a
 * call in portable C (no intrinsics, so the harness can ask for it and count
 * the flagged pairs): the requantization fast path's float32 constants
 * (rq_fast_params.h, K = 16) for the output multiplier and shift, and the
 * window. Refused (the int32 rows run): a left shift (an output scale over
 * the inputs' product), M <= 0, e outside [1, 23], |oa| or |ob| > 255 (the
 * int16 products), and what rqf_window refuses. */
#ifndef SIMDOPS_QBINARY_TFL_MUL_PLAN_H
#define SIMDOPS_QBINARY_TFL_MUL_PLAN_H

#include <stdint.h>
#include <string.h>

#include "core/kernel_abi.h"
#include "kernels/requant/rq_fast_params.h"

/* The harness's mutant hook only: the window's half-width taken smaller than the
 * proof's a (a wrong threshold, which the all-pairs rows must catch). */
#ifndef QB_TMF_WINDOW_DIV
#define QB_TMF_WINDOW_DIV 1
#endif

/* kernel_abi.h holds the type: the parameters store it (their plan slot) */
typedef simdops_qb_tfl_mul_plan qb_tmf_plan;

/* the constants and window for output offset o and bounds [lo, hi]: 1 when covered */
static inline int qb_tmf_consts(qb_tmf_plan *pl, const simdops_qbinary_params *p, int32_t o,
                                int32_t lo, int32_t hi)
{
    double tc;
    const int32_t a = rqf_window(o, lo, hi, RQF_PC_K, 2.001, &tc);
    if (!a || !rqf_pair_consts(p->y_mult, p->y_shift, p->left_shift, o, a, RQF_PC_K, &pl->mu,
                               &pl->cpos, &pl->cneg))
        return 0;
    pl->window = (uint32_t)(((1 << RQF_PC_K) - 1) & ~(2 * a / QB_TMF_WINDOW_DIV - 1));
    return 1;
}

static inline uint32_t qb_tmf_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The plan of a call. The pick form: when every product p lies in [-65536, 65535],
 * its bits 16..31 are copies of its sign, so vpternlogd(p, c-, c+) (a ? b : c
 * bitwise) gives c- or c+ whole when the two constants share their low 16 bits,
 * without the vpsrad that spreads the sign. They share them when they lie in one
 * binade whose 2^16 ulps divide their distance 2h = 2^(16-e); the usual output
 * offsets 0 and -1 put c0 = (o + 1/2) 2^16 on a binade boundary, so the rows may
 * compute with another offset o' (1, -2, 2, -3 are tried; |o' + 1/2| = 1.5 allows
 * e <= 7) and bounds [lo - d, hi - d], d = o - o', and add d to the high words
 * with int16 saturation: where the proof gives the high word H = r + o' exactly,
 * H + d = r + o (8-bit range: no saturation); where it gives H >= T' >= hi - d (or
 * H <= -T' - 1 <= lo - d) together with r + o' beyond the same bound, H + d,
 * saturated or not, and r + o both clamp to hi (lo). */
static inline void qb_tmf_plan_init(qb_tmf_plan *pl, const simdops_qbinary_params *p, int is_u8)
{
    /* the offsets tried, o itself where it is one of them (no add) or last; the first
     * that fits is taken, so the usual call (o in {0, -1}, e <= 7) derives one set of
     * constants (the per-channel runs call this once every 8,192 elements) */
    static const int32_t others[4] = {1, -2, 2, -3};
    const int32_t tlo = is_u8 ? 0 : -128, thi = is_u8 ? 255 : 127;
    const int64_t xa = (int64_t)(-(tlo + p->a_offset) > thi + p->a_offset ? -(tlo + p->a_offset)
                                                                           : thi + p->a_offset);
    const int64_t xb = (int64_t)(-(tlo + p->b_offset) > thi + p->b_offset ? -(tlo + p->b_offset)
                                                                           : thi + p->b_offset);
    memset(pl, 0, sizeof(*pl));
    if (p->a_offset < -255 || p->a_offset > 255 || p->b_offset < -255 || p->b_offset > 255)
        return;
    if (xa * xb <= 65535)
        for (int k = 0; k < 5; k++) {
            const int32_t o = k < 4 ? others[k] : p->y_offset, d = p->y_offset - o;
            qb_tmf_plan q;
            if (k == 4 && (o == 1 || o == -2 || o == 2 || o == -3))
                break; /* tried already */
            if (d < -32768 || d > 32767)
                continue; /* the rows add d as an int16 */
            memset(&q, 0, sizeof q);
            if (qb_tmf_consts(&q, p, o, p->lo - d, p->hi - d) &&
                !((qb_tmf_bits(q.cpos) ^ qb_tmf_bits(q.cneg)) & 0xFFFFu)) {
                *pl = q;
                pl->ok = pl->pick = 1;
                pl->zp_add = (int16_t)d;
                return;
            }
        }
    pl->ok = (uint8_t)qb_tmf_consts(pl, p, p->y_offset, p->lo, p->hi);
}

#endif
