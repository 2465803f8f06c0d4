/* What the C micro-benchmarks in tools/ share: timing in thread CPU time
 * (the cores are shared with other work; wall time would count its slices),
 * the core clock that converts those seconds to cycles (x86-64), an interleaved
 * comparison of an operation against a baseline, and the requant inputs both
 * benchmarks use. */
#ifndef SIMDOPS_TOOLS_BENCH_UTIL_H
#define SIMDOPS_TOOLS_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*bench_fn)(void *);

static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#if defined(__x86_64__)
/* Seconds for n links of a chain of dependent 1-cycle integer adds, four a link: 4n
 * cycles at whatever clock the core runs now. The tools that report cycles
 * (portbench, ew_cache_bound, qmul_bound) time one beside their loops, here once; not
 * inlined, so it leaves the measured loops' code as a call would. */
static __attribute__((noinline, unused)) double bench_add_chain(long n)
{
    unsigned long x = 1;
    double t0 = bench_now();
    for (long i = 0; i < n; i++)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
    return bench_now() - t0;
}

/* Core cycles per second of thread CPU time, from a chain of 4n adds */
static inline double bench_cycles_per_second(long n)
{
    return 4.0 * (double)n / bench_add_chain(n);
}
#endif

/* Seconds per call of f, averaged over reps calls. */
static inline double bench_time(bench_fn f, void *arg, int reps)
{
    double t0 = bench_now();
    for (int i = 0; i < reps; i++)
        f(arg);
    return (bench_now() - t0) / reps;
}

/* Calls per timing so that one timing lasts about 10 ms. */
static inline int bench_reps(bench_fn f, void *arg)
{
    f(arg); /* warm: caches, page faults */
    return (int)(0.01 / bench_time(f, arg, 1)) + 1;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Rounds a benchmark keeps per-round numbers for. */
enum { BENCH_MAX_ROUNDS = 1000 };

static inline int bench_clamp_rounds(int rounds)
{
    return rounds < 1 ? 1 : rounds > BENCH_MAX_ROUNDS ? BENCH_MAX_ROUNDS : rounds;
}

/* Times f(f_arg) and base(base_arg) in alternating order for rounds rounds;
 * prints the fastest time of each and the median per-round speed ratio
 * base/f (a ratio of 1.00 means f runs as fast as base). Returns that median. */
static inline double bench_compare_args(const char *label, bench_fn f, void *f_arg, bench_fn base,
                                        void *base_arg, int rounds)
{
    double ratios[BENCH_MAX_ROUNDS], best_f = 1e9, best_b = 1e9;
    int rf = bench_reps(f, f_arg), rb = bench_reps(base, base_arg);
    rounds = bench_clamp_rounds(rounds);
    for (int r = 0; r < rounds; r++) {
        double tf, tb;
        if (r & 1) {
            tf = bench_time(f, f_arg, rf);
            tb = bench_time(base, base_arg, rb);
        } else {
            tb = bench_time(base, base_arg, rb);
            tf = bench_time(f, f_arg, rf);
        }
        best_f = tf < best_f ? tf : best_f;
        best_b = tb < best_b ? tb : best_b;
        ratios[r] = tb / tf;
    }
    double med = bench_median(ratios, rounds);
    printf("%-40s op %9.1f us  base %9.1f us  ratio min-time %5.2f  median %5.2f\n", label,
           best_f * 1e6, best_b * 1e6, best_b / best_f, med);
    fflush(stdout);
    return med;
}

/* bench_compare_args with one argument for both. */
static inline double bench_compare(const char *label, bench_fn f, bench_fn base, void *arg,
                                   int rounds)
{
    return bench_compare_args(label, f, arg, base, arg, rounds);
}

/* requant inputs: n accumulators in +-150,000 and ch channels of multipliers
 * near 0.52 (Q31), shifts 10 and 11 and biases in +-5,120. */
static inline void bench_requant_inputs(int32_t *x, size_t n, int32_t *mult, int32_t *shift,
                                        int32_t *bias, int ch)
{
    for (size_t i = 0; i < n; i++)
        x[i] = rand() % 300000 - 150000;
    for (int k = 0; k < ch; k++) {
        mult[k] = 1100000000 + k * 1000000;
        shift[k] = 10 + (k & 1);
        bias[k] = 40 * (k - 128);
    }
}

#endif
