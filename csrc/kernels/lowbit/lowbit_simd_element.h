/* One element of the low-bit hot paths in the form the SIMD tiers compute it
 * (integer rounding on the float32 bits, float products in float32), so a
 * SIMD tail is this file and every lane of a vector computes the same bits.
 * tools/lowbit_sweep.c checks these against a straightforward conversion
 * (every float8 code, every float32 input of the float8 quantize). */
#ifndef SIMDOPS_LOWBIT_SIMD_ELEMENT_H
#define SIMDOPS_LOWBIT_SIMD_ELEMENT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fp16.h"

#include "kernels/lowbit/lowbit_simd.h"

/* the nibble of element i of a packed buffer (low bits first) */
static inline unsigned lbs_nibble(const uint8_t *x, size_t i)
{
    return (unsigned)(x[i >> 1] >> ((i & 1u) * 4u)) & 0xfu;
}
static inline void lbs_set_nibble(uint8_t *y, size_t i, unsigned v)
{
    unsigned sh = (unsigned)(i & 1u) * 4u;
    y[i >> 1] = (uint8_t)((y[i >> 1] & ~(0xfu << sh)) | ((v & 0xfu) << sh));
}
/* int4: the nibble's value; uint4: the nibble */
static inline int32_t lbs_int4_value(unsigned nib, int is_signed)
{
    return is_signed ? (int32_t)(nib ^ 8u) - 8 : (int32_t)nib;
}

/* float32 -> bfloat16, nearest even; NaN -> the sign and 0x7fc0 (ml_dtypes) */
static inline uint16_t lbs_f32_to_bf16(float f)
{
    uint32_t u = simdops_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(((u >> 16) & 0x8000u) | 0x7fc0u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* float8 -> float32: exact; NaN -> the sign and 0x7fc00000 (ml_dtypes) */
static inline float lbs_f8_to_f32(uint8_t c, int kind)
{
    uint32_t s = (uint32_t)(c & 0x80u) << 24, m = c & 0x7fu;
    if (kind == LBS_E4M3FN) {
        if (m == 0x7f)
            return simdops_f32_from_bits(s | 0x7fc00000u);
        if (m < 8) {
            float v = (float)m * 0x1p-9f;
            return simdops_f32_from_bits(s | simdops_f32_bits(v));
        }
        return simdops_f32_from_bits(s | ((m << 20) + (120u << 23)));
    }
    if (m > 0x7c)
        return simdops_f32_from_bits(s | 0x7fc00000u);
    if (m == 0x7c)
        return simdops_f32_from_bits(s | 0x7f800000u);
    if (m < 4) {
        float v = (float)m * 0x1p-16f;
        return simdops_f32_from_bits(s | simdops_f32_bits(v));
    }
    return simdops_f32_from_bits(s | ((m << 21) + (112u << 23)));
}

/* v >= 0 below 2^23 rounded to the nearest integer, ties to even, whatever
 * the rounding mode (floorf and the difference are exact) */
static inline uint32_t lbs_rne_small(float v)
{
    float r = floorf(v), d = v - r;
    if (d > 0.5f || (d == 0.5f && fmodf(r, 2.0f) != 0.0f))
        r += 1.0f;
    return (uint32_t)r;
}

/* float32 -> float8, nearest even (ml_dtypes); saturate: overflow and inf ->
 * the largest finite; otherwise overflow -> NaN (e4m3fn) or inf (e5m2).
 * NaN -> the sign and 0x7f (e4m3fn) / 0x7e (e5m2). */
static inline uint8_t lbs_f32_to_f8(float f, int kind, int sat)
{
    uint32_t u = simdops_f32_bits(f), a = u & 0x7fffffffu, s = (u >> 24) & 0x80u;
    if (kind == LBS_E4M3FN) {
        if (a > 0x7f800000u)
            return (uint8_t)(s | 0x7fu);
        if (a > 0x43e80000u) /* above 464, the tie that goes to 448 */
            return (uint8_t)(s | (sat ? 0x7eu : 0x7fu));
        if (a < 0x3c800000u) /* below 2^-6: a multiple of 2^-9 */
            return (uint8_t)(s | lbs_rne_small(simdops_f32_from_bits(a) * 512.0f));
        return (uint8_t)(s | (((a + 0x7ffffu + ((a >> 20) & 1u)) >> 20) - (120u << 3)));
    }
    if (a > 0x7f800000u)
        return (uint8_t)(s | 0x7eu);
    if (a >= 0x47700000u) /* 61440 and above: rounds to inf */
        return (uint8_t)(s | (sat ? 0x7bu : 0x7cu));
    if (a < 0x38800000u) /* below 2^-14: a multiple of 2^-16 */
        return (uint8_t)(s | lbs_rne_small(simdops_f32_from_bits(a) * 65536.0f));
    return (uint8_t)(s | (((a + 0xfffffu + ((a >> 21) & 1u)) >> 21) - (112u << 2)));
}

#endif
