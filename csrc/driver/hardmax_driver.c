/* hardmax over any set of axes: per group (one index of the kept axes) find
 * the first maximum over the reduced axes in row-major order, then write the
 * group's zeros and its one. A group is read completely before it is written,
 * so out may be x. */
#include "driver/hardmax_driver.h"

#include "driver/hardmax_writes.h"
#include "driver/threadpool.h"
#include "kernels/vec/stream_store.h" /* simdops_stream_threshold */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct dims {
    int n;
    int64_t shape[SIMDOPS_MAX_DIMS], sx[SIMDOPS_MAX_DIMS], sy[SIMDOPS_MAX_DIMS];
} dims;

/* Appends dim d of x/y, merging it into the previous one when both layouts allow. */
static void push_dim(dims *g, const simdops_tensor *x, const simdops_tensor *y, int d)
{
    int64_t s = x->shape[d];
    if (s == 1)
        return;
    if (g->n > 0 && g->sx[g->n - 1] == x->strides[d] * s && g->sy[g->n - 1] == y->strides[d] * s) {
        g->shape[g->n - 1] *= s;
        g->sx[g->n - 1] = x->strides[d];
        g->sy[g->n - 1] = y->strides[d];
        return;
    }
    g->shape[g->n] = s;
    g->sx[g->n] = x->strides[d];
    g->sy[g->n] = y->strides[d];
    g->n++;
}

static int64_t dims_count(const dims *g)
{
    int64_t n = 1;
    for (int k = 0; k < g->n; k++)
        n *= g->shape[k];
    return n;
}

/* Odometer step over g: advances the offsets; returns 0 after the last index. */
static int dims_next(const dims *g, int64_t *idx, int64_t *ox, int64_t *oy)
{
    for (int k = g->n - 1; k >= 0; k--) {
        *ox += g->sx[k];
        *oy += g->sy[k];
        if (++idx[k] < g->shape[k])
            return 1;
        *ox -= g->sx[k] * g->shape[k];
        *oy -= g->sy[k] * g->shape[k];
        idx[k] = 0;
    }
    return 0;
}

/* Byte offset in y of the reduced position with row-major linear index at. */
static int64_t y_offset(const dims *r, int64_t at)
{
    int64_t off = 0;
    for (int k = r->n - 1; k >= 0; k--) {
        off += (at % r->shape[k]) * r->sy[k];
        at /= r->shape[k];
    }
    return off;
}

/* Zeros over the reduced dims of one group whose row of y is not contiguous
 * (contiguous rows go through the zero runs below), then the one at linear
 * index at. */
static void write_group(char *y, const dims *r, int64_t at, simdops_dtype dtype)
{
    int64_t idx[SIMDOPS_MAX_DIMS] = {0}, ox = 0, oy = 0;
    do
        put01(y + oy, dtype, 0);
    while (dims_next(r, idx, &ox, &oy));
    put01(y + y_offset(r, at), dtype, 1);
}

/* Columns processed together in the vertical scan: up to 16 KiB of best
 * values (a float32 row of 4096), so that each reduced row is read as one long
 * contiguous run (the hardware prefetcher's best case) while best stays in L1.
 * Narrow blocks keep their scratch on the stack. Rows along the innermost
 * reduced axis go to the kernel VERTICAL_ROWS at a time (it may combine them):
 * at 1024x4096 float32 axis 0, batches of 64 rows ran 1.03-1.08x faster than
 * batches of 16 (interleaved in one process), 256 the same as 64. */
enum { VERTICAL_BLOCK_BYTES = 16384, VERTICAL_STACK_COLS = 512, VERTICAL_ROWS = 64 };

/* Reduced rows the sorted ones of a streamed whole block are counted over (a
 * counter each): past it the ones follow the streamed zeros. */
enum { VERTICAL_SORT_ROWS = 65536 };

