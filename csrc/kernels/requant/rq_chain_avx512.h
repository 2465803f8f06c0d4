/* The float families' chain and rounding modes in AVX-512 (every float mode but
 * ACL's): float32 precision 16 lanes a vector, float64 precision 8 double lanes
 * a vector (two a group of 16), 64 outputs a step, tails through masked loads
 * and stores. Included by requant_families_avx512.c after its stores.
 *
 * Lane for lane rqf_fp_ext (requant_families.h): each step the same IEEE
 * operation in the chain's order (RQC_STEPS_FN, rq_chain_avx2.h; its adds as
 * fma(v, 1, b), the same value), then:
 *  - ties even / add_half (float32): v = min(hi - zp, v) with v second, so a NaN
 *    stays NaN; the convert (nearest even, embedded, or truncating of v +
 *    copysign(0.5, v)) gives INT32_MIN for NaN, -inf and anything below -2^31,
 *    which the lower clamp (in int32, or the byte clamp of 8-bit outputs) lifts
 *    to min as the scalar's NaN -> min and its float clamp do. Rounding is
 *    monotone and keeps integers, so clamping the rounded value equals rounding
 *    the clamped one.
 *  - ties away, and every float64 mode: max(v, lo - zp) first (a NaN gives the
 *    lower bound: the second operand), then min(v, hi - zp); the value is then
 *    within +-65535 and every convert is exact. Ties away and add_half:
 *    trunc(v + copysign(h, v)) (rqc512_f32 says why h = pred(0.5) is ties away).
 *  - RQC_NC: no float clamp at all where the chain is bounded (rqc512_bounded).
 * 8-bit outputs narrow with saturation in int16, take the zero point there and
 * clamp as bytes (rqf512_fp8_step's reasoning: |zero point| <= 255). */
#ifndef SIMDOPS_RQ_CHAIN_AVX512_H
#define SIMDOPS_RQ_CHAIN_AVX512_H

#include <immintrin.h>

#include "requant_families.h"
#include "rq_chain_avx2.h" /* the RQC_* step bits and rqf_chain_steps */

/* requantize_fp32's default kernels, which a chain folded to one multiplier runs
 * (rqc_fold_plain, rq_chain_avx2.h): the entry of the file including this one
 * (requant_families_avx512.c), with fp_mode 0 */
static inline void rqf512_fp_entry(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                   const simdops_requant_channels *ch,
                                   const simdops_requant_params *p, int out, int unused);

/* RQC_AWAY, RQC_F64, RQC_S64 (rq_chain_avx2.h): the rounding and precision.
 * RQC_NC: 8-bit outputs whose chain is bounded below 2^31 - 2^10 before the clamp
 * (rqc512_bounded): no float clamp at all; the converts cannot overflow, no NaN or
 * infinity arises, and the narrowing saturates on the side of the exact value. */

typedef struct rqc512 {
    __m512 scale, pre, post, off, flo, fhi;
    __m512d pre64, post64, off64, flo64, fhi64, s64;
    __m512i lo, hi, zp, zp16, bmin, bmax;
} rqc512;

static inline void rqc512_init(rqc512 *c, const simdops_requant_params *p)
{
    const float f[6] = {p->scale, p->pre_scale, p->post, p->offset_f,
                        (float)(p->min - p->offset), (float)(p->max - p->offset)};
    const double d[6] = {p->pre64, p->post64, p->offset64, (double)p->min - p->offset,
                         (double)p->max - p->offset, p->scale64};
    const int32_t i[3] = {p->min - p->offset, p->max - p->offset, p->offset};
    __m512 *const fv[6] = {&c->scale, &c->pre, &c->post, &c->off, &c->flo, &c->fhi};
    __m512d *const dv[6] = {&c->pre64, &c->post64, &c->off64, &c->flo64, &c->fhi64, &c->s64};
    __m512i *const iv[3] = {&c->lo, &c->hi, &c->zp};
    for (int j = 0; j < 6; j++) {
        *fv[j] = _mm512_set1_ps(f[j]);
        *dv[j] = _mm512_set1_pd(d[j]);
    }
    for (int j = 0; j < 3; j++)
        *iv[j] = _mm512_set1_epi32(i[j]);
    c->zp16 = _mm512_set1_epi16((int16_t)p->offset);
    c->bmin = _mm512_set1_epi8((char)p->min);
    c->bmax = _mm512_set1_epi8((char)p->max);
}

