/* Tensor checks shared by the N-d entry points: one place for the rules on
 * views (dtype, ndim, extents, output shape and dtype, output self-overlap,
 * in-place layout, partial overlap -> copy). Each returns a status and fills
 * err with the reason. */
#ifndef SIMDOPS_CHECKS_H
#define SIMDOPS_CHECKS_H

#include <stddef.h>

#include "simdops/simdops.h"

/* Views are refused from this many bytes on, counted two ways: element count
 * times element size, and the distance from the lowest to the highest byte
 * an element occupies. No machine has that memory (2^62 bytes on 64-bit
 * targets); below it every count and offset the drivers compute fits int64,
 * twice a byte count included (x's bytes plus y's, a stride times its
 * extent). */
#define SIMDOPS_BYTES_LIMIT ((int64_t)(PTRDIFF_MAX / 2) + 1)

/* t is a valid view: not NULL, known dtype, 0 <= ndim <= 64, extents >= 0,
 * fewer than SIMDOPS_BYTES_LIMIT bytes of elements (extents of 0 aside) and,
 * when it has elements, fewer than SIMDOPS_BYTES_LIMIT bytes from its first
 * to its last, data not NULL. arg names it in errors. */
int simdops_check_tensor(const simdops_tensor *t, int arg, simdops_error *err);

/* y is a valid output for x: a valid view of dtype `dtype`, x's shape, no two
 * elements at one address. */
int simdops_check_output(const simdops_tensor *x, const simdops_tensor *y, simdops_dtype dtype,
                         simdops_error *err);

/* Every byte t addresses lies in [base, base + len) (for views built over
 * raw buffers by descriptor layers). */
int simdops_check_within(const simdops_tensor *t, const void *base, size_t len, int arg,
                         simdops_error *err);

/* The input to read: *xin = x, or a contiguous copy of x (to free via *tmp)
 * when x overlaps y other than as the same layout of the same dtype. */
int simdops_input_view(const simdops_tensor *x, const simdops_tensor *y, simdops_tensor *xin,
                       void **tmp, simdops_error *err);
/* The same choice without copying the view (a simdops_tensor is ~1 KB: two
 * such copies were a measurable part of a small call): *xp = x itself, or
 * copy filled as simdops_input_view would fill *xin. */
int simdops_input_ref(const simdops_tensor *x, const simdops_tensor *y, simdops_tensor *copy,
                      const simdops_tensor **xp, void **tmp, simdops_error *err);

/* A parameter tensor read while y is written (per-channel scales and zero
 * points): *vin = v, or a contiguous copy of v (to free via *tmp) when their
 * bytes overlap, so the call reads what v held before it, as if the inputs
 * were copied first (a later channel would otherwise read what an earlier
 * one wrote). v may be NULL (not given: *vin untouched). NOMEM names arg. */
int simdops_param_view(const simdops_tensor *v, const simdops_tensor *y, int arg,
                       simdops_tensor *vin, void **tmp, simdops_error *err);

#endif
