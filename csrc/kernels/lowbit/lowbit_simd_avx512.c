/* The low-bit hot paths on AVX-512 (F, BW, VL, DQ): 32 elements a step, the
 * rest through lowbit_simd_tail.h. Rounding is explicit (embedded nearest-even
 * or integer arithmetic on the bits): MXCSR's mode cannot change a result. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"
#include "kernels/lowbit/lowbit_simd_tail.h"

#if SIMDOPS_COMPILE_AVX512
#include <immintrin.h>

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* 32 nibbles of 16 bytes, in element order, as two vectors of int32 */
static inline void nib32(const uint8_t *x, __m512i *e0, __m512i *e1)
{
    const __m128i m = _mm_set1_epi8(0x0f);
    __m128i b = _mm_loadu_si128((const __m128i *)x);
    __m128i lo = _mm_and_si128(b, m), hi = _mm_and_si128(_mm_srli_epi16(b, 4), m);
    *e0 = _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi));
    *e1 = _mm512_cvtepu8_epi32(_mm_unpackhi_epi8(lo, hi));
}

/* float32 -> bfloat16 bits in the low half of each lane (lowbit_simd_element.h) */
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

static inline void put_f32(float *y, __m512 v) { _mm512_storeu_ps(y, v); }
static inline void put_f16(uint16_t *y, __m512 v) { _mm256_storeu_si256((__m256i *)y, _mm512_cvtps_ph(v, RN)); }
static inline void put_bf16(uint16_t *y, __m512 v) { _mm256_storeu_si256((__m256i *)y, bf16_of(v)); }

/* int4 / uint4 dequantize. One scale: the 16 possible outputs are computed
 * once (lane k: the nibble k's value) and each element is a permute of them;
 * per element: (nibble ^ 8 - 8 - zp) * scale in int32 and float32. The
 * signed value is (nibble ^ 8) - 8, so flip = 8 and bias = 8 (uint4: 0, 0). */
#define DQ4(OUT, YT)                                                                                   \
    void simdops_lbs_dq4_##OUT##__avx512(const void *xv, void *yv, size_t n, const lbs_params *p)      \
    {                                                                                                  \
        const uint8_t *x = (const uint8_t *)xv;                                                        \
        YT *y = (YT *)yv;                                                                              \
        const __m512i flip = _mm512_set1_epi32(p->is_signed ? 8 : 0);                                  \
        const __m512i bias = _mm512_set1_epi32(p->is_signed ? 8 : 0);                                  \
        size_t i = 0;                                                                                  \
        if (!p->scales) {                                                                              \
            __m512i k = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);       \
            __m512i d = _mm512_sub_epi32(_mm512_sub_epi32(_mm512_xor_si512(k, flip), bias),             \
                                         _mm512_set1_epi32(p->zp));                                    \
            const __m512 table = _mm512_mul_ps(_mm512_cvtepi32_ps(d), _mm512_set1_ps(p->scale));       \
            for (; i + 32 <= n; i += 32) {                                                             \
                __m512i e0, e1;                                                                        \
                nib32(x + i / 2, &e0, &e1);                                                            \
                put_##OUT(y + i, _mm512_permutexvar_ps(e0, table));                                    \
                put_##OUT(y + i + 16, _mm512_permutexvar_ps(e1, table));                               \
            }                                                                                          \
        } else {                                                                                       \
            for (; i + 32 <= n; i += 32) {                                                             \
                __m512i e0, e1, z0, z1;                                                                \
                nib32(x + i / 2, &e0, &e1);                                                            \
                z0 = _mm512_add_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p->zps + i))), bias); \
                z1 = _mm512_add_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p->zps + i + 16))), bias); \
                e0 = _mm512_sub_epi32(_mm512_xor_si512(e0, flip), z0);                                 \
                e1 = _mm512_sub_epi32(_mm512_xor_si512(e1, flip), z1);                                 \
                put_##OUT(y + i, _mm512_mul_ps(_mm512_cvtepi32_ps(e0), _mm512_loadu_ps(p->scales + i))); \
                put_##OUT(y + i + 16, _mm512_mul_ps(_mm512_cvtepi32_ps(e1), _mm512_loadu_ps(p->scales + i + 16))); \
            }                                                                                          \
        }                                                                                              \
        lbs_dq4_##OUT##_tail(x, y, i, n, p);                                                           \
    }
DQ4(f32, float)
DQ4(f16, uint16_t)
DQ4(bf16, uint16_t)

/* int4 / uint4 quantize: x / scale clamped to [-32, 32] (maxps returns its
 * second operand for a NaN: -32), rounded to nearest even, plus the zero
 * point, clamped to the type; 32 codes packed two a byte, low nibble first */
