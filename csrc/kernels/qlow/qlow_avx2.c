/* The low-bit hot paths on AVX2 + F16C (the entries of qlow_x86_entries.h):
 * 16 elements a step (two 8-lane vectors), the rest (an odd first nibble, the
 * tail) through qlow_simd_tail.h. Rounding is explicit (roundps nearest-even,
 * or integer arithmetic on the bits), so MXCSR's mode cannot change a result;
 * tools/lowbit_sweep.c checks it like the AVX-512 tier. */
#include "kernels/qlow/qlow_simd_tail.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#include <immintrin.h>

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

static inline __m256i sel(__m256i m, __m256i a, __m256i b) { return _mm256_blendv_epi8(b, a, m); } /* m ? a : b */

/* 16 nibbles of 8 bytes, in element order, as two vectors of int32 values
 * (int4: (nibble ^ 8) - 8) */
static inline void nib16(const uint8_t *x, __m256i flip, __m256i *e0, __m256i *e1)
{
    const __m128i m = _mm_set1_epi8(0x0f);
    __m128i b = _mm_loadl_epi64((const __m128i *)x);
    __m128i il = _mm_unpacklo_epi8(_mm_and_si128(b, m), _mm_and_si128(_mm_srli_epi16(b, 4), m));
    *e0 = _mm256_sub_epi32(_mm256_xor_si256(_mm256_cvtepu8_epi32(il), flip), flip);
    *e1 = _mm256_sub_epi32(_mm256_xor_si256(_mm256_cvtepu8_epi32(_mm_srli_si128(il, 8)), flip), flip);
}

/* float32 -> bfloat16 (qlow_f32_to_bf16, lane-wise) in each lane's low half */
static inline __m256i bf16_lanes(__m256 v)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)),
                         _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1))), 16);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    __m256i q = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x8000)),
                                _mm256_set1_epi32(0x7fc0));
    return sel(nan, q, r);
}

static inline void put16(int fs, void *y, size_t i, __m256 v0, __m256 v1)
{
    if (fs == SIMDOPS_QF_F32) {
        _mm256_storeu_ps((float *)y + i, v0);
        _mm256_storeu_ps((float *)y + i + 8, v1);
    } else if (fs == SIMDOPS_QF_F16) { /* F16C: nearest even, NaN payload kept (simdops_f32_to_f16) */
        _mm_storeu_si128((__m128i *)((uint16_t *)y + i), _mm256_cvtps_ph(v0, RN));
        _mm_storeu_si128((__m128i *)((uint16_t *)y + i + 8), _mm256_cvtps_ph(v1, RN));
    } else { /* packus works per 128-bit half; the permute puts the halves in order */
        _mm256_storeu_si256((__m256i *)((uint16_t *)y + i),
                            _mm256_permute4x64_epi64(_mm256_packus_epi32(bf16_lanes(v0), bf16_lanes(v1)), 0xd8));
    }
}

/* int4 / uint4 dequantize, (value - zp) * scale in float32 */
static inline void dq4(const void *x, size_t first, size_t n, void *y, int fs, int sgn, float s,
                       float zpf, const float *scales, const float *zps)
{
    const __m256i flip = _mm256_set1_epi32(sgn ? 8 : 0);
    size_t i = 0, j;
    const uint8_t *xb;
    if (n && (first & 1)) {
        qs_dq4_tail(x, first, 0, 1, y, fs, sgn, s, zpf, scales, zps);
        i = 1;
    }
    xb = (const uint8_t *)x + (first + i) / 2;
    j = i;
    if (!scales) {
        const __m256 sv = _mm256_set1_ps(s), z = _mm256_set1_ps(zpf);
        for (; j + 16 <= n; j += 16) {
            __m256i e0, e1;
            nib16(xb + (j - i) / 2, flip, &e0, &e1);
            put16(fs, y, j, _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(e0), z), sv),
                  _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(e1), z), sv));
        }
    } else {
        for (; j + 16 <= n; j += 16) {
            __m256i e0, e1;
            __m256 z0 = zps ? _mm256_loadu_ps(zps + j) : _mm256_setzero_ps();
            __m256 z1 = zps ? _mm256_loadu_ps(zps + j + 8) : _mm256_setzero_ps();
            nib16(xb + (j - i) / 2, flip, &e0, &e1);
            put16(fs, y, j, _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(e0), z0), _mm256_loadu_ps(scales + j)),
                  _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(e1), z1), _mm256_loadu_ps(scales + j + 8)));
        }
    }
    qs_dq4_tail(x, first, j, n, y, fs, sgn, s, zpf, scales, zps);
}

