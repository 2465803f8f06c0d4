/* AVX2 kernels of the requantization families: the float default (MLAS /
 * XNNPACK fp32) and single rounding, per tensor and per channel; single rounding
 * with ties away is requant_families_x86.h's (over rq_vec_avx2.h). Parameters
 * outside a kernel's fast form (other float modes; single rounding whose
 * multiplier cannot be normalised to a total shift >= 32, or whose bounds
 * minus the offset leave int32) run the scalar arithmetic (requant_families.h). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#define SIMDOPS_TIER avx2
#define RQ_X86_FAST 1
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "requant_families.h"
#include "rq_chain_avx2.h"
#include "rq_vec_avx2.h"
#include "requant_x86_body.h"
#include "requant_families_x86.h"

/* rqf_store (32 lanes, each in [lo, hi], stored as out_dtype): rq_chain_avx2.h */

static inline __m256i rqf_load(const int32_t *x, const int32_t *bias, size_t i)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)(x + i));
    return bias ? _mm256_add_epi32(a, _mm256_loadu_si256((const __m256i *)(bias + i))) : a;
}


/* ------------------------------------------------------------------ float family, mode 0 */

/* four vectors of per-channel scales (a step of the float loops) */
static inline void rqf_scales4(const float *s, __m256 *s0, __m256 *s1, __m256 *s2, __m256 *s3)
{
    *s0 = _mm256_loadu_ps(s);
    *s1 = _mm256_loadu_ps(s + 8);
    *s2 = _mm256_loadu_ps(s + 16);
    *s3 = _mm256_loadu_ps(s + 24);
}

/* The float clamp to [lo, hi] (lo = min - offset, hi = max - offset, integers
 * exact in float) rounded equals the rounded value clamped, so only the upper
 * bound is applied in float (it also keeps positive overflow out of the
 * convert) and the lower one in int32 after it: a value below -2^31 converts to
 * INT32_MIN, which the clamp lifts to lo as the float clamp would. The two float
 * clamps shared the port of both converts (three ops there a vector, not four). */
static inline __m256i rqf_fp_vec(__m256i a, __m256 scale, __m256i lo, __m256 fhi, __m256i zp)
{
    __m256 v = _mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a), scale), fhi);
    return _mm256_add_epi32(_mm256_max_epi32(_mm256_cvtps_epi32(v), lo), zp);
}

static inline void rqf_fp_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                 const float *scales, const simdops_requant_params *p, int out)
{
    const __m256i lo = _mm256_set1_epi32(p->min - p->offset);
    const __m256 fhi = _mm256_set1_ps((float)(p->max - p->offset));
    const __m256i zp = _mm256_set1_epi32(p->offset);
    __m256 s0 = _mm256_set1_ps(p->scale), s1 = s0, s2 = s0, s3 = s0;
    const size_t es = simdops_requant_out_size(out);
    size_t i = 0;
    for (; n - i >= 32; i += 32) {
        if (scales)
            rqf_scales4(scales + i, &s0, &s1, &s2, &s3);
        __m256i v0 = rqf_fp_vec(rqf_load(x, bias, i), s0, lo, fhi, zp);
        __m256i v1 = rqf_fp_vec(rqf_load(x, bias, i + 8), s1, lo, fhi, zp);
        __m256i v2 = rqf_fp_vec(rqf_load(x, bias, i + 16), s2, lo, fhi, zp);
        __m256i v3 = rqf_fp_vec(rqf_load(x, bias, i + 24), s3, lo, fhi, zp);
        rqf_store((char *)y + i * es, v0, v1, v2, v3, out);
    }
    for (; i < n; i++) {
        int32_t a = bias ? simdops_wrap32((int64_t)x[i] + bias[i]) : x[i];
        float s = scales ? scales[i] : p->scale;
        rqf_store_one(y, i, rqf_fp(a, s, s, 0, p->offset, p->min, p->max), out);
    }
}

