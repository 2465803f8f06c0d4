/* The float families' chain (simdops_requant_fp_chain, a float32 bias, ties even,
 * away or add_half; float32 precision, or float64 in 4 double lanes) in AVX2: the
 * avx2 tier's (the avx512 tier has rq_chain_avx512.h, which takes the RQC_* bits
 * from here). Lane for lane rqf_fp_ext (requant_families.h):
 * each step one float32 operation in the chain's order (the build never
 * contracts), then max(v, lo - zp) first, whose operand order turns a NaN into
 * the lower bound as the scalar's NaN -> min does, min(v, hi - zp), and the
 * rounding: cvtps (nearest even, the default MXCSR mode the scalar's rounding
 * assumes too) or, for add_half, cvttps of v + copysign(0.5, v); ties away the same
 * with pred(0.5) for 0.5 (rqc512_f32 in rq_chain_avx512.h says why that is exact).
 * Float64: the same steps in double lanes, clamped the same way. The clamped value
 * lies within +-65535, so every convert is exact and the packs store it. */
#ifndef SIMDOPS_RQ_CHAIN_AVX2_H
#define SIMDOPS_RQ_CHAIN_AVX2_H

#include <immintrin.h>

#include "requant_families.h"
#include "rq_chain_fold.h" /* rqc_fold_pow2, rqc_fold_plain: the fold's proof */

/* whether rqf_chain_kernel runs these parameters: every float mode but ACL's */
static inline int rqf_chain_fits(const simdops_requant_params *p, const simdops_requant_channels *ch)
{
    (void)ch;
    return !(p->fp_mode & SIMDOPS_FP_ACL);
}

/* The chain's vector operations: flags known per call, loaded once. */
typedef struct rqf_chain_c {
    __m256 pre, post, off, flo, fhi, half, sign;
    __m256d pre64, post64, off64, flo64, fhi64, half64, sign64, s64;
    __m256i zp;
    int fb_first, fb_after, has_pre, post_mul, post_div, has_off, add_half;
} rqf_chain_c;

static inline void rqf_chain_init(rqf_chain_c *c, const simdops_requant_params *p)
{
    const int m = p->fp_mode, fb = (m & SIMDOPS_RQ_FP_FLOAT_BIAS) != 0;
    c->pre = _mm256_set1_ps(p->pre_scale);
    c->post = _mm256_set1_ps(p->post);
    c->off = _mm256_set1_ps(p->offset_f);
    c->flo = _mm256_set1_ps((float)(p->min - p->offset));
    c->fhi = _mm256_set1_ps((float)(p->max - p->offset));
    /* ties away: trunc(v + copysign(pred(0.5), v)) */
    c->half = _mm256_set1_ps(m & SIMDOPS_FP_TIES_AWAY ? 0.49999997f : 0.5f);
    c->sign = _mm256_set1_ps(-0.0f);
    c->pre64 = _mm256_set1_pd(p->pre64);
    c->post64 = _mm256_set1_pd(p->post64);
    c->off64 = _mm256_set1_pd(p->offset64);
    c->flo64 = _mm256_set1_pd((double)p->min - p->offset);
    c->fhi64 = _mm256_set1_pd((double)p->max - p->offset);
    c->half64 = _mm256_set1_pd(m & SIMDOPS_FP_TIES_AWAY ? 0.49999999999999994 : 0.5);
    c->sign64 = _mm256_set1_pd(-0.0);
    c->s64 = _mm256_set1_pd(p->scale64);
    c->zp = _mm256_set1_epi32(p->offset);
    c->fb_first = fb && !(m & SIMDOPS_FP_BIAS_SCALED);
    c->fb_after = fb && (m & SIMDOPS_FP_BIAS_SCALED);
    c->has_pre = (m & SIMDOPS_RQ_FP_PRE) != 0;
    c->post_mul = (m & SIMDOPS_RQ_FP_POST_MUL) != 0;
    c->post_div = (m & SIMDOPS_RQ_FP_POST_DIV) != 0;
    c->has_off = (m & SIMDOPS_RQ_FP_OFFSET) != 0;
    c->add_half = (m & SIMDOPS_FP_TIES_ADD_HALF) != 0;
}

/* k: the steps as RQC_* bits, a constant at the specialised call sites (a
 * branch per step and vector cost the loop about 4x) */
