/* The scalar loops over lowbit_simd_element.h: the scalar kernels and every
 * SIMD tier's tails (elements [i0, n)), so a tail is the reference. */
#ifndef SIMDOPS_LOWBIT_SIMD_TAIL_H
#define SIMDOPS_LOWBIT_SIMD_TAIL_H

#include "kernels/lowbit/lowbit_simd.h"
#include "kernels/lowbit/lowbit_simd_element.h"

static inline float lbs_scale_at(const lbs_params *p, size_t i) { return p->scales ? p->scales[i] : p->scale; }
static inline int32_t lbs_zp_at(const lbs_params *p, size_t i) { return p->scales ? p->zps[i] : p->zp; }

static inline float lbs_dq4_one(const uint8_t *x, size_t i, const lbs_params *p)
{
    return (float)(lbs_int4_value(lbs_nibble(x, i), p->is_signed) - lbs_zp_at(p, i)) * lbs_scale_at(p, i);
}

static inline void lbs_dq4_f32_tail(const uint8_t *x, float *y, size_t i0, size_t n, const lbs_params *p)
{
    for (size_t i = i0; i < n; i++)
        y[i] = lbs_dq4_one(x, i, p);
}
static inline void lbs_dq4_f16_tail(const uint8_t *x, uint16_t *y, size_t i0, size_t n, const lbs_params *p)
{
    for (size_t i = i0; i < n; i++)
        y[i] = simdops_f32_to_f16(lbs_dq4_one(x, i, p));
}
static inline void lbs_dq4_bf16_tail(const uint8_t *x, uint16_t *y, size_t i0, size_t n, const lbs_params *p)
{
    for (size_t i = i0; i < n; i++)
        y[i] = lbs_f32_to_bf16(lbs_dq4_one(x, i, p));
}

/* x / scale clamped to [-32, 32] (NaN -> -32), rounded to nearest even, plus
 * the zero point, clamped to the type: the same value as clamping x / scale to
 * [lo - zp, hi - zp] first (every zp of the type lies within 32 of lo and hi) */
static inline unsigned lbs_q4_one(float x, size_t i, const lbs_params *p)
{
    float q = x / lbs_scale_at(p, i);
    int32_t lo = p->is_signed ? -8 : 0, hi = p->is_signed ? 7 : 15, r;
    if (!(q >= -32.0f))
        q = -32.0f;
    if (q > 32.0f)
        q = 32.0f;
    r = (q >= 0.0f ? (int32_t)lbs_rne_small(q) : -(int32_t)lbs_rne_small(-q)) + lbs_zp_at(p, i);
    r = r < lo ? lo : r > hi ? hi : r;
    return (unsigned)r & 0xfu;
}
static inline void lbs_q4_f32_tail(const float *x, uint8_t *y, size_t i0, size_t n, const lbs_params *p)
{
    for (size_t i = i0; i < n; i++)
        lbs_set_nibble(y, i, lbs_q4_one(x[i], i, p));
}

static inline void lbs_q8f_f32_tail(const float *x, uint8_t *y, size_t i0, size_t n, const lbs_params *p)
{
    for (size_t i = i0; i < n; i++)
        y[i] = lbs_f32_to_f8(x[i] / lbs_scale_at(p, i), p->kind, p->saturate);
}
static inline void lbs_dq8f_f32_tail(const uint8_t *x, float *y, size_t i0, size_t n, const lbs_params *p)
{
    for (size_t i = i0; i < n; i++)
    {
        /* a NaN code gives its own NaN whatever the scale (a product of two
         * NaNs would give either operand's, as the compiler orders them) */
        float v = lbs_f8_to_f32(x[i], p->kind);
        y[i] = v != v ? v : v * lbs_scale_at(p, i);
    }
}

#endif
