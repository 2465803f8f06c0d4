/* hardmax along the last axis past the streaming threshold (default 4096x1024
 * float32: 16 MiB in, 16 MiB out): the driver's order and its alternatives as
 * whole algorithms, with the traffic bound, in one process, interleaved with
 * memcpy. Buffers as numpy makes them (16 bytes past a huge-page boundary,
 * huge pages asked for; memcpy writes the op's own y, as np.copyto(out, x)).
 * Each round times every variant (CALLS=4 calls in a row) in a new random
 * order (in a fixed rotation the variant after memcpy always paid for the
 * dirty lines of y memcpy left in the cache); the report gives
 * per variant the median time and the median and quartiles of the per-round
 * ratio memcpy / variant. Thread CPU time (the machine is shared).
 *
 * Build: bash tools/cbench.sh OUT   Run: [ISA=avx2] OUT/hm_stream [rounds=31] [rows cols]
 *
 *   library          simdops_hardmax (the driver: the fused scans where the
 *                    tier has them)
 *   driver old order simdops_hardmax_run with the row kernel behind another
 *                    pointer: the 64 KiB runs below
 *   rows+runs sse    the driver's order rebuilt: each row scanned, every
 *                    RUN bytes of y (64 KiB) zeros streamed with 16-byte
 *                    non-temporal stores, each one inside its line
 *   rows+runs zmm    the same with 64-byte stores (a whole line per store)
 *   bound read+NT    a bare read of x (max loop, independent accumulators)
 *                    and the 64 KiB runs of zeros streamed: that order's traffic
 *   bound fused      the bare read with 256 bytes of zeros streamed per 256
 *                    bytes read, in one loop: the fused order's traffic
 *   scan / NT zeros  the parts alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <immintrin.h>

#include "simdops/simdops.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "driver/hardmax_driver.h"
#include "driver/hardmax_writes.h"
#include "bench_util.h"

static int64_t ROWS = 4096, COLS = 1024;
static size_t BYTES;
static float *X, *Y;
static size_t *AT;
static simdops_argmax_row_fn SCAN;
static volatile float SINK;
static int CALLS = 4; /* calls per timing (CALLS=n); the first pays for what the variant before left */

static void v_copy(void) { memcpy(Y, X, BYTES); }

static void v_library(void)
{
    simdops_tensor x, y;
    simdops_error e;
    int64_t axis = 1;
    memset(&x, 0, sizeof x);
    x.data = X;
    x.dtype = SIMDOPS_FLOAT32;
    x.ndim = 2;
    x.shape[0] = ROWS;
    x.shape[1] = COLS;
    x.strides[0] = COLS * 4;
    x.strides[1] = 4;
    y = x;
    y.data = Y;
    if (simdops_hardmax(&x, &y, 1, &axis, &e) != SIMDOPS_OK) {
        fprintf(stderr, "hm_stream: hardmax failed\n");
        exit(1);
    }
}

/* the table's float32 row kernel called through another pointer: the driver
 * then keeps the order before the fused scans (64 KiB runs) */
static simdops_argmax_row_fn ROW;
static size_t row_wrapped(const void *x, size_t n) { return ROW(x, n); }

static void v_driver_old(void) /* simdops_hardmax_run, the order before */
{
    static simdops_kernel_table kt;
    simdops_tensor x, y;
    int reduced[SIMDOPS_MAX_DIMS] = {0, 1};
    if (!ROW) {
        kt = *simdops_current_kernels();
        ROW = kt.argmax_row[SIMDOPS_FLOAT32];
        kt.argmax_row[SIMDOPS_FLOAT32] = row_wrapped;
    }
    memset(&x, 0, sizeof x);
    x.data = X;
    x.dtype = SIMDOPS_FLOAT32;
    x.ndim = 2;
    x.shape[0] = ROWS;
    x.shape[1] = COLS;
    x.strides[0] = COLS * 4;
    x.strides[1] = 4;
    y = x;
    y.data = Y;
    simdops_hardmax_run(&kt, &x, &y, reduced);
}

static void v_driver(void) /* simdops_hardmax_run without the API's checks */
{
    simdops_tensor x, y;
    int reduced[SIMDOPS_MAX_DIMS] = {0, 1};
    memset(&x, 0, sizeof x);
    x.data = X;
    x.dtype = SIMDOPS_FLOAT32;
    x.ndim = 2;
    x.shape[0] = ROWS;
    x.shape[1] = COLS;
    x.strides[0] = COLS * 4;
    x.strides[1] = 4;
    y = x;
    y.data = Y;
    simdops_hardmax_run(simdops_current_kernels(), &x, &y, reduced);
}

/* zeros over [y, y + nb) with rows' ones at one[] (ascending), 64-byte NT
 * stores from y's first line (each line holding ones blended in) */
