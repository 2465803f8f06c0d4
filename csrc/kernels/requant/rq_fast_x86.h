/* The double-rounding and ties-up kernels' exact float32 fast path (AVX2 and
 * AVX-512), included by requant_x86_entries.h when the tier defines
 * RQ_X86_FAST 1, after rq_kernel and rqr_kernel (the integer kernels it falls
 * back to), per tensor and per channel (AVX-512) in one loop (rqf_loop).
 * docs/maintainers/requant-performance-notes.md restates this proof.
 *
 * Identity. For a right shift e >= 1 and a multiplier M != INT32_MIN (so SRDHM
 * never saturates), y the int32 input (after bias), P = y*M exact, s = sgn(P):
 *   r := RDBPOT(SRDHM(y, M), e) = floor(v + 1/2 + s*2^-(e+1)),  v = P / 2^(31+e).
 * Proof: q = SRDHM = floor((P + 2^30) / 2^31); RDBPOT rounds half away from 0:
 * floor((q + 2^(e-1)) / 2^e) for q >= 0, -floor((-q + 2^(e-1)) / 2^e) for q <= 0.
 * With floor((floor(A/m) + B) / n) = floor((A + B*m) / (m*n)) (integers A, B;
 * m, n > 0): P > 0 gives q >= 0 and r = floor((P + 2^30 + 2^(30+e)) / 2^(31+e)).
 * P < 0, N = -P: -q = ceil((N - 2^30) / 2^31) = floor((N + 2^30 - 1) / 2^31), so
 * r = -floor((N + 2^30 - 1 + 2^(30+e)) / 2^(31+e)); -floor((Z - 1)/D) = 1 +
 * floor(-Z/D) turns it into floor((P - 2^30 + 2^(30+e)) / 2^(31+e)). P = 0: r = 0
 * = floor(1/2 +- 2^-(e+1)). Dividing out 2^(31+e) gives the identity.
 *
 * Float32 form (this path needs M > 0, so s = sgn(y)), K = RQF_K = 14 fraction
 * bits, offset o: with mu = M*2^(K-31-e) and c_s = o*2^K + 2^(K-1) + s*2^(K-1-e)
 * - 1/2, W = y*mu + c_s (exact, real) has r + o = floor((W + 1/2) / 2^K).
 * Computed, in round-to-nearest (AVX-512: embedded rounding; AVX2: the path
 * runs only when MXCSR rounds to nearest; no value is subnormal, so FTZ/DAZ do
 * not matter), a the window half-width below (a power of two):
 *   yf = RN(y), m = RN(mu), cf = RN(c_s + a),
 *   F = RN(yf*m + cf) (AVX-512, one FMA) or RN(RN(yf*m) + cf) (AVX2),
 *   G = clamp(F, -Tc, Tc) (AVX-512 after an out-of-range lane; else G = F),
 *   J = RN_int(G) (the convert),
 *   Tc = T*2^K + 2^(K-1), T = max(hi, -lo - 1, 1) (lo, hi the output bounds).
 * Error, u = 2^-24: |yf*m - y*mu| <= |y*mu|(2u + u^2), the product's rounding
 * (AVX2) <= u|yf*m|, |cf - (c_s + a)| <= u|c_s + a|, the sum's <= u|sum|; so
 * |F - (W + a)| <= |y*mu|(4u + 4u^2 + u^3) + 2u*C + u^2*C, C >= |c_s + a|.
 * Unclamped lanes (|F| <= Tc) have |y*mu| <= (Tc + C)(1 + 5u), so
 *   |F - (W + a)| <= E := u*(4.001*(Tc + C) + 2.001*C)
 * (rqf_window computes E in double, C bounding |c_s| for every e >= 1 with
 * 2^(K-3) >= a of slack), and
 * |J - (W + a)| <= E + 1/2. Take a > E. Let f = J mod 2^K and f >= 2a. Then
 * W + 1/2 lies in [J - a - E, J - a + E + 1]: its lower end is >= (J - f) +
 * (2a - a - E) > J - f, its upper end <= (J - f) + 2^K - 1 - a + E + 1 < (J -
 * f) + 2^K, so r + o = floor((W + 1/2) / 2^K) = (J - f) / 2^K = J >> K.
 * A lane with f < 2a, i.e. (J & (2^K - 1) & ~(2a - 1)) == 0, is *flagged*: its
 * vector is recomputed by the integer rule (rq_vec). Exact ties (W + 1/2 =
 * j*2^K) and every value within E of one are flagged.
 * Clamped lanes (AVX-512): F > Tc gives J = Tc, f = 2^(K-1) >= 2a (2a <=
 * 2^(K-2)), J >> K = T >= hi. The error bound grows with |F|, so the lower
 * bound of W + a, F - E(F), grows with F: W + 1/2 > Tc - E - a + 1/2 >= T*2^K,
 * so r + o >= T too: both clamp to hi. F < -Tc: J >> K = -T - 1 <= lo, and
 * W + 1/2 < -Tc + E - a + 1/2 < -T*2^K: r + o <= -T - 1, both clamp to lo.
 * Unclamped lanes beyond Tc (AVX2 always; AVX-512 until a block has a lane
 * converted out of range, then clamped for the rest of the call, rqf_loop):
 * Tc < |F| < 2^31 is the same argument with J itself (J >= Tc, so J >> K >= T;
 * or J <= -Tc, J >> K <= -T - 1; AVX-512 stores J's high 16 bits, J >> 16 in
 * int16, which the narrowing saturates and clamps as it would T), and |F| >=
 * 2^31 converts to INT32_MIN, whose low bits are 0: flagged. |o| <= 65536 and
 * |r| <= 2^30 + 1, so r + o never wraps.
 * Per channel (AVX-512): each lane's mu and h = 2^(K-1-e) are its channel's,
 * from float arrays the driver builds once per call (rq_fast_params.h), and
 * c_s + a is computed as RN(B + s h) with the call's B: one more rounding of
 * the constant term, which the window's bound E counts (rqf_pc_consts); a and
 * Tc are the call's, C bounding every channel's c_s, so the argument above
 * holds lane by lane. A flagged vector is recomputed by the
 * per-channel integer rule (rq_pc_vec).
 * Ties-up (rqf_ties_up, LiteRT's x86 kernels; rqr_kernel the integer
 * rule): q1 = floor((P + 2^30) / 2^31) for every sign of P (no saturation,
 * M = INT32_MIN allowed there but not here), then floor((q1 + 2^(e-1)) / 2^e);
 * the nested floors merge as above into r = floor((P + 2^30 + 2^(30+e)) /
 * 2^(31+e)) = floor(v + 1/2 + 2^-(e+1)) for every P: the identity with s = +1
 * on every lane. So W = y*mu + c_+ and the argument above holds word for word
 * with c_+ + a (cpos) the constant of every lane; C bounds it (C >= |c_s + a|
 * for both s). |r| <= 2^30 + 1, so the family's wrapping r + o does not wrap
 * (|o| <= 65536) and the clamp sees r + o. Per channel the constant is RN(B +
 * h), the same rounded sum without the sign (same bound). A flagged vector is
 * recomputed by the ties-up integer rule (rqr_vec / rqr_pc_vec). The domain is
 * double rounding's (below); a left shift means e = 0 in this family.
 * Not covered (rq_kernel runs): e = 0 or e > 23 (c_s needs <= 24 bits; v is
 * tiny there), a left shift, M <= 0, |o| > 65536, Tc >= 2^31, a window 2a
 * wider than 2^(K-2), and on AVX2 an MXCSR not rounding to nearest.
 * Single rounding (RQF_S_SINGLE; requant_families_x86.h's rqfx_fast, the
 * families' entries on AVX2 and AVX-512; every M, t = 31 + shift in [32, 62]):
 * rqf_single is q = floor((P + 2^(t-1)) / 2^t) = floor(v + 1/2), v = P / 2^t,
 * exactly: the identity above with no sign term and no 2^-(e+1). Ties away
 * (rqf_single_away) subtracts 1 from the numerator when P < 0, which changes
 * the floor only when 2^t divides P + 2^(t-1), i.e. at an exact tie v + 1/2
 * = j: there it gives j - 1, elsewhere floor(v + 1/2) too. So with mu = M
 * 2^(K-t) (rqf_single_mu; M < 0 or M = INT32_MIN only flips mu's sign, and
 * M 2^(K-t) is a power-of-two scaling of an integer of <= 31 bits, so |m -
 * mu| <= u|mu| as before; |mu| >= 2^(14-62): no subnormal) and c = o 2^K +
 * 2^(K-1) - 1/2, W = y*mu + c has q + o = floor((W + 1/2) / 2^K), and c + a is
 * rqf_pc_base's sum, rounded once: RN(c + a) for every lane, per tensor and
 * per channel (B, no h), with |c + a| <= C, the bound rqf_window takes. The
 * argument above then holds word for word: the error bound E, the window a
 * and the flag test are the same, the clamp and the out-of-range lanes the
 * same. A lane left unflagged has f >= 2a, which puts W + 1/2 strictly
 * between (J - f) and (J - f) + 2^K: never on a multiple of 2^K, so never an
 * exact tie, where alone the two rules differ; J >> K is both rules' q + o.
 * Every exact tie, and every value within E of one, is flagged, and a flagged
 * vector is recomputed by the family's integer rule (rqfx_exact: ties up or
 * away, per channel on the driver's normalised pairs). t >= 32 keeps |P| <=
 * 2^62, so |q| <= 2^30 + 1 and the rule's q + o (|o| <= 65536) does not
 * wrap; t < 32 (a scale >= 1/2) runs the integer kernel, as do |o| > 65536,
 * Tc >= 2^31, the window limit and (AVX2) MXCSR. Per channel (AVX-512) the
 * driver builds mu for every channel when every normalised t >= 33 (its
 * derived arrays' fast form, ch->general 0). */
