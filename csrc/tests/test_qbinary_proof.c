/* Kernel harness: TFLite's 8-bit add proved exact without its window for a parameter
 * set (kernels/qbinary/qbinary_tfl_proof.h, rules/qbinary_proof.c). The proved rows
 * and the refused (window) rows both meet the all-pairs row against scalar; the
 * benchmark's numbers must be proved (their nominal form misses pairs: the search's
 * case); the check must refuse a form when any one pair's reference differs (first,
 * last, a random one); the memo proves only after SIMDOPS_QB_PROOF_AFTER elements and
 * only for calls of SIMDOPS_QB_PROOF_MIN_N or more.
 * Mutants: QB_PROOF_MUTANT_SKIP_PAIR (the check leaves the last pair out) fails the
 * doctored-reference rows; QB_PROOF_MUTANT_CLAIM (a refused set marked proved with its
 * nominal form) fails the all-pairs rows. test_qbinary.c calls qbinary_tfl_proofs. */
#include "harness.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rules/qbinary_proof.h"
#include "kernels/qbinary/qbinary_tfl_proof.h"
#include "test_qbinary.h"

/* the benchmark's numbers (src/simdops/bench/ops_qbinary.py), zero points moved by 128
 * for uint8, hi below the type's own when hi_cut > 0 (the fused bounds' rows) */
static int bench_params(simdops_dtype dt, int hi_cut, simdops_qbinary_params *p)
{
    simdops_qbinary_args a;
    simdops_error err;
    const int64_t z = dt == SIMDOPS_UINT8 ? 128 : 0;
    memset(&a, 0, sizeof(a));
    a.op = SIMDOPS_OP_QUANTIZED_ADD;
    a.arithmetic = SIMDOPS_ARITH_TFLITE;
    a.a_scale = numf(0.0417f);
    a.b_scale = numf(0.0388f);
    a.y_scale = numf(0.0712f);
    a.a_zero_point = z - 3;
    a.b_zero_point = z + 5;
    a.y_zero_point = z - 1;
    if (hi_cut) {
        a.has_max = 1;
        a.max = z + 127 - hi_cut;
    }
    memset(&err, 0, sizeof(err));
    return simdops_qbinary_params_init(dt, &a, p, &err) == SIMDOPS_OK;
}

/* the check refuses the op's form when the reference of one pair (first, last, random)
 * differs: find / check are the op's proof (the add's or the multiply's, on a form kept in
 * `form`), `what` names the op in the failures */
void qb_proof_doctored_refs(const target *t, const simdops_qbinary_params *p,
                            qb_proof_find_fn find, qb_proof_check_fn check, void *form,
                            const char *what)
{
    const int u8 = t->idx == SIMDOPS_UINT8;
    unsigned char *buf = (unsigned char *)malloc(3 * (size_t)QB_PROOF_PAIRS), *ref;
    if (!buf)
        return;
    ref = buf + 2 * QB_PROOF_PAIRS;
    qb_tfl_proof_pairs(u8, buf, buf + QB_PROOF_PAIRS);
    ((simdops_qbinary_fn)t->ref)(buf, buf + QB_PROOF_PAIRS, ref, QB_PROOF_PAIRS, SIMDOPS_QB_VV, p);
    if (!find(p, u8, ref, form)) {
        fail_head(t, what, 1, 0, 0); /* 1: the benchmark's numbers not proved */
    } else {
        const int at[3] = {0, QB_PROOF_PAIRS - 1, (int)below(QB_PROOF_PAIRS)};
        int missed = 0;
        for (int k = 0; k < 3; k++) {
            const unsigned char keep = ref[at[k]];
            /* another output inside the bounds (the clamp would hide one outside) */
            const int32_t r = qb_tfl_proof_byte(ref, at[k], u8);
            ref[at[k]] = (unsigned char)(r < p->hi ? r + 1 : r - 1);
            missed += check(p, u8, form, ref);
            ref[at[k]] = keep;
        }
        if (missed || !check(p, u8, form, ref))
            fail_head(t, what, 2, (size_t)missed, 0); /* 2: a doctored reference passed */
        else
            g_pass++;
    }
    free(buf);
}

