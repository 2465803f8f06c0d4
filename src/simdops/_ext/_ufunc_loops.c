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
#include "_ufunc_read.h"
#include "_ufunc_memo.h"

#include <fenv.h>
#include <string.h>


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

/* ---------------------------------------------------------------- the loop shape
 * Every elementwise kind runs the same loop: walk the runs of equal parameters, prepare each
 * run's parameters (C validates and converts), run the 1-D kernel over a short contiguous
 * run and the N-d prepared entry over any other. A kind differs only in its parameter
 * operands, how it prepares them and which entry points run a run: uf_shape says so, and
 * uf_param_loop (inlined into each kind's loop with its shape's constants) is the one loop.
 * uf_shape, uf_at and the memo of prepared parameters are _ufunc_memo.h's. */

/* The loop's error for err, or for a caller that is not one of this module's ufuncs. */
static int uf_fail_at(PyObject *caller, const simdops_error *err)
{
    const uf_op *op = uf_op_of(caller);
    if (!op)
        return uf_no_op();
    return uf_fail(op, err);
}

UF_INLINE int uf_param_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                            const npy_intp *strides, const uf_shape s)
{
    PyArray_Descr *const *d = ctx->descriptors;
    const int yop = s.nparams + 1;
    npy_intp n = dims[0], i = 0, end, xsize, ysize;
    const simdops_prepared *p;
    uf_memo_table *memo = &uf_memo;
    simdops_error err;
    simdops_tensor x, y;
    uf_at a;
    int k;
    a.caller = ctx->caller;
    a.method = ctx->method;
    a.op = NULL;
    a.typed = 0;
    a.xt = a.yt = a.pt[0] = a.pt[1] = a.pt[2] = SIMDOPS_UNKNOWN; /* read on a miss */
    if (!a.caller)
        return uf_no_op();
    xsize = s.x_int32 ? 4 : PyDataType_ELSIZE(d[0]);
    ysize = s.x_int32 ? PyDataType_ELSIZE(d[yop]) : xsize;
    for (; i < n; i = end) {
        end = uf_run_end(data, strides, d, 1, s.nparams, i, n);
        for (k = 0; k < s.nparams; k++)
            a.v[k] = UF_AT(k + 1, i);
        if (!(p = uf_prepare_cached(s, &a, d, memo, &err)))
            return a.op ? uf_fail(a.op, &err) : uf_no_op();
        if (uf_short_contiguous(end - i, strides[0], xsize, strides[yop], ysize)) {
            if (s.run_1d(p, UF_AT(0, i), UF_AT(yop, i), end - i, &err))
                return uf_fail_at(a.caller, &err);
            continue;
        }
        uf_read_types(s, &a, d);
        uf_vec(&x, UF_AT(0, i), a.xt, end - i, strides[0]);
        uf_vec(&y, UF_AT(yop, i), a.yt, end - i, strides[yop]);
        if (s.run_nd(p, &x, &y, &err))
            return uf_fail_at(a.caller, &err);
    }
    return 0;
}

/* ---------------------------------------------------------------- the kinds */

static int uf_prepare_clip(const uf_at *a, simdops_prepared *p, simdops_error *err)
{
    return simdops_capi_prepare_clip(a->xt, uf_number(a->v[0], a->pt[0]),
                                     uf_number(a->v[1], a->pt[1]), NULL, NULL, p, err);
}

static int uf_prepare_shrink(const uf_at *a, simdops_prepared *p, simdops_error *err)
{
    return simdops_capi_prepare_shrink(a->xt, uf_number(a->v[0], a->pt[0]),
                                       uf_number(a->v[1], a->pt[1]), p, err);
}

/* (multiplier, shift, offset): the family op->code, no clamp beyond y's type */
static int uf_prepare_requant(const uf_at *a, simdops_prepared *p, simdops_error *err)
{
    return simdops_capi_prepare_requant_rounding(
        a->yt, a->op->code, uf_int(a->v[0], a->pt[0]), uf_int(a->v[1], a->pt[1]),
        uf_int(a->v[2], a->pt[2]), NULL, NULL, p, err);
}