__attribute__((target("avx512f"))) static void stream_zmm(char *y, size_t nb, const size_t *one,
                                                          size_t n)
{
    size_t head = (size_t)(0u - (uintptr_t)y) & 63, end = head + (nb - head) / 64 * 64, i, k = 0;
    size_t at = n ? one[0] : SIZE_MAX;
    const __m512 z = _mm512_setzero_ps(), o = _mm512_set1_ps(1.0f);
    memset(y, 0, head);
    while (at < head)
        at = ++k < n ? one[k] : SIZE_MAX;
    for (i = head; i < end; i += 64) {
        if (at < i + 64) {
            __mmask16 m = 0;
            do {
                m |= (__mmask16)(1u << ((at - i) / 4));
                at = ++k < n ? one[k] : SIZE_MAX;
            } while (at < i + 64);
            _mm512_stream_ps((float *)(y + i), _mm512_mask_mov_ps(z, m, o));
        } else {
            _mm512_stream_ps((float *)(y + i), z);
        }
    }
    memset(y + end, 0, nb - end);
    for (k = 0; k < n; k++)
        if (one[k] < head || one[k] >= end)
            *(float *)(y + one[k]) = 1.0f;
}

static void stream_sse(char *y, size_t nb, const size_t *one, size_t n)
{
    simdops_hm_zeros_and_ones(y, nb, one, n, SIMDOPS_FLOAT32, 1);
}

/* rows scanned; every `run` bytes of y written (zeros and ones) by w */
static void runs(size_t run, void (*w)(char *, size_t, const size_t *, size_t))
{
    size_t rb = (size_t)COLS * 4, per = run / rb ? run / rb : 1, one[1024];
    for (int64_t r0 = 0; r0 < ROWS; r0 += (int64_t)per) {
        size_t nr = (size_t)(ROWS - r0) < per ? (size_t)(ROWS - r0) : per;
        for (size_t k = 0; k < nr; k++)
            one[k] = k * rb + 4 * SCAN(X + (r0 + (int64_t)k) * COLS, (size_t)COLS);
        w((char *)(Y + r0 * COLS), nr * rb, one, nr);
    }
    _mm_sfence();
}

static void v_runs_sse(void) { runs(65536, stream_sse); }
static void v_runs_zmm(void) { runs(65536, stream_zmm); }

__attribute__((target("avx512f"))) static float read_max(const float *x, size_t n)
{
    __m512 m0 = _mm512_set1_ps(-1e30f), m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        m0 = _mm512_max_ps(m0, _mm512_loadu_ps(x + i));
        m1 = _mm512_max_ps(m1, _mm512_loadu_ps(x + i + 16));
        m2 = _mm512_max_ps(m2, _mm512_loadu_ps(x + i + 32));
        m3 = _mm512_max_ps(m3, _mm512_loadu_ps(x + i + 48));
    }
    m0 = _mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3));
    return _mm512_reduce_max_ps(m0) + (i < n ? x[i] : 0);
}

/* the traffic alone: 64 KiB of x read, then 64 KiB of y zeroed (NT) */
static void v_bound(void)
{
    float m = 0;
    for (size_t off = 0; off < BYTES; off += 65536) {
        size_t b = BYTES - off < 65536 ? BYTES - off : 65536;
        m += read_max((const float *)((const char *)X + off), b / 4);
        stream_zmm((char *)Y + off, b, NULL, 0);
    }
    _mm_sfence();
    SINK = m;
}

/* the traffic fused at instruction level: per 256 bytes of x read, 256 bytes
 * of y streamed (the same offsets: the stores lag no row behind here, the
 * bound of a scan that streams the previous row's y as it reads) */
__attribute__((target("avx512f"))) static void v_fused_bound(void)
{
    const float *x = X;
    char *y = (char *)Y + (64 - (uintptr_t)Y % 64);
    size_t n = BYTES / 4 - 64, i;
    __m512 m0 = _mm512_set1_ps(-1e30f), m1 = m0, m2 = m0, m3 = m0;
    const __m512 z = _mm512_setzero_ps();
    for (i = 0; i + 64 <= n; i += 64) {
        m0 = _mm512_max_ps(m0, _mm512_loadu_ps(x + i));
        m1 = _mm512_max_ps(m1, _mm512_loadu_ps(x + i + 16));
        m2 = _mm512_max_ps(m2, _mm512_loadu_ps(x + i + 32));
        m3 = _mm512_max_ps(m3, _mm512_loadu_ps(x + i + 48));
        _mm512_stream_ps((float *)(y + 4 * i), z);
        _mm512_stream_ps((float *)(y + 4 * i + 64), z);
        _mm512_stream_ps((float *)(y + 4 * i + 128), z);
        _mm512_stream_ps((float *)(y + 4 * i + 192), z);
    }
    _mm_sfence();
    m0 = _mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3));
    SINK = _mm512_reduce_max_ps(m0);
}

static void v_read(void) { SINK = read_max(X, BYTES / 4); }
static void v_scan(void)
{
    size_t acc = 0;
    for (int64_t r = 0; r < ROWS; r++)
        acc += SCAN(X + r * COLS, (size_t)COLS);
    SINK = (float)acc;
}
static void v_ntzero(void)
{
    stream_zmm((char *)Y, BYTES, NULL, 0);
    _mm_sfence();
}

