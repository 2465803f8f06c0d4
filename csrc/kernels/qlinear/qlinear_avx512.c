/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) quantize_linear / dequantize_linear kernels, bit-exact with
 * qlinear_scalar.c: 16 lanes a vector, two vectors a step, tails through masked
 * loads and stores (no scalar loop). The arithmetic is avx2's lane for lane:
 * x / scale by a true division (a reciprocal multiply is not the same float),
 * clamped before rounding (maxps returns its second operand for a NaN: NaN ->
 * qlo), rounded half to even by the instruction's embedded rounding mode (no
 * MXCSR dependence). A clamped lane is in the output type's range, so the
 * truncating narrow (vpmovdb / vpmovdw) stores it exactly. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#include <immintrin.h>

#include "qlinear_types.h"

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

static inline __mmask16 tail_mask(size_t left) { return left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1); }

/* int32 lanes of q clamped, rounded, plus the zero point */
static inline __m512i q16(__m512 q, __m512 lo, __m512 hi, __m512i zp)
{
    q = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
    return _mm512_add_epi32(_mm512_cvt_roundps_epi32(q, RN), zp);
}

static inline __m512 load_f32(const float *x, __mmask16 m) { return _mm512_maskz_loadu_ps(m, x); }
static inline __m512 load_f16(const uint16_t *x, __mmask16 m)
{
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, x));
}

static inline void put8(void *y, __m512i v, __mmask16 m) { _mm512_mask_cvtepi32_storeu_epi8(y, m, v); }
static inline void put16(void *y, __m512i v, __mmask16 m) { _mm512_mask_cvtepi32_storeu_epi16(y, m, v); }
#define PUT_u8 put8
#define PUT_i8 put8
#define PUT_u16 put16
#define PUT_i16 put16

/* 8-bit outputs, 64 float32 lanes a step: x / scale with only the upper clamp in
 * float, min(hi, q), whose operand order keeps a NaN (minps returns its second
 * operand for a NaN). The convert gives INT32_MIN for NaN, -inf and anything
 * below -2^31; the rounded values narrow to int16 with saturation, take the
 * zero point with a saturating int16 add and narrow to 8 bits with saturation.
 * That equals clamp-then-round (NaN -> lo): the bounds are the type's limits
 * minus zp, |zp| <= 255, and a value saturated at either 16-bit step lies
 * beyond the 8-bit type on the side the exact sum does. Two ops of the
 * convert/min port a vector instead of four; the divide is what remains. */
static inline __m512i q8_round(__m512 q, __m512 hi)
{
    return _mm512_cvt_roundps_epi32(_mm512_min_ps(hi, q), RN);
}

static inline size_t q8_steps(const float *x, void *y, size_t n, const simdops_qlinear_params *p,
                              int is_signed)
{
    const __m512 s = _mm512_set1_ps(p->scale), hi = _mm512_set1_ps(p->qhi);
    const __m512i zp = _mm512_set1_epi16((int16_t)p->zero_point);
    /* lane k of the byte pack: dwords a_k, b_k, c_k, d_k */
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    size_t i = 0;
    for (; n - i >= 64; i += 64) {
        __m512i r0 = q8_round(_mm512_div_ps(_mm512_loadu_ps(x + i), s), hi);
        __m512i r1 = q8_round(_mm512_div_ps(_mm512_loadu_ps(x + i + 16), s), hi);
        __m512i r2 = q8_round(_mm512_div_ps(_mm512_loadu_ps(x + i + 32), s), hi);
        __m512i r3 = q8_round(_mm512_div_ps(_mm512_loadu_ps(x + i + 48), s), hi);
        __m512i p01 = _mm512_adds_epi16(_mm512_packs_epi32(r0, r1), zp);
        __m512i p23 = _mm512_adds_epi16(_mm512_packs_epi32(r2, r3), zp);
        __m512i b = is_signed ? _mm512_packs_epi16(p01, p23) : _mm512_packus_epi16(p01, p23);
        _mm512_storeu_si512((char *)y + i, _mm512_permutexvar_epi32(order, b));
    }
    return i;
}

#include "qlinear_fast8.h"

