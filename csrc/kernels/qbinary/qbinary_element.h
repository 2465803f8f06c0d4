/* One element of each quantized binary arithmetic (simdops_qbinary_params):
 * the scalar kernels and every SIMD tier's tails use these, so a tail is the
 * reference by construction. Integer arithmetic is exact (int64 where a
 * product could pass 32 bits, then wrapped as the runtimes' int32 wraps);
 * float arithmetic is float32, one rounding per operation as the runtime's
 * instructions round (the default rounding mode, round to nearest even). */
#ifndef SIMDOPS_QBINARY_ELEMENT_H
#define SIMDOPS_QBINARY_ELEMENT_H

#include <math.h>

#include "core/fixedpoint.h"
#include "kernels/registry.h"

static inline int32_t qb_clamp(int32_t r, const simdops_qbinary_params *p)
{
    return r < p->lo ? p->lo : (r > p->hi ? p->hi : r);
}

/* TFLite ADD / SUB (reference integer_ops/add.h AddFunc): each input offset and
 * shifted left, scaled by MultiplyByQuantizedMultiplierSmallerThanOneExp
 * (SRDHM, then a rounding right shift), summed, scaled by the output's. */
static inline int32_t qb_tflite_add_one(int32_t a, int32_t b, const simdops_qbinary_params *p)
{
    int32_t sa = simdops_wrap32((int64_t)(a + p->a_offset) * ((int64_t)1 << p->left_shift));
    int32_t sb = simdops_wrap32((int64_t)(b + p->b_offset) * ((int64_t)1 << p->left_shift));
    int32_t ra = simdops_rdbpot(simdops_srdhm(sa, p->a_mult), p->a_shift);
    int32_t rb = simdops_rdbpot(simdops_srdhm(sb, p->b_mult), p->b_shift);
    int32_t sum = simdops_wrap32((int64_t)ra + rb);
    int32_t r = simdops_rdbpot(simdops_srdhm(sum, p->y_mult), p->y_shift);
    return qb_clamp(simdops_wrap32((int64_t)r + p->y_offset), p);
}

/* TFLite MUL (MulElementwise): the int32 product of the offset inputs through
 * MultiplyByQuantizedMultiplier (left shift, SRDHM, rounding right shift). */
static inline int32_t qb_tflite_mul_one(int32_t a, int32_t b, const simdops_qbinary_params *p)
{
    int32_t prod = simdops_wrap32((int64_t)(a + p->a_offset) * (b + p->b_offset));
    int32_t x = simdops_wrap32((int64_t)((uint64_t)(uint32_t)prod << p->left_shift));
    int32_t r = simdops_rdbpot(simdops_srdhm(x, p->y_mult), p->y_shift);
    return qb_clamp(simdops_wrap32((int64_t)r + p->y_offset), p);
}

/* XNNPACK qs8/qu8-vadd: bias + a * a_mult + b * b_mult in int32 (no overflow
 * for the parameters XNNPACK derives), an arithmetic right shift (the bias
 * holds the rounding term), the zero point, the clamp. */
static inline int32_t qb_xnnpack_add_one(int32_t a, int32_t b, const simdops_qbinary_params *p)
{
    int32_t acc = simdops_wrap32((int64_t)p->bias + (int64_t)a * p->a_mult + (int64_t)b * p->b_mult);
    return qb_clamp(simdops_wrap32((int64_t)(acc >> p->shift) + p->y_offset), p);
}

/* float32 -> int32 as cvtps2dq: round half to even, INT32_MIN for NaN and for
 * values outside the int32 range; computed without the rounding mode and
 * without libm: the truncation (a conversion that always truncates) and the
 * exact remainder d = v - t (|d| < 1, v and t within 2^31) decide the step. */
static inline int32_t qb_cvt_rne(float v)
{
    int32_t t;
    float d;
    if (!(v >= -2147483648.0f && v < 2147483648.0f))
        return INT32_MIN;
    t = (int32_t)v;
    d = v - (float)t; /* exact: both lie in v's binade or below, same sign */
    if (d > 0.5f || (d == 0.5f && (t & 1)))
        t++;
    else if (d < -0.5f || (d == -0.5f && (t & 1)))
        t--;
    return t;
}

/* The x86 runtimes' narrowing after the conversion: int32 -> int16 -> the
 * 8-bit type, both saturating (packssdw, packsswb / packuswb), i.e. a clamp
 * to the type (p->lo/hi lie inside it), then the activation bounds. */
static inline int32_t qb_narrow(int32_t r, const simdops_qbinary_params *p)
{
    return qb_clamp(r, p);
}

/* XNNPACK qs8/qu8-vmul (fp32, x86) and ONNX Runtime QLinearMul: float32(product)
 * * scale, + y_offset_f in float (ONNX Runtime adds its zero point there, before
 * rounding; XNNPACK's is 0.0, which changes nothing), converted (half to even;
 * INT32_MIN beyond int32, as cvtps2dq), + y_offset (XNNPACK's zero point, after
 * rounding; ONNX Runtime's 0), narrowed. XNNPACK clamps in float first, which
 * gives the same integers for every scale it accepts (products below 2^24). */
static inline int32_t qb_fp_mul_one(int32_t a, int32_t b, const simdops_qbinary_params *p)
{
    int32_t prod = (a - p->a_offset) * (b - p->b_offset); /* |prod| <= 65025: exact in float */
    float v = (float)prod * p->scale;
    v = v + p->y_offset_f;
    return qb_narrow(simdops_wrap32((int64_t)qb_cvt_rne(v) + p->y_offset), p);
}

/* ONNX Runtime QLinearAdd, MLAS's x86 AVX2 kernel: fixed = zp_y - (ra * zp_a
 * + rb * zp_b) (derived once), then per element fma(a, ra, fma(b, rb, fixed))
 * on the raw inputs, converted half to even, narrowed. A broadcast one-element
 * input gives the same bits (measured), so there is one form. */
static inline int32_t qb_ort_add_vv(int32_t a, int32_t b, const simdops_qbinary_params *p)
{
    float t = fmaf((float)b, p->ratio_b, p->fixed);
    return qb_narrow(qb_cvt_rne(fmaf((float)a, p->ratio_a, t)), p);
}

#endif