#ifndef SIMDOPS_RQ_FAST_X86_H
#define SIMDOPS_RQ_FAST_X86_H

#include <math.h>

#include "requant_x86.h"
#include "rq_fast_params.h"
#include "kernels/vec/mxcsr.h"

/* fraction bits: AVX-512 takes the result as J's high 16 bits (rqf_store_high), so
 * 16 there; AVX2 shifts, and 14 keeps its unclamped range wider (|r + o| < 2^17) */
#if RQV_LANES == 16
#define RQF_K RQF_PC_K
#else
#define RQF_K 14
#endif

/* The loop's selector (a compile-time constant at every call, like the RQ_F_*
 * flags): RQF_S_PC per channel (each lane's mu and h from ch's arrays, AVX-512
 * only), RQF_S_TIES the ties-up rule (no sign term; its integer rule for flagged
 * vectors), RQF_S_SINGLE single rounding (no sign term, no h; the integer rule
 * of requant_families_x86.h, ties away from zero with RQF_S_AWAY). 0: double
 * rounding per tensor. */
enum { RQF_S_PC = 1, RQF_S_TIES = 2, RQF_S_CLAMP = 4, RQF_S_SINGLE = 8, RQF_S_AWAY = 16 };
/* the selectors whose constant has no sign term: one constant, cpos, per call */
#define RQF_S_UNSIGNED (RQF_S_TIES | RQF_S_SINGLE)

