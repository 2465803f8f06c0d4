/* The ufuncs' strided loops: numpy hands each one an inner run of n elements
 * (operand pointers and byte strides). Parameters are prepared by C
 * (simdops_capi_prepare_*: validation and conversion to x's type) once per run
 * of equal parameter values, and the N-d entry point over the prepared handle
 * runs that stretch of x. A parameter with stride 0 (a scalar, or one value
 * broadcast over the run, e.g. per-channel on NCHW once numpy has coalesced H
 * and W) is one run: one prepare, the SIMD kernel over the whole run. A
 * parameter that changes from element to element gives runs of one element:
 * the same prepare and kernel per element, the same bits, slower. */
#include "_ufunc.h"

#include <string.h>

simdops_dtype uf_dtype_of(PyArray_Descr *d)
{
    npy_intp size = PyDataType_ELSIZE(d);
    if (!PyArray_ISNBO(d->byteorder))
        return SIMDOPS_UNKNOWN;
    switch (d->kind) {
    case 'f':
        return size == 2 ? SIMDOPS_FLOAT16 : size == 4 ? SIMDOPS_FLOAT32
                                         : size == 8 ? SIMDOPS_FLOAT64 : SIMDOPS_UNKNOWN;
    case 'i':
        return size == 1 ? SIMDOPS_INT8 : size == 2 ? SIMDOPS_INT16
               : size == 4 ? SIMDOPS_INT32 : size == 8 ? SIMDOPS_INT64 : SIMDOPS_UNKNOWN;
    case 'u':
        return size == 1 ? SIMDOPS_UINT8 : size == 2 ? SIMDOPS_UINT16
               : size == 4 ? SIMDOPS_UINT32 : size == 8 ? SIMDOPS_UINT64 : SIMDOPS_UNKNOWN;
    default:
        return SIMDOPS_UNKNOWN;
    }
}

/* A parameter element exactly as the simdops_number C converts (the loops are
 * registered for these parameter types only; the promoter maps others here). */