static inline __m512i q4_codes(__m512 x, __m512 s, __m512i zp, __m512i lo, __m512i hi)
{
    __m512 q = _mm512_min_ps(_mm512_max_ps(_mm512_div_ps(x, s), _mm512_set1_ps(-32.0f)), _mm512_set1_ps(32.0f));
    __m512i r = _mm512_add_epi32(_mm512_cvt_roundps_epi32(q, RN), zp);
    return _mm512_min_epi32(_mm512_max_epi32(r, lo), hi);
}
static inline void q4_store(uint8_t *y, __m512i c0, __m512i c1)
{
    /* bytes in element order; a 16-bit lane b0 | b1 << 8 becomes b0 & 15 | (b1 & 15) << 4 */
    __m256i b = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(c0)), _mm512_cvtepi32_epi8(c1), 1);
    __m256i w = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi16(0x0f)),
                                _mm256_and_si256(_mm256_srli_epi16(b, 4), _mm256_set1_epi16(0xf0)));
    _mm_storeu_si128((__m128i *)y, _mm256_cvtepi16_epi8(w));
}
void simdops_lbs_q4_f32__avx512(const void *xv, void *yv, size_t n, const lbs_params *p)
{
    const float *x = (const float *)xv;
    uint8_t *y = (uint8_t *)yv;
    const __m512i lo = _mm512_set1_epi32(p->is_signed ? -8 : 0), hi = _mm512_set1_epi32(p->is_signed ? 7 : 15);
    size_t i = 0;
    if (!p->scales) {
        const __m512 s = _mm512_set1_ps(p->scale);
        const __m512i zp = _mm512_set1_epi32(p->zp);
        for (; i + 32 <= n; i += 32)
            q4_store(y + i / 2, q4_codes(_mm512_loadu_ps(x + i), s, zp, lo, hi),
                     q4_codes(_mm512_loadu_ps(x + i + 16), s, zp, lo, hi));
    } else {
        for (; i + 32 <= n; i += 32) {
            __m512i z0 = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p->zps + i)));
            __m512i z1 = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p->zps + i + 16)));
            q4_store(y + i / 2, q4_codes(_mm512_loadu_ps(x + i), _mm512_loadu_ps(p->scales + i), z0, lo, hi),
                     q4_codes(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(p->scales + i + 16), z1, lo, hi));
        }
    }
    lbs_q4_f32_tail(x, y, i, n, p);
}

/* float32 -> float8 (lowbit_simd_element.h's lbs_f32_to_f8, lane-wise): the
 * normal range rounds on the bits, below it |v| * 2^9 (2^16) is rounded
 * (exact product; a float32 subnormal gives 0 with or without DAZ, as it
 * should), then overflow, NaN and the sign */
static inline __m512i f8_codes(__m512 v, int kind, int sat)
{
    const int e4 = kind == LBS_E4M3FN;
    __m512i u = _mm512_castps_si512(v);
    __m512i a = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
    __m512i s = _mm512_and_si512(_mm512_srli_epi32(u, 24), _mm512_set1_epi32(0x80));
    __m512i c;
    __mmask16 sub, ovf, nan;
    if (e4) {
        c = _mm512_sub_epi32(_mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(0x7ffff)),
                                                                _mm512_and_si512(_mm512_srli_epi32(a, 20), _mm512_set1_epi32(1))), 20),
                             _mm512_set1_epi32(120 << 3));
        sub = _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(0x3c800000));
        c = _mm512_mask_mov_epi32(c, sub, _mm512_cvt_roundps_epi32(_mm512_mul_ps(_mm512_castsi512_ps(a), _mm512_set1_ps(512.0f)), RN));
        ovf = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x43e80000));
        c = _mm512_mask_mov_epi32(c, ovf, _mm512_set1_epi32(sat ? 0x7e : 0x7f));
        nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7f800000));
        c = _mm512_mask_mov_epi32(c, nan, _mm512_set1_epi32(0x7f));
    } else {
        c = _mm512_sub_epi32(_mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(0xfffff)),
                                                                _mm512_and_si512(_mm512_srli_epi32(a, 21), _mm512_set1_epi32(1))), 21),
                             _mm512_set1_epi32(112 << 2));
        sub = _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(0x38800000));
        c = _mm512_mask_mov_epi32(c, sub, _mm512_cvt_roundps_epi32(_mm512_mul_ps(_mm512_castsi512_ps(a), _mm512_set1_ps(65536.0f)), RN));
        ovf = _mm512_cmpge_epu32_mask(a, _mm512_set1_epi32(0x47700000));
        c = _mm512_mask_mov_epi32(c, ovf, _mm512_set1_epi32(sat ? 0x7b : 0x7c));
        nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7f800000));
        c = _mm512_mask_mov_epi32(c, nan, _mm512_set1_epi32(0x7e));
    }
    return _mm512_or_si512(c, s);
}
#define Q8F_LOOP(KIND, SAT)                                                                               \
    for (; i + 32 <= n; i += 32) {                                                                        \
        __m512 v0 = _mm512_div_ps(_mm512_loadu_ps(x + i), p->scales ? _mm512_loadu_ps(p->scales + i) : s); \
        __m512 v1 = _mm512_div_ps(_mm512_loadu_ps(x + i + 16), p->scales ? _mm512_loadu_ps(p->scales + i + 16) : s); \
        _mm_storeu_si128((__m128i *)(y + i), _mm512_cvtepi32_epi8(f8_codes(v0, KIND, SAT)));             \
        _mm_storeu_si128((__m128i *)(y + i + 16), _mm512_cvtepi32_epi8(f8_codes(v1, KIND, SAT)));        \
    }