typedef struct rqf_consts {
#if RQV_LANES == 16
    __m512 m, cpos, cneg, tc; /* per channel: cpos holds the base B; m, cneg unused */
#else
    __m256 m, cpos, cneg;
#endif
    rqv window; /* (2^K - 1) & ~(2a - 1) */
} rqf_consts;

/* 1 when the fast path covers p per tensor for the selector's family (filling
 * fc), else 0. */
static inline int rqf_init(rqf_consts *fc, const simdops_requant_params *p, int s)
{
    double tc;
    float m, cpos, cneg;
    int32_t a;
#if RQV_LANES != 16
    if (!simdops_mxcsr_round_nearest())
        return 0;
#endif
    if (!(a = rqf_window(p->offset, p->min, p->max, RQF_K, 2.001, &tc)))
        return 0;
    if (s & RQF_S_SINGLE) {
        if (!rqf_single_mu(p->multiplier, 31 + p->right_shift - p->left_shift, RQF_K, &m))
            return 0;
        cpos = cneg = rqf_pc_base(p->offset, a, RQF_K); /* c + a: the base alone */
    } else if (!rqf_pair_consts(p->multiplier, p->right_shift, p->left_shift, p->offset, a,
                                RQF_K, &m, &cpos, &cneg)) {
        return 0;
    }
#if RQV_LANES == 16
    fc->m = _mm512_set1_ps(m);
    fc->cpos = _mm512_set1_ps(cpos);
    fc->cneg = _mm512_set1_ps(cneg);
    fc->tc = _mm512_set1_ps((float)tc);
#else
    fc->m = _mm256_set1_ps(m);
    fc->cpos = _mm256_set1_ps(cpos);
    fc->cneg = _mm256_set1_ps(cneg);
#endif
    fc->window = rqv_set1_32(((1 << RQF_K) - 1) & ~(2 * a - 1));
    return 1;
}

