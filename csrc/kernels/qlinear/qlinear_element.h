/* One element of QuantizeLinear / DequantizeLinear: the scalar kernels and
 * every SIMD tier's tail use these, so a tail is the reference by construction. */
#ifndef SIMDOPS_QLINEAR_ELEMENT_H
#define SIMDOPS_QLINEAR_ELEMENT_H

#include <math.h>

#include "kernels/registry.h"
#include "core/fp16.h"

/* q clamped to [qlo, qhi] (NaN -> qlo), rounded half to even: an integer in
 * int32 range (|qlo|, |qhi| <= 65535). */
static inline int32_t qlinear_quantize_one(float q, const simdops_qlinear_params *p)
{
    float r, diff;
    if (!(q >= p->qlo)) /* NaN too */
        q = p->qlo;
    if (q > p->qhi)
        q = p->qhi;
    r = floorf(q);
    diff = q - r; /* exact: |q| < 2^17 */
    if (diff > 0.5f || (diff == 0.5f && fmodf(r, 2.0f) != 0.0f))
        r += 1.0f;
    return (int32_t)r + p->zero_point;
}

static inline float qlinear_quotient_f16(uint16_t h, const simdops_qlinear_params *p)
{
    float q = simdops_f16_to_f32(h) / p->scale;
    /* float32 division rounded to float16 is float16 division: 24 >= 2*11 + 2 bits */
    return p->div_f16 ? simdops_f16_to_f32(simdops_f32_to_f16(q)) : q;
}

static inline float qlinear_dequantize_one(int32_t x, const simdops_qlinear_params *p)
{
    return (float)(x - p->zero_point) * p->scale;
}

#endif
