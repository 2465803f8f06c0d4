/* The low-bit hot paths on AVX2 + F16C: 16 elements a step (two 8-lane
 * vectors), the rest through lowbit_simd_tail.h. Rounding is explicit
 * (roundps nearest-even, or integer arithmetic on the bits): MXCSR's mode
 * cannot change a result. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"
#include "kernels/lowbit/lowbit_simd_tail.h"

#if SIMDOPS_COMPILE_AVX2
#include <immintrin.h>

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* 16 nibbles of 8 bytes, in element order, as two vectors of int32 */
static inline void nib16(const uint8_t *x, __m256i *e0, __m256i *e1)
{
    const __m128i m = _mm_set1_epi8(0x0f);
    __m128i b = _mm_loadl_epi64((const __m128i *)x);
    __m128i il = _mm_unpacklo_epi8(_mm_and_si128(b, m), _mm_and_si128(_mm_srli_epi16(b, 4), m));
    *e0 = _mm256_cvtepu8_epi32(il);
    *e1 = _mm256_cvtepu8_epi32(_mm_srli_si128(il, 8));
}

/* float32 -> bfloat16 bits (lowbit_simd_element.h) in each lane's low half */
static inline __m256i bf16_lanes(__m256 v)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)),
                         _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1))), 16);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    __m256i q = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x8000)),
                                _mm256_set1_epi32(0x7fc0));
    return _mm256_blendv_epi8(r, q, nan);
}

static inline void put_f32(float *y, __m256 v0, __m256 v1)
{
    _mm256_storeu_ps(y, v0);
    _mm256_storeu_ps(y + 8, v1);
}
static inline void put_f16(uint16_t *y, __m256 v0, __m256 v1)
{
    _mm_storeu_si128((__m128i *)y, _mm256_cvtps_ph(v0, RN));
    _mm_storeu_si128((__m128i *)(y + 8), _mm256_cvtps_ph(v1, RN));
}
static inline void put_bf16(uint16_t *y, __m256 v0, __m256 v1)
{
    /* packus works per 128-bit half; the permute puts the halves in order */
    _mm256_storeu_si256((__m256i *)y,
                        _mm256_permute4x64_epi64(_mm256_packus_epi32(bf16_lanes(v0), bf16_lanes(v1)), 0xd8));
}

/* int4 / uint4 dequantize: (nibble ^ flip) - bias - zp in int32, converted
 * (exact) and multiplied by the scale in float32 */
#define DQ4(OUT, YT)                                                                                   \
    void simdops_lbs_dq4_##OUT##__avx2(const void *xv, void *yv, size_t n, const lbs_params *p)        \
    {                                                                                                  \
        const uint8_t *x = (const uint8_t *)xv;                                                        \
        YT *y = (YT *)yv;                                                                              \
        const __m256i flip = _mm256_set1_epi32(p->is_signed ? 8 : 0);                                  \
        const __m256i bias = _mm256_set1_epi32(p->is_signed ? 8 : 0);                                  \
        size_t i = 0;                                                                                  \
        if (!p->scales) {                                                                              \
            const __m256i z = _mm256_add_epi32(_mm256_set1_epi32(p->zp), bias);                        \
            const __m256 s = _mm256_set1_ps(p->scale);                                                 \
            for (; i + 16 <= n; i += 16) {                                                             \
                __m256i e0, e1;                                                                        \
                nib16(x + i / 2, &e0, &e1);                                                            \
                put_##OUT(y + i, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_xor_si256(e0, flip), z)), s), \
                          _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_xor_si256(e1, flip), z)), s)); \
            }                                                                                          \
        } else {                                                                                       \
            for (; i + 16 <= n; i += 16) {                                                             \
                __m256i e0, e1;                                                                        \
                __m128i zb = _mm_loadu_si128((const __m128i *)(p->zps + i));                           \
                __m256i z0 = _mm256_add_epi32(_mm256_cvtepi8_epi32(zb), bias);                         \
                __m256i z1 = _mm256_add_epi32(_mm256_cvtepi8_epi32(_mm_srli_si128(zb, 8)), bias);      \
                nib16(x + i / 2, &e0, &e1);                                                            \
                put_##OUT(y + i,                                                                       \
                          _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_xor_si256(e0, flip), z0)), \
                                        _mm256_loadu_ps(p->scales + i)),                               \
                          _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_xor_si256(e1, flip), z1)), \
                                        _mm256_loadu_ps(p->scales + i + 8)));                          \
            }                                                                                          \
        }                                                                                              \
        lbs_dq4_##OUT##_tail(x, y, i, n, p);                                                           \
    }
