/* The low-bit hot paths on AVX-512 (F, BW, VL, DQ): int4 / uint4 dequantize
 * to float32 / float16 / bfloat16 and quantize from float32, float8 e4m3fn /
 * e5m2 quantize from and dequantize to float32; 32 elements a step, the rest
 * (an odd first nibble, the tail) through qlow_simd_tail.h. Rounding is
 * explicit (embedded nearest-even, or integer arithmetic on the bits), so
 * MXCSR's mode cannot change a result. tools/lowbit_sweep.c checks every
 * float8 code, every int4 byte and float32 slices (all 2^32 for the float8
 * conversion) against a reference of its own. */
#include "kernels/qlow/qlow_simd_tail.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#include <immintrin.h>
#include <math.h>

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* 32 nibbles of 16 bytes, in element order, as two vectors of int32 values
 * (int4: (nibble ^ 8) - 8) */
static inline void nib32(const uint8_t *x, __m512i flip, __m512i *e0, __m512i *e1)
{
    const __m128i m = _mm_set1_epi8(0x0f);
    __m128i b = _mm_loadu_si128((const __m128i *)x);
    __m128i lo = _mm_and_si128(b, m), hi = _mm_and_si128(_mm_srli_epi16(b, 4), m);
    *e0 = _mm512_sub_epi32(_mm512_xor_si512(_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi)), flip), flip);
    *e1 = _mm512_sub_epi32(_mm512_xor_si512(_mm512_cvtepu8_epi32(_mm_unpackhi_epi8(lo, hi)), flip), flip);
}

/* float32 -> bfloat16 (qlow_f32_to_bf16, lane-wise), 16 halves */
static inline __m256i bf16_of(__m512 v)
{
    __m512i u = _mm512_castps_si512(v);
    __m512i r = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)),
                         _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1))), 16);
    __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    __m512i q = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x8000)),
                                _mm512_set1_epi32(0x7fc0));
    return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, r, q));
}

static inline void put16(int fs, void *y, size_t i, __m512 v)
{
    if (fs == SIMDOPS_QF_F32)
        _mm512_storeu_ps((float *)y + i, v);
    else if (fs == SIMDOPS_QF_F16) /* F16C: nearest even, NaN payload kept (simdops_f32_to_f16) */
        _mm256_storeu_si256((__m256i *)((uint16_t *)y + i), _mm512_cvtps_ph(v, RN));
    else
        _mm256_storeu_si256((__m256i *)((uint16_t *)y + i), bf16_of(v));
}

/* int4 / uint4 dequantize, (value - zp) * scale in float32. One scale: the
 * 16 possible results are computed once by the same operations and each
 * element is a permute of them. */
static inline void dq4(const void *x, size_t first, size_t n, void *y, int fs, int sgn, float s,
                       float zpf, const float *scales, const float *zps)
{
    const __m512i flip = _mm512_set1_epi32(sgn ? 8 : 0);
    size_t i = 0, j;
    const uint8_t *xb;
    if (n && (first & 1)) {
        qs_dq4_tail(x, first, 0, 1, y, fs, sgn, s, zpf, scales, zps);
        i = 1;
    }
    xb = (const uint8_t *)x + (first + i) / 2; /* element first + i starts this byte */
    j = i;
    if (!scales) {
        __m512i k = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        __m512i v = _mm512_sub_epi32(_mm512_xor_si512(k, flip), flip);
        const __m512 table = _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(v), _mm512_set1_ps(zpf)), _mm512_set1_ps(s));
        const __m128i m = _mm_set1_epi8(0x0f);
        for (; j + 32 <= n; j += 32) {
            __m128i b = _mm_loadu_si128((const __m128i *)(xb + (j - i) / 2));
            __m128i lo = _mm_and_si128(b, m), hi = _mm_and_si128(_mm_srli_epi16(b, 4), m);
            put16(fs, y, j, _mm512_permutexvar_ps(_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi)), table));
            put16(fs, y, j + 16, _mm512_permutexvar_ps(_mm512_cvtepu8_epi32(_mm_unpackhi_epi8(lo, hi)), table));
        }
    } else {
        for (; j + 32 <= n; j += 32) {
            __m512i e0, e1;
            __m512 z0 = zps ? _mm512_loadu_ps(zps + j) : _mm512_setzero_ps();
            __m512 z1 = zps ? _mm512_loadu_ps(zps + j + 16) : _mm512_setzero_ps();
            nib32(xb + (j - i) / 2, flip, &e0, &e1);
            put16(fs, y, j, _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(e0), z0), _mm512_loadu_ps(scales + j)));
            put16(fs, y, j + 16, _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(e1), z1), _mm512_loadu_ps(scales + j + 16)));
        }
    }
    qs_dq4_tail(x, first, j, n, y, fs, sgn, s, zpf, scales, zps);
}