/* 8-bit outputs when every |scale| < 1 (so |float(acc) * scale| < 2^31 and the
 * convert never overflows): no clamp in float or int32. The rounded values
 * narrow to int16 with saturation, take the offset with a saturating int16 add
 * and narrow to 8 bits with saturation; min and max are then one byte clamp per
 * 32 outputs. Exact: with |offset| <= 255, a value saturated at either 16-bit
 * step lies beyond the 8-bit type on the same side as the exact sum, and
 * clamp(sat8(v), min, max) = clamp(v, min, max) for min, max in the type. Only
 * the two converts remain on the port they share with float min / max. */
static inline __m256i rqf_fp_round(__m256i a, __m256 scale)
{
    return _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_cvtepi32_ps(a), scale));
}

/* has_bias and per_channel are constants at every call: one loop per case,
 * without a test in it (the tests cost a per-channel call 12-15% on avx512) */
RQF_INLINE void rqf_fp8_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                               const float *scales, const simdops_requant_params *p, int out,
                               const int has_bias, const int per_channel)
{
    const __m256i zp = _mm256_set1_epi16((int16_t)p->offset);
    const __m256i bmin = _mm256_set1_epi8((char)p->min), bmax = _mm256_set1_epi8((char)p->max);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256 s0 = _mm256_set1_ps(p->scale), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    const int32_t *b = has_bias ? bias : NULL;
    for (; n - i >= 32; i += 32) {
        if (per_channel)
            rqf_scales4(scales + i, &s0, &s1, &s2, &s3);
        __m256i r0 = rqf_fp_round(rqf_load(x, b, i), s0);
        __m256i r1 = rqf_fp_round(rqf_load(x, b, i + 8), s1);
        __m256i r2 = rqf_fp_round(rqf_load(x, b, i + 16), s2);
        __m256i r3 = rqf_fp_round(rqf_load(x, b, i + 24), s3);
        __m256i p01 = _mm256_adds_epi16(_mm256_packs_epi32(r0, r1), zp);
        __m256i p23 = _mm256_adds_epi16(_mm256_packs_epi32(r2, r3), zp);
        __m256i v;
        if (out == SIMDOPS_RQ_U8)
            v = _mm256_min_epu8(_mm256_max_epu8(_mm256_packus_epi16(p01, p23), bmin), bmax);
        else
            v = _mm256_min_epi8(_mm256_max_epi8(_mm256_packs_epi16(p01, p23), bmin), bmax);
        _mm256_storeu_si256((__m256i *)((char *)y + i), _mm256_permutevar8x32_epi32(v, order));
    }
    for (; i < n; i++) {
        int32_t a = has_bias ? simdops_wrap32((int64_t)x[i] + bias[i]) : x[i];
        float s = per_channel ? scales[i] : p->scale;
        rqf_store_one(y, i, rqf_fp(a, s, s, 0, p->offset, p->min, p->max), out);
    }
}

/* below_one: every |scale| < 1 (see rqf_fp8_kernel); per_channel a constant */
RQF_INLINE void rqf_fp_run(const int32_t *x, void *y, size_t n, const int32_t *bias,
                           const float *scales, int below_one,
                           const simdops_requant_params *p, int out, const int per_channel)
{
    if (out != SIMDOPS_RQ_I16 && below_one)
        if (bias)
            rqf_fp8_kernel(x, y, n, bias, scales, p, out, 1, per_channel);
        else
            rqf_fp8_kernel(x, y, n, NULL, scales, p, out, 0, per_channel);
    else
        rqf_fp_kernel(x, y, n, bias, scales, p, out);
}

/* ------------------------------------------------------------------ single rounding
 * q = floor((a*m + 2^(t-1)) / 2^t) with t >= 32 is the high word of the 64-bit
 * sum (a floor division by 2^32) shifted right arithmetically by t - 32. A total
 * shift t < 32 is raised to 32 by m << (32 - t) when that fits int32 (the same
 * quotient). The bounds become [min - offset, max - offset] in int32, so the
 * offset is added after the clamp without overflow. */

