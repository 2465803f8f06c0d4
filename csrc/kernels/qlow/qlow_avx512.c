/* The low-bit hot paths on AVX-512 (F, BW, VL, DQ): qlow_body.h over
 * qlow_vec_x86.h, and one path of its own: float8 dequantize with one
 * scale through float16 (below). tools/lowbit_sweep.c checks every float8
 * code, every int4 byte and float32 slices (all 2^32 for the float8
 * conversion) against a reference of its own. */
#include "kernels/qlow/qlow_kernels.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#include <math.h>

#define QV_X86_AVX512
#include "kernels/qlow/qlow_vec_x86.h"

/* One scale: 32 codes a step through float16, whose bits they are after a
 * shift: an e5m2 code is the high byte of the float16 of the same value; an
 * e4m3fn code shifted left by 7 is the float16 of its value times 2^-8
 * (subnormals included), so that path multiplies by scale * 2^8 (exact: it
 * runs only where that is finite) and the product is the same real number,
 * rounded once. NaN codes become float16 0x7e00 | sign (float32 0x7fc00000 |
 * sign) and skip the product (a masked multiply: the scalar returns x's NaN
 * whatever the scale). Returns the elements done. */
static inline size_t dq8f_via_f16(const uint8_t *x, size_t n, float *y, int e4, float scale)
{
    const __m512 s = _mm512_set1_ps(e4 ? scale * 256.0f : scale);
    const __m256i m7f = _mm256_set1_epi8(0x7f);
    size_t i = 0;
    if (e4 && isfinite(scale) && !isfinite(scale * 256.0f))
        return 0;
    for (; i + 32 <= n; i += 32) {
        __m256i b = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i m = _mm256_and_si256(b, m7f);
        __mmask32 nan = e4 ? _mm256_cmpeq_epi8_mask(m, m7f) : _mm256_cmpgt_epi8_mask(m, _mm256_set1_epi8(0x7c));
        __m512i w = _mm512_cvtepi8_epi16(b); /* sign-extended: bit 15 is the sign */
        __m512i h = e4 ? _mm512_and_si512(_mm512_slli_epi16(w, 7), _mm512_set1_epi16((short)0xbf80))
                       : _mm512_slli_epi16(w, 8);
        __m512 lo, hi;
        h = _mm512_mask_mov_epi16(h, nan, _mm512_ternarylogic_epi32(w, _mm512_set1_epi16((short)0x8000),
                                                                    _mm512_set1_epi16(0x7e00), 0xea)); /* (w & 0x8000) | 0x7e00 */
        lo = _mm512_cvtph_ps(_mm512_castsi512_si256(h));
        hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1));
        _mm512_storeu_ps(y + i, _mm512_mask_mul_ps(lo, (__mmask16)~nan, lo, s));
        _mm512_storeu_ps(y + i + 16, _mm512_mask_mul_ps(hi, (__mmask16)(~nan >> 16), hi, s));
    }
    return i;
}
#define QV_DQ8F_ONE_SCALE dq8f_via_f16

#define QLOW_BODY_TIER avx512
#include "kernels/qlow/qlow_body.h"
#else
QLOW_TIER_NOT_COMPILED(avx512)
#endif
