/* The float families' chain (simdops_requant_fp_chain, a float32 bias, ties even
 * or add_half; float32 precision) in AVX2: included by the avx2 and avx512 tiers
 * (the AVX-512 flags include AVX2). Lane for lane rqf_fp_ext (requant_families.h):
 * each step one float32 operation in the chain's order (the build never
 * contracts), then max(v, lo - zp) first, whose operand order turns a NaN into
 * the lower bound as the scalar's NaN -> min does, min(v, hi - zp), and the
 * rounding: cvtps (nearest even, the default MXCSR mode the scalar's rounding
 * assumes too) or, for add_half, cvttps of v + copysign(0.5, v). The clamped
 * value lies within +-65535, so both converts are exact and the packs store it.
 * Other float modes (float64, ties away, float64 scales) keep the scalar rows. */
#ifndef SIMDOPS_RQ_CHAIN_AVX2_H
#define SIMDOPS_RQ_CHAIN_AVX2_H

#include <immintrin.h>

#include "requant_families.h"

/* whether rqf_chain_kernel runs these parameters */
static inline int rqf_chain_fits(const simdops_requant_params *p, const simdops_requant_channels *ch)
{
    return !(p->fp_mode & (SIMDOPS_FP_FLOAT64 | SIMDOPS_FP_TIES_AWAY | SIMDOPS_FP_ACL)) &&
           !(ch && ch->scale64);
}

/* The chain's vector operations: flags known per call, loaded once. */
typedef struct rqf_chain_c {
    __m256 pre, post, off, flo, fhi, half, sign;
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
    c->half = _mm256_set1_ps(0.5f);
    c->sign = _mm256_set1_ps(-0.0f);
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
#define RQC_HALF 64

RQF_INLINE __m256i rqf_chain_vec(__m256i a, __m256 fb, __m256 scale, const rqf_chain_c *c,
                                 const int k)
{
    __m256 v = _mm256_cvtepi32_ps(a);
    if (k & RQC_FB_FIRST)
        v = _mm256_add_ps(v, fb);
    if (k & RQC_PRE)
        v = _mm256_mul_ps(v, c->pre);
    v = _mm256_mul_ps(v, scale);
    if (k & RQC_FB_AFTER)
        v = _mm256_add_ps(v, fb);
    if (k & RQC_POST_MUL)
        v = _mm256_mul_ps(v, c->post);
    else if (k & RQC_POST_DIV)
        v = _mm256_div_ps(v, c->post);
    if (k & RQC_OFF)
        v = _mm256_add_ps(v, c->off);
    v = _mm256_min_ps(_mm256_max_ps(v, c->flo), c->fhi);
    __m256i r = (k & RQC_HALF)
                    ? _mm256_cvttps_epi32(_mm256_add_ps(
                          v, _mm256_or_ps(c->half, _mm256_and_ps(v, c->sign))))
                    : _mm256_cvtps_epi32(v);
    return _mm256_add_epi32(r, c->zp);
}

/* 32 lanes (each in [lo, hi]) stored as out_dtype */
static inline void rqf_chain_store(void *y, __m256i v0, __m256i v1, __m256i v2, __m256i v3,
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
                               const float *scales, const simdops_requant_params *p, int out,
                               const int k)
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
        for (int j = 0; j < 4; j++) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(x + i + 8 * j));
            if (ibias)
                a = _mm256_add_epi32(a, _mm256_loadu_si256((const __m256i *)(ibias + i + 8 * j)));
            if (fbias)
                fb[j] = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(bias + i + 8 * j)));
            if (scales)
                s[j] = _mm256_loadu_ps(scales + i + 8 * j);
            v[j] = rqf_chain_vec(a, fb[j], s[j], &c, k);
        }
        rqf_chain_store((char *)y + i * es, v[0], v[1], v[2], v[3], out);
    }
    for (; i < n; i++) {
        int32_t a = ibias ? simdops_wrap32((int64_t)x[i] + ibias[i]) : x[i];
        float sc = scales ? scales[i] : p->scale;
        rqf_store_one(y, i, rqf_fp_ext(a, fbias ? rqf_float_bias(bias, i) : 0.0f, sc,
                                       (double)sc, p), out);
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

/* the runtimes' combinations get a loop each; the rest the general one */
static inline void rqf_chain_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                    const float *scales, const simdops_requant_params *p, int out)
{
    switch (rqf_chain_steps(p, bias)) {
    case RQC_PRE | RQC_POST_MUL: /* oneDNN's JIT */
        rqf_chain_loop(x, y, n, bias, scales, p, out, RQC_PRE | RQC_POST_MUL);
        return;
    case RQC_PRE | RQC_FB_AFTER | RQC_POST_MUL:
        rqf_chain_loop(x, y, n, bias, scales, p, out, RQC_PRE | RQC_FB_AFTER | RQC_POST_MUL);
        return;
    case RQC_OFF: /* OpenVINO */
        rqf_chain_loop(x, y, n, bias, scales, p, out, RQC_OFF);
        return;
    case RQC_FB_FIRST: /* fbgemm's float bias */
        rqf_chain_loop(x, y, n, bias, scales, p, out, RQC_FB_FIRST);
        return;
    case RQC_HALF: /* ncnn's x86 */
        rqf_chain_loop(x, y, n, bias, scales, p, out, RQC_HALF);
        return;
    default:
        rqf_chain_loop(x, y, n, bias, scales, p, out, rqf_chain_steps(p, bias));
    }
}

/* the per-channel form: the vectors restart every ch->period elements */
static inline void rqf_chain_pc(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                const simdops_requant_channels *ch,
                                const simdops_requant_params *p, int out)
{
    for (size_t done = 0, m; done < n; done += m) {
        m = simdops_requant_stretch(ch, n - done);
        rqf_chain_kernel(x + done, (char *)y + done * simdops_requant_out_size(out), m, bias,
                         ch->scale, p, out);
    }
}

#endif