DQ4(f32, float)
DQ4(f16, uint16_t)
DQ4(bf16, uint16_t)

/* int4 / uint4 quantize (lbs_q4_one, lane-wise; maxps returns its second
 * operand for a NaN: -32) and the nibble packing of 16 codes */
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
void simdops_lbs_q4_f32__avx2(const void *xv, void *yv, size_t n, const lbs_params *p)
{
    const float *x = (const float *)xv;
    uint8_t *y = (uint8_t *)yv;
    const __m256i lo = _mm256_set1_epi32(p->is_signed ? -8 : 0), hi = _mm256_set1_epi32(p->is_signed ? 7 : 15);
    size_t i = 0;
    if (!p->scales) {
        const __m256 s = _mm256_set1_ps(p->scale);
        const __m256i zp = _mm256_set1_epi32(p->zp);
        for (; i + 16 <= n; i += 16)
            q4_store(y + i / 2, q4_codes(_mm256_loadu_ps(x + i), s, zp, lo, hi),
                     q4_codes(_mm256_loadu_ps(x + i + 8), s, zp, lo, hi));
    } else {
        for (; i + 16 <= n; i += 16) {
            __m128i zb = _mm_loadu_si128((const __m128i *)(p->zps + i));
            q4_store(y + i / 2,
                     q4_codes(_mm256_loadu_ps(x + i), _mm256_loadu_ps(p->scales + i), _mm256_cvtepi8_epi32(zb), lo, hi),
                     q4_codes(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(p->scales + i + 8),
                              _mm256_cvtepi8_epi32(_mm_srli_si128(zb, 8)), lo, hi));
        }
    }
    lbs_q4_f32_tail(x, y, i, n, p);
}

/* float32 -> float8 (lbs_f32_to_f8, lane-wise); |v| fits a signed compare */
static inline __m256i sel(__m256i m, __m256i a, __m256i b) { return _mm256_blendv_epi8(b, a, m); } /* m ? a : b */
static inline __m256i f8_codes(__m256 v, int kind, int sat)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i a = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
    __m256i s = _mm256_and_si256(_mm256_srli_epi32(u, 24), _mm256_set1_epi32(0x80));
    __m256i c;
    if (kind == LBS_E4M3FN) {
        c = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(0x7ffff)),
                                                                _mm256_and_si256(_mm256_srli_epi32(a, 20), _mm256_set1_epi32(1))), 20),
                             _mm256_set1_epi32(120 << 3));
        c = sel(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x3c800000), a),
                _mm256_cvttps_epi32(_mm256_round_ps(_mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_set1_ps(512.0f)), RN)), c);
        c = sel(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x43e80000)), _mm256_set1_epi32(sat ? 0x7e : 0x7f), c);
        c = sel(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000)), _mm256_set1_epi32(0x7f), c);
    } else {
        c = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(0xfffff)),
                                                                _mm256_and_si256(_mm256_srli_epi32(a, 21), _mm256_set1_epi32(1))), 21),
                             _mm256_set1_epi32(112 << 2));
        c = sel(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x38800000), a),
                _mm256_cvttps_epi32(_mm256_round_ps(_mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_set1_ps(65536.0f)), RN)), c);
        c = sel(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x476fffff)), _mm256_set1_epi32(sat ? 0x7b : 0x7c), c);
        c = sel(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000)), _mm256_set1_epi32(0x7e), c);
    }
    return _mm256_or_si256(c, s);
}
#define Q8F_LOOP(KIND, SAT)                                                                                   \
    for (; i + 16 <= n; i += 16) {                                                                            \
        __m256 v0 = _mm256_div_ps(_mm256_loadu_ps(x + i), p->scales ? _mm256_loadu_ps(p->scales + i) : s);      \
        __m256 v1 = _mm256_div_ps(_mm256_loadu_ps(x + i + 8), p->scales ? _mm256_loadu_ps(p->scales + i + 8) : s); \
        _mm_storeu_si128((__m128i *)(y + i), bytes16(f8_codes(v0, KIND, SAT), f8_codes(v1, KIND, SAT)));     \
    }