void simdops_lbs_q8f_f32__avx512(const void *xv, void *yv, size_t n, const lbs_params *p)
{
    const float *x = (const float *)xv;
    uint8_t *y = (uint8_t *)yv;
    const __m512 s = _mm512_set1_ps(p->scale);
    size_t i = 0;
    /* the kind and saturation as constants of four loops */
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
static inline __m512 f8_scaled(__m128i b, int kind, __m512 s)
{
    __m512i c = _mm512_cvtepu8_epi32(b);
    __m512i m = _mm512_and_si512(c, _mm512_set1_epi32(0x7f));
    __m512i sg = _mm512_slli_epi32(_mm512_and_si512(c, _mm512_set1_epi32(0x80)), 24);
    __m512i v;
    __m512 r;
    __mmask16 nan;
    if (kind == LBS_E4M3FN) {
        v = _mm512_add_epi32(_mm512_slli_epi32(m, 20), _mm512_set1_epi32(120 << 23));
        v = _mm512_mask_mov_epi32(v, _mm512_cmplt_epu32_mask(m, _mm512_set1_epi32(8)),
                                  _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtepi32_ps(m), _mm512_set1_ps(0x1p-9f))));
        nan = _mm512_cmpeq_epu32_mask(m, _mm512_set1_epi32(0x7f));
    } else {
        v = _mm512_add_epi32(_mm512_slli_epi32(m, 21), _mm512_set1_epi32(112 << 23));
        v = _mm512_mask_mov_epi32(v, _mm512_cmplt_epu32_mask(m, _mm512_set1_epi32(4)),
                                  _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtepi32_ps(m), _mm512_set1_ps(0x1p-16f))));
        v = _mm512_mask_mov_epi32(v, _mm512_cmpeq_epu32_mask(m, _mm512_set1_epi32(0x7c)), _mm512_set1_epi32(0x7f800000));
        nan = _mm512_cmpgt_epu32_mask(m, _mm512_set1_epi32(0x7c));
    }
    r = _mm512_mul_ps(_mm512_castsi512_ps(_mm512_or_si512(v, sg)), s);
    return _mm512_mask_mov_ps(r, nan, _mm512_castsi512_ps(_mm512_or_si512(sg, _mm512_set1_epi32(0x7fc00000))));
}
#define DQ8F_LOOP(KIND)                                                                                   \
    for (; i + 32 <= n; i += 32) {                                                                        \
        _mm512_storeu_ps(y + i, f8_scaled(_mm_loadu_si128((const __m128i *)(x + i)), KIND,                 \
                                          p->scales ? _mm512_loadu_ps(p->scales + i) : s));               \
        _mm512_storeu_ps(y + i + 16, f8_scaled(_mm_loadu_si128((const __m128i *)(x + i + 16)), KIND,       \
                                               p->scales ? _mm512_loadu_ps(p->scales + i + 16) : s));     \
    }
void simdops_lbs_dq8f_f32__avx512(const void *xv, void *yv, size_t n, const lbs_params *p)
{
    const uint8_t *x = (const uint8_t *)xv;
    float *y = (float *)yv;
    const __m512 s = _mm512_set1_ps(p->scale);
    size_t i = 0;
    if (p->kind == LBS_E4M3FN)
        DQ8F_LOOP(LBS_E4M3FN)
    else
        DQ8F_LOOP(LBS_E5M2)
    lbs_dq8f_f32_tail(x, y, i, n, p);
}
#endif
