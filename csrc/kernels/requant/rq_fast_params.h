/* The float32 constants of the double-rounding and single-rounding fast path (rq_fast_x86.h, whose
 * comment holds the proof), computed in scalar double: the window a from the
 * call's offset and bounds; per tensor the pair's mu, c+ and c-, which the
 * kernel computes once per call; per channel each channel's mu and h and the
 * call's base, which the driver builds once per call into float arrays
 * (requant_channels.c), so the per-channel kernel does the per-tensor
 * arithmetic plus two loads. Plain C (no intrinsics): the driver includes it. */
#ifndef SIMDOPS_RQ_FAST_PARAMS_H
#define SIMDOPS_RQ_FAST_PARAMS_H

#include <math.h>
#include <stdint.h>

/* Per-channel arrays are built for the AVX-512 form, K = 16 fraction bits. */
#define RQF_PC_K 16

/* 2^e as a double, e in [-1022, 1023] (every exponent below is in [-48, 14]):
 * built from its bits, because the driver derives two per channel and libm's
 * ldexp (scalbn, with its range checks) was ~30% of a 4-row per-channel call.
 * M * 2^e for an int32 M is exact in double and equals ldexp(M, e). */
static inline double rqf_pow2(int e)
{
    union { uint64_t bits; double value; } v;
    v.bits = (uint64_t)(e + 1023) << 52;
    return v.value;
}

/* Tc = T * 2^K + 2^(K-1), T = max(hi, -lo - 1, 1), and the window half-width a
 * (a power of two > E, the error bound) for an offset o and a bound C on
 * |c_s + a| taken at e = 1 (the largest c_s any right shift e >= 1 gives);
 * c_terms: the roundings of the constant term, in units of u*C (2.001 when
 * c_s + a is rounded once and added by the FMA; 3.01 per channel, where it is
 * the sum of two rounded terms, rqf_pc_consts): 0
 * when the fast path does not cover the call (|o| > 65536, Tc >= 2^31 or a
 * window 2a wider than 2^(K-2)). */
static inline int32_t rqf_window(int32_t offset, int32_t lo, int32_t hi, int k, double c_terms,
                                 double *tc_out)
{
    int64_t t = hi;
    double tc, cmax, err;
    int32_t a = 1;
    if (offset < -65536 || offset > 65536)
        return 0;
    if (-(int64_t)lo - 1 > t)
        t = -(int64_t)lo - 1;
    if (t < 1)
        t = 1;
    tc = (double)t * (1 << k) + (1 << (k - 1));
    if (tc >= 2147483648.0)
        return 0;
    /* |c_s| <= |o| 2^K + 2^(K-1) + 2^(K-2) + 1/2 for e >= 1; 2^(K-3) of slack
     * covers the 1/2 and a (a <= 2^(K-3)) */
    cmax = fabs(ldexp((double)offset, k)) + (1 << (k - 1)) + (1 << (k - 2)) + (1 << (k - 3));
    err = ldexp(1.0, -24) * (4.001 * (tc + cmax) + c_terms * cmax);
    while ((double)a <= err)
        a *= 2;
    if (2 * a > (1 << (k - 2)))
        return 0;
    *tc_out = tc;
    return a;
}

/* mu = RN(M 2^(K-31-e)), c+ = RN(c_s + a) for s = +1 and c- for s = -1, with
 * c_s = o 2^K + 2^(K-1) + s 2^(K-1-e) - 1/2 (exact in double): 1 when the pair
 * is covered (M > 0, 1 <= e <= 23, no left shift), else 0. */
static inline int rqf_pair_consts(int32_t multiplier, int32_t right_shift, int32_t left_shift,
                                  int32_t offset, int32_t a, int k, float *mu, float *cpos,
                                  float *cneg)
{
    double cp;
    if (left_shift != 0 || multiplier <= 0 || right_shift < 1 || right_shift > 23)
        return 0;
    cp = ldexp((double)offset, k) + (1 << (k - 1)) + ldexp(1.0, k - 1 - right_shift) - 0.5;
    *mu = (float)ldexp((double)multiplier, k - 31 - right_shift);
    *cpos = (float)(cp + a);
    *cneg = (float)(cp - ldexp(1.0, k - right_shift) + a);
    return 1;
}

/* Per channel, c_s + a is split into a per-call base B = RN(o 2^K + 2^(K-1) -
 * 1/2 + a) and each channel's h = 2^(K-1-e) (exact), the kernel adding B and
 * h with y's sign: RN(B + s h) is within u|B'| + u|B + s h| <= u C (2 + u) of
 * c_s + a (B' the exact base), one rounding more than rqf_pair_consts' c+/c-:
 * hence the window's 3.01. 1 when the channel is covered, as rqf_pair_consts. */
static inline int rqf_pc_consts(int32_t multiplier, int32_t right_shift, int32_t left_shift,
                                int k, float *mu, float *h)
{
    if (left_shift != 0 || multiplier <= 0 || right_shift < 1 || right_shift > 23)
        return 0;
    *mu = (float)((double)multiplier * rqf_pow2(k - 31 - right_shift));
    *h = (float)rqf_pow2(k - 1 - right_shift);
    return 1;
}

static inline float rqf_pc_base(int32_t offset, int32_t a, int k)
{
    return (float)(ldexp((double)offset, k) + (1 << (k - 1)) - 0.5 + a);
}

/* Single rounding (rq_fast_x86.h's second proof): mu = RN(M 2^(K-t)) for the
 * total shift t = 31 + shift in [32, 62] (every M: no sign term); its
 * constant c + a = o 2^K + 2^(K-1) - 1/2 + a is rqf_pc_base's, per tensor and
 * per channel. 1 when covered, else 0 (t < 32: the quotient can reach 2^31,
 * and the integer rule's offset add would wrap). */
static inline int rqf_single_mu(int32_t multiplier, int32_t t, int k, float *mu)
{
    if (t < 32 || t > 62)
        return 0;
    *mu = (float)((double)multiplier * rqf_pow2(k - t));
    return 1;
}

#endif
