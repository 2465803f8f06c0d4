#include "driver/strided.h"

#include "driver/gather.h"
#include "driver/row_walk.h"
#include "driver/threadpool.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/vec/stream_store.h"

/* Elements per gather/scatter chunk: the buffers stay in L1 while a kernel
 * call per chunk amortises its setup. */
enum { CHUNK = 512 };

int64_t simdops_numel(const simdops_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

/* ------------------------------------------------------------------ beyond the cache
 * The size policy, for every op and tier: a call whose output is at least
 * simdops_stream_threshold bytes writes its long contiguous rows with
 * non-temporal stores (beyond the cache a normal store first reads the line it
 * overwrites: 3x the output's bytes of memory traffic instead of 2x). Kernels
 * only supply the in-cache loop: the row is run in blocks into an L1-resident
 * buffer, which is then streamed to y from a 64-byte boundary (non-temporal
 * stores combine into whole lines). A tier therefore cannot lose streaming by
 * replacing its parent's kernels. */
/* 12 MiB written: an output that size plus its input (24 MiB) no longer stays
 * in a 32-48 MB shared L3 next to other work. glibc's memcpy streams from
 * 19.9 MB on the 48 MB-L3 machine measured; hardmax (16 MiB out) wins from
 * streaming there already (tools/cbench.c measures it). */
#ifndef SIMDOPS_STREAM_THRESHOLD /* -DSIMDOPS_STREAM_THRESHOLD=0 streams every long row */
#define SIMDOPS_STREAM_THRESHOLD ((size_t)12 << 20)
#endif
size_t simdops_stream_threshold = SIMDOPS_STREAM_THRESHOLD;

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define STREAM_STORES 1 /* SSE2 is baseline here: no ISA flag needed */
#else
#define STREAM_STORES 0 /* other targets: streaming is off (plain rows) */
#endif

#if STREAM_STORES
#ifndef STREAM_BUF
#define STREAM_BUF 4096
#endif
#ifndef STREAM_AHEAD
#define STREAM_AHEAD 16384
#endif
/* nb bytes (a multiple of 64) from buf to y, both 64-byte aligned, while
 * asking for the input STREAM_AHEAD bytes past xnb bytes at x (the block just
 * computed): the kernel's loads and these stores would otherwise take turns
 * on the memory bus. x bytes per 64 bytes of y (xstep) run from 4 (2-bit
 * codes to float32) to 512; below 64 one hint per 64 bytes of x. A hint past
 * the end of x is harmless: prefetches never fault. */
static void stream_copy(char *y, const unsigned char *buf, size_t nb, const char *x, size_t xnb)
{
    const size_t xstep = xnb / (nb / 64);
    const char *pf = x + STREAM_AHEAD;
    for (size_t i = 0; i < nb; i += 64, pf += xstep) {
        for (size_t r = 0; r < xstep; r += 64)
            _mm_prefetch(pf + r, _MM_HINT_T0);
        if (xstep < 64 && (i / 64 * xstep) % 64 < xstep)
            _mm_prefetch(pf, _MM_HINT_T0);
        {
        __m128i a = _mm_load_si128((const __m128i *)(const void *)(buf + i));
        __m128i b = _mm_load_si128((const __m128i *)(const void *)(buf + i + 16));
        __m128i c = _mm_load_si128((const __m128i *)(const void *)(buf + i + 32));
        __m128i d = _mm_load_si128((const __m128i *)(const void *)(buf + i + 48));
        _mm_stream_si128((__m128i *)(void *)(y + i), a);
        _mm_stream_si128((__m128i *)(void *)(y + i + 16), b);
        _mm_stream_si128((__m128i *)(void *)(y + i + 32), c);
        _mm_stream_si128((__m128i *)(void *)(y + i + 48), d);
        }
    }
}
#endif

/* n elements of ey bytes to y, which fill computes in order: a head up to y's
 * next line (plain stores), then blocks of STREAM_BUF bytes of y (or fewer
 * elements when the input, xbits bits an element read in order from x, is
 * wider) computed into buf and streamed out, then the tail (plain stores).
 * A y not aligned to ey never reaches a line boundary: one plain fill. */
void simdops_stream_fill(char *y, size_t n, size_t ey, const char *x, size_t xbits,
                         simdops_fill_fn fill, const void *ctx)
{
#if STREAM_STORES
    SIMDOPS_ALIGNED_64 unsigned char buf[STREAM_BUF];
    const size_t per = STREAM_BUF * 8 / (xbits > 8 * ey ? xbits : 8 * ey);
    size_t k = ((size_t)(0u - (uintptr_t)y) & (SIMDOPS_STREAM_LINE - 1)) / ey;
    if ((uintptr_t)y % ey)
        k = n;
    if (k > n)
        k = n;
    fill(ctx, 0, k, y);
    for (; n - k >= per; k += per) {
        fill(ctx, k, per, buf);
        stream_copy(y + k * ey, buf, per * ey, x + k * xbits / 8, per * xbits / 8);
    }
    fill(ctx, k, n - k, y + k * ey);
    _mm_sfence();
#else
    (void)x;
    (void)xbits;
    fill(ctx, 0, n, y);
#endif
}

#if STREAM_STORES
typedef struct row_fill {
    const char *x;
    size_t ex, k0;
    simdops_row_fn row;
    const void *ctx;
} row_fill;

static void fill_from_row(const void *ctx, size_t k, size_t m, void *dst)
{
    const row_fill *f = (const row_fill *)ctx;
    f->row(f->x + k * f->ex, dst, m, f->k0 + k, f->ctx);
}

/* A contiguous, element-aligned row of at least SIMDOPS_STREAM_BLOCK bytes of
 * y, not in place, streamed; the kernel sees block rows with their true k0,
 * so per-channel requant lines up. */
static void stream_row(const char *x, char *y, size_t n, size_t ex, size_t ey, size_t k0,
                       simdops_row_fn row, const void *ctx)
{
    row_fill f = {x, ex, k0, row, ctx};
    simdops_stream_fill(y, n, ey, x, 8 * ex, fill_from_row, &f);
}
#endif

/* One row of n elements with byte strides sx/sy; k0 is the index of its first
 * element along the last axis. Kernels get unit-stride, element-aligned
 * pointers; anything else goes through aligned chunk buffers (a misaligned
 * float* is undefined behaviour in the scalar tier). */
static void run_row(const char *x, char *y, size_t n, int64_t sx, int64_t sy, size_t ex,
                    size_t ey, size_t k0, int stream, simdops_row_fn row, const void *ctx)
{
    uint64_t xbuf[CHUNK], ybuf[CHUNK];
    int direct_x = sx == (int64_t)ex && (uintptr_t)x % ex == 0;
    int direct_y = sy == (int64_t)ey && (uintptr_t)y % ey == 0;
    if (direct_x && direct_y) {
#if STREAM_STORES
        if (stream && n * ey >= SIMDOPS_STREAM_BLOCK && (const void *)x != (const void *)y) {
            stream_row(x, y, n, ex, ey, k0, row, ctx);
            return;
        }
#else
        (void)stream;
#endif
        row(x, y, n, k0, ctx);
        return;
    }
    for (size_t k = 0; k < n; k += CHUNK) {
        size_t m = n - k < CHUNK ? n - k : CHUNK;
        const char *xs = x + (int64_t)k * sx;
        char *ys = y + (int64_t)k * sy;
        const void *xin = xs;
        void *yout = ys;
        if (!direct_x) {
            simdops_copy_elements((char *)xbuf, (int64_t)ex, xs, sx, m, ex);
            xin = xbuf;
        }
        if (!direct_y)
            yout = ybuf;
        row(xin, yout, m, k0 + k, ctx);
        if (!direct_y)
            simdops_copy_elements(ys, sy, (const char *)ybuf, (int64_t)ey, m, ey);
    }
}

/* x and y as at most ndim coalesced dimensions; the last one is the row. */
typedef struct plan {
    int nd;
    int64_t shape[SIMDOPS_MAX_DIMS + 1], sx[SIMDOPS_MAX_DIMS + 1], sy[SIMDOPS_MAX_DIMS + 1];
    const char *x;
    char *y;
    size_t ex, ey;
    int stream; /* the output is past simdops_stream_threshold */
    simdops_row_fn row;
    const void *ctx;
} plan;

static void make_plan(plan *p, const simdops_tensor *x, const simdops_tensor *y,
                      int last_axis_ordered)
{
    int last = x->ndim - 1;
    int nd = 0;
    p->x = (const char *)x->data;
    p->y = (char *)y->data;
    for (int d = 0; d < x->ndim; d++) {
        int64_t s = x->shape[d], tx = x->strides[d], ty = y->strides[d];
        if (s == 1)
            continue;
        /* An axis both walk backwards is walked forwards instead: each element
         * is computed on its own, so the order is free, and reversed views
         * (out=b[::-1] for b[::-1]) become contiguous. Not an ordered last
         * axis: its index is the channel. */
        if (tx < 0 && ty < 0 && !(last_axis_ordered && d == last)) {
            p->x += (s - 1) * tx;
            p->y += (s - 1) * ty;
            tx = -tx;
            ty = -ty;
        }
        /* merged, the axis stays the faster one: row index mod its length
         * is still the index along the last axis */
        if (nd > 0 && p->sx[nd - 1] == tx * s && p->sy[nd - 1] == ty * s) {
            p->shape[nd - 1] *= s;
            p->sx[nd - 1] = tx;
            p->sy[nd - 1] = ty;
            continue;
        }
        p->shape[nd] = s;
        p->sx[nd] = tx;
        p->sy[nd] = ty;
        nd++;
    }
    if (nd == 0) {
        p->shape[0] = 1;
        p->sx[0] = (int64_t)p->ex;
        p->sy[0] = (int64_t)p->ey;
        nd = 1;
    }
    p->nd = nd;
}

static void walk_row(const void *ctx, char *const *at, int64_t col, int64_t m)
{
    const plan *p = (const plan *)ctx;
    int last = p->nd - 1;
    run_row(at[0], at[1], (size_t)m, p->sx[last], p->sy[last], p->ex, p->ey, (size_t)col,
            p->stream, p->row, p->ctx);
}

void simdops_elementwise(const simdops_tensor *x, const simdops_tensor *y, int last_axis_ordered,
                         simdops_row_fn row, const void *ctx)
{
    plan p;
    simdops_walk w;
    w.n = simdops_numel(x);
    if (w.n == 0)
        return;
    p.ex = simdops_dtype_size(x->dtype);
    p.ey = simdops_dtype_size(y->dtype);
    p.row = row;
    p.ctx = ctx;
    make_plan(&p, x, y, last_axis_ordered);
    p.stream = (uint64_t)w.n * p.ey >= (uint64_t)simdops_stream_threshold;
    w.nd = p.nd;
    w.nops = 2;
    w.shape = p.shape;
    w.base[0] = (char *)p.x;
    w.base[1] = p.y;
    w.strides[0] = p.sx;
    w.strides[1] = p.sy;
    w.row = walk_row;
    w.ctx = &p;
    simdops_walk_all(&w, (int64_t)(p.ex + p.ey));
}

void simdops_byte_span(const simdops_tensor *t, int64_t *lo, int64_t *hi)
{
    int64_t a = 0, b = 0;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = (t->shape[d] - 1) * t->strides[d];
        if (span < 0)
            a += span;
        else
            b += span;
    }
    *lo = a;
    *hi = b + (int64_t)simdops_dtype_size(t->dtype);
}

