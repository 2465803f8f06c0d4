/* The per-call cost of a per-channel requant through the C entry
 * (simdops_requant_prepared), the way the bench's requant_pc+bias case calls it
 * (int32 -> uint8, 256 channels, scales 1/1200..1/800, bias, offset 100, clamp
 * [10, 245], x 16 bytes past a 64-byte line as numpy's large buffers are),
 * beside the per-tensor call on the same elements (scale 1/1000, no clamp) and
 * the per-channel kernel alone (the driver's arrays built once, outside the
 * timing): what the call adds to the kernel. The cases are timed interleaved,
 * round by round; each prints the median and the range of its per-call thread
 * CPU time over the rounds.
 * Build: bash tools/cbench.sh (builds it too). Run: OUTDIR/rqcall [rounds=41] [isa|-] [rows]
 * (rows: one more case, that many rows; rounds -K: case K alone for 2 s, for perf) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "driver/requant_channels.h"
#include "rules/params.h"
#include "bench_util.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { CH = 256, MAXROWS = 4096, PERIOD = 512, NCASES = 9, LONG = 1024 };

typedef struct call {
    simdops_prepared pc, pt;
    simdops_tensor x, y, bias, mult, shift;
    int32_t *xbuf;
    uint8_t *ybuf;
    int32_t mult_v[CH], shift_v[CH], bias_v[CH];
    /* the per-channel kernel alone: the driver's arrays for a 512-element period */
    simdops_requant_channels ch;
    simdops_requant_params kp;
    simdops_requant_params kp24;
    simdops_requant_channels chl;
    int32_t bias_long[LONG + 16] __attribute__((aligned(64)));
    int32_t storage_long[7 * (LONG + 16)] __attribute__((aligned(64)));
    int32_t bias_rep[PERIOD + CH + 16] __attribute__((aligned(64)));
    int32_t storage[5 * (PERIOD + CH + 16) + 2 * (PERIOD + CH + 16) + 64]
        __attribute__((aligned(64)));
} call;

static call C;
static int64_t rows_now;

static void tensor(simdops_tensor *t, void *data, simdops_dtype dt, int64_t rows, int64_t cols,
                   int64_t size)
{
    memset(t, 0, sizeof *t);
    t->data = data;
    t->dtype = dt;
    t->ndim = rows ? 2 : 1;
    if (rows) {
        t->shape[0] = rows;
        t->shape[1] = cols;
        t->strides[0] = cols * size;
        t->strides[1] = size;
    } else {
        t->shape[0] = cols;
        t->strides[0] = size;
    }
}

static void run_pc(int64_t rows)
{
    simdops_error err;
    simdops_tensor x, y;
    tensor(&x, C.xbuf, SIMDOPS_INT32, rows, CH, 4);
    tensor(&y, C.ybuf, SIMDOPS_UINT8, rows, CH, 1);
    if (simdops_requant_prepared(&C.pc, &x, &y, &C.bias, &C.mult, &C.shift, &err)) {
        fprintf(stderr, "rqcall: per-channel call failed: %s\n", simdops_reason_name(err.reason));
        exit(1);
    }
}

static void pc_rows(void *arg) { (void)arg; run_pc(rows_now); }
static void pc256(void *arg) { (void)arg; run_pc(256); }
static void pc4(void *arg) { (void)arg; run_pc(4); }
static void pc4096(void *arg) { (void)arg; run_pc(4096); }

static void pt64k(void *arg)
{
    simdops_error err;
    simdops_tensor x, y;
    (void)arg;
    tensor(&x, C.xbuf, SIMDOPS_INT32, 0, 256 * CH, 4);
    tensor(&y, C.ybuf, SIMDOPS_UINT8, 0, 256 * CH, 1);
    if (simdops_requant_prepared(&C.pt, &x, &y, NULL, NULL, NULL, &err)) {
        fprintf(stderr, "rqcall: per-tensor call failed: %s\n", simdops_reason_name(err.reason));
        exit(1);
    }
}

/* the per-channel kernel over 64K elements of x from a line in calls of len
 * elements (the driver's: 512), its arrays (len elements) on lines */