static inline int rqf_bounds_fit(const simdops_requant_params *p)
{
    int64_t lo = (int64_t)p->min - p->offset, hi = (int64_t)p->max - p->offset;
    return lo >= INT32_MIN && hi <= INT32_MAX;
}

static inline __m256i rqf_single_vec(__m256i a, __m256i m, __m256i mo, __m256i re, __m256i ro,
                                     __m256i u, __m256i lo, __m256i hi, __m256i off)
{
    __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(a, m), re);
    __m256i po = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), mo), ro);
    __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
    __m256i q = _mm256_srav_epi32(h, u);
    return _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(q, lo), hi), off);
}

/* t >= 33: 2^(t-1) is a multiple of 2^32, so the rounding term goes on the high
 * word (floor((p + 2^(t-1)) / 2^t) = floor((floor(p / 2^32) + 2^(u-1)) / 2^u),
 * u = t - 32 >= 1; |high word| <= 2^30, no overflow): no 64-bit adds. */
static inline __m256i rqf_single_hi_vec(__m256i a, __m256i m, __m256i r32, __m256i u,
                                        __m256i lo, __m256i hi, __m256i off)
{
    __m256i pe = _mm256_mul_epi32(a, m);
    __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), m);
    __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
    __m256i q = _mm256_srav_epi32(_mm256_add_epi32(h, r32), u);
    return _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(q, lo), hi), off);
}

static inline void rqf_single_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                     const simdops_requant_params *p, int out)
{
    int32_t m = p->multiplier, shift = p->right_shift - p->left_shift;
    const size_t es = simdops_requant_out_size(out);
    size_t i = 0;
    /* no 32-bit multiplier for t >= 32: all through the scalar arithmetic */
    const int fast = rqf_bounds_fit(p) && rqf_single_normalise(&m, &shift);
    const int t = 31 + shift;
    if (fast) {
        const __m256i mv = _mm256_set1_epi32(m);
        const __m256i r = _mm256_set1_epi64x((int64_t)1 << (t - 1));
        const __m256i u = _mm256_set1_epi32(t - 32);
        const __m256i lo = _mm256_set1_epi32(p->min - p->offset);
        const __m256i hi = _mm256_set1_epi32(p->max - p->offset);
        const __m256i off = _mm256_set1_epi32(p->offset);
        if (t >= 33) {
            const __m256i r32 = _mm256_set1_epi32(1 << (t - 33)); /* 2^(u-1) */
            for (; n - i >= 32; i += 32) {
                __m256i v0 = rqf_single_hi_vec(rqf_load(x, bias, i), mv, r32, u, lo, hi, off);
                __m256i v1 = rqf_single_hi_vec(rqf_load(x, bias, i + 8), mv, r32, u, lo, hi, off);
                __m256i v2 = rqf_single_hi_vec(rqf_load(x, bias, i + 16), mv, r32, u, lo, hi, off);
                __m256i v3 = rqf_single_hi_vec(rqf_load(x, bias, i + 24), mv, r32, u, lo, hi, off);
                rqf_store((char *)y + i * es, v0, v1, v2, v3, out);
            }
        }
        for (; n - i >= 32; i += 32) {
            __m256i v0 = rqf_single_vec(rqf_load(x, bias, i), mv, mv, r, r, u, lo, hi, off);
            __m256i v1 = rqf_single_vec(rqf_load(x, bias, i + 8), mv, mv, r, r, u, lo, hi, off);
            __m256i v2 = rqf_single_vec(rqf_load(x, bias, i + 16), mv, mv, r, r, u, lo, hi, off);
            __m256i v3 = rqf_single_vec(rqf_load(x, bias, i + 24), mv, mv, r, r, u, lo, hi, off);
            rqf_store((char *)y + i * es, v0, v1, v2, v3, out);
        }
    }
    rqf_int_rest(x, y, i, n, bias, NULL, p, out, RQF_SINGLE);
}

