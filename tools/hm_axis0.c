/* hardmax along axis 0 of a rows x cols float32 array (default 1024x4096: 16 MiB
 * in, 16 MiB out, past the streaming threshold): whole algorithms and their
 * parts side by side in one process. Each round times memcpy once, then every
 * variant in a rotating order; per variant the fastest time and the median and
 * quartiles of the per-round ratio memcpy / variant. Buffers as numpy makes
 * them (16 bytes past a page, huge pages asked for; memcpy writes the op's y,
 * as np.copyto(out, x) does). Every variant that writes y is checked against
 * the package's driver once before timing.
 *
 * Build: bash tools/cbench.sh OUT -> OUT/hm_axis0
 * Run:   [ONLY=name,name,...] [AXIS=1] OUT/hm_axis0 [rounds=15] [rows cols]
 *        (AXIS=1: the last axis, the driver rows only)
 *
 * Whole algorithms:
 *   driver          simdops_hardmax (the package)
 *   old driver      (a build with -DHM_AXIS0_OLD and an object of another
 *                   driver whose entry is renamed old_hardmax_run: A/B)
 *   interleaved     64 rows scanned, their rows of y zeroed non-temporally, ...,
 *                   the ones stored at the end
 *   scan+NT         the package's driver over the column kernel of the variant
 *                   (every row scanned first, then y streamed once, the ones
 *                   inside their lines)
 *   scan+NT+1s      the same with the ones stored after the streamed zeros
 *   scan+memset     every row scanned, one memset of y (rep stosb), the ones
 *   scan+NT <isa> [nopf]  scan+NT with the tier's column kernel as the package
 *                   builds it, or without the next rows' prefetch
 * Parts (the bound, docs/design.md "Beyond the cache"):
 *   read            a max over x at vector width (x's bytes read)
 *   NT zeros        y written with non-temporal zeros
 *   read, NT zeros  both, one after the other: the traffic every hardmax moves
 *   NT copy         x copied to y with non-temporal stores, line by line
 *   column scan, scan <isa> [nopf]  the column kernel alone over x
 *   scan L1 [nopf]  its instruction mix alone: one 8 KiB row as every row of a
 *                   call (stride 0), best and offsets in L1, the array's work (with
 *                   stride 0 the next rows' prefetches hit the lines being read:
 *                   nopf, the AVX-512 kernel without them, is the mix's cost)
 *   scan L2, read L2  the scan / the read of the first 32 rows (512 KiB, in L2)
 *                   32 times */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "driver/hardmax_driver.h"
#include "kernels/vec/stream_store.h"
#include "bench_util.h"
#include "hm_axis0_kern.h"

#include <immintrin.h>
#include <sys/mman.h>

static int64_t ROWS = 1024, COLS = 4096;
static int AXIS = 0; /* AXIS=1 in the environment: the last axis (driver variants only) */
static float *X, *Y, *C;
static float *BEST;
static int64_t *BI;
static size_t BYTES;
static volatile float SINK;
static simdops_argmax_cols_fn SCAN, TABLE_SCAN;

static void do_copy(void *p) { (void)p; memcpy(C, X, BYTES); }

static void scan_rows(int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; r += 64)
        SCAN(X + r * COLS, COLS * 4, (size_t)(r1 - r < 64 ? r1 - r : 64), (size_t)COLS, r, BEST,
             BI);
}

static void scan_all(void)
{
    memcpy(BEST, X, (size_t)COLS * 4);
    memset(BI, 0, (size_t)COLS * sizeof(int64_t));
    scan_rows(1, ROWS);
}

/* nb zero bytes at y, the whole 64-byte lines with non-temporal stores */
static void nt_zero(char *y, size_t nb)
{
    size_t head = (size_t)(0u - (uintptr_t)y) & 63, end = head + (nb - head) / 64 * 64;
    memset(y, 0, head);
    for (size_t i = head; i < end; i += 16)
        _mm_stream_si128((__m128i *)(y + i), _mm_setzero_si128());
    memset(y + end, 0, nb - end);
}

static void ones(void)
{
    for (int64_t j = 0; j < COLS; j++)
        Y[BI[j] * COLS + j] = 1.0f;
}

/* x and y as the 2-D tensors of the call */
static void tensors(simdops_tensor *x, simdops_tensor *y)
{
    simdops_tensor *t[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        memset(t[k], 0, sizeof *t[k]);
        *t[k] = (simdops_tensor){.data = k ? Y : X, .dtype = SIMDOPS_FLOAT32, .ndim = 2,
                                 .shape = {ROWS, COLS}, .strides = {COLS * 4, 4}};
    }
}

