/* QuantizeLinear / DequantizeLinear for AVX2 + F16C: 16 elements a step,
 * tails through qlinear_element.h. The clamp runs before rounding (the
 * bounds are integers, so clamping commutes with rounding); maxps returns
 * its second operand for a NaN, which is how NaN becomes qlo. Rounding is
 * roundps with an explicit nearest-even mode: no dependence on MXCSR. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#include <immintrin.h>

#include "qlinear_element.h"
#include "qlinear_types.h"

/* int32 lanes of x / scale, clamped and rounded, plus the zero point */
static inline __m256i q8(__m256 q, __m256 lo, __m256 hi, __m256i zp)
{
    q = _mm256_min_ps(_mm256_max_ps(q, lo), hi);
    q = _mm256_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_add_epi32(_mm256_cvttps_epi32(q), zp);
}

static inline __m256 load_f32(const float *x) { return _mm256_loadu_ps(x); }
static inline __m256 load_f16(const uint16_t *x)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x));
}
static inline __m256 to_f16_and_back(__m256 v)
{
    return _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* 16 int32 (a then b, each already in the type's range) stored as the type */
static inline void store_u8(uint8_t *y, __m256i a, __m256i b)
{
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xd8);
    _mm_storeu_si128((__m128i *)y,
                     _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}
static inline void store_i8(int8_t *y, __m256i a, __m256i b)
{
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xd8);
    _mm_storeu_si128((__m128i *)y,
                     _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}
static inline void store_u16(uint16_t *y, __m256i a, __m256i b)
{
    _mm256_storeu_si256((__m256i *)y, _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8));
}
static inline void store_i16(int16_t *y, __m256i a, __m256i b)
{
    _mm256_storeu_si256((__m256i *)y, _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xd8));
}

/* 8-bit outputs of float32 x, 32 lanes a step: only min(hi, q) in float (the
 * operand order keeps a NaN, which truncates to INT32_MIN like -inf and
 * anything below -2^31), then saturating narrows with the zero point added in
 * int16 (the AVX-512 kernel, qlinear_avx512.c, says why this equals
 * clamp-then-round). Three ops of the convert/min port a vector instead of four. */
