/* QuantizeLinear / DequantizeLinear for AVX2 + F16C: the loops of qlinear_x86.h
 * over 8-lane vectors, two a step (16 elements), tails through
 * qlinear_element.h. maxps returns its second operand for a NaN, which is how
 * NaN becomes qlo. Rounding is roundps with an explicit nearest-even mode: no
 * dependence on MXCSR. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#include <immintrin.h>

#define SIMDOPS_TIER avx2
#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

typedef __m256 QL_V;
typedef __m256i QL_VI;
typedef int QL_MASK; /* no masked memory ops: full vectors and a scalar tail */
#define QL_PFX _mm256
#define QL_W 8
#define QL_FULL 0
#define QL_QV 2
#define QL_HAS_F16 1
#define QL_MASKED_TAIL 0
#define QL_FAST8 1

static inline __m256i ql_quantize_vec(__m256 q, __m256 lo, __m256 hi, __m256i zp)
{
    q = _mm256_round_ps(_mm256_min_ps(_mm256_max_ps(q, lo), hi), RN);
    return _mm256_add_epi32(_mm256_cvttps_epi32(q), zp);
}

static inline __m256 ql_load_f32(const float *x, int m) { (void)m; return _mm256_loadu_ps(x); }
static inline __m256 ql_load_f16(const uint16_t *x, int m)
{
    (void)m;
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x));
}
static inline __m256 ql_f16_round(__m256 v) { return _mm256_cvtph_ps(_mm256_cvtps_ph(v, RN)); }

/* 16 int32 (r[0] then r[1], each in the type's range) stored as the type: the
 * 256-bit packs work per 128-bit half, the permute puts the halves in order */
static inline __m256i ql_packs16(const __m256i *r)
{
    return _mm256_permute4x64_epi64(_mm256_packs_epi32(r[0], r[1]), 0xd8);
}
static inline void ql_store_u8(uint8_t *y, const __m256i *r)
{
    __m256i w = ql_packs16(r);
    _mm_storeu_si128((__m128i *)y,
                     _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}
static inline void ql_store_i8(int8_t *y, const __m256i *r)
{
    __m256i w = ql_packs16(r);
    _mm_storeu_si128((__m128i *)y,
                     _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}
static inline void ql_store_u16(uint16_t *y, const __m256i *r)
{
    _mm256_storeu_si256((__m256i *)y, _mm256_permute4x64_epi64(_mm256_packus_epi32(r[0], r[1]), 0xd8));
}
static inline void ql_store_i16(int16_t *y, const __m256i *r) { _mm256_storeu_si256((__m256i *)y, ql_packs16(r)); }

/* the 8-bit fast loop: min, round and convert (the template says why the
 * lower clamp can go), then the packs, whose per-half lane order one dword
 * permute undoes */
static inline __m256i ql_q8_round(__m256 q, __m256 hi)
{
    return _mm256_cvttps_epi32(_mm256_round_ps(_mm256_min_ps(hi, q), RN));
}
/* the divider-free 8-bit step (qlinear_q8_recip.h); the tier does not
 * require FMA, so the product is rounded before the add (the proof covers it) */
#define QL_RECIP_FMA 0
static inline __m256 ql_mul_add(__m256 x, __m256 r, __m256 a) { return _mm256_add_ps(_mm256_mul_ps(x, r), a); }
static inline __m256i ql_bits(__m256 v) { return _mm256_castps_si256(v); }
static inline int ql_window_any(__m256i b0, __m256i b1, __m256i b2, __m256i b3, __m256i mask)
{
    /* the smallest masked fraction of the four, lane by lane, is zero somewhere */
    __m256i f = _mm256_min_epu32(_mm256_min_epu32(_mm256_and_si256(b0, mask), _mm256_and_si256(b1, mask)),
                                 _mm256_min_epu32(_mm256_and_si256(b2, mask), _mm256_and_si256(b3, mask)));
    return !_mm256_testz_si256(_mm256_cmpeq_epi32(f, _mm256_setzero_si256()), _mm256_set1_epi32(-1));
}
static inline __m256i ql_packs_i32(__m256i a, __m256i b) { return _mm256_packs_epi32(a, b); }
static inline __m256i ql_adds_i16(__m256i a, __m256i b) { return _mm256_adds_epi16(a, b); }
static inline __m256i ql_packs_i16(__m256i a, __m256i b) { return _mm256_packs_epi16(a, b); }
static inline __m256i ql_packus_i16(__m256i a, __m256i b) { return _mm256_packus_epi16(a, b); }
static inline void ql_store_bytes(void *y, __m256i b)
{
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    _mm256_storeu_si256((__m256i *)y, _mm256_permutevar8x32_epi32(b, order));
}

/* 8 elements of x widened to int32 */
static inline __m256i ql_widen_u8(const uint8_t *x, int m) { (void)m; return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)x)); }
static inline __m256i ql_widen_i8(const int8_t *x, int m) { (void)m; return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)x)); }
static inline __m256i ql_widen_u16(const uint16_t *x, int m) { (void)m; return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)x)); }
static inline __m256i ql_widen_i16(const int16_t *x, int m) { (void)m; return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)x)); }
static inline __m256i ql_widen_i32(const int32_t *x, int m) { (void)m; return _mm256_loadu_si256((const __m256i *)x); }

static inline void ql_put_f32(float *y, __m256 v, int m) { (void)m; _mm256_storeu_ps(y, v); }
static inline void ql_put_f16(uint16_t *y, __m256 v, int m)
{
    (void)m;
    _mm_storeu_si128((__m128i *)y, _mm256_cvtps_ph(v, RN));
}

#include "qlinear_x86.h"

SIMDOPS_DEFINE_REGISTER(qlinear, QLINEAR_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, avx2)
#endif