#define RQC_FB_FIRST 1
#define RQC_PRE 2
#define RQC_FB_AFTER 4
#define RQC_POST_MUL 8
#define RQC_POST_DIV 16
#define RQC_OFF 32
#define RQC_HALF 64 /* add_half; in this file ties away too (c->half = pred(0.5)) */
#define RQC_AWAY 128 /* ties away (rq_chain_avx512.h) */
#define RQC_F64 256  /* float64 precision */
#define RQC_S64 512  /* float64 per-channel scales (else float32 ones, widened) */
/* 8-bit outputs whose chain is bounded below 2^31 - 2^10 before the clamp
 * (rqc512_bounded, rq_chain_avx512.h) */
#define RQC_NC 1024

/* The chain's steps up to the clamp, in one body for every vector type: each step one
 * IEEE operation in the chain's order (the build never contracts). ADD(a, b) may be
 * fma(a, 1, b) (rqc512_add1_ps): a * 1 is exact, so the fused form rounds the exact sum
 * once, as the add does (signed zeros: -0 * 1 + 0 = +0, as -0 + 0; a NaN stays a NaN),
 * and runs on the FMA pipes instead of the adder's, which the converts load (portbench's
 * chain table: OpenVINO's step 3.57 -> 3.35 cycles / 16 on Zen 4). */
#define RQC_STEPS_FN(name, T, MUL, DIV, ADD)                                             \
    RQF_INLINE T name(T v, T fb, T s, T pre, T post, T off, const int k)                 \
    {                                                                                   \
        if (k & RQC_FB_FIRST)                                                           \
            v = ADD(v, fb);                                                             \
        if (k & RQC_PRE)                                                                \
            v = MUL(v, pre);                                                            \
        v = MUL(v, s);                                                                  \
        if (k & RQC_FB_AFTER)                                                           \
            v = ADD(v, fb);                                                             \
        if (k & RQC_POST_MUL)                                                           \
            v = MUL(v, post);                                                           \
        else if (k & RQC_POST_DIV)                                                      \
            v = DIV(v, post);                                                           \
        return (k & RQC_OFF) ? ADD(v, off) : v;                                         \
    }
RQC_STEPS_FN(rqc256_steps_ps, __m256, _mm256_mul_ps, _mm256_div_ps, _mm256_add_ps)
RQC_STEPS_FN(rqc256_steps_pd, __m256d, _mm256_mul_pd, _mm256_div_pd, _mm256_add_pd)

RQF_INLINE __m256i rqf_chain_vec(__m256i a, __m256 fb, __m256 scale, const rqf_chain_c *c,
                                 const int k)
{
    __m256 v = rqc256_steps_ps(_mm256_cvtepi32_ps(a), fb, scale, c->pre, c->post, c->off, k);
    v = _mm256_min_ps(_mm256_max_ps(v, c->flo), c->fhi);
    __m256i r = (k & RQC_HALF)
                    ? _mm256_cvttps_epi32(_mm256_add_ps(
                          v, _mm256_or_ps(c->half, _mm256_and_ps(v, c->sign))))
                    : _mm256_cvtps_epi32(v);
    return _mm256_add_epi32(r, c->zp);
}

/* float64 precision, 4 lanes: the steps in double, clamped as float32's */
RQF_INLINE __m128i rqf_chain_f64(__m128i a, __m128 fb, __m256d s, const rqf_chain_c *c,
                                 const int k)
{
    __m256d d = rqc256_steps_pd(_mm256_cvtepi32_pd(a), _mm256_cvtps_pd(fb), s, c->pre64,
                                c->post64, c->off64, k);
    d = _mm256_min_pd(_mm256_max_pd(d, c->flo64), c->fhi64);
    if (k & RQC_HALF)
        return _mm256_cvttpd_epi32(
            _mm256_add_pd(d, _mm256_or_pd(c->half64, _mm256_and_pd(d, c->sign64))));
    return _mm256_cvtpd_epi32(d);
}

