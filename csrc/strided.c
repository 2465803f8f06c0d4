#include "strided.h"

#include <stdlib.h>
#include <string.h>

enum { CHUNK = 256 };

int64_t simdops_numel(const simdops_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static void copy_elements(char *dst, int64_t dst_stride, const char *src, int64_t src_stride,
                          size_t n, size_t esize)
{
    for (size_t i = 0; i < n; i++, dst += dst_stride, src += src_stride) {
        switch (esize) {
        case 1: *dst = *src; break;
        case 2: memcpy(dst, src, 2); break;
        case 4: memcpy(dst, src, 4); break;
        default: memcpy(dst, src, 8); break;
        }
    }
}

/* One row of n elements with byte strides sx/sy. Kernels get unit-stride,
 * element-aligned pointers; anything else goes through aligned chunk
 * buffers (a misaligned float* is undefined behaviour in the scalar tier). */
static void run_row(const char *x, char *y, size_t n, int64_t sx, int64_t sy, size_t ex,
                    size_t ey, simdops_row_fn row, const void *ctx)
{
    uint64_t xbuf[CHUNK], ybuf[CHUNK];
    int direct_x = sx == (int64_t)ex && (uintptr_t)x % ex == 0;
    int direct_y = sy == (int64_t)ey && (uintptr_t)y % ey == 0;
    if (direct_x && direct_y) {
        row(x, y, n, 0, ctx);
        return;
    }
    for (size_t k0 = 0; k0 < n; k0 += CHUNK) {
        size_t m = n - k0 < CHUNK ? n - k0 : CHUNK;
        const char *xs = x + (int64_t)k0 * sx;
        char *ys = y + (int64_t)k0 * sy;
        const void *xin = xs;
        void *yout = ys;
        if (!direct_x) {
            copy_elements((char *)xbuf, (int64_t)ex, xs, sx, m, ex);
            xin = xbuf;
        }
        if (!direct_y)
            yout = ybuf;
        row(xin, yout, m, k0, ctx);
        if (!direct_y)
            copy_elements(ys, sy, (const char *)ybuf, (int64_t)ey, m, ey);
    }
}

void simdops_elementwise(const simdops_tensor *x, const simdops_tensor *y, int keep_last_axis,
                         simdops_row_fn row, const void *ctx)
{
    size_t ex = simdops_dtype_size(x->dtype), ey = simdops_dtype_size(y->dtype);
    int64_t shape[SIMDOPS_MAX_DIMS + 1], sx[SIMDOPS_MAX_DIMS + 1], sy[SIMDOPS_MAX_DIMS + 1];
    int64_t idx[SIMDOPS_MAX_DIMS + 1];
    int nd = 0, last = x->ndim - 1, end = keep_last_axis ? last : x->ndim;
    const char *px = (const char *)x->data;
    char *py = (char *)y->data;

    if (simdops_numel(x) == 0)
        return;
    for (int d = 0; d < end; d++) {
        int64_t s = x->shape[d];
        if (s == 1)
            continue;
        if (nd > 0 && sx[nd - 1] == x->strides[d] * s && sy[nd - 1] == y->strides[d] * s) {
            shape[nd - 1] *= s;
            sx[nd - 1] = x->strides[d];
            sy[nd - 1] = y->strides[d];
            continue;
        }
        shape[nd] = s;
        sx[nd] = x->strides[d];
        sy[nd] = y->strides[d];
        nd++;
    }
    if (keep_last_axis && last >= 0) {
        shape[nd] = x->shape[last];
        sx[nd] = x->strides[last];
        sy[nd] = y->strides[last];
        nd++;
    }
    if (nd == 0) {
        shape[0] = 1;
        sx[0] = (int64_t)ex;
        sy[0] = (int64_t)ey;
        nd = 1;
    }
    memset(idx, 0, sizeof(idx));
    for (;;) {
        int d;
        run_row(px, py, (size_t)shape[nd - 1], sx[nd - 1], sy[nd - 1], ex, ey, row, ctx);
        for (d = nd - 2; d >= 0; d--) {
            px += sx[d];
            py += sy[d];
            if (++idx[d] < shape[d])
                break;
            px -= sx[d] * shape[d];
            py -= sy[d] * shape[d];
            idx[d] = 0;
        }
        if (d < 0)
            break;
    }
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