static simdops_number uf_number(const char *p, simdops_dtype t)
{
    switch (t) {
    case SIMDOPS_FLOAT64: {
        double v;
        memcpy(&v, p, sizeof(v));
        return simdops_float_number(v);
    }
    case SIMDOPS_FLOAT32: {
        float v;
        memcpy(&v, p, sizeof(v));
        return simdops_float_number((double)v);
    }
    case SIMDOPS_INT32: {
        int32_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    case SIMDOPS_INT8: {
        int8_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    case SIMDOPS_UINT8: {
        uint8_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    case SIMDOPS_INT16: {
        int16_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    case SIMDOPS_UINT64: {
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_uint_number(v);
    }
    default: { /* SIMDOPS_INT64 */
        int64_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    }
}

static int64_t uf_int(const char *p, simdops_dtype t)
{
    simdops_number n = uf_number(p, t); /* integer types up to int64 (the registered loops) */
    return n.i;
}

static double uf_real(const char *p, simdops_dtype t)
{
    simdops_number n = uf_number(p, t); /* FLOAT32 / FLOAT64 only */
    return n.f;
}

/* Sets the exception simdops raises for err (TypeError for a dtype, MemoryError,
 * ValueError otherwise) with C's message, named after the ufunc; returns -1. */
static int uf_fail(const uf_op *op, const simdops_error *err)
{
    char buf[1024];
    const char *text = buf, *colon;
    PyGILState_STATE gil;
    PyObject *exc = err->status == SIMDOPS_E_DTYPE   ? PyExc_TypeError
                    : err->status == SIMDOPS_E_NOMEM ? PyExc_MemoryError
                                                     : PyExc_ValueError;
    simdops_capi_error_format(err, buf, sizeof(buf));
    colon = strstr(buf, ": "); /* C's op name ("quantize") -> the ufunc's */
    if (colon)
        text = colon + 2;
    gil = PyGILState_Ensure();
    PyErr_Format(exc, "%s: %s", op ? op->name : "simdops.ufunc", text);
    PyGILState_Release(gil);
    return -1;
}

static int uf_no_op(void)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    PyErr_SetString(PyExc_RuntimeError, "simdops.ufunc: loop called without its ufunc");
    PyGILState_Release(gil);
    return -1;
}

static void uf_vec(simdops_tensor *t, char *data, simdops_dtype d, npy_intp n, npy_intp stride)
{
    t->data = data;
    t->dtype = d;
    t->ndim = 1;
    t->shape[0] = n;
    t->strides[0] = stride;
}

/* Bytewise equality of two parameter elements (fixed-size loads: this runs per element when
 * numpy hands a broadcast parameter over materialized in its buffer). */
static inline int uf_same(const char *a, const char *b, npy_intp size)
{
    switch (size) {
    case 8: {
        uint64_t u, v;
        memcpy(&u, a, 8);
        memcpy(&v, b, 8);
        return u == v;
    }
    case 4: {
        uint32_t u, v;
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        return u == v;
    }
    default:
        return !memcmp(a, b, (size_t)size);
    }
}

/* End of the run starting at i over which parameter operands first..last keep
 * the bytes they have at i (n when every parameter has stride 0). */
static npy_intp uf_run_end(char *const *data, const npy_intp *strides,
                           PyArray_Descr *const *descrs, int first, int last, npy_intp i,
                           npy_intp n)
{
    npy_intp j, size[4] = {0, 0, 0, 0};
    int k, moving = 0;
    for (k = first; k <= last; k++)
        if (strides[k]) {
            moving = 1;
            size[k] = PyDataType_ELSIZE(descrs[k]); /* an API call: once, not per element */
        }
    if (!moving)
        return n;
    if (first == last || (!strides[last] && first + 1 == last) ||
        (!strides[first] && first + 1 == last)) {
        /* one moving parameter (the common case): a tight loop */
        int m = strides[first] ? first : last;
        const char *v = data[m] + i * strides[m], *q = v + strides[m];
        npy_intp st = strides[m], sz = size[m];
        for (j = i + 1; j < n && uf_same(q, v, sz); j++, q += st)
            ;
        return j;
    }
    for (j = i + 1; j < n; j++)
        for (k = first; k <= last; k++)
            if (strides[k] && !uf_same(data[k] + j * strides[k], data[k] + i * strides[k],
                                       size[k]))
                return j;
    return n;
}

#define UF_AT(k, i) (data[k] + (i) * strides[k])

/* A run shorter than this over contiguous x and y takes the contiguous 1-D kernel: the N-d
 * entry point's per-call work (layout analysis, overlap and threading decisions) costs as
 * much as a few hundred elements, and numpy hands NCHW per-channel parameters over one
 * H*W plane (or one 8192-element buffer) at a time. Longer runs take the N-d entry point,
 * which can split a call over simdops' threads. */
#define UF_SHORT_RUN 65536

static int uf_short_contiguous(npy_intp n, npy_intp xstride, npy_intp xsize, npy_intp ystride,
                               npy_intp ysize)
{
    return n < UF_SHORT_RUN && xstride == xsize && ystride == ysize;
}

int uf_clip_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                 const npy_intp *strides, NpyAuxData *aux)
{
    const uf_op *op = uf_op_of(ctx->caller);
    PyArray_Descr *const *d = ctx->descriptors;
    simdops_dtype xt = uf_dtype_of(d[0]), lt = uf_dtype_of(d[1]), ht = uf_dtype_of(d[2]);
    npy_intp n = dims[0], i = 0, end, size = PyDataType_ELSIZE(d[0]);
    simdops_prepared p;
    simdops_error err;
    simdops_tensor x, y;
    (void)aux;
    if (!op)
        return uf_no_op();
    for (; i < n; i = end) {
        end = uf_run_end(data, strides, d, 1, 2, i, n);
        if (simdops_capi_prepare_clip(xt, uf_number(UF_AT(1, i), lt),
                                      uf_number(UF_AT(2, i), ht), NULL, NULL, &p, &err))
            return uf_fail(op, &err);
        if (uf_short_contiguous(end - i, strides[0], size, strides[3], size)) {
            if (simdops_capi_clip_1d(&p, UF_AT(0, i), UF_AT(3, i), end - i, &err))
                return uf_fail(op, &err);
            continue;
        }
        uf_vec(&x, UF_AT(0, i), xt, end - i, strides[0]);
        uf_vec(&y, UF_AT(3, i), xt, end - i, strides[3]);
        if (simdops_capi_clip_prepared(&p, &x, &y, &err))
            return uf_fail(op, &err);
    }
    return 0;
}

int uf_shrink_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                   const npy_intp *strides, NpyAuxData *aux)
{
    const uf_op *op = uf_op_of(ctx->caller);
    PyArray_Descr *const *d = ctx->descriptors;
    simdops_dtype xt = uf_dtype_of(d[0]), bt = uf_dtype_of(d[1]), tt = uf_dtype_of(d[2]);
    npy_intp n = dims[0], i = 0, end, size = PyDataType_ELSIZE(d[0]);
    simdops_prepared p;
    simdops_error err;
    simdops_tensor x, y;
    (void)aux;
    if (!op)
        return uf_no_op();
    for (; i < n; i = end) {
        end = uf_run_end(data, strides, d, 1, 2, i, n);
        if (simdops_capi_prepare_shrink(xt, uf_number(UF_AT(1, i), bt),
                                        uf_number(UF_AT(2, i), tt), &p, &err))
            return uf_fail(op, &err);
        if (uf_short_contiguous(end - i, strides[0], size, strides[3], size)) {
            if (simdops_capi_shrink_1d(&p, UF_AT(0, i), UF_AT(3, i), end - i, &err))
                return uf_fail(op, &err);
            continue;
        }
        uf_vec(&x, UF_AT(0, i), xt, end - i, strides[0]);
        uf_vec(&y, UF_AT(3, i), xt, end - i, strides[3]);
        if (simdops_capi_shrink_prepared(&p, &x, &y, &err))
            return uf_fail(op, &err);
    }
    return 0;
}

/* (x, multiplier, shift, offset) -> y: the family op->code, no clamp beyond y's type. */
int uf_requant_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                    const npy_intp *strides, NpyAuxData *aux)
{
    const uf_op *op = uf_op_of(ctx->caller);
    PyArray_Descr *const *d = ctx->descriptors;
    simdops_dtype mt = uf_dtype_of(d[1]), st = uf_dtype_of(d[2]), ot = uf_dtype_of(d[3]);
    simdops_dtype yt = uf_dtype_of(d[4]);
    npy_intp n = dims[0], i = 0, end, ysize = PyDataType_ELSIZE(d[4]);
    simdops_prepared p;
    simdops_error err;
    simdops_tensor x, y;
    (void)aux;
    if (!op)
        return uf_no_op();
    for (; i < n; i = end) {
        end = uf_run_end(data, strides, d, 1, 3, i, n);
        if (simdops_capi_prepare_requant_rounding(yt, op->code, uf_int(UF_AT(1, i), mt),
                                                  uf_int(UF_AT(2, i), st),
                                                  uf_int(UF_AT(3, i), ot), NULL, NULL, &p,
                                                  &err))
            return uf_fail(op, &err);
        if (uf_short_contiguous(end - i, strides[0], 4, strides[4], ysize)) {
            if (simdops_capi_requant_1d(&p, (const int32_t *)UF_AT(0, i), UF_AT(4, i), end - i,
                                        NULL, &err))
                return uf_fail(op, &err);
            continue;
        }
        uf_vec(&x, UF_AT(0, i), SIMDOPS_INT32, end - i, strides[0]);
        uf_vec(&y, UF_AT(4, i), yt, end - i, strides[4]);
        if (simdops_capi_requant_prepared(&p, &x, &y, NULL, NULL, NULL, &err))
            return uf_fail(op, &err);
    }
    return 0;
}

/* (x, scale, zero_point) -> y: the float family of mode op->code, no clamp beyond y's type. */
int uf_requant_fp_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                       const npy_intp *strides, NpyAuxData *aux)
{
    const uf_op *op = uf_op_of(ctx->caller);
    PyArray_Descr *const *d = ctx->descriptors;
    simdops_dtype st = uf_dtype_of(d[1]), zt = uf_dtype_of(d[2]), yt = uf_dtype_of(d[3]);
    npy_intp n = dims[0], i = 0, end, ysize = PyDataType_ELSIZE(d[3]);
    simdops_prepared p;
    simdops_error err;
    simdops_tensor x, y;
    (void)aux;
    if (!op)
        return uf_no_op();
    /* float32 scales that move every element over contiguous x and y (per channel on the last
     * axis, or a broadcast scale numpy copied into its buffer) with one zero point: the
     * per-channel kernel over the run, as the function's per-channel call (C checks each
     * scale; the prepared scale, 1.0, is unused there, as in the function). */
    if (n > 1 && st == SIMDOPS_FLOAT32 && strides[1] == 4 && strides[2] == 0 &&
        strides[0] == 4 && strides[3] == ysize) {
        if (simdops_capi_prepare_requant_fp(yt, 1.0, uf_int(data[2], zt), NULL, NULL, op->code,
                                            &p, &err) ||
            simdops_capi_requant_fp_pc_1d(&p, (const int32_t *)data[0], data[3], n, NULL,
                                          (const float *)data[1], &err))
            return uf_fail(op, &err);
        return 0;
    }
    for (; i < n; i = end) {
        end = uf_run_end(data, strides, d, 1, 2, i, n);
        if (simdops_capi_prepare_requant_fp(yt, uf_real(UF_AT(1, i), st),
                                            uf_int(UF_AT(2, i), zt), NULL, NULL, op->code,
                                            &p, &err))
            return uf_fail(op, &err);
        if (uf_short_contiguous(end - i, strides[0], 4, strides[3], ysize)) {
            if (simdops_capi_requant_1d(&p, (const int32_t *)UF_AT(0, i), UF_AT(3, i), end - i,
                                        NULL, &err))
                return uf_fail(op, &err);
            continue;
        }
        uf_vec(&x, UF_AT(0, i), SIMDOPS_INT32, end - i, strides[0]);
        uf_vec(&y, UF_AT(3, i), yt, end - i, strides[3]);
        if (simdops_capi_requant_fp_prepared(&p, &x, &y, NULL, NULL, &err))
            return uf_fail(op, &err);
    }
    return 0;
}

/* The gufunc (n)->(n): dims = (outer, n), strides = (x, y outer; x, y core). */
int uf_hardmax_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                    const npy_intp *strides, NpyAuxData *aux)
{
    const uf_op *op = uf_op_of(ctx->caller);
    simdops_dtype xt = uf_dtype_of(ctx->descriptors[0]);
    simdops_tensor x, y;
    simdops_error err;
    int64_t axis = 1;
    (void)aux;
    if (!op)
        return uf_no_op();
    uf_vec(&x, data[0], xt, dims[0], strides[0]);
    uf_vec(&y, data[1], xt, dims[0], strides[1]);
    x.ndim = y.ndim = 2;
    x.shape[1] = y.shape[1] = dims[1];
    x.strides[1] = strides[2];
    y.strides[1] = strides[3];
    if (simdops_capi_hardmax(&x, &y, 1, &axis, &err))
        return uf_fail(op, &err);
    return 0;
}
