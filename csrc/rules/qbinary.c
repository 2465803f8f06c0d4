/* The quantized binary ops' rules and each runtime's parameter derivation
 * (simdops_prepare_qbinary): scales read as the model stores them (float32,
 * positive, finite), zero points and bounds in the dtype's range, and the
 * integer / float parameters each runtime computes from them at prepare time,
 * in its own arithmetic (double for TFLite's ADD/SUB multipliers, float32 for
 * its MUL scale and for XNNPACK's and ONNX Runtime's ratios). */
#include <math.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "kernels/qbinary/qbinary_plan.h"
#include "rules/params.h"
#include "rules/qbinary.h"
#include "rules/rules.h"

static int fail_real(simdops_error *err, int reason, int arg, double v, int64_t value,
                     int64_t expected)
{
    simdops_fail_value(err, reason, arg, value, expected);
    err->fvalue = v;
    err->value = value;
    return err->status;
}

/* A scale: float32 (rounded once), positive and finite; normal where required. */
static int read_scale(simdops_number v, int arg, int normal, float *out, simdops_error *err)
{
    int s;
    if ((s = simdops_f32_attribute(v, arg, 0, out, err)))
        return s;
    if (!(*out > 0.0f) || isinf(*out) || (normal && !isnormal(*out)))
        return fail_real(err, SIMDOPS_R_QB_SCALE, arg, (double)*out, 0, 0);
    return SIMDOPS_OK;
}

/* TFLite's QuantizeMultiplier (quantization_util.cc, without single rounding):
 * frexp, the fraction times 2^31 rounded half away from zero, 2^31
 * renormalised, shifts below -31 flushed to a zero multiplier. m finite, >= 0. */
void simdops_tflite_quantize_multiplier(double m, int32_t *q, int *shift)
{
    int e = 0;
    double f;
    int64_t qf;
    if (m == 0.0) {
        *q = 0;
        *shift = 0;
        return;
    }
    f = frexp(m, &e);
    qf = (int64_t)round(f * 2147483648.0);
    if (qf == ((int64_t)1 << 31)) {
        qf /= 2;
        e++;
    }
    if (e < -31) {
        e = 0;
        qf = 0;
    }
    *q = (int32_t)qf;
    *shift = e;
}

/* QuantizeMultiplierSmallerThanOneExp: m in (0, 1) and a shift <= 0 (TFLite
 * aborts otherwise; here a refusal naming arg). *right = -shift. */
static int tflite_smaller_than_one(double m, int arg, int32_t *q, int32_t *right,
                                   simdops_error *err)
{
    int shift;
    if (!(m > 0.0 && m < 1.0))
        return fail_real(err, SIMDOPS_R_QB_MULTIPLIER_RANGE, arg, m, 0, 0);
    simdops_tflite_quantize_multiplier(m, q, &shift);
    if (shift > 0)
        return fail_real(err, SIMDOPS_R_QB_MULTIPLIER_RANGE, arg, m, 0, 0);
    *right = -shift;
    return SIMDOPS_OK;
}

/* Round half to even of a value below 2^30 in magnitude (no rounding mode). */
static int32_t rne_small(double v)
{
    double r = floor(v), d = v - r;
    if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0.0))
        r += 1.0;
    return (int32_t)r;
}