/* int4 / uint4 quantize: x / scale clamped to [-32, 32] (maxps returns its
 * second operand for a NaN: -32), rounded to nearest even, plus the zero
 * point, clamped to the type: the value of clamping to [lo - zp, hi - zp]
 * first, as the scalar kernel does (every zp lies within 32 of lo and hi) */
static inline __m512i q4_codes(__m512 x, __m512 s, __m512i zp, __m512i lo, __m512i hi)
{
    __m512 q = _mm512_min_ps(_mm512_max_ps(_mm512_div_ps(x, s), _mm512_set1_ps(-32.0f)), _mm512_set1_ps(32.0f));
    __m512i r = _mm512_add_epi32(_mm512_cvt_roundps_epi32(q, RN), zp);
    return _mm512_min_epi32(_mm512_max_epi32(r, lo), hi);
}
/* 32 codes, two a byte, low nibble first */
static inline void q4_store(uint8_t *y, __m512i c0, __m512i c1)
{
    /* bytes in element order; a 16-bit lane b0 | b1 << 8 becomes b0 & 15 | (b1 & 15) << 4 */
    __m256i b = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(c0)), _mm512_cvtepi32_epi8(c1), 1);
    __m256i w = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi16(0x0f)),
                                _mm256_and_si256(_mm256_srli_epi16(b, 4), _mm256_set1_epi16(0xf0)));
    _mm_storeu_si128((__m128i *)y, _mm256_cvtepi16_epi8(w));
}
static inline void q4(const float *x, size_t n, void *y, size_t first, int sgn, float s, int32_t zp,
                      const float *scales, const float *zps, const simdops_qlow_params *p)
{
    const __m512i lo = _mm512_set1_epi32(sgn ? -8 : 0), hi = _mm512_set1_epi32(sgn ? 7 : 15);
    size_t i = 0, j;
    uint8_t *yb;
    if (!qs_plain_quotient(p)) {
        qs_q4_tail(x, 0, n, y, first, sgn, s, zp, scales, zps, p);
        return;
    }
    if (n && (first & 1)) {
        qs_q4_tail(x, 0, 1, y, first, sgn, s, zp, scales, zps, p);
        i = 1;
    }
    yb = (uint8_t *)y + (first + i) / 2;
    j = i;
    if (!scales) {
        const __m512 sv = _mm512_set1_ps(s);
        const __m512i z = _mm512_set1_epi32(zp);
        for (; j + 32 <= n; j += 32)
            q4_store(yb + (j - i) / 2, q4_codes(_mm512_loadu_ps(x + j), sv, z, lo, hi),
                     q4_codes(_mm512_loadu_ps(x + j + 16), sv, z, lo, hi));
    } else {
        for (; j + 32 <= n; j += 32) {
            __m512i z0 = zps ? _mm512_cvttps_epi32(_mm512_loadu_ps(zps + j)) : _mm512_setzero_si512();
            __m512i z1 = zps ? _mm512_cvttps_epi32(_mm512_loadu_ps(zps + j + 16)) : _mm512_setzero_si512();
            q4_store(yb + (j - i) / 2, q4_codes(_mm512_loadu_ps(x + j), _mm512_loadu_ps(scales + j), z0, lo, hi),
                     q4_codes(_mm512_loadu_ps(x + j + 16), _mm512_loadu_ps(scales + j + 16), z1, lo, hi));
        }
    }
    qs_q4_tail(x, j, n, y, first, sgn, s, zp, scales, zps, p);
}

/* float32 -> float8 (qlow_f32_to_fmt, lane-wise): the normal range rounds on
 * the bits, below it |v| * 2^9 (2^16) is rounded (an exact product; a float32
 * subnormal gives 0 with or without DAZ, as it should), then overflow, NaN
 * and the sign */
