/* AVX-512 kernels of the float requantization family (MLAS / XNNPACK fp32,
 * mode 0), per tensor and per channel: 16 lanes a vector, four vectors a step,
 * tails through masked loads and stores (no scalar loop). Lane for lane the
 * avx2 arithmetic: float(acc) * scale, clamped in float to [min - offset,
 * max - offset], rounded half to even, plus the offset in int32. The rounding
 * is the instruction's embedded nearest-even mode, so it does not depend on
 * MXCSR. A clamped lane is in the output type's range, so packs and the
 * truncating narrow of the masked tail (vpmovdb / vpmovdw) store it exactly. Single
 * rounding with ties away is requant_families_x86.h over rq_vec_avx512.h (1.04x
 * avx2's). The other integer families keep the tiers below (entries left NULL
 * inherit avx2's). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#define RQ_X86_FAST 1
#include <immintrin.h>
#include <math.h>

#include "requant_families.h"
#include "rq_vec_avx512.h"
#include "requant_x86_body.h"
#include "requant_families_x86.h"

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

#include "rq_chain_avx512.h"

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

/* 64 outputs from x[i..i+64) (+ bias) and four scale vectors: packed with the
 * zero point added in int16 (saturating), clamped as bytes, put in order */
static inline void rqf512_fp8_step(const int32_t *x, const int32_t *b, int8_t *y, size_t i,
                                   __m512 s0, __m512 s1, __m512 s2, __m512 s3, __m512i zp,
                                   __m512i bmin, __m512i bmax, int out)
{
    /* lane k of the byte pack: dwords a_k, b_k, c_k, d_k */
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
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
    _mm512_storeu_si512(y + i, _mm512_permutexvar_epi32(order, v));
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
    __m512 s0 = _mm512_set1_ps(p->scale), s1 = s0, s2 = s0, s3 = s0;
    const int32_t *b = has_bias ? bias : NULL;
    size_t i = 0;
    for (; n - i >= 64; i += 64) {
        if (per_channel)
            rqf512_scales4(scales + i, &s0, &s1, &s2, &s3);
        rqf512_fp8_step(x, b, (int8_t *)y, i, s0, s1, s2, s3, zp, bmin, bmax, out);
    }
    if (i < n)
        rqf512_fp_kernel(x + i, (int8_t *)y + i, n - i, has_bias ? bias + i : NULL,
                         per_channel ? scales + i : NULL, p, out);
}

/* Per channel, 8-bit, every |scale| < 1, with the scales of one cycle
 * (ch->cycle: they repeat after it) held in P registers (16 * P a multiple of
 * the cycle, P a multiple of 4, at most 16): the loop then loads only x (and
 * bias), as per tensor does. The scale loads had competed with x's loads and
 * L2 fills on a core that loads one 64-byte vector per clock: the kernel alone
 * ran a 256-channel row at 0.95-0.96 of per tensor, 1.00 with registers. The
 * bias restarts every period elements (a multiple of the cycle); what is left
 * of a period after its whole cycles (less than one) takes the loading loop. */
RQF_INLINE void rqf512_fp8_cycle(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                 const float *scales, size_t period,
                                 const simdops_requant_params *p, int out, const int has_bias,
                                 const int P)
{
    const __m512i zp = _mm512_set1_epi16((int16_t)p->offset);
    const __m512i bmin = _mm512_set1_epi8((char)p->min), bmax = _mm512_set1_epi8((char)p->max);
    const size_t cycle = 16 * (size_t)P;
    /* without bias nothing restarts: the scales run on, cycle after cycle */
    const size_t chunk = has_bias ? period : n;
    __m512 s[16];
#pragma GCC unroll 16
    for (int k = 0; k < P; k++)
        s[k] = _mm512_loadu_ps(scales + 16 * k);
    for (size_t done = 0, m; done < n; done += m) {
        const int32_t *xc = x + done, *b = has_bias ? bias : NULL;
        int8_t *yc = (int8_t *)y + done;
        size_t i = 0;
        m = chunk < n - done ? chunk : n - done;
        for (; m - i >= cycle; i += cycle) {
#pragma GCC unroll 4
            for (int k = 0; k < P; k += 4) {
                rqf512_fp8_step(xc, b, yc, i + 16 * (size_t)k, s[k], s[k + 1], s[k + 2], s[k + 3],
                                zp, bmin, bmax, out);
            }
        }
        if (i < m) /* i is whole cycles: the scales from their start again */
            rqf512_fp8_kernel(xc + i, yc + i, m - i, has_bias ? b + i : NULL, scales, p, out,
                              has_bias, 1);
    }
}

