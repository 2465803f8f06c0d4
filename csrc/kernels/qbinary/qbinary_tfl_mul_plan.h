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

typedef struct qb_tmf_plan {
    int ok;
    float mu, cpos, cneg; /* rq_fast_x86.h's mu, c+ + a and c- + a (K = 16) */
    uint32_t window;      /* bits w..15: a lane is flagged when J has none */
} qb_tmf_plan;

/* The plan of a call (portable C, so the harness can ask for it) */
static inline void qb_tmf_plan_init(qb_tmf_plan *pl, const simdops_qbinary_params *p)
{
    double tc;
    int32_t a;
    memset(pl, 0, sizeof(*pl));
    if (p->a_offset < -255 || p->a_offset > 255 || p->b_offset < -255 || p->b_offset > 255)
        return;
    a = rqf_window(p->y_offset, p->lo, p->hi, RQF_PC_K, 2.001, &tc);
    if (!a || !rqf_pair_consts(p->y_mult, p->y_shift, p->left_shift, p->y_offset, a, RQF_PC_K,
                               &pl->mu, &pl->cpos, &pl->cneg))
        return;
    pl->window = (uint32_t)(((1 << RQF_PC_K) - 1) & ~(2 * a / QB_TMF_WINDOW_DIV - 1));
    pl->ok = 1;
}

#endif