static inline __m512i f8_codes(__m512 v, int e4, int sat)
{
    __m512i u = _mm512_castps_si512(v);
    __m512i a = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
    __m512i sg = _mm512_and_si512(_mm512_srli_epi32(u, 24), _mm512_set1_epi32(0x80));
    const int sh = e4 ? 20 : 21;
    __m512i c = _mm512_sub_epi32(
        _mm512_srl_epi32(_mm512_add_epi32(_mm512_add_epi32(a, _mm512_set1_epi32((1 << (sh - 1)) - 1)),
                                          _mm512_and_si512(_mm512_srl_epi32(a, _mm_cvtsi32_si128(sh)), _mm512_set1_epi32(1))),
                         _mm_cvtsi32_si128(sh)),
        _mm512_set1_epi32(e4 ? 120 << 3 : 112 << 2));
    __mmask16 sub = _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(e4 ? 0x3c800000 : 0x38800000));
    /* above 464 (e4m3fn: the tie goes to 448) / from 61440 on (e5m2: the tie goes to inf) */
    __mmask16 ovf = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(e4 ? 0x43e80000 : 0x476fffff));
    __mmask16 nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7f800000));
    c = _mm512_mask_mov_epi32(c, sub, _mm512_cvt_roundps_epi32(
        _mm512_mul_ps(_mm512_castsi512_ps(a), _mm512_set1_ps(e4 ? 512.0f : 65536.0f)), RN));
    c = _mm512_mask_mov_epi32(c, ovf, _mm512_set1_epi32(sat ? (e4 ? 0x7e : 0x7b) : (e4 ? 0x7f : 0x7c)));
    c = _mm512_mask_mov_epi32(c, nan, _mm512_set1_epi32(e4 ? 0x7f : 0x7e));
    return _mm512_or_si512(c, sg);
}
static inline void q8f(const float *x, size_t n, uint8_t *y, int qt, const float *scales, const simdops_qlow_params *p)
{
    const int e4 = qt == SIMDOPS_QT_e4m3fn, sat = p->saturate != 0;
    const __m512 s = _mm512_set1_ps(p->scale);
    size_t i = 0;
    if (!qs_plain_quotient(p)) {
        qs_q8f_tail(x, 0, n, y, qt, scales, p);
        return;
    }
    for (; i + 32 <= n; i += 32) {
        __m512 v0 = _mm512_div_ps(_mm512_loadu_ps(x + i), scales ? _mm512_loadu_ps(scales + i) : s);
        __m512 v1 = _mm512_div_ps(_mm512_loadu_ps(x + i + 16), scales ? _mm512_loadu_ps(scales + i + 16) : s);
        _mm_storeu_si128((__m128i *)(y + i), _mm512_cvtepi32_epi8(f8_codes(v0, e4, sat)));
        _mm_storeu_si128((__m128i *)(y + i + 16), _mm512_cvtepi32_epi8(f8_codes(v1, e4, sat)));
    }
    qs_q8f_tail(x, i, n, y, qt, scales, p);
}

/* float8 -> float32 (qlow_fmt_to_f32, lane-wise) times the scale; a NaN code
 * keeps its own NaN */
