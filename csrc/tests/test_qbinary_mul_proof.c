/* Kernel harness: TFLite's 8-bit multiply proved exact without its window for a
 * parameter set (kernels/qbinary/qbinary_tfl_mul_proof.h, rules/qbinary_proof.c). The
 * proved rows and the refused (window) rows both meet the all-pairs row against scalar:
 * the benchmark's numbers (which must prove, with and without a bound); numbers whose
 * nominal window-free form is wrong on some pairs but a neighbouring form proves
 * (int8); numbers no candidate proves (uint8: refused); a set refused because the
 * exact kernel it is given is doctored on one pair; random sets. The check must refuse
 * a form when any one pair's reference differs (first, last, a random one); the memo
 * proves a multiply set only after SIMDOPS_QB_PROOF_AFTER elements and only for calls of
 * SIMDOPS_QB_PROOF_MIN_N or more; with MXCSR in another rounding mode (the proof's fmaf
 * would not round as the rows' embedded rounding does) nothing proves.
 * Mutants: QB_PROOF_MUTANT_SKIP_PAIR (the check leaves the last pair out) fails the
 * doctored-reference rows; QB_PROOF_MUTANT_MUL_CLAIM (a set marked proved with its
 * nominal form, no check) fails the all-pairs rows of the search's numbers and the
 * refused numbers; QB_TMF_MUTANT_FLOOR_NEAREST (the floor form's rows converting to
 * nearest, as the other forms' do, while the proof's model rounds down) fails the
 * all-pairs rows of the benchmark's int8 numbers. test_qbinary.c calls qbinary_tfl_mul_proofs. */
#include "harness.h"

#include <stddef.h>
#include <stdlib.h>

#include "kernels/qbinary/qbinary_tfl_mul_proof.h"
#include "qbinary_args.h"
#include "rules/qbinary_proof.h"
#include "test_qbinary.h"

/* multiply numbers: scales s, zero points z (int8's; + 128 for uint8 when shift), hi
 * below the type's own when hi_cut > 0 (the fused bounds' rows) */
static int mul_params(simdops_dtype dt, const float s[3], const int z[3], int shift, int hi_cut,
                      simdops_qbinary_params *p)
{
    simdops_qbinary_args a;
    const int m = dt == SIMDOPS_UINT8 && shift ? 128 : 0;
    const int zm[3] = {z[0] + m, z[1] + m, z[2] + m};
    qb_args_fill(&a, SIMDOPS_OP_QUANTIZED_MULTIPLY, SIMDOPS_ARITH_TFLITE, s, zm);
    if (hi_cut) {
        a.has_max = 1;
        a.max = (dt == SIMDOPS_UINT8 ? 255 : 127) - hi_cut;
    }
    return qb_args_derive(dt, &a, p) == SIMDOPS_OK;
}

/* the benchmark's numbers (src/simdops/bench/ops_qbinary.py) */
static const float BENCH_S[3] = {0.0417f, 0.0388f, 0.0712f};
static const int BENCH_Z[3] = {-3, 5, -1};
/* int8: the nominal window-free form misses pairs, a form one ulp away proves */
static const float SEARCH_S[3] = {0.00279246829f, 0.00202086219f, 0.00351517973f};
static const int SEARCH_Z[3] = {-12, -18, -18};
/* uint8 (zero points as given): no candidate proves, the nominal form misses pairs */
static const float REFUSED_S[3] = {0.0293178409f, 0.00357302907f, 0.0184671711f};
static const int REFUSED_Z[3] = {205, 248, 53};

static int mul_find(const simdops_qbinary_params *p, int u8, const unsigned char *ref, void *f)
{
    return qb_tmf_proof_find(p, u8, ref, (qb_tmf_form *)f);
}

static int mul_check(const simdops_qbinary_params *p, int u8, const void *f,
                     const unsigned char *ref)
{
    return qb_tmf_proof_check(p, u8, (const qb_tmf_form *)f, ref);
}

/* an exact kernel doctored on one pair (its output moved within the bounds): the
 * proof given it must refuse */
static simdops_qbinary_fn g_exact;
static size_t g_doctored_at;
static int g_doctored_u8;
static void doctored_kernel(const void *a, const void *b, void *y, size_t n, int form,
                            const simdops_qbinary_params *p)
{
    unsigned char *out = (unsigned char *)y;
    g_exact(a, b, y, n, form, p);
    if (g_doctored_at < n) {
        const int32_t r = qb_tfl_proof_byte(out, (int)g_doctored_at, g_doctored_u8);
        out[g_doctored_at] = (unsigned char)(r < p->hi ? r + 1 : r - 1);
    }
}