static int tflite_add(const float s[3], const int64_t zp[3], int sub, simdops_dtype dtype,
                      simdops_qbinary_params *p, simdops_error *err)
{
    /* add.cc / sub.cc Prepare: the scales are float; 2 * max is a float,
     * the divisions are double; (1 << left_shift) * y_scale is a float product */
    float twice_max = 2.0f * (s[0] > s[1] ? s[0] : s[1]);
    float shifted_y;
    int s_;
    p->kind = SIMDOPS_QB_TFLITE_ADD;
    p->left_shift = dtype == SIMDOPS_INT16 ? 15 : 20;
    shifted_y = (float)(1 << p->left_shift) * s[2];
    if (isinf(twice_max) || isinf(shifted_y))
        return fail_real(err, SIMDOPS_R_QB_MULTIPLIER_RANGE,
                         isinf(twice_max) ? SIMDOPS_ARG_A_SCALE : SIMDOPS_ARG_Y_SCALE,
                         INFINITY, 0, 0);
    if ((s_ = tflite_smaller_than_one((double)s[0] / (double)twice_max, SIMDOPS_ARG_A_SCALE,
                                      &p->a_mult, &p->a_shift, err)) ||
        (s_ = tflite_smaller_than_one((double)s[1] / (double)twice_max, SIMDOPS_ARG_B_SCALE,
                                      &p->b_mult, &p->b_shift, err)) ||
        (s_ = tflite_smaller_than_one((double)twice_max / (double)shifted_y, SIMDOPS_ARG_Y_SCALE,
                                      &p->y_mult, &p->y_shift, err)))
        return s_;
    if (sub)
        p->b_mult = -p->b_mult; /* sub.cc: input2_multiplier *= -1 */
    p->a_offset = (int32_t)-zp[0];
    p->b_offset = (int32_t)-zp[1];
    p->y_offset = (int32_t)zp[2];
    return SIMDOPS_OK;
}

static int tflite_mul(const float s[3], const int64_t zp[3], simdops_dtype dtype,
                      simdops_qbinary_params *p, simdops_error *err)
{
    /* mul.cc Prepare: input1 scale * input2 scale / output scale in float, then
     * QuantizeMultiplier of that double */
    float real = s[0] * s[1] / s[2];
    int shift;
    p->kind = SIMDOPS_QB_TFLITE_MUL;
    if (dtype == SIMDOPS_INT16)
        for (int k = 0; k < 3; k++)
            if (zp[k])
                return simdops_fail_value(err, SIMDOPS_R_QB_INT16_ZERO_POINT,
                                          k == 0 ? SIMDOPS_ARG_A_ZERO_POINT
                                                 : k == 1 ? SIMDOPS_ARG_B_ZERO_POINT
                                                          : SIMDOPS_ARG_Y_ZERO_POINT,
                                          zp[k], 0);
    if (isinf(real))
        return fail_real(err, SIMDOPS_R_QB_MULTIPLIER_RANGE, SIMDOPS_ARG_Y_SCALE, real, 0, 0);
    simdops_tflite_quantize_multiplier((double)real, &p->y_mult, &shift);
    /* the kernel shifts the int32 product left by the positive part: past 30 bits
     * that is undefined in TFLite's C++ */
    if (shift > 30)
        return fail_real(err, SIMDOPS_R_QB_MULTIPLIER_RANGE, SIMDOPS_ARG_Y_SCALE, real, 0, 0);
    p->left_shift = shift > 0 ? shift : 0;
    p->y_shift = shift > 0 ? 0 : -shift;
    p->a_offset = (int32_t)-zp[0];
    p->b_offset = (int32_t)-zp[1];
    p->y_offset = (int32_t)zp[2];
    return SIMDOPS_OK;
}

/* ratio within XNNPACK's asserted range [2^lo, 2^hi) */
static int ratio_in(float r, int arg, int lo, int hi, simdops_error *err)
{
    float a = fabsf(r);
    if (!(a >= ldexpf(1.0f, lo) && a < ldexpf(1.0f, hi)))
        return fail_real(err, SIMDOPS_R_QB_RATIO_RANGE, arg, (double)r, lo, hi);
    return SIMDOPS_OK;
}

