/* The N-d driver: coalesce dimensions, call a contiguous row function per
 * row, gather/scatter through small buffers only when the inner stride is not
 * unit. Also the layout helpers api.c needs (overlap, copies). */
#ifndef SIMDOPS_STRIDED_H
#define SIMDOPS_STRIDED_H

#include "simdops/simdops.h"

/* Row function: n contiguous elements; k0 is the index of x[0] within the
 * (coalesced) row, so k0 % shape[last] is its index along the last axis when
 * that axis is kept in order (used by per-channel requant). */
typedef void (*simdops_row_fn)(const void *x, void *y, size_t n, size_t k0, const void *ctx);

/* Calls row over every element of x/y (same shape, element sizes from their
 * dtypes). last_axis_ordered: the last axis is never walked reversed, so
 * element k0 + j of a row is at index (k0 + j) % shape[last] along it (axes
 * still merge: rows of a contiguous [rows, C] tensor become one long row). */
void simdops_elementwise(const simdops_tensor *x, const simdops_tensor *y, int last_axis_ordered,
                         simdops_row_fn row, const void *ctx);

/* Computes output elements [k, k + m) of a call into dst (the place of element k). */
typedef void (*simdops_fill_fn)(const void *ctx, size_t k, size_t m, void *dst);
/* The non-temporal path beyond the cache (stream_store.h) for an output of n
 * elements of ey bytes at y that fill computes in order, from any k: blocks
 * computed into an L1 buffer and streamed to y from its first 64-byte line,
 * the input (xbits bits an element, read in order from x) prefetched ahead.
 * The caller decides that the output is past simdops_stream_threshold and
 * does not overlap the input; without SSE2 it is one plain fill. */
void simdops_stream_fill(char *y, size_t n, size_t ey, const char *x, size_t xbits,
                         simdops_fill_fn fill, const void *ctx);

int64_t simdops_numel(const simdops_tensor *t);
/* 1 when two elements of t share a byte. Exact up to 4M elements; larger
 * layouts that interleave their strides are refused conservatively. */
int simdops_self_overlaps(const simdops_tensor *t);
/* Byte offsets [*lo, *hi) from t->data that t's elements cover (numel > 0). */
void simdops_byte_span(const simdops_tensor *t, int64_t *lo, int64_t *hi);
/* 1 when the bytes spanned by a and b intersect. */
int simdops_may_overlap(const simdops_tensor *a, const simdops_tensor *b);
/* 1 when every element of t sits at an address that is a multiple of its size. */
int simdops_is_aligned(const simdops_tensor *t);
/* 1 when a and b address the same elements in the same order. */
int simdops_same_layout(const simdops_tensor *a, const simdops_tensor *b);
/* A C-contiguous copy of src in freshly malloc'ed memory (*buf, to free). */
int simdops_contiguous_copy(const simdops_tensor *src, simdops_tensor *dst, void **buf);

#endif
