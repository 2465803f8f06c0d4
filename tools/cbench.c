/* Kernel micro-benchmark in C, without Python's call overhead: each case
 * against memcpy of the same bytes (what np.copyto does for contiguous
 * arrays), interleaved, with the fastest times and the median ratio.
 *
 * Build: bash tools/cbench.sh [OUTDIR=/tmp/kb]  (links the C harness objects)
 * Run:   OUTDIR/cbench [filter] [rounds=20] [isa]
 *        filter: a substring of the case labels ("" = all); isa: scalar, sse2,
 *        sse41, avx2 or neon (default: the best this CPU has).
 *        STREAM=bytes overrides the streaming-store threshold.
 *
 * "hardmax bound 1024x1024" splits hardmax into its memory traffic: a read of
 * x (a max over it at full vector width), a write of y (memset) and the
 * argmax scan alone; hardmax can be no faster than read + write, which is
 * the traffic of a copy (docs/performance.md). "hardmax bound axis 0" does the
 * same for the column scan along axis 0 of 1024x4096 (streamed zeros).
 * "hardmax bound 4096x1024" times the last-axis case's streams apart: the
 * read, the non-temporal zeros, both alternating in 64 KiB runs (RUN_BYTES=n
 * for another length), the row scan, with each part's spread over rounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "kernels/vec/stream_store.h"
#include "bench_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CBENCH_X86 1
#else
#define CBENCH_X86 0
#endif

static void tensor_2d(simdops_tensor *t, void *d, simdops_dtype dt, int64_t rows, int64_t cols)
{
    int64_t es = (int64_t)simdops_dtype_size(dt);
    memset(t, 0, sizeof *t);
    t->data = d;
    t->dtype = dt;
    t->ndim = 2;
    t->shape[0] = rows;
    t->shape[1] = cols;
    t->strides[0] = cols * es;
    t->strides[1] = es;
}

static void tensor_1d(simdops_tensor *t, void *d, simdops_dtype dt, int64_t n)
{
    tensor_2d(t, d, dt, 1, n);
    t->ndim = 1;
    t->shape[0] = n;
    t->strides[0] = (int64_t)simdops_dtype_size(dt);
}

typedef struct ctx {
    simdops_tensor x, y;
    void *xd, *yd, *cd; /* input, output, copy destination */
    size_t bytes;       /* of x */
    int64_t axis;
    simdops_number a, b;
    simdops_requant_args rq;
    int64_t rows, cols;
    volatile float sink;
} ctx;

static void check(int status, const simdops_error *err)
{
    if (status != SIMDOPS_OK) {
        char msg[256];
        simdops_error_format(err, msg, sizeof msg);
        fprintf(stderr, "cbench: %s\n", msg);
        exit(1);
    }
}

static void do_copy(void *p) { ctx *c = p; memcpy(c->cd, c->xd, c->bytes); }
static void do_zero(void *p) { ctx *c = p; memset(c->yd, 0, c->bytes); }
static void do_hardmax(void *p)
{
    ctx *c = p;
    simdops_error e;
    check(simdops_hardmax(&c->x, &c->y, 1, &c->axis, &e), &e);
}
static void do_shrink(void *p)
{
    ctx *c = p;
    simdops_error e;
    check(simdops_shrink(&c->x, &c->y, c->a, c->b, &e), &e);
}
static void do_clip(void *p)
{
    ctx *c = p;
    simdops_error e;
    check(simdops_clip(&c->x, &c->y, c->a, c->b, NULL, NULL, &e), &e);
}
static void do_rq(void *p)
{
    ctx *c = p;
    simdops_error e;
    check(simdops_requant(&c->x, &c->y, &c->rq, &e), &e);
}
/* np.copyto(u8, i32, casting="unsafe"): a truncating narrowing copy, at
 * SIMD width as numpy's cast loop runs it (SSE2 is baseline on x86-64). */
static void do_cast(void *p)
{
    ctx *c = p;
    const int32_t *x = c->xd;
    uint8_t *y = c->cd;
    size_t n = c->bytes / 4, i = 0;
#if CBENCH_X86
    const __m128i low = _mm_set1_epi32(0xff);
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i)), low);
        __m128i b = _mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i + 4)), low);
        __m128i d = _mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i + 8)), low);
        __m128i e = _mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i + 12)), low);
        _mm_storeu_si128((__m128i *)(y + i),
                         _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(d, e)));
    }
#endif
    for (; i < n; i++)
        y[i] = (uint8_t)x[i];
}

