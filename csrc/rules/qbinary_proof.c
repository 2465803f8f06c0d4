/* Where TFLite's 8-bit add and multiply pay for their proofs
 * (kernels/qbinary/qbinary_tfl_proof.h, qbinary_tfl_mul_proof.h): one memo per thread
 * of the last MEMO parameter sets a call used, each with the elements it has served,
 * and the verdict once proved or refused.
 *
 * - No call pays a proof for a parameter set that has not yet served
 *   SIMDOPS_QB_PROOF_AFTER elements in earlier calls of this thread: a one-off call,
 *   or a user cycling through more parameter sets than the memo holds, never proves
 *   (the window rows run, as without the proof).
 * - A parameter set is proved once a thread (the verdict, proved or refused, stays).
 * - Per thread, so no lock and no data race: the memo is thread-local, and the
 *   verdict goes into the call's own copy of the parameters, never into a prepared
 *   handle another thread may be reading.
 * The key is the parameters' fields before the plan slot, byte for byte (the kind,
 * add or multiply, and the output bounds included: they are part of what is proved),
 * and the type. */
#include "rules/qbinary_proof.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/thread_local.h"
#include "kernels/qbinary/qbinary_plan.h"
#include "kernels/qbinary/qbinary_tfl_mul_proof.h"
#include "kernels/qbinary/qbinary_tfl_proof.h"

enum { MEMO = 16, KEY = offsetof(simdops_qbinary_params, plan) };
enum { COUNTING = 1, PROVED = 2, REFUSED = 3 };

typedef struct memo_entry {
    unsigned char key[KEY];
    int32_t is_u8, state;
    uint64_t served; /* elements served before the proof */
    union {          /* PROVED: the plan to run (the key's kind says which) */
        simdops_qb_tfl_add_plan add;
        simdops_qb_tfl_mul_plan mul;
    } plan;
} memo_entry;

static SIMDOPS_THREAD_LOCAL memo_entry memo[MEMO];
static SIMDOPS_THREAD_LOCAL unsigned memo_next, memo_last;

/* 1 for the kinds with a proof */
static int proof_kind(int32_t kind)
{
    return kind == SIMDOPS_QB_TFLITE_ADD || kind == SIMDOPS_QB_TFLITE_MUL;
}

/* the proved mark of p's kind cleared (a proof kind's) */
static void clear_proved(simdops_qbinary_params *p)
{
    if (p->kind == SIMDOPS_QB_TFLITE_ADD)
        p->plan.u.tfl_add.proved = 0;
    else
        p->plan.u.tfl_mul.proved = 0;
}

/* TFLite's add: the form found and applied (p proved), or 0 */
static int prove_add(simdops_qbinary_params *p, int is_u8, const unsigned char *ref)
{
    qb_tfl_form f;
    int ok = qb_tfl_proof_find(p, is_u8, ref, &f);
#ifdef QB_PROOF_MUTANT_CLAIM /* the harness's mutant: the plan claims proved without proof */
    if (!ok) {
        qb_tfl_plan tp;
        qb_tfl_plan_init(&tp, p, is_u8);
        f.S = tp.S;
        f.ma = tp.ma;
        f.mb = tp.mb;
        f.bias = (int32_t)(tp.bias - ((int64_t)1 << (tp.w - 1)));
        ok = tp.ok && qb_tfl_form_fits(&f, is_u8);
    }
#endif
    if (ok)
        qb_tfl_proof_apply(p, is_u8, &f);
    return ok;
}

/* TFLite's multiply: the form found and applied (p proved), or 0 */
static int prove_mul(simdops_qbinary_params *p, int is_u8, const unsigned char *ref)
{
    qb_tmf_form f;
    int ok = qb_tmf_proof_find(p, is_u8, ref, &f);
#ifdef QB_PROOF_MUTANT_MUL_CLAIM /* the harness's mutant: claimed with the nominal form */
    if (!ok) {
        qb_tmf_plan tp;
        qb_tmf_plan_init(&tp, p, is_u8);
        ok = tp.ok && qb_tmf_nominal(p, &tp, &f);
    }
#endif
    if (ok)
        qb_tmf_proof_apply(p, &f);
    return ok;
}

