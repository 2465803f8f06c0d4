/* oneDNN's chain (pre_scale 0.5, post_scale 2.0: the bench's) against requantize_fp32's
 * default, int32 -> int8 on [rows, 256], per tensor (scale 1/1000) and per channel
 * (1/1200 .. 1/800, the vectors repeated to a 512-element period as the N-d driver
 * does), the kernels called directly and interleaved round by round: fastest thread
 * CPU time of each and the median per-round speed ratio (chain over default).
 * Build (the harness's objects but its tests, the flags of tools/cbench.sh):
 *   bash csrc/tests/build.sh OUT && cc -O2 -Icsrc/include -Icsrc tools/chainbench.c \
 *     $(find OUT/obj -name '*.o' ! -name 'tests__*') -o OUT/chainbench -lm -lpthread
 * Run: OUT/chainbench [rounds=100] [isa] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "rules/params.h" /* SIMDOPS_ROUNDING_FP */
#include "bench_util.h"

enum { CH = 256, PERIOD = 512, MAXN = 1 << 20 };

typedef struct run {
    const simdops_kernel_table *kt;
    const int32_t *x;
    int8_t *y;
    size_t n;
    const simdops_requant_params *p;
    const simdops_requant_channels *ch; /* NULL: per tensor */
} run;

static void call(void *arg)
{
    const run *r = arg;
    if (r->ch)
        r->kt->requant_fp_pc[SIMDOPS_RQ_I8](r->x, r->y, r->n, NULL, r->ch, r->p);
    else
        r->kt->requant_fp[SIMDOPS_RQ_I8](r->x, r->y, r->n, NULL, r->p);
}

/* rounds of (default, chain) in alternating order; prints best times and the median ratio */
static void pair(const char *label, run *base, run *chain, int rounds)
{
    static double ratio[BENCH_MAX_ROUNDS];
    double best[2] = {1e9, 1e9};
    const int reps = bench_reps(call, base);
    rounds = bench_clamp_rounds(rounds);
    for (int k = 0; k < rounds; k++) {
        double t[2];
        for (int j = 0; j < 2; j++) {
            run *r = (j ^ (k & 1)) ? chain : base;
            t[r == chain] = bench_time(call, r, reps);
        }
        best[0] = t[0] < best[0] ? t[0] : best[0];
        best[1] = t[1] < best[1] ? t[1] : best[1];
        ratio[k] = t[0] / t[1];
    }
    printf("%-28s default %.3f ns/elem  chain %.3f ns/elem  speed ratio (median of %d) %.3f\n",
           label, best[0] / base->n * 1e9, best[1] / base->n * 1e9, rounds,
           bench_median(ratio, rounds));
}

int main(int argc, char **argv)
{
    static int32_t x[MAXN];
    static int8_t y[MAXN];
    static float scale_rep[PERIOD] __attribute__((aligned(64)));
    const int rounds = argc > 1 ? atoi(argv[1]) : 100;
    const char *isa = argc > 2 ? argv[2] : NULL;
    simdops_error err;
    if (isa && simdops_set_thread_isa(isa, &err) != SIMDOPS_OK)
        return fprintf(stderr, "chainbench: unknown or unavailable isa %s\n", isa), 1;
    const simdops_kernel_table *kt = simdops_current_kernels();
    srand(1);
    for (size_t i = 0; i < MAXN; i++)
        x[i] = (rand() % 200001) - 100000;
    simdops_requant_params d, c;
    memset(&d, 0, sizeof d);
    d.family = SIMDOPS_ROUNDING_FP;
    d.scale = 1.0f / 1000.0f;
    d.scale64 = (double)d.scale;
    d.offset = 3;
    d.min = -128;
    d.max = 127;
    c = d;
    c.fp_mode = SIMDOPS_RQ_FP_PRE | SIMDOPS_RQ_FP_POST_MUL;
    c.pre_scale = 0.5f, c.pre64 = 0.5;
    c.post = 2.0f, c.post64 = 2.0;
    simdops_requant_channels ch;
    memset(&ch, 0, sizeof ch);
    for (int i = 0; i < PERIOD; i++)
        scale_rep[i] = (float)(1.0 / 1200 + (1.0 / 800 - 1.0 / 1200) * (i % CH) / (CH - 1));
    ch.scale = scale_rep;
    ch.scales_below_one = 1;
    ch.period = PERIOD;
    ch.cycle = CH;
    const size_t sizes[2] = {65536, MAXN};
    for (int s = 0; s < 2; s++) {
        char label[64];
        run bt = {kt, x, y, sizes[s], &d, NULL}, ct = {kt, x, y, sizes[s], &c, NULL};
        run bc = {kt, x, y, sizes[s], &d, &ch}, cc = {kt, x, y, sizes[s], &c, &ch};
        snprintf(label, sizeof label, "%s per tensor n=%zu", kt->isa, sizes[s]);
        pair(label, &bt, &ct, rounds);
        snprintf(label, sizeof label, "%s per channel n=%zu", kt->isa, sizes[s]);
        pair(label, &bc, &cc, rounds);
    }
    return 0;
}
