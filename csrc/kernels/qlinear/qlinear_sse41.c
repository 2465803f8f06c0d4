/* QuantizeLinear / DequantizeLinear for SSE4.1: the loops of qlinear_x86.h
 * over qlinear_sse.h's 128-bit operations, with roundps (explicit
 * nearest-even: no dependence on MXCSR), packusdw and pmovzx/pmovsx. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE41
#include <smmintrin.h>

#define SIMDOPS_TIER sse41
#include "qlinear_sse.h"

static inline __m128i ql_quantize_vec(__m128 q, __m128 lo, __m128 hi, __m128i zp)
{
    q = _mm_round_ps(_mm_min_ps(_mm_max_ps(q, lo), hi), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm_add_epi32(_mm_cvttps_epi32(q), zp);
}

static inline __m128i ql_pack_u16(__m128i a, __m128i b) { return _mm_packus_epi32(a, b); }

/* 4 elements of x widened to int32 */
static inline __m128i ql_widen_u8(const uint8_t *x, int m) { (void)m; return _mm_cvtepu8_epi32(ql_load4(x)); }
static inline __m128i ql_widen_i8(const int8_t *x, int m) { (void)m; return _mm_cvtepi8_epi32(ql_load4(x)); }
static inline __m128i ql_widen_u16(const uint16_t *x, int m) { (void)m; return _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)x)); }
static inline __m128i ql_widen_i16(const int16_t *x, int m) { (void)m; return _mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)x)); }

#include "qlinear_x86.h"

SIMDOPS_DEFINE_REGISTER(qlinear, QLINEAR_KERNELS_F32)
#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, sse41)
#endif
