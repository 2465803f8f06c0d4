/* TFLite's 8-bit add (or, by the second argument, "tfl-mul": TFLite's multiply,
 * "xnn-add": XNNPACK's add) per kernel call: what a per-channel broadcast of a
 * (4096, 256) or (256, 256) int8 input costs against the same-shape call,
 * taken apart. Thread CPU time, interleaved rounds, medians (bench_util.h):
 *   api same      simdops_qbinary on two (n,) vectors (the bench's same-shape row)
 *   api bcast     simdops_qbinary on (n/256, 256) + (256,) (the per-channel row)
 *   api bcast new the same with one byte of the vector changed before each call (the
 *                 tile the driver keeps between calls is built again every call)
 *   kernel once   the dispatched qadd_tflite kernel over n elements, one call
 *   kernel 8192   the same n elements as calls of 8192 (the driver's tiled runs)
 *   kernel 256    ... as calls of 256 (one row each)
 * so "kernel 8192" - "kernel once" is what the kernel's per-call setup costs the
 * broadcast call, and "api bcast" - "kernel 8192" what the driver adds.
 *   bash tools/cbench.sh OUT && OUT/qb_bcast_calls [rounds] [tfl-add|tfl-mul|xnn-add] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "kernels/registry.h"
#include "rules/qbinary.h"
#include "simdops/simdops.h"

enum { ROUNDS = 31 };

typedef struct job {
    size_t n, piece;
    int8_t *a, *b, *bv, *y;
    simdops_qbinary_fn k;
    simdops_qbinary_params p;
    simdops_qbinary_args args;
} job;

static void kernel_pieces(void *v)
{
    job *j = (job *)v;
    for (size_t i = 0; i < j->n; i += j->piece)
        j->k(j->a + i, j->b + i, j->y + i, j->n - i < j->piece ? j->n - i : j->piece,
             SIMDOPS_QB_VV, &j->p);
}

static void api_call(job *j, int bcast)
{
    simdops_tensor ta, tb, ty;
    simdops_error err;
    memset(&ta, 0, sizeof(ta));
    ta.dtype = SIMDOPS_INT8;
    tb = ty = ta;
    ta.data = j->a;
    ty.data = j->y;
    if (bcast) {
        ta.ndim = ty.ndim = 2;
        ta.shape[0] = ty.shape[0] = (int64_t)(j->n / 256);
        ta.shape[1] = ty.shape[1] = 256;
        ta.strides[0] = ty.strides[0] = 256;
        ta.strides[1] = ty.strides[1] = 1;
        tb.data = j->bv;
        tb.ndim = 1;
        tb.shape[0] = 256;
        tb.strides[0] = 1;
    } else {
        ta.ndim = tb.ndim = ty.ndim = 1;
        ta.shape[0] = tb.shape[0] = ty.shape[0] = (int64_t)j->n;
        ta.strides[0] = tb.strides[0] = ty.strides[0] = 1;
        tb.data = j->b;
    }
    memset(&err, 0, sizeof(err));
    if (simdops_qbinary(&ta, &tb, &ty, &j->args, &err) != SIMDOPS_OK) {
        fprintf(stderr, "simdops_qbinary failed: %d\n", err.status);
        exit(1);
    }
}
static void api_same(void *v) { api_call((job *)v, 0); }
static void api_bcast(void *v) { api_call((job *)v, 1); }
static void api_bcast_new(void *v)
{
    job *j = (job *)v;
    j->bv[255] ^= 1; /* alternates: the vector of every call differs from the last one's */
    api_call(j, 1);
}

int main(int argc, char **argv)
{
    static const char *names[] = {"api same", "api bcast", "kernel once", "kernel 8192",
                                  "kernel 256", "api bcast new"};
    enum { COLS = 6 };
    const size_t sizes[] = {65536, 1048576};
    simdops_error err;
    int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
    const char *which = argc > 2 ? argv[2] : "tfl-add";
    const int mul = !strcmp(which, "tfl-mul"), xnn = !strcmp(which, "xnn-add");
    rounds = bench_clamp_rounds(rounds);
    for (int s = 0; s < 2; s++) {
        job j;
        double t[COLS][BENCH_MAX_ROUNDS];
        int reps[COLS];
        memset(&j, 0, sizeof(j));
        j.n = sizes[s];
        j.a = aligned_alloc(64, j.n);
        j.b = aligned_alloc(64, j.n);
        j.y = aligned_alloc(64, j.n);
        j.bv = aligned_alloc(64, 256);
        srand(1);
        for (size_t i = 0; i < j.n; i++) {
            j.a[i] = (int8_t)(rand() & 255);
            j.b[i] = (int8_t)(rand() & 255);
        }
        memcpy(j.bv, j.b, 256);
        /* the bench's model numbers (src/simdops/bench/ops_qbinary.py) */
        j.args.op = mul ? SIMDOPS_OP_QUANTIZED_MULTIPLY : SIMDOPS_OP_QUANTIZED_ADD;
        j.args.arithmetic = xnn ? SIMDOPS_ARITH_XNNPACK : SIMDOPS_ARITH_TFLITE;
        j.args.a_scale = simdops_float_number(0.0417);
        j.args.b_scale = simdops_float_number(0.0388);
        j.args.y_scale = simdops_float_number(0.0712);
        j.args.a_zero_point = -3;
        j.args.b_zero_point = 5;
        j.args.y_zero_point = -1;
        memset(&err, 0, sizeof(err));
        if (simdops_qbinary_params_init(SIMDOPS_INT8, &j.args, &j.p, &err) != SIMDOPS_OK)
            return 1;
        j.k = mul   ? simdops_current_kernels()->qmul_tflite[SIMDOPS_INT8]
              : xnn ? simdops_current_kernels()->qadd_xnnpack[SIMDOPS_INT8]
                    : simdops_current_kernels()->qadd_tflite[SIMDOPS_INT8];
        for (int r = 0; r < rounds; r++)
            for (int c = 0; c < COLS; c++) {
                job *jj = &j;
                bench_fn f = c == 0   ? api_same
                             : c == 1 ? api_bcast
                             : c == 5 ? api_bcast_new
                                      : kernel_pieces;
                jj->piece = c == 2 ? j.n : c == 3 ? 8192 : 256;
                if (r == 0)
                    reps[c] = bench_reps(f, jj);
                t[c][r] = bench_time(f, jj, reps[c]);
            }
        printf("n=%zu (median of %d interleaved rounds, us a call)\n", j.n, rounds);
        for (int c = 0; c < COLS; c++)
            printf("  %-12s %8.2f\n", names[c], 1e6 * bench_median(t[c], rounds));
        free(j.a);
        free(j.b);
        free(j.y);
        free(j.bv);
    }
    return 0;
}