/* int4 / uint4 quantize (as qlow_avx512.c: clamp to [-32, 32], NaN -> -32 by
 * maxps' operand order, round, + zp, clamp to the type) */
static inline __m256i q4_codes(__m256 x, __m256 s, __m256i zp, __m256i lo, __m256i hi)
{
    __m256 q = _mm256_min_ps(_mm256_max_ps(_mm256_div_ps(x, s), _mm256_set1_ps(-32.0f)), _mm256_set1_ps(32.0f));
    __m256i r = _mm256_add_epi32(_mm256_cvttps_epi32(_mm256_round_ps(q, RN)), zp);
    return _mm256_min_epi32(_mm256_max_epi32(r, lo), hi);
}
static inline __m128i bytes16(__m256i c0, __m256i c1) /* 16 int32 in [-128, 255] -> 16 bytes in order */
{
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(c0, c1), 0xd8);
    __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
    return _mm_packus_epi16(_mm_and_si128(lo, _mm_set1_epi16(0xff)), _mm_and_si128(hi, _mm_set1_epi16(0xff)));
}
static inline void q4_store(uint8_t *y, __m256i c0, __m256i c1)
{
    __m128i b = bytes16(c0, c1);
    __m128i w = _mm_or_si128(_mm_and_si128(b, _mm_set1_epi16(0x0f)), _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi16(0xf0)));
    _mm_storel_epi64((__m128i *)y, _mm_packus_epi16(w, w));
}
static inline void q4(const float *x, size_t n, void *y, size_t first, int sgn, float s, int32_t zp,
                      const float *scales, const float *zps, const simdops_qlow_params *p)
{
    const __m256i lo = _mm256_set1_epi32(sgn ? -8 : 0), hi = _mm256_set1_epi32(sgn ? 7 : 15);
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
        const __m256 sv = _mm256_set1_ps(s);
        const __m256i z = _mm256_set1_epi32(zp);
        for (; j + 16 <= n; j += 16)
            q4_store(yb + (j - i) / 2, q4_codes(_mm256_loadu_ps(x + j), sv, z, lo, hi),
                     q4_codes(_mm256_loadu_ps(x + j + 8), sv, z, lo, hi));
    } else {
        for (; j + 16 <= n; j += 16) {
            __m256i z0 = zps ? _mm256_cvttps_epi32(_mm256_loadu_ps(zps + j)) : _mm256_setzero_si256();
            __m256i z1 = zps ? _mm256_cvttps_epi32(_mm256_loadu_ps(zps + j + 8)) : _mm256_setzero_si256();
            q4_store(yb + (j - i) / 2, q4_codes(_mm256_loadu_ps(x + j), _mm256_loadu_ps(scales + j), z0, lo, hi),
                     q4_codes(_mm256_loadu_ps(x + j + 8), _mm256_loadu_ps(scales + j + 8), z1, lo, hi));
        }
    }
    qs_q4_tail(x, j, n, y, first, sgn, s, zp, scales, zps, p);
}