/* a + b as fma(a, 1, b): the same value on the FMA pipes (RQC_STEPS_FN says why) */
static inline __m512 rqc512_add1_ps(__m512 a, __m512 b)
{
    return _mm512_fmadd_ps(a, _mm512_set1_ps(1.0f), b);
}
static inline __m512d rqc512_add1_pd(__m512d a, __m512d b)
{
    return _mm512_fmadd_pd(a, _mm512_set1_pd(1.0), b);
}
RQC_STEPS_FN(rqc512_steps_ps, __m512, _mm512_mul_ps, _mm512_div_ps, rqc512_add1_ps)
RQC_STEPS_FN(rqc512_steps_pd, __m512d, _mm512_mul_pd, _mm512_div_pd, rqc512_add1_pd)

/* float32 precision, 16 lanes: the rounded value, <= hi - zp (see the top) */
RQF_INLINE __m512i rqc512_f32(__m512i a, __m512 fb, __m512 s, const rqc512 *c, const int k)
{
    __m512 v = rqc512_steps_ps(_mm512_cvtepi32_ps(a), fb, s, c->pre, c->post, c->off, k);
    if ((k & RQC_AWAY) && !(k & RQC_NC))
        v = _mm512_min_ps(_mm512_max_ps(v, c->flo), c->fhi);
    else if (!(k & RQC_NC))
        v = _mm512_min_ps(c->fhi, v);
    if (k & (RQC_HALF | RQC_AWAY)) {
        /* trunc(v + copysign(h, v)), copysign in one instruction ((v & -0.0) | h). h =
         * 0.5: add_half itself. Ties away: h = 0.5 - 2^-25, the float below 0.5: the sum
         * is exact or rounds to nearest, so it reaches the next integer exactly when
         * |v|'s fraction is >= 0.5 (at a tie it is the integer minus 2^-25 of less, which
         * rounds up to it; below a tie it stays below); 0.5 itself would carry 0.5 - 2^-25
         * up to 1 */
        const float h = (k & RQC_AWAY) ? 0.49999997f : 0.5f; /* 0.5 - 2^-25 exactly */
        const __m512 hv = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
            _mm512_castps_si512(v), _mm512_set1_epi32(INT32_MIN), _mm512_castps_si512(_mm512_set1_ps(h)),
            0xEA));
        return _mm512_cvtt_roundps_epi32(rqc512_add1_ps(v, hv), _MM_FROUND_NO_EXC);
    }
    return _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* float64 precision, 8 lanes: the rounded value, in [lo - zp, hi - zp] */
