/* Whether the exhaustive proof of TFLite's 8-bit add (kernels/qbinary/qbinary_tfl_proof.h)
 * pays, and why ONNX Runtime's add gets none:
 *   1. the benchmark's numbers (src/simdops/bench/ops_qbinary.py) and N random realistic
 *      sets (a_scale in [1e-3, 0.3], b_scale within 5x of it, y_scale 1-4x the larger,
 *      zero points within +-20 of the type's middle), int8 and uint8 alternating:
 *        tflite: pairs of 65,536 the test-free form with the plan's S, Ma, Mb (bias
 *                without the window's W) gets wrong; whether the proof (nominal or
 *                searched form) proves the set;
 *        ort:    pairs the same kind of form (Ma = round(2^S ra), Mb likewise, bias
 *                round(2^S fixed) + 2^(S-1), the largest S with |M| < 2^21) gets
 *                wrong against ONNX Runtime's two float roundings; pairs whose float
 *                value lies exactly on a half (cvtps2dq rounds them to even); and for
 *                the benchmark's numbers the widest interval any REAL floor form
 *                floor(alpha a + beta b + gamma) leaves for gamma (<= 0: none matches
 *                every pair, at any precision, so no proof can pass);
 *   2. the proof's cost (simdops_qbinary_prove_now with the dispatched kernel) and the
 *      dispatched kernel's 64K call with the window rows and with the proved rows
 *      (the benchmark's arrays: b = a reversed), thread CPU time, medians of
 *      interleaved rounds.
 *   3. TFLite's 8-bit multiply (kernels/qbinary/qbinary_tfl_mul_proof.h): of the same random
 *      sets, how many prove and with which form; the benchmark's numbers; the proof's cost
 *      and the 64K call with the window rows and with the proved rows.
 *   bash tools/cbench.sh OUT && OUT/qb_proof_count [N random sets] [rounds] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "kernels/qbinary/qbinary_element.h"
#include "kernels/qbinary/qbinary_tfl_mul_proof.h"
#include "kernels/qbinary/qbinary_tfl_proof.h"
#include "kernels/registry.h"
#include "rules/qbinary.h"
#include "rules/qbinary_proof.h"
#include "simdops/simdops.h"
#include "tests/qbinary_args.h"

static int derive_op(int op, int arith, int u8, const float s[3], const int zp[3],
                     simdops_qbinary_params *p);
static int derive(int arith, int u8, const float s[3], const int zp[3], simdops_qbinary_params *p)
{
    return derive_op(SIMDOPS_OP_QUANTIZED_ADD, arith, u8, s, zp, p);
}
static int derive_op(int op, int arith, int u8, const float s[3], const int zp[3],
                     simdops_qbinary_params *p)
{
    simdops_qbinary_args a;
    qb_args_fill(&a, op, arith, s, zp);
    return qb_args_derive(u8 ? SIMDOPS_UINT8 : SIMDOPS_INT8, &a, p);
}

static simdops_qbinary_fn tfl_kernel(int u8)
{
    return simdops_current_kernels()->qadd_tflite[u8 ? SIMDOPS_UINT8 : SIMDOPS_INT8];
}

/* tflite: wrong pairs of the nominal test-free form (-1: the plan refused), and
 * whether the proof proves the set */
static int tfl_count(int u8, const float s[3], const int zp[3], int *proved)
{
    simdops_qbinary_params p;
    qb_tfl_plan pl;
    qb_tfl_form f;
    int wrong = 0, tlo = u8 ? 0 : -128;
    *proved = 0;
    if (derive(SIMDOPS_ARITH_TFLITE, u8, s, zp, &p))
        return -1;
    qb_tfl_plan_init(&pl, &p, u8);
    if (!pl.ok)
        return -1;
    f.S = pl.S;
    f.ma = pl.ma;
    f.mb = pl.mb;
    f.bias = (int32_t)(pl.bias - ((int64_t)1 << (pl.w - 1)));
    for (int i = 0; i < QB_PROOF_PAIRS; i++) {
        int a = tlo + (i >> 8), b = tlo + (i & 255);
        wrong += qb_tfl_form_one(&f, a, b, &p) != qb_tflite_add_one(a, b, &p);
    }
    *proved = simdops_qbinary_prove_now(&p, u8 ? SIMDOPS_UINT8 : SIMDOPS_INT8, tfl_kernel(u8));
    return wrong;
}

