/* The row-major walk both elementwise drivers share (strided.c: x -> y;
 * binary.c: a, b -> y): elements [begin, end) of an nd-dimensional index
 * space, as pieces of last-axis rows, with each operand's pointer advanced by
 * its own byte strides. Written once so the odometer's carry (the one place a
 * wrong stride or a missed reset would silently read the wrong element) lives
 * in one function; static inline with a constant row function, so each driver
 * compiles it to the loop it had. */
#ifndef SIMDOPS_DRIVER_ROW_WALK_H
#define SIMDOPS_DRIVER_ROW_WALK_H

#include <stdint.h>

#include "driver/threadpool.h"
#include "simdops/simdops.h"

enum { SIMDOPS_WALK_MAX_OPS = 3 };

/* One piece of a row: ptr[k] is operand k's address of the piece's first
 * element, col that element's index along the last axis, m its length. */
typedef void (*simdops_walk_row_fn)(const void *ctx, char *const *ptr, int64_t col, int64_t m);

/* strides[k][d]: operand k's byte stride along dimension d (nd >= 1;
 * shape[d] >= 1; 0 <= begin < end <= the product of the shape). */
static inline void simdops_walk_rows(int nd, const int64_t *shape, int nops, char *const *base,
                                     const int64_t *const *strides, int64_t begin, int64_t end,
                                     simdops_walk_row_fn row, const void *ctx)
{
    const int last = nd - 1;
    int64_t len = shape[last], col = begin % len, rest = begin / len;
    int64_t idx[SIMDOPS_MAX_DIMS + 1];
    char *ptr[SIMDOPS_WALK_MAX_OPS], *at[SIMDOPS_WALK_MAX_OPS];
    int k, d;
    for (k = 0; k < nops; k++)
        ptr[k] = base[k];
    for (d = nd - 2; d >= 0; d--) {
        idx[d] = rest % shape[d];
        rest /= shape[d];
        for (k = 0; k < nops; k++)
            ptr[k] += idx[d] * strides[k][d];
    }
    for (;;) {
        int64_t m = len - col < end - begin ? len - col : end - begin;
        for (k = 0; k < nops; k++)
            at[k] = ptr[k] + col * strides[k][last];
        row(ctx, at, col, m);
        begin += m;
        if (begin >= end)
            return;
        col = 0;
        for (d = nd - 2; d >= 0; d--) {
            for (k = 0; k < nops; k++)
                ptr[k] += strides[k][d];
            if (++idx[d] < shape[d])
                break;
            for (k = 0; k < nops; k++)
                ptr[k] -= strides[k][d] * shape[d];
            idx[d] = 0;
        }
    }
}

/* A whole walk, on the pool's threads when it is large enough. */
typedef struct simdops_walk {
    int nd, nops;
    const int64_t *shape;
    char *base[SIMDOPS_WALK_MAX_OPS];
    const int64_t *strides[SIMDOPS_WALK_MAX_OPS];
    simdops_walk_row_fn row;
    const void *ctx;
    int64_t n; /* elements: the product of the shape */
} simdops_walk;

/* Work items of the parallel split are runs of QUANTUM elements, so chunk
 * borders fall on whole cache lines of a contiguous output. */
enum { SIMDOPS_WALK_QUANTUM = 64 };

static inline int simdops_walk_quanta(void *ctx, int64_t begin, int64_t end)
{
    const simdops_walk *w = (const simdops_walk *)ctx;
    int64_t e = end * SIMDOPS_WALK_QUANTUM;
    simdops_walk_rows(w->nd, w->shape, w->nops, w->base, w->strides,
                      begin * SIMDOPS_WALK_QUANTUM, e < w->n ? e : w->n, w->row, w->ctx);
    return SIMDOPS_OK;
}

/* bytes_per_element: what an element moves (the inputs' and the output's
 * sizes), which sizes the threads' shares. */
static inline void simdops_walk_all(const simdops_walk *w, int64_t bytes_per_element)
{
    int64_t grain;
    if (w->n == 0)
        return;
    grain = simdops_grain_bytes();
    if (simdops_get_num_threads() == 1 || w->n * bytes_per_element < 2 * grain) {
        simdops_walk_rows(w->nd, w->shape, w->nops, w->base, w->strides, 0, w->n, w->row,
                          w->ctx);
        return;
    }
    simdops_parallel_for((w->n + SIMDOPS_WALK_QUANTUM - 1) / SIMDOPS_WALK_QUANTUM,
                         grain / (bytes_per_element * SIMDOPS_WALK_QUANTUM), simdops_walk_quanta,
                         (void *)w);
}

#endif
