/* How hardmax writes y: zeros and ones, in cache with memset and plain
 * stores, past simdops_stream_threshold with non-temporal stores from y's
 * first 64-byte line (each one inside its line). The driver
 * (hardmax_driver.c) decides the order; these only write. */
#include "driver/hardmax_writes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/vec/stream_store.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define HM_STREAM_ZERO 1 /* SSE2 is baseline here: no ISA flag needed */
#else
#define HM_STREAM_ZERO 0
#endif

/* nb zero bytes at y. With stream set (outputs past simdops_stream_threshold)
 * the aligned middle is written with non-temporal stores: beyond the cache a
 * memset first reads every line it overwrites, which makes hardmax move
 * 1.5x the bytes of a copy. The caller fences (simdops_hardmax_run's end). */
void simdops_hm_zero_bytes(char *y, size_t nb, int stream)
{
#if HM_STREAM_ZERO
    if (stream && nb >= 256) {
        size_t head = (size_t)(0u - (uintptr_t)y) & (SIMDOPS_STREAM_LINE - 1), i; /* whole lines */
        const __m128i z = _mm_setzero_si128();
        memset(y, 0, head);
        for (i = head; i + 64 <= nb; i += 64) {
            _mm_stream_si128((__m128i *)(y + i), z);
            _mm_stream_si128((__m128i *)(y + i + 16), z);
            _mm_stream_si128((__m128i *)(y + i + 32), z);
            _mm_stream_si128((__m128i *)(y + i + 48), z);
        }
        memset(y + i, 0, nb - i);
        return;
    }
#else
    (void)stream;
#endif
    memset(y, 0, nb);
}

void simdops_hm_stream_fence(int stream)
{
#if HM_STREAM_ZERO
    if (stream)
        _mm_sfence();
#else
    (void)stream;
#endif
}

/* Sets the run's limits for a call of `rows` rows of row_bytes each: the whole
 * call in cache (answers on the heap when there are more than ZERO_RUN_ROWS;
 * without the memory, runs of ZERO_RUN_ROWS), 64 KiB runs when streaming. */
void simdops_hm_run_init(zero_run *run, size_t row_bytes, size_t es, size_t rows, int stream)
{
    run->row_bytes = row_bytes;
    run->es = es;
    run->rows = 0;
    run->one = run->stack_one;
    run->max_rows = ZERO_RUN_ROWS;
    run->max_bytes = stream ? ZERO_RUN_BYTES : SIZE_MAX;
    if (!stream && row_bytes && rows > ZERO_RUN_ROWS) {
        size_t want = rows < CACHED_RUN_ROWS ? rows : CACHED_RUN_ROWS;
        size_t *heap = (size_t *)malloc(want * sizeof(size_t));
        if (heap) {
            run->one = heap;
            run->max_rows = want;
        }
    }
}

void simdops_hm_run_free(zero_run *run)
{
    if (run->one != run->stack_one)
        free(run->one);
}

#if HM_STREAM_ZERO
/* nb bytes at y written with zeros and n ones at the byte offsets one[]
 * (ascending): from y's first 64-byte line on with non-temporal stores, a line
 * holding ones built in an aligned buffer first; the partial lines at both
 * ends (and the ones in them) with plain stores. Needs y aligned to the
 * element size, so that no element straddles a line. */