RQF_INLINE __m256i rqc512_f64(__m256i a, __m256 fb, __m512d s, const rqc512 *c, const int k)
{
    __m512d d = rqc512_steps_pd(_mm512_cvtepi32_pd(a), _mm512_cvtps_pd(fb), s, c->pre64,
                                c->post64, c->off64, k);
    if (!(k & RQC_NC))
        d = _mm512_min_pd(_mm512_max_pd(d, c->flo64), c->fhi64);
    if (k & (RQC_HALF | RQC_AWAY)) { /* as float32's; ties away: 0.5 - 2^-54 */
        const double h = (k & RQC_AWAY) ? 0.49999999999999994 : 0.5; /* 0.5 - 2^-54 */
        const __m512d hv = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(
            _mm512_castpd_si512(d), _mm512_set1_epi64(INT64_MIN), _mm512_castpd_si512(_mm512_set1_pd(h)),
            0xEA));
        return _mm512_cvtt_roundpd_epi32(rqc512_add1_pd(d, hv), _MM_FROUND_NO_EXC);
    }
    return _mm512_cvt_roundpd_epi32(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* 16 lanes from x[i..] under mask m: x (+ int32 bias) and the float32 bias */
/* a load under mask m, or (full: a constant) a plain one */
#define RQC512_LOAD(full, m, p) ((full) ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi32(m, p))

RQF_INLINE __m512i rqc512_group(const int32_t *x, const int32_t *ibias, const int32_t *fbias,
                                const float *sf, const double *sd, size_t i, __mmask16 m,
                                const int full, const rqc512 *c, const int k)
{
    __m512i a = RQC512_LOAD(full, m, x + i);
    __m512 fb = _mm512_setzero_ps();
    if (ibias)
        a = _mm512_add_epi32(a, RQC512_LOAD(full, m, ibias + i));
    if (k & (RQC_FB_FIRST | RQC_FB_AFTER))
        fb = _mm512_castsi512_ps(RQC512_LOAD(full, m, fbias + i));
    if (!(k & RQC_F64)) {
        __m512 s = sf ? _mm512_castsi512_ps(RQC512_LOAD(full, m, sf + i)) : c->scale;
        return rqc512_f32(a, fb, s, c, k);
    }
    __m512d s0 = c->s64, s1 = c->s64;
    if (k & RQC_S64) {
        s0 = full ? _mm512_loadu_pd(sd + i) : _mm512_maskz_loadu_pd((__mmask8)m, sd + i);
        s1 = full ? _mm512_loadu_pd(sd + i + 8) : _mm512_maskz_loadu_pd((__mmask8)(m >> 8), sd + i + 8);
    } else if (sf) {
        __m512 s = _mm512_castsi512_ps(RQC512_LOAD(full, m, sf + i));
        s0 = _mm512_cvtps_pd(_mm512_castps512_ps256(s));
        s1 = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1)));
    }
    __m256i r0 = rqc512_f64(_mm512_castsi512_si256(a), _mm512_castps512_ps256(fb), s0, c, k);
    __m256i r1 = rqc512_f64(_mm512_extracti64x4_epi64(a, 1),
                            _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(fb), 1)), s1,
                            c, k);
    return _mm512_inserti64x4(_mm512_castsi256_si512(r0), r1, 1);
}

/* n elements; sf / sd: per-element scales (float32 / float64) or both NULL (the
 * per-tensor scale); bias per element (int32, or float32 bits under
 * SIMDOPS_RQ_FP_FLOAT_BIAS) or NULL. k: the steps (constant at the call sites). */
RQF_INLINE void rqc512_loop(const int32_t *x, void *y, size_t n, const int32_t *bias,
                            const float *sf, const double *sd, const simdops_requant_params *p,
                            int out, const int k, const rqc512 *cp)
{
    const rqc512 c = *cp;
    const int fbias = bias && (p->fp_mode & SIMDOPS_RQ_FP_FLOAT_BIAS);
    const int32_t *ibias = fbias ? NULL : bias;
    const __mmask16 all = 0xFFFF;
    size_t i = 0;
    for (; n - i >= 64; i += 64) {
        __m512i r[4];
        /* unrolled: a loop over j kept r[] on the stack (a store and a reload a
         * vector) and the chain ran at 0.54 of the default's kernel */
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            r[j] = rqc512_group(x, ibias, bias, sf, sd, i + 16 * (size_t)j, all, 1, &c, k);
        }
        if (out != SIMDOPS_RQ_I16) {
            /* lane k of the byte pack: dwords a_k, b_k, c_k, d_k */
            const __m512i order =
                _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
            __m512i p01 = _mm512_adds_epi16(_mm512_packs_epi32(r[0], r[1]), c.zp16);
            __m512i p23 = _mm512_adds_epi16(_mm512_packs_epi32(r[2], r[3]), c.zp16);
            __m512i v;
            if (out == SIMDOPS_RQ_U8)
                v = _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(p01, p23), c.bmin), c.bmax);
            else
                v = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(p01, p23), c.bmin), c.bmax);
            _mm512_storeu_si512((int8_t *)y + i, _mm512_permutexvar_epi32(order, v));
        } else {
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++)
                r[j] = _mm512_add_epi32(_mm512_max_epi32(r[j], c.lo), c.zp);
            rqf512_store4(y, i, r[0], r[1], r[2], r[3], out);
        }
    }
    for (; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? all : (__mmask16)((1u << (n - i)) - 1);
        __m512i r = rqc512_group(x, ibias, bias, sf, sd, i, m, 0, &c, k);
        r = _mm512_min_epi32(_mm512_max_epi32(r, c.lo), c.hi); /* RQC_NC leaves it unclamped */
        rqf512_store(y, i, _mm512_add_epi32(r, c.zp), m, out);
    }
}