/* c set up for hardmax of a rows x cols float32 block of xd into yd along axis. */
static void hardmax_case(ctx *c, int64_t rows, int64_t cols, int64_t axis)
{
    c->rows = rows;
    c->cols = cols;
    tensor_2d(&c->x, c->xd, SIMDOPS_FLOAT32, rows, cols);
    tensor_2d(&c->y, c->yd, SIMDOPS_FLOAT32, rows, cols);
    c->axis = axis;
    c->bytes = (size_t)(rows * cols * 4);
}

/* The argmax scan of every row alone (no write of y). */
static void do_scan(void *p)
{
    ctx *c = p;
    simdops_argmax_row_fn scan = simdops_current_kernels()->argmax_row[SIMDOPS_FLOAT32];
    const float *x = c->xd;
    size_t acc = 0;
    for (int64_t r = 0; r < c->rows; r++)
        acc += scan(x + r * c->cols, (size_t)c->cols);
    c->sink = (float)acc;
}

/* hardmax of the 1024x1024 block in two passes over all of it: every row's
 * argmax, then one memset of y and the ones (the driver instead alternates
 * reading and zeroing in runs of up to 64 KiB). */
static void do_two_pass(void *p)
{
    static size_t at[4096];
    ctx *c = p;
    simdops_argmax_row_fn scan = simdops_current_kernels()->argmax_row[SIMDOPS_FLOAT32];
    const float *x = c->xd;
    float *y = c->yd;
    for (int64_t r = 0; r < c->rows; r++)
        at[r] = scan(x + r * c->cols, (size_t)c->cols);
    memset(y, 0, c->bytes);
    for (int64_t r = 0; r < c->rows; r++)
        y[r * c->cols + (int64_t)at[r]] = 1.0f;
}

/* The axis-0 column scan alone over rows x cols (no write of y): what the
 * driver's vertical scan runs, best and its indices kept in L1. */
static void do_cols_scan(void *p)
{
    static float best[4096];
    static int64_t bi[4096];
    ctx *c = p;
    simdops_argmax_cols_fn scan = simdops_current_kernels()->argmax_cols[SIMDOPS_FLOAT32];
    const float *x = c->xd;
    memcpy(best, x, (size_t)c->cols * 4);
    memset(bi, 0, sizeof bi);
    for (int64_t r = 1; r < c->rows; r += 64) /* the driver's batches */
        scan(x + r * c->cols, c->cols * 4, (size_t)(c->rows - r < 64 ? c->rows - r : 64),
             (size_t)c->cols, r, best, bi);
    c->sink = best[bi[0] & 7];
}

/* A read of x at full vector width that keeps the core busy with no more
 * than one max per vector: the read bandwidth the scan competes with. */
#if CBENCH_X86
__attribute__((target("avx2"))) static float read_max_avx2(const float *x, size_t n)
{
    __m256 m0 = _mm256_set1_ps(-1e30f), m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        m0 = _mm256_max_ps(m0, _mm256_loadu_ps(x + i));
        m1 = _mm256_max_ps(m1, _mm256_loadu_ps(x + i + 8));
        m2 = _mm256_max_ps(m2, _mm256_loadu_ps(x + i + 16));
        m3 = _mm256_max_ps(m3, _mm256_loadu_ps(x + i + 24));
    }
    m0 = _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3));
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m0), _mm256_extractf128_ps(m0, 1));
    float out[4];
    _mm_storeu_ps(out, h);
    float m = out[0] > out[1] ? out[0] : out[1];
    m = m > out[2] ? m : out[2];
    m = m > out[3] ? m : out[3];
    for (; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}
#endif

static float read_max_plain(const float *x, size_t n)
{
    float m0 = -1e30f, m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        m0 = x[i] > m0 ? x[i] : m0;
        m1 = x[i + 1] > m1 ? x[i + 1] : m1;
        m2 = x[i + 2] > m2 ? x[i + 2] : m2;
        m3 = x[i + 3] > m3 ? x[i + 3] : m3;
    }
    for (; i < n; i++)
        m0 = x[i] > m0 ? x[i] : m0;
    m0 = m0 > m1 ? m0 : m1;
    m2 = m2 > m3 ? m2 : m3;
    return m0 > m2 ? m0 : m2;
}

static void do_read(void *p)
{
    ctx *c = p;
#if CBENCH_X86
    if (__builtin_cpu_supports("avx2")) {
        c->sink = read_max_avx2(c->xd, c->bytes / 4);
        return;
    }
#endif
    c->sink = read_max_plain(c->xd, c->bytes / 4);
}