/* (scale, zero_point): the float family of mode op->code, no clamp beyond y's type */
static int uf_prepare_requant_fp(const uf_at *a, simdops_prepared *p, simdops_error *err)
{
    return simdops_capi_prepare_requant_fp(a->yt, uf_real(a->v[0], a->pt[0]),
                                           uf_int(a->v[1], a->pt[1]), NULL, NULL, a->op->code,
                                           p, err);
}

static int uf_clip_1d(const simdops_prepared *p, char *x, char *y, npy_intp n, simdops_error *e)
{
    return simdops_capi_clip_1d(p, x, y, n, e);
}

static int uf_shrink_1d(const simdops_prepared *p, char *x, char *y, npy_intp n,
                        simdops_error *e)
{
    return simdops_capi_shrink_1d(p, x, y, n, e);
}

static int uf_requant_1d(const simdops_prepared *p, char *x, char *y, npy_intp n,
                         simdops_error *e)
{
    return simdops_capi_requant_1d(p, (const int32_t *)x, y, n, NULL, e);
}

static int uf_clip_nd(const simdops_prepared *p, const simdops_tensor *x, const simdops_tensor *y,
                      simdops_error *e)
{
    return simdops_capi_clip_prepared(p, x, y, e);
}

static int uf_shrink_nd(const simdops_prepared *p, const simdops_tensor *x,
                        const simdops_tensor *y, simdops_error *e)
{
    return simdops_capi_shrink_prepared(p, x, y, e);
}

static int uf_requant_nd(const simdops_prepared *p, const simdops_tensor *x,
                         const simdops_tensor *y, simdops_error *e)
{
    return simdops_capi_requant_prepared(p, x, y, NULL, NULL, NULL, e);
}

static int uf_requant_fp_nd(const simdops_prepared *p, const simdops_tensor *x,
                            const simdops_tensor *y, simdops_error *e)
{
    return simdops_capi_requant_fp_prepared(p, x, y, NULL, NULL, e);
}

static const uf_shape uf_clip_shape = {2, 0, uf_prepare_clip, uf_clip_1d, uf_clip_nd};
static const uf_shape uf_shrink_shape = {2, 0, uf_prepare_shrink, uf_shrink_1d, uf_shrink_nd};
static const uf_shape uf_requant_shape = {3, 1, uf_prepare_requant, uf_requant_1d,
                                          uf_requant_nd};
static const uf_shape uf_requant_fp_shape = {2, 1, uf_prepare_requant_fp, uf_requant_1d,
                                             uf_requant_fp_nd};

int uf_clip_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                 const npy_intp *strides, NpyAuxData *aux)
{
    (void)aux;
    return uf_param_loop(ctx, data, dims, strides, uf_clip_shape);
}

int uf_shrink_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                   const npy_intp *strides, NpyAuxData *aux)
{
    (void)aux;
    return uf_param_loop(ctx, data, dims, strides, uf_shrink_shape);
}

/* (x, multiplier, shift, offset) -> y */
int uf_requant_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                    const npy_intp *strides, NpyAuxData *aux)
{
    (void)aux;
    return uf_param_loop(ctx, data, dims, strides, uf_requant_shape);
}

/* Whether operand k keeps its first element's bytes over all n elements (stride 0, or a value
 * numpy copied into its buffer once per element). */
static int uf_constant(char *const *data, const npy_intp *strides, PyArray_Descr *const *descrs,
                       int k, npy_intp n)
{
    return !strides[k] || uf_run_end(data, strides, descrs, k, k, 0, n) == n;
}