static inline __m256i q8_round(__m256 q, __m256 hi)
{
    q = _mm256_round_ps(_mm256_min_ps(hi, q), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_cvttps_epi32(q);
}

static inline size_t q8_steps(const float *x, void *y, size_t n, const simdops_qlinear_params *p,
                              int is_signed)
{
    const __m256 s = _mm256_set1_ps(p->scale), hi = _mm256_set1_ps(p->qhi);
    const __m256i zp = _mm256_set1_epi16((int16_t)p->zero_point);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    size_t i = 0;
    for (; n - i >= 32; i += 32) {
        __m256i r0 = q8_round(_mm256_div_ps(_mm256_loadu_ps(x + i), s), hi);
        __m256i r1 = q8_round(_mm256_div_ps(_mm256_loadu_ps(x + i + 8), s), hi);
        __m256i r2 = q8_round(_mm256_div_ps(_mm256_loadu_ps(x + i + 16), s), hi);
        __m256i r3 = q8_round(_mm256_div_ps(_mm256_loadu_ps(x + i + 24), s), hi);
        __m256i p01 = _mm256_adds_epi16(_mm256_packs_epi32(r0, r1), zp);
        __m256i p23 = _mm256_adds_epi16(_mm256_packs_epi32(r2, r3), zp);
        __m256i b = is_signed ? _mm256_packs_epi16(p01, p23) : _mm256_packus_epi16(p01, p23);
        _mm256_storeu_si256((__m256i *)((char *)y + i), _mm256_permutevar8x32_epi32(b, order));
    }
    return i;
}

#include "qlinear_fast8.h"

#define QUANTIZE(XT, xname, LOAD, T, tname)                                                     \
    static void xname##_quantize_##tname##__avx2(const void *xv, void *yv, size_t n,          \
                                                 const simdops_qlinear_params *p)              \
    {                                                                                          \
        const XT *x = (const XT *)xv;                                                          \
        T *y = (T *)yv;                                                                        \
        const __m256 s = _mm256_set1_ps(p->scale), lo = _mm256_set1_ps(p->qlo),              \
                     hi = _mm256_set1_ps(p->qhi);                                              \
        const __m256i zp = _mm256_set1_epi32(p->zero_point);                                   \
        const int f16 = p->div_f16;                                                            \
        size_t i = f16 ? 0 : FAST_##xname##_##tname(x, y, n, p);                               \
        for (; i + 16 <= n; i += 16) {                                                         \
            __m256 a = _mm256_div_ps(LOAD(x + i), s), b = _mm256_div_ps(LOAD(x + i + 8), s);   \
            if (f16) {                                                                         \
                a = to_f16_and_back(a);                                                        \
                b = to_f16_and_back(b);                                                        \
            }                                                                                  \
            store_##tname(y + i, q8(a, lo, hi, zp), q8(b, lo, hi, zp));                        \
        }                                                                                      \
        for (; i < n; i++)                                                                     \
            y[i] = (T)qlinear_quantize_one(QUOTIENT_##xname(x[i], p), p);                      \
    }

#define QUOTIENT_f32(v, p) ((v) / (p)->scale)
#define QUOTIENT_f16(v, p) qlinear_quotient_f16((v), (p))

#define QUANTIZE_F32_F16(T, tname, D)                                                          \
    QUANTIZE(float, f32, load_f32, T, tname) QUANTIZE(uint16_t, f16, load_f16, T, tname)
QL_QUANTIZED_TYPES(QUANTIZE_F32_F16)

/* 8 elements of x widened to int32 */
static inline __m256i widen_u8(const uint8_t *x) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)x)); }
static inline __m256i widen_i8(const int8_t *x) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)x)); }
static inline __m256i widen_u16(const uint16_t *x) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)x)); }
static inline __m256i widen_i16(const int16_t *x) { return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)x)); }
static inline __m256i widen_i32(const int32_t *x) { return _mm256_loadu_si256((const __m256i *)x); }

static inline void put_f32(float *y, __m256 v) { _mm256_storeu_ps(y, v); }
static inline void put_f16(uint16_t *y, __m256 v)
{
    _mm_storeu_si128((__m128i *)y, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
#define ONE_f32(v) (v)
#define ONE_f16(v) simdops_f32_to_f16(v)

#define DEQUANTIZE(T, tname, YT, yname)                                                         \
    static void tname##_dequantize_##yname##__avx2(const void *xv, void *yv, size_t n,        \
                                                   const simdops_qlinear_params *p)            \
    {                                                                                          \
        const T *x = (const T *)xv;                                                            \
        YT *y = (YT *)yv;                                                                      \
        const __m256 s = _mm256_set1_ps(p->scale);                                             \
        const __m256i zp = _mm256_set1_epi32(p->zero_point);                                   \
        size_t i = 0;                                                                          \
        for (; i + 16 <= n; i += 16) {                                                         \
            __m256i a = _mm256_sub_epi32(widen_##tname(x + i), zp);                            \
            __m256i b = _mm256_sub_epi32(widen_##tname(x + i + 8), zp);                        \
            put_##yname(y + i, _mm256_mul_ps(_mm256_cvtepi32_ps(a), s));                       \
            put_##yname(y + i + 8, _mm256_mul_ps(_mm256_cvtepi32_ps(b), s));                   \
        }                                                                                      \
        for (; i < n; i++)                                                                     \
            y[i] = ONE_##yname(qlinear_dequantize_one((int32_t)x[i], p));                      \
    }

#define DEQUANTIZE_F32_F16(T, tname, D) DEQUANTIZE(T, tname, float, f32) DEQUANTIZE(T, tname, uint16_t, f16)
QL_DEQUANTIZED_TYPES(DEQUANTIZE_F32_F16)

#define QL_TIER avx2
int qlinear_register__avx2(simdops_kernel_table *t)
{
    QL_QUANTIZED_TYPES(QL_SET_QUANTIZE)
    QL_DEQUANTIZED_TYPES(QL_SET_DEQUANTIZE)
    return 1;
}

#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, avx2)
#endif
