/* The qv_ helpers of qbinary_body.h for the x86 tiers, written once over the
 * intrinsics' names: the tier defines QV_BITS (128, 256, 512), QV_PREFIX
 * (_mm, _mm256, _mm512) and QV_SI (si128, si256, si512) and, where its ISA
 * differs from the common form, its own piece (each named below), then
 * includes this and qbinary_body.h.
 *   QB_MUL_EVEN(x, m)    the signed 64-bit products of the even lanes (pmuldq)
 *   QB_ODD_BLEND(e, o)   the even dwords of e, the odd ones of o
 *   QB_CVT_RNE(v)        float -> int32 half to even, INT32_MIN for NaN and
 *                        beyond int32 (default: cvttps of roundps' nearest)
 *   QB_LOAD_LANES(s)     QV_BITS / 32 bytes into the low part of an xmm
 *   QB_UNLANE(p)         the packs' 128-bit lanes put back in element order
 *   QB_SET1_B(v)         the clamp bounds' vector (default: bytes)
 *   QV_OWN_MULLO, QV_OWN_WIDEN, QV_OWN_NARROW, QV_OWN_ADD_IF_GT: the tier
 *                        writes that qv_ helper itself
 *   QV_OWN_XNN_ROWS      XNNPACK's add by pmaddwd (below), with QB_WIDEN16_i8/u8,
 *                        QB_UNLANE64 and optionally QB_XNN_NARROW
 * The shift counts are an xmm (psrad / pslld by a register). ONNX Runtime's
 * add on the tiers without FMA is computed in double (qbinary_ort_double.h):
 * here for 128 and 256 bits; AVX-512 writes its fused form. */
#ifndef SIMDOPS_QBINARY_X86_H
#define SIMDOPS_QBINARY_X86_H

#include <immintrin.h>

#include "qbinary_ort_double.h"

#define QV_CAT_(a, b) a##b
#define QV_CAT(a, b) QV_CAT_(a, b)
#define QV_MM(op) QV_CAT(QV_PREFIX, _##op)
#define QV_MMSI(op) QV_CAT(QV_MM(op), QV_SI)
#define QB_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

typedef QV_CAT(QV_CAT(__m, QV_BITS), i) qv_i32;
typedef qv_i32 qv_b;
typedef QV_CAT(__m, QV_BITS) qv_f32;
typedef __m128i qv_cnt;
#define QV_LANES (QV_BITS / 32)

static inline qv_i32 qv_set1(int32_t v) { return QV_MM(set1_epi32)(v); }
static inline qv_f32 qv_set1_f(float v) { return QV_MM(set1_ps)(v); }
static inline qv_cnt qv_cnt_left(int e) { return _mm_cvtsi32_si128(e); }
static inline qv_cnt qv_cnt_right(int e) { return _mm_cvtsi32_si128(e); }
static inline qv_i32 qv_add(qv_i32 a, qv_i32 b) { return QV_MM(add_epi32)(a, b); }
static inline qv_i32 qv_sub(qv_i32 a, qv_i32 b) { return QV_MM(sub_epi32)(a, b); }
static inline qv_i32 qv_and(qv_i32 a, qv_i32 b) { return QV_MMSI(and_)(a, b); }
static inline qv_i32 qv_sll(qv_i32 x, qv_cnt e) { return QV_MM(sll_epi32)(x, e); }
static inline qv_i32 qv_sra(qv_i32 x, qv_cnt e) { return QV_MM(sra_epi32)(x, e); }
static inline qv_i32 qv_srl31(qv_i32 x) { return QV_MM(srli_epi32)(x, 31); }
static inline qv_f32 qv_cvt_f(qv_i32 x) { return QV_MM(cvtepi32_ps)(x); }
static inline qv_f32 qv_mul_f(qv_f32 a, qv_f32 b) { return QV_MM(mul_ps)(a, b); }
static inline qv_f32 qv_add_f(qv_f32 a, qv_f32 b) { return QV_MM(add_ps)(a, b); }
#ifndef QB_CVT_RNE /* cvttps of the rounded value: beyond int32 (and NaN) it is INT32_MIN */
#define QB_CVT_RNE(v) QV_MM(cvttps_epi32)(QV_MM(round_ps)(v, QB_RN))
#endif
static inline qv_i32 qv_cvt_rne(qv_f32 v) { return QB_CVT_RNE(v); }
#ifndef QV_OWN_MULLO
static inline qv_i32 qv_mullo(qv_i32 a, qv_i32 b) { return QV_MM(mullo_epi32)(a, b); }
#endif
#ifndef QV_OWN_ADD_IF_GT
static inline qv_i32 qv_add_if_gt(qv_i32 s, qv_i32 r, qv_i32 t) { return qv_sub(s, QV_MM(cmpgt_epi32)(r, t)); }
#endif

