/* Kernel harness: the AVX-512 rows' plans of the quantized binary entries
 * (qbinary_plan.h: TFLite's add and multiply, XNNPACK's add), each plan's forms and
 * window against the scalar tier over every input pair, and the parameters' plan slot
 * (stored, cleared, another type's, another kind's). test_qbinary.c calls these. */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "test_qbinary.h"

static void qbinary_stored_plan(const target *t, const simdops_qbinary_params *p);

/* XNNPACK's 8-bit add: every combination of the rows' plan (qbinary_xnn_plan.h:
 * zero point folded or not, bounds kept or the type's own, multipliers that
 * split for the pair rows or not: a_mult moved to 128 mod 257; the pair rows'
 * high words or not) meets the
 * all-pairs row, so each loop of every tier is compared with scalar; a
 * combination never reached fails. */
void qbinary_xnn_plans(const target *t)
{
    simdops_qbinary_params p;
    int hit[16] = {0}, missing = 0;
    for (int tries = 0; tries < 4000; tries++) {
        qb_xnn_plan pl;
        int c;
        if (!qbinary_random_params(t, &p))
            continue;
        if (tries < 4) /* the plan as the init stored it, and ones the kernel must refuse */
            qbinary_stored_plan(t, &p);
        if (chance(30))
            p.a_mult += (int32_t)(((128 - (int64_t)p.a_mult) % 257 + 257) % 257);
        if (chance(30)) { /* one bound the type's own, the other perhaps not */
            if (chance(50))
                p.lo = (int32_t)DT[t->idx].lo;
            else
                p.hi = (int32_t)DT[t->idx].hi;
        }
        p.plan.derived = 0; /* fields changed after the init: the kernel derives its plan */
        qb_xnn_plan_init(&pl, &p, t->idx == SIMDOPS_UINT8);
        c = 8 * pl.high + 4 * pl.fold + 2 * pl.clamp + pl.pairs;
        if (hit[c]++ < 2)
            qbinary_all_pairs(t, &p);
    }
    for (int c = 0; c < 16; c++)
        /* high only with pairs; pairs without high always fold */
        missing += !hit[c] && !(c >= 8 && !(c & 1)) && !(c < 8 && (c & 1) && !(c & 4));
    if (missing)
        fail_head(t, "XNNPACK add plans not all reached", (size_t)missing, 0, 0);
    else
        g_pass++;
}

/* Another kind's stored plan for the type: the parameters' init for kind's entry with
 * the benchmark's numbers (every plan kind takes them: a nonzero plan) */
static void plan_of_kind(int32_t kind, simdops_dtype dt, simdops_qbinary_params *q)
{
    simdops_qbinary_args a;
    simdops_error err;
    memset(&a, 0, sizeof(a));
    a.op = kind == SIMDOPS_QB_TFLITE_MUL ? SIMDOPS_OP_QUANTIZED_MULTIPLY : SIMDOPS_OP_QUANTIZED_ADD;
    a.arithmetic = kind == SIMDOPS_QB_XNNPACK_ADD ? SIMDOPS_ARITH_XNNPACK : SIMDOPS_ARITH_TFLITE;
    a.a_scale = numf(0.0417f);
    a.b_scale = numf(0.0388f);
    a.y_scale = numf(kind == SIMDOPS_QB_TFLITE_MUL ? 0.0271f : 0.0712f);
    a.a_zero_point = 3;
    a.b_zero_point = dt == SIMDOPS_UINT8 ? 5 : -5;
    a.y_zero_point = 1;
    memset(&err, 0, sizeof(err));
    if (simdops_qbinary_params_init(dt, &a, q, &err) != SIMDOPS_OK || q->kind != kind ||
        q->plan.derived != SIMDOPS_QB_PLAN_TAG(kind, dt == SIMDOPS_UINT8))
        memset(q, 0, sizeof(*q));
}