/* float32 -> float8 (qlow_f32_to_fmt, lane-wise; |v|'s bits fit a signed compare) */
static inline __m256i f8_codes(__m256 v, int e4, int sat)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i a = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
    __m256i sg = _mm256_and_si256(_mm256_srli_epi32(u, 24), _mm256_set1_epi32(0x80));
    const int sh = e4 ? 20 : 21;
    __m256i c = _mm256_sub_epi32(
        _mm256_srl_epi32(_mm256_add_epi32(_mm256_add_epi32(a, _mm256_set1_epi32((1 << (sh - 1)) - 1)),
                                          _mm256_and_si256(_mm256_srl_epi32(a, _mm_cvtsi32_si128(sh)), _mm256_set1_epi32(1))),
                         _mm_cvtsi32_si128(sh)),
        _mm256_set1_epi32(e4 ? 120 << 3 : 112 << 2));
    c = sel(_mm256_cmpgt_epi32(_mm256_set1_epi32(e4 ? 0x3c800000 : 0x38800000), a),
            _mm256_cvttps_epi32(_mm256_round_ps(_mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_set1_ps(e4 ? 512.0f : 65536.0f)), RN)), c);
    c = sel(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(e4 ? 0x43e80000 : 0x476fffff)),
            _mm256_set1_epi32(sat ? (e4 ? 0x7e : 0x7b) : (e4 ? 0x7f : 0x7c)), c);
    c = sel(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000)), _mm256_set1_epi32(e4 ? 0x7f : 0x7e), c);
    return _mm256_or_si256(c, sg);
}
static inline void q8f(const float *x, size_t n, uint8_t *y, int qt, const float *scales, const simdops_qlow_params *p)
{
    const int e4 = qt == SIMDOPS_QT_e4m3fn, sat = p->saturate != 0;
    const __m256 s = _mm256_set1_ps(p->scale);
    size_t i = 0;
    if (!qs_plain_quotient(p)) {
        qs_q8f_tail(x, 0, n, y, qt, scales, p);
        return;
    }
    for (; i + 16 <= n; i += 16) {
        __m256 v0 = _mm256_div_ps(_mm256_loadu_ps(x + i), scales ? _mm256_loadu_ps(scales + i) : s);
        __m256 v1 = _mm256_div_ps(_mm256_loadu_ps(x + i + 8), scales ? _mm256_loadu_ps(scales + i + 8) : s);
        _mm_storeu_si128((__m128i *)(y + i), bytes16(f8_codes(v0, e4, sat), f8_codes(v1, e4, sat)));
    }
    qs_q8f_tail(x, i, n, y, qt, scales, p);
}

/* float8 -> float32 (qlow_fmt_to_f32, lane-wise) times the scale; a NaN code
 * keeps its own NaN */
static inline __m256 f8_scaled(__m128i b, int e4, __m256 sc)
{
    __m256i c = _mm256_cvtepu8_epi32(b);
    __m256i m = _mm256_and_si256(c, _mm256_set1_epi32(0x7f));
    __m256i sg = _mm256_slli_epi32(_mm256_and_si256(c, _mm256_set1_epi32(0x80)), 24);
    __m256i v = _mm256_add_epi32(_mm256_slli_epi32(m, e4 ? 20 : 21), _mm256_set1_epi32(e4 ? 120 << 23 : 112 << 23));
    __m256i nan;
    v = sel(_mm256_cmpgt_epi32(_mm256_set1_epi32(e4 ? 8 : 4), m),
            _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(m), _mm256_set1_ps(e4 ? 0x1p-9f : 0x1p-16f))), v);
    if (e4) {
        nan = _mm256_cmpeq_epi32(m, _mm256_set1_epi32(0x7f));
    } else {
        v = sel(_mm256_cmpeq_epi32(m, _mm256_set1_epi32(0x7c)), _mm256_set1_epi32(0x7f800000), v);
        nan = _mm256_cmpgt_epi32(m, _mm256_set1_epi32(0x7c));
    }
    v = _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(_mm256_or_si256(v, sg)), sc));
    return _mm256_castsi256_ps(sel(nan, _mm256_or_si256(sg, _mm256_set1_epi32(0x7fc00000)), v));
}
static inline void dq8f(const uint8_t *x, size_t n, float *y, int qt, float scale, const float *scales)
{
    const int e4 = qt == SIMDOPS_QT_e4m3fn;
    const __m256 s = _mm256_set1_ps(scale);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i b = _mm_loadu_si128((const __m128i *)(x + i));
        _mm256_storeu_ps(y + i, f8_scaled(b, e4, scales ? _mm256_loadu_ps(scales + i) : s));
        _mm256_storeu_ps(y + i + 8, f8_scaled(_mm_srli_si128(b, 8), e4, scales ? _mm256_loadu_ps(scales + i + 8) : s));
    }
    qs_dq8f_tail(x, i, n, y, qt, scale, scales);
}

#define SIMDOPS_QLOW_X86_TIER avx2
#include "kernels/qlow/qlow_x86_entries.h"
#else
QLOW_TIER_NOT_COMPILED(avx2)
#endif
