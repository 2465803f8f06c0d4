/* Portable IEEE half <-> float/double conversions (round to nearest even).
 * NaN: the payload is kept (truncated when narrowing) and the quiet bit set,
 * which is what F16C and AArch64 FCVT do, so SIMD tiers match these bits. */
#ifndef SIMDOPS_FP16_H
#define SIMDOPS_FP16_H

#include <stdint.h>
#include <string.h>

static inline uint32_t simdops_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float simdops_f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t simdops_f64_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

static inline float simdops_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) /* inf or NaN */
        return simdops_f32_from_bits(sign | 0x7f800000u | (mant << 13) | (mant ? 0x00400000u : 0));
    if (exp == 0) {
        if (mant == 0)
            return simdops_f32_from_bits(sign);
        /* subnormal: value = mant * 2^-24, exact in float */
        float v = (float)mant * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return simdops_f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
}

/* Round a magnitude given as (mantissa with hidden bit, unbiased exponent) to a
 * half, RNE, with overflow to inf. m has `mbits` fraction bits. */
static inline uint16_t simdops_f16_round(uint16_t sign, uint64_t m, int e, int mbits)
{
    /* value = m * 2^(e - mbits), m in [2^mbits, 2^(mbits+1)) */
    int shift;
    uint64_t q, rem, half;
    if (e > 15)
        return (uint16_t)(sign | 0x7c00u);
    if (e >= -14)
        shift = mbits - 10;           /* normal: keep 10 fraction bits */
    else
        shift = mbits - 10 + (-14 - e); /* subnormal: fewer bits */
    if (shift >= 64)
        return sign;
    q = m >> shift;
    rem = m & ((1ull << shift) - 1);
    half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (e >= -14) {
        /* q in [2^10, 2^11]; carry into the exponent when it reaches 2^11 */
        uint32_t exp = (uint32_t)(e + 15);
        if (q >= 2048u) { q >>= 1; exp++; }
        if (exp >= 31)
            return (uint16_t)(sign | 0x7c00u);
        return (uint16_t)(sign | (exp << 10) | (q & 0x3ffu));
    }
    /* subnormal result; q == 1024 rounds up into the smallest normal, which the bit layout gives */
    return (uint16_t)(sign | q);
}

static inline uint16_t simdops_f32_to_f16(float f)
{
    uint32_t u = simdops_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xffu;
    uint32_t mant = u & 0x7fffffu;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (mant ? (0x0200u | (mant >> 13)) : 0));
    if (exp == 0) /* float subnormals are far below half's range */
        return sign;
    return simdops_f16_round(sign, (uint64_t)(mant | 0x800000u), (int)exp - 127, 23);
}

static inline uint16_t simdops_f64_to_f16(double d)
{
    uint64_t u = simdops_f64_bits(d);
    uint16_t sign = (uint16_t)((u >> 48) & 0x8000u);
    uint32_t exp = (uint32_t)((u >> 52) & 0x7ffu);
    uint64_t mant = u & 0xfffffffffffffull;
    if (exp == 0x7ff)
        return (uint16_t)(sign | 0x7c00u | (mant ? (0x0200u | (uint32_t)(mant >> 42)) : 0));
    if (exp == 0)
        return sign;
    return simdops_f16_round(sign, mant | (1ull << 52), (int)exp - 1023, 52);
}

#endif