static int xnnpack_add(const float s[3], const int64_t zp[3], int sub, simdops_qbinary_params *p,
                       simdops_error *err)
{
    /* xnn_init_qs8_add_minmax_scalar_params (qu8 alike); subtract runs the add
     * kernel with b's scale negated (binary-elementwise-nd.c) */
    float ra = s[0] / s[2];
    float rb = (sub ? -s[1] : s[1]) / s[2];
    float abs_a = fabsf(ra), abs_b = fabsf(rb), mx;
    uint32_t bits;
    int exponent, st;
    int32_t ma, mb;
    p->kind = SIMDOPS_QB_XNNPACK_ADD;
    if ((st = ratio_in(ra, SIMDOPS_ARG_A_SCALE, -10, 8, err)) ||
        (st = ratio_in(rb, SIMDOPS_ARG_B_SCALE, -10, 8, err)))
        return st;
    mx = abs_a > abs_b ? abs_a : abs_b;
    memcpy(&bits, &mx, 4);
    exponent = (int)(bits >> 23) - 127;
    p->shift = 20 - exponent; /* [13, 30] */
    /* scale * 2^shift by exponent arithmetic (exact), then lrintf: half to even */
    ma = rne_small(ldexp((double)abs_a, p->shift));
    mb = rne_small(ldexp((double)abs_b, p->shift));
    p->a_mult = signbit(ra) ? -ma : ma;
    p->b_mult = signbit(rb) ? -mb : mb;
    p->bias = (int32_t)(((int64_t)1 << (p->shift - 1)) - (int64_t)p->a_mult * zp[0] -
                        (int64_t)p->b_mult * zp[1]);
    p->y_offset = (int32_t)zp[2];
    p->a_offset = (int32_t)zp[0];
    p->b_offset = (int32_t)zp[1];
    return SIMDOPS_OK;
}

static int fp_mul(const float s[3], const int64_t zp[3], int xnnpack, simdops_qbinary_params *p,
                  simdops_error *err)
{
    /* XNNPACK: product_scale = a * b, then / output (float32); ONNX Runtime's
     * ScaleA * ScaleB / ScaleC is the same two roundings. XNNPACK adds the output
     * zero point after rounding, ONNX Runtime before (in float). */
    float scale = s[0] * s[1] / s[2];
    int st;
    p->kind = SIMDOPS_QB_FP_MUL;
    if (xnnpack && (st = ratio_in(scale, SIMDOPS_ARG_Y_SCALE, -16, 8, err)))
        return st;
    p->scale = scale;
    p->a_offset = (int32_t)zp[0];
    p->b_offset = (int32_t)zp[1];
    if (xnnpack) {
        p->y_offset = (int32_t)zp[2];
    } else {
        /* MLAS qlmul: the zero point is added to the float product before the
         * conversion (measured: ties of the product go to even on the total) */
        p->y_offset_f = (float)zp[2];
        p->ort = 1;
    }
    return SIMDOPS_OK;
}

static void ort_add(const float s[3], const int64_t zp[3], simdops_qbinary_params *p)
{
    /* MLAS qladd: ScaleRatio_AC = ScaleA / ScaleC, ScaleRatio_BC likewise;
     * FixedPart = (float)ZeroPointC - (ScaleRatio_AC * ZeroPointA + ScaleRatio_BC *
     * ZeroPointB) in float32, where the released x86-64 build (GCC, the AVX2+FMA
     * unit) contracts the first product and the sum into one fused multiply-add:
     * measured against onnxruntime 1.32 (uint8, 40 parameter sets where the two
     * contractions differ: this one 0 differences over 65,536 input pairs each,
     * the other 20, no contraction 8). */
    float ra = s[0] / s[2], rb = s[1] / s[2];
    float tb = rb * (float)zp[1];
    float sum = fmaf(ra, (float)zp[0], tb);
    p->kind = SIMDOPS_QB_ORT_ADD;
    p->ratio_a = ra;
    p->ratio_b = rb;
    p->fixed = (float)zp[2] - sum;
    p->a_offset = (int32_t)zp[0];
    p->b_offset = (int32_t)zp[1];
    p->y_offset = (int32_t)zp[2];
}

