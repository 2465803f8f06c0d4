/* Harness part: the thread pool (coverage of every item exactly once, chunks
 * of at least a grain, status propagation, nested and concurrent callers,
 * fork) and the strided element copies of gather.c against a plain loop.
 * Run from test_kernels.c's main; also meant for -fsanitize=thread builds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/gather.h"
#include "simdops/simdops.h"
#include "driver/threadpool.h"

static long passed, failed;

static void check(int ok, const char *what, long a, long b)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL threadpool: %s (%ld, %ld)\n", what, a, b);
}

enum { MAX_ITEMS = 100000 };

typedef struct coverage {
    int hits[MAX_ITEMS];
    int64_t chunk_len[MAX_ITEMS]; /* at each chunk's first item */
    int nested;                   /* run a nested parallel_for inside each chunk */
    int fail_item;                /* the chunk holding it returns 7; -1: none */
} coverage;

static int count_nested(void *ctx, int64_t begin, int64_t end)
{
    int *hits = (int *)ctx;
    for (int64_t i = begin; i < end; i++)
        hits[i]++;
    return 0;
}

static int mark(void *ctx, int64_t begin, int64_t end)
{
    coverage *c = (coverage *)ctx;
    c->chunk_len[begin] = end - begin;
    for (int64_t i = begin; i < end; i++)
        c->hits[i]++;
    if (c->nested) {
        int inner[64] = {0};
        int ok = simdops_parallel_for(64, 1, count_nested, inner) == 0;
        for (int k = 0; k < 64; k++)
            ok &= inner[k] == 1;
        if (!ok)
            return 9;
    }
    return c->fail_item >= begin && c->fail_item < end ? 7 : 0;
}

/* Every item once, every chunk >= grain unless the whole range is smaller. */
static void run_coverage(coverage *c, int64_t n, int64_t grain, int threads, int nested)
{
    int status, expect;
    simdops_set_num_threads(threads);
    memset(c->hits, 0, sizeof(int) * (size_t)n);
    memset(c->chunk_len, 0, sizeof(int64_t) * (size_t)n);
    c->nested = nested;
    c->fail_item = n > 3 ? (int)(n / 3) : -1;
    status = simdops_parallel_for(n, grain, mark, c);
    expect = c->fail_item >= 0 ? 7 : 0;
    check(status == expect, "status of the failing chunk", status, expect);
    for (int64_t i = 0, next = 0; i < n; i++) {
        if (c->hits[i] != 1) {
            check(0, "item not covered exactly once", (long)i, c->hits[i]);
            return;
        }
        if (i == next) {
            int64_t len = c->chunk_len[i];
            check(len >= 1 && (len >= grain || len == n), "chunk shorter than the grain", (long)len,
                  (long)grain);
            next = i + (len > 0 ? len : 1);
        }
    }
    passed++;
}

typedef struct caller {
    coverage c;
    int ok;
} caller;

static int sum_items(void *ctx, int64_t begin, int64_t end)
{
    int64_t *sums = (int64_t *)ctx;
    for (int64_t i = begin; i < end; i++)
        sums[i] = i * 3;
    return 0;
}

static void *concurrent_caller(void *arg)
{
    caller *me = (caller *)arg;
    int64_t *sums = (int64_t *)malloc(sizeof(int64_t) * 5000);
    me->ok = sums != NULL;
    for (int round = 0; round < 200 && me->ok; round++) {
        memset(sums, 0, sizeof(int64_t) * 5000);
        me->ok = simdops_parallel_for(5000, 100, sum_items, sums) == 0;
        for (int64_t i = 0; i < 5000 && me->ok; i++)
            me->ok = sums[i] == i * 3;
    }
    free(sums);
    return NULL;
}

static void test_concurrent_callers(void)
{
    enum { CALLERS = 4 };
    pthread_t t[CALLERS];
    caller *callers = (caller *)calloc(CALLERS, sizeof(caller));
    simdops_set_num_threads(2);
    for (int k = 0; k < CALLERS; k++)
        pthread_create(&t[k], NULL, concurrent_caller, &callers[k]);
    for (int k = 0; k < CALLERS; k++) {
        pthread_join(t[k], NULL);
        check(callers[k].ok, "concurrent caller got a wrong result", k, 0);
    }
    free(callers);
}

