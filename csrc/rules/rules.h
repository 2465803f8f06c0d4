/* Rules that more than one layer applies, as callable predicates: the C entry
 * points use them, and simdops._core exposes each to the descriptor layers
 * (simdops.dml, simdops.acl, simdops.dask), which word the reason in their own
 * terms instead of re-checking. Each returns a status and fills err (the
 * reason, the argument, the offending values), or a plain 0/1 for the pure
 * predicates. */
#ifndef SIMDOPS_RULES_H
#define SIMDOPS_RULES_H

#include "simdops/simdops.h"
#include "core/dtype.h"
#include "core/errors.h"

/* y has dtype `dtype` and x's ndim and shape (DTYPE_MISMATCH, NDIM_MISMATCH,
 * SHAPE_MISMATCH with index = the dimension), in that order. arg: out. */
int simdops_check_same_shape(const simdops_tensor *x, const simdops_tensor *y,
                             simdops_dtype dtype, simdops_error *err);

/* The byte ranges [a, a + alen) and [b, b + blen) share a byte (no overflow
 * for any addresses and lengths; empty ranges share none). */
int simdops_ranges_overlap(const void *a, uint64_t alen, const void *b, uint64_t blen);

/* x's and y's byte ranges are disjoint, or (same_address_ok) start at one
 * address: else PARTIAL_OVERLAP on out. */
int simdops_check_disjoint(const void *x, uint64_t xlen, const void *y, uint64_t ylen,
                           int same_address_ok, simdops_error *err);

/* An input's byte range [in, in + inlen) and the output's [y, y + ylen)
 * share no byte (the same address included): else OUT_SHARES_INPUT naming
 * the input (arg). For kernels with no in-place form. */
int simdops_check_out_apart(const void *in, uint64_t inlen, int arg, const void *y,
                            uint64_t ylen, simdops_error *err);

/* axes[0..naxes) (negative from the end) as reduced[0..ndim) flags: each in
 * [-ndim, ndim), none repeated, at least one (AXES_EMPTY, AXIS_RANGE,
 * AXIS_REPEATED with index = the entry's position). reduced must be zeroed. */
int simdops_reduced_axes(int ndim, int naxes, const int64_t *axes, int *reduced,
                         simdops_error *err);

/* v (a per-channel vector: bias, multipliers, shifts, scales) has dtype (int32, or
 * float32 for scales), is 1-D, of x's
 * last dimension (DTYPE_MISMATCH, NEEDS_AXIS, CHANNELS with value = v's ndim,
 * index = v's length). */
int simdops_check_channels(const simdops_tensor *v, int arg, simdops_dtype dtype,
                           const simdops_tensor *x, simdops_error *err);

/* v fits int32 (INT32_RANGE). */
int simdops_check_int32(int arg, int64_t v, simdops_error *err);
/* A dtype given by value (arg names it): one the table knows, and one op takes.
 * Inline: it is on every call's path (an out-of-line call measured on 64-element calls). */
static inline int simdops_check_op_dtype(int op, simdops_dtype dtype, int arg,
                                         simdops_error *err)
{
    if (!simdops_dtype_valid(dtype))
        return simdops_fail_value(err, SIMDOPS_R_DTYPE_UNKNOWN, arg, dtype, 0);
    if (!simdops_op_supports(op, dtype))
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_UNSUPPORTED, arg, dtype, 0);
    return SIMDOPS_OK;
}

/* v lies in the integer range of `out` (BOUND_RANGE, dtype = out). */
int simdops_check_bound(simdops_dtype out, int arg, int64_t v, simdops_error *err);

/* lo <= hi (MIN_ABOVE_MAX on min). */
int simdops_check_min_max(int64_t lo, int64_t hi, simdops_error *err);

/* The value range of an integer dtype, 64-bit types included: 1 and *lo, *hi
 * (hi as uint64 for UINT64), or 0 for float and unknown dtypes. */
int simdops_dtype_int_range(simdops_dtype dtype, int64_t *lo, uint64_t *hi);

#endif