static void kernel_pc_calls(size_t len, const int32_t *bias, const simdops_requant_channels *ch)
{
    const simdops_kernel_table *kt = simdops_current_kernels();
    for (size_t at = 0; at < 256 * CH; at += len)
        kt->requant_pc[SIMDOPS_RQ_U8](C.xbuf + 12 + at, C.ybuf + at, len, bias, ch, &C.kp);
}

static void kernel_pc(void *arg)
{
    (void)arg;
    kernel_pc_calls(PERIOD, C.bias_rep, &C.ch);
}

/* the same in LONG-element calls: what the calls cost (and longer arrays) */
static void kernel_pc_long(void *arg)
{
    (void)arg;
    kernel_pc_calls(LONG, C.bias_long, &C.chl);
}

/* the integer per-tensor kernel (right shift 24: outside the float32 path) over
 * the same 64K elements, one call */
static void kernel_int_pt(void *arg)
{
    const simdops_kernel_table *kt = simdops_current_kernels();
    (void)arg;
    kt->requant[SIMDOPS_RQ_U8](C.xbuf + 12, C.ybuf, 256 * CH, NULL, &C.kp24);
}

#if defined(__x86_64__)
/* np.copyto(u8, i32, casting="unsafe") on 64K elements: a truncating convert */
__attribute__((target("avx512f"))) static void copy64k(void *arg)
{
    (void)arg;
    for (size_t i = 0; i < 256 * CH; i += 16)
        _mm_storeu_si128((__m128i *)(void *)(C.ybuf + i),
                         _mm512_cvtepi32_epi8(_mm512_loadu_si512(C.xbuf + i)));
}
#else
static void copy64k(void *arg)
{
    (void)arg;
    for (size_t i = 0; i < 256 * CH; i++)
        C.ybuf[i] = (uint8_t)C.xbuf[i];
}
#endif

typedef struct bcase {
    const char *name;
    bench_fn f;
    int64_t elements;
} bcase;