static void v_driver(void *p)
{
    simdops_tensor x, y;
    simdops_error e;
    int64_t axis = AXIS;
    (void)p;
    tensors(&x, &y);
    if (simdops_hardmax(&x, &y, 1, &axis, &e) != SIMDOPS_OK) {
        fprintf(stderr, "hm_axis0: hardmax failed\n");
        exit(1);
    }
}

/* the package's driver (every row scanned, then y streamed once with the ones
 * inside) over the column kernel SCAN */
static void v_scan_nt(void *p)
{
    simdops_tensor x, y;
    simdops_kernel_table kt = *simdops_current_kernels();
    static const int reduced[2] = {1, 0};
    (void)p;
    tensors(&x, &y);
    kt.argmax_cols[SIMDOPS_FLOAT32] = SCAN;
    simdops_hardmax_run(&kt, &x, &y, reduced);
}

#ifdef HM_AXIS0_OLD
/* A/B against another build of the driver: HM_AXIS0_OLD names an object of it
 * whose simdops_hardmax_run was renamed old_hardmax_run (-D at its compile);
 * it runs with main's kernel (no next rows' prefetch) */
int old_hardmax_run(const simdops_kernel_table *kt, const simdops_tensor *x,
                    const simdops_tensor *y, const int *reduced);
static void v_old(void *p)
{
    simdops_tensor x, y;
    simdops_kernel_table kt = *simdops_current_kernels();
    const int reduced[2] = {AXIS == 0, AXIS == 1};
    (void)p;
    tensors(&x, &y);
    if (!strcmp(simdops_isa(), "avx512") || !strcmp(simdops_isa(), "avx2"))
        kt.argmax_cols[SIMDOPS_FLOAT32] = (simdops_argmax_cols_fn)(void (*)(void))(
            strcmp(simdops_isa(), "avx2") ? hm_axis0_cols_avx512_nopf : hm_axis0_cols_avx2_nopf);
    old_hardmax_run(&kt, &x, &y, reduced);
}
#endif

static void v_interleaved(void *p)
{
    (void)p;
    memcpy(BEST, X, (size_t)COLS * 4);
    memset(BI, 0, (size_t)COLS * sizeof(int64_t));
    nt_zero((char *)Y, (size_t)COLS * 4);
    for (int64_t r = 1; r < ROWS; r += 64) {
        int64_t r1 = r + 64 < ROWS ? r + 64 : ROWS;
        scan_rows(r, r1);
        nt_zero((char *)(Y + r * COLS), (size_t)((r1 - r) * COLS) * 4);
    }
    _mm_sfence();
    ones();
}

static void v_scan_nt_ones(void *p)
{
    (void)p;
    scan_all();
    nt_zero((char *)Y, BYTES);
    _mm_sfence();
    ones();
}

static void v_scan_memset(void *p)
{
    (void)p;
    scan_all();
    memset(Y, 0, BYTES);
    ones();
}

__attribute__((target("avx2"))) void p_read(void *p)
{
    __m256 m0 = _mm256_set1_ps(-1e30f), m1 = m0, m2 = m0, m3 = m0;
    size_t n = BYTES / 4;
    (void)p;
    for (size_t i = 0; i + 32 <= n; i += 32) {
        m0 = _mm256_max_ps(m0, _mm256_loadu_ps(X + i));
        m1 = _mm256_max_ps(m1, _mm256_loadu_ps(X + i + 8));
        m2 = _mm256_max_ps(m2, _mm256_loadu_ps(X + i + 16));
        m3 = _mm256_max_ps(m3, _mm256_loadu_ps(X + i + 24));
    }
    m0 = _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3));
    SINK = _mm256_cvtss_f32(m0);
}

static void p_scan(void *p) { (void)p; scan_all(); SINK = BEST[BI[0] & 7]; }

/* x copied to y with non-temporal stores (each line read, then streamed): the
 * traffic of a copy that does not read y */