/* Reduced axes strided, kept inner axis contiguous: compare whole rows.
 *
 * When the block's y is one contiguous range (one reduced axis, rows of y
 * whole and adjacent: axis 0 of a C-contiguous 2-D array up to 16 KiB wide)
 * every row is scanned first, then the range is written once: in cache one
 * memset (glibc's rep stosb does not read the lines it overwrites) and the
 * ones; streamed, non-temporal zeros with each one inside its line (the ones
 * sorted by position). Measured against the order before (each batch of rows
 * of y zeroed right after reading it, 16 KiB at a time, the ones stored after)
 * with tools/hm_axis0.c, interleaved with memcpy: docs/design.md. Otherwise
 * each reduced row of y is zeroed as soon as its batch has been read (best
 * holds what the scan still needs, so this is safe in place), and the ones
 * follow. */
static int vertical(const simdops_kernel_table *kt, const simdops_tensor *x,
                    const simdops_tensor *y, const dims *outer, const dims *r, int64_t cols,
                    int64_t col_sy, int stream)
{
    size_t es = simdops_dtype_size(x->dtype);
    size_t block = VERTICAL_BLOCK_BYTES / es;
    uint64_t stack_best[VERTICAL_STACK_COLS];
    int64_t stack_index[VERTICAL_STACK_COLS];
    void *best = stack_best;
    int64_t *best_index = stack_index;
    size_t *one = NULL, *cnt = NULL;
    int64_t oidx[SIMDOPS_MAX_DIMS] = {0}, gx = 0, gy = 0;
    dims router = *r; /* the reduced axes but the innermost, which the kernel steps */
    int64_t inner = r->shape[r->n - 1], isx = r->sx[r->n - 1], isy = r->sy[r->n - 1];
    int whole, sorted = 0;
    router.n--;
    if ((int64_t)block > cols)
        block = (size_t)cols;
    whole = r->n == 1 && (int64_t)block == cols && col_sy == (int64_t)es &&
            isy == cols * (int64_t)es;
    if (block > VERTICAL_STACK_COLS) {
        best = malloc(block * es);
        best_index = (int64_t *)malloc(block * sizeof(int64_t));
        if (!best || !best_index) {
            free(best);
            free(best_index);
            return SIMDOPS_E_NOMEM;
        }
    }
    if (whole && stream && inner <= VERTICAL_SORT_ROWS) {
        one = (size_t *)malloc(block * sizeof(size_t));
        cnt = (size_t *)malloc((size_t)(inner + 1) * sizeof(size_t));
        sorted = one && cnt; /* else the ones follow the streamed zeros */
    }
    do {
        for (int64_t j0 = 0; j0 < cols; j0 += (int64_t)block) {
            size_t cb = (size_t)(cols - j0 < (int64_t)block ? cols - j0 : (int64_t)block);
            const char *xb = (const char *)x->data + gx + j0 * (int64_t)es;
            char *yb = (char *)y->data + gy + j0 * col_sy;
            int64_t ridx[SIMDOPS_MAX_DIMS] = {0}, ox = 0, oy = 0, lin = 0;
            memcpy(best, xb, cb * es);
            memset(best_index, 0, cb * sizeof(int64_t));
            if (!whole)
                simdops_hm_zero_row(yb, cb, col_sy, x->dtype, stream);
            do {
                for (int64_t k = lin == 0; k < inner;) {
                    int64_t nb = inner - k < VERTICAL_ROWS ? inner - k : VERTICAL_ROWS;
                    kt->argmax_cols[x->dtype](xb + ox + k * isx, isx, (size_t)nb, cb, lin + k,
                                              best, best_index);
                    for (int64_t t = k; !whole && t < k + nb; t++)
                        simdops_hm_zero_row(yb + oy + t * isy, cb, col_sy, x->dtype, stream);
                    k += nb;
                }
                lin += inner;
            } while (dims_next(&router, ridx, &ox, &oy));
            if (sorted) {
                simdops_hm_sort_ones(one, best_index, cb, cnt, inner, isy, es);
                simdops_hm_zeros_and_ones(yb, (size_t)inner * cb * es, one, cb, x->dtype, stream);
                continue;
            }
            if (whole)
                simdops_hm_zero_bytes(yb, (size_t)inner * cb * es, stream);
            for (size_t j = 0; j < cb; j++)
                put01(yb + y_offset(r, best_index[j]) + (int64_t)j * col_sy, x->dtype, 1);
        }
    } while (dims_next(outer, oidx, &gx, &gy));
    if (best != (void *)stack_best) {
        free(best);
        free(best_index);
    }
    free(one);
    free(cnt);
    return SIMDOPS_OK;
}

