/* hardmax of float32 rows along a contiguous last axis, y one contiguous
 * range, past the streaming threshold: each row scanned by the tier's fused
 * scan (kernels/hardmax/hardmax_stream.h), which writes the finished lines of
 * y with non-temporal stores while it reads. Row r's scan streams the lines
 * below row r's first line of y (rows before r, already scanned: safe in
 * place); what it leaves, the driver streams before the next row, so the
 * lines waiting never exceed about one row. The partial lines at both ends of
 * y go last, with plain stores (they hold bytes of the first and the last
 * row; another thread's slice may share them, and plain stores to disjoint
 * bytes of a line are safe where a non-temporal store of the whole line would
 * not be). */
#include "driver/hardmax_writes.h"

#include <stdint.h>
#include <string.h>

#include "kernels/hardmax/hardmax_stream.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define HM_ROWS_STREAM 1 /* the fused scans are x86 tiers' (SSE2 is baseline here) */
#else
#define HM_ROWS_STREAM 0
#endif

simdops_hm_row_stream_fn simdops_hm_fused_row(simdops_argmax_row_fn row)
{
#if HM_ROWS_STREAM
    if (row && row == simdops_hm_stream_pair__avx512.row)
        return simdops_hm_stream_pair__avx512.fused;
    if (row && row == simdops_hm_stream_pair__avx2.row)
        return simdops_hm_stream_pair__avx2.fused;
#else
    (void)row;
#endif
    return NULL;
}

#if HM_ROWS_STREAM
#define SSE_LINE_ZERO(p)                                                                          \
    do {                                                                                          \
        __m128i *q_ = (__m128i *)(p), z_ = _mm_setzero_si128();                                   \
        _mm_stream_si128(q_, z_);                                                                 \
        _mm_stream_si128(q_ + 1, z_);                                                             \
        _mm_stream_si128(q_ + 2, z_);                                                             \
        _mm_stream_si128(q_ + 3, z_);                                                             \
    } while (0)
#define SSE_LINE_COPY(p, src)                                                                     \
    do {                                                                                          \
        __m128i *q_ = (__m128i *)(p);                                                             \
        const __m128i *s_ = (const __m128i *)(const void *)(src);                                 \
        _mm_stream_si128(q_, _mm_load_si128(s_));                                                 \
        _mm_stream_si128(q_ + 1, _mm_load_si128(s_ + 1));                                         \
        _mm_stream_si128(q_ + 2, _mm_load_si128(s_ + 2));                                         \
        _mm_stream_si128(q_ + 3, _mm_load_si128(s_ + 3));                                         \
    } while (0)

/* The queue's ones below s->cur are written: move the rest to the front. */
static void drop_written(simdops_hm_lines *s, uintptr_t *one)
{
    size_t k = s->k, n = s->n;
    memmove(one, one + k, (n - k) * sizeof *one);
    s->n = n - k;
    s->k = 0;
}
#endif

/* The rows' waiting ones: the lines waiting span at most one row plus a line
 * (rows of 64 floats or more: 4 lines each), so at most 3 ones are queued. */
enum { QUEUE = 8 };

int simdops_hm_rows_streamed(simdops_hm_row_stream_fn fused, const char *x, int64_t row_sx,
                             char *y, size_t rows, size_t cols)
{
#if HM_ROWS_STREAM
    const size_t rb = cols * 4, total = rows * rb;
    const uintptr_t y0 = (uintptr_t)y, first = (y0 + 63) & ~(uintptr_t)63;
    const uintptr_t last = (y0 + total) & ~(uintptr_t)63;
    uintptr_t one[QUEUE], edge[2];
    size_t n_edge = 0;
    simdops_hm_lines s;
    s.cur = s.limit = first;
    s.one = one;
    s.k = s.n = 0;
    for (size_t r = 0; r < rows; r++) {
        size_t at = fused(x + (int64_t)r * row_sx, cols, &s);
        uintptr_t a = y0 + r * rb + at * 4, next = (y0 + (r + 1) * rb) & ~(uintptr_t)63;
        /* the lines row r's scan left below its own first line */
        SIMDOPS_HM_LINES_WRITE(&s, s.limit, SSE_LINE_ZERO, SSE_LINE_COPY);
        drop_written(&s, one);
        if (a >= first && a < last)
            one[s.n++] = a;
        else
            edge[n_edge++] = a; /* only the first row's and the last row's */
        s.limit = next < first ? first : next > last ? last : next;
    }
    SIMDOPS_HM_LINES_WRITE(&s, last, SSE_LINE_ZERO, SSE_LINE_COPY);
    memset(y, 0, first - y0);
    memset((char *)last, 0, y0 + total - last);
    for (size_t k = 0; k < n_edge; k++) {
        float v = 1.0f;
        memcpy((char *)edge[k], &v, 4);
    }
    return 1;
#else
    (void)fused, (void)x, (void)row_sx, (void)y, (void)rows, (void)cols;
    return 0;
#endif
}