int simdops_qbinary_params_init(simdops_dtype dtype, const simdops_qbinary_args *args,
                                simdops_qbinary_params *p, simdops_error *err)
{
    static const int scale_arg[3] = {SIMDOPS_ARG_A_SCALE, SIMDOPS_ARG_B_SCALE, SIMDOPS_ARG_Y_SCALE};
    static const int zp_arg[3] = {SIMDOPS_ARG_A_ZERO_POINT, SIMDOPS_ARG_B_ZERO_POINT,
                                  SIMDOPS_ARG_Y_ZERO_POINT};
    const simdops_dtype_row *row;
    float s[3];
    int64_t zp[3], lo, hi;
    int st, op, arith, xnn;
    memset(p, 0, sizeof(*p));
    if (!args)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_ARGS);
    op = args->op;
    arith = args->arithmetic;
    if (op != SIMDOPS_OP_QUANTIZED_ADD && op != SIMDOPS_OP_QUANTIZED_SUBTRACT &&
        op != SIMDOPS_OP_QUANTIZED_MULTIPLY)
        return simdops_fail_value(err, SIMDOPS_R_QB_OP, SIMDOPS_ARG_OP, op, 0);
    err->op = op;
    if (arith < 0 || arith >= SIMDOPS_ARITH_COUNT)
        return simdops_fail_value(err, SIMDOPS_R_QB_ARITHMETIC, SIMDOPS_ARG_ARITHMETIC, arith, 0);
    if ((st = simdops_check_op_dtype(op, dtype, SIMDOPS_ARG_A, err)))
        return st;
    if (arith != SIMDOPS_ARITH_TFLITE && !simdops_op_supports(SIMDOPS_OP_QBINARY_8BIT, dtype)) {
        simdops_fail_dtype(err, SIMDOPS_R_QB_DTYPE_ARITHMETIC, SIMDOPS_ARG_A, dtype, 0);
        err->value = arith;
        return err->status;
    }
    if (arith == SIMDOPS_ARITH_ONNXRUNTIME && op == SIMDOPS_OP_QUANTIZED_SUBTRACT)
        return simdops_fail(err, SIMDOPS_R_QB_NO_SUBTRACT, SIMDOPS_ARG_ARITHMETIC);
    xnn = arith == SIMDOPS_ARITH_XNNPACK;
    row = &simdops_dtype_rows[dtype];
    {
        const simdops_number *sv[3] = {&args->a_scale, &args->b_scale, &args->y_scale};
        const int64_t zv[3] = {args->a_zero_point, args->b_zero_point, args->y_zero_point};
        for (int k = 0; k < 3; k++) {
            if ((st = read_scale(*sv[k], scale_arg[k], xnn, &s[k], err)))
                return st;
            if (zv[k] < row->lo || zv[k] > row->hi) {
                simdops_fail_value(err, SIMDOPS_R_ZERO_POINT_RANGE, zp_arg[k], zv[k], 0);
                err->dtype = dtype;
                return err->status;
            }
            zp[k] = zv[k];
        }
    }
    lo = row->lo;
    hi = row->hi;
    if (args->has_min) {
        if ((st = simdops_check_bound(dtype, SIMDOPS_ARG_MIN, args->min, err)))
            return st;
        lo = args->min;
    }
    if (args->has_max) {
        if ((st = simdops_check_bound(dtype, SIMDOPS_ARG_MAX, args->max, err)))
            return st;
        hi = args->max;
    }
    if ((st = simdops_check_min_max(lo, hi, err)))
        return st;
    if (op == SIMDOPS_OP_QUANTIZED_MULTIPLY) {
        if (arith == SIMDOPS_ARITH_TFLITE)
            st = tflite_mul(s, zp, dtype, p, err);
        else
            st = fp_mul(s, zp, xnn, p, err);
    } else if (arith == SIMDOPS_ARITH_TFLITE) {
        st = tflite_add(s, zp, op == SIMDOPS_OP_QUANTIZED_SUBTRACT, dtype, p, err);
    } else if (xnn) {
        st = xnnpack_add(s, zp, op == SIMDOPS_OP_QUANTIZED_SUBTRACT, p, err);
    } else {
        ort_add(s, zp, p);
        st = SIMDOPS_OK;
    }
    p->lo = (int32_t)lo;
    p->hi = (int32_t)hi;
    /* the AVX-512 rows' plan once here, not in each kernel call of a split call */
    if (st == SIMDOPS_OK && (dtype == SIMDOPS_INT8 || dtype == SIMDOPS_UINT8))
        qb_plan_store(p, dtype == SIMDOPS_UINT8);
    return st;
}