static void byte_span(const simdops_tensor *t, const char **lo, const char **hi)
{
    int64_t a, b;
    simdops_byte_span(t, &a, &b);
    *lo = (const char *)t->data + a;
    *hi = (const char *)t->data + b;
}

int simdops_may_overlap(const simdops_tensor *a, const simdops_tensor *b)
{
    const char *alo, *ahi, *blo, *bhi;
    if (simdops_numel(a) == 0 || simdops_numel(b) == 0)
        return 0;
    byte_span(a, &alo, &ahi);
    byte_span(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

int simdops_is_aligned(const simdops_tensor *t)
{
    int64_t es = (int64_t)simdops_dtype_size(t->dtype);
    if ((uintptr_t)t->data % (uintptr_t)es)
        return 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] > 1 && t->strides[d] % es)
            return 0;
    return 1;
}

int simdops_same_layout(const simdops_tensor *a, const simdops_tensor *b)
{
    if (a->data != b->data || a->ndim != b->ndim ||
        simdops_dtype_size(a->dtype) != simdops_dtype_size(b->dtype))
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->strides[d] != b->strides[d]))
            return 0;
    return 1;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Exact answer by listing every element's offset: for layouts the stride
 * rule below cannot prove one-to-one (interleaved strides). */
static int self_overlaps_exact(const simdops_tensor *t, int64_t n)
{
    int64_t *off = (int64_t *)malloc((size_t)n * sizeof(int64_t));
    int64_t idx[SIMDOPS_MAX_DIMS] = {0}, o = 0, es = (int64_t)simdops_dtype_size(t->dtype);
    int overlap = 0;
    if (!off)
        return 1;
    for (int64_t k = 0; k < n; k++) {
        int d;
        off[k] = o;
        for (d = t->ndim - 1; d >= 0; d--) {
            o += t->strides[d];
            if (++idx[d] < t->shape[d])
                break;
            o -= t->strides[d] * t->shape[d];
            idx[d] = 0;
        }
    }
    qsort(off, (size_t)n, sizeof(int64_t), cmp_i64);
    for (int64_t k = 1; k < n && !overlap; k++)
        overlap = off[k] - off[k - 1] < es;
    free(off);
    return overlap;
}