/* 8 lanes in float64: scales sd (float64), sf (float32, widened) or the per-tensor one */
RQF_INLINE __m256i rqf_chain_vec64(__m256i a, __m256 fb, const float *sf, const double *sd,
                                   const rqf_chain_c *c, const int k)
{
    __m256d s0 = c->s64, s1 = c->s64;
    if (sd) {
        s0 = _mm256_loadu_pd(sd);
        s1 = _mm256_loadu_pd(sd + 4);
    } else if (sf) {
        s0 = _mm256_cvtps_pd(_mm_loadu_ps(sf));
        s1 = _mm256_cvtps_pd(_mm_loadu_ps(sf + 4));
    }
    __m128i r0 = rqf_chain_f64(_mm256_castsi256_si128(a), _mm256_castps256_ps128(fb), s0, c, k);
    __m128i r1 = rqf_chain_f64(_mm256_extracti128_si256(a, 1), _mm256_extractf128_ps(fb, 1), s1,
                               c, k);
    return _mm256_add_epi32(_mm256_set_m128i(r1, r0), c->zp);
}

/* 32 int32 lanes (each in [lo, hi]) stored as out_dtype: the chain's loops and
 * the other AVX2 family kernels (requant_families_avx2.c) */
static inline void rqf_store(void *y, __m256i v0, __m256i v1, __m256i v2, __m256i v3,
                                   int out)
{
    __m256i p01 = _mm256_packs_epi32(v0, v1), p23 = _mm256_packs_epi32(v2, v3);
    if (out == SIMDOPS_RQ_I16) {
        _mm256_storeu_si256((__m256i *)y, _mm256_permute4x64_epi64(p01, 0xD8));
        _mm256_storeu_si256((__m256i *)y + 1, _mm256_permute4x64_epi64(p23, 0xD8));
        return;
    }
    __m256i b = out == SIMDOPS_RQ_U8 ? _mm256_packus_epi16(p01, p23) : _mm256_packs_epi16(p01, p23);
    b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256((__m256i *)y, b);
}

/* n elements; scales NULL (p->scale) or per element; bias per element (int32, or
 * float32 bits under SIMDOPS_RQ_FP_FLOAT_BIAS) or NULL */
RQF_INLINE void rqf_chain_loop(const int32_t *x, void *y, size_t n, const int32_t *bias,
                               const float *scales, const double *sd,
                               const simdops_requant_params *p, int out, const int k)
{
    rqf_chain_c c;
    const int fbias = bias && (p->fp_mode & SIMDOPS_RQ_FP_FLOAT_BIAS);
    const int32_t *ibias = fbias ? NULL : bias;
    const size_t es = simdops_requant_out_size(out);
    __m256 s[4], fb[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                          _mm256_setzero_ps()};
    __m256i v[4];
    size_t i = 0;
    rqf_chain_init(&c, p);
    if (!fbias)
        c.fb_first = c.fb_after = 0;
    s[0] = s[1] = s[2] = s[3] = _mm256_set1_ps(p->scale);
    for (; n - i >= 32; i += 32) {
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(x + i + 8 * j));
            if (ibias)
                a = _mm256_add_epi32(a, _mm256_loadu_si256((const __m256i *)(ibias + i + 8 * j)));
            if (fbias)
                fb[j] = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(bias + i + 8 * j)));
            if (k & RQC_F64) {
                v[j] = rqf_chain_vec64(a, fb[j], scales ? scales + i + 8 * j : NULL,
                                       sd ? sd + i + 8 * j : NULL, &c, k);
                continue;
            }
            if (scales)
                s[j] = _mm256_loadu_ps(scales + i + 8 * j);
            v[j] = rqf_chain_vec(a, fb[j], s[j], &c, k);
        }
        rqf_store((char *)y + i * es, v[0], v[1], v[2], v[3], out);
    }
    for (; i < n; i++) {
        int32_t a = ibias ? simdops_wrap32((int64_t)x[i] + ibias[i]) : x[i];
        float sc = scales ? scales[i] : p->scale;
        double s64 = sd ? rqf_f64_at(sd, i) : scales ? (double)scales[i] : p->scale64;
        rqf_store_one(y, i, rqf_fp_ext(a, fbias ? rqf_float_bias(bias, i) : 0.0f, sd ? 0.0f : sc,
                                       s64, p), out);
    }
}