#if RQV_LANES == 16
/* per channel: the call's constants from the driver's (B in cpos) */
static inline void rqf_pc_init(rqf_consts *fc, const simdops_requant_channels *ch)
{
    fc->tc = _mm512_set1_ps(ch->fast_tc);
    fc->cpos = _mm512_set1_ps(ch->fast_base);
    fc->m = fc->cneg = _mm512_setzero_ps();
    fc->window = rqv_set1_32(((1 << RQF_K) - 1) & ~(2 * ch->fast_window - 1));
}
#endif

/* J of the comment above: RN_int of the (clamped) F of y's lanes, the lanes of
 * channels k.. under RQF_S_PC. */
RQ_INLINE rqv rqf_convert(rqv y, const simdops_requant_channels *ch, size_t k,
                        const rqf_consts *fc, int s)
{
#if RQV_LANES == 16
/* a macro, not a const int: the rounding operand must be an integer constant
 * expression, which clang enforces */
#define RQF_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
    __m512 yf = _mm512_cvt_roundepi32_ps(y, RQF_RN), m, cs, w;
    if (s & RQF_S_PC) {
        m = _mm512_loadu_ps(ch->fast_mult + k);
        if (s & RQF_S_SINGLE) {
            cs = fc->cpos; /* B: single rounding has no h */
        } else {
            __m512i h = _mm512_castps_si512(_mm512_loadu_ps(ch->fast_h + k));
            /* double rounding: h with y's sign (imm 0xF8: h | (y & sign bit)) */
            if (!(s & RQF_S_TIES))
                h = _mm512_ternarylogic_epi32(h, y, _mm512_set1_epi32(INT32_MIN), 0xF8);
            cs = _mm512_add_round_ps(fc->cpos, _mm512_castsi512_ps(h), RQF_RN); /* B + s h */
        }
    } else {
        /* c+ or c- by y's sign. Unclamped: a bitwise select (vpternlogd) under
         * y's sign spread by an arithmetic shift (a k-mask and a blend, or
         * vpermilps with the sign rotated into its index, which shares the
         * narrowing's shuffle port, measured slower); with the clamp a k-mask and
         * a blend (the select measured slower beside vrangeps) */
        if (s & RQF_S_UNSIGNED)
            cs = fc->cpos;
        else if (s & RQF_S_CLAMP)
            cs = _mm512_mask_blend_ps(_mm512_movepi32_mask(y), fc->cpos, fc->cneg);
        else
            cs = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
                _mm512_srai_epi32(y, 31), _mm512_castps_si512(fc->cneg),
                _mm512_castps_si512(fc->cpos), 0xCA)); /* 0xCA: a ? b : c, bitwise */
        m = fc->m;
    }
    w = _mm512_fmadd_round_ps(yf, m, cs, RQF_RN);
    /* |w| clamped to Tc, w's sign kept (imm 0x02: smaller magnitude, sign from
     * w); without RQF_S_CLAMP unclamped, as AVX2 (vrangeps shares the converts'
     * port: about 1 cycle of 3.5 per 16 lanes) */
    if (s & RQF_S_CLAMP)
        w = _mm512_range_ps(w, fc->tc, 0x02);
    return _mm512_cvt_roundps_epi32(w, RQF_RN);
