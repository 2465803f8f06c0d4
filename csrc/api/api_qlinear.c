/* N-d entry points of ONNX QuantizeLinear and DequantizeLinear: check the
 * views, read the scale and zero point (per tensor, or one per index of
 * `axis`), then run the elementwise driver once per channel with that
 * channel's parameters (a sub-view of x and y with the axis fixed). */
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/fp16.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "driver/strided.h"
#include "rules/checks.h"

typedef struct qlinear_ctx {
    simdops_qlinear_fn kernel;
    simdops_qlinear_params params;
} qlinear_ctx;

static void qlinear_row(const void *x, void *y, size_t n, size_t k0, const void *ctx)
{
    const qlinear_ctx *c = (const qlinear_ctx *)ctx;
    (void)k0;
    c->kernel(x, y, n, &c->params);
}

/* The scale / zero-point layout: *channels = 0 per tensor, else the extent of
 * x on *axis (normalised). Both views are checked before anything reads them
 * (a NULL scale, or one with ndim = INT_MAX, is a status, not a crash). */
static int qlinear_layout(const simdops_tensor *x, const simdops_tensor *scale,
                          const simdops_tensor *zp, int64_t axis, int scale_arg, int zp_arg,
                          int64_t *channels, int *ax, simdops_error *err)
{
    int64_t n;
    int s;
    *channels = 0;
    *ax = 0;
    if ((s = simdops_check_tensor(scale, scale_arg, err)))
        return s;
    if (scale->dtype != SIMDOPS_FLOAT32 && scale->dtype != SIMDOPS_FLOAT16)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, scale_arg, scale->dtype,
                                  SIMDOPS_FLOAT32);
    if (zp && (s = simdops_check_tensor(zp, zp_arg, err)))
        return s;
    n = simdops_numel(scale);
    if (scale->ndim > 1 || (zp && (zp->ndim > 1 || simdops_numel(zp) != n)))
        return simdops_fail_value(err, SIMDOPS_R_QL_SCALE_SHAPE,
                                  scale->ndim > 1 ? scale_arg : zp_arg,
                                  scale->ndim > 1 ? scale->ndim : zp->ndim, n);
    if (scale->ndim == 0 || n == 1)
        return SIMDOPS_OK;
    {
        int64_t a = axis < 0 ? axis + x->ndim : axis;
        if (a < 0 || a >= x->ndim)
            return simdops_fail_value(err, SIMDOPS_R_AXIS_RANGE, SIMDOPS_ARG_AXIS, axis, x->ndim);
        if (n != x->shape[a])
            return simdops_fail_value(err, SIMDOPS_R_QL_SCALE_SHAPE, scale_arg, n, x->shape[a]);
        *ax = (int)a;
        *channels = n;
    }
    return SIMDOPS_OK;
}

static const char *element_at(const simdops_tensor *t, int64_t i)
{
    return (const char *)t->data + (t->ndim ? i * t->strides[0] : 0);
}

static float scale_at(const simdops_tensor *scale, int64_t i)
{
    const char *e = element_at(scale, i);
    if (scale->dtype == SIMDOPS_FLOAT16) {
        uint16_t h;
        memcpy(&h, e, 2);
        return simdops_f16_to_f32(h);
    }
    {
        float f;
        memcpy(&f, e, 4);
        return f;
    }
}

static int32_t zero_point_at(const simdops_tensor *zp, int64_t i)
{
    const char *e;
    if (!zp)
        return 0;
    e = element_at(zp, i);
    switch (zp->dtype) {
    case SIMDOPS_UINT8: return *(const uint8_t *)e;
    case SIMDOPS_INT8: return *(const int8_t *)e;
    case SIMDOPS_UINT16: { uint16_t v; memcpy(&v, e, 2); return v; }
    case SIMDOPS_INT16: { int16_t v; memcpy(&v, e, 2); return v; }
    default: { int32_t v; memcpy(&v, e, 4); return v; }
    }
}

typedef struct qlinear_args {
    simdops_tensor scale, zp;
    int has_zp; /* 0: no zero point (0) */
    simdops_dtype int_dtype;
} qlinear_args;

/* Runs c over x/y, per tensor or once per channel of axis ax. set_channel
 * fills c->params for channel i from a. */
typedef void (*channel_fn)(qlinear_ctx *c, int64_t i, const qlinear_args *a);

