#include "rules/checks.h"
#include "core/dtype.h"
#include "core/errors.h"
#include "driver/strided.h"
#include "rules/rules.h"

#include <stdlib.h>


/* reason about dimension d of arg (value: its extent, expected: the limit) */
static int fail_dim(simdops_error *err, int reason, int arg, int d, int64_t extent,
                    int64_t expected)
{
    simdops_fail_value(err, reason, arg, extent, expected);
    err->index = d;
    return err->status;
}

/* t's element bytes and byte span below SIMDOPS_BYTES_LIMIT (extents are
 * >= 0); products of values past 2^31 are checked by division, so hostile
 * extents and strides never wrap. */
static int check_size(const simdops_tensor *t, int arg, simdops_error *err)
{
    /* below SMALL = 2^31, a product of two fits in 62 bits */
    const int64_t SMALL = (int64_t)1 << 31;
    const int64_t limit = SIMDOPS_BYTES_LIMIT, es = (int64_t)simdops_dtype_size(t->dtype);
    int64_t bytes = es, span = es;
    int empty = 0;
    for (int d = 0; d < t->ndim; d++)
        empty |= t->shape[d] == 0;
    for (int d = 0; d < t->ndim; d++) {
        int64_t n = t->shape[d];
        uint64_t step;
        if (n == 0)
            continue;
        /* n * bytes > limit - 1, without the division when the product fits (a
         * 16-element call paid four divisions here) */
        if ((n | bytes) < SMALL ? n * bytes > limit - 1 : n > (limit - 1) / bytes)
            return fail_dim(err, SIMDOPS_R_TOO_MANY_ELEMENTS, arg, d, n, limit);
        bytes *= n;
        if (empty || n == 1) /* an empty view's strides address nothing */
            continue;
        step = t->strides[d] < 0 ? 0 - (uint64_t)t->strides[d] : (uint64_t)t->strides[d];
        if (((uint64_t)(n - 1) | step) < (uint64_t)SMALL
                ? (uint64_t)(n - 1) * step > (uint64_t)(limit - 1 - span)
                : step && (uint64_t)(n - 1) > (uint64_t)(limit - 1 - span) / step)
            return fail_dim(err, SIMDOPS_R_SPAN_TOO_LARGE, arg, d, n, limit);
        span += (int64_t)((uint64_t)(n - 1) * step);
    }
    return SIMDOPS_OK;
}

int simdops_check_tensor(const simdops_tensor *t, int arg, simdops_error *err)
{
    int s;
    if (!t)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, arg);
    if (!simdops_dtype_valid(t->dtype))
        return simdops_fail_value(err, SIMDOPS_R_DTYPE_UNKNOWN, arg, t->dtype, 0);
    if (t->ndim < 0)
        return simdops_fail_value(err, SIMDOPS_R_NDIM_NEGATIVE, arg, t->ndim, 0);
    if (t->ndim > SIMDOPS_MAX_DIMS)
        return simdops_fail_value(err, SIMDOPS_R_NDIM, arg, t->ndim, SIMDOPS_MAX_DIMS);
    /* the common 1-D view: extent below 2^31 and |stride| <= 2^31 keep the bytes
     * (< 2^34) and the span (< 2^62 - 2^31) below a 64-bit build's limit
     * (check_size's loop cost a 16-element call ~100 instructions a tensor) */
    if (t->ndim == 1 && (uint64_t)t->shape[0] < ((uint64_t)1 << 31) &&
        (uint64_t)t->strides[0] + ((uint64_t)1 << 31) < ((uint64_t)1 << 32) &&
        SIMDOPS_BYTES_LIMIT >= ((int64_t)1 << 62))
        return t->data || t->shape[0] == 0 ? SIMDOPS_OK : simdops_fail(err, SIMDOPS_R_NULL_DATA, arg);
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] < 0)
            return fail_dim(err, SIMDOPS_R_NEGATIVE_EXTENT, arg, d, t->shape[d], 0);
    if ((s = check_size(t, arg, err)))
        return s;
    if (!t->data && simdops_numel(t) > 0)
        return simdops_fail(err, SIMDOPS_R_NULL_DATA, arg);
    return SIMDOPS_OK;
}

int simdops_check_output(const simdops_tensor *x, const simdops_tensor *y, simdops_dtype dtype,
                         simdops_error *err)
{
    int s;
    if ((s = simdops_check_tensor(y, SIMDOPS_ARG_OUT, err)))
        return s;
    if ((s = simdops_check_same_shape(x, y, dtype, err)))
        return s;
    if (simdops_self_overlaps(y))
        return simdops_fail(err, SIMDOPS_R_SELF_OVERLAP, SIMDOPS_ARG_OUT);
    return SIMDOPS_OK;
}

int simdops_check_within(const simdops_tensor *t, const void *base, size_t len, int arg,
                         simdops_error *err)
{
    int64_t lo = 0, hi = 0;
    if (simdops_numel(t) == 0)
        return SIMDOPS_OK;
    simdops_byte_span(t, &lo, &hi);
    lo += (int64_t)((const char *)t->data - (const char *)base);
    hi += (int64_t)((const char *)t->data - (const char *)base);
    if (lo < 0 || hi > (int64_t)len) {
        simdops_fail_value(err, SIMDOPS_R_OUT_OF_BOUNDS, arg, lo, hi);
        err->index = (int64_t)len;
        return err->status;
    }
    return SIMDOPS_OK;
}

int simdops_input_view(const simdops_tensor *x, const simdops_tensor *y, simdops_tensor *xin,
                       void **tmp, simdops_error *err)
{
    *tmp = NULL;
    /* in place: same memory, same layout, same element size */
    if (simdops_may_overlap(x, y) && !(x->dtype == y->dtype && simdops_same_layout(x, y))) {
        if (simdops_contiguous_copy(x, xin, tmp))
            return simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_X);
        return SIMDOPS_OK;
    }
    *xin = *x;
    return SIMDOPS_OK;
}

int simdops_input_ref(const simdops_tensor *x, const simdops_tensor *y, simdops_tensor *copy,
                      const simdops_tensor **xp, void **tmp, simdops_error *err)
{
    *tmp = NULL;
    *xp = x;
    if (simdops_may_overlap(x, y) && !(x->dtype == y->dtype && simdops_same_layout(x, y))) {
        if (simdops_contiguous_copy(x, copy, tmp))
            return simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_X);
        *xp = copy;
    }
    return SIMDOPS_OK;
}

int simdops_param_view(const simdops_tensor *v, const simdops_tensor *y, int arg,
                       simdops_tensor *vin, void **tmp, simdops_error *err)
{
    *tmp = NULL;
    if (v && simdops_may_overlap(v, y)) {
        if (simdops_contiguous_copy(v, vin, tmp))
            return simdops_fail(err, SIMDOPS_R_NOMEM, arg);
        return SIMDOPS_OK;
    }
    if (v)
        *vin = *v;
    return SIMDOPS_OK;
}