/* the steps of p as RQC_* bits */
static inline int rqf_chain_steps(const simdops_requant_params *p, const int32_t *bias)
{
    const int m = p->fp_mode, fb = bias && (m & SIMDOPS_RQ_FP_FLOAT_BIAS);
    return (fb && !(m & SIMDOPS_FP_BIAS_SCALED) ? RQC_FB_FIRST : 0) |
           (m & SIMDOPS_RQ_FP_PRE ? RQC_PRE : 0) |
           (fb && (m & SIMDOPS_FP_BIAS_SCALED) ? RQC_FB_AFTER : 0) |
           (m & SIMDOPS_RQ_FP_POST_MUL ? RQC_POST_MUL : 0) |
           (m & SIMDOPS_RQ_FP_POST_DIV ? RQC_POST_DIV : 0) |
           (m & SIMDOPS_RQ_FP_OFFSET ? RQC_OFF : 0) | (m & SIMDOPS_FP_TIES_ADD_HALF ? RQC_HALF : 0);
}

/* the smallest and largest |scale| of n (float32 or float64) scales; a NaN gives
 * smax = inf (no bound). Float32 scales by their magnitudes' bits as unsigned
 * integers, whose order is the numbers' (a NaN's bits lie above infinity's), 16 (AVX-512)
 * or 8 lanes at a time in two independent pairs of min / max: no compare, no NaN test
 * in the loop (a 512-scale period's scan runs on every per-channel call of a chain). */
static inline void rqc_scale_range(const float *sf, const double *sd, size_t n, double *smin,
                                   double *smax)
{
    double lo = INFINITY, hi = 0.0;
    size_t i = 0;
#ifdef __AVX512F__
    if (sf && n) {
        /* the last partial vector masked: its lanes beyond n keep the identities */
        const __m512i mag = _mm512_set1_epi32(0x7FFFFFFF), ones = _mm512_set1_epi32(-1);
        __m512i lo0 = ones, lo1 = ones, hi0 = _mm512_setzero_si512(), hi1 = hi0;
        for (; n - i >= 32; i += 32) {
            const __m512i a = _mm512_and_si512(_mm512_loadu_si512(sf + i), mag);
            const __m512i b = _mm512_and_si512(_mm512_loadu_si512(sf + i + 16), mag);
            lo0 = _mm512_min_epu32(lo0, a), hi0 = _mm512_max_epu32(hi0, a);
            lo1 = _mm512_min_epu32(lo1, b), hi1 = _mm512_max_epu32(hi1, b);
        }
        for (; i < n; i += 16) {
            const __mmask16 k = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
            const __m512i a = _mm512_and_si512(_mm512_maskz_loadu_epi32(k, sf + i), mag);
            lo0 = _mm512_mask_min_epu32(lo0, k, lo0, a), hi0 = _mm512_max_epu32(hi0, a);
        }
        const uint32_t lb = _mm512_reduce_min_epu32(_mm512_min_epu32(lo0, lo1));
        const uint32_t hb = _mm512_reduce_max_epu32(_mm512_max_epu32(hi0, hi1));
        float f;
        memcpy(&f, &lb, sizeof f);
        lo = f; /* a NaN only when every scale is one: hi is then inf */
        memcpy(&f, &hb, sizeof f);
        hi = hb > 0x7F800000u ? INFINITY : f;
        i = n;
    }
#else
    if (sf && n >= 16) {
        uint32_t lb = 0xFFFFFFFFu, hb = 0, l[8], h[8];
        const __m256i mag = _mm256_set1_epi32(0x7FFFFFFF);
        __m256i lo0 = _mm256_set1_epi32(-1), lo1 = lo0, hi0 = _mm256_setzero_si256(), hi1 = hi0;
        for (; n - i >= 16; i += 16) {
            const __m256i a = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(sf + i)), mag);
            const __m256i b =
                _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(sf + i + 8)), mag);
            lo0 = _mm256_min_epu32(lo0, a), hi0 = _mm256_max_epu32(hi0, a);
            lo1 = _mm256_min_epu32(lo1, b), hi1 = _mm256_max_epu32(hi1, b);
        }
        _mm256_storeu_si256((__m256i *)l, _mm256_min_epu32(lo0, lo1));
        _mm256_storeu_si256((__m256i *)h, _mm256_max_epu32(hi0, hi1));
        for (int k = 0; k < 8; k++) {
            lb = l[k] < lb ? l[k] : lb;
            hb = h[k] > hb ? h[k] : hb;
        }
        float f;
        memcpy(&f, &lb, sizeof f);
        lo = f; /* a NaN only when every scale scanned is one: hi is then inf */
        memcpy(&f, &hb, sizeof f);
        hi = hb > 0x7F800000u ? INFINITY : f;
    }