/* n elements as runs of period (0: one run) from the vectors' start, the constants
 * built once (a 256-channel row is 4 steps: building them per row had cost the
 * per-channel calls 10-20%) */
RQF_INLINE void rqc512_runs(const int32_t *x, void *y, size_t n, const int32_t *bias,
                            const float *sf, const double *sd, size_t period,
                            const simdops_requant_params *p, int out, const int k)
{
    const size_t es = simdops_requant_out_size(out);
    rqc512 c;
    rqc512_init(&c, p);
    for (size_t done = 0, m; done < n; done += m) {
        m = period && period < n - done ? period : n - done;
        rqc512_loop(x + done, (char *)y + done * es, m, bias, sf, sd, p, out, k, &c);
    }
}

/* the steps of p (with bias and the per-channel float64 scales) as RQC_* bits */
static inline int rqc512_steps(const simdops_requant_params *p, const int32_t *bias, const double *sd)
{
    const int m = p->fp_mode;
    return rqf_chain_steps(p, bias) | (m & SIMDOPS_FP_TIES_AWAY ? RQC_AWAY : 0) |
           (m & SIMDOPS_FP_FLOAT64 ? RQC_F64 | (sd ? RQC_S64 : 0) : 0);
}

/* Whether |v| stays below 2^31 - 2^10 before the clamp for every int32 a, with
 * smax a bound on |scale| (RQC_NC): the exact magnitude's bound times 1 + 2^-20
 * a step (a rounding to nearest adds at most 2^-24 of it); no float bias (its
 * vector is not scanned: per channel, a scan of one period to drop the float
 * clamp measured no gain, the step being bound by its three loads). A division
 * by a tiny divisor gives +inf: not bounded. Nor is a chain whose value overflows
 * on the way, even where a small post multiplier would bring the exact value back
 * (2^31 * 2^100 * 2^-100: the steps give +inf, which no float clamp would then
 * lift to the upper bound): the bound after the pre multiplier and the scale
 * stays below 2^127 (float64: 2^1023). */
static inline int rqc512_bounded(const simdops_requant_params *p, const int32_t *bias, double smax,
                                 int out)
{
    const int m = p->fp_mode, f64 = m & SIMDOPS_FP_FLOAT64;
    const double e = 1.0 + 1.0 / 1048576.0, top = f64 ? 0x1p1023 : 0x1p127;
    double b = 2147483648.0 * e;
    if (out == SIMDOPS_RQ_I16 || (bias && (m & SIMDOPS_RQ_FP_FLOAT_BIAS)))
        return 0;
    if (m & SIMDOPS_RQ_FP_PRE)
        b *= fabs(f64 ? p->pre64 : (double)p->pre_scale) * e;
    if (!(b < top))
        return 0;
    b *= smax * e;
    if (!(b < top))
        return 0;
    if (m & SIMDOPS_RQ_FP_POST_MUL)
        b *= fabs(f64 ? p->post64 : (double)p->post) * e;
    else if (m & SIMDOPS_RQ_FP_POST_DIV)
        b = b / fabs(f64 ? p->post64 : (double)p->post) * e;
    if (m & SIMDOPS_RQ_FP_OFFSET)
        b = (b + fabs(f64 ? p->offset64 : (double)p->offset_f)) * e;
    return b < 2147483648.0 - 1024.0;
}

/* the runtimes' combinations get a loop each (a test per step and vector cost
 * a loop about 4x), with and without the clamp (RQC_NC); the rest the general
 * one. smax: a bound on |scale| (+inf: none known). A function of its own, so that
 * a chain folded to the default's arithmetic (rqc512_kernel) does not enter its
 * frame (its setup and spills were ~20 of the ~45 ns a folded chain's call cost more than
 * the default's, per tensor, in Python's per-call time). */
