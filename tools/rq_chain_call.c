/* The per-call cost of oneDNN's power-of-two chain (pre_scale 0.5, post_scale 2.0: the
 * bench's, folded to requantize_fp32's default) against the default's call through the C
 * API, the way the Python function calls it: simdops_prepare_requant_fp_chain then
 * simdops_requant_fp_prepared, int32 [n / 256, 256] -> int8, x 16 bytes past a 64-byte
 * line (numpy's large buffers), per tensor (scale 1/1000) and per channel (256 scales
 * 1/1200..1/800), n = 256 and 65,536. Both calls run the same kernel; the difference is
 * the chain's prepare steps and the fold. Timed interleaved round by round in thread CPU
 * time; prints the medians and their difference.
 * Build: bash tools/cbench.sh OUTDIR. Run: OUTDIR/rq_chain_call [rounds=31] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "bench_util.h"

enum { CH = 256 };

typedef struct call_arg {
    int chain, per_channel;
    int64_t n;
    int32_t *x;
    int8_t *y;
    float scale[CH];
} call_arg;

static void call(void *v)
{
    call_arg *a = v;
    simdops_prepared p;
    simdops_error e;
    simdops_requant_fp_chain c;
    simdops_tensor x, y, sc;
    memset(&x, 0, sizeof x);
    memset(&sc, 0, sizeof sc);
    x.data = a->x;
    x.dtype = SIMDOPS_INT32;
    x.ndim = 2;
    x.shape[0] = a->n / CH;
    x.shape[1] = CH;
    x.strides[0] = 4 * CH;
    x.strides[1] = 4;
    y = x;
    y.data = a->y;
    y.dtype = SIMDOPS_INT8;
    y.strides[0] = CH;
    y.strides[1] = 1;
    sc.data = a->scale;
    sc.dtype = SIMDOPS_FLOAT32;
    sc.ndim = 1;
    sc.shape[0] = CH;
    sc.strides[0] = 4;
    memset(&c, 0, sizeof c);
    c.has_pre_scale = 1;
    c.pre_scale = 0.5;
    c.has_post_scale = 1;
    c.post_scale = 2.0;
    if (simdops_prepare_requant_fp_chain(SIMDOPS_INT8, a->per_channel ? 1.0 : 1.0 / 1000, 3,
                                         NULL, NULL, 0, a->chain ? &c : NULL, &p, &e) ||
        simdops_requant_fp_prepared(&p, &x, &y, NULL, a->per_channel ? &sc : NULL, &e))
        abort();
}

int main(int argc, char **argv)
{
    const int rounds = bench_clamp_rounds(argc > 1 ? atoi(argv[1]) : 31);
    static const int64_t sizes[] = {256, 65536};
    static double tp[BENCH_MAX_ROUNDS], tc[BENCH_MAX_ROUNDS];
    for (int si = 0; si < 2; si++)
        for (int pc = 0; pc < 2; pc++) {
            const int64_t n = sizes[si];
            call_arg plain, chain;
            memset(&plain, 0, sizeof plain);
            plain.n = n;
            plain.per_channel = pc;
            plain.x = (int32_t *)aligned_alloc(64, (size_t)n * 4 + 64) + 4;
            plain.y = aligned_alloc(64, (size_t)n + 64);
            if (!plain.y)
                return 1;
            for (int64_t i = 0; i < n; i++)
                plain.x[i] = (int32_t)((i * 7919) % 200001 - 100000);
            for (int k = 0; k < CH; k++)
                plain.scale[k] = (float)(1.0 / 1200 + k * ((1.0 / 800 - 1.0 / 1200) / (CH - 1)));
            chain = plain;
            chain.chain = 1;
            const int reps = n < 4096 ? 20000 : 300;
            for (int r = 0; r < rounds; r++) {
                if (r & 1) {
                    tc[r] = bench_time(call, &chain, reps);
                    tp[r] = bench_time(call, &plain, reps);
                } else {
                    tp[r] = bench_time(call, &plain, reps);
                    tc[r] = bench_time(call, &chain, reps);
                }
            }
            const double mp = bench_median(tp, rounds), mc = bench_median(tc, rounds);
            printf("n=%-6lld %-11s default %8.1f ns  chain %8.1f ns  chain - default %6.1f ns  "
                   "default / chain %.4f\n", (long long)n, pc ? "per channel" : "per tensor",
                   mp * 1e9, mc * 1e9, (mc - mp) * 1e9, mp / mc);
            free(plain.x - 4);
            free(plain.y);
        }
    return 0;
}