#undef RQF_RN
#else
    __m256 yf = _mm256_cvtepi32_ps(y);
    /* the constant by yf's sign (y's); ties-up and single rounding have one */
    __m256 cs = (s & RQF_S_UNSIGNED) ? fc->cpos : _mm256_blendv_ps(fc->cpos, fc->cneg, yf);
    (void)ch;
    (void)k;
    /* no FMA in the AVX2 tier; no clamp: |F| >= 2^31 converts to INT32_MIN, flagged */
    return _mm256_cvtps_epi32(_mm256_add_ps(_mm256_mul_ps(yf, fc->m), cs));
#endif
}

/* nonzero when some lane of the four is flagged (its bits under window all 0) */
RQ_INLINE int rqf_any_flagged(rqv j0, rqv j1, rqv j2, rqv j3, const rqf_consts *fc)
{
#if RQV_LANES == 16
    return (_mm512_testn_epi32_mask(j0, fc->window) | _mm512_testn_epi32_mask(j1, fc->window) |
            _mm512_testn_epi32_mask(j2, fc->window) | _mm512_testn_epi32_mask(j3, fc->window)) != 0;
#else
    __m256i t = _mm256_min_epu32(_mm256_min_epu32(_mm256_and_si256(j0, fc->window),
                                                  _mm256_and_si256(j1, fc->window)),
                                 _mm256_min_epu32(_mm256_and_si256(j2, fc->window),
                                                  _mm256_and_si256(j3, fc->window)));
    return _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(t, _mm256_setzero_si256())));
#endif
}

RQ_INLINE int rqf_flagged(rqv j, const rqf_consts *fc)
{
    return rqf_any_flagged(j, j, j, j, fc);
}

RQ_INLINE rqv rqf_srai(rqv j)
{
#if RQV_LANES == 16
    return _mm512_srai_epi32(j, RQF_K);
#else
    return _mm256_srai_epi32(j, RQF_K);
#endif
}

/* The integer rule of the selector's family for the vector at x + j (channels
 * k + j..), the offset added in int32: what a flagged vector gets. rule holds
 * the family's integer constants: an rqr_consts (double rounding, ties-up;
 * requant_x86_rules.h) or an rqfx_consts (single rounding;
 * requant_families_x86.h), each beginning with the rq_consts the stores read.
 * A translation unit has the rules of the headers it included before this one. */
RQ_INLINE rqv rqf_exact(const int32_t *x, const int32_t *b, size_t j,
                        const simdops_requant_channels *ch, size_t k, const void *rule, int f,
                        int s)
{
    f &= RQ_F_BIAS | RQ_F_NOCLAMP;
#ifdef SIMDOPS_REQUANT_FAMILIES_X86_H
    if (s & RQF_S_SINGLE)
        return rqfx_exact(x, b, j, ch, k, (const rqfx_consts *)rule, f, s & RQF_S_AWAY,
                          s & RQF_S_PC);
#endif
#ifdef SIMDOPS_REQUANT_X86_RULES_H
    if (s & RQF_S_TIES)
        return (s & RQF_S_PC) ? rqr_pc_vec(x, b, j, ch, k, (const rqr_consts *)rule,
                                           f | RQ_F_DERIVED | RQR_TIES_UP_PC)
                              : rqr_vec(x, b, j, (const rqr_consts *)rule, f | RQR_TIES_UP);
#endif
    if (s & RQF_S_PC)
        return rq_pc_vec(x, b, j, ch, k, (const rq_consts *)rule, f | RQ_F_DERIVED);
    return rq_vec(x, b, j, (const rq_consts *)rule, f);
}

/* A vector's result with the offset added: J >> K, or the integer rule's (exact
 * on every lane) when a lane is flagged. AVX-512 keeps J and puts a flagged
 * vector's results into J's form: saturated to int16 (which the narrowing's
 * clamp makes no difference to, as in rq_store), in the high half. */
RQ_INLINE rqv rqf_finish(rqv j, const int32_t *x, const int32_t *b, size_t t,
                         const simdops_requant_channels *ch, size_t k, const void *c,
                         const rqf_consts *fc, int f, int s)
{
#if RQV_LANES == 16
    if (rqf_flagged(j, fc)) {
        rqv v = rqf_exact(x, b, t, ch, k, c, f, s);
        v = _mm512_min_epi32(_mm512_max_epi32(v, _mm512_set1_epi32(-32768)),
                             _mm512_set1_epi32(32767));
        return _mm512_slli_epi32(v, 16);
    }
    return j;
#else
    return rqf_flagged(j, fc) ? rqf_exact(x, b, t, ch, k, c, f, s) : rqf_srai(j);
#endif
}