/* floor((x * m + 2^30) / 2^31) (m uniform): bits 31..62 of the even lanes'
 * products (the low dword of even >> 31) and of the odd lanes' (the high
 * dword of odd << 1) */
static inline qv_i32 qv_srdhm(qv_i32 x, qv_i32 m)
{
    const qv_i32 half = QV_MM(srli_epi64)(qv_set1((int32_t)1 << 30), 32); /* 2^30 a qword */
    qv_i32 even = QV_MM(add_epi64)(QB_MUL_EVEN(x, m), half);
    qv_i32 odd = QV_MM(add_epi64)(QB_MUL_EVEN(QV_MM(srli_epi64)(x, 32), m), half);
    return QB_ODD_BLEND(QV_MM(srli_epi64)(even, 31), QV_MM(slli_epi64)(odd, 1));
}

#ifndef QV_OWN_WIDEN
#define QB_WIDEN4(tag, T, CVT)                                                                     \
    static inline void qv_widen4_##tag(const T *s, qv_i32 v[4])                                    \
    { /* written out: a loop here stays a loop at -O2, v[] on the stack */                         \
        v[0] = QV_MM(CVT)(QB_LOAD_LANES(s));                                                       \
        v[1] = QV_MM(CVT)(QB_LOAD_LANES(s + QV_LANES));                                            \
        v[2] = QV_MM(CVT)(QB_LOAD_LANES(s + 2 * QV_LANES));                                        \
        v[3] = QV_MM(CVT)(QB_LOAD_LANES(s + 3 * QV_LANES));                                        \
    }
QB_WIDEN4(i8, int8_t, cvtepi8_epi32)
QB_WIDEN4(u8, uint8_t, cvtepu8_epi32)
#endif

#ifndef QB_SET1_B /* the clamp bounds as bytes (SSE2: as int16, clamping before the last pack) */
#define QB_SET1_B(v) QV_MM(set1_epi8)((char)(v))
#endif
static inline qv_b qv_set1_b(int v) { return QB_SET1_B(v); }

#ifndef QV_OWN_NARROW
/* four int32 vectors (elements in order) saturated to bytes (packssdw, then
 * packsswb / packuswb: the runtimes' narrowing), clamped to [lo, hi], stored */