static void rqc512_steps_run(const int32_t *x, void *y, size_t n, const int32_t *bias,
                             const float *sf, const double *sd, size_t period, double smax,
                             const simdops_requant_params *p, int out)
{
    const int nc = rqc512_bounded(p, bias, smax, out);
#define RQC512_CASE(K)                                                                  \
    case K:                                                                             \
        if (nc)                                                                         \
            rqc512_runs(x, y, n, bias, sf, sd, period, p, out, (K) | RQC_NC);           \
        else                                                                            \
            rqc512_runs(x, y, n, bias, sf, sd, period, p, out, K);                      \
        return;
    switch (rqc512_steps(p, bias, sd)) {
    RQC512_CASE(0)                   /* oneDNN's powers of two, folded (rqc_fold_pow2) */
    RQC512_CASE(RQC_PRE)                               /* ... into one multiplier */
    RQC512_CASE(RQC_PRE | RQC_POST_MUL)                /* oneDNN's JIT */
    RQC512_CASE(RQC_PRE | RQC_FB_AFTER | RQC_POST_MUL) /* ... with its float32 bias */
    RQC512_CASE(RQC_PRE | RQC_POST_DIV)                /* oneDNN's reference */
    RQC512_CASE(RQC_OFF)                               /* OpenVINO */
    RQC512_CASE(RQC_FB_FIRST)                          /* fbgemm's float bias */
    RQC512_CASE(RQC_HALF)                              /* ncnn's x86 */
    RQC512_CASE(RQC_AWAY)                              /* round half away in float32 */
    RQC512_CASE(RQC_F64)                               /* float64 */
    RQC512_CASE(RQC_F64 | RQC_AWAY)                    /* LiteRT's reference, per tensor */
    RQC512_CASE(RQC_F64 | RQC_AWAY | RQC_S64)          /* ... per channel */
    default:
        rqc512_runs(x, y, n, bias, sf, sd, period, p, out,
                    rqc512_steps(p, bias, sd) | (nc ? RQC_NC : 0));
    }
#undef RQC512_CASE
}

/* the chain: per tensor folded first where it can (rqc_fold_pow2; rqc512_pc folds its
 * own), to the default's kernels when only the scale is left (rqc_fold_plain) */
RQF_INLINE void rqc512_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                              const float *sf, const double *sd, size_t period, double smax,
                              const simdops_requant_params *p, int out)
{
    simdops_requant_params q;
    if (!sf && !sd && !(p = rqc_fold_tensor(x, y, n, bias, p, out, rqf512_fp_entry, &q)))
        return;
    rqc512_steps_run(x, y, n, bias, sf, sd, period, smax, p, out);
}

/* per channel: the vectors restart every ch->period elements; the scales the call
 * reads (rqc_scan_span) scanned for their range */
static inline void rqc512_pc(const int32_t *x, void *y, size_t n, const int32_t *bias,
                             const simdops_requant_channels *ch, const simdops_requant_params *p,
                             int out)
{
    double smin = 0.0, smax = INFINITY;
    simdops_requant_params q;
    const int post = p->fp_mode & (SIMDOPS_RQ_FP_POST_MUL | SIMDOPS_RQ_FP_POST_DIV);
    const int fold = (p->fp_mode & SIMDOPS_RQ_FP_PRE) && post; /* a candidate for it */
    const size_t span = rqc_scan_span(ch, n);
    /* scanned only when needed (a 256-scale scan was ~5% of a 64K-element call) */
    if (span && (fold || !(ch->scale && ch->scales_below_one))) {
        rqc_scale_range(ch->scale64 ? NULL : ch->scale, ch->scale64, span, &smin, &smax);
        if (rqc_fold_pow2(p, bias, smin, smax, &q)) {
            if (rqc_fold_plain(&q, 1)) { /* the default's kernels, its scales in registers */
                rqf512_fp_entry(x, y, n, bias, ch, &q, out, 0);
                return;
            }
            if (rqc_pc_scaled(x, y, n, bias, ch, smax, &q, out, rqf512_fp_entry))
                return; /* ... on its scales times c */
            p = &q;
        }
    }
    if (ch->scale && ch->scales_below_one && smax > 1.0)
        smax = 1.0;
    rqc512_kernel(x, y, n, bias, ch->scale64 ? NULL : ch->scale, ch->scale64, ch->period, smax,
                  p, out);
}

#endif
