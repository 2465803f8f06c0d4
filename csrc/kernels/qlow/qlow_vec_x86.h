/* qlow_body.h's vocabulary on x86: SSE2 (4 lanes, 4 vectors a step; SSE4.1
 * inherits its kernels), AVX2 + F16C (8 lanes, 2 vectors) and AVX-512 F, BW,
 * VL, DQ (16 lanes, 2 vectors, compares as mask registers). The tier file
 * defines QV_X86_AVX2 or QV_X86_AVX512 (neither: SSE2) and includes this.
 * The words one intrinsic spells in every width are written once below by
 * pasting the width's prefix; rounding is explicit (SSE2: truncation plus an
 * exact correction; AVX2: roundps nearest even; AVX-512: embedded nearest
 * even; vcvtps2ph with its immediate), so MXCSR's rounding mode cannot change
 * a conversion. AVX-512's QV_LOOKUP16: an int4 element is a permute of 16
 * values computed once (one scale's 16 results, or the 16 codes' values). */
#ifndef SIMDOPS_QLOW_VEC_X86_H
#define SIMDOPS_QLOW_VEC_X86_H
#include <immintrin.h>

#include "kernels/qlow/qlow_vec_fn.h"

#define QV_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#if defined(QV_X86_AVX512)
#define QV_W 16
#define QV_U 2
#define QV_P _mm512
#define QV_SI si512
typedef __m512i qv_i; typedef __m512 qv_f; typedef __mmask16 qv_m;
#elif defined(QV_X86_AVX2)
#define QV_W 8
#define QV_U 2
#define QV_P _mm256
#define QV_SI si256
typedef __m256i qv_i; typedef __m256 qv_f; typedef __m256i qv_m;
#else
#define QV_W 4
#define QV_U 4
#define QV_P _mm
#define QV_SI si128
typedef __m128i qv_i; typedef __m128 qv_f; typedef __m128i qv_m;
#endif
#define QV_CAT3_(a, b, c) a##b##c
#define QV_CAT3(a, b, c) QV_CAT3_(a, b, c)
#define QV_CAT4_(a, b, c, d) a##b##c##d
#define QV_CAT4(a, b, c, d) QV_CAT4_(a, b, c, d)
#define QV_OP(op) QV_CAT3(QV_P, _, op)          /* QV_OP(add_epi32): _mm256_add_epi32 */
#define QV_SIOP(op) QV_CAT3(QV_P, _##op##_, QV_SI) /* QV_SIOP(and): _mm256_and_si256 */

static inline qv_i qv_set1_i(int32_t v) { return QV_OP(set1_epi32)(v); }
static inline qv_f qv_set1_f(float v) { return QV_OP(set1_ps)(v); }
QV_FN2(qv_i, qv_and, QV_SIOP(and)) QV_FN2(qv_i, qv_or, QV_SIOP(or)) QV_FN2(qv_i, qv_xor, QV_SIOP(xor))
QV_FN2(qv_i, qv_add_i, QV_OP(add_epi32)) QV_FN2(qv_i, qv_sub_i, QV_OP(sub_epi32))
QV_FN2(qv_f, qv_sub_f, QV_OP(sub_ps)) QV_FN2(qv_f, qv_mul_f, QV_OP(mul_ps)) QV_FN2(qv_f, qv_div_f, QV_OP(div_ps))
/* qv_max_f(q, bound): maxps returns its second operand for a NaN q */
QV_FN2(qv_f, qv_max_f, QV_OP(max_ps)) QV_FN2(qv_f, qv_min_f, QV_OP(min_ps))
QV_FN1(qv_f, qv_cvt_f, qv_i, QV_OP(cvtepi32_ps)) QV_FN1(qv_i, qv_cvtt_i, qv_f, QV_OP(cvttps_epi32))
QV_FN1(qv_f, qv_cast_f, qv_i, QV_CAT4(QV_P, _cast, QV_SI, _ps)) QV_FN1(qv_i, qv_cast_i, qv_f, QV_CAT3(QV_P, _castps_, QV_SI))
static inline qv_i qv_shl(qv_i a, int c) { return QV_OP(sll_epi32)(a, _mm_cvtsi32_si128(c)); }
static inline qv_i qv_srl(qv_i a, int c) { return QV_OP(srl_epi32)(a, _mm_cvtsi32_si128(c)); }
static inline qv_f qv_loadu_f(const float *p) { return QV_OP(loadu_ps)(p); }
static inline void qv_storeu_f(float *p, qv_f v) { QV_OP(storeu_ps)(p, v); }