static inline __m512 f8_scaled(__m128i b, int e4, __m512 s)
{
    __m512i c = _mm512_cvtepu8_epi32(b);
    __m512i m = _mm512_and_si512(c, _mm512_set1_epi32(0x7f));
    __m512i sg = _mm512_slli_epi32(_mm512_and_si512(c, _mm512_set1_epi32(0x80)), 24);
    __m512i v = _mm512_add_epi32(_mm512_slli_epi32(m, e4 ? 20 : 21), _mm512_set1_epi32(e4 ? 120 << 23 : 112 << 23));
    __mmask16 nan;
    __m512 r;
    /* subnormal codes: m * 2^-9 (2^-16), exact and normal in float32 */
    v = _mm512_mask_mov_epi32(v, _mm512_cmplt_epu32_mask(m, _mm512_set1_epi32(e4 ? 8 : 4)),
                              _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtepi32_ps(m), _mm512_set1_ps(e4 ? 0x1p-9f : 0x1p-16f))));
    if (e4) {
        nan = _mm512_cmpeq_epu32_mask(m, _mm512_set1_epi32(0x7f));
    } else {
        v = _mm512_mask_mov_epi32(v, _mm512_cmpeq_epu32_mask(m, _mm512_set1_epi32(0x7c)), _mm512_set1_epi32(0x7f800000));
        nan = _mm512_cmpgt_epu32_mask(m, _mm512_set1_epi32(0x7c));
    }
    r = _mm512_mul_ps(_mm512_castsi512_ps(_mm512_or_si512(v, sg)), s);
    return _mm512_mask_mov_ps(r, nan, _mm512_castsi512_ps(_mm512_or_si512(sg, _mm512_set1_epi32(0x7fc00000))));
}
/* One scale: 32 codes a step through float16, whose bits they are after a
 * shift: an e5m2 code is the high byte of the float16 of the same value; an
 * e4m3fn code shifted left by 7 is the float16 of its value times 2^-8
 * (subnormals included), so that path multiplies by scale * 2^8 (exact: the
 * caller checks it is finite) and the product is the same real number,
 * rounded once. NaN codes become float16 0x7e00 | sign (float32 0x7fc00000 |
 * sign) and skip the product (a masked multiply: the scalar returns x's NaN
 * whatever the scale). */
static inline void dq8f_f16(const uint8_t *x, size_t n, float *y, int e4, float scale)
{
    const __m512 s = _mm512_set1_ps(e4 ? scale * 256.0f : scale);
    const __m256i m7f = _mm256_set1_epi8(0x7f);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i b = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i m = _mm256_and_si256(b, m7f);
        __mmask32 nan = e4 ? _mm256_cmpeq_epi8_mask(m, m7f) : _mm256_cmpgt_epi8_mask(m, _mm256_set1_epi8(0x7c));
        __m512i w = _mm512_cvtepi8_epi16(b); /* sign-extended: bit 15 is the sign */
        __m512i h = e4 ? _mm512_and_si512(_mm512_slli_epi16(w, 7), _mm512_set1_epi16((short)0xbf80))
                       : _mm512_slli_epi16(w, 8);
        __m512 lo, hi;
        h = _mm512_mask_mov_epi16(h, nan, _mm512_ternarylogic_epi32(w, _mm512_set1_epi16((short)0x8000),
                                                                    _mm512_set1_epi16(0x7e00), 0xea)); /* (w & 0x8000) | 0x7e00 */
        lo = _mm512_cvtph_ps(_mm512_castsi512_si256(h));
        hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1));
        _mm512_storeu_ps(y + i, _mm512_mask_mul_ps(lo, (__mmask16)~nan, lo, s));
        _mm512_storeu_ps(y + i + 16, _mm512_mask_mul_ps(hi, (__mmask16)(~nan >> 16), hi, s));
    }
    qs_dq8f_tail(x, i, n, y, e4 ? SIMDOPS_QT_e4m3fn : SIMDOPS_QT_e5m2, scale, NULL);
}

static inline void dq8f(const uint8_t *x, size_t n, float *y, int qt, float scale, const float *scales)
{
    const int e4 = qt == SIMDOPS_QT_e4m3fn;
    const __m512 s = _mm512_set1_ps(scale);
    size_t i = 0;
    if (!scales && (!e4 || !(isfinite(scale) && !isfinite(scale * 256.0f)))) {
        dq8f_f16(x, n, y, e4, scale);
        return;
    }
    for (; i + 32 <= n; i += 32) {
        _mm512_storeu_ps(y + i, f8_scaled(_mm_loadu_si128((const __m128i *)(x + i)), e4,
                                          scales ? _mm512_loadu_ps(scales + i) : s));
        _mm512_storeu_ps(y + i + 16, f8_scaled(_mm_loadu_si128((const __m128i *)(x + i + 16)), e4,
                                               scales ? _mm512_loadu_ps(scales + i + 16) : s));
    }
    qs_dq8f_tail(x, i, n, y, qt, scale, scales);
}

#define SIMDOPS_QLOW_X86_TIER avx512
#include "kernels/qlow/qlow_x86_entries.h"
#else
QLOW_TIER_NOT_COMPILED(avx512)
#endif
