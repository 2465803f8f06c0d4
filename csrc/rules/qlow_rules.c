/* Rules of the low-bit QuantizeLinear / DequantizeLinear, as the ONNX operator
 * text (types per opset) and onnx.reference (arithmetic types, layout) state
 * them. One function, simdops_qlow_check, in the order a call reads them:
 * types, attributes, opsets, shapes. */
#include <string.h>

#include "rules/qlow_rules.h"
#include "core/errors.h"

static int fail(simdops_error *err, int reason, int arg, int64_t value, int64_t expected)
{
    return simdops_fail_value(err, reason, arg, value, expected);
}

static int qkind(int qt) { return qt < 0 ? -1 : simdops_qtype_rows[qt].kind; }

static int float_side(int qt)
{
    return qt == SIMDOPS_QT_f32 ? SIMDOPS_QF_F32 : qt == SIMDOPS_QT_f16 ? SIMDOPS_QF_F16 : SIMDOPS_QF_BF16;
}
static int round_of(int qt) /* the simdops_qround of a float type */
{
    return qt == SIMDOPS_QT_f16 ? SIMDOPS_QR_F16 : qt == SIMDOPS_QT_bf16 ? SIMDOPS_QR_BF16 : SIMDOPS_QR_NONE;
}

/* numpy's (ml_dtypes') result type of x / scale, as a qtype: the same type
 * stays; bfloat16 with float8e8m0 is bfloat16; every other mix is float32 */
static int division_type(int xq, int sq)
{
    if (xq == sq)
        return xq;
    if (xq == SIMDOPS_QT_bf16 && sq == SIMDOPS_QT_e8m0)
        return SIMDOPS_QT_bf16;
    return SIMDOPS_QT_f32;
}

static int64_t numel_of(const int64_t *shape, int ndim)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

static int check_shape(const int64_t *shape, int ndim, int arg, simdops_error *err)
{
    if (ndim < 0 || ndim > 64 || (ndim && !shape))
        return fail(err, SIMDOPS_R_NULL_ARG, arg, ndim, 64);
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0 || shape[i] > ((int64_t)1 << 40))
            return fail(err, SIMDOPS_R_QL_NEGATIVE, SIMDOPS_ARG_SHAPE, shape[i], 0);
    return SIMDOPS_OK;
}