/* The cycle kernels' vector counts P: 16 * P a multiple of the cycle (a cycle
 * of 16 or 32 elements is run as 64), 0 for none. */
static int rqf512_cycle_vectors(size_t cycle)
{
    switch (cycle) {
    case 16: case 32: case 64: return 4;
    case 128: return 8;
    case 48: case 96: case 192: return 12;
    case 256: return 16;
    default: return 0;
    }
}

RQF_INLINE void rqf512_fp_cycle_run(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                    const simdops_requant_channels *ch,
                                    const simdops_requant_params *p, int out, int P)
{
#define RQF512_CYCLE(PV)                                                                        \
    case PV:                                                                                    \
        if (bias)                                                                               \
            rqf512_fp8_cycle(x, y, n, bias, ch->scale, ch->period, p, out, 1, PV);              \
        else                                                                                    \
            rqf512_fp8_cycle(x, y, n, NULL, ch->scale, ch->period, p, out, 0, PV);              \
        break;
    switch (P) {
    RQF512_CYCLE(4)
    RQF512_CYCLE(8)
    RQF512_CYCLE(12)
    RQF512_CYCLE(16)
    }
#undef RQF512_CYCLE
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

static inline void rqf512_fp_entry(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                   const simdops_requant_channels *ch,
                                   const simdops_requant_params *p, int out, int unused)
{
    (void)unused;
    if (p->fp_mode & SIMDOPS_FP_ACL) {
        rqf_fp_rows(x, y, n, bias, ch, p, out, 0);
    } else if (p->fp_mode && ch) {
        rqc512_pc(x, y, n, bias, ch, p, out);
    } else if (p->fp_mode) {
        rqc512_kernel(x, y, n, bias, NULL, NULL, 0,
                      fabs(p->fp_mode & SIMDOPS_FP_FLOAT64 ? p->scale64 : p->scale), p, out);
    } else if (!ch) {
        rqf512_fp_run(x, y, n, bias, NULL, fabsf(p->scale) < 1.0f, p, out, 0);
    } else {
        const int cycle_vectors = rqf512_cycle_vectors(ch->cycle);
        if (out != SIMDOPS_RQ_I16 && ch->scales_below_one && ch->period && cycle_vectors &&
            ch->period >= 16 * (size_t)cycle_vectors && n >= 16 * (size_t)cycle_vectors) {
            rqf512_fp_cycle_run(x, y, n, bias, ch, p, out, cycle_vectors);
            return;
        }
        for (size_t done = 0, m; done < n; done += m) {
            m = simdops_requant_stretch(ch, n - done);
            rqf512_fp_run(x + done, (char *)y + done * simdops_requant_out_size(out), m, bias,
                          ch->scale, ch->scales_below_one, p, out, 1);
        }
    }
}

RQF_ENTRIES3(fp, rqf512_fp_entry, 0)
RQF_ENTRIES3(single, rqfx_fast_run, RQF_SINGLE)
RQF_ENTRIES3(single_away, rqfx_fast_run, RQF_SINGLE_AWAY)

#define RQF_KERNELS(X) RQF_LIST(X, fp) RQF_LIST(X, single) RQF_LIST(X, single_away)
/* rqfx_fast_run restarts every ch->period elements (fp always does: not marked) */
#define RQF_RESTARTS(X) RQF_PC_LIST(X, single) RQF_PC_LIST(X, single_away)
SIMDOPS_DEFINE_REGISTER_RESTARTING(requant_families, RQF_KERNELS, RQF_RESTARTS)

#else
SIMDOPS_TIER_NOT_COMPILED(requant_families, avx512)
#endif
