/* AVX-512 kernels of the float requantization family (MLAS / XNNPACK fp32,
 * mode 0), per tensor and per channel: 16 lanes a vector, four vectors a step,
 * tails through masked loads and stores (no scalar loop). Lane for lane the
 * avx2 arithmetic: float(acc) * scale, clamped in float to [min - offset,
 * max - offset], rounded half to even, plus the offset in int32. The rounding
 * is the instruction's embedded nearest-even mode, so it does not depend on
 * MXCSR. A clamped lane is in the output type's range, so packs and the
 * truncating narrow of the masked tail (vpmovdb / vpmovdw) store it exactly. The other float modes, and
 * the integer families, keep the tiers below (entries left NULL inherit avx2's). */
#include "../../internal.h"
#include "../../isa.h"

#if SIMDOPS_COMPILE_AVX512
#include <immintrin.h>
#include <math.h>

#include "requant_families.h"

static inline __m512i rqf512_load(const int32_t *x, const int32_t *bias, size_t i, __mmask16 m)
{
    __m512i a = _mm512_maskz_loadu_epi32(m, x + i);
    return bias ? _mm512_add_epi32(a, _mm512_maskz_loadu_epi32(m, bias + i)) : a;
}

/* four vectors of per-channel scales (a step of the float loops) */
static inline void rqf512_scales4(const float *s, __m512 *s0, __m512 *s1, __m512 *s2, __m512 *s3)
{
    *s0 = _mm512_loadu_ps(s);
    *s1 = _mm512_loadu_ps(s + 16);
    *s2 = _mm512_loadu_ps(s + 32);
    *s3 = _mm512_loadu_ps(s + 48);
}

/* a full vector: plain loads (the masked form is for tails) */
static inline __m512i rqf512_load_full(const int32_t *x, const int32_t *bias, size_t i)
{
    __m512i a = _mm512_loadu_si512(x + i);
    return bias ? _mm512_add_epi32(a, _mm512_loadu_si512(bias + i)) : a;
}

/* the upper clamp in float, the lower one in int32 after the convert: the avx2
 * kernel's reasoning (requant_families_avx2.c) */
static inline __m512i rqf512_fp_vec(__m512i a, __m512 scale, __m512i lo, __m512 fhi, __m512i zp)
{
    __m512 v = _mm512_min_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(a), scale), fhi);
    __m512i r = _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm512_add_epi32(_mm512_max_epi32(r, lo), zp);
}

static inline void rqf512_store(void *y, size_t i, __m512i v, __mmask16 m, int out)
{
    if (out == SIMDOPS_RQ_I16)
        _mm512_mask_cvtepi32_storeu_epi16((int16_t *)y + i, m, v);
    else
        _mm512_mask_cvtepi32_storeu_epi8((int8_t *)y + i, m, v);
}

/* four full vectors (already in the output type's range, so the saturating packs
 * change nothing) packed within 128-bit lanes, then put in order by one permute:
 * fewer shuffles than four narrows (vpmovdb is two uops) and three inserts */
static inline void rqf512_store4(void *y, size_t i, __m512i v0, __m512i v1, __m512i v2,
                                 __m512i v3, int out)
{
    __m512i p01 = _mm512_packs_epi32(v0, v1), p23 = _mm512_packs_epi32(v2, v3);
    if (out == SIMDOPS_RQ_I16) {
        /* lane k of packs(a, b): qwords a_k, b_k */
        const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
        int16_t *d = (int16_t *)y + i;
        _mm512_storeu_si512(d, _mm512_permutexvar_epi64(order, p01));
        _mm512_storeu_si512(d + 32, _mm512_permutexvar_epi64(order, p23));
        return;
    }
    /* lane k of the byte pack: dwords a_k, b_k, c_k, d_k */
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m512i b = out == SIMDOPS_RQ_U8 ? _mm512_packus_epi16(p01, p23) : _mm512_packs_epi16(p01, p23);
    _mm512_storeu_si512((int8_t *)y + i, _mm512_permutexvar_epi32(order, b));
}

static void rqf512_fp_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                             const float *scales, const simdops_requant_params *p, int out)
{
    const __m512i lo = _mm512_set1_epi32(p->min - p->offset);
    const __m512 fhi = _mm512_set1_ps((float)(p->max - p->offset));
    const __m512i zp = _mm512_set1_epi32(p->offset);
    const __mmask16 all = 0xFFFF;
    __m512 s0 = _mm512_set1_ps(p->scale), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; n - i >= 64; i += 64) {
        if (scales)
            rqf512_scales4(scales + i, &s0, &s1, &s2, &s3);
        __m512i v0 = rqf512_fp_vec(rqf512_load(x, bias, i, all), s0, lo, fhi, zp);
        __m512i v1 = rqf512_fp_vec(rqf512_load(x, bias, i + 16, all), s1, lo, fhi, zp);
        __m512i v2 = rqf512_fp_vec(rqf512_load(x, bias, i + 32, all), s2, lo, fhi, zp);
        __m512i v3 = rqf512_fp_vec(rqf512_load(x, bias, i + 48, all), s3, lo, fhi, zp);
        rqf512_store4(y, i, v0, v1, v2, v3, out);
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? all : (__mmask16)((1u << (n - i)) - 1);
        if (scales)
            s0 = _mm512_maskz_loadu_ps(m, scales + i);
        rqf512_store(y, i, rqf512_fp_vec(rqf512_load(x, bias, i, m), s0, lo, fhi, zp), m, out);
    }
}

