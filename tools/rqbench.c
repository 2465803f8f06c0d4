/* requant kernels called directly on an L2-resident block (compute cost
 * only, no driver): fastest thread CPU time per element, per tensor against
 * per channel + bias + clamp over CH channels, the way the N-d driver calls
 * the per-channel kernel (channel arrays derived once and repeated to a
 * period on 64-byte lines; one call per period for double rounding, one call
 * for the whole block with the vectors restarting every period for the fp32
 * family, whose scales are below one: its clamp-free 8-bit path, and on
 * AVX-512 its scales of a 256-channel row held in registers).
 * Build: bash tools/cbench.sh (builds it too). Run: OUTDIR/rqbench [rounds=200] [isa] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/dtype.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "driver/requant_channels.h"
#include "rules/params.h" /* SIMDOPS_ROUNDING_FP: the float families' internal tag */
#include "bench_util.h"

/* PERIOD: the N-d driver repeats the channel arrays to at least 512 elements
 * (RQ_MIN_PERIOD in csrc/api/api_requant.c) */
enum { N = 16384, CH = 256, PERIOD = 512, REPS = 20 };

/* Fastest per-tensor and per-channel times of a pair of kernels over x (per channel in
 * calls of call_len elements, as the N-d driver makes them), printed with their ratio. */
static void time_pair(const char *label, simdops_requant_fn pt, const simdops_requant_params *pp,
                      simdops_requant_pc_fn pc, const simdops_requant_params *pq,
                      const simdops_requant_channels *ch, const int32_t *bias,
                      const int32_t *x, uint8_t *y, int rounds, int call_len)
{
    double best_pt = 1e9, best_pc = 1e9;
    for (int r = 0; r < rounds; r++) {
        double t0 = bench_now();
        for (int k = 0; k < REPS; k++)
            pt(x, y, N, NULL, pp);
        double t1 = bench_now();
        for (int k = 0; k < REPS; k++)
            for (int at = 0; at < N; at += call_len)
                pc(x + at, y + at, (size_t)call_len, bias, ch, pq);
        double t2 = bench_now();
        best_pt = t1 - t0 < best_pt ? t1 - t0 : best_pt;
        best_pc = t2 - t1 < best_pc ? t2 - t1 : best_pc;
    }
    printf("%s per-tensor %.3f ns/elem  pc+bias+clamp %.3f ns/elem  pc/pt speed %.2f\n", label,
           best_pt / REPS / N * 1e9, best_pc / REPS / N * 1e9, best_pt / best_pc);
}

/* A family's per-tensor and per-channel kernels (per channel on its arrays bch) against
 * double rounding's (on dch), the four interleaved round by round. */
static void vs_double(const char *name, simdops_requant_fn pt, simdops_requant_pc_fn pc,
                      const simdops_requant_channels *bch, const simdops_requant_channels *dch,
                      const simdops_requant_params *p, const simdops_requant_params *q,
                      const int32_t *bias, const int32_t *x, uint8_t *y, int rounds)
{
    const simdops_kernel_table *kt = simdops_current_kernels();
    simdops_requant_fn pts[2] = {kt->requant[SIMDOPS_RQ_U8], pt};
    simdops_requant_pc_fn pcs[2] = {kt->requant_pc[SIMDOPS_RQ_U8], pc};
    const simdops_requant_channels *chs[2] = {dch, bch};
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
            double t0 = bench_now(), t1, t2;
            for (int j = 0; j < REPS; j++)
                pts[k](x, y, N, NULL, p);
            t1 = bench_now();
            for (int j = 0; j < REPS; j++)
                for (int at = 0; at < N; at += PERIOD)
                    pcs[k](x + at, y + at, PERIOD, bias, chs[k], q);
            t2 = bench_now();
            best[k] = t1 - t0 < best[k] ? t1 - t0 : best[k];
            best[2 + k] = t2 - t1 < best[2 + k] ? t2 - t1 : best[2 + k];
        }
    }
    printf("%s %s vs double: per-tensor %.3f / %.3f ns/elem (speed %.2f)  pc+bias+clamp "
           "%.3f / %.3f (speed %.2f)\n",
           kt->isa, name, best[1] / REPS / N * 1e9, best[0] / REPS / N * 1e9, best[0] / best[1],
           best[3] / REPS / N * 1e9, best[2] / REPS / N * 1e9, best[2] / best[3]);
}