/* prove_now on p must give want (1 proved, 0 refused), then every pair against scalar */
static void proved_or_refused(const target *t, simdops_qbinary_params *p, int want,
                              const char *what)
{
    const int got = simdops_qbinary_prove_now(p, (simdops_dtype)t->idx, (simdops_qbinary_fn)t->fn);
    if (got != want || p->plan.u.tfl_mul.proved != want)
        fail_head(t, what, (size_t)got, (size_t)want, 0);
    else
        g_pass++;
    qbinary_all_pairs(t, p);
}

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <xmmintrin.h>
/* the proof's fmaf in another rounding mode than the rows' embedded one: refused (the
 * benchmark's numbers, which prove to nearest), MXCSR toward -inf, +inf, zero */
static void rounding_modes(const target *t)
{
    const unsigned saved = _mm_getcsr();
    simdops_qbinary_params p;
    int proved = 0;
    for (unsigned rc = 1; rc < 4; rc++) {
        if (!mul_params((simdops_dtype)t->idx, BENCH_S, BENCH_Z, 1, 0, &p))
            continue;
        _mm_setcsr((saved & ~0x6000u) | (rc << 13));
        proved += simdops_qbinary_prove_now(&p, (simdops_dtype)t->idx, (simdops_qbinary_fn)t->fn);
        _mm_setcsr(saved);
    }
    if (proved)
        fail_head(t, "TFLite multiply proof: proved with fmaf in another rounding mode",
                  (size_t)proved, 0, 0);
    else
        g_pass++;
}
#else
static void rounding_modes(const target *t) { (void)t; }
#endif

void qbinary_tfl_mul_proofs(const target *t)
{
    static int hi_cut = 1; /* a new bound each call: a parameter set the memo has not seen */
    const simdops_dtype dt = (simdops_dtype)t->idx;
    const int u8 = dt == SIMDOPS_UINT8;
    simdops_qbinary_params p;
    int proved = 0, refused = 0;
    for (int cut = 0; cut < 2; cut++) { /* the benchmark's numbers, without and with a bound */
        if (!mul_params(dt, BENCH_S, BENCH_Z, 1, cut ? 9 : 0, &p))
            continue;
        proved_or_refused(t, &p, 1, "TFLite multiply proof: the benchmark's numbers refused");
        /* int8's (output offset -1) by the floor form: its rows are the ones the
         * all-pairs row above ran (uint8's offset 127 leaves the pick no shared bits) */
        if (!u8 && !p.plan.u.tfl_mul.floor_cvt)
            fail_head(t, "TFLite multiply proof: the benchmark's int8 numbers not by the floor form",
                      0, 1, 0);
        else
            g_pass++;
        if (!cut)
            {
                qb_tmf_form f;
                qb_proof_doctored_refs(t, &p, mul_find, mul_check, &f,
                                       "TFLite multiply proof (1: not proved, 2: a doctored reference passed)");
            }
    }
    if (!u8 && mul_params(dt, SEARCH_S, SEARCH_Z, 0, 0, &p))
        proved_or_refused(t, &p, 1, "TFLite multiply proof: the search's numbers refused");
    if (u8 && mul_params(dt, REFUSED_S, REFUSED_Z, 0, 0, &p))
        proved_or_refused(t, &p, 0, "TFLite multiply proof: the refused numbers proved");
    /* the exact kernel doctored on one pair: refused, and the window rows still exact */
    if (mul_params(dt, BENCH_S, BENCH_Z, 1, 0, &p)) {
        g_exact = (simdops_qbinary_fn)t->fn;
        g_doctored_at = below(QB_PROOF_PAIRS);
        g_doctored_u8 = u8;
        if (simdops_qbinary_prove_now(&p, dt, doctored_kernel) || p.plan.u.tfl_mul.proved)
            fail_head(t, "TFLite multiply proof: a doctored kernel's reference proved",
                      g_doctored_at, 0, 0);
        else
            g_pass++;
        qbinary_all_pairs(t, &p);
    }
    rounding_modes(t);
    {
        simdops_qbinary_params p;
        if (mul_params((simdops_dtype)t->idx, BENCH_S, BENCH_Z, 1, 20 + hi_cut++ % 90, &p))
            qb_proof_memo_rows(t, &p, offsetof(simdops_qbinary_params, plan.u.tfl_mul.proved),
                               "TFLite multiply proof memo: proved too early or not at all");
    }
    for (int tries = 0; tries < 40; tries++) {
        if (!qbinary_random_params(t, &p))
            continue;
        if (simdops_qbinary_prove_now(&p, dt, (simdops_qbinary_fn)t->fn))
            proved++;
        else
            refused++;
        qbinary_all_pairs(t, &p);
    }
    if (!proved)
        fail_head(t, "TFLite multiply proof: no random set proved", (size_t)proved,
                  (size_t)refused, 0);
    else {
        g_pass++;
        if (printing() && g_verbose)
            printf("tflite multiply proof: %d random parameter sets proved, %d refused\n", proved,
                   refused);
    }
}
