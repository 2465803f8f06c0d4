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
 * x on *axis (normalised). */
static int qlinear_layout(const simdops_tensor *x, const simdops_tensor *scale,
                          const simdops_tensor *zp, int64_t axis, int64_t *channels, int *ax,
                          simdops_error *err)
{
    int64_t n = simdops_numel(scale);
    int s;
    *channels = 0;
    *ax = 0;
    if ((s = simdops_check_tensor(scale, SIMDOPS_ARG_SCALE, err)))
        return s;
    if (scale->dtype != SIMDOPS_FLOAT32 && scale->dtype != SIMDOPS_FLOAT16)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_SCALE, scale->dtype,
                                  SIMDOPS_FLOAT32);
    if (zp && (s = simdops_check_tensor(zp, SIMDOPS_ARG_ZERO_POINT, err)))
        return s;
    if (scale->ndim > 1 || (zp && (zp->ndim > 1 || simdops_numel(zp) != n)))
        return simdops_fail_value(err, SIMDOPS_R_QL_SCALE_SHAPE,
                                  scale->ndim > 1 ? SIMDOPS_ARG_SCALE : SIMDOPS_ARG_ZERO_POINT,
                                  scale->ndim > 1 ? scale->ndim : zp->ndim, n);
    if (scale->ndim == 0 || n == 1)
        return SIMDOPS_OK;
    {
        int64_t a = axis < 0 ? axis + x->ndim : axis;
        if (a < 0 || a >= x->ndim)
            return simdops_fail_value(err, SIMDOPS_R_AXIS_RANGE, SIMDOPS_ARG_AXIS, axis, x->ndim);
        if (n != x->shape[a])
            return simdops_fail_value(err, SIMDOPS_R_QL_SCALE_SHAPE, SIMDOPS_ARG_SCALE, n,
                                      x->shape[a]);
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

/* Runs c over x/y, per tensor or once per channel of axis ax. set_channel
 * fills c->params for channel i. */
typedef void (*channel_fn)(qlinear_ctx *c, int64_t i, const void *arg);

static int run_channels(const simdops_tensor *x, const simdops_tensor *y, int64_t channels,
                        int ax, qlinear_ctx *c, channel_fn set_channel, const void *arg,
                        simdops_error *err)
{
    simdops_tensor xin, xs, ys;
    void *tmp;
    int s = simdops_input_view(x, y, &xin, &tmp, err);
    if (s)
        return s;
    if (!channels) {
        set_channel(c, 0, arg);
        simdops_elementwise(&xin, y, 0, qlinear_row, c);
        free(tmp);
        return SIMDOPS_OK;
    }
    /* sub-views without axis ax */
    xs = xin;
    ys = *y;
    xs.ndim = ys.ndim = xin.ndim - 1;
    for (int d = ax; d < xs.ndim; d++) {
        xs.shape[d] = xin.shape[d + 1];
        xs.strides[d] = xin.strides[d + 1];
        ys.shape[d] = y->shape[d + 1];
        ys.strides[d] = y->strides[d + 1];
    }
    for (int64_t i = 0; i < channels; i++) {
        xs.data = (char *)xin.data + i * xin.strides[ax];
        ys.data = (char *)y->data + i * y->strides[ax];
        set_channel(c, i, arg);
        simdops_elementwise(&xs, &ys, 0, qlinear_row, c);
    }
    free(tmp);
    return SIMDOPS_OK;
}

typedef struct qlinear_args {
    const simdops_tensor *scale, *zp;
    simdops_dtype int_dtype;
} qlinear_args;

static void set_quantize_channel(qlinear_ctx *c, int64_t i, const void *argv)
{
    const qlinear_args *a = (const qlinear_args *)argv;
    const simdops_dtype_row *r = &simdops_dtype_rows[a->int_dtype];
    int32_t zp = zero_point_at(a->zp, i);
    c->params.scale = scale_at(a->scale, i);
    c->params.zero_point = zp;
    /* integers up to 2^17 in magnitude: exact in float32 */
    c->params.qlo = (float)(r->lo - zp);
    c->params.qhi = (float)(r->hi - zp);
}

static void set_dequantize_channel(qlinear_ctx *c, int64_t i, const void *argv)
{
    const qlinear_args *a = (const qlinear_args *)argv;
    c->params.scale = scale_at(a->scale, i);
    c->params.zero_point = zero_point_at(a->zp, i);
}

int simdops_quantize_linear(const simdops_tensor *x, const simdops_tensor *scale,
                            const simdops_tensor *zero_point, int64_t axis,
                            const simdops_tensor *y, simdops_error *err)
{
    simdops_error scratch;
    const simdops_kernel_table *kt;
    qlinear_ctx c;
    qlinear_args a;
    int64_t channels;
    int ax, s;
    SIMDOPS_ERROR_BEGIN(err, scratch, SIMDOPS_OP_QUANTIZE_LINEAR);
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)))
        return s;
    if (x->dtype != SIMDOPS_FLOAT32 && x->dtype != SIMDOPS_FLOAT16)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_X, x->dtype,
                                  SIMDOPS_FLOAT32);
    if ((s = simdops_check_tensor(y, SIMDOPS_ARG_OUT, err)))
        return s;
    if (!simdops_op_supports(SIMDOPS_OP_QUANTIZE_LINEAR, y->dtype))
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_UNSUPPORTED, SIMDOPS_ARG_OUT, y->dtype, 0);
    if ((s = simdops_check_output(x, y, y->dtype, err)) ||
        (s = qlinear_layout(x, scale, zero_point, axis, &channels, &ax, err)))
        return s;
    if (zero_point && zero_point->dtype != y->dtype)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_ZERO_POINT,
                                  zero_point->dtype, y->dtype);
    kt = simdops_current_kernels();
    memset(&c, 0, sizeof(c));
    c.kernel = x->dtype == SIMDOPS_FLOAT16 ? kt->quantize_f16[y->dtype] : kt->quantize_f32[y->dtype];
    /* numpy divides float16 by float16 in float16, anything with float32 in float32 */
    c.params.div_f16 = x->dtype == SIMDOPS_FLOAT16 && scale->dtype == SIMDOPS_FLOAT16;
    a.scale = scale;
    a.zp = zero_point;
    a.int_dtype = y->dtype;
    return run_channels(x, y, channels, ax, &c, set_quantize_channel, &a, err);
}