static int add_find(const simdops_qbinary_params *p, int u8, const unsigned char *ref, void *f)
{
    return qb_tfl_proof_find(p, u8, ref, (qb_tfl_form *)f);
}

static int add_check(const simdops_qbinary_params *p, int u8, const void *f,
                     const unsigned char *ref)
{
    return qb_tfl_proof_check(p, u8, (const qb_tfl_form *)f, ref);
}

/* the memo: not proved before the set served SIMDOPS_QB_PROOF_AFTER elements, proved
 * from then on (a bound of its own, so the set is new to this thread's memo); p's plan
 * has its proved byte at `proved` (the add's or the multiply's), `what` names the op */
void qb_proof_memo_rows(const target *t, const simdops_qbinary_params *p, size_t proved,
                        const char *what)
{
    simdops_qbinary_params c;
    const uint64_t n = 65536;
    int early = 0, late = 0;
    unsigned char *mark = (unsigned char *)&c + proved;
    for (uint64_t k = 0; k * n <= SIMDOPS_QB_PROOF_AFTER + 2 * n; k++) {
        c = *p;
        *mark = 1; /* a handle's stray mark: cleared */
        simdops_qbinary_proof(&c, (simdops_dtype)t->idx, n, (simdops_qbinary_fn)t->fn);
        if (k * n < SIMDOPS_QB_PROOF_AFTER)
            early += *mark;
        else
            late += !*mark;
    }
    c = *p; /* a small call: neither the memo nor the proved rows */
    simdops_qbinary_proof(&c, (simdops_dtype)t->idx, SIMDOPS_QB_PROOF_MIN_N - 1,
                          (simdops_qbinary_fn)t->fn);
    late += *mark;
    if (early || late)
        fail_head(t, what, (size_t)early, (size_t)late, 0);
    else
        g_pass++;
}

void qbinary_tfl_proofs(const target *t)
{
    static int hi_cut = 1; /* a new bound each call: a parameter set the memo has not seen */
    simdops_qbinary_params p;
    int proved = 0, refused = 0;
    for (int cut = 0; cut < 2; cut++) { /* the benchmark's numbers, without and with a bound */
        if (!bench_params((simdops_dtype)t->idx, cut ? 9 : 0, &p))
            continue;
        if (!simdops_qbinary_prove_now(&p, (simdops_dtype)t->idx, (simdops_qbinary_fn)t->fn))
            fail_head(t, "TFLite add proof: the benchmark's numbers refused", (size_t)cut, 0, 0);
        qbinary_all_pairs(t, &p);
        if (!cut)
            {
                qb_tfl_form f;
                qb_proof_doctored_refs(t, &p, add_find, add_check, &f,
                                       "TFLite add proof (1: not proved, 2: a doctored reference passed)");
            }
    }
    {
        simdops_qbinary_params p;
        if (bench_params((simdops_dtype)t->idx, 20 + hi_cut++ % 90, &p))
            qb_proof_memo_rows(t, &p, offsetof(simdops_qbinary_params, plan.u.tfl_add.proved),
                               "TFLite add proof memo: proved too early or not at all");
    }
    for (int tries = 0; tries < 40; tries++) {
        if (!qbinary_random_params(t, &p))
            continue;
        if (simdops_qbinary_prove_now(&p, (simdops_dtype)t->idx, (simdops_qbinary_fn)t->fn))
            proved++;
        else
            refused++;
        qbinary_all_pairs(t, &p);
    }
    if (!proved || !refused)
        fail_head(t, "TFLite add proof: proved or refused never reached", (size_t)proved,
                  (size_t)refused, 0);
    else {
        g_pass++;
        if (printing() && g_verbose)
            printf("tflite add proof: %d parameter sets proved, %d refused\n", proved, refused);
    }
}