/* A copy done the way an element-wise kernel writes: vector loads and
 * stores (each store first reads its line for ownership), where memcpy of a
 * few MB uses `rep movsb`, which does not. Its ratio to memcpy is the bound
 * of an element-wise kernel in cache. */
#if CBENCH_X86
__attribute__((target("avx2"))) static void copy_avx2(const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        __m256 d = _mm256_loadu_ps(x + i + 16), e = _mm256_loadu_ps(x + i + 24);
        _mm256_storeu_ps(y + i, a);
        _mm256_storeu_ps(y + i + 8, b);
        _mm256_storeu_ps(y + i + 16, d);
        _mm256_storeu_ps(y + i + 24, e);
    }
    for (; i < n; i++)
        y[i] = x[i];
}
#endif

static void do_vector_copy(void *p)
{
    ctx *c = p;
#if CBENCH_X86
    if (__builtin_cpu_supports("avx2")) {
        copy_avx2(c->xd, c->yd, c->bytes / 4);
        return;
    }
#endif
    memmove(c->yd, c->xd, c->bytes);
}

/* y zeroed with non-temporal stores (what the driver writes past the
 * streaming threshold), then fenced. */
static void do_stream_zero(void *p)
{
    ctx *c = p;
#if CBENCH_X86
    char *y = c->yd;
    size_t head = (size_t)(0u - (uintptr_t)y) & 63, i;
    memset(y, 0, head);
    for (i = head; i + 64 <= c->bytes; i += 64) {
        _mm_stream_si128((__m128i *)(y + i), _mm_setzero_si128());
        _mm_stream_si128((__m128i *)(y + i + 16), _mm_setzero_si128());
        _mm_stream_si128((__m128i *)(y + i + 32), _mm_setzero_si128());
        _mm_stream_si128((__m128i *)(y + i + 48), _mm_setzero_si128());
    }
    memset(y + i, 0, c->bytes - i);
    _mm_sfence();
#else
    memset(c->yd, 0, c->bytes);
#endif
}

/* hardmax along axis 0 of 1024x4096 float32 (16 MiB, past the streaming
 * threshold) split like hardmax_bound: the column scan against a bare read of
 * the same bytes, and the streamed write. */
static void hardmax_axis0_bound(ctx *c, int rounds)
{
    enum { N_PARTS = 5 };
    static const char *names[N_PARTS] = {"copy (memcpy)", "read (max loop)", "write (NT zeros)",
                                         "column scan", "hardmax axis 0"};
    bench_fn parts[N_PARTS] = {do_copy, do_read, do_stream_zero, do_cols_scan, do_hardmax};
    double best[N_PARTS], r_scan[BENCH_MAX_ROUNDS], r_hm[BENCH_MAX_ROUNDS];
    int reps[N_PARTS];
    hardmax_case(c, 1024, 4096, 0);
    for (int k = 0; k < N_PARTS; k++) {
        reps[k] = bench_reps(parts[k], c);
        best[k] = 1e9;
    }
    rounds = bench_clamp_rounds(rounds);
    for (int r = 0; r < rounds; r++) {
        double t[N_PARTS];
        for (int j = 0; j < N_PARTS; j++) {
            int k = (j + r) % N_PARTS;
            t[k] = bench_time(parts[k], c, reps[k]);
            best[k] = t[k] < best[k] ? t[k] : best[k];
        }
        r_scan[r] = t[3] / t[1];
        r_hm[r] = t[0] / t[4];
    }
    printf("hardmax bound axis 0 1024x4096 float32 (16 MiB in, 16 MiB out; fastest of %d rounds):\n",
           rounds);
    for (int k = 0; k < N_PARTS; k++)
        printf("  %-18s %8.1f us  %6.2f GB/s of x\n", names[k], best[k] * 1e6,
               (double)c->bytes / best[k] * 1e-9);
    printf("  column scan / read:     %.2f (fastest times)  median %.2f\n", best[3] / best[1],
           bench_median(r_scan, rounds));
    printf("  (scan + NT write) / copy: %.2f   copy/hardmax %.2f (fastest)  median %.2f\n",
           (best[3] + best[2]) / best[0], best[0] / best[4], bench_median(r_hm, rounds));
    fflush(stdout);
}

/* x read in 64 KiB runs, each followed by 64 KiB of y zeroed with
 * non-temporal stores: hardmax 4096x1024's memory traffic in the driver's
 * order (rows read, then their run of y streamed), without the argmax. */
