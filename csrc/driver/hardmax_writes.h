#ifndef SIMDOPS_HARDMAX_WRITES_H
#define SIMDOPS_HARDMAX_WRITES_H

/* Writing hardmax's y (hardmax_writes.c): zeros, ones, and runs of rows of y
 * written together. Internal to the hardmax driver. */
#include "kernels/registry.h"
#include "kernels/hardmax/hardmax_stream.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One element of y set to 0 or 1 (float32, float64 or float16). */
static inline void put01(char *p, simdops_dtype dtype, int one)
{
    if (dtype == SIMDOPS_FLOAT32) {
        float v = one ? 1.0f : 0.0f;
        memcpy(p, &v, 4);
    } else if (dtype == SIMDOPS_FLOAT64) {
        double v = one ? 1.0 : 0.0;
        memcpy(p, &v, 8);
    } else {
        uint16_t v = one ? 0x3c00u : 0u; /* float16 1.0 */
        memcpy(p, &v, 2);
    }
}

/* Rows of y that follow each other in memory are written together, once all
 * of them have been read (so in place is safe): their zeros in one pass, then
 * their ones. In cache a run is the whole call (all rows scanned, one memset
 * of y, the ones: at 1024x1024 float32 0.81-0.86 of a copy where runs of 64
 * KiB ran 0.64-0.77 and one memset per 4 KiB row 0.52-0.70; measured in one
 * process, interleaved with the copy; docs/performance.md). Past the streaming
 * threshold a run is 64 KiB: its lines are written with non-temporal stores,
 * each row's one inside its line (a one stored afterwards would read the line
 * back from memory), while the next rows' x is still in L2. */
enum { ZERO_RUN_BYTES = 65536, ZERO_RUN_ROWS = 256, CACHED_RUN_ROWS = 65536 };

typedef struct zero_run {
    size_t row_bytes;            /* bytes of one row of y; 0: rows are not contiguous */
    size_t es;                   /* element size */
    size_t max_bytes, max_rows;  /* a run's limits */
    char *y;                     /* first row of the run */
    size_t rows;                 /* rows in the run */
    size_t *one;                 /* byte offset from y of each row's one: stack_one, or max_rows on the heap */
    size_t stack_one[ZERO_RUN_ROWS];
} zero_run;

/* nb zero bytes at y; with stream set (outputs past simdops_stream_threshold)
 * the aligned middle with non-temporal stores. The caller fences. */
void simdops_hm_zero_bytes(char *y, size_t nb, int stream);
/* The sfence after non-temporal stores (nothing when stream is 0). */
void simdops_hm_stream_fence(int stream);
/* nb bytes at y: zeros, then ones at the n byte offsets one[] (ascending when
 * stream is set: then the ones go out inside the non-temporal stream). */
void simdops_hm_zeros_and_ones(char *y, size_t nb, const size_t *one, size_t n,
                               simdops_dtype dtype, int stream);
/* The run's limits for a call of `rows` rows of row_bytes each. */
void simdops_hm_run_init(zero_run *run, size_t row_bytes, size_t es, size_t rows, int stream);
void simdops_hm_run_free(zero_run *run);
/* Writes the run's rows (zeros, then their ones) and empties it. */
void simdops_hm_run_flush(zero_run *run, simdops_dtype dtype, int stream);
/* Row yg (already read) answered at: joins the run when it follows it in memory. */
void simdops_hm_run_add(zero_run *run, char *yg, size_t at, simdops_dtype dtype, int stream);
/* Zeros over cb columns of one reduced row (col_sy bytes apart). */
void simdops_hm_zero_row(char *y, size_t cb, int64_t col_sy, simdops_dtype dtype, int stream);
/* The byte offsets of a block's cb ones (column j's one in row bi[j], rows isy
 * bytes apart) in ascending order: a counting sort (cnt: rows + 1 counters). */
void simdops_hm_sort_ones(size_t *one, const int64_t *bi, size_t cb, size_t *cnt, int64_t rows,
                          int64_t isy, size_t es);

/* The tier's fused float32 scan for the table's argmax_row kernel row
 * (kernels/hardmax/hardmax_stream.h), or NULL (hardmax_rows_stream.c). */
simdops_hm_row_stream_fn simdops_hm_fused_row(simdops_argmax_row_fn row);
/* hardmax of `rows` float32 rows of cols >= 64 (row r at x + r * row_sx) into
 * y, rows of y adjacent, every line of y streamed by fused as it scans;
 * returns 0 (nothing done) where the fused scans are not built. The caller
 * fences. */
int simdops_hm_rows_streamed(simdops_hm_row_stream_fn fused, const char *x, int64_t row_sx,
                             char *y, size_t rows, size_t cols);

#endif
