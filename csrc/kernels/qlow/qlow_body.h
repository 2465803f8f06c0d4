/* The low-bit dequantize hot paths written once over a small vector
 * vocabulary (qv_*: one int32 / float32 vector of QV_W lanes and the handful
 * of operations below), for the tiers that have no hand-tuned file:
 * qlow_vec_sse2.h (SSE2; SSE4.1 inherits it) and qlow_vec_neon.h. A tier file
 * includes its vocabulary header, defines QLOW_BODY_TIER, then includes this,
 * which defines and registers int4 / uint4 dequantize (one scale and scale
 * rows) and float8 e4m3fn / e5m2 dequantize to float32.
 *
 * Vocabulary: qv_i / qv_f; qv_set1_i / qv_set1_f; qv_and / qv_or / qv_xor /
 * qv_add_i / qv_sub_i; qv_shl(v, count); qv_eq_i / qv_gt_i (all-ones lanes);
 * qv_sel(mask, a, b) = mask ? a : b; qv_cvt_f (int32 -> float32, exact here:
 * |values| < 2^8); qv_cast_f / qv_cast_i (bits); qv_sub_f / qv_mul_f;
 * qv_loadu_f / qv_storeu_f; qv_u8x4(b, o) (4 * QV_W bytes zero-extended, in
 * order) and qv_nib4(b, o) (2 * QV_W bytes as 4 * QV_W nibbles, low nibble
 * first).
 *
 * The arithmetic is the scalar kernel's, lane by lane: (float)(code) - zp,
 * times the scale, each an IEEE float32 operation; a float8 code's value is
 * built from its bits (exact), a NaN code's NaN is x's (0x7fc00000 | sign)
 * whatever the scale, as qlow_scalar.c decides. */
#ifndef QLOW_BODY_TIER
#error "define QLOW_BODY_TIER and include the tier's qv_* vocabulary before qlow_body.h"
#endif

#include "kernels/qlow/qlow_simd_tail.h"

#define QB_CAT_(a, b) a##__##b
#define QB_CAT(a, b) QB_CAT_(a, b)
#define QB_NAME(n) QB_CAT(n, QLOW_BODY_TIER)

/* int4 / uint4 -> float32: run (scales NULL: s, zpf) or per-element scale / zp rows */
static inline void QB_NAME(qb_dq4)(const void *x, size_t first, size_t n, float *y, int sgn, float s,
                                   float zpf, const float *scales, const float *zps)
{
    const qv_i flip = qv_set1_i(sgn ? 8 : 0);
    const qv_f sv = qv_set1_f(s), zv = qv_set1_f(scales ? 0.0f : zpf);
    size_t i = 0, j;
    const uint8_t *xb;
    if (n && (first & 1)) {
        qs_dq4_tail(x, first, 0, 1, y, SIMDOPS_QF_F32, sgn, s, zpf, scales, zps);
        i = 1;
    }
    xb = (const uint8_t *)x + (first + i) / 2;
    for (j = i; j + 4 * QV_W <= n; j += 4 * QV_W) {
        qv_i e[4];
        qv_nib4(xb + (j - i) / 2, e);
        for (int k = 0; k < 4; k++) {
            size_t at = j + (size_t)k * QV_W;
            qv_f f = qv_cvt_f(qv_sub_i(qv_xor(e[k], flip), flip));
            qv_f z = scales && zps ? qv_loadu_f(zps + at) : zv;
            qv_storeu_f(y + at, qv_mul_f(qv_sub_f(f, z), scales ? qv_loadu_f(scales + at) : sv));
        }
    }
    qs_dq4_tail(x, first, j, n, y, SIMDOPS_QF_F32, sgn, s, zpf, scales, zps);
}