/* 8-bit outputs when every |scale| < 1: no clamp before the narrowing (the
 * avx2 kernel's rqf_fp8_kernel states why this is exact); the tail takes the
 * general masked loop. */
static inline __m512i rqf512_fp_round(__m512i a, __m512 scale)
{
    return _mm512_cvt_roundps_epi32(_mm512_mul_ps(_mm512_cvtepi32_ps(a), scale),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* has_bias and per_channel are constants at every call, so each entry gets its
 * own loop without a test in it (a 512-element per-channel call spent 12-15%
 * more than the same loop compiled for its case) */
RQF_INLINE void rqf512_fp8_kernel(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                  const float *scales, const simdops_requant_params *p,
                                  int out, const int has_bias, const int per_channel)
{
    const __m512i zp = _mm512_set1_epi16((int16_t)p->offset);
    const __m512i bmin = _mm512_set1_epi8((char)p->min), bmax = _mm512_set1_epi8((char)p->max);
    /* lane k of the byte pack: dwords a_k, b_k, c_k, d_k */
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m512 s0 = _mm512_set1_ps(p->scale), s1 = s0, s2 = s0, s3 = s0;
    const int32_t *b = has_bias ? bias : NULL;
    size_t i = 0;
    for (; n - i >= 64; i += 64) {
        if (per_channel)
            rqf512_scales4(scales + i, &s0, &s1, &s2, &s3);
        __m512i r0 = rqf512_fp_round(rqf512_load_full(x, b, i), s0);
        __m512i r1 = rqf512_fp_round(rqf512_load_full(x, b, i + 16), s1);
        __m512i r2 = rqf512_fp_round(rqf512_load_full(x, b, i + 32), s2);
        __m512i r3 = rqf512_fp_round(rqf512_load_full(x, b, i + 48), s3);
        __m512i p01 = _mm512_adds_epi16(_mm512_packs_epi32(r0, r1), zp);
        __m512i p23 = _mm512_adds_epi16(_mm512_packs_epi32(r2, r3), zp);
        __m512i v;
        if (out == SIMDOPS_RQ_U8)
            v = _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(p01, p23), bmin), bmax);
        else
            v = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(p01, p23), bmin), bmax);
        _mm512_storeu_si512((int8_t *)y + i, _mm512_permutexvar_epi32(order, v));
    }
    if (i < n)
        rqf512_fp_kernel(x + i, (int8_t *)y + i, n - i, has_bias ? bias + i : NULL,
                         per_channel ? scales + i : NULL, p, out);
}

RQF_INLINE void rqf512_fp_run(const int32_t *x, void *y, size_t n, const int32_t *bias,
                              const float *scales, int below_one,
                              const simdops_requant_params *p, int out, const int per_channel)
{
    if (out != SIMDOPS_RQ_I16 && below_one)
        if (bias)
            rqf512_fp8_kernel(x, y, n, bias, scales, p, out, 1, per_channel);
        else
            rqf512_fp8_kernel(x, y, n, NULL, scales, p, out, 0, per_channel);
    else
        rqf512_fp_kernel(x, y, n, bias, scales, p, out);
}

#define RQF_AVX512_ENTRIES(tag, out)                                                   \
    static void i32_##tag##_requant_fp__avx512(const int32_t *x, void *y, size_t n,    \
                                               const int32_t *bias,                    \
                                               const simdops_requant_params *p)         \
    {                                                                                  \
        if (p->fp_mode)                                                                \
            simdops_scalar_kernels()->requant_fp[out](x, y, n, bias, p);               \
        else                                                                           \
            rqf512_fp_run(x, y, n, bias, NULL, fabsf(p->scale) < 1.0f, p, out, 0);     \
    }                                                                                  \
    static void i32_##tag##_requant_fp_pc__avx512(const int32_t *x, void *y, size_t n, \
                                                  const int32_t *bias,                 \
                                                  const simdops_requant_channels *ch,  \
                                                  const simdops_requant_params *p)      \
    {                                                                                  \
        if (p->fp_mode) {                                                              \
            simdops_scalar_kernels()->requant_fp_pc[out](x, y, n, bias, ch, p);        \
            return;                                                                    \
        }                                                                              \
        for (size_t done = 0, m; done < n; done += m) {                                \
            m = simdops_requant_stretch(ch, n - done);                                 \
            rqf512_fp_run(x + done, (char *)y + done * simdops_requant_out_size(out),   \
                          m, bias, ch->scale, ch->scales_below_one, p, out, 1);        \
        }                                                                              \
    }

RQF_AVX512_ENTRIES(u8, SIMDOPS_RQ_U8)
RQF_AVX512_ENTRIES(i8, SIMDOPS_RQ_I8)
RQF_AVX512_ENTRIES(i16, SIMDOPS_RQ_I16)

int requant_families_register__avx512(simdops_kernel_table *t)
{
    t->requant_fp[SIMDOPS_RQ_U8] = i32_u8_requant_fp__avx512;
    t->requant_fp[SIMDOPS_RQ_I8] = i32_i8_requant_fp__avx512;
    t->requant_fp[SIMDOPS_RQ_I16] = i32_i16_requant_fp__avx512;
    t->requant_fp_pc[SIMDOPS_RQ_U8] = i32_u8_requant_fp_pc__avx512;
    t->requant_fp_pc[SIMDOPS_RQ_I8] = i32_i8_requant_fp_pc__avx512;
    t->requant_fp_pc[SIMDOPS_RQ_I16] = i32_i16_requant_fp_pc__avx512;
    return 1;
}

#else
SIMDOPS_TIER_NOT_COMPILED(requant_families, avx512)
#endif