static simdops_qbinary_fn tmf_kernel(int u8)
{
    return simdops_current_kernels()->qmul_tflite[u8 ? SIMDOPS_UINT8 : SIMDOPS_INT8];
}

/* tflite multiply: -1 the plan refused (the int32 rows: nothing to prove), else 0
 * refused, 1 proved with one constant, 2 the floor form, 3 with the nominal constants
 * (the nearest form), 4 searched */
static int tmf_count(int u8, const float s[3], const int zp[3])
{
    simdops_qbinary_params p;
    qb_tmf_plan pl;
    qb_tmf_form nom;
    unsigned char *ref = (unsigned char *)malloc(QB_PROOF_PAIRS);
    int r = -1, tlo = u8 ? 0 : -128;
    if (!ref)
        return -1;
    if (!derive_op(SIMDOPS_OP_QUANTIZED_MULTIPLY, SIMDOPS_ARITH_TFLITE, u8, s, zp, &p)) {
        qb_tmf_plan_init(&pl, &p, u8);
        if (pl.ok) {
            for (int i = 0; i < QB_PROOF_PAIRS; i++)
                ref[i] = (unsigned char)qb_tflite_mul_one(tlo + (i >> 8), tlo + (i & 255), &p);
            if (!simdops_qbinary_prove_now(&p, u8 ? SIMDOPS_UINT8 : SIMDOPS_INT8, tmf_kernel(u8)))
                r = 0;
            else if (p.plan.u.tfl_mul.pick == 2)
                r = 1;
            else if (p.plan.u.tfl_mul.floor_cvt)
                r = 2;
            else
                r = qb_tmf_nominal(&p, &pl, &nom) && qb_tmf_proof_check(&p, u8, &nom, ref) ? 3 : 4;
        }
    }
    free(ref);
    return r;
}

/* ort: wrong pairs of the nominal pair form, and the exact half-way float values */
static int ort_count(int u8, const float s[3], const int zp[3], int *ties)
{
    simdops_qbinary_params p;
    int wrong = 0, tlo = u8 ? 0 : -128, S;
    int64_t Ma = 0, Mb = 0, bias = 0;
    *ties = 0;
    derive(SIMDOPS_ARITH_ONNXRUNTIME, u8, s, zp, &p);
    for (S = 30; S >= 1; S--) {
        Ma = llround(ldexp(p.ratio_a, S));
        Mb = llround(ldexp(p.ratio_b, S));
        bias = llround(ldexp(p.fixed, S)) + ((int64_t)1 << (S - 1));
        if (llabs(Ma) < (1 << 21) && llabs(Mb) < (1 << 21))
            break;
    }
    for (int i = 0; i < QB_PROOF_PAIRS; i++) {
        int a = tlo + (i >> 8), b = tlo + (i & 255);
        int64_t y = ((int64_t)a * Ma + (int64_t)b * Mb + bias) >> S;
        float t = fmaf((float)b, p.ratio_b, p.fixed), v = fmaf((float)a, p.ratio_a, t);
        y = y < p.lo ? p.lo : y > p.hi ? p.hi : y;
        wrong += y != qb_ort_add_vv(a, b, &p);
        *ties += v - floorf(v) == 0.5f;
    }
    return wrong;
}

/* ort: the widest interval of gamma with which ONE real form floor(alpha a + beta b +
 * gamma) gives ONNX Runtime's output of every pair, maximized over (alpha, beta) by
 * nested ternary searches (the width is concave in them). <= 0: no linear floor form
 * at all, whatever its precision, matches every pair (so no proof can pass) */