int main(int argc, char **argv)
{
    static int32_t x[N], mult[CH], shift[CH], bias[CH];
    static int32_t storage[8 * (PERIOD + 1)] __attribute__((aligned(64)));
    static uint8_t y[N];
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    simdops_error err;
    if (argc > 2 && simdops_set_thread_isa(argv[2], &err) != SIMDOPS_OK) {
        fprintf(stderr, "rqbench: unknown or unavailable isa %s\n", argv[2]);
        return 1;
    }
    const simdops_kernel_table *kt = simdops_current_kernels();
    simdops_requant_params p;
    simdops_requant_channels ch;
    memset(&p, 0, sizeof p);
    p.multiplier = 1125899907;
    p.right_shift = 9;
    p.offset = 100;
    p.min = 0;
    p.max = 255;
    bench_requant_inputs(x, N, mult, shift, bias, CH);
    static int32_t bias_rep[PERIOD] __attribute__((aligned(64)));
    static float scale_rep[PERIOD] __attribute__((aligned(64)));
    if (simdops_requant_channels_words(PERIOD) > sizeof storage / sizeof storage[0])
        return 1;
    simdops_requant_channels_init(&ch, storage, mult, shift, CH, PERIOD / CH);
    for (int i = 0; i < PERIOD; i++)
        bias_rep[i] = bias[i % CH];
    simdops_requant_params q = p;
    q.min = 10;
    q.max = 245;
    time_pair(kt->isa, kt->requant[SIMDOPS_RQ_U8], &p, kt->requant_pc[SIMDOPS_RQ_U8], &q, &ch,
              bias_rep, x, y, rounds, PERIOD);
    {
        /* per channel with the fast path's arrays the driver builds for double rounding
         * (used by the tiers that have that path), against the integer per-tensor
         * kernel (right shift 24 is outside the fast path: the same integer variant) */
        char label[64];
        simdops_requant_params p24 = p;
        p24.right_shift = 24;
        if (simdops_requant_channels_words(PERIOD) + simdops_requant_channels_fast_words(PERIOD + 1) >
            sizeof storage / sizeof storage[0])
            return 1;
        simdops_requant_channels_init_fast(&ch, storage + simdops_requant_channels_words(PERIOD),
                                           PERIOD + 1, CH, PERIOD, q.offset, q.min, q.max);
        snprintf(label, sizeof label, "%s integer-pt vs fast-pc", kt->isa);
        time_pair(label, kt->requant[SIMDOPS_RQ_U8], &p24, kt->requant_pc[SIMDOPS_RQ_U8], &q, &ch,
                  bias_rep, x, y, rounds, PERIOD);
    }

    /* ties-up (rounding="double_ties_up") and single rounding (ties up, ties away) against
     * double rounding on the same data; per channel with the fast path's arrays the driver
     * builds (the same ones for ties-up; single rounding's from its normalised pairs) */
    vs_double("ties-up", kt->requant_ties_up[SIMDOPS_RQ_U8], kt->requant_ties_up_pc[SIMDOPS_RQ_U8],
              &ch, &ch, &p, &q, bias_rep, x, y, rounds);
    {
        static int32_t sstore[8 * (PERIOD + 1)] __attribute__((aligned(64)));
        simdops_requant_channels sch;
        simdops_requant_channels_init_single(&sch, sstore, PERIOD + 1, mult, shift, CH, PERIOD / CH);
        simdops_requant_channels_init_fast(&sch, sstore + 5 * (PERIOD + 1), PERIOD + 1, CH, PERIOD,
                                           q.offset, q.min, q.max);
        vs_double("single", kt->requant_single[SIMDOPS_RQ_U8], kt->requant_single_pc[SIMDOPS_RQ_U8],
                  &sch, &ch, &p, &q, bias_rep, x, y, rounds);
        vs_double("single_away", kt->requant_single_away[SIMDOPS_RQ_U8],
                  kt->requant_single_away_pc[SIMDOPS_RQ_U8], &sch, &ch, &p, &q, bias_rep, x, y,
                  rounds);
    }

    /* the fp32 family: scale 1/1000 per tensor; per channel 1/800 .. 1/1200 with bias */
    simdops_requant_params f = p;
    simdops_requant_channels fch;
    f.family = SIMDOPS_ROUNDING_FP;
    f.fp_mode = 0;
    f.scale = 1.0f / 1000.0f;
    memset(&fch, 0, sizeof fch);
    for (int i = 0; i < PERIOD; i++)
        scale_rep[i] = 1.0f / (800.0f + 400.0f * (float)(i % CH) / CH);
    fch.scale = scale_rep;
    fch.scales_below_one = 1;
    simdops_requant_params fq = f;
    fq.min = 10;
    fq.max = 245;
    char label[64];
    snprintf(label, sizeof label, "%s fp32", kt->isa);
    fch.period = PERIOD;
    fch.cycle = CH; /* lcm(CH, 16), as the driver sets it: AVX-512 holds the scales in registers */
    time_pair(label, kt->requant_fp[SIMDOPS_RQ_U8], &f, kt->requant_fp_pc[SIMDOPS_RQ_U8], &fq,
              &fch, bias_rep, x, y, rounds, N);
    return 0;
}