static void test_fork(coverage *c)
{
    pid_t pid;
    int wstatus = 0;
    simdops_set_num_threads(3);
    run_coverage(c, 10000, 10, 3, 0); /* the parent's workers exist now */
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        int64_t jobs = simdops_pool_jobs();
        int ok;
        alarm(60); /* a hang in the child fails the test instead of the run */
        memset(c->hits, 0, sizeof(int) * 10000);
        c->nested = 0;
        c->fail_item = -1;
        ok = simdops_parallel_for(10000, 10, mark, c) == 0 && simdops_pool_jobs() == jobs + 1;
        for (int i = 0; i < 10000; i++)
            ok &= c->hits[i] == 1;
        _exit(ok ? 0 : 1);
    }
    check(pid > 0, "fork failed", (long)pid, 0);
    if (pid > 0) {
        waitpid(pid, &wstatus, 0);
        check(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "the forked child's pool",
              (long)wstatus, 0);
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* simdops_copy_elements against a byte loop: every element size, the vector
 * cases (reversed either way, every other element) and generic strides,
 * unaligned pointers, n across vector widths. */
static void test_copy_elements(void)
{
    enum { CAP = 4096 };
    static unsigned char src[CAP], dst[CAP], want[CAP];
    static const int steps[] = {1, -1, 2, -2, 3, 0};
    for (size_t i = 0; i < CAP; i++)
        src[i] = (unsigned char)next_random();
    for (size_t es = 1; es <= 8; es *= 2) {
        for (int si = 0; si < 6; si++) {
            for (int di = 0; di < 2; di++) {
                int64_t sstride = steps[si] * (int64_t)es;
                int64_t dstride = (di ? -1 : 1) * (int64_t)es;
                for (size_t n = 0; n <= 70; n++) {
                    size_t off = next_random() % 8;
                    const unsigned char *s0 = src + 1600 + off;
                    unsigned char *d0 = dst + 1600 + off;
                    int ok;
                    memset(dst, 0xA5, CAP);
                    memset(want, 0xA5, CAP);
                    for (size_t i = 0; i < n; i++)
                        memcpy(want + 1600 + off + (int64_t)i * dstride, s0 + (int64_t)i * sstride, es);
                    simdops_copy_elements((char *)d0, dstride, (const char *)s0, sstride, n, es);
                    ok = memcmp(dst, want, CAP) == 0;
                    check(ok, "copy_elements (esize, n)", (long)es, (long)n);
                    if (!ok)
                        printf("  src stride %ld, dst stride %ld\n", (long)sstride, (long)dstride);
                }
            }
        }
    }
}

/* ---- the caller's floating-point mode on every thread
 * (x86 MXCSR FTZ | DAZ, aarch64 FPCR FZ): every chunk of a split job must run
 * under the caller's control state, whichever thread runs it, and workers
 * must not keep it after the job. */
#if defined(__x86_64__) || defined(_M_X64) || defined(__SSE__)
#include <xmmintrin.h>
#define HAVE_FP_MODE 1
static unsigned long fp_mode_get(void) { return _mm_getcsr() & ~0x3Fu; }
static void fp_mode_set(unsigned long v) { _mm_setcsr((unsigned)v); }
static const unsigned long FLUSH_BITS = 0x8040u; /* FTZ, DAZ */
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_FP_MODE 1
static unsigned long fp_mode_get(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return (unsigned long)v;
}
static void fp_mode_set(unsigned long v)
{
    uint64_t w = v;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(w));
}
static const unsigned long FLUSH_BITS = 1ul << 24; /* FZ */
#else
#define HAVE_FP_MODE 0
#endif

#if HAVE_FP_MODE
enum { FP_ITEMS = 64 };

typedef struct fp_seen {
    unsigned long mode[FP_ITEMS];
    int flushed[FP_ITEMS]; /* a denormal product came out as zero */
    pthread_t caller;
    int other_threads; /* chunks a worker ran (under lock) */
    pthread_mutex_t lock;
} fp_seen;

static int record_fp_mode(void *ctx, int64_t begin, int64_t end)
{
    fp_seen *f = (fp_seen *)ctx;
    volatile float tiny = 1e-40f, one = 1.0f, spin = 0.0f;
    for (int k = 0; k < 20000; k++) /* long enough for the workers to take chunks */
        spin = spin + one;
    for (int64_t i = begin; i < end; i++) {
        f->mode[i] = fp_mode_get();
        f->flushed[i] = tiny * one == 0.0f;
    }
    if (!pthread_equal(pthread_self(), f->caller)) {
        pthread_mutex_lock(&f->lock);
        f->other_threads++;
        pthread_mutex_unlock(&f->lock);
    }
    return spin > 0.0f ? 0 : 1;
}