/* The parameters' plan slot (qbinary_plan.h) of a parameter set p the init derived: the
 * stored plan is the one derived afresh (tag and bytes), and the all-pairs row meets
 * the kernel with the slot as stored, cleared (the kernel derives it), holding the
 * other 8-bit type's plan of p, and holding another kind's plan (a parameter set of
 * that kind's): the kernel must take neither (the test it uses, QB_PLAN_STORED, is
 * asked too). The mutant QB_PLAN_MUTANT_ANY_KIND (the kind not checked) reads another
 * kind's layout and fails here. */
static void qbinary_stored_plan(const target *t, const simdops_qbinary_params *p)
{
    static const int32_t kinds[3] = {SIMDOPS_QB_TFLITE_ADD, SIMDOPS_QB_TFLITE_MUL,
                                     SIMDOPS_QB_XNNPACK_ADD};
    const int u8 = t->idx == SIMDOPS_UINT8;
    simdops_qbinary_params fresh = *p, none = *p, other = *p;
    qb_plan_store(&fresh, u8);
    if (p->plan.derived != SIMDOPS_QB_PLAN_TAG(p->kind, u8) || !QB_PLAN_STORED(p, p->kind, u8) ||
        memcmp(&fresh.plan, &p->plan, sizeof(p->plan)))
        fail_head(t, "stored plan: not the one the parameters' init derives", 0, 0, 0);
    else
        g_pass++;
    qbinary_all_pairs(t, p);
    none.plan.derived = 0;
    qbinary_all_pairs(t, &none);
    qb_plan_store(&other, !u8);
    if (QB_PLAN_STORED(&other, p->kind, u8))
        fail_head(t, "stored plan: the other type's plan taken", 0, 0, 0);
    qbinary_all_pairs(t, &other);
    for (int k = 0; k < 3; k++) {
        simdops_qbinary_params q, wrong = *p;
        if (kinds[k] == p->kind)
            continue;
        plan_of_kind(kinds[k], (simdops_dtype)t->idx, &q);
        if (!q.plan.derived) {
            fail_head(t, "stored plan: no plan of another kind to test with", (size_t)k, 0, 0);
            continue;
        }
        wrong.plan = q.plan;
        /* the kernels' test itself (the TFLite multiply's rows would also survive some
         * wrong plans: constants that flag every lane send it to the exact int32 step) */
        if (QB_PLAN_STORED(&wrong, p->kind, u8))
            fail_head(t, "stored plan: another kind's plan taken", (size_t)k, 0, 0);
        else
            g_pass++;
        qbinary_all_pairs(t, &wrong);
    }
}

/* TFLite's 8-bit add, the AVX-512 rows' plan (qbinary_tfl_plan.h): parameter
 * sets it takes meet the all-pairs row (every input pair, so every lane of
 * the window, flagged or not); and among them, pairs whose V lies in the
 * window, i.e. the rows' scalar recompute runs, counted by the plan's own
 * arithmetic (in int64). Fails when the plan is never taken or no pair was
 * ever flagged: the fallback would go untested. Each also meets
 * qbinary_stored_plan's rows (the plan as the init stored it, none, another
 * type's, another kind's). */
void qbinary_tfl_plans(const target *t)
{
    simdops_qbinary_params p;
    const int u8 = t->idx == SIMDOPS_UINT8;
    const int32_t tlo = u8 ? 0 : -128, thi = u8 ? 255 : 127;
    long taken = 0, flagged = 0;
    for (int tries = 0; tries < 60; tries++) {
        qb_tfl_plan tp;
        if (!qbinary_random_params(t, &p))
            continue;
        qb_tfl_plan_init(&tp, &p, u8);
        if (!tp.ok)
            continue;
        taken++;
        for (int32_t a = tlo; a <= thi; a++)
            for (int32_t b = tlo; b <= thi; b++) {
                int64_t v = (int64_t)a * tp.ma + (int64_t)b * tp.mb + tp.bias;
                flagged += ((uint32_t)v & tp.window) == 0;
            }
        if (taken <= 6) /* the parameters' stored plan and the ones the kernel must refuse */
            qbinary_stored_plan(t, &p);
        else
            qbinary_all_pairs(t, &p);
    }
    if (!taken || !flagged) {
        fail_head(t, "TFLite add plan: not taken or no pair flagged", (size_t)taken, 0, 0);
    } else {
        g_pass++;
        if (printing() && g_verbose)
            printf("tflite add plan: %ld parameter sets, %ld pairs flagged\n", taken, flagged);
    }
}