static void do_read_stream(void *p)
{
    ctx *c = p;
    ctx part = *c;
    static size_t run;
    float m = 0;
    if (!run) /* RUN_BYTES=n: another run length, to see how the bound depends on it */
        run = getenv("RUN_BYTES") ? (size_t)strtoull(getenv("RUN_BYTES"), NULL, 0) : 65536;
    for (size_t off = 0; off < c->bytes; off += run) {
        size_t b = c->bytes - off < run ? c->bytes - off : run;
        part.xd = (char *)c->xd + off;
        part.yd = (char *)c->yd + off;
        part.bytes = b;
        do_read(&part);
        m += part.sink;
        do_stream_zero(&part);
    }
    c->sink = m;
}

/* hardmax along the last axis of 4096x1024 float32 (16 MiB in, 16 MiB out:
 * past the streaming threshold, x and y together the size of this machine's
 * L3) split into independent streams: a read of x, the non-temporal write of
 * y, both in the driver's order, the row scan alone; with the spread over
 * rounds of each (which part swings from round to round). */
static void hardmax_rows_bound(ctx *c, int rounds)
{
    enum { N_PARTS = 6 };
    static const char *names[N_PARTS] = {"copy (memcpy)", "read (max loop)", "write (NT zeros)",
                                         "read+NT in runs", "argmax scan", "hardmax"};
    bench_fn parts[N_PARTS] = {do_copy, do_read, do_stream_zero, do_read_stream, do_scan,
                               do_hardmax};
    double t[N_PARTS][BENCH_MAX_ROUNDS], med[N_PARTS], r_hm[BENCH_MAX_ROUNDS];
    int reps[N_PARTS];
    hardmax_case(c, 4096, 1024, 1);
    for (int k = 0; k < N_PARTS; k++)
        reps[k] = bench_reps(parts[k], c);
    rounds = bench_clamp_rounds(rounds);
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < N_PARTS; j++) {
            int k = (j + r) % N_PARTS;
            t[k][r] = bench_time(parts[k], c, reps[k]);
        }
        r_hm[r] = t[0][r] / t[5][r];
    }
    printf("hardmax bound 4096x1024 float32 (16 MiB in, 16 MiB out; %d rounds):\n", rounds);
    for (int k = 0; k < N_PARTS; k++) {
        double lo = 1e9, hi = 0;
        for (int r = 0; r < rounds; r++) {
            lo = t[k][r] < lo ? t[k][r] : lo;
            hi = t[k][r] > hi ? t[k][r] : hi;
        }
        med[k] = bench_median(t[k], rounds);
        printf("  %-18s median %8.1f us (%6.2f GB/s of x)  fastest %8.1f  slowest %8.1f\n",
               names[k], med[k] * 1e6, (double)c->bytes / med[k] * 1e-9, lo * 1e6, hi * 1e6);
    }
    printf("  read + NT write (sum of medians) %.1f us: copy/sum %.2f; copy/(read+NT in runs) %.2f\n",
           (med[1] + med[2]) * 1e6, med[0] / (med[1] + med[2]), med[0] / med[3]);
    printf("  copy/hardmax median of rounds %.2f; hardmax/(read+NT in runs) %.2f\n",
           bench_median(r_hm, rounds), med[5] / med[3]);
    fflush(stdout);
}