/* Per channel: each lane's multiplier normalised to t >= 32 in registers; a
 * block where some lane cannot be runs the scalar arithmetic. Returns 0 then. */
static inline int rqf_single_pc_vec(const int32_t *x, const int32_t *bias,
                                    const simdops_requant_channels *ch, size_t i, __m256i lo,
                                    __m256i hi, __m256i off, __m256i *res)
{
    const __m256i c31 = _mm256_set1_epi32(31), c32 = _mm256_set1_epi32(32);
    const __m256i one = _mm256_set1_epi64x(1), lowmask = _mm256_set1_epi64x(0xFFFFFFFF);
    __m256i m = _mm256_loadu_si256((const __m256i *)(ch->mult + i));
    __m256i t = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(ch->shift + i)), c31);
    __m256i k = _mm256_max_epi32(_mm256_sub_epi32(c32, t), _mm256_setzero_si256());
    __m256i mk = _mm256_sllv_epi32(m, k);
    if (!_mm256_testc_si256(_mm256_cmpeq_epi32(_mm256_srav_epi32(mk, k), m), _mm256_set1_epi32(-1)))
        return 0;
    t = _mm256_add_epi32(t, k);
    __m256i tm1 = _mm256_sub_epi32(t, _mm256_set1_epi32(1));
    __m256i re = _mm256_sllv_epi64(one, _mm256_and_si256(tm1, lowmask));
    __m256i ro = _mm256_sllv_epi64(one, _mm256_srli_epi64(tm1, 32));
    *res = rqf_single_vec(rqf_load(x, bias, i), mk, _mm256_srli_epi64(mk, 32), re, ro,
                          _mm256_sub_epi32(t, c32), lo, hi, off);
    return 1;
}

/* Per channel with the driver's derived arrays (every channel normalised, u =
 * t - 32 >= 1: simdops_requant_channels_init_single): rqf_single_hi_vec with
 * the multiplier and shift loaded per lane and 2^(u-1) made in a register. */
static inline __m256i rqf_single_derived_vec(__m256i a, const int32_t *mult, const int32_t *u,
                                             __m256i lo, __m256i hi, __m256i off)
{
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i m = _mm256_loadu_si256((const __m256i *)mult);
    const __m256i uu = _mm256_loadu_si256((const __m256i *)u);
    __m256i pe = _mm256_mul_epi32(a, m);
    __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(m, 32));
    __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
    __m256i r32 = _mm256_sllv_epi32(one, _mm256_sub_epi32(uu, one));
    __m256i q = _mm256_srav_epi32(_mm256_add_epi32(h, r32), uu);
    return _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(q, lo), hi), off);
}

