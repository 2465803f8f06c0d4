/* QuantizeLinear float32 -> uint8 / int8 without the divider: a multiply by
 * r = RN(1/s) and an add of a "magic" constant give the rounded quotient and a
 * fraction wide enough to prove it; lanes whose fraction lies in the error
 * window are recomputed by the dividing step. Part of qlinear_x86.h (QL_FAST8
 * tiers); the tier defines, besides the template's names:
 *   QL_RECIP_FMA     1: ql_mul_add is one fused multiply-add (AVX-512F), 0: a
 *                    multiply then an add (AVX2: the tier does not require FMA)
 *   ql_mul_add(x, r, a), ql_max, ql_bits (float bits as int32), ql_srai14,
 *   ql_window_any(b0..b3, mask): nonzero when some lane of the four has
 *   (bits & mask) == 0
 *
 * The method (K = 2^-14; u8: M = 640, i8: M = 768; tmin..tmax the type's range,
 * zp the zero point; tau = 0 fused, 2K not fused):
 *   A = M + zp + 1/2 + tau       exact: an integer in [512, 1024) plus multiples of K
 *   w = RN(x * r + A)            (QL_RECIP_FMA) or RN(RN(x * r) + A)
 *   w = max(w, Wlo), Wlo = M + tmin - 1/2   (operand order: a NaN w becomes Wlo)
 *   i = bits(w) - bits(M)        for w in [512, 1024), whose ulp is K: i = (w - M) / K
 *   v = i >> 14 (arithmetic) = floor(w - M); saturating packs clamp v to tmin..tmax
 *   a lane is flagged when (bits(w) & WINDOW) == 0: bits(M) and bits(512) have
 *   zero low 14 bits, so those bits are frac(w) / K, and the lane is flagged
 *   when frac(w) = 0 (fused) or frac(w) in [0, 4K) (not fused).
 * A block of four vectors with a flagged lane is recomputed by the dividing step.
 *
 * Why it equals the reference RNE(clamp(RN(x / s), qlo, qhi)) + zp. Let z = x / s
 * (exact), u = z + zp + 1/2, c = w - M. Conditions checked per call (else the
 * dividing loop): 2^-125 <= |s| <= 2^125 (so r and 1/s are normal: |r - 1/s| <=
 * 2^-24 |1/s|), qlo = tmin - zp, qhi = tmax - zp, tmin <= zp <= tmax, and MXCSR
 * rounds to nearest (the reference's x / s and our roundings follow MXCSR).
 *  1. The reference: qlo and qhi are integers, so RNE(clamp(q)) = clamp(RNE(q)),
 *     and NaN gives tmin. If z is at distance > ulp(z)/2 from every half-integer,
 *     RN(z) lies strictly between the same two half-integers as z, so
 *     RNE(RN(z)) = floor(z + 1/2) = floor(u) - zp. For |z| < 256, ulp(z)/2 <= K/8.
 *  2. Lanes with w in [Wlo, 1024) (not clamped; P, the exact operand of the last
 *     rounding, lies in the same binade): these bounds give -257 < z < 385 for
 *     both types, and c = u + tau + e with |e| <= |z| 2^-24 (from r) + K/4 (the
 *     unfused product's rounding, |x r| < 512) + K/2 (the add's): < 1.2K.
 *     a) |z| >= 256: then v = z + zp >= 256 or <= -1 (u8: 0 <= zp <= 255), >= 128
 *        or <= -129 (i8): both sides saturate to the same bound, since every
 *        value within 0.01 of v rounds (either way) beyond the type.
 *     b) |z| < 256: |e| <= E = K/4 + K/2 = 0.75K fused, K/4 + K/4 + K/2 = K not
 *        fused. An unflagged lane has c - tau at distance D >= E + K/8 from every
 *        integer (c is a multiple of K): fused, frac(c) in [K, 1 - K], D = K >
 *        0.875K; not fused, frac(c) in [4K, 1 - K], frac(c - 2K) in [2K, 1 - 3K],
 *        D = 2K > 1.125K. Then dist(u, Z) >= D - E > K/8 >= ulp(z)/2, so by 1
 *        the reference is floor(u) - zp; and floor(u) = floor(c - tau) (no
 *        integer between them: |e| <= E < D) = floor(c) (frac(c) >= tau). So
 *        v = floor(u), and the packs' saturation is the reference's clamp.
 *     With no window, exact ties (c an integer) round up instead of to even; a
 *     window shifted by tau would miss them too (the harness's mutants).
 *     The unfused window holds for the fused form too (its E is smaller), so a
 *     compiler that contracted the AVX2 multiply and add would stay exact.
 *  3. Lanes clamped to Wlo (w < Wlo before the max, -inf, NaN): v = tmin - 1,
 *     stored as tmin. For a number, RN(P) < Wlo means P < Wlo + K/2, so
 *     z + zp < tmin - 1 + 2K (the errors of 2, scaled by at most |z| for far
 *     lanes, where the margin grows alike): RN(z) < qlo, and the reference gives
 *     tmin too; NaN gives tmin in both.
 *  4. Lanes with w >= 1024 (+inf included; the bits of a positive float grow with
 *     it): i >= bits(1024) - bits(M) = (1024 - M) / K, v >= 1024 - M >= tmax + 1
 *     (u8 384 >= 256, i8 256 >= 128), stored as tmax; P >= 1024 - K/2 gives
 *     z + zp > tmax + 1/2 with room (>= 127), so the reference gives tmax.
 *     (Such a lane may also be flagged; then it is recomputed, equally exact.)
 *  5. Denormals, FTZ, DAZ: no intermediate is subnormal except possibly x and the
 *     unfused product x r; a subnormal x has |z| < 2^-126 / 2^-125 = 1/2 (strict),
 *     both sides give zp with or without DAZ / FTZ. A nonzero P is at least 2^-39
 *     (x r is a multiple of that when it cancels A), so w is never subnormal.
 * Flagged lanes for uniformly spread fractions: 1/16384 fused, 4/16384 not
 * fused; exact ties (x = (k + 1/2) s) always are. */
