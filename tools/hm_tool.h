/* What the hardmax 1024x1024 tools (hmbench.c: the AVX2 row scans; hm_l3.c: the
 * AVX-512 scans and write orders) share: the arrays (x random in [-1, 1), y, the
 * rows' argmax), the ones' write, and the runner that times every variant once a
 * round, interleaved, and reports per variant the median time and the median and
 * quartiles of the per-round ratio memcpy / variant (variant 0 must be memcpy).
 * Wall time (CLOCK_MONOTONIC), as the tools' earlier reports: the rows are
 * compared within a round, each a few hundred microseconds. */
#ifndef SIMDOPS_TOOLS_HM_TOOL_H
#define SIMDOPS_TOOLS_HM_TOOL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

enum { ROWS = 1024, COLS = 1024 };

static float *X, *Y;
static size_t AT[ROWS];
static volatile size_t SINK;

typedef struct hm_variant {
    const char *name;
    void (*fn)(void);
} hm_variant;

static double hm_wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void ones(void)
{
    for (int r = 0; r < ROWS; r++)
        Y[(size_t)r * COLS + AT[r]] = 1.0f;
}

static void v_copy(void) { memcpy(Y, X, sizeof(float) * ROWS * COLS); }

/* X and Y off bytes past a 4 KiB page, X random */
static void hm_setup(size_t off)
{
    X = (float *)((char *)aligned_alloc(4096, sizeof(float) * ROWS * COLS + 4096) + off);
    Y = (float *)((char *)aligned_alloc(4096, sizeof(float) * ROWS * COLS + 4096) + off);
    srand(1);
    for (size_t i = 0; i < (size_t)ROWS * COLS; i++)
        X[i] = (float)rand() / (float)RAND_MAX * 2 - 1;
}

/* rounds rounds of every variant (shuffled: a new random order each round, else
 * rotated), after 5 warm-up rounds; the report under the title */
static void hm_run(const hm_variant *v, int nv, int rounds, int shuffled, const char *title)
{
    double *t = calloc((size_t)rounds * (size_t)nv, sizeof(double));
    double *col = calloc((size_t)rounds, sizeof(double));
    int *order = calloc((size_t)nv, sizeof(int));
    for (int w = 0; w < 5; w++)
        for (int k = 0; k < nv; k++)
            v[k].fn();
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < nv; j++)
            order[j] = shuffled ? j : (j + r) % nv;
        for (int j = nv - 1; shuffled && j > 0; j--) {
            int q = rand() % (j + 1), tmp = order[j];
            order[j] = order[q];
            order[q] = tmp;
        }
        for (int j = 0; j < nv; j++) {
            const int k = order[j];
            const double t0 = hm_wall();
            v[k].fn();
            t[r * nv + k] = hm_wall() - t0;
        }
    }
    printf("%s, %d rounds (median us; memcpy/variant per round: median [q1, q3])\n", title, rounds);
    for (int k = 0; k < nv; k++) {
        double med, q1, q3;
        for (int r = 0; r < rounds; r++)
            col[r] = t[r * nv + k];
        qsort(col, (size_t)rounds, sizeof(double), bench_cmp_double);
        med = col[rounds / 2];
        for (int r = 0; r < rounds; r++)
            col[r] = t[r * nv] / t[r * nv + k];
        qsort(col, (size_t)rounds, sizeof(double), bench_cmp_double);
        q1 = col[rounds / 4];
        q3 = col[3 * rounds / 4];
        printf("  %-24s %8.1f us   %.3f [%.3f, %.3f]\n", v[k].name, med * 1e6, col[rounds / 2], q1,
               q3);
    }
    free(t);
    free(col);
    free(order);
}

#endif
