/* The 8-bit TFLite multiply's kernel (the process's best tier, from the kernel
 * table) against a vpaddb loop over the same int8 arrays (np.add's loop) and
 * the fp32 multiply's kernel (XNNPACK's arithmetic, the same model numbers):
 * the bench's rows (scales 0.0417, 0.0388 -> 0.0712, zero points -3, 5, -1;
 * b = a reversed), same shape, n = 64K and 1M, thread CPU time, medians of
 * interleaved rounds. Linked against the harness objects of a build, so
 * running it against an old build's objects and the new one's gives the A/B.
 *   bash tools/cbench.sh /tmp/kb && /tmp/kb/qmul_tflite_bench [rounds=15]
 * Prints Gelem/s of each and each kernel's fraction of the vpaddb loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "rules/qbinary.h"
#include "bench_util.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

typedef struct qcase {
    size_t n;
    int8_t *a, *b, *y;
    simdops_qbinary_params tfl, xnn;
} qcase;

static void params(simdops_qbinary_params *p, int arithmetic)
{
    simdops_qbinary_args a;
    simdops_error err;
    memset(&a, 0, sizeof a);
    memset(&err, 0, sizeof err);
    a.op = SIMDOPS_OP_QUANTIZED_MULTIPLY;
    a.arithmetic = arithmetic;
    a.a_scale.kind = a.b_scale.kind = a.y_scale.kind = SIMDOPS_NUM_FLOAT;
    a.a_scale.f = 0.0417;
    a.b_scale.f = 0.0388;
    a.y_scale.f = 0.0712;
    a.a_zero_point = -3;
    a.b_zero_point = 5;
    a.y_zero_point = -1;
    if (simdops_qbinary_params_init(SIMDOPS_INT8, &a, p, &err) != SIMDOPS_OK) {
        fprintf(stderr, "qmul_tflite_bench: parameters refused\n");
        exit(1);
    }
}

static void run_tfl(void *arg)
{
    qcase *c = (qcase *)arg;
    simdops_current_kernels()->qmul_tflite[SIMDOPS_INT8](c->a, c->b, c->y, c->n, SIMDOPS_QB_VV,
                                                         &c->tfl);
}

static void run_fp(void *arg)
{
    qcase *c = (qcase *)arg;
    simdops_current_kernels()->qmul_fp[SIMDOPS_INT8](c->a, c->b, c->y, c->n, SIMDOPS_QB_VV,
                                                     &c->xnn);
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw"))) static void run_add(void *arg)
{
    qcase *c = (qcase *)arg;
    for (size_t i = 0; i < c->n; i += 64)
        _mm512_storeu_si512((void *)(c->y + i),
                            _mm512_add_epi8(_mm512_loadu_si512((const void *)(c->a + i)),
                                            _mm512_loadu_si512((const void *)(c->b + i))));
}
#else
static void run_add(void *arg)
{
    qcase *c = (qcase *)arg;
    for (size_t i = 0; i < c->n; i++)
        c->y[i] = (int8_t)(c->a[i] + c->b[i]);
}
#endif

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 15;
    static const size_t N[2] = {65536, 1 << 20};
    static const char *names[3] = {"vpaddb loop", "tflite multiply", "fp32 multiply"};
    const bench_fn fns[3] = {run_add, run_tfl, run_fp};
    simdops_init();
    for (int k = 0; k < 2; k++) {
        qcase c;
        double *t[3];
        int reps[3];
        c.n = N[k];
        c.a = aligned_alloc(64, c.n + 64);
        c.b = aligned_alloc(64, c.n + 64);
        c.y = aligned_alloc(64, c.n + 64);
        srand(7);
        for (size_t i = 0; i < c.n; i++)
            c.a[i] = (int8_t)(rand() & 255);
        for (size_t i = 0; i < c.n; i++)
            c.b[i] = c.a[c.n - 1 - i];
        params(&c.tfl, SIMDOPS_ARITH_TFLITE);
        params(&c.xnn, SIMDOPS_ARITH_XNNPACK);
        for (int f = 0; f < 3; f++) {
            t[f] = malloc(sizeof(double) * (size_t)rounds);
            reps[f] = bench_reps(fns[f], &c);
        }
        for (int r = 0; r < rounds; r++)
            for (int f = 0; f < 3; f++)
                t[f][r] = bench_time(fns[f], &c, reps[f]);
        printf("n=%zu (%s)\n", c.n, simdops_current_kernels()->isa);
        for (int f = 0; f < 3; f++) {
            qsort(t[f], (size_t)rounds, sizeof(double), bench_cmp_double);
            printf("  %-16s %8.2f us  %6.2f Gelem/s", names[f], t[f][rounds / 2] * 1e6,
                   (double)c.n / t[f][rounds / 2] * 1e-9);
            if (f)
                printf("  %.3f of the vpaddb loop", t[0][rounds / 2] / t[f][rounds / 2]);
            printf("\n");
        }
        for (int f = 0; f < 3; f++)
            free(t[f]);
        free(c.a);
        free(c.b);
        free(c.y);
    }
    return 0;
}
