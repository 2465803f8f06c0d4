/* Quantized binary ops for SSE4.1, 8-bit types: the shared body
 * (qbinary_body.h) over 4-lane int32 vectors (qbinary_x86.h), 16 elements a
 * step: pmulld, pmuldq (SRDHM), pmovsx / pmovzx, pminsb / pmaxsb, and roundps
 * (the float multiply's conversion in an explicit nearest-even mode, so its
 * vectors run in every MXCSR mode). int16 inherits the scalar kernels. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE41
#include <string.h>

#define SIMDOPS_TIER sse41
#define QV_BITS 128
#define QV_PREFIX _mm
#define QV_SI si128
#define QB_MUL_EVEN(x, m) _mm_mul_epi32(x, m)
#define QB_ODD_BLEND(e, o) _mm_blend_epi16(e, o, 0xCC)
#define QB_LOAD_LANES(s) qb_load4(s)
#define QB_UNLANE(p) (p)
#define QV_FP_VECTORS(p) 1
#define QV_OWN_XNN_ROWS
#define QB_WIDEN16_i8(s) _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(s)))
#define QB_WIDEN16_u8(s) _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(s)))
#define QB_UNLANE64(q) (q)
#include <smmintrin.h>
static inline __m128i qb_load4(const void *s)
{
    int32_t w;
    memcpy(&w, s, 4);
    return _mm_cvtsi32_si128(w);
}
#include "qbinary_x86.h"
#include "qbinary_body.h"
SIMDOPS_DEFINE_REGISTER(qbinary, QBINARY_BODY_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qbinary, sse41)
#endif