static void hardmax_bound(ctx *c, int rounds)
{
    enum { N_PARTS = 6 };
    static const char *names[N_PARTS] = {"copy (memcpy)", "read (max loop)", "write (memset 0)",
                                         "argmax scan",   "hardmax",         "two passes"};
    bench_fn parts[N_PARTS] = {do_copy, do_read, do_zero, do_scan, do_hardmax, do_two_pass};
    double best[N_PARTS], ratio_hm[BENCH_MAX_ROUNDS], ratio_rw[BENCH_MAX_ROUNDS];
    double ratio_2p[BENCH_MAX_ROUNDS];
    int reps[N_PARTS];
    hardmax_case(c, 1024, 1024, 1);
    for (int k = 0; k < N_PARTS; k++) {
        reps[k] = bench_reps(parts[k], c);
        best[k] = 1e9;
    }
    rounds = bench_clamp_rounds(rounds);
    for (int r = 0; r < rounds; r++) {
        double t[N_PARTS];
        for (int j = 0; j < N_PARTS; j++) { /* rotate the order every round */
            int k = (j + r) % N_PARTS;
            t[k] = bench_time(parts[k], c, reps[k]);
            best[k] = t[k] < best[k] ? t[k] : best[k];
        }
        ratio_hm[r] = t[0] / t[4];
        ratio_rw[r] = t[0] / (t[1] + t[2]);
        ratio_2p[r] = t[4] / t[5];
    }
    printf("hardmax bound 1024x1024 float32 (4 MB in, 4 MB out; fastest of %d rounds):\n",
           rounds);
    for (int k = 0; k < N_PARTS; k++)
        printf("  %-18s %8.1f us  %6.2f GB/s of x\n", names[k], best[k] * 1e6,
               (double)c->bytes / best[k] * 1e-9);
    printf("  read + write vs copy:   copy/(read+write) %.2f (fastest times)  median %.2f\n",
           best[0] / (best[1] + best[2]), bench_median(ratio_rw, rounds));
    printf("  hardmax vs copy:        copy/hardmax %.2f (fastest times)  median %.2f\n",
           best[0] / best[4], bench_median(ratio_hm, rounds));
    printf("  scan + write vs hardmax: hardmax/(scan+write) %.2f\n",
           best[4] / (best[3] + best[2]));
    printf("  two passes vs hardmax:  hardmax/two-passes %.2f (fastest times)  median %.2f\n",
           best[4] / best[5], bench_median(ratio_2p, rounds));
    fflush(stdout);
}

static void requant_cases(ctx *c, int rounds)
{
    enum { CH = 256 };
    int64_t n = 1 << 20;
    static int32_t mult[CH], shift[CH], bias[CH];
    simdops_tensor mt, st, bt;
    static ctx pc;
    bench_requant_inputs(c->xd, (size_t)n, mult, shift, bias, CH);
    memset(&c->rq, 0, sizeof c->rq);
    c->rq.multiplier = 1125899907;
    c->rq.shift = 9;
    c->rq.offset = 100;
    for (int64_t size = 1 << 16; size <= n; size <<= 4) {
        char label[64];
        tensor_1d(&c->x, c->xd, SIMDOPS_INT32, size);
        tensor_1d(&c->y, c->yd, SIMDOPS_UINT8, size);
        c->bytes = (size_t)size * 4;
        snprintf(label, sizeof label, "requant per-tensor vs cast %s", size >> 20 ? "1M" : "64K");
        bench_compare(label, do_rq, do_cast, c, rounds);
    }
    /* per channel + bias + clamp on [n / CH, CH] against per tensor on the
     * same bytes (c, as the loop above left it: 1M elements) */
    pc = *c;
    tensor_2d(&pc.x, pc.xd, SIMDOPS_INT32, n / CH, CH);
    tensor_2d(&pc.y, pc.yd, SIMDOPS_UINT8, n / CH, CH);
    tensor_1d(&mt, mult, SIMDOPS_INT32, CH);
    tensor_1d(&st, shift, SIMDOPS_INT32, CH);
    tensor_1d(&bt, bias, SIMDOPS_INT32, CH);
    pc.rq.multipliers = &mt;
    pc.rq.shifts = &st;
    pc.rq.bias = &bt;
    pc.rq.min = 10;
    pc.rq.max = 245;
    pc.rq.has_min = pc.rq.has_max = 1;
    bench_compare_args("requant pc+bias 1M vs per-tensor 1M", do_rq, &pc, do_rq, c, rounds);
}

