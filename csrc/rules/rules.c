/* Shared rules as predicates (rules.h): one definition, called by the C entry
 * points and, through simdops._core, by the descriptor layers. */
#include "rules/rules.h"
#include "core/dtype.h"
#include "core/errors.h"

int simdops_check_same_shape(const simdops_tensor *x, const simdops_tensor *y,
                             simdops_dtype dtype, simdops_error *err)
{
    if (y->dtype != dtype)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_OUT, y->dtype, dtype);
    if (y->ndim != x->ndim)
        return simdops_fail_value(err, SIMDOPS_R_NDIM_MISMATCH, SIMDOPS_ARG_OUT, y->ndim, x->ndim);
    for (int d = 0; d < x->ndim; d++) {
        if (y->shape[d] != x->shape[d]) {
            simdops_fail_value(err, SIMDOPS_R_SHAPE_MISMATCH, SIMDOPS_ARG_OUT, y->shape[d],
                               x->shape[d]);
            err->index = d;
            return err->status;
        }
    }
    return SIMDOPS_OK;
}

int simdops_ranges_overlap(const void *a, uint64_t alen, const void *b, uint64_t blen)
{
    uint64_t pa = (uint64_t)(uintptr_t)a, pb = (uint64_t)(uintptr_t)b;
    if (alen == 0 || blen == 0)
        return 0;
    /* distances instead of end addresses: a + alen may wrap */
    return pa <= pb ? pb - pa < alen : pa - pb < blen;
}

int simdops_check_disjoint(const void *x, uint64_t xlen, const void *y, uint64_t ylen,
                           int same_address_ok, simdops_error *err)
{
    if (same_address_ok && x == y)
        return SIMDOPS_OK;
    if (simdops_ranges_overlap(x, xlen, y, ylen))
        return simdops_fail(err, SIMDOPS_R_PARTIAL_OVERLAP, SIMDOPS_ARG_OUT);
    return SIMDOPS_OK;
}

int simdops_reduced_axes(int ndim, int naxes, const int64_t *axes, int *reduced,
                         simdops_error *err)
{
    if (naxes < 1)
        return simdops_fail(err, SIMDOPS_R_AXES_EMPTY, SIMDOPS_ARG_AXIS);
    if (!axes)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_AXIS);
    for (int k = 0; k < naxes; k++) {
        int64_t a = axes[k] < 0 ? axes[k] + ndim : axes[k];
        int out_of_range = a < 0 || a >= ndim;
        if (out_of_range || reduced[a]) {
            simdops_fail_value(err, out_of_range ? SIMDOPS_R_AXIS_RANGE : SIMDOPS_R_AXIS_REPEATED,
                               SIMDOPS_ARG_AXIS, out_of_range ? axes[k] : a, ndim);
            err->index = k; /* the entry's position, for layers that name it */
            return err->status;
        }
        reduced[a] = 1;
    }
    return SIMDOPS_OK;
}

int simdops_check_channels(const simdops_tensor *v, int arg, simdops_dtype dtype,
                           const simdops_tensor *x, simdops_error *err)
{
    if (v->dtype != dtype)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, arg, v->dtype, dtype);
    if (x->ndim < 1)
        return simdops_fail(err, SIMDOPS_R_NEEDS_AXIS, arg);
    if (v->ndim != 1 || v->shape[0] != x->shape[x->ndim - 1]) {
        simdops_fail_value(err, SIMDOPS_R_CHANNELS, arg, v->ndim, x->shape[x->ndim - 1]);
        err->index = v->ndim == 1 ? v->shape[0] : -1;
        return err->status;
    }
    return SIMDOPS_OK;
}

int simdops_check_int32(int arg, int64_t v, simdops_error *err)
{
    if (v < INT32_MIN || v > INT32_MAX)
        return simdops_fail_value(err, SIMDOPS_R_INT32_RANGE, arg, v, 0);
    return SIMDOPS_OK;
}

int simdops_check_bound(simdops_dtype out, int arg, int64_t v, simdops_error *err)
{
    const simdops_dtype_row *r = &simdops_dtype_rows[simdops_dtype_valid(out) ? out : 0];
    if (v < r->lo || v > r->hi) {
        simdops_fail_value(err, SIMDOPS_R_BOUND_RANGE, arg, v, 0);
        err->dtype = out;
        return err->status;
    }
    return SIMDOPS_OK;
}

int simdops_check_min_max(int64_t lo, int64_t hi, simdops_error *err)
{
    if (lo > hi)
        return simdops_fail_value(err, SIMDOPS_R_MIN_ABOVE_MAX, SIMDOPS_ARG_MIN, lo, hi);
    return SIMDOPS_OK;
}

int simdops_dtype_int_range(simdops_dtype dtype, int64_t *lo, uint64_t *hi)
{
    const simdops_dtype_row *r;
    if (!simdops_dtype_valid(dtype) || simdops_dtype_rows[dtype].is_float)
        return 0;
    r = &simdops_dtype_rows[dtype];
    if (r->size == 8) { /* the table's lo/hi cover types up to 32 bits */
        *lo = r->is_signed ? INT64_MIN : 0;
        *hi = r->is_signed ? (uint64_t)INT64_MAX : UINT64_MAX;
    } else {
        *lo = r->lo;
        *hi = (uint64_t)r->hi;
    }
    return 1;
}