#define QUANTIZE(XT, xname, LOAD, T, tname)                                                     \
    static void xname##_quantize_##tname##__avx512(const void *xv, void *yv, size_t n,        \
                                                   const simdops_qlinear_params *p)            \
    {                                                                                          \
        const XT *x = (const XT *)xv;                                                          \
        T *y = (T *)yv;                                                                        \
        const __m512 s = _mm512_set1_ps(p->scale), lo = _mm512_set1_ps(p->qlo),              \
                     hi = _mm512_set1_ps(p->qhi);                                              \
        const __m512i zp = _mm512_set1_epi32(p->zero_point);                                   \
        const int f16 = p->div_f16;                                                            \
        size_t i = p->div_f16 ? 0 : FAST_##xname##_##tname(x, y, n, p);                        \
        if (!f16)                                                                              \
            for (; n - i >= 32; i += 32) {                                                     \
                __m512 a = _mm512_div_ps(LOAD(x + i, 0xFFFF), s);                              \
                __m512 b = _mm512_div_ps(LOAD(x + i + 16, 0xFFFF), s);                         \
                PUT_##tname(y + i, q16(a, lo, hi, zp), 0xFFFF);                                \
                PUT_##tname(y + i + 16, q16(b, lo, hi, zp), 0xFFFF);                           \
            }                                                                                  \
        for (; i < n; i += 16) {                                                               \
            __mmask16 m = tail_mask(n - i);                                                    \
            __m512 a = _mm512_div_ps(LOAD(x + i, m), s);                                       \
            if (f16)                                                                           \
                a = _mm512_cvtph_ps(_mm512_cvtps_ph(a, RN));                                   \
            PUT_##tname(y + i, q16(a, lo, hi, zp), m);                                         \
        }                                                                                      \
    }

#define QUANTIZE_F32_F16(T, tname, D)                                                          \
    QUANTIZE(float, f32, load_f32, T, tname) QUANTIZE(uint16_t, f16, load_f16, T, tname)
QL_QUANTIZED_TYPES(QUANTIZE_F32_F16)

/* 16 elements of x widened to int32 (masked-off lanes read nothing) */
static inline __m512i widen_u8(const uint8_t *x, __mmask16 m) { return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, x)); }
static inline __m512i widen_i8(const int8_t *x, __mmask16 m) { return _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, x)); }
static inline __m512i widen_u16(const uint16_t *x, __mmask16 m) { return _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x)); }
static inline __m512i widen_i16(const int16_t *x, __mmask16 m) { return _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, x)); }
static inline __m512i widen_i32(const int32_t *x, __mmask16 m) { return _mm512_maskz_loadu_epi32(m, x); }

static inline void put_f32(float *y, __m512 v, __mmask16 m) { _mm512_mask_storeu_ps(y, m, v); }
static inline void put_f16(uint16_t *y, __m512 v, __mmask16 m)
{
    _mm256_mask_storeu_epi16(y, m, _mm512_cvtps_ph(v, RN));
}

#define DEQUANTIZE(T, tname, YT, yname)                                                         \
    static void tname##_dequantize_##yname##__avx512(const void *xv, void *yv, size_t n,      \
                                                     const simdops_qlinear_params *p)          \
    {                                                                                          \
        const T *x = (const T *)xv;                                                            \
        YT *y = (YT *)yv;                                                                      \
        const __m512 s = _mm512_set1_ps(p->scale);                                             \
        const __m512i zp = _mm512_set1_epi32(p->zero_point);                                   \
        size_t i = 0;                                                                          \
        for (; n - i >= 32; i += 32) {                                                         \
            __m512i a = _mm512_sub_epi32(widen_##tname(x + i, 0xFFFF), zp);                    \
            __m512i b = _mm512_sub_epi32(widen_##tname(x + i + 16, 0xFFFF), zp);               \
            put_##yname(y + i, _mm512_mul_ps(_mm512_cvtepi32_ps(a), s), 0xFFFF);               \
            put_##yname(y + i + 16, _mm512_mul_ps(_mm512_cvtepi32_ps(b), s), 0xFFFF);          \
        }                                                                                      \
        for (; i < n; i += 16) {                                                               \
            __mmask16 m = tail_mask(n - i);                                                    \
            __m512i a = _mm512_sub_epi32(widen_##tname(x + i, m), zp);                         \
            put_##yname(y + i, _mm512_mul_ps(_mm512_cvtepi32_ps(a), s), m);                    \
        }                                                                                      \
    }

#define DEQUANTIZE_F32_F16(T, tname, D) DEQUANTIZE(T, tname, float, f32) DEQUANTIZE(T, tname, uint16_t, f16)
QL_DEQUANTIZED_TYPES(DEQUANTIZE_F32_F16)

#define QL_TIER avx512
int qlinear_register__avx512(simdops_kernel_table *t)
{
    QL_QUANTIZED_TYPES(QL_SET_QUANTIZE)
    QL_DEQUANTIZED_TYPES(QL_SET_DEQUANTIZE)
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, avx512)
#endif