static void run_channels(const simdops_tensor *xin, const simdops_tensor *y, int64_t channels,
                         int ax, qlinear_ctx *c, channel_fn set_channel, const qlinear_args *a)
{
    simdops_tensor xs, ys;
    if (!channels) {
        set_channel(c, 0, a);
        simdops_elementwise(xin, y, 0, qlinear_row, c);
        return;
    }
    /* sub-views without axis ax */
    xs = *xin;
    ys = *y;
    xs.ndim = ys.ndim = xin->ndim - 1;
    for (int d = ax; d < xs.ndim; d++) {
        xs.shape[d] = xin->shape[d + 1];
        xs.strides[d] = xin->strides[d + 1];
        ys.shape[d] = y->shape[d + 1];
        ys.strides[d] = y->strides[d + 1];
    }
    for (int64_t i = 0; i < channels; i++) {
        xs.data = (char *)xin->data + i * xin->strides[ax];
        ys.data = (char *)y->data + i * y->strides[ax];
        set_channel(c, i, a);
        simdops_elementwise(&xs, &ys, 0, qlinear_row, c);
    }
}

/* The checked call's run: nothing to do for an empty x (however many channels
 * its other axes have); x, the scale and the zero point are read from copies
 * where they overlap y (semantics.md: as if the inputs were copied first). */
static int qlinear_run(const simdops_tensor *x, const simdops_tensor *y,
                       const simdops_tensor *scale, const simdops_tensor *zp, int scale_arg,
                       int zp_arg, int64_t channels, int ax, qlinear_ctx *c,
                       channel_fn set_channel, simdops_dtype int_dtype, simdops_error *err)
{
    simdops_tensor xin;
    qlinear_args a;
    void *xtmp = NULL, *stmp = NULL, *ztmp = NULL;
    int s;
    if (simdops_numel(x) == 0)
        return SIMDOPS_OK;
    memset(&a, 0, sizeof(a));
    a.int_dtype = int_dtype;
    a.has_zp = zp != NULL;
    if (!(s = simdops_param_view(scale, y, scale_arg, &a.scale, &stmp, err)) &&
        !(s = simdops_param_view(zp, y, zp_arg, &a.zp, &ztmp, err)) &&
        !(s = simdops_input_view(x, y, &xin, &xtmp, err)))
        run_channels(&xin, y, channels, ax, c, set_channel, &a);
    free(xtmp);
    free(stmp);
    free(ztmp);
    return s;
}

static void set_quantize_channel(qlinear_ctx *c, int64_t i, const qlinear_args *a)
{
    const simdops_dtype_row *r = &simdops_dtype_rows[a->int_dtype];
    int32_t zp = zero_point_at(a->has_zp ? &a->zp : NULL, i);
    c->params.scale = scale_at(&a->scale, i);
    c->params.zero_point = zp;
    /* integers up to 2^17 in magnitude: exact in float32 */
    c->params.qlo = (float)(r->lo - zp);
    c->params.qhi = (float)(r->hi - zp);
}

static void set_dequantize_channel(qlinear_ctx *c, int64_t i, const qlinear_args *a)
{
    c->params.scale = scale_at(&a->scale, i);
    c->params.zero_point = zero_point_at(a->has_zp ? &a->zp : NULL, i);
}

/* Errors name the scale and zero point as ONNX does: y_scale / y_zero_point
 * for QuantizeLinear, x_scale / x_zero_point for DequantizeLinear. */