static void stream_ones(char *y, size_t nb, const size_t *one, size_t n, simdops_dtype dtype)
{
    size_t head = (size_t)(0u - (uintptr_t)y) & (SIMDOPS_STREAM_LINE - 1);
    size_t end = head + (nb - head) / 64 * 64, i, k = 0, at = n ? one[0] : SIZE_MAX;
    const __m128i z = _mm_setzero_si128();
    memset(y, 0, head);
    while (at < head) /* ones in the head: written below */
        at = ++k < n ? one[k] : SIZE_MAX;
    for (i = head; i < end; i += 64) {
        if (at < i + 64) {
            SIMDOPS_ALIGNED_64 char line[64];
            memset(line, 0, sizeof line);
            do {
                put01(line + (at - i), dtype, 1);
                at = ++k < n ? one[k] : SIZE_MAX;
            } while (at < i + 64);
            _mm_stream_si128((__m128i *)(y + i), _mm_load_si128((const __m128i *)line));
            _mm_stream_si128((__m128i *)(y + i + 16), _mm_load_si128((const __m128i *)(line + 16)));
            _mm_stream_si128((__m128i *)(y + i + 32), _mm_load_si128((const __m128i *)(line + 32)));
            _mm_stream_si128((__m128i *)(y + i + 48), _mm_load_si128((const __m128i *)(line + 48)));
        } else {
            _mm_stream_si128((__m128i *)(y + i), z);
            _mm_stream_si128((__m128i *)(y + i + 16), z);
            _mm_stream_si128((__m128i *)(y + i + 32), z);
            _mm_stream_si128((__m128i *)(y + i + 48), z);
        }
    }
    memset(y + end, 0, nb - end);
    for (k = 0; k < n; k++) /* the ones outside [head, end) */
        if (one[k] < head || one[k] >= end)
            put01(y + one[k], dtype, 1);
}
#endif

/* nb bytes at y: zeros, then ones at the n byte offsets one[] (ascending when
 * stream is set: then the ones go out inside the non-temporal stream). */
void simdops_hm_zeros_and_ones(char *y, size_t nb, const size_t *one, size_t n, simdops_dtype dtype,
                           int stream)
{
#if HM_STREAM_ZERO
    if (stream && nb >= 256 && (uintptr_t)y % simdops_dtype_size(dtype) == 0) {
        stream_ones(y, nb, one, n, dtype);
        return;
    }
#endif
    simdops_hm_zero_bytes(y, nb, stream); /* 0.0: all-zero bits in every float type */
    for (size_t i = 0; i < n; i++)
        put01(y + one[i], dtype, 1);
}

void simdops_hm_run_flush(zero_run *run, simdops_dtype dtype, int stream)
{
    if (run->rows == 0)
        return;
    simdops_hm_zeros_and_ones(run->y, run->rows * run->row_bytes, run->one, run->rows, dtype, stream);
    run->rows = 0;
}

/* Row yg (already read) answered at: joins the run when it follows it in memory. */
void simdops_hm_run_add(zero_run *run, char *yg, size_t at, simdops_dtype dtype, int stream)
{
    if (run->rows > 0 && (yg != run->y + run->rows * run->row_bytes ||
                          run->rows == run->max_rows ||
                          (run->rows + 1) * run->row_bytes > run->max_bytes))
        simdops_hm_run_flush(run, dtype, stream);
    if (run->rows == 0)
        run->y = yg;
    run->one[run->rows] = run->rows * run->row_bytes + at * run->es;
    run->rows++;
}

/* Zeros over cb columns of one reduced row. */
void simdops_hm_zero_row(char *y, size_t cb, int64_t col_sy, simdops_dtype dtype, int stream)
{
    size_t es = simdops_dtype_size(dtype);
    if (col_sy == (int64_t)es)
        simdops_hm_zero_bytes(y, cb * es, stream);
    else
        for (size_t j = 0; j < cb; j++)
            put01(y + (int64_t)j * col_sy, dtype, 0);
}

/* The byte offsets from the block's y of its cb ones (column j's one in row
 * bi[j], rows isy bytes apart), in ascending order: a counting sort over the
 * rows (cnt: rows + 1 counters), columns ascending within a row. */
void simdops_hm_sort_ones(size_t *one, const int64_t *bi, size_t cb, size_t *cnt, int64_t rows,
                      int64_t isy, size_t es)
{
    memset(cnt, 0, (size_t)(rows + 1) * sizeof(size_t));
    for (size_t j = 0; j < cb; j++)
        cnt[bi[j] + 1]++;
    for (int64_t i = 0; i < rows; i++)
        cnt[i + 1] += cnt[i];
    for (size_t j = 0; j < cb; j++)
        one[cnt[bi[j]]++] = (size_t)(bi[j] * isy) + j * es;
}