/* Rows along a contiguous axis with the rows of y adjacent, in cache: the
 * generic loop's runs (all of a run's rows scanned, then its zeros and ones:
 * the same runs, so the same writes), with the rows stepped by one stride and
 * each answer stored straight into the run. The generic loop's work per row
 * (the odometer, a call into the run's bookkeeping, its checks) cost ~6% of
 * hardmax 1024x1024 float32 (docs/performance.md). */
static void rows_adjacent(const simdops_kernel_table *kt, const char *x, int64_t row_sx, char *y,
                          size_t rows, size_t nr, simdops_dtype dtype)
{
    simdops_argmax_row_fn row = kt->argmax_row[dtype];
    size_t es = simdops_dtype_size(dtype), row_bytes = nr * es;
    zero_run run;
    simdops_hm_run_init(&run, row_bytes, es, rows, 0);
    for (size_t k0 = 0; k0 < rows; k0 += run.max_rows) {
        size_t nb = rows - k0 < run.max_rows ? rows - k0 : run.max_rows;
        const char *xk = x + (int64_t)k0 * row_sx;
        for (size_t k = 0; k < nb; k++, xk += row_sx)
            run.one[k] = k * row_bytes + row(xk, nr) * es;
        run.y = y + k0 * row_bytes;
        run.rows = nb;
        simdops_hm_run_flush(&run, dtype, 0);
    }
    simdops_hm_run_free(&run);
}

int simdops_hardmax_run(const simdops_kernel_table *kt, const simdops_tensor *x,
                        const simdops_tensor *y, const int *reduced)
{
    dims kept = {0}, r = {0};
    size_t es = simdops_dtype_size(x->dtype);
    int64_t nr;
    int s, stream;
    for (int d = 0; d < x->ndim; d++)
        if (x->shape[d] == 0)
            return SIMDOPS_OK;
    for (int d = 0; d < x->ndim; d++)
        push_dim(reduced[d] ? &r : &kept, x, y, d);
    nr = dims_count(&r);
    stream = (size_t)(nr * dims_count(&kept)) * es >= simdops_stream_threshold;

    /* Kept inner axis contiguous in both, reduced axes not: vertical scan. */
    if (kept.n > 0 && kept.sx[kept.n - 1] == (int64_t)es && r.n > 0 &&
        !(r.n == 1 && r.sx[0] == (int64_t)es)) {
        dims outer = kept;
        outer.n--;
        s = vertical(kt, x, y, &outer, &r, kept.shape[kept.n - 1], kept.sy[kept.n - 1], stream);
        simdops_hm_stream_fence(stream);
        return s;
    }
    /* float32 rows along a contiguous axis, the rows of y adjacent, streamed:
     * the tier's fused scan writes y's lines as it reads (hardmax_rows_stream.c) */
    if (stream && x->dtype == SIMDOPS_FLOAT32 && r.n == 1 && r.sx[0] == 4 && r.sy[0] == 4 &&
        nr >= 64 && nr <= INT32_MAX && (uintptr_t)y->data % 4 == 0 && kept.n <= 1 &&
        (kept.n == 0 || kept.sy[0] == nr * 4)) {
        simdops_hm_row_stream_fn fused = simdops_hm_fused_row(kt->argmax_row[SIMDOPS_FLOAT32]);
        if (fused && simdops_hm_rows_streamed(fused, (const char *)x->data,
                                              kept.n ? kept.sx[0] : 0, (char *)y->data,
                                              (size_t)(kept.n ? kept.shape[0] : 1), (size_t)nr)) {
            simdops_hm_stream_fence(stream);
            return SIMDOPS_OK;
        }
    }
    /* one contiguous reduced axis, y's rows adjacent, in cache */
    if (!stream && r.n == 1 && r.sx[0] == (int64_t)es && r.sy[0] == (int64_t)es && kept.n <= 1 &&
        (kept.n == 0 || kept.sy[0] == nr * (int64_t)es)) {
        rows_adjacent(kt, (const char *)x->data, kept.n ? kept.sx[0] : 0, (char *)y->data,
                      (size_t)(kept.n ? kept.shape[0] : 1), (size_t)nr, x->dtype);
        return SIMDOPS_OK;
    }
    {
        /* One reduced row per group, read in place or gathered. */
        int contiguous = r.n == 0 || (r.n == 1 && r.sx[0] == (int64_t)es);
        char *row = NULL;
        int64_t kidx[SIMDOPS_MAX_DIMS] = {0}, gx = 0, gy = 0;
        zero_run run;
        if (!contiguous) {
            row = (char *)malloc((size_t)nr * es);
            if (!row)
                return SIMDOPS_E_NOMEM;
        }
        simdops_hm_run_init(&run, r.n == 1 && r.sy[0] == (int64_t)es ? (size_t)nr * es : 0, es,
                 (size_t)dims_count(&kept), stream);
        do {
            const char *xg = (const char *)x->data + gx;
            size_t at;
            if (!contiguous) {
                int64_t ridx[SIMDOPS_MAX_DIMS] = {0}, rx = 0, ry = 0;
                char *dst = row;
                do {
                    memcpy(dst, xg + rx, es);
                    dst += es;
                } while (dims_next(&r, ridx, &rx, &ry));
                xg = row;
            }
            at = kt->argmax_row[x->dtype](xg, (size_t)nr);
            if (run.row_bytes)
                simdops_hm_run_add(&run, (char *)y->data + gy, at, x->dtype, stream);
            else
                write_group((char *)y->data + gy, &r, (int64_t)at, x->dtype);
        } while (dims_next(&kept, kidx, &gx, &gy));
        simdops_hm_run_flush(&run, x->dtype, stream);
        simdops_hm_run_free(&run);
        free(row);
    }
    simdops_hm_stream_fence(stream);
    return SIMDOPS_OK;
}