static void p_nt_copy(void *p)
{
    const char *x = (const char *)X;
    char *y = (char *)Y;
    size_t head = (size_t)(0u - (uintptr_t)y) & 63, i;
    (void)p;
    memcpy(y, x, head);
    for (i = head; i + 64 <= BYTES; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(x + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(x + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(x + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(x + i + 48));
        _mm_stream_si128((__m128i *)(y + i), a);
        _mm_stream_si128((__m128i *)(y + i + 16), b);
        _mm_stream_si128((__m128i *)(y + i + 32), c);
        _mm_stream_si128((__m128i *)(y + i + 48), d);
    }
    memcpy(y + i, x + i, BYTES - i);
    _mm_sfence();
}

/* the column scan and the read over the first 32 rows only (512 KiB at 4096
 * columns: L2-resident after the first call), 32 times: the scan's cost
 * without memory, for the whole array's bytes */
static void p_scan_l2(void *p)
{
    (void)p;
    for (int t = 0; t < 32; t++) {
        memcpy(BEST, X, (size_t)COLS * 4);
        SCAN(X + COLS, COLS * 4, 31, (size_t)COLS, 1, BEST, BI);
    }
    SINK = BEST[BI[0] & 7];
}
void p_read(void *p);
static void p_read_l2(void *p)
{
    size_t keep = BYTES;
    BYTES = (size_t)COLS * 32 * 4;
    for (int t = 0; t < 32; t++)
        p_read(p);
    BYTES = keep;
}

/* the kernel's instruction mix alone: one 2048-float row (8 KiB) taken as
 * all 64 rows of a call (stride 0), with best and the chunk's offsets in L1
 * (24 KiB), 32 calls: the array's 16 MiB of scan work over L1 data */
static void p_scan_l1(void *p)
{
    (void)p;
    memcpy(BEST, X, 2048 * 4);
    for (int t = 0; t < 32; t++)
        SCAN(X, 0, 64, 2048, 1, BEST, BI);
    SINK = BEST[BI[0] & 7];
}
/* the same with the tool's builds of the kernel (hm_axis0_kern.c) */
#define WITH_SCAN(name, fn, body)                                                           \
    static void name(void *p)                                                               \
    {                                                                                       \
        SCAN = (simdops_argmax_cols_fn)(void (*)(void))fn;                                  \
        body(p);                                                                            \
        SCAN = TABLE_SCAN;                                                                  \
    }
WITH_SCAN(v_nt_512, hm_axis0_cols_avx512_pkg, v_scan_nt)
WITH_SCAN(v_nt_512_nopf, hm_axis0_cols_avx512_nopf, v_scan_nt)
WITH_SCAN(p_scan_512, hm_axis0_cols_avx512_pkg, p_scan)
WITH_SCAN(p_scan_512_nopf, hm_axis0_cols_avx512_nopf, p_scan)
WITH_SCAN(p_scan_l1_nopf, hm_axis0_cols_avx512_nopf, p_scan_l1)
WITH_SCAN(v_nt_256, hm_axis0_cols_avx2_pkg, v_scan_nt)
WITH_SCAN(v_nt_256_nopf, hm_axis0_cols_avx2_nopf, v_scan_nt)
WITH_SCAN(p_scan_256, hm_axis0_cols_avx2_pkg, p_scan)
WITH_SCAN(p_scan_256_nopf, hm_axis0_cols_avx2_nopf, p_scan)
static void p_nt(void *p) { (void)p; nt_zero((char *)Y, BYTES); _mm_sfence(); }
static void p_read_nt(void *p) { p_read(p); p_nt(p); }

typedef struct variant {
    const char *name;
    bench_fn f;
    int check; /* y compared with the driver's */
} variant;

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    static const variant vs[] = {
        {"driver", v_driver, 0},
#ifdef HM_AXIS0_OLD
        {"old driver", v_old, 1},
#endif
        {"interleaved", v_interleaved, 1},
        {"scan+NT", v_scan_nt, 1},
        {"scan+NT+1s", v_scan_nt_ones, 1},
        {"scan+memset", v_scan_memset, 1},
        {"read", p_read, 0},
        {"column scan", p_scan, 0},
        {"NT zeros", p_nt, 0},
        {"read, NT zeros", p_read_nt, 0},
        {"NT copy", p_nt_copy, 0},
        {"scan L1", p_scan_l1, 0},
        {"scan L2", p_scan_l2, 0},
        {"read L2", p_read_l2, 0},
        {"scan+NT avx512", v_nt_512, 1},
        {"scan+NT avx512 nopf", v_nt_512_nopf, 1},
        {"scan avx512", p_scan_512, 0},
        {"scan avx512 nopf", p_scan_512_nopf, 0},
        {"scan L1 nopf", p_scan_l1_nopf, 0},
        {"scan+NT avx2", v_nt_256, 1},
        {"scan+NT avx2 nopf", v_nt_256_nopf, 1},
        {"scan avx2", p_scan_256, 0},
        {"scan avx2 nopf", p_scan_256_nopf, 0},
    };
    enum { NV = sizeof vs / sizeof vs[0] };
    double ratio[NV][BENCH_MAX_ROUNDS], best[NV], bestc = 1e9;
    int reps[NV], repc, skip[NV];
    float *ref;
    if (argc > 3) {
        ROWS = atoll(argv[2]);
        COLS = atoll(argv[3]);
    }
    BYTES = (size_t)(ROWS * COLS) * 4;
    AXIS = getenv("AXIS") ? atoi(getenv("AXIS")) : 0;
    /* numpy places large buffers 16 bytes past a page and asks for huge pages
     * (madvise) from 4 MiB: do the same; np.copyto(out, x) writes the op's own
     * out (COPY_APART=1: a third buffer) */
    {
        size_t span = (BYTES + 16 + (2u << 20) - 1) / (2u << 20) * (2u << 20);
        char *b[3];
        for (int k = 0; k < 3; k++) {
            b[k] = aligned_alloc(2u << 20, span);
            if (!getenv("NO_HUGE"))
                madvise(b[k], span, MADV_HUGEPAGE);
        }
        X = (float *)(b[0] + 16);
        Y = (float *)(b[1] + 16);
        C = getenv("COPY_APART") ? (float *)(b[2] + 16) : Y;
    }
    ref = malloc(BYTES);
    BEST = aligned_alloc(64, (size_t)COLS * 4 + 64);
    BI = aligned_alloc(64, (size_t)COLS * 8 + 64);
    srand(1);
    for (size_t i = 0; i < BYTES / 4; i++)
        X[i] = (float)rand() / (float)RAND_MAX;
    memset(C, 1, BYTES);
    SCAN = TABLE_SCAN = simdops_current_kernels()->argmax_cols[SIMDOPS_FLOAT32];
    rounds = bench_clamp_rounds(rounds);
    printf("isa %s, hardmax axis %d %lldx%lld float32, %d rounds, stream threshold %zu\n",
           simdops_isa(), AXIS, (long long)ROWS, (long long)COLS, rounds, simdops_stream_threshold);
    for (int v = 0; v < NV; v++) {
        const char *only = getenv("ONLY"); /* comma-separated variant names */
        char key[64], list[512];
        skip[v] = 0;
        if (only) {
            snprintf(key, sizeof key, ",%s,", vs[v].name);
            snprintf(list, sizeof list, ",%s,", only);
            skip[v] = !strstr(list, key);
        }
        /* the tool's kernel builds need their tier on this CPU */
        if (strstr(vs[v].name, "avx512") &&
            !(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")))
            skip[v] = 1;
        else if (strstr(vs[v].name, "avx2") &&
                 !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c")))
            skip[v] = 1;
        else if (strstr(vs[v].name, "scan L1 nopf") && !__builtin_cpu_supports("avx512bw"))
            skip[v] = 1;
    }
    v_driver(NULL);
    memcpy(ref, Y, BYTES);
    for (int v = 0; v < NV; v++)
        if (vs[v].check && !skip[v]) {
            memset(Y, 0x55, BYTES);
            vs[v].f(NULL);
            if (memcmp(ref, Y, BYTES)) {
                fprintf(stderr, "hm_axis0: %s differs from the driver\n", vs[v].name);
                return 1;
            }
        }
    repc = bench_reps(do_copy, NULL);
    for (int v = 0; v < NV; v++) {
        reps[v] = skip[v] ? 0 : bench_reps(vs[v].f, NULL);
        best[v] = 1e9;
    }
    for (int r = 0; r < rounds; r++) {
        double tc = bench_time(do_copy, NULL, repc);
        bestc = tc < bestc ? tc : bestc;
        for (int j = 0; j < NV; j++) {
            int v = (j + r) % NV;
            if (skip[v])
                continue;
            double t = bench_time(vs[v].f, NULL, reps[v]);
            best[v] = t < best[v] ? t : best[v];
            ratio[v][r] = tc / t;
        }
    }
    printf("  %-16s %9.1f us\n", "memcpy", bestc * 1e6);
    for (int v = 0; v < NV; v++) {
        double q1, med, q3;
        if (skip[v])
            continue;
        bench_median(ratio[v], rounds); /* sorts */
        q1 = ratio[v][rounds / 4];
        med = rounds % 2 ? ratio[v][rounds / 2] : 0.5 * (ratio[v][rounds / 2 - 1] + ratio[v][rounds / 2]);
        q3 = ratio[v][(3 * rounds) / 4];
        printf("  %-16s %9.1f us   memcpy/it median %.2f  (quartiles %.2f-%.2f)\n", vs[v].name,
               best[v] * 1e6, med, q1, q3);
    }
    return 0;
}
