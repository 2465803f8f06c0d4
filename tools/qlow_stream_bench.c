/* Low-bit DequantizeLinear beyond the cache, through the C API: each call
 * with the driver's streaming (the default threshold) and without it
 * (threshold SIZE_MAX), against memcpy of the output bytes (glibc streams a
 * copy that large), interleaved: per round the three in a rotating order;
 * the median and the spread (min..max) of the per-round ratios to memcpy,
 * and of streamed / plain.
 * Cases: ONNX Runtime's int4 weight form (axis 0, block 32 and 128, int4
 * zero points, [4096, 4096]) to float32 / float16 / bfloat16; uint2 to
 * float32 per tensor; float8 e4m3fn to float32 per tensor (16M elements).
 * Run: OUT/qlow_stream_bench [rounds=15] [filter]. Build: bash tools/cbench.sh OUT. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "dispatch/dispatch.h"
#include "kernels/vec/stream_store.h"
#include "bench_util.h"

enum { K = 4096, N = 4096, NUMEL = K * N };
enum { T_FLOAT = 1, T_UINT8 = 2, T_FLOAT16 = 10, T_BFLOAT16 = 16, T_E4M3FN = 17, T_UINT4 = 21,
       T_INT4 = 22, T_UINT2 = 25 };

typedef struct bcase {
    simdops_qdq_call c;
    int64_t shape[2], sshape[2];
    size_t threshold; /* simdops_stream_threshold during the call */
    size_t ybytes;
} bcase;

static void *xmalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, 0x5a, n);
    return p;
}

static void run_dq(void *a)
{
    bcase *b = (bcase *)a;
    simdops_error err;
    size_t saved = simdops_stream_threshold;
    simdops_stream_threshold = b->threshold;
    if (simdops_dequantize_linear_ex(&b->c, &err)) {
        fprintf(stderr, "dequantize failed: %s\n", simdops_reason_message(err.reason));
        exit(2);
    }
    simdops_stream_threshold = saved;
}

typedef struct cpy {
    void *y;
    const void *x;
    size_t n;
} cpy;
static void run_copy(void *a)
{
    cpy *c = (cpy *)a;
    memcpy(c->y, c->x, c->n);
}


static void compare(const char *label, bcase *b, int rounds)
{
    static double rs[BENCH_MAX_ROUNDS], rp[BENCH_MAX_ROUNDS], sp[BENCH_MAX_ROUNDS];
    bcase plain = *b;
    cpy c;
    int reps[3];
    plain.threshold = SIZE_MAX;
    c.n = b->ybytes;
    c.y = b->c.y;
    c.x = xmalloc(c.n);
    reps[0] = bench_reps(run_dq, b);
    reps[1] = bench_reps(run_dq, &plain);
    reps[2] = bench_reps(run_copy, &c);
    rounds = bench_clamp_rounds(rounds);
    for (int r = 0; r < rounds; r++) {
        double t[3];
        for (int k = 0; k < 3; k++) {
            int w = (k + r) % 3;
            t[w] = w == 0 ? bench_time(run_dq, b, reps[0])
                 : w == 1 ? bench_time(run_dq, &plain, reps[1])
                          : bench_time(run_copy, &c, reps[2]);
        }
        rs[r] = t[2] / t[0];
        rp[r] = t[2] / t[1];
        sp[r] = t[1] / t[0];
    }
    {
        double ms = bench_median(rs, rounds), mp = bench_median(rp, rounds),
               msp = bench_median(sp, rounds); /* sorted now: [0] min, [rounds - 1] max */
        printf("%-34s streamed %.2f (%.2f..%.2f)  plain %.2f (%.2f..%.2f) of memcpy;"
               "  streamed/plain %.2f (%.2f..%.2f)\n",
               label, ms, rs[0], rs[rounds - 1], mp, rp[0], rp[rounds - 1], msp, sp[0],
               sp[rounds - 1]);
    }
    fflush(stdout);
    free((void *)c.x);
}

/* x of type xt over [K, N] (packed), per tensor (block 0) or blocked along
 * axis 0 with zero points of x's type */
static void setup(bcase *b, int xt, int bits, int yt, size_t ey, int block, void *y)
{
    size_t xbytes = (size_t)NUMEL * (size_t)bits / 8;
    memset(b, 0, sizeof *b);
    b->shape[0] = K;
    b->shape[1] = N;
    b->c.x = xmalloc(xbytes);
    b->c.y = y;
    b->c.shape = b->shape;
    b->c.ndim = 2;
    b->c.x_type = xt;
    b->c.y_type = yt;
    b->c.scale_type = T_FLOAT;
    b->c.packed = 3;
    b->c.opset = 25;
    b->ybytes = (size_t)NUMEL * ey;
    b->threshold = simdops_stream_threshold;
    if (block) {
        size_t ns = (size_t)(K / block) * N;
        float *s = (float *)xmalloc(ns * 4);
        for (size_t i = 0; i < ns; i++)
            s[i] = 0.001f + (float)(i % 97) * 1e-4f;
        b->sshape[0] = K / block;
        b->sshape[1] = N;
        b->c.scale = s;
        b->c.scale_shape = b->sshape;
        b->c.scale_ndim = 2;
        b->c.zero_point = xmalloc(ns * (size_t)bits / 8);
        b->c.zero_point_shape = b->sshape;
        b->c.zero_point_ndim = 2;
        b->c.zero_point_type = xt;
        b->c.axis = 0;
        b->c.block_size = block;
    } else {
        static float one = 0.37f;
        b->c.scale = &one;
        b->c.scale_shape = b->sshape;
        b->c.axis = 1;
    }
}

static void release(bcase *b)
{
    free((void *)b->c.x);
    if (b->c.scale_ndim) {
        free((void *)b->c.scale);
        free((void *)b->c.zero_point);
    }
}

int main(int argc, char **argv)
{
    static const struct { const char *name; int yt; size_t ey; } OUTS[] = {
        {"float32", T_FLOAT, 4}, {"float16", T_FLOAT16, 2}, {"bfloat16", T_BFLOAT16, 2}};
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    const char *filter = argc > 2 ? argv[2] : "";
    void *y = xmalloc((size_t)NUMEL * 4);
    char label[96];
    bcase b;
    simdops_init();
    printf("qlow_stream_bench: %s, threshold %zu bytes, %d rounds\n", simdops_isa(),
           simdops_stream_threshold, rounds);
    for (int o = 0; o < 3; o++)
        for (int block = 32; block <= 128; block *= 4) {
            snprintf(label, sizeof label, "int4 axis0 block %d -> %s", block, OUTS[o].name);
            if (!strstr(label, filter))
                continue;
            setup(&b, T_INT4, 4, OUTS[o].yt, OUTS[o].ey, block, y);
            compare(label, &b, rounds);
            release(&b);
        }
    if (strstr("uint2 per tensor -> float32", filter)) {
        setup(&b, T_UINT2, 2, T_FLOAT, 4, 0, y);
        compare("uint2 per tensor -> float32", &b, rounds);
        release(&b);
    }
    if (strstr("e4m3fn per tensor -> float32", filter)) {
        setup(&b, T_E4M3FN, 8, T_FLOAT, 4, 0, y);
        compare("e4m3fn per tensor -> float32", &b, rounds);
        release(&b);
    }
    free(y);
    return 0;
}