int simdops_quantize_linear(const simdops_tensor *x, const simdops_tensor *scale,
                            const simdops_tensor *zero_point, int64_t axis,
                            const simdops_tensor *y, simdops_error *err)
{
    simdops_error scratch;
    const simdops_kernel_table *kt;
    qlinear_ctx c;
    int64_t channels;
    int ax, s;
    SIMDOPS_ERROR_BEGIN(err, scratch, SIMDOPS_OP_QUANTIZE_LINEAR);
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)))
        return s;
    if (x->dtype != SIMDOPS_FLOAT32 && x->dtype != SIMDOPS_FLOAT16)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_X, x->dtype,
                                  SIMDOPS_FLOAT32);
    /* the zero point before out: its type is the output type (a caller that
     * makes out from it should hear about the zero point, not out) */
    if (zero_point) {
        if ((s = simdops_check_tensor(zero_point, SIMDOPS_ARG_Y_ZERO_POINT, err)))
            return s;
        if (!simdops_op_supports(SIMDOPS_OP_QUANTIZE_LINEAR, zero_point->dtype))
            return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_UNSUPPORTED, SIMDOPS_ARG_Y_ZERO_POINT,
                                      zero_point->dtype, 0);
    }
    if ((s = simdops_check_tensor(y, SIMDOPS_ARG_OUT, err)))
        return s;
    if (!simdops_op_supports(SIMDOPS_OP_QUANTIZE_LINEAR, y->dtype))
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_UNSUPPORTED, SIMDOPS_ARG_OUT, y->dtype, 0);
    if ((s = simdops_check_output(x, y, y->dtype, err)) ||
        (s = qlinear_layout(x, scale, zero_point, axis, SIMDOPS_ARG_Y_SCALE,
                            SIMDOPS_ARG_Y_ZERO_POINT, &channels, &ax, err)))
        return s;
    if (zero_point && zero_point->dtype != y->dtype)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_Y_ZERO_POINT,
                                  zero_point->dtype, y->dtype);
    kt = simdops_current_kernels();
    memset(&c, 0, sizeof(c));
    c.kernel = x->dtype == SIMDOPS_FLOAT16 ? kt->quantize_f16[y->dtype] : kt->quantize_f32[y->dtype];
    /* numpy divides float16 by float16 in float16, anything with float32 in float32 */
    c.params.div_f16 = x->dtype == SIMDOPS_FLOAT16 && scale->dtype == SIMDOPS_FLOAT16;
    return qlinear_run(x, y, scale, zero_point, SIMDOPS_ARG_Y_SCALE, SIMDOPS_ARG_Y_ZERO_POINT,
                       channels, ax, &c, set_quantize_channel, y->dtype, err);
}

int simdops_dequantize_linear(const simdops_tensor *x, const simdops_tensor *scale,
                              const simdops_tensor *zero_point, int64_t axis,
                              const simdops_tensor *y, simdops_error *err)
{
    simdops_error scratch;
    const simdops_kernel_table *kt;
    qlinear_ctx c;
    int64_t channels;
    int ax, s;
    SIMDOPS_ERROR_BEGIN(err, scratch, SIMDOPS_OP_DEQUANTIZE_LINEAR);
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)))
        return s;
    if (!simdops_op_supports(SIMDOPS_OP_DEQUANTIZE_LINEAR, x->dtype))
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_UNSUPPORTED, SIMDOPS_ARG_X, x->dtype, 0);
    if ((s = simdops_check_tensor(y, SIMDOPS_ARG_OUT, err)))
        return s;
    if (y->dtype != SIMDOPS_FLOAT32 && y->dtype != SIMDOPS_FLOAT16)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_OUT, y->dtype,
                                  SIMDOPS_FLOAT32);
    if ((s = simdops_check_output(x, y, y->dtype, err)) ||
        (s = qlinear_layout(x, scale, zero_point, axis, SIMDOPS_ARG_X_SCALE,
                            SIMDOPS_ARG_X_ZERO_POINT, &channels, &ax, err)))
        return s;
    if (zero_point && zero_point->dtype != x->dtype)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_X_ZERO_POINT,
                                  zero_point->dtype, x->dtype);
    if (zero_point && x->dtype == SIMDOPS_INT32) {
        /* a zero-stride (broadcast) zero point has one value, however long */
        int64_t n = simdops_numel(zero_point);
        if (zero_point->ndim && zero_point->strides[0] == 0 && n > 1)
            n = 1;
        for (int64_t i = 0; i < n; i++) {
            int32_t v = zero_point_at(zero_point, i);
            if (v) {
                simdops_fail_value(err, SIMDOPS_R_QL_ZERO_POINT_INT32, SIMDOPS_ARG_X_ZERO_POINT,
                                   v, 0);
                err->index = zero_point->ndim ? i : -1;
                return err->status;
            }
        }
    }
    kt = simdops_current_kernels();
    memset(&c, 0, sizeof(c));
    c.kernel = y->dtype == SIMDOPS_FLOAT16 ? kt->dequantize_f16[x->dtype] : kt->dequantize_f32[x->dtype];
    return qlinear_run(x, y, scale, zero_point, SIMDOPS_ARG_X_SCALE, SIMDOPS_ARG_X_ZERO_POINT,
                       channels, ax, &c, set_dequantize_channel, x->dtype, err);
}