static float frand(void) { return (float)rand() / (float)RAND_MAX * 2 - 1; }

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "";
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    simdops_error err;
    static ctx c;
    size_t maxb = (size_t)64 << 20;
    if (argc > 3)
        check(simdops_set_thread_isa(argv[3], &err), &err);
    if (getenv("STREAM"))
        simdops_stream_threshold = (size_t)atoll(getenv("STREAM"));

    c.xd = aligned_alloc(4096, maxb + 4096);
    c.yd = aligned_alloc(4096, maxb + 4096);
    c.cd = aligned_alloc(4096, maxb + 4096);
    if (!c.xd || !c.yd || !c.cd) {
        fprintf(stderr, "cbench: out of memory\n");
        return 1;
    }
    /* numpy places large buffers 16 bytes past a page: do the same */
    c.xd = (char *)c.xd + 16;
    c.yd = (char *)c.yd + 16;
    c.cd = (char *)c.cd + 16;
    memset(c.yd, 1, maxb);
    memset(c.cd, 1, maxb);
    for (size_t i = 0; i < maxb / 4; i++)
        ((float *)c.xd)[i] = frand();
    printf("isa %s, %d rounds\n", simdops_isa(), rounds);

    struct { const char *label; int64_t rows, cols, axis; } hm[] = {
        {"hardmax f32 64x1024 axis 1", 64, 1024, 1},
        {"hardmax f32 1024x1024 axis 1", 1024, 1024, 1},
        {"hardmax f32 4096x1024 axis 1", 4096, 1024, 1},
        {"hardmax f32 1024x4096 axis 0", 1024, 4096, 0},
    };
    for (int k = 0; k < (int)(sizeof hm / sizeof hm[0]); k++) {
        if (!strstr(hm[k].label, only))
            continue;
        hardmax_case(&c, hm[k].rows, hm[k].cols, hm[k].axis);
        bench_compare(hm[k].label, do_hardmax, do_copy, &c, rounds);
    }
    if (strstr("hardmax bound 1024x1024", only))
        hardmax_bound(&c, rounds);
    if (strstr("hardmax bound axis 0", only))
        hardmax_axis0_bound(&c, rounds);
    if (strstr("hardmax bound 4096x1024", only))
        hardmax_rows_bound(&c, rounds);

    struct { const char *label; simdops_dtype dt; int64_t n; bench_fn f; double a, b; } ew[] = {
        {"shrink f16 b=.5 64K", SIMDOPS_FLOAT16, 1 << 16, do_shrink, 0.5, 0.5},
        {"shrink f16 b=.5 1M", SIMDOPS_FLOAT16, 1 << 20, do_shrink, 0.5, 0.5},
        {"shrink f32 1M", SIMDOPS_FLOAT32, 1 << 20, do_shrink, 0.5, 0.5},
        {"shrink f32 16M", SIMDOPS_FLOAT32, 1 << 24, do_shrink, 0.5, 0.5},
        {"clip f32 1M", SIMDOPS_FLOAT32, 1 << 20, do_clip, -1.0, 1.0},
        {"clip f32 16M", SIMDOPS_FLOAT32, 1 << 24, do_clip, -1.0, 1.0},
        /* the 64K rows and the same calls at n=16 (the C call's fixed cost; integer
         * shrink takes the bench's integer bias and threshold) */
        {"shrink i8 64K", SIMDOPS_INT8, 1 << 16, do_shrink, 15, 31},
        {"shrink i8 16", SIMDOPS_INT8, 16, do_shrink, 15, 31},
        {"shrink f32 64K", SIMDOPS_FLOAT32, 1 << 16, do_shrink, 0.5, 0.5},
        {"shrink f32 16", SIMDOPS_FLOAT32, 16, do_shrink, 0.5, 0.5},
        {"clip f16 64K", SIMDOPS_FLOAT16, 1 << 16, do_clip, -0.75, 0.75},
        {"clip f16 16", SIMDOPS_FLOAT16, 16, do_clip, -0.75, 0.75},
        {"vector-store copy f32 64K", SIMDOPS_FLOAT32, 1 << 16, do_vector_copy, 0, 0},
        {"vector-store copy f32 1M", SIMDOPS_FLOAT32, 1 << 20, do_vector_copy, 0, 0},
    };
    for (int k = 0; k < (int)(sizeof ew / sizeof ew[0]); k++) {
        if (!strstr(ew[k].label, only))
            continue;
        if (ew[k].dt == SIMDOPS_FLOAT16) { /* halves in (-1, -0.5] and [0.5, 1) */
            uint16_t *h = c.xd;
            for (int64_t i = 0; i < ew[k].n; i++)
                h[i] = (uint16_t)((0x3800 + (rand() & 0x3ff)) | (rand() & 1 ? 0x8000 : 0));
        }
        tensor_1d(&c.x, c.xd, ew[k].dt, ew[k].n);
        tensor_1d(&c.y, c.yd, ew[k].dt, ew[k].n);
        c.a.kind = c.b.kind = SIMDOPS_NUM_FLOAT;
        c.a.f = ew[k].a;
        c.b.f = ew[k].b;
        if (ew[k].dt == SIMDOPS_INT8) {
            c.a.kind = c.b.kind = SIMDOPS_NUM_INT;
            c.a.i = (int64_t)ew[k].a;
            c.b.i = (int64_t)ew[k].b;
        }
        c.bytes = (size_t)ew[k].n * simdops_dtype_size(ew[k].dt);
        bench_compare(ew[k].label, ew[k].f, do_copy, &c, rounds);
    }
    if (strstr("requant per-tensor pc+bias", only) || strstr(only, "requant"))
        requant_cases(&c, rounds);
    return 0;
}