#if RQV_LANES == 16
/* The four vectors' results (the high 16 bits of each J, K = 16: J >> 16, in
 * int16 as |J| <= Tc < 2^31) stored as the output type: vpermt2w gathers the
 * high words of two vectors in order, so the i16 store needs no permute and the
 * byte packs one. */
RQ_INLINE void rqf_store_high(void *y, rqv j0, rqv j1, rqv j2, rqv j3, const rq_consts *c, int f,
                         int out)
{
    const __m512i hi = _mm512_setr_epi32(
        0x00030001, 0x00070005, 0x000B0009, 0x000F000D, 0x00130011, 0x00170015, 0x001B0019,
        0x001F001D, 0x00230021, 0x00270025, 0x002B0029, 0x002F002D, 0x00330031, 0x00370035,
        0x003B0039, 0x003F003D); /* word i: 2i + 1 */
    rqv w01 = _mm512_permutex2var_epi16(j0, hi, j1), w23 = _mm512_permutex2var_epi16(j2, hi, j3);
    rqv b;
    if (out == SIMDOPS_RQ_I16) {
        rqv_store(y, rq_clamp16(w01, c, f));
        rqv_store((int16_t *)y + 2 * RQV_LANES, rq_clamp16(w23, c, f));
        return;
    }
    if (out == SIMDOPS_RQ_U8) {
        b = _mm512_packus_epi16(w01, w23);
        if (!(f & RQ_F_NOCLAMP))
            b = rqv_min_u8(rqv_max_u8(b, c->lo8), c->hi8);
    } else {
        b = _mm512_packs_epi16(w01, w23);
        if (!(f & RQ_F_NOCLAMP))
            b = rqv_min_i8(rqv_max_i8(b, c->lo8), c->hi8);
    }
    /* qword 2l of the pack is w01's lane l, 2l + 1 w23's */
    rqv_store(y, rqv_unlane16(b));
}
#endif

RQ_INLINE rqv rqf_load_biased(const int32_t *x, const int32_t *b, size_t k, int f)
{
    rqv y = rqv_load(x + k);
    return (f & RQ_F_BIAS) ? rqv_add32(y, rqv_load(b + k)) : y;
}

#if RQV_LANES == 16
/* nonzero when a lane of the four converted out of range (|F| >= 2^31 gives
 * INT32_MIN; F = -2^31 too, which only costs the switch to the clamp) */
RQ_INLINE int rqf_any_overflow(rqv j0, rqv j1, rqv j2, rqv j3)
{
    const rqv lo = _mm512_set1_epi32(INT32_MIN);
    return (_mm512_cmpeq_epi32_mask(j0, lo) | _mm512_cmpeq_epi32_mask(j1, lo) |
            _mm512_cmpeq_epi32_mask(j2, lo) | _mm512_cmpeq_epi32_mask(j3, lo)) != 0;
}
#endif

/* Whole blocks from element i0, per tensor or per channel, either rule (the
 * selector s); the stores see values with the offset in (no RQ_F_OFF16).
 * AVX-512 without RQF_S_CLAMP stops after the first block that has a lane
 * converted out of range (its lanes are flagged, so that block is exact): the
 * caller goes on clamped, so data that saturates by 2^15 and more keeps the
 * clamped speed instead of recomputing every vector by the integer rule. */