int simdops_prepare_qbinary(simdops_dtype dtype, const simdops_qbinary_args *args,
                            simdops_prepared *p, simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, args && args->op >= SIMDOPS_OP_QUANTIZED_ADD &&
                               args->op <= SIMDOPS_OP_QUANTIZED_MULTIPLY
                           ? args->op
                           : SIMDOPS_OP_QUANTIZED_ADD);
    if (!p)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_PREPARED);
    memset(&impl, 0, sizeof(impl));
    if ((s = simdops_qbinary_params_init(dtype, args, &impl.u.qbinary, err)))
        return s;
    simdops_prepared_store(p, &impl, args->op, dtype);
    return SIMDOPS_OK;
}

/* The derived parameters by name, for simdops.quantized_binary_params: only
 * those the kind uses, in the runtime's own names where it has them. */
int simdops_qbinary_describe(const simdops_prepared *prep, const char **names, double *values,
                             int cap)
{
    simdops_prepared_impl impl;
    const simdops_qbinary_params *p = &impl.u.qbinary;
    int n = 0;
    memcpy(&impl, prep, sizeof(impl));
#define QB_PUT(name, v)                                                                           \
    do {                                                                                          \
        if (n < cap) {                                                                            \
            names[n] = name;                                                                      \
            values[n] = (double)(v);                                                              \
        }                                                                                         \
        n++;                                                                                      \
    } while (0)
    switch (p->kind) {
    case SIMDOPS_QB_TFLITE_ADD:
        QB_PUT("left_shift", p->left_shift);
        QB_PUT("input1_offset", p->a_offset);
        QB_PUT("input1_multiplier", p->a_mult);
        QB_PUT("input1_shift", -p->a_shift);
        QB_PUT("input2_offset", p->b_offset);
        QB_PUT("input2_multiplier", p->b_mult);
        QB_PUT("input2_shift", -p->b_shift);
        QB_PUT("output_multiplier", p->y_mult);
        QB_PUT("output_shift", -p->y_shift);
        QB_PUT("output_offset", p->y_offset);
        break;
    case SIMDOPS_QB_TFLITE_MUL:
        QB_PUT("input1_offset", p->a_offset);
        QB_PUT("input2_offset", p->b_offset);
        QB_PUT("output_multiplier", p->y_mult);
        QB_PUT("output_shift", p->left_shift ? p->left_shift : -p->y_shift);
        QB_PUT("output_offset", p->y_offset);
        break;
    case SIMDOPS_QB_XNNPACK_ADD:
        QB_PUT("bias", p->bias);
        QB_PUT("a_multiplier", p->a_mult);
        QB_PUT("b_multiplier", p->b_mult);
        QB_PUT("shift", p->shift);
        QB_PUT("a_zero_point", p->a_offset);
        QB_PUT("b_zero_point", p->b_offset);
        QB_PUT("output_zero_point", p->y_offset);
        break;
    case SIMDOPS_QB_FP_MUL:
        QB_PUT("a_zero_point", p->a_offset);
        QB_PUT("b_zero_point", p->b_offset);
        QB_PUT("scale", p->scale);
        QB_PUT("output_zero_point", p->ort ? (int32_t)p->y_offset_f : p->y_offset);
        break;
    default:
        QB_PUT("scale_ratio_a", p->ratio_a);
        QB_PUT("scale_ratio_b", p->ratio_b);
        QB_PUT("fixed_part", p->fixed);
        QB_PUT("zero_point_c", p->y_offset);
        break;
    }
    QB_PUT("output_min", p->lo);
    QB_PUT("output_max", p->hi);
#undef QB_PUT
    return n;
}
