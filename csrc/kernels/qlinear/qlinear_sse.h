/* QuantizeLinear / DequantizeLinear over 128-bit vectors, included by
 * qlinear_sse2.c and qlinear_sse41.c with QL_TIER set to the tier name and
 * QL_SSE41 to 0 or 1. float16 inputs and outputs are left to the scalar
 * kernels (no F16C below AVX2). SSE4.1 rounds with roundps (explicit
 * nearest-even); SSE2 with cvtps2dq, which rounds as MXCSR says: nearest-even
 * unless a program changed it (numpy's rint makes the same assumption). */
#include <emmintrin.h>
#if QL_SSE41
#include <smmintrin.h>
#endif

#include "qlinear_element.h"
#include "qlinear_types.h"


static inline __m128i ql_q4(__m128 q, __m128 lo, __m128 hi, __m128i zp)
{
    q = _mm_min_ps(_mm_max_ps(q, lo), hi);
#if QL_SSE41
    q = _mm_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm_add_epi32(_mm_cvttps_epi32(q), zp);
#else
    return _mm_add_epi32(_mm_cvtps_epi32(q), zp);
#endif
}

/* 16 int32 lanes (each in the type's range) stored as the type */
static inline void ql_store_u8(uint8_t *y, __m128i a, __m128i b, __m128i c, __m128i d)
{
    _mm_storeu_si128((__m128i *)y, _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
}
static inline void ql_store_i8(int8_t *y, __m128i a, __m128i b, __m128i c, __m128i d)
{
    _mm_storeu_si128((__m128i *)y, _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
}
static inline __m128i ql_pack_u16(__m128i a, __m128i b)
{
#if QL_SSE41
    return _mm_packus_epi32(a, b);
#else /* shift [0, 65535] into int16's range, pack signed, shift back */
    const __m128i k = _mm_set1_epi32(32768);
    return _mm_xor_si128(_mm_packs_epi32(_mm_sub_epi32(a, k), _mm_sub_epi32(b, k)),
                         _mm_set1_epi16((short)0x8000));
#endif
}
static inline void ql_store_u16(uint16_t *y, __m128i a, __m128i b, __m128i c, __m128i d)
{
    _mm_storeu_si128((__m128i *)y, ql_pack_u16(a, b));
    _mm_storeu_si128((__m128i *)y + 1, ql_pack_u16(c, d));
}
static inline void ql_store_i16(int16_t *y, __m128i a, __m128i b, __m128i c, __m128i d)
{
    _mm_storeu_si128((__m128i *)y, _mm_packs_epi32(a, b));
    _mm_storeu_si128((__m128i *)y + 1, _mm_packs_epi32(c, d));
}

#define QL_QUANTIZE(T, tname, D)                                                                 \
    static void QL_QUANTIZE_NAME(f32, tname)(const void *xv, void *yv, size_t n,              \
                                              const simdops_qlinear_params *p)                 \
    {                                                                                          \
        const float *x = (const float *)xv;                                                    \
        T *y = (T *)yv;                                                                        \
        const __m128 s = _mm_set1_ps(p->scale), lo = _mm_set1_ps(p->qlo),                     \
                     hi = _mm_set1_ps(p->qhi);                                                 \
        const __m128i zp = _mm_set1_epi32(p->zero_point);                                      \
        size_t i = 0;                                                                          \
        for (; i + 16 <= n; i += 16)                                                           \
            ql_store_##tname(y + i, ql_q4(_mm_div_ps(_mm_loadu_ps(x + i), s), lo, hi, zp),     \
                             ql_q4(_mm_div_ps(_mm_loadu_ps(x + i + 4), s), lo, hi, zp),        \
                             ql_q4(_mm_div_ps(_mm_loadu_ps(x + i + 8), s), lo, hi, zp),        \
                             ql_q4(_mm_div_ps(_mm_loadu_ps(x + i + 12), s), lo, hi, zp));      \
        for (; i < n; i++)                                                                     \
            y[i] = (T)qlinear_quantize_one(x[i] / p->scale, p);                                \
    }

QL_QUANTIZED_TYPES(QL_QUANTIZE)

/* 4 elements of x widened to int32 */
#if QL_SSE41
static inline __m128i ql_widen_u8(const uint8_t *x) { int32_t v; memcpy(&v, x, 4); return _mm_cvtepu8_epi32(_mm_cvtsi32_si128(v)); }
static inline __m128i ql_widen_i8(const int8_t *x) { int32_t v; memcpy(&v, x, 4); return _mm_cvtepi8_epi32(_mm_cvtsi32_si128(v)); }
static inline __m128i ql_widen_u16(const uint16_t *x) { return _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)x)); }
static inline __m128i ql_widen_i16(const int16_t *x) { return _mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)x)); }
#else
static inline __m128i ql_widen_u8(const uint8_t *x)
{
    int32_t v;
    const __m128i z = _mm_setzero_si128();
    memcpy(&v, x, 4);
    return _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(v), z), z);
}
static inline __m128i ql_widen_i8(const int8_t *x)
{
    int32_t v;
    __m128i b;
    memcpy(&v, x, 4);
    b = _mm_cvtsi32_si128(v);
    b = _mm_unpacklo_epi8(b, b);
    return _mm_srai_epi32(_mm_unpacklo_epi16(b, b), 24);
}
static inline __m128i ql_widen_u16(const uint16_t *x)
{
    return _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)x), _mm_setzero_si128());
}
static inline __m128i ql_widen_i16(const int16_t *x)
{
    __m128i h = _mm_loadl_epi64((const __m128i *)x);
    return _mm_srai_epi32(_mm_unpacklo_epi16(h, h), 16);
}
#endif
static inline __m128i ql_widen_i32(const int32_t *x) { return _mm_loadu_si128((const __m128i *)x); }

#define QL_DEQUANTIZE(T, tname, D)                                                               \
    static void QL_DEQUANTIZE_NAME(tname, f32)(const void *xv, void *yv, size_t n,            \
                                                const simdops_qlinear_params *p)               \
    {                                                                                          \
        const T *x = (const T *)xv;                                                            \
        float *y = (float *)yv;                                                                \
        const __m128 s = _mm_set1_ps(p->scale);                                                \
        const __m128i zp = _mm_set1_epi32(p->zero_point);                                      \
        size_t i = 0;                                                                          \
        for (; i + 8 <= n; i += 8) {                                                           \
            __m128i a = _mm_sub_epi32(ql_widen_##tname(x + i), zp);                            \
            __m128i b = _mm_sub_epi32(ql_widen_##tname(x + i + 4), zp);                        \
            _mm_storeu_ps(y + i, _mm_mul_ps(_mm_cvtepi32_ps(a), s));                           \
            _mm_storeu_ps(y + i + 4, _mm_mul_ps(_mm_cvtepi32_ps(b), s));                       \
        }                                                                                      \
        for (; i < n; i++)                                                                     \
            y[i] = qlinear_dequantize_one((int32_t)x[i], p);                                   \
    }

QL_DEQUANTIZED_TYPES(QL_DEQUANTIZE)

static int ql_register(simdops_kernel_table *t)
{
    QL_QUANTIZED_TYPES(QL_SET_QUANTIZE_F32)
    QL_DEQUANTIZED_TYPES(QL_SET_DEQUANTIZE_F32)
    return 1;
}