static int32_t g_ref[256][256];
static double ort_width(const simdops_qbinary_params *p, int tlo, double al, double be)
{
    double lo = -1e300, hi = 1e300;
    for (int i = 0; i < 256; i++)
        for (int j = 0; j < 256; j++) {
            const int32_t k = g_ref[i][j];
            const double v = al * (tlo + i) + be * (tlo + j);
            if (k > p->lo && k - v > lo)
                lo = k - v;
            if (k < p->hi && k + 1 - v < hi)
                hi = k + 1 - v;
        }
    return hi - lo;
}
static double ort_best_be(const simdops_qbinary_params *p, int tlo, double al)
{
    double lo = p->ratio_b * (1 - 1e-3), hi = p->ratio_b * (1 + 1e-3);
    for (int it = 0; it < 60; it++) {
        const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (ort_width(p, tlo, al, m1) < ort_width(p, tlo, al, m2))
            lo = m1;
        else
            hi = m2;
    }
    return ort_width(p, tlo, al, 0.5 * (lo + hi));
}
static double ort_lp(int u8, const float s[3], const int zp[3])
{
    simdops_qbinary_params p;
    const int tlo = u8 ? 0 : -128;
    double lo, hi;
    derive(SIMDOPS_ARITH_ONNXRUNTIME, u8, s, zp, &p);
    for (int i = 0; i < 256; i++)
        for (int j = 0; j < 256; j++)
            g_ref[i][j] = qb_ort_add_vv(tlo + i, tlo + j, &p);
    lo = p.ratio_a * (1 - 1e-3);
    hi = p.ratio_a * (1 + 1e-3);
    for (int it = 0; it < 60; it++) {
        const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (ort_best_be(&p, tlo, m1) < ort_best_be(&p, tlo, m2))
            lo = m1;
        else
            hi = m2;
    }
    return ort_best_be(&p, tlo, 0.5 * (lo + hi));
}

static double urand(void) { return (double)rand() / ((double)RAND_MAX + 1.0); }

typedef struct job {
    simdops_qbinary_fn k;
    simdops_qbinary_params p;
    int8_t *a, *b, *y;
} job;

static void run64k(void *v)
{
    job *j = (job *)v;
    j->k(j->a, j->b, j->y, 65536, SIMDOPS_QB_VV, &j->p);
}

static void prove(void *v)
{
    job *j = (job *)v;
    simdops_qbinary_params q = j->p;
    (void)simdops_qbinary_prove_now(&q, SIMDOPS_INT8, j->k);
}

/* w's 64K call with its window rows, the same call proved, and the proof itself:
 * medians of n interleaved rounds, printed under `what` */
static void time_proof(const char *what, job w, int n)
{
    job pv = w;
    double tw[64], tp[64], tq[64];
    if (!simdops_qbinary_prove_now(&pv.p, SIMDOPS_INT8, pv.k))
        printf("the benchmark's int8 %s numbers: not proved\n", what);
    for (int r = 0; r < n; r++) {
        tw[r] = bench_time(run64k, &w, 200);
        tp[r] = bench_time(run64k, &pv, 200);
        tq[r] = bench_time(prove, &w, 5);
    }
    qsort(tw, (size_t)n, sizeof(double), bench_cmp_double);
    qsort(tp, (size_t)n, sizeof(double), bench_cmp_double);
    qsort(tq, (size_t)n, sizeof(double), bench_cmp_double);
    printf("int8 %s 64K kernel call (medians of %d interleaved rounds): window rows %.2f us, "
           "proved rows %.2f us (%.2fx); the proof %.1f us (%.1f window calls)\n",
           what, n, 1e6 * tw[n / 2], 1e6 * tp[n / 2], tw[n / 2] / tp[n / 2], 1e6 * tq[n / 2],
           tq[n / 2] / tw[n / 2]);
}