void simdops_lbs_q8f_f32__avx2(const void *xv, void *yv, size_t n, const lbs_params *p)
{
    const float *x = (const float *)xv;
    uint8_t *y = (uint8_t *)yv;
    const __m256 s = _mm256_set1_ps(p->scale);
    size_t i = 0;
    if (p->kind == LBS_E4M3FN) {
        if (p->saturate)
            Q8F_LOOP(LBS_E4M3FN, 1)
        else
            Q8F_LOOP(LBS_E4M3FN, 0)
    } else {
        if (p->saturate)
            Q8F_LOOP(LBS_E5M2, 1)
        else
            Q8F_LOOP(LBS_E5M2, 0)
    }
    lbs_q8f_f32_tail(x, y, i, n, p);
}

/* float8 -> float32 (lbs_f8_to_f32, lane-wise) times the scale; a NaN code
 * keeps its own NaN */
static inline __m256 f8_scaled(__m128i b, int kind, __m256 sc)
{
    __m256i c = _mm256_cvtepu8_epi32(b);
    __m256i m = _mm256_and_si256(c, _mm256_set1_epi32(0x7f));
    __m256i sg = _mm256_slli_epi32(_mm256_and_si256(c, _mm256_set1_epi32(0x80)), 24);
    __m256i v, nan;
    if (kind == LBS_E4M3FN) {
        v = _mm256_add_epi32(_mm256_slli_epi32(m, 20), _mm256_set1_epi32(120 << 23));
        v = sel(_mm256_cmpgt_epi32(_mm256_set1_epi32(8), m),
                _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(m), _mm256_set1_ps(0x1p-9f))), v);
        nan = _mm256_cmpeq_epi32(m, _mm256_set1_epi32(0x7f));
    } else {
        v = _mm256_add_epi32(_mm256_slli_epi32(m, 21), _mm256_set1_epi32(112 << 23));
        v = sel(_mm256_cmpgt_epi32(_mm256_set1_epi32(4), m),
                _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(m), _mm256_set1_ps(0x1p-16f))), v);
        v = sel(_mm256_cmpeq_epi32(m, _mm256_set1_epi32(0x7c)), _mm256_set1_epi32(0x7f800000), v);
        nan = _mm256_cmpgt_epi32(m, _mm256_set1_epi32(0x7c));
    }
    v = _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(_mm256_or_si256(v, sg)), sc));
    return _mm256_castsi256_ps(sel(nan, _mm256_or_si256(sg, _mm256_set1_epi32(0x7fc00000)), v));
}
#define DQ8F_LOOP(KIND)                                                                                       \
    for (; i + 16 <= n; i += 16) {                                                                            \
        __m128i b = _mm_loadu_si128((const __m128i *)(x + i));                                                \
        _mm256_storeu_ps(y + i, f8_scaled(b, KIND, p->scales ? _mm256_loadu_ps(p->scales + i) : s));          \
        _mm256_storeu_ps(y + i + 8, f8_scaled(_mm_srli_si128(b, 8), KIND,                                    \
                                              p->scales ? _mm256_loadu_ps(p->scales + i + 8) : s));          \
    }
void simdops_lbs_dq8f_f32__avx2(const void *xv, void *yv, size_t n, const lbs_params *p)
{
    const uint8_t *x = (const uint8_t *)xv;
    float *y = (float *)yv;
    const __m256 s = _mm256_set1_ps(p->scale);
    size_t i = 0;
    if (p->kind == LBS_E4M3FN)
        DQ8F_LOOP(LBS_E4M3FN)
    else
        DQ8F_LOOP(LBS_E5M2)
    lbs_dq8f_f32_tail(x, y, i, n, p);
}
#endif