/* Whether the AVX-512 TFLite multiply rows flag the product x (the plan's float
 * arithmetic in scalar: fmaf and rintf round to nearest here, as the rows'
 * embedded rounding; out of int32: INT32_MIN, flagged). */
static int tmf_flagged(const qb_tmf_plan *tp, int32_t x)
{
    const float f = fmaf((float)x, tp->mu, x < 0 ? tp->cneg : tp->cpos);
    const int32_t j = f >= -2147483648.0f && f < 2147483648.0f ? (int32_t)rintf(f) : INT32_MIN;
    return ((uint32_t)j & tp->window) == 0;
}

/* TFLite's 8-bit multiply, the AVX-512 rows' plan (qbinary_tfl_mul_plan.h):
 * parameter sets it takes meet the all-pairs row (every input pair, so every
 * lane of the window, flagged or not), random ones and ones built to sit on
 * the window: M = 2^30 + d (d < 64, below float's precision at 2^30) puts the
 * products with p + sgn(p) = 2^e mod 2^(e+1) a distance p d 2^(16-31-e) < 1
 * unit from a rounding boundary, on the side that p's sign picks, so a window
 * narrower than the proof's a (the mutant QB_TMF_WINDOW_DIV = 2) leaves the
 * negative ones wrong. Counts the flagged pairs by the plan's own arithmetic
 * (the rows' int32 recompute runs); fails when the plan is never taken, one of
 * its three forms (the sign spread, the product picking c+ / c- with or without
 * a moved output offset) never, or no pair was ever flagged. */
void qbinary_tfl_mul_plans(const target *t)
{
    simdops_qbinary_params p;
    const int u8 = t->idx == SIMDOPS_UINT8;
    const int32_t tlo = u8 ? 0 : -128, thi = u8 ? 255 : 127;
    long taken = 0, flagged = 0, forms[3] = {0, 0, 0}, stored = 0;
    for (int tries = 0; tries < 80; tries++) {
        qb_tmf_plan tp;
        if (!qbinary_random_params(t, &p))
            continue;
        if (tries % 2) { /* on the window */
            p.y_mult = (1 << 30) + (int32_t)below(64);
            p.y_shift = 1 + (int32_t)below(8);
            p.left_shift = 0;
            if (tries % 4 == 1) /* an offset the pick form takes as it is */
                p.y_offset = u8 || chance(50) ? 1 : -2;
            p.plan.derived = 0; /* fields changed after the init: the kernel derives its plan */
        }
        qb_tmf_plan_init(&tp, &p, u8);
        if (tp.ok)
            forms[tp.pick ? (tp.zp_add ? 1 : 2) : 0]++;
        if (!tp.ok)
            continue;
        taken++;
        for (int32_t a = tlo; a <= thi; a++)
            for (int32_t b = tlo; b <= thi; b++)
                flagged += tmf_flagged(&tp, (a + p.a_offset) * (b + p.b_offset));
        if (p.plan.derived && ++stored <= 6) /* as the init stored it, and refused ones */
            qbinary_stored_plan(t, &p);
        else
            qbinary_all_pairs(t, &p);
    }
    if (!taken || !flagged || !forms[0] || !forms[1] || !forms[2]) {
        fail_head(t, "TFLite multiply plan: not taken, a form never taken or no pair flagged",
                  (size_t)taken, 0, 0);
    } else {
        g_pass++;
        if (printing() && g_verbose)
            printf("tflite multiply plan: %ld parameter sets (sign spread %ld, picked with an "
                   "offset moved %ld, picked %ld), %ld pairs flagged\n",
                   taken, forms[0], forms[1], forms[2], flagged);
    }
}