int simdops_qlow_check(const simdops_qdq_call *c, int quantize, simdops_qlow_plan *p,
                       simdops_error *err)
{
    int arg_scale = quantize ? SIMDOPS_ARG_Y_SCALE : SIMDOPS_ARG_X_SCALE;
    int arg_zp = quantize ? SIMDOPS_ARG_Y_ZERO_POINT : SIMDOPS_ARG_X_ZERO_POINT;
    int arg_q = quantize ? SIMDOPS_ARG_OUT_DTYPE : SIMDOPS_ARG_X;
    int xq, sq, yq, zq, q, f, s;
    memset(p, 0, sizeof(*p));
    if (!c)
        return fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_ARGS, 0, 0);
    if (!c->x || !c->scale || !c->y)
        return fail(err, SIMDOPS_R_NULL_ARG, !c->x ? SIMDOPS_ARG_X : !c->scale ? arg_scale : SIMDOPS_ARG_OUT, 0, 0);
    xq = simdops_qtype_of_onnx(c->x_type);
    sq = simdops_qtype_of_onnx(c->scale_type);
    yq = simdops_qtype_of_onnx(c->y_type);
    zq = c->zero_point ? simdops_qtype_of_onnx(c->zero_point_type) : -1;
    q = quantize ? yq : xq;
    f = quantize ? xq : yq;
    /* dequantize's output: float32 / float16 / bfloat16 (the caller names it, or
     * takes the scale's type; a float8e8m0 scale has no float output of its own) */
    if (!quantize && sq == SIMDOPS_QT_e8m0 && c->y_type == c->scale_type)
        return fail(err, SIMDOPS_R_QL_OUTPUT_TYPE, arg_scale, c->scale_type, 0);
    /* the float side: float32 / float16 / bfloat16 (int32 x of QuantizeLinear: not here) */
    if (qkind(f) != QT_FLOAT)
        return fail(err, SIMDOPS_R_QL_ONNX_TYPE, quantize ? SIMDOPS_ARG_X : SIMDOPS_ARG_OUT_DTYPE,
                    quantize ? c->x_type : c->y_type, 0);
    if (qkind(q) != QT_INT && qkind(q) != QT_F8 && qkind(q) != QT_F4)
        return fail(err, SIMDOPS_R_QL_ONNX_TYPE, arg_q, quantize ? c->y_type : c->x_type, 0);
    if (quantize && q == SIMDOPS_QT_i32)
        return fail(err, SIMDOPS_R_QL_ONNX_TYPE, arg_q, c->y_type, 0);
    if (qkind(sq) != QT_FLOAT && qkind(sq) != QT_E8M0)
        return fail(err, SIMDOPS_R_QL_ONNX_TYPE, arg_scale, c->scale_type, 0);
    if (c->zero_point && zq != q && !(qkind(q) == QT_F8 || qkind(q) == QT_F4))
        return fail(err, SIMDOPS_R_QL_ONNX_TYPE, arg_zp, c->zero_point_type, 0);
    if (c->zero_point && zq != q && quantize)
        return fail(err, SIMDOPS_R_QL_ONNX_TYPE, arg_zp, c->zero_point_type, 0);
    if (c->zero_point && zq != q && !quantize && qkind(q) == QT_F8 && qkind(zq) != QT_F8)
        return fail(err, SIMDOPS_R_QL_ONNX_TYPE, arg_zp, c->zero_point_type, 0);
    if (c->packed < 0 || c->packed > 3)
        return fail(err, SIMDOPS_R_QL_PACKED, SIMDOPS_ARG_PACKED, c->packed, 3);
    if (c->saturate != 0 && c->saturate != 1)
        return fail(err, SIMDOPS_R_QL_SATURATE, SIMDOPS_ARG_SATURATE, c->saturate, 1);
    if (c->precision && c->precision != 1 && c->precision != 10 && c->precision != 16)
        return fail(err, SIMDOPS_R_QL_PRECISION, SIMDOPS_ARG_PRECISION, c->precision, 0);
    if (c->block_size < 0)
        return fail(err, SIMDOPS_R_QL_NEGATIVE, SIMDOPS_ARG_BLOCK_SIZE, c->block_size, 0);
    if (c->opset < 0)
        return fail(err, SIMDOPS_R_QL_NEGATIVE, SIMDOPS_ARG_OPSET, c->opset, 0);
    /* the operator text's type constraints per version */
    if (c->opset) {
        const simdops_qtype_row *r = &simdops_qtype_rows[q];
        int first = quantize ? r->q_opset : r->dq_opset;
        if (c->opset < first)
            return fail(err, SIMDOPS_R_QL_OPSET, arg_q, c->opset, first);
        if (f != SIMDOPS_QT_f32 && c->opset < 19)
            return fail(err, SIMDOPS_R_QL_OPSET, quantize ? SIMDOPS_ARG_X : SIMDOPS_ARG_OUT_DTYPE, c->opset, 19);
        if (sq == SIMDOPS_QT_e8m0 && c->opset < 24)
            return fail(err, SIMDOPS_R_QL_OPSET, arg_scale, c->opset, 24);
        /* before 23 the scale has x's type (quantize) / y's type (dequantize) */
        if (sq != f && c->opset < 23)
            return fail(err, SIMDOPS_R_QL_OPSET, arg_scale, c->opset, 23);
        if (c->block_size && c->opset < 21)
            return fail(err, SIMDOPS_R_QL_OPSET, SIMDOPS_ARG_BLOCK_SIZE, c->opset, 21);
        if (c->precision && c->opset < 23)
            return fail(err, SIMDOPS_R_QL_OPSET, SIMDOPS_ARG_PRECISION, c->opset, 23);
        if (!c->saturate && c->opset < 19)
            return fail(err, SIMDOPS_R_QL_OPSET, SIMDOPS_ARG_SATURATE, c->opset, 19);
    }
    if ((s = check_shape(c->shape, c->ndim, SIMDOPS_ARG_SHAPE, err)) ||
        (s = check_shape(c->scale_shape, c->scale_ndim, arg_scale, err)))
        return s;
    if (c->zero_point && (s = check_shape(c->zero_point_shape, c->zero_point_ndim, arg_zp, err)))
        return s;
    p->quantize = quantize;
    p->qt = q;
    p->ft = float_side(f);
    p->scale_qt = sq;
    p->zp_qt = zq;
    p->numel = numel_of(c->shape, c->ndim);
    /* layout: onnx.reference's reshape_input */
    {
        int64_t sn = numel_of(c->scale_shape, c->scale_ndim);
        if (c->zero_point) {
            int64_t zn = numel_of(c->zero_point_shape, c->zero_point_ndim);
            int same = zn == sn && c->zero_point_ndim == c->scale_ndim;
            for (int i = 0; same && i < c->scale_ndim; i++)
                same = c->zero_point_shape[i] == c->scale_shape[i];
            if (!same && !(zn == 1 && sn == 1))
                return fail(err, SIMDOPS_R_QL_ZERO_POINT_SHAPE, arg_zp, zn, sn);
        }
        if (c->scale_ndim == 0 || sn == 1) { /* per tensor (block_size or not) */
            p->outer = p->inner = 1;
            p->dim = p->block = p->numel;
            p->nblocks = 1;
        } else {
            int64_t a = c->axis < 0 ? c->axis + c->ndim : c->axis;
            if (a < 0 || a >= c->ndim)
                return fail(err, SIMDOPS_R_AXIS_RANGE, SIMDOPS_ARG_AXIS, c->axis, c->ndim);
            p->outer = numel_of(c->shape, (int)a);
            p->dim = c->shape[a];
            p->inner = numel_of(c->shape + a + 1, c->ndim - (int)a - 1);
            if (!c->block_size) {
                if (c->scale_ndim != 1 || sn != p->dim)
                    return fail(err, SIMDOPS_R_QL_SCALE_SHAPE, arg_scale,
                                c->scale_ndim != 1 ? c->scale_ndim : sn, p->dim);
                /* per axis: scale (d) for element (m, d, k) */
                p->block = 1;
                p->nblocks = p->dim;
                p->outer = 1; /* handled as [outer, dim, inner] with a 1-D scale: see api_qlow.c */
                p->outer = numel_of(c->shape, (int)a);
            } else {
                int64_t nb = (p->dim + c->block_size - 1) / c->block_size;
                if (c->scale_ndim != c->ndim)
                    return fail(err, SIMDOPS_R_QL_BLOCK_SHAPE, arg_scale, c->scale_ndim, c->ndim);
                for (int i = 0; i < c->ndim; i++) {
                    int64_t want = i == a ? nb : c->shape[i];
                    if (c->scale_shape[i] != want) {
                        simdops_fail_value(err, SIMDOPS_R_QL_BLOCK_SHAPE, arg_scale,
                                           c->scale_shape[i], want);
                        err->index = i;
                        return err->status;
                    }
                }
                p->block = c->block_size;
                p->nblocks = nb;
            }
        }
    }
    /* arithmetic */
    p->params.saturate = c->saturate;
    p->params.has_zp = c->zero_point != NULL;
    p->use_zp = c->zero_point && qkind(q) == QT_INT;
    if (quantize) {
        int dt = c->precision ? simdops_qtype_of_onnx(c->precision) : division_type(xq, sq);
        p->params.div = round_of(dt);
        /* x.astype(precision): a rounding only when precision is narrower than x */
        p->params.pre = c->precision && dt != xq && dt != SIMDOPS_QT_f32 ? round_of(dt) : SIMDOPS_QR_NONE;
        p->scale_round = c->precision ? round_of(dt) : SIMDOPS_QR_NONE;
        if (qkind(q) == QT_F4)
            p->use_zp = c->zero_point != NULL;
    } else {
        p->params.div = p->params.pre = SIMDOPS_QR_NONE;
    }
    return SIMDOPS_OK;
}
