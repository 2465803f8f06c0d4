/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) quantize_linear / dequantize_linear
 * kernels: the loops of qlinear_x86.h over 16-lane vectors, two a step, tails
 * through masked loads and stores (no scalar loop; masked-off lanes are neither
 * read nor written). Rounding is the convert's embedded nearest-even mode (no
 * MXCSR dependence). A clamped lane is in the output type's range, so the
 * truncating narrow (vpmovdb / vpmovdw) stores it exactly. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#include <immintrin.h>

#define SIMDOPS_TIER avx512
#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

typedef __m512 QL_V;
typedef __m512i QL_VI;
typedef __mmask16 QL_MASK;
#define QL_PFX _mm512
#define QL_W 16
#define QL_FULL ((__mmask16)0xFFFF)
#define QL_QV 2
#define QL_HAS_F16 1
#define QL_MASKED_TAIL 1
#define QL_FAST8 1

static inline __mmask16 ql_tail_mask(size_t left) { return left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1); }

static inline __m512i ql_quantize_vec(__m512 q, __m512 lo, __m512 hi, __m512i zp)
{
    q = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
    return _mm512_add_epi32(_mm512_cvt_roundps_epi32(q, RN), zp);
}

static inline __m512 ql_load_f32(const float *x, __mmask16 m) { return _mm512_maskz_loadu_ps(m, x); }
static inline __m512 ql_load_f16(const uint16_t *x, __mmask16 m)
{
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, x));
}
static inline __m512 ql_f16_round(__m512 v) { return _mm512_cvtph_ps(_mm512_cvtps_ph(v, RN)); }

/* int32 lanes in the type's range, narrowed by truncation as they are stored */
static inline void ql_put_u8(uint8_t *y, __m512i v, __mmask16 m) { _mm512_mask_cvtepi32_storeu_epi8(y, m, v); }
static inline void ql_put_i8(int8_t *y, __m512i v, __mmask16 m) { _mm512_mask_cvtepi32_storeu_epi8(y, m, v); }
static inline void ql_put_u16(uint16_t *y, __m512i v, __mmask16 m) { _mm512_mask_cvtepi32_storeu_epi16(y, m, v); }
static inline void ql_put_i16(int16_t *y, __m512i v, __mmask16 m) { _mm512_mask_cvtepi32_storeu_epi16(y, m, v); }

/* the 8-bit fast loop (64 lanes a step): the template says why */
static inline __m512i ql_q8_round(__m512 q, __m512 hi)
{
    return _mm512_cvt_roundps_epi32(_mm512_min_ps(hi, q), RN);
}
/* the divider-free 8-bit step (qlinear_q8_recip.h) */
#define QL_RECIP_FMA 1
static inline __m512 ql_mul_add(__m512 x, __m512 r, __m512 a) { return _mm512_fmadd_ps(x, r, a); }
static inline __m512i ql_bits(__m512 v) { return _mm512_castps_si512(v); }
static inline int ql_window_any(__m512i b0, __m512i b1, __m512i b2, __m512i b3, __m512i mask)
{
    return (_mm512_testn_epi32_mask(b0, mask) | _mm512_testn_epi32_mask(b1, mask) |
            _mm512_testn_epi32_mask(b2, mask) | _mm512_testn_epi32_mask(b3, mask)) != 0;
}
static inline __m512i ql_packs_i32(__m512i a, __m512i b) { return _mm512_packs_epi32(a, b); }
static inline __m512i ql_adds_i16(__m512i a, __m512i b) { return _mm512_adds_epi16(a, b); }
static inline __m512i ql_packs_i16(__m512i a, __m512i b) { return _mm512_packs_epi16(a, b); }
static inline __m512i ql_packus_i16(__m512i a, __m512i b) { return _mm512_packus_epi16(a, b); }
static inline void ql_store_bytes(void *y, __m512i b)
{
    /* lane k of the byte pack holds dwords of vectors a_k, b_k, c_k, d_k */
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    _mm512_storeu_si512(y, _mm512_permutexvar_epi32(order, b));
}

/* 16 elements of x widened to int32 */
static inline __m512i ql_widen_u8(const uint8_t *x, __mmask16 m) { return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, x)); }
static inline __m512i ql_widen_i8(const int8_t *x, __mmask16 m) { return _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, x)); }
static inline __m512i ql_widen_u16(const uint16_t *x, __mmask16 m) { return _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x)); }
static inline __m512i ql_widen_i16(const int16_t *x, __mmask16 m) { return _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, x)); }
static inline __m512i ql_widen_i32(const int32_t *x, __mmask16 m) { return _mm512_maskz_loadu_epi32(m, x); }

static inline void ql_put_f32(float *y, __m512 v, __mmask16 m) { _mm512_mask_storeu_ps(y, m, v); }
static inline void ql_put_f16(uint16_t *y, __m512 v, __mmask16 m)
{
    _mm256_mask_storeu_epi16(y, m, _mm512_cvtps_ph(v, RN));
}

#include "qlinear_x86.h"

SIMDOPS_DEFINE_REGISTER(qlinear, QLINEAR_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, avx512)
#endif