#define QB_NARROW4(tag, T, PACK, EP)                                                               \
    static inline void qv_narrow4_##tag(T *d, qv_i32 v0, qv_i32 v1, qv_i32 v2, qv_i32 v3,         \
                                        qv_b lo, qv_b hi)                                          \
    {                                                                                              \
        qv_i32 q = QB_UNLANE(QV_MM(PACK)(QV_MM(packs_epi32)(v0, v1), QV_MM(packs_epi32)(v2, v3))); \
        q = QV_MM(min_##EP)(QV_MM(max_##EP)(q, lo), hi);                                           \
        QV_MMSI(storeu_)((qv_i32 *)(void *)d, q);                                                  \
    }
QB_NARROW4(i8, int8_t, packs_epi16, epi8)
QB_NARROW4(u8, uint8_t, packus_epi16, epu8)
#endif

#if QV_BITS == 512
/* the same without the clamp, for bounds that are the type's own: packssdw then
 * packsswb (packuswb) saturate to exactly [-128, 127] ([0, 255]), so the min / max
 * would change nothing (qbinary_body.h's rows take this where p->lo / p->hi allow) */
#define QV_NARROW_UNCLAMPED
#define QB_NARROW4_NC(tag, T, PACK)                                                                \
    static inline void qv_narrow4_nc_##tag(T *d, qv_i32 v0, qv_i32 v1, qv_i32 v2, qv_i32 v3)       \
    {                                                                                              \
        QV_MMSI(storeu_)((qv_i32 *)(void *)d,                                                      \
                         QB_UNLANE(QV_MM(PACK)(QV_MM(packs_epi32)(v0, v1),                         \
                                               QV_MM(packs_epi32)(v2, v3))));                      \
    }
QB_NARROW4_NC(i8, int8_t, packs_epi16)
QB_NARROW4_NC(u8, uint8_t, packus_epi16)
#endif

#ifdef QV_OWN_XNN_ROWS
/* XNNPACK's add by pmaddwd on int16 lanes: with m = mh * 2^16 + ml (ml the
 * signed low half; mh only matters mod 2^16), a * ma + b * mb = (a ml_a + b
 * ml_b) + ((a mh_a + b mh_b) << 16) mod 2^32, each bracket one pmaddwd of the
 * interleaved (a, b) pairs (|a|, |b| <= 255, |ml|, |mh| <= 2^15: exact). The
 * unpacks and the packs both work within 128-bit lanes, so after packssdw
 * the int16 results are in element order again; the tier's QB_WIDEN16_<tag>
 * widens QV_BITS / 16 elements, QB_UNLANE64 orders packsswb's 64-bit halves. */
enum { QB_XSTEP = QV_BITS / 8 };
typedef struct qb_xnn_consts {
    qv_i32 mlo, mhi, bias, zp;
    qv_cnt shift;
    qv_b lo, hi;
} qb_xnn_consts;
static inline int32_t qb_pair16(int32_t a, int32_t b) { return (int32_t)(((uint32_t)(uint16_t)b << 16) | (uint16_t)a); }
static inline void qb_xnn_init(qb_xnn_consts *c, const simdops_qbinary_params *p)
{
    const int32_t la = (int16_t)p->a_mult, lb = (int16_t)p->b_mult;
    c->mlo = qv_set1(qb_pair16(la, lb));
    c->mhi = qv_set1(qb_pair16((int32_t)(((uint32_t)p->a_mult - (uint32_t)la) >> 16),
                               (int32_t)(((uint32_t)p->b_mult - (uint32_t)lb) >> 16)));
    c->bias = qv_set1(p->bias);
    c->zp = qv_set1(p->y_offset);
    c->shift = qv_cnt_right(p->shift);
    c->lo = qv_set1_b(p->lo);
    c->hi = qv_set1_b(p->hi);
}
/* pairs (a_i, b_i) to bias + a_i * ma + b_i * mb, >> shift, + zero point */
static inline qv_i32 qb_xnn_pairs(qv_i32 ab, const qb_xnn_consts *c)
{
    qv_i32 acc = qv_add(QV_MM(madd_epi16)(ab, c->mlo), QV_MM(slli_epi32)(QV_MM(madd_epi16)(ab, c->mhi), 16));
    return qv_add(qv_sra(qv_add(acc, c->bias), c->shift), c->zp);
}
/* QV_BITS / 16 elements of int16 a and b to their int16 results, in order */
static inline qv_i32 qb_xnn_half(qv_i32 a, qv_i32 b, const qb_xnn_consts *c)
{
    return QV_MM(packs_epi32)(qb_xnn_pairs(QV_MM(unpacklo_epi16)(a, b), c),
                              qb_xnn_pairs(QV_MM(unpackhi_epi16)(a, b), c));
}
#define QB_XNN_ROWS(tag, T, PACK, EP)                                                              \
    static inline size_t qv_xnn_rows_##tag(const T *a, const T *b, T *y, size_t n, int form,      \
                                           const simdops_qbinary_params *p)                       \
    {                                                                                              \
        enum { H = QV_BITS / 16 };                                                                 \
        qb_xnn_consts c;                                                                           \
        qv_i32 a0, a1, b0, b1;                                                                     \
        size_t i = 0;                                                                              \
        if (n < QB_XSTEP)                                                                          \
            return 0;                                                                              \
        qb_xnn_init(&c, p);                                                                        \
        a0 = a1 = QV_MM(set1_epi16)((short)a[0]);                                                  \
        b0 = b1 = QV_MM(set1_epi16)((short)b[0]);                                                  \
        for (; i + QB_XSTEP <= n; i += QB_XSTEP) {                                                 \
            qv_i32 q;                                                                              \
            if (form != SIMDOPS_QB_SV) {                                                           \
                a0 = QB_WIDEN16_##tag(a + i);                                                      \
                a1 = QB_WIDEN16_##tag(a + i + H);                                                  \
            }                                                                                      \
            if (form != SIMDOPS_QB_VS) {                                                           \
                b0 = QB_WIDEN16_##tag(b + i);                                                      \
                b1 = QB_WIDEN16_##tag(b + i + H);                                                  \
            }                                                                                      \
            q = QB_XNN_NARROW(PACK, EP, qb_xnn_half(a0, b0, &c), qb_xnn_half(a1, b1, &c), c.lo, c.hi); \
            QV_MMSI(storeu_)((qv_i32 *)(void *)(y + i), q);                                        \
        }                                                                                          \
        return i;                                                                                  \
    }