/* (x, scale, zero_point) -> y */
int uf_requant_fp_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                       const npy_intp *strides, NpyAuxData *aux)
{
    PyArray_Descr *const *d = ctx->descriptors;
    npy_intp n = dims[0];
    (void)aux;
    /* float32 scales that move every element over contiguous x and y (per channel on the last
     * axis, or a broadcast scale numpy copied into its buffer, where it may copy the zero point
     * too) with one zero point: the per-channel kernel over the run, as the function's
     * per-channel call (C checks each scale; the prepared scale, 1.0, is unused there, as in
     * the function). */
    if (n > 1 && strides[1] == 4 && strides[0] == 4 && uf_dtype_of(d[1]) == SIMDOPS_FLOAT32 &&
        strides[3] == PyDataType_ELSIZE(d[3]) && uf_constant(data, strides, d, 2, n)) {
        const uf_op *op = uf_op_of(ctx->caller);
        simdops_prepared p;
        simdops_error err;
        if (!op)
            return uf_no_op();
        if (simdops_capi_prepare_requant_fp(uf_dtype_of(d[3]), 1.0,
                                            uf_int(data[2], uf_dtype_of(d[2])), NULL, NULL,
                                            op->code, &p, &err) ||
            simdops_capi_requant_fp_pc_1d(&p, (const int32_t *)data[0], data[3], n, NULL,
                                          (const float *)data[1], &err))
            return uf_fail(op, &err);
        return 0;
    }
    return uf_param_loop(ctx, data, dims, strides, uf_requant_fp_shape);
}

/* Clears the FP "invalid" flag a NaN compare set: numpy's gufunc call checks the FP status
 * whatever the loop's flags say, and NaN is a value hardmax takes (it wins), not an error.
 * Tested first: glibc's feclearexcept rewrites the x87 environment as well as MXCSR (~100
 * cycles a call), fetestexcept only reads them, and most rows hold no NaN. */
static void uf_clear_invalid(void)
{
    if (fetestexcept(FE_INVALID))
        feclearexcept(FE_INVALID);
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
    npy_intp size = PyDataType_ELSIZE(ctx->descriptors[0]), row = dims[1] * size;
    if (!op)
        return uf_no_op();
    /* C-contiguous rows in x and y (1x16 with out=, a C-order array over its last axis): the
     * row kernel's entry point, without the N-d entry's layout analysis */
    if (strides[2] == size && strides[3] == size &&
        (dims[0] == 1 || (strides[0] == row && strides[1] == row))) {
        if (simdops_capi_hardmax_rows(xt, data[0], data[1], dims[0], dims[1], &err))
            return uf_fail(op, &err);
        uf_clear_invalid();
        return 0;
    }
    uf_vec(&x, data[0], xt, dims[0], strides[0]);
    uf_vec(&y, data[1], xt, dims[0], strides[1]);
    x.ndim = y.ndim = 2;
    x.shape[1] = y.shape[1] = dims[1];
    x.strides[1] = strides[2];
    y.strides[1] = strides[3];
    if (simdops_capi_hardmax(&x, &y, 1, &axis, &err))
        return uf_fail(op, &err);
    uf_clear_invalid();
    return 0;
}

/* The loop of the _floor_* ufuncs (the bench's measure of numpy's own per-call and per-run
 * cost): registered exactly as its op's loops, it computes nothing. */
int uf_floor_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                  const npy_intp *strides, NpyAuxData *aux)
{
    (void)ctx, (void)data, (void)dims, (void)strides, (void)aux;
    return 0;
}

/* The loop of _kernel_floor_requantize_fp32 (the bench's measure of what per channel on NCHW
 * cannot beat): numpy's iteration plus the 1-D kernel over each contiguous run, with a handle
 * this thread prepared once for y's type (scale 1/1000, zero point 0) whatever the parameters,
 * so no parameter is read, looked up or prepared. Its output is not the op's. */
int uf_kernel_floor_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                         const npy_intp *strides, NpyAuxData *aux)
{
    static SIMDOPS_PY_TLS simdops_prepared p;
    static SIMDOPS_PY_TLS simdops_dtype prepared_for; /* SIMDOPS_UNKNOWN: none yet */
    PyArray_Descr *const *d = ctx->descriptors;
    simdops_dtype yt = uf_dtype_of(d[3]);
    simdops_error err;
    (void)aux;
    if (prepared_for != yt) {
        if (simdops_capi_prepare_requant_fp(yt, 1.0 / 1000, 0, NULL, NULL, 0, &p, &err))
            return uf_fail_at(ctx->caller, &err);
        prepared_for = yt;
    }
    if (strides[0] == 4 && strides[3] == PyDataType_ELSIZE(d[3]) &&
        simdops_capi_requant_1d(&p, (const int32_t *)data[0], data[3], dims[0], NULL, &err))
        return uf_fail_at(ctx->caller, &err);
    return 0;
}