#if defined(QV_X86_AVX512)
static inline qv_m qv_eq_i(qv_i a, qv_i b) { return _mm512_cmpeq_epi32_mask(a, b); }
static inline qv_m qv_gt_i(qv_i a, qv_i b) { return _mm512_cmpgt_epi32_mask(a, b); }
static inline qv_i qv_sel(qv_m m, qv_i a, qv_i b) { return _mm512_mask_blend_epi32(m, b, a); }
QV_FN2(qv_i, qv_min_i, _mm512_min_epi32) QV_FN2(qv_i, qv_max_i, _mm512_max_epi32)
static inline qv_i qv_round_i(qv_f a) { return _mm512_cvt_roundps_epi32(a, QV_RN); }
static inline void qv_u8(const uint8_t *b, qv_i o[2])
{
    o[0] = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)b));
    o[1] = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(b + 16)));
}
static inline void qv_nib(const uint8_t *b, qv_i o[2]) /* 16 bytes: 32 nibbles */
{
    const __m128i m = _mm_set1_epi8(0x0f);
    __m128i v = _mm_loadu_si128((const __m128i *)b);
    __m128i lo = _mm_and_si128(v, m), hi = _mm_and_si128(_mm_srli_epi16(v, 4), m);
    o[0] = _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi));
    o[1] = _mm512_cvtepu8_epi32(_mm_unpackhi_epi8(lo, hi));
}
static inline void qv_store_u8(uint8_t *y, const qv_i c[2])
{
    _mm_storeu_si128((__m128i *)y, _mm512_cvtepi32_epi8(c[0]));
    _mm_storeu_si128((__m128i *)(y + 16), _mm512_cvtepi32_epi8(c[1]));
}
static inline void qv_store_nib(uint8_t *y, const qv_i c[2]) /* 32 codes, two a byte, low nibble first */
{
    /* bytes in element order; a 16-bit lane b0 | b1 << 8 becomes b0 & 15 | (b1 & 15) << 4 */
    __m256i b = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(c[0])), _mm512_cvtepi32_epi8(c[1]), 1);
    __m256i w = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi16(0x0f)),
                                _mm256_and_si256(_mm256_srli_epi16(b, 4), _mm256_set1_epi16(0xf0)));
    _mm_storeu_si128((__m128i *)y, _mm256_cvtepi16_epi8(w));
}
static inline void qv_store_u16(uint16_t *y, const qv_i h[2])
{
    _mm256_storeu_si256((__m256i *)y, _mm512_cvtepi32_epi16(h[0]));
    _mm256_storeu_si256((__m256i *)(y + 16), _mm512_cvtepi32_epi16(h[1]));
}
#define QV_F16_STORE
static inline void qv_store_f16(uint16_t *y, const qv_f v[2])
{
    _mm256_storeu_si256((__m256i *)y, _mm512_cvtps_ph(v[0], QV_RN));
    _mm256_storeu_si256((__m256i *)(y + 16), _mm512_cvtps_ph(v[1], QV_RN));
}
#define QV_LOOKUP16
static inline qv_i qv_iota_i(void) { return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
/* 16 bytes: 32 nibbles (low first) looked up in a 16-entry table. vpermps reads an
 * index's low 4 bits only, so a lane needs its nibble there and nothing masked: byte k
 * and byte k shifted right by 4, interleaved, zero-extended (8 instructions for 32
 * outputs against 13 for the masked nibbles converted and offset) */
static inline void qv_lookup_nib(const uint8_t *b, qv_f table, qv_f o[2])
{
    __m128i v = _mm_loadu_si128((const __m128i *)b), h = _mm_srli_epi16(v, 4);
    o[0] = _mm512_permutexvar_ps(_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(v, h)), table);
    o[1] = _mm512_permutexvar_ps(_mm512_cvtepu8_epi32(_mm_unpackhi_epi8(v, h)), table);
}
#elif defined(QV_X86_AVX2)
QV_FN2(qv_i, qv_eq_i, _mm256_cmpeq_epi32) QV_FN2(qv_i, qv_gt_i, _mm256_cmpgt_epi32)
static inline qv_i qv_sel(qv_m m, qv_i a, qv_i b) { return _mm256_blendv_epi8(b, a, m); }
QV_FN2(qv_i, qv_min_i, _mm256_min_epi32) QV_FN2(qv_i, qv_max_i, _mm256_max_epi32)
static inline qv_i qv_round_i(qv_f a) { return _mm256_cvttps_epi32(_mm256_round_ps(a, QV_RN)); }
static inline void qv_u8(const uint8_t *b, qv_i o[2])
{
    __m128i v = _mm_loadu_si128((const __m128i *)b);
    o[0] = _mm256_cvtepu8_epi32(v);
    o[1] = _mm256_cvtepu8_epi32(_mm_srli_si128(v, 8));
}
static inline void qv_nib(const uint8_t *b, qv_i o[2])
{
    const __m128i m = _mm_set1_epi8(0x0f);
    __m128i v = _mm_loadl_epi64((const __m128i *)b); /* 8 bytes: 16 nibbles */
    __m128i il = _mm_unpacklo_epi8(_mm_and_si128(v, m), _mm_and_si128(_mm_srli_epi16(v, 4), m));
    o[0] = _mm256_cvtepu8_epi32(il);
    o[1] = _mm256_cvtepu8_epi32(_mm_srli_si128(il, 8));
}
/* 16 lanes in [-128, 255] as 16 bytes (their low bits), in order */
static inline __m128i qv_bytes_of(const qv_i c[2])
{
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(c[0], c[1]), 0xd8);
    __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
    return _mm_packus_epi16(_mm_and_si128(lo, _mm_set1_epi16(0xff)), _mm_and_si128(hi, _mm_set1_epi16(0xff)));
}
static inline void qv_store_u8(uint8_t *y, const qv_i c[2]) { _mm_storeu_si128((__m128i *)y, qv_bytes_of(c)); }
static inline void qv_store_nib(uint8_t *y, const qv_i c[2]) /* 16 codes, two a byte, low nibble first */
{
    __m128i b = qv_bytes_of(c);
    __m128i w = _mm_or_si128(_mm_and_si128(b, _mm_set1_epi16(0x0f)), _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi16(0xf0)));
    _mm_storel_epi64((__m128i *)y, _mm_packus_epi16(w, w));
}
static inline void qv_store_u16(uint16_t *y, const qv_i h[2]) /* packus per 128-bit half; the permute orders them */
{
    _mm256_storeu_si256((__m256i *)y, _mm256_permute4x64_epi64(_mm256_packus_epi32(h[0], h[1]), 0xd8));
}
#define QV_F16_STORE
static inline void qv_store_f16(uint16_t *y, const qv_f v[2])
{
    _mm_storeu_si128((__m128i *)y, _mm256_cvtps_ph(v[0], QV_RN));
    _mm_storeu_si128((__m128i *)(y + 8), _mm256_cvtps_ph(v[1], QV_RN));
}
#else
QV_FN2(qv_i, qv_eq_i, _mm_cmpeq_epi32) QV_FN2(qv_i, qv_gt_i, _mm_cmpgt_epi32)
static inline qv_i qv_sel(qv_m m, qv_i a, qv_i b) { return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b)); }
static inline qv_i qv_min_i(qv_i a, qv_i b) { return qv_sel(_mm_cmpgt_epi32(a, b), b, a); }
static inline qv_i qv_max_i(qv_i a, qv_i b) { return qv_sel(_mm_cmpgt_epi32(a, b), a, b); }
/* nearest even, |a| < 2^31: the fraction a - trunc(a) is exact */
static inline qv_i qv_round_i(qv_f a)
{
    const __m128 h = _mm_set1_ps(0.5f), mh = _mm_set1_ps(-0.5f);
    const __m128i one = _mm_set1_epi32(1);
    __m128i t = _mm_cvttps_epi32(a);
    __m128 d = _mm_sub_ps(a, _mm_cvtepi32_ps(t));
    __m128i odd = _mm_cmpeq_epi32(_mm_and_si128(t, one), one);
    __m128i up = _mm_or_si128(_mm_castps_si128(_mm_cmpgt_ps(d, h)), _mm_and_si128(_mm_castps_si128(_mm_cmpeq_ps(d, h)), odd));
    __m128i dn = _mm_or_si128(_mm_castps_si128(_mm_cmplt_ps(d, mh)), _mm_and_si128(_mm_castps_si128(_mm_cmpeq_ps(d, mh)), odd));
    return _mm_add_epi32(_mm_sub_epi32(t, up), dn);
}
/* 16 bytes (as 16 lanes in order) zero-extended to four vectors */
static inline void qv_bytes16(__m128i b, qv_i o[4])
{
    const __m128i z = _mm_setzero_si128();
    __m128i lo = _mm_unpacklo_epi8(b, z), hi = _mm_unpackhi_epi8(b, z);
    o[0] = _mm_unpacklo_epi16(lo, z);
    o[1] = _mm_unpackhi_epi16(lo, z);
    o[2] = _mm_unpacklo_epi16(hi, z);
    o[3] = _mm_unpackhi_epi16(hi, z);
}
static inline void qv_u8(const uint8_t *b, qv_i o[4]) { qv_bytes16(_mm_loadu_si128((const __m128i *)b), o); }
static inline void qv_nib(const uint8_t *b, qv_i o[4])
{
    const __m128i m = _mm_set1_epi8(0x0f);
    __m128i v = _mm_loadl_epi64((const __m128i *)b); /* 8 bytes: 16 nibbles */
    qv_bytes16(_mm_unpacklo_epi8(_mm_and_si128(v, m), _mm_and_si128(_mm_srli_epi16(v, 4), m)), o);
}
/* 16 lanes in [-128, 127] (nibble codes) or [0, 255] (float8 codes) as 16 bytes */
static inline __m128i qv_bytes_of(const qv_i c[4], int is_unsigned)
{
    __m128i a = _mm_packs_epi32(c[0], c[1]), b = _mm_packs_epi32(c[2], c[3]);
    return is_unsigned ? _mm_packus_epi16(a, b) : _mm_packs_epi16(a, b);
}
static inline void qv_store_u8(uint8_t *y, const qv_i c[4]) { _mm_storeu_si128((__m128i *)y, qv_bytes_of(c, 1)); }
static inline void qv_store_nib(uint8_t *y, const qv_i c[4]) /* 16 codes, two a byte, low nibble first */
{
    __m128i b = qv_bytes_of(c, 0);
    __m128i w = _mm_or_si128(_mm_and_si128(b, _mm_set1_epi16(0x0f)), _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi16(0xf0)));
    _mm_storel_epi64((__m128i *)y, _mm_packus_epi16(w, w));
}
static inline void qv_store_u16(uint16_t *y, const qv_i h[4]) /* 16 lanes in [0, 0xffff] */
{
    __m128i s[4];
    for (int k = 0; k < 4; k++) /* sign-extended low halves: packs keeps them */
        s[k] = _mm_srai_epi32(_mm_slli_epi32(h[k], 16), 16);
    _mm_storeu_si128((__m128i *)y, _mm_packs_epi32(s[0], s[1]));
    _mm_storeu_si128((__m128i *)(y + 8), _mm_packs_epi32(s[2], s[3]));
}
#endif
#endif