RQ_INLINE size_t rqf_loop(const int32_t *x, const int32_t *bias, unsigned char *y, size_t i0,
                          size_t n, const simdops_requant_channels *ch, const void *c,
                          const rqf_consts *fc, int f, int out, int s)
{
    size_t i = i0;
    const size_t es = simdops_requant_out_size(out);
    for (; n - i >= (size_t)RQ_BLOCK; i += RQ_BLOCK) {
        const int32_t *xi = x + i, *bi = (f & RQ_F_BIAS) ? bias + i : NULL;
        rqv j0 = rqf_convert(rqf_load_biased(xi, bi, 0, f), ch, i, fc, s);
        rqv j1 = rqf_convert(rqf_load_biased(xi, bi, RQV_LANES, f), ch, i + RQV_LANES, fc, s);
        rqv j2 = rqf_convert(rqf_load_biased(xi, bi, 2 * RQV_LANES, f), ch, i + 2 * RQV_LANES, fc, s);
        rqv j3 = rqf_convert(rqf_load_biased(xi, bi, 3 * RQV_LANES, f), ch, i + 3 * RQV_LANES, fc, s);
        if (rqf_any_flagged(j0, j1, j2, j3, fc)) {
#if RQV_LANES == 16
            const int stop = !(s & RQF_S_CLAMP) && rqf_any_overflow(j0, j1, j2, j3);
#endif
            j0 = rqf_finish(j0, xi, bi, 0, ch, i, c, fc, f, s);
            j1 = rqf_finish(j1, xi, bi, RQV_LANES, ch, i, c, fc, f, s);
            j2 = rqf_finish(j2, xi, bi, 2 * RQV_LANES, ch, i, c, fc, f, s);
            j3 = rqf_finish(j3, xi, bi, 3 * RQV_LANES, ch, i, c, fc, f, s);
#if RQV_LANES == 16
            if (stop) {
                rqf_store_high(y + i * es, j0, j1, j2, j3, (const rq_consts *)c, f, out);
                return i + RQ_BLOCK;
            }
#endif
        }
#if RQV_LANES == 16
        rqf_store_high(y + i * es, j0, j1, j2, j3, (const rq_consts *)c, f, out);
#else
        else {
            j0 = rqf_srai(j0);
            j1 = rqf_srai(j1);
            j2 = rqf_srai(j2);
            j3 = rqf_srai(j3);
        }
        rq_store(y + i * es, j0, j1, j2, j3, (const rq_consts *)c, f, out);
#endif
    }
    return i;
}

/* The whole blocks of a call the fast path covers (fc filled), one loop per
 * flag variant; rule: the family's integer constants (rqf_exact); noclamp:
 * RQ_F_NOCLAMP when [min, max] is the output type's range. Returns the
 * elements done. */
RQ_INLINE size_t rqf_run(const int32_t *x, unsigned char *y, size_t n, const int32_t *bias,
                         const simdops_requant_channels *ch, const void *rule,
                         const rqf_consts *fc, int out, int noclamp, int s)
{
    size_t i = 0;
    switch (noclamp | (bias ? RQ_F_BIAS : 0)) {
#if RQV_LANES == 16
#define RQF_CASE(flags)                                                                \
    case flags:                                                                        \
        i = rqf_loop(x, bias, y, 0, n, ch, rule, fc, flags, out, s);                   \
        i = rqf_loop(x, bias, y, i, n, ch, rule, fc, flags, out, s | RQF_S_CLAMP);     \
        break;
#else
#define RQF_CASE(flags)                                                                \
    case flags:                                                                        \
        i = rqf_loop(x, bias, y, 0, n, ch, rule, fc, flags, out, s);                   \
        break;
#endif
    RQF_CASE(0)
    RQF_CASE(RQ_F_NOCLAMP)
    RQF_CASE(RQ_F_BIAS)
    RQF_CASE(RQ_F_BIAS | RQ_F_NOCLAMP)
#undef RQF_CASE
    }
    return i;
}

#ifdef SIMDOPS_REQUANT_X86_RULES_H
/* Per tensor, either rule: the fast path's blocks, then the integer kernel for
 * the tail, or for the whole call when the path does not cover p. */
RQ_INLINE void rqf_pt_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                             const simdops_requant_params *p, int out, int32_t tlo, int32_t thi,
                             int s)
{
    unsigned char *y = (unsigned char *)yv;
    rqf_consts fc;
    rqr_consts c;
    size_t i = 0;
    if (n >= (size_t)RQ_BLOCK && rqf_init(&fc, p, s)) {
        rqr_consts_init(&c, p);
        i = rqf_run(x, y, n, bias, NULL, &c, &fc, out, rq_flags(p, tlo, thi) & RQ_F_NOCLAMP, s);
    }
    if (i == n)
        return;
    x += i;
    y += i * simdops_requant_out_size(out);
    bias = bias ? bias + i : NULL;
    if (s & RQF_S_TIES)
        rqr_kernel(x, y, n - i, bias, p, RQR_TIES_UP, out, tlo, thi);
    else
        rq_kernel(x, y, n - i, bias, p, out, tlo, thi);
}