#endif
    for (; i < n; i++) {
        const double s = fabs(sd ? rqf_f64_at(sd, i) : (double)sf[i]);
        lo = s < lo ? s : lo;
        hi = s > hi || s != s ? (s != s ? INFINITY : s) : hi;
    }
    *smin = lo, *smax = hi;
}

/* Per channel, c != 1: q folded by rqc_fold_pow2 to the scale and the one multiplier c
 * (fp_mode SIMDOPS_RQ_FP_PRE alone: float32, ties even, no other step) runs as the
 * default with the scales c * s[k], copied into buf (the call's: one period, else n; at
 * most RQC_FOLD_SCALES): c * s[k] is exact (a power of two times a float32, normal by
 * rqc_fold_pow2's bounds on |c| smin and |c| smax), so fl(A * (c s)) = fl(fl(A c) s),
 * rqc_fold_plain's argument with the product taken the other way. chs gets ch with
 * those scales and whether every |c s| < 1 (smax exact: the scan's largest |s|).
 * The step loop (RQC_PRE) paid one more multiply per vector. Rewrites q and chs and
 * returns 1, else 0. */
#define RQC_FOLD_SCALES 1024
static inline int rqc_fold_scales(const simdops_requant_channels *ch, size_t n, double smax,
                                  simdops_requant_params *q, simdops_requant_channels *chs,
                                  float *buf)
{
    const size_t reads = ch->period ? ch->period : n;
    if (q->fp_mode != SIMDOPS_RQ_FP_PRE || !ch->scale || reads > RQC_FOLD_SCALES)
        return 0;
    const float c = q->pre_scale;
    for (size_t i = 0; i < reads; i++)
        buf[i] = ch->scale[i] * c; /* exact */
    *chs = *ch;
    chs->scale = buf;
    chs->scales_below_one = smax * fabs((double)c) < 1.0;
    q->fp_mode = 0;
    return 1;
}

/* a tier's default float entry (requant_families_<tier>.c), which a fold runs */
typedef void (*rqc_entry_fn)(const int32_t *x, void *y, size_t n, const int32_t *bias,
                             const simdops_requant_channels *ch, const simdops_requant_params *p,
                             int out, int unused);

/* Per tensor: p folded (rqc_fold_pow2, the scale its own bound) and run by entry as the
 * default when only the scale is left (rqc_fold_plain): NULL, the call done; else the
 * parameters to run step by step (q when folded, else p). */
static inline const simdops_requant_params *rqc_fold_tensor(const int32_t *x, void *y, size_t n,
                                                           const int32_t *bias,
                                                           const simdops_requant_params *p,
                                                           int out, rqc_entry_fn entry,
                                                           simdops_requant_params *q)
{
    const double s = fabs(p->fp_mode & SIMDOPS_FP_FLOAT64 ? p->scale64 : (double)p->scale);
    if (!rqc_fold_pow2(p, bias, s, s, q))
        return p;
    if (!rqc_fold_plain(q, 0))
        return q;
    entry(x, y, n, bias, NULL, q, out, 0);
    return NULL;
}

/* rqc_fold_scales and entry on its scaled copy: a function of its own, so that the
 * copy's 4 KB are not in the frame of every per-channel call. 1: the call done. */
static int rqc_pc_scaled(const int32_t *x, void *y, size_t n, const int32_t *bias,
                         const simdops_requant_channels *ch, double smax,
                         simdops_requant_params *q, int out, rqc_entry_fn entry)
{
    simdops_requant_channels chs;
    float buf[RQC_FOLD_SCALES];
    if (!rqc_fold_scales(ch, n, smax, q, &chs, buf))
        return 0;
    entry(x, y, n, bias, &chs, q, out, 0);
    return 1;
}

/* How many scales a per-channel call reads, when a scan of them for the fold
 * (rqc_fold_pow2) is worth it, else 0: one period when the vectors restart within the
 * call; without restarts (period 0) the call reads n scales, scanned when n is short:
 * the head the driver runs before x's 64-byte lines (up to 15 elements) and tiny
 * calls, which unfolded pay the chain's setup (~45 ns, 1% of a 64K-element call). */
#define RQC_SCAN_SHORT 64
static inline size_t rqc_scan_span(const simdops_requant_channels *ch, size_t n)
{
    if (ch->period) /* a cycle (the scales repeat after it) holds every scale of a period */
        return ch->period > n ? 0 : ch->cycle ? ch->cycle : ch->period;
    return n <= RQC_SCAN_SHORT ? n : 0;
}