int main(int argc, char **argv)
{
    simdops_error err;
    int rounds = argc > 1 ? atoi(argv[1]) : 41;
    int64_t lo = 10, hi = 245, zero = 0;
    const bcase cases[NCASES] = {
        {"pc+bias 256x256 (C entry)", pc256, 256 * CH},
        {"pc+bias 4x256 (C entry)", pc4, 4 * CH},
        {"pc+bias 4096x256 (C entry)", pc4096, (int64_t)MAXROWS * CH},
        {"per tensor 65536 (C entry)", pt64k, 256 * CH},
        {"pc kernel alone 65536 (512 a call)", kernel_pc, 256 * CH},
        {"pc kernel alone 65536 (1024 a call)", kernel_pc_long, 256 * CH},
        {"integer per-tensor kernel 65536", kernel_int_pt, 256 * CH},
        {"converting copy 65536", copy64k, 256 * CH},
        {"pc+bias rows=argv[3] (C entry)", pc_rows, 0},
    };
    int ncases = argc > 3 ? NCASES : NCASES - 1;
    double t[NCASES][BENCH_MAX_ROUNDS];
    int reps[NCASES];
    if (argc > 2 && strcmp(argv[2], "-") && simdops_set_thread_isa(argv[2], &err) != SIMDOPS_OK) {
        fprintf(stderr, "rqcall: unknown or unavailable isa %s\n", argv[2]);
        return 1;
    }
    rows_now = argc > 3 ? atoll(argv[3]) : 1;
    /* x 16 bytes past a line, as numpy's mmap-backed buffers */
    C.xbuf = (int32_t *)(void *)((char *)aligned_alloc(64, (size_t)MAXROWS * CH * 4 + 64) + 16);
    C.ybuf = (uint8_t *)aligned_alloc(64, (size_t)MAXROWS * CH + 64);
    srand(1);
    for (size_t i = 0; i < (size_t)MAXROWS * CH; i++)
        C.xbuf[i] = rand() % 300000 - 150000;
    for (int k = 0; k < CH; k++) {
        /* quantize_multiplier(linspace(1/1200, 1/800, 256)[k]) */
        double s = 1.0 / 1200 + (1.0 / 800 - 1.0 / 1200) * k / (CH - 1), f;
        int e;
        f = frexp(s, &e);
        C.mult_v[k] = (int32_t)llround(f * 2147483648.0);
        C.shift_v[k] = -e;
        C.bias_v[k] = 40 * (k - CH / 2);
    }
    tensor(&C.bias, C.bias_v, SIMDOPS_INT32, 0, CH, 4);
    tensor(&C.mult, C.mult_v, SIMDOPS_INT32, 0, CH, 4);
    tensor(&C.shift, C.shift_v, SIMDOPS_INT32, 0, CH, 4);
    if (simdops_prepare_requant_rounding(SIMDOPS_UINT8, SIMDOPS_ROUNDING_DOUBLE, 0, 0, 100, &lo,
                                         &hi, &C.pc, &err) ||
        simdops_prepare_requant_rounding(SIMDOPS_UINT8, SIMDOPS_ROUNDING_DOUBLE, 1125899907, 9,
                                         100, &zero, &zero, &C.pt, &err)) {
        fprintf(stderr, "rqcall: prepare failed: %s\n", simdops_reason_name(err.reason));
        return 1;
    }
    /* the kernel alone: the arrays the driver builds (one period of 512, the
     * derived arrays and the fast path's), built here once */
    {
        const size_t stride = PERIOD + CH + 16;
        simdops_requant_channels_init_strided(&C.ch, C.storage, stride, C.mult_v, C.shift_v, CH,
                                              PERIOD / CH);
        simdops_requant_channels_init_fast(&C.ch, C.storage + 5 * stride, stride, CH, PERIOD,
                                           100, 10, 245);
        simdops_repeat_words(C.bias_rep, C.bias_v, CH, PERIOD / CH);
        simdops_requant_channels_init_strided(&C.chl, C.storage_long, LONG + 16, C.mult_v,
                                              C.shift_v, CH, LONG / CH);
        simdops_requant_channels_init_fast(&C.chl, C.storage_long + 5 * (LONG + 16), LONG + 16,
                                           CH, LONG, 100, 10, 245);
        simdops_repeat_words(C.bias_long, C.bias_v, CH, LONG / CH);
        simdops_prepared p24;
        simdops_prepared_impl impl;
        if (simdops_prepared_load(&C.pc, SIMDOPS_OP_REQUANT, SIMDOPS_OP_REQUANT, &impl, &err))
            return 1;
        C.kp = impl.u.requant;
        if (simdops_prepare_requant_rounding(SIMDOPS_UINT8, SIMDOPS_ROUNDING_DOUBLE, 1125899907,
                                             24, 100, &zero, &zero, &p24, &err) ||
            simdops_prepared_load(&p24, SIMDOPS_OP_REQUANT, SIMDOPS_OP_REQUANT, &impl, &err))
            return 1;
        C.kp24 = impl.u.requant;
        if (!C.ch.fast_mult)
            printf("(the kernel-alone case has no fast-path arrays)\n");
    }
    if (rounds < 0 && -rounds <= ncases) { /* rqcall -K: case K alone for 2 s (for perf) */
        double t0 = bench_now();
        while (bench_now() - t0 < 2.0)
            cases[-rounds - 1].f(NULL);
        return 0;
    }
    rounds = bench_clamp_rounds(rounds);
    for (int c = 0; c < ncases; c++)
        reps[c] = bench_reps(cases[c].f, NULL) / 5 + 1; /* ~2 ms a timing */
    for (int r = 0; r < rounds; r++)
        for (int c0 = 0; c0 < ncases; c0++) {
            int c = (c0 + r) % ncases; /* the order rotates round by round */
            t[c][r] = bench_time(cases[c].f, NULL, reps[c]);
        }
    printf("%s, %d rounds interleaved; us per call: median [min, max]; ns per element (median)\n",
           simdops_current_kernels()->isa, rounds);
    for (int c = 0; c < ncases; c++) {
        double lo_t = 1e9, hi_t = 0, med;
        int64_t n = cases[c].elements ? cases[c].elements : rows_now * CH;
        for (int r = 0; r < rounds; r++) {
            lo_t = t[c][r] < lo_t ? t[c][r] : lo_t;
            hi_t = t[c][r] > hi_t ? t[c][r] : hi_t;
        }
        med = bench_median(t[c], rounds);
        printf("  %-36s %9.3f [%9.3f, %9.3f] us  %.4f ns/elem\n", cases[c].name, med * 1e6,
               lo_t * 1e6, hi_t * 1e6, med * 1e9 / (double)n);
    }
    return 0;
}