/* float8 code lanes (0..255) -> float32 value times s; NaN codes keep their NaN */
static inline qv_f QB_NAME(qb_f8_lane)(qv_i c, int e4, qv_f s)
{
    const qv_i m = qv_and(c, qv_set1_i(0x7f));
    const qv_i sg = qv_shl(qv_and(c, qv_set1_i(0x80)), 24);
    qv_i v = qv_add_i(qv_shl(m, e4 ? 20 : 21), qv_set1_i(e4 ? 120 << 23 : 112 << 23));
    qv_i nan, r;
    /* subnormal codes: m * 2^-9 (2^-16), exact and normal in float32 */
    v = qv_sel(qv_gt_i(qv_set1_i(e4 ? 8 : 4), m),
               qv_cast_i(qv_mul_f(qv_cvt_f(m), qv_set1_f(e4 ? 0x1p-9f : 0x1p-16f))), v);
    if (e4) {
        nan = qv_eq_i(m, qv_set1_i(0x7f));
    } else {
        v = qv_sel(qv_eq_i(m, qv_set1_i(0x7c)), qv_set1_i(0x7f800000), v);
        nan = qv_gt_i(m, qv_set1_i(0x7c));
    }
    r = qv_cast_i(qv_mul_f(qv_cast_f(qv_or(v, sg)), s));
    return qv_cast_f(qv_sel(nan, qv_or(sg, qv_set1_i(0x7fc00000)), r));
}

static inline void QB_NAME(qb_dq8f)(const uint8_t *x, size_t n, float *y, int qt, float s, const float *scales)
{
    const int e4 = qt == SIMDOPS_QT_e4m3fn;
    const qv_f sv = qv_set1_f(s);
    size_t i = 0;
    for (; i + 4 * QV_W <= n; i += 4 * QV_W) {
        qv_i c[4];
        qv_u8x4(x + i, c);
        for (int k = 0; k < 4; k++) {
            size_t at = i + (size_t)k * QV_W;
            qv_storeu_f(y + at, QB_NAME(qb_f8_lane)(c[k], e4, scales ? qv_loadu_f(scales + at) : sv));
        }
    }
    qs_dq8f_tail(x, i, n, y, qt, s, scales);
}

#define QB_DQ4(qtag, sgn)                                                                            \
    static void QB_NAME(qtag##_dq_run_f32)(const void *x, size_t first, size_t n, void *y,          \
                                           const simdops_qlow_params *p)                            \
    {                                                                                                \
        QB_NAME(qb_dq4)(x, first, n, (float *)y, sgn, p->scale, p->zp_f, NULL, NULL);               \
    }                                                                                                \
    static void QB_NAME(qtag##_dq_row_f32)(const void *x, size_t first, size_t n, void *y,          \
                                           const float *scale, const float *zp,                     \
                                           const simdops_qlow_params *p)                            \
    {                                                                                                \
        (void)p;                                                                                     \
        QB_NAME(qb_dq4)(x, first, n, (float *)y, sgn, 0.0f, 0.0f, scale, zp);                       \
    }
QB_DQ4(i4, 1)
QB_DQ4(u4, 0)

#define QB_DQ8(qtag)                                                                                 \
    static void QB_NAME(qtag##_dq_run_f32)(const void *x, size_t first, size_t n, void *y,          \
                                           const simdops_qlow_params *p)                            \
    {                                                                                                \
        QB_NAME(qb_dq8f)((const uint8_t *)x + first, n, (float *)y, SIMDOPS_QT_##qtag, p->scale, NULL); \
    }                                                                                                \
    static void QB_NAME(qtag##_dq_row_f32)(const void *x, size_t first, size_t n, void *y,          \
                                           const float *scale, const float *zp,                     \
                                           const simdops_qlow_params *p)                            \
    {                                                                                                \
        (void)zp;                                                                                    \
        (void)p;                                                                                     \
        QB_NAME(qb_dq8f)((const uint8_t *)x + first, n, (float *)y, SIMDOPS_QT_##qtag, 0.0f, scale); \
    }
QB_DQ8(e4m3fn)
QB_DQ8(e5m2)

#define QB_REGISTER_(tier)                                                                           \
    int simdops_qlow_register__##tier(simdops_qlow_table *t)                                         \
    {                                                                                                \
        QLOW_SET(t, dq_run, i4, f32, tier) QLOW_SET(t, dq_row, i4, f32, tier)                        \
        QLOW_SET(t, dq_run, u4, f32, tier) QLOW_SET(t, dq_row, u4, f32, tier)                        \
        QLOW_SET(t, dq_run, e4m3fn, f32, tier) QLOW_SET(t, dq_row, e4m3fn, f32, tier)                \
        QLOW_SET(t, dq_run, e5m2, f32, tier) QLOW_SET(t, dq_row, e5m2, f32, tier)                    \
        return 1;                                                                                    \
    }
#define QB_REGISTER(tier) QB_REGISTER_(tier)
QB_REGISTER(QLOW_BODY_TIER)