int main(int argc, char **argv)
{
    const float bs[3] = {0.0417f, 0.0388f, 0.0712f};
    const int bz[3] = {-3, 5, -1};
    const int trials = argc > 1 ? atoi(argv[1]) : 200, rounds = argc > 2 ? atoi(argv[2]) : 15;
    int hist_t[4] = {0}, hist_o[4] = {0}, proved_t = 0, refused_t = 0, tie_sets = 0, pr, ties;
    int mul[6] = {0};
    simdops_init();
    printf("tier %s\nthe benchmark's numbers (0.0417 / -3, 0.0388 / 5, 0.0712 / -1; uint8 zero points + 128):\n",
           simdops_isa());
    for (int u8 = 0; u8 < 2; u8++) {
        const int z[3] = {bz[0] + 128 * u8, bz[1] + 128 * u8, bz[2] + 128 * u8};
        int wt = tfl_count(u8, bs, z, &pr), wo = ort_count(u8, bs, z, &ties);
        printf("  %s: tflite nominal form wrong on %d pairs, proof %s; ort pair form wrong on %d "
               "pairs, %d exact float halves, the widest real floor form's interval %.3g\n",
               u8 ? "uint8" : "int8", wt, pr ? "PROVED" : "refused", wo, ties, ort_lp(u8, bs, z));
    }
    srand(12345);
    for (int t = 0; t < trials; t++) {
        const int u8 = t & 1;
        float s[3];
        int z[3], wt, wo;
        s[0] = (float)pow(10.0, -3.0 + 2.5 * urand());
        s[1] = (float)(s[0] * pow(10.0, -0.7 + 1.4 * urand()));
        s[2] = (float)(fmax(s[0], s[1]) * pow(10.0, 0.6 * urand()));
        for (int k = 0; k < 3; k++)
            z[k] = (u8 ? 128 : 0) + (int)(urand() * 40.0) - 20;
        wt = tfl_count(u8, s, z, &pr);
        if (wt >= 0) {
            hist_t[wt == 0 ? 0 : wt < 10 ? 1 : wt < 100 ? 2 : 3]++;
            proved_t += pr;
            refused_t += !pr;
        }
        mul[1 + tmf_count(u8, s, z)]++;
        wo = ort_count(u8, s, z, &ties);
        hist_o[wo == 0 ? 0 : wo < 10 ? 1 : wo < 100 ? 2 : 3]++;
        tie_sets += ties > 0;
    }
    printf("%d random sets: tflite nominal form wrong on 0 / 1-9 / 10-99 / 100+ pairs: %d / %d / %d / "
           "%d sets; proved %d, refused %d\n",
           trials, hist_t[0], hist_t[1], hist_t[2], hist_t[3], proved_t, refused_t);
    printf("  ort pair form wrong on 0 / 1-9 / 10-99 / 100+ pairs: %d / %d / %d / %d sets; %d sets "
           "with exact float halves\n",
           hist_o[0], hist_o[1], hist_o[2], hist_o[3], tie_sets);
    printf("  tflite multiply: proved %d (one constant %d, the floor form %d, the plan's two "
           "constants %d, searched %d), refused %d, plan refused (int32 rows) %d\n",
           mul[2] + mul[3] + mul[4] + mul[5], mul[2], mul[3], mul[4], mul[5], mul[1], mul[0]);
    for (int u8 = 0; u8 < 2; u8++) {
        const int z[3] = {bz[0] + 128 * u8, bz[1] + 128 * u8, bz[2] + 128 * u8};
        static const char *how[6] = {"plan refused", "refused", "PROVED (one constant)",
                                     "PROVED (the floor form)", "PROVED (the plan's constants)",
                                     "PROVED (searched)"};
        printf("  tflite multiply, the benchmark's %s numbers: %s\n", u8 ? "uint8" : "int8",
               how[1 + tmf_count(u8, bs, z)]);
    }
    {
        job w;
        int8_t *buf = (int8_t *)malloc(3 * 65536);
        int n = rounds < 64 ? rounds : 64;
        if (!buf)
            return 1;
        for (int i = 0; i < 65536; i++)
            buf[i] = (int8_t)(rand() & 255);
        for (int i = 0; i < 65536; i++)
            buf[65536 + i] = buf[65535 - i];
        w.k = tfl_kernel(0);
        w.a = buf;
        w.b = buf + 65536;
        w.y = buf + 2 * 65536;
        derive(SIMDOPS_ARITH_TFLITE, 0, bs, bz, &w.p);
        time_proof("add", w, n);
        w.k = tmf_kernel(0); /* the same for the multiply */
        derive_op(SIMDOPS_OP_QUANTIZED_MULTIPLY, SIMDOPS_ARITH_TFLITE, 0, bs, bz, &w.p);
        time_proof("multiply", w, n);
        free(buf);
    }
    return 0;
}