RQ_INLINE void rq_fast_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                              const simdops_requant_params *p, int out, int32_t tlo,
                              int32_t thi)
{
    rqf_pt_kernel(x, yv, n, bias, p, out, tlo, thi, 0);
}

RQ_INLINE void rqr_fast_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                               const simdops_requant_params *p, int rule, int out, int32_t tlo,
                               int32_t thi)
{
    if (rule == RQR_TIES_UP)
        rqf_pt_kernel(x, yv, n, bias, p, out, tlo, thi, RQF_S_TIES);
    else
        rqr_kernel(x, yv, n, bias, p, rule, out, tlo, thi);
}

#if RQV_LANES == 16
/* Per channel, either rule: the fast path's blocks when the driver built its
 * arrays (every channel and the call covered; ch->fast_mult set), the integer
 * kernel for the rest. With ch->period set (the driver's long calls, kernel
 * table's requant_pc_restarts) the arrays and bias restart every period
 * elements: the call runs as pieces of period elements, each exactly what a
 * call of the driver's per period computes (the same blocks from the arrays'
 * start, the same integer tail), so the results are the per-piece calls' bits;
 * the constants are set up once and no call or channel struct per piece. */
RQ_INLINE void rqf_pc_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                             const simdops_requant_channels *ch,
                             const simdops_requant_params *p, int out, int32_t tlo, int32_t thi,
                             int s)
{
    unsigned char *y = (unsigned char *)yv;
    const size_t es = simdops_requant_out_size(out);
    const size_t piece = ch->period && ch->period < n ? ch->period : n;
    const int fast = ch->fast_mult && piece >= (size_t)RQ_BLOCK;
    const int noclamp = rq_flags(p, tlo, thi) & RQ_F_NOCLAMP;
    rqf_consts fc;
    rqr_consts c;
    if (fast) {
        rqf_pc_init(&fc, ch);
        rqr_consts_init(&c, p);
    } else { /* not read: set for the compiler's sake */
        memset(&fc, 0, sizeof fc);
        memset(&c, 0, sizeof c);
    }
    for (size_t done = 0; done < n;) {
        const size_t m = piece < n - done ? piece : n - done;
        size_t i = fast ? rqf_run(x, y, m, bias, ch, &c, &fc, out, noclamp, s | RQF_S_PC) : 0;
        if (i < m) {
            simdops_requant_channels rest = simdops_requant_channels_at(ch, i);
            rest.period = 0;
            if (s & RQF_S_TIES)
                rqr_pc_kernel(x + i, y + i * es, m - i, bias ? bias + i : NULL, &rest, p,
                              RQR_TIES_UP_PC, out, tlo, thi);
            else
                rq_pc_kernel(x + i, y + i * es, m - i, bias ? bias + i : NULL, &rest, p, out,
                             tlo, thi);
        }
        x += m;
        y += m * es;
        done += m;
    }
}

RQ_INLINE void rq_pc_fast_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                                 const simdops_requant_channels *ch,
                                 const simdops_requant_params *p, int out, int32_t tlo,
                                 int32_t thi)
{
    rqf_pc_kernel(x, yv, n, bias, ch, p, out, tlo, thi, 0);
}

RQ_INLINE void rqr_pc_fast_kernel(const int32_t *x, void *yv, size_t n, const int32_t *bias,
                                  const simdops_requant_channels *ch,
                                  const simdops_requant_params *p, int rule, int out,
                                  int32_t tlo, int32_t thi)
{
    if (rule == RQR_TIES_UP_PC)
        rqf_pc_kernel(x, yv, n, bias, ch, p, out, tlo, thi, RQF_S_TIES);
    else
        rqr_pc_kernel(x, yv, n, bias, ch, p, rule, out, tlo, thi);
}
#endif
#endif /* SIMDOPS_REQUANT_X86_RULES_H */

#endif