#ifndef QB_XNN_NARROW /* packsswb / packuswb, the halves in order, the bounds */
#define QB_XNN_NARROW(PACK, EP, p0, p1, lo, hi)                                                    \
    QV_MM(min_##EP)(QV_MM(max_##EP)(QB_UNLANE64(QV_MM(PACK)(p0, p1)), lo), hi)
#endif
QB_XNN_ROWS(i8, int8_t, packs_epi16, epi8)
QB_XNN_ROWS(u8, uint8_t, packus_epi16, epu8)
#endif

#if QV_BITS == 128
typedef __m128d qv_ort;
static inline qv_ort qv_ort_set1(float v) { return _mm_set1_pd(v); }
/* fmaf(x, r, z) in double for 4 lanes (z: per pair of lanes) */
static inline __m128 qb_fma_d4(__m128i x, __m128d r, __m128d zlo, __m128d zhi)
{
    __m128d lo = _mm_add_pd(_mm_mul_pd(_mm_cvtepi32_pd(x), r), zlo);
    __m128d hi = _mm_add_pd(_mm_mul_pd(_mm_cvtepi32_pd(_mm_unpackhi_epi64(x, x)), r), zhi);
    return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi));
}
/* converted by cvtps2dq: qb_ort_double_exact has checked MXCSR rounds to nearest */
static inline qv_i32 qv_ort_add(qv_i32 a, qv_i32 b, qv_ort ra, qv_ort rb, qv_ort fixed)
{
    __m128 t = qb_fma_d4(b, rb, fixed, fixed);
    return _mm_cvtps_epi32(qb_fma_d4(a, ra, _mm_cvtps_pd(t), _mm_cvtps_pd(_mm_movehl_ps(t, t))));
}
#define QV_ORT_VECTORS(p) qb_ort_double_exact(p)
#elif QV_BITS == 256
typedef __m256d qv_ort;
static inline qv_ort qv_ort_set1(float v) { return _mm256_set1_pd(v); }
/* fmaf(x, r, z) in double, 4 lanes */
static inline __m128 qb_fma_d4(__m128i x, __m256d r, __m256d z)
{
    return _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(x), r), z));
}
static inline qv_i32 qv_ort_add(qv_i32 a, qv_i32 b, qv_ort ra, qv_ort rb, qv_ort fixed)
{
    __m128 t0 = qb_fma_d4(_mm256_castsi256_si128(b), rb, fixed);
    __m128 t1 = qb_fma_d4(_mm256_extracti128_si256(b, 1), rb, fixed);
    __m128 v0 = qb_fma_d4(_mm256_castsi256_si128(a), ra, _mm256_cvtps_pd(t0));
    __m128 v1 = qb_fma_d4(_mm256_extracti128_si256(a, 1), ra, _mm256_cvtps_pd(t1));
    return qv_cvt_rne(_mm256_set_m128(v1, v0));
}
#define QV_ORT_VECTORS(p) qb_ort_double_exact(p)
#endif

#endif