/* the avx2 tier's entries (the avx512 tier, which includes this file for the
 * shared parts, has its own in rq_chain_avx512.h) */
#ifndef SIMDOPS_RQ_CHAIN_AVX512_H
/* requantize_fp32's default kernels, which a chain folded to one multiplier runs
 * (rqc_fold_plain): the entry of the file including this one
 * (requant_families_avx2.c), with fp_mode 0 */
static inline void rqf_fp_entry(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                const simdops_requant_channels *ch,
                                const simdops_requant_params *p, int out, int unused);

/* the runtimes' combinations get a loop each; the rest the general one. Ties away
 * runs as RQC_HALF here (rqf_chain_init's pred(0.5)). */
static inline void rqf_chain_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                    const float *scales, const double *sd,
                                    const simdops_requant_params *p, int out)
{
    simdops_requant_params q;
    if (!scales && !sd && !(p = rqc_fold_tensor(x, y, n, bias, p, out, rqf_fp_entry, &q)))
        return;
    const int m = p->fp_mode;
    const int k = rqf_chain_steps(p, bias) | (m & SIMDOPS_FP_TIES_AWAY ? RQC_HALF : 0) |
                  (m & SIMDOPS_FP_FLOAT64 ? RQC_F64 | (sd ? RQC_S64 : 0) : 0);
#define RQC_AVX2_CASE(K)                                                                \
    case K:                                                                             \
        rqf_chain_loop(x, y, n, bias, scales, sd, p, out, K);                           \
        return;
    switch (k) {
    RQC_AVX2_CASE(0)                 /* oneDNN's powers of two, folded (rqc_fold_pow2) */
    RQC_AVX2_CASE(RQC_PRE)                               /* ... into one multiplier */
    RQC_AVX2_CASE(RQC_PRE | RQC_POST_MUL)                /* oneDNN's JIT */
    RQC_AVX2_CASE(RQC_PRE | RQC_FB_AFTER | RQC_POST_MUL)
    RQC_AVX2_CASE(RQC_OFF)                               /* OpenVINO */
    RQC_AVX2_CASE(RQC_FB_FIRST)                          /* fbgemm's float bias */
    RQC_AVX2_CASE(RQC_HALF)                              /* ncnn's x86; ties away */
    RQC_AVX2_CASE(RQC_F64 | RQC_HALF)                    /* LiteRT's reference, per tensor */
    RQC_AVX2_CASE(RQC_F64 | RQC_HALF | RQC_S64)          /* ... per channel */
    default:
        rqf_chain_loop(x, y, n, bias, scales, sd, p, out, k);
    }
#undef RQC_AVX2_CASE
}

/* the per-channel form: the vectors restart every ch->period elements */
static inline void rqf_chain_pc(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                const simdops_requant_channels *ch,
                                const simdops_requant_params *p, int out)
{
    simdops_requant_params q;
    double smin, smax;
    const int post = p->fp_mode & (SIMDOPS_RQ_FP_POST_MUL | SIMDOPS_RQ_FP_POST_DIV);
    const size_t span = rqc_scan_span(ch, n);
    /* the scales the call reads, scanned only for a fold's candidate */
    if (span && (p->fp_mode & SIMDOPS_RQ_FP_PRE) && post) {
        rqc_scale_range(ch->scale64 ? NULL : ch->scale, ch->scale64, span, &smin, &smax);
        if (rqc_fold_pow2(p, bias, smin, smax, &q)) {
            if (rqc_fold_plain(&q, 1)) {
                rqf_fp_entry(x, y, n, bias, ch, &q, out, 0);
                return;
            }
            if (rqc_pc_scaled(x, y, n, bias, ch, smax, &q, out, rqf_fp_entry))
                return;
            p = &q;
        }
    }
    for (size_t done = 0, m; done < n; done += m) {
        m = simdops_requant_stretch(ch, n - done);
        rqf_chain_kernel(x + done, (char *)y + done * simdops_requant_out_size(out), m, bias,
                         ch->scale64 ? NULL : ch->scale, ch->scale64, p, out);
    }
}

#endif /* SIMDOPS_RQ_CHAIN_AVX512_H */

#endif