int simdops_qbinary_prove_now(simdops_qbinary_params *p, simdops_dtype dtype,
                              simdops_qbinary_fn kernel)
{
    const int is_u8 = dtype == SIMDOPS_UINT8;
    simdops_qbinary_params exact;
    unsigned char *buf;
    int ok;
    if (!proof_kind(p->kind))
        return 0; /* the plan slot is another kind's union member: not touched */
    clear_proved(p);
    if ((dtype != SIMDOPS_INT8 && dtype != SIMDOPS_UINT8) || !QB_PLAN_STORED(p, p->kind, is_u8) ||
        !kernel)
        return 0;
    buf = (unsigned char *)malloc(3 * (size_t)QB_PROOF_PAIRS);
    if (!buf)
        return 0;
    qb_tfl_proof_pairs(is_u8, buf, buf + QB_PROOF_PAIRS);
    exact = *p; /* proved 0: the kernel's exact rows give the reference's bits */
    kernel(buf, buf + QB_PROOF_PAIRS, buf + 2 * QB_PROOF_PAIRS, QB_PROOF_PAIRS, SIMDOPS_QB_VV, &exact);
    ok = p->kind == SIMDOPS_QB_TFLITE_ADD ? prove_add(p, is_u8, buf + 2 * QB_PROOF_PAIRS)
                                          : prove_mul(p, is_u8, buf + 2 * QB_PROOF_PAIRS);
    free(buf);
    return ok;
}

void simdops_qbinary_proof(simdops_qbinary_params *p, simdops_dtype dtype, uint64_t n,
                           simdops_qbinary_fn kernel)
{
    const int is_u8 = dtype == SIMDOPS_UINT8;
    memo_entry *e = NULL;
    if (!proof_kind(p->kind))
        return; /* the plan slot is another kind's union member: not touched */
    clear_proved(p); /* whatever the handle held: only a proof sets it */
    /* a small call neither counts nor looks (its time is the call's own cost: the
     * proved rows would save it ~1 ns a 64) */
    if (n < SIMDOPS_QB_PROOF_MIN_N || (dtype != SIMDOPS_INT8 && dtype != SIMDOPS_UINT8) ||
        !QB_PLAN_STORED(p, p->kind, is_u8))
        return;
    for (unsigned j = 0; j < MEMO; j++) { /* the last set used first */
        const unsigned k = (memo_last + j) % MEMO;
        if (memo[k].state && memo[k].is_u8 == is_u8 && !memcmp(memo[k].key, p, KEY)) {
            e = &memo[k];
            memo_last = k;
            break;
        }
    }
    if (!e) { /* a new parameter set: counted from this call on */
        memo_last = memo_next % MEMO;
        e = &memo[memo_next++ % MEMO];
        memcpy(e->key, p, KEY);
        e->is_u8 = is_u8;
        e->state = COUNTING;
        e->served = n;
        return;
    }
    if (e->state == COUNTING) {
        if (e->served < SIMDOPS_QB_PROOF_AFTER) {
            e->served += n;
            return;
        }
        e->state = simdops_qbinary_prove_now(p, dtype, kernel) ? PROVED : REFUSED;
        if (p->kind == SIMDOPS_QB_TFLITE_ADD)
            e->plan.add = p->plan.u.tfl_add;
        else
            e->plan.mul = p->plan.u.tfl_mul;
    }
    if (e->state == PROVED) {
        if (p->kind == SIMDOPS_QB_TFLITE_ADD)
            p->plan.u.tfl_add = e->plan.add;
        else
            p->plan.u.tfl_mul = e->plan.mul;
    }
}