/* Threads: slices along one kept axis, each run by simdops_hardmax_run. */
typedef struct slices {
    const simdops_kernel_table *kt;
    const simdops_tensor *x, *y;
    const int *reduced;
    int axis;
} slices;

static int run_slices(void *ctx, int64_t begin, int64_t end)
{
    const slices *s = (const slices *)ctx;
    simdops_tensor xs = *s->x, ys = *s->y;
    xs.data = (char *)xs.data + begin * xs.strides[s->axis];
    ys.data = (char *)ys.data + begin * ys.strides[s->axis];
    xs.shape[s->axis] = ys.shape[s->axis] = end - begin;
    return simdops_hardmax_run(s->kt, &xs, &ys, s->reduced);
}

/* A slice of the contiguous axis spans at least this many bytes of each row
 * (or a grain, if smaller): narrower column blocks waste the prefetcher. */
enum { MIN_ROW_SEGMENT = 4096 };

int simdops_hardmax_threaded(const simdops_kernel_table *kt, const simdops_tensor *x,
                             const simdops_tensor *y, const int *reduced)
{
    slices s = {kt, x, y, reduced, -1};
    int64_t es = (int64_t)simdops_dtype_size(x->dtype), n = 1, bytes = simdops_grain_bytes();
    int64_t grain, segment = bytes < MIN_ROW_SEGMENT ? bytes : MIN_ROW_SEGMENT;
    for (int d = 0; d < x->ndim; d++)
        n *= x->shape[d];
    if (simdops_get_num_threads() == 1 || n * es * 2 < 2 * bytes)
        return simdops_hardmax_run(kt, x, y, reduced);
    /* the longest kept axis (the outermost of equals) gives the most even split */
    for (int d = 0; d < x->ndim; d++)
        if (!reduced[d] && (s.axis < 0 || x->shape[d] > x->shape[s.axis]))
            s.axis = d;
    if (s.axis < 0 || x->shape[s.axis] < 2)
        return simdops_hardmax_run(kt, x, y, reduced);
    grain = bytes / (n / x->shape[s.axis] * es * 2) + 1;
    if (x->strides[s.axis] == es && grain < segment / es)
        grain = segment / es;
    return simdops_parallel_for(x->shape[s.axis], grain, run_slices, &s);
}
