/* The 128-bit vector operations qlinear_sse2.c and qlinear_sse41.c share, for
 * the loops of qlinear_x86.h: 4 lanes, four vectors a quantize step (16
 * elements), float32 only (no F16C below AVX2: float16 stays with the scalar
 * kernels), tails through qlinear_element.h. Each file adds what its ISA does
 * differently: ql_quantize_vec (the rounding), ql_pack_u16 and the widening
 * loads. Include inside the file's SIMDOPS_COMPILE_<ISA> block. */
#ifndef SIMDOPS_QLINEAR_SSE_H
#define SIMDOPS_QLINEAR_SSE_H

#include <emmintrin.h>
#include <stdint.h>
#include <string.h>

typedef __m128 QL_V;
typedef __m128i QL_VI;
typedef int QL_MASK; /* no masked memory ops: full vectors and a scalar tail */
#define QL_PFX _mm
#define QL_W 4
#define QL_FULL 0
#define QL_QV 4
#define QL_HAS_F16 0
#define QL_MASKED_TAIL 0
#define QL_FAST8 0

static inline __m128 ql_load_f32(const float *x, int m) { (void)m; return _mm_loadu_ps(x); }

/* 4 bytes of x in the low lane */
static inline __m128i ql_load4(const void *x)
{
    int32_t v;
    memcpy(&v, x, 4);
    return _mm_cvtsi32_si128(v);
}
static inline __m128i ql_widen_i32(const int32_t *x, int m) { (void)m; return _mm_loadu_si128((const __m128i *)x); }
static inline void ql_put_f32(float *y, __m128 v, int m) { (void)m; _mm_storeu_ps(y, v); }

/* 16 int32 lanes r[0..3] (each in the type's range) stored as the type */
static inline __m128i ql_pack_u16(__m128i a, __m128i b);
static inline void ql_store_u8(uint8_t *y, const __m128i *r)
{
    _mm_storeu_si128((__m128i *)y, _mm_packus_epi16(_mm_packs_epi32(r[0], r[1]), _mm_packs_epi32(r[2], r[3])));
}
static inline void ql_store_i8(int8_t *y, const __m128i *r)
{
    _mm_storeu_si128((__m128i *)y, _mm_packs_epi16(_mm_packs_epi32(r[0], r[1]), _mm_packs_epi32(r[2], r[3])));
}
static inline void ql_store_u16(uint16_t *y, const __m128i *r)
{
    _mm_storeu_si128((__m128i *)y, ql_pack_u16(r[0], r[1]));
    _mm_storeu_si128((__m128i *)y + 1, ql_pack_u16(r[2], r[3]));
}
static inline void ql_store_i16(int16_t *y, const __m128i *r)
{
    _mm_storeu_si128((__m128i *)y, _mm_packs_epi32(r[0], r[1]));
    _mm_storeu_si128((__m128i *)y + 1, _mm_packs_epi32(r[2], r[3]));
}

#endif