static int check_y(void) /* y is the one-hot of the scalar-rule argmax */
{
    for (int64_t r = 0; r < ROWS; r++) {
        size_t at = AT[r];
        for (int64_t j = 0; j < COLS; j++)
            if (Y[r * COLS + j] != ((size_t)j == at ? 1.0f : 0.0f))
                return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct { const char *name; void (*fn)(void); int check; } v[] = {
        {"memcpy", v_copy, 0},
        {"library", v_library, 1},
        {"driver run (fused)", v_driver, 1},
        {"driver old order", v_driver_old, 1},
        {"rows+runs sse 64K", v_runs_sse, 1},
        {"rows+runs zmm 64K", v_runs_zmm, 1},
        {"bound read+NT 64K", v_bound, 0},
        {"bound fused", v_fused_bound, 0},
        {"read (max loop)", v_read, 0},
        {"scan", v_scan, 0},
        {"NT zeros", v_ntzero, 0},
    };
    enum { NV = sizeof v / sizeof v[0] };
    int rounds = bench_clamp_rounds(argc > 1 ? atoi(argv[1]) : 31);
    static double t[NV][BENCH_MAX_ROUNDS], ratio[BENCH_MAX_ROUNDS];
    if (!__builtin_cpu_supports("avx512f")) { /* the bounds and the zmm variants */
        fprintf(stderr, "hm_stream: needs AVX-512F\n");
        return 1;
    }
    if (argc > 3) {
        ROWS = atoll(argv[2]);
        COLS = atoll(argv[3]);
    }
    BYTES = (size_t)(ROWS * COLS) * 4;
    if (getenv("CALLS"))
        CALLS = atoi(getenv("CALLS")) > 0 ? atoi(getenv("CALLS")) : 1;
    {
        size_t span = (BYTES + 16 + (2u << 20) - 1) / (2u << 20) * (2u << 20);
        char *b[2];
        for (int k = 0; k < 2; k++) {
            b[k] = aligned_alloc(2u << 20, span);
            if (!b[k])
                return 1;
            if (!getenv("NO_HUGE"))
                madvise(b[k], span, MADV_HUGEPAGE);
        }
        X = (float *)(b[0] + 16);
        Y = (float *)(b[1] + 16);
    }
    if (getenv("ISA")) { /* ISA=avx2: that tier's kernels (the calling thread's) */
        simdops_error err;
        if (simdops_set_thread_isa(getenv("ISA"), &err) != SIMDOPS_OK) {
            fprintf(stderr, "hm_stream: ISA %s not usable\n", getenv("ISA"));
            return 1;
        }
    }
    AT = malloc((size_t)ROWS * sizeof *AT);
    srand(1);
    for (size_t i = 0; i < BYTES / 4; i++)
        X[i] = (float)rand() / (float)RAND_MAX * 2 - 1;
    memset(Y, 1, BYTES);
    SCAN = simdops_current_kernels()->argmax_row[SIMDOPS_FLOAT32];
    for (int64_t r = 0; r < ROWS; r++)
        AT[r] = SCAN(X + r * COLS, (size_t)COLS);
    for (int k = 0; k < NV; k++) {
        memset(Y, 0x55, BYTES);
        v[k].fn();
        if (v[k].check && !check_y()) {
            fprintf(stderr, "hm_stream: %s wrote a wrong y\n", v[k].name);
            return 1;
        }
    }
    for (int r = 0; r < rounds; r++) {
        int order[NV];
        for (int j = 0; j < NV; j++)
            order[j] = j;
        for (int j = NV - 1; j > 0; j--) { /* a new order each round */
            int i = rand() % (j + 1), o = order[i];
            order[i] = order[j];
            order[j] = o;
        }
        for (int j = 0; j < NV; j++) {
            int k = order[j];
            double t0 = bench_now();
            for (int c = 0; c < CALLS; c++)
                v[k].fn();
            t[k][r] = (bench_now() - t0) / CALLS;
        }
    }
    printf("hardmax %lldx%lld float32 last axis, isa %s, %d rounds: median us, memcpy/variant "
           "per round median [q1, q3]; %d calls a timing, order shuffled\n", (long long)ROWS,
           (long long)COLS, simdops_thread_isa() ? simdops_thread_isa() : simdops_isa(), rounds, CALLS);
    for (int k = 0; k < NV; k++) {
        double tk[BENCH_MAX_ROUNDS];
        for (int r = 0; r < rounds; r++) {
            ratio[r] = t[0][r] / t[k][r];
            tk[r] = t[k][r];
        }
        double med = bench_median(tk, rounds), mr = bench_median(ratio, rounds);
        printf("  %-20s %8.1f us  %.3f [%.3f, %.3f]\n", v[k].name, med * 1e6, mr,
               ratio[rounds / 4], ratio[3 * rounds / 4]);
    }
    return 0;
}