enum { EXACT_OVERLAP_LIMIT = 1 << 22 };

int simdops_self_overlaps(const simdops_tensor *t)
{
    /* Sort the non-trivial dims by |stride|; each must step past everything
     * the dims inside it span. */
    int64_t st[SIMDOPS_MAX_DIMS], sh[SIMDOPS_MAX_DIMS];
    int n = 0;
    int64_t span;
    if (simdops_numel(t) == 0)
        return 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] > 1) {
            int64_t s = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
            int k = n++;
            while (k > 0 && st[k - 1] > s) {
                st[k] = st[k - 1];
                sh[k] = sh[k - 1];
                k--;
            }
            st[k] = s;
            sh[k] = t->shape[d];
        }
    }
    span = (int64_t)simdops_dtype_size(t->dtype);
    for (int k = 0; k < n; k++) {
        if (st[k] < span) {
            int64_t count = simdops_numel(t);
            return st[k] == 0 || count > EXACT_OVERLAP_LIMIT || self_overlaps_exact(t, count);
        }
        span += (sh[k] - 1) * st[k];
    }
    return 0;
}

static void copy_row(const void *x, void *y, size_t n, size_t k0, const void *ctx)
{
    (void)k0;
    memcpy(y, x, n * *(const size_t *)ctx);
}

int simdops_contiguous_copy(const simdops_tensor *src, simdops_tensor *dst, void **buf)
{
    size_t esize = simdops_dtype_size(src->dtype);
    int64_t n = simdops_numel(src), stride = (int64_t)esize;
    *dst = *src;
    *buf = malloc(n > 0 ? (size_t)n * esize : 1);
    if (!*buf)
        return SIMDOPS_E_NOMEM;
    dst->data = *buf;
    for (int d = src->ndim - 1; d >= 0; d--) {
        dst->strides[d] = stride;
        stride *= src->shape[d];
    }
    simdops_elementwise(src, dst, 0, copy_row, &esize);
    return SIMDOPS_OK;
}