static void run_fp_mode(fp_seen *f, unsigned long mode, int want_flushed, const char *what)
{
    int ok = 1;
    f->caller = pthread_self();
    check(simdops_parallel_for(FP_ITEMS, 1, record_fp_mode, f) == 0, what, 0, 0);
    for (int i = 0; i < FP_ITEMS; i++)
        ok &= f->mode[i] == mode && f->flushed[i] == want_flushed;
    check(ok, what, (long)mode, want_flushed);
}

static void test_fp_mode(void)
{
    static fp_seen f;
    unsigned long plain = fp_mode_get() & ~FLUSH_BITS, flush = plain | FLUSH_BITS;
    unsigned long saved = fp_mode_get();
    pthread_mutex_init(&f.lock, NULL);
    f.other_threads = 0;
    fp_mode_set(plain);
    simdops_set_num_threads(4); /* workers start in the default mode */
    for (int round = 0; round < 20; round++)
        run_fp_mode(&f, plain, 0, "a chunk ran in another mode than the caller's (default)");
    fp_mode_set(flush);
    for (int round = 0; round < 20; round++)
        run_fp_mode(&f, flush, 1, "a chunk ran without the caller's flush-to-zero mode");
    simdops_set_num_threads(6); /* two more workers, started while the caller flushes */
    for (int round = 0; round < 20; round++)
        run_fp_mode(&f, flush, 1, "a chunk ran without the caller's flush-to-zero mode (6)");
    fp_mode_set(plain);
    for (int round = 0; round < 20; round++)
        run_fp_mode(&f, plain, 0, "a worker kept flush-to-zero after the caller's job");
    check(f.other_threads > 0, "no worker ran a chunk of the floating-point mode jobs",
          f.other_threads, 0);
    fp_mode_set(saved);
    pthread_mutex_destroy(&f.lock);
}
#endif

void test_threadpool(long *pass, long *fail)
{
    static coverage c; /* large: not on the stack */
    static const int64_t sizes[] = {0, 1, 2, 7, 63, 64, 65, 1000, 4097, MAX_ITEMS};
    static const int64_t grains[] = {1, 2, 10, 64, 1000, 100000};
    int saved = simdops_get_num_threads();
    passed = failed = 0;

    check(simdops_set_num_threads(0) == SIMDOPS_E_PARAM, "set_num_threads(0)", 0, 0);
    check(simdops_set_num_threads(-3) == SIMDOPS_E_PARAM, "set_num_threads(-3)", 0, 0);
    check(simdops_set_num_threads(SIMDOPS_MAX_THREADS + 1) == SIMDOPS_E_PARAM,
          "set_num_threads(max + 1)", 0, 0);
    check(simdops_set_num_threads(5) == SIMDOPS_OK && simdops_get_num_threads() == 5,
          "set_num_threads(5)", simdops_get_num_threads(), 5);

    for (int threads = 1; threads <= 4; threads++)
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
            for (size_t gi = 0; gi < sizeof(grains) / sizeof(grains[0]); gi++)
                if (sizes[si] > 0)
                    run_coverage(&c, sizes[si], grains[gi], threads, threads == 3);
    if (simdops_threads_supported()) {
        int64_t jobs = simdops_pool_jobs();
        run_coverage(&c, 1000, 10, 2, 0);
        check(simdops_pool_jobs() == jobs + 1, "a splittable job ran on the pool",
              (long)simdops_pool_jobs(), (long)jobs);
        jobs = simdops_pool_jobs();
        run_coverage(&c, 19, 10, 2, 0);
        check(simdops_pool_jobs() == jobs, "a job under two grains stayed inline",
              (long)simdops_pool_jobs(), (long)jobs);
        test_concurrent_callers();
#if HAVE_FP_MODE
        test_fp_mode();
#endif
        /* set by ci/neon.sh: qemu-user cannot start threads in a forked child */
        if (getenv("SIMDOPS_HARNESS_NO_FORK"))
            printf("threadpool: fork test skipped (SIMDOPS_HARNESS_NO_FORK)\n");
        else
            test_fork(&c);
    }
    test_copy_elements();
    simdops_set_num_threads(saved);
    printf("threadpool and strided copies: %ld passed, %ld failed\n", passed, failed);
    *pass += passed;
    *fail += failed;
}