int simdops_dequantize_linear(const simdops_tensor *x, const simdops_tensor *scale,
                              const simdops_tensor *zero_point, int64_t axis,
                              const simdops_tensor *y, simdops_error *err)
{
    simdops_error scratch;
    const simdops_kernel_table *kt;
    qlinear_ctx c;
    qlinear_args a;
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
        (s = qlinear_layout(x, scale, zero_point, axis, &channels, &ax, err)))
        return s;
    if (zero_point && zero_point->dtype != x->dtype)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_ZERO_POINT,
                                  zero_point->dtype, x->dtype);
    if (zero_point && x->dtype == SIMDOPS_INT32) {
        int64_t n = simdops_numel(zero_point);
        for (int64_t i = 0; i < n; i++) {
            int32_t v = zero_point_at(zero_point, i);
            if (v) {
                simdops_fail_value(err, SIMDOPS_R_QL_ZERO_POINT_INT32, SIMDOPS_ARG_ZERO_POINT, v, 0);
                err->index = zero_point->ndim ? i : -1;
                return err->status;
            }
        }
    }
    kt = simdops_current_kernels();
    memset(&c, 0, sizeof(c));
    c.kernel = y->dtype == SIMDOPS_FLOAT16 ? kt->dequantize_f16[x->dtype] : kt->dequantize_f32[x->dtype];
    a.scale = scale;
    a.zp = zero_point;
    a.int_dtype = x->dtype;
    return run_channels(x, y, channels, ax, &c, set_dequantize_channel, &a, err);
}