static inline void rqf_single_pc_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                        const simdops_requant_channels *ch,
                                        const simdops_requant_params *p, int out)
{
    const size_t es = simdops_requant_out_size(out);
    size_t i = 0;
    if (rqf_bounds_fit(p)) {
        const __m256i lo = _mm256_set1_epi32(p->min - p->offset);
        const __m256i hi = _mm256_set1_epi32(p->max - p->offset);
        const __m256i off = _mm256_set1_epi32(p->offset);
        if (ch->right && !ch->general) {
            /* the driver's derived arrays: every channel normalised, u >= 1 */
            for (; n - i >= 32; i += 32) {
                __m256i v0 = rqf_single_derived_vec(rqf_load(x, bias, i), ch->mult + i,
                                                    ch->right + i, lo, hi, off);
                __m256i v1 = rqf_single_derived_vec(rqf_load(x, bias, i + 8), ch->mult + i + 8,
                                                    ch->right + i + 8, lo, hi, off);
                __m256i v2 = rqf_single_derived_vec(rqf_load(x, bias, i + 16), ch->mult + i + 16,
                                                    ch->right + i + 16, lo, hi, off);
                __m256i v3 = rqf_single_derived_vec(rqf_load(x, bias, i + 24), ch->mult + i + 24,
                                                    ch->right + i + 24, lo, hi, off);
                rqf_store((char *)y + i * es, v0, v1, v2, v3, out);
            }
        }
        for (; n - i >= 32; i += 32) {
            __m256i v0, v1, v2, v3;
            if (rqf_single_pc_vec(x, bias, ch, i, lo, hi, off, &v0) &&
                rqf_single_pc_vec(x, bias, ch, i + 8, lo, hi, off, &v1) &&
                rqf_single_pc_vec(x, bias, ch, i + 16, lo, hi, off, &v2) &&
                rqf_single_pc_vec(x, bias, ch, i + 24, lo, hi, off, &v3))
                rqf_store((char *)y + i * es, v0, v1, v2, v3, out);
            else
                rqf_int_rest(x, y, i, i + 32, bias, ch, p, out, RQF_SINGLE);
        }
    }
    rqf_int_rest(x, y, i, n, bias, ch, p, out, RQF_SINGLE);
}

/* ------------------------------------------------------------------ entries */

static inline void rqf_fp_entry(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                const simdops_requant_channels *ch,
                                const simdops_requant_params *p, int out, int unused)
{
    (void)unused;
    if (p->fp_mode && rqf_chain_fits(p, ch)) {
        if (ch)
            rqf_chain_pc(x, y, n, bias, ch, p, out);
        else
            rqf_chain_kernel(x, y, n, bias, NULL, NULL, p, out);
    } else if (p->fp_mode) {
        rqf_fp_rows(x, y, n, bias, ch, p, out, 0);
    } else if (!ch) {
        rqf_fp_run(x, y, n, bias, NULL, fabsf(p->scale) < 1.0f, p, out, 0);
    } else {
        for (size_t done = 0, m; done < n; done += m) {
            m = simdops_requant_stretch(ch, n - done);
            rqf_fp_run(x + done, (char *)y + done * simdops_requant_out_size(out), m, bias,
                       ch->scale, ch->scales_below_one, p, out, 1);
        }
    }
}

static inline void rqf_single_entry(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                    const simdops_requant_channels *ch,
                                    const simdops_requant_params *p, int out, int unused)
{
    (void)unused;
    if (rqfx_fast(x, y, n, bias, ch, p, out, RQF_SINGLE))
        return;
    if (!ch) {
        rqf_single_kernel(x, y, n, bias, p, out);
        return;
    }
    /* pieces of ch->period elements when it is set: the arrays and bias from
     * their start in each, as a call of the driver's per period */
    for (size_t done = 0, m; done < n; done += m) {
        m = simdops_requant_stretch(ch, n - done);
        rqf_single_pc_kernel(x + done, (char *)y + done * simdops_requant_out_size(out), m, bias,
                             ch, p, out);
    }
}

RQF_ENTRIES3(fp, rqf_fp_entry, 0)
RQF_ENTRIES3(single, rqf_single_entry, 0)
RQF_ENTRIES3(single_away, rqfx_fast_run, RQF_SINGLE_AWAY)

#define RQF_KERNELS(X) RQF_LIST(X, fp) RQF_LIST(X, single) RQF_LIST(X, single_away)
/* rqf_single_entry and rqfx_fast_run restart every ch->period elements (fp
 * always does: not marked) */
#define RQF_RESTARTS(X) RQF_PC_LIST(X, single) RQF_PC_LIST(X, single_away)
SIMDOPS_DEFINE_REGISTER_RESTARTING(requant_families, RQF_KERNELS, RQF_RESTARTS)

#else
SIMDOPS_TIER_NOT_COMPILED(requant_families, avx2)
#endif