#ifndef SIMDOPS_QLINEAR_Q8_RECIP_H
#define SIMDOPS_QLINEAR_Q8_RECIP_H

#include "kernels/vec/mxcsr.h"

/* tau / K, and the low 14 bits but those of the fractions flagged */
#if QL_RECIP_FMA
#define QL_TAU_UNITS 0
#define QL_WINDOW_MASK 0x3FFF
#else
#define QL_TAU_UNITS 2
#define QL_WINDOW_MASK 0x3FFC
#endif

static inline int ql_recip_ok(const simdops_qlinear_params *p, int is_signed)
{
    const int32_t tmin = is_signed ? -128 : 0, tmax = is_signed ? 127 : 255;
    const float as = p->scale < 0.0f ? -p->scale : p->scale;
    return as >= 0x1p-125f && as <= 0x1p125f && p->zero_point >= tmin && p->zero_point <= tmax &&
           p->qlo == (float)(tmin - p->zero_point) && p->qhi == (float)(tmax - p->zero_point) &&
           simdops_mxcsr_round_nearest();
}

/* u8 / i8 of float32 x, 4 vectors a step; steps with a flagged lane, and whole
 * calls outside the conditions, go through the dividing ql_q8_steps. Returns
 * how many elements it did. */
static inline size_t ql_q8_recip_steps(const float *x, void *y, size_t n,
                                       const simdops_qlinear_params *p, int is_signed)
{
    if (!ql_recip_ok(p, is_signed))
        return ql_q8_steps(x, y, n, p, is_signed);
    const float m = is_signed ? 768.0f : 640.0f, tmin = is_signed ? -128.0f : 0.0f;
    const QL_V r = ql_set1(1.0f / p->scale);
    const QL_V a = ql_set1(m + (float)p->zero_point + 0.5f + QL_TAU_UNITS * 0x1p-14f);
    const QL_V wlo = ql_set1(m + tmin - 0.5f);
    /* bits(M): 2^9 has bits 0x44000000, and each unit above it adds 2^14 */
    const QL_VI mbits = ql_set1_i32(0x44000000 + ((int32_t)m - 512) * (1 << 14));
    const QL_VI window = ql_set1_i32(QL_WINDOW_MASK);
    size_t i = 0;
    for (; n - i >= 4 * QL_W; i += 4 * QL_W) {
        /* max(w, wlo): a NaN w is the first operand, so wlo comes out */
        QL_VI b0 = ql_bits(ql_max(ql_mul_add(ql_load_f32(x + i, QL_FULL), r, a), wlo));
        QL_VI b1 = ql_bits(ql_max(ql_mul_add(ql_load_f32(x + i + QL_W, QL_FULL), r, a), wlo));
        QL_VI b2 = ql_bits(ql_max(ql_mul_add(ql_load_f32(x + i + 2 * QL_W, QL_FULL), r, a), wlo));
        QL_VI b3 = ql_bits(ql_max(ql_mul_add(ql_load_f32(x + i + 3 * QL_W, QL_FULL), r, a), wlo));
        if (ql_window_any(b0, b1, b2, b3, window)) {
            ql_q8_steps(x + i, (char *)y + i, 4 * QL_W, p, is_signed);
            continue;
        }
        QL_VI p01 = ql_packs_i32(ql_srai14(ql_sub_i32(b0, mbits)), ql_srai14(ql_sub_i32(b1, mbits)));
        QL_VI p23 = ql_packs_i32(ql_srai14(ql_sub_i32(b2, mbits)), ql_srai14(ql_sub_i32(b3, mbits)));
        ql_store_bytes((char *)y + i, is_signed ? ql_packs_i16(p01, p23) : ql_packus_i16(p01, p23));
    }
    return i;
}

#endif
