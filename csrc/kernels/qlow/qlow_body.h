/* The low-bit hot paths written once over a small vector vocabulary (qv_*:
 * an int32 / float32 vector of QV_W lanes, a compare mask, and the operations
 * below), for every SIMD tier: qlow_vec_x86.h (SSE2, which SSE4.1 inherits;
 * AVX2; AVX-512) and qlow_vec_neon.h. A tier file includes
 * its vocabulary header, defines QLOW_BODY_TIER, then includes this, which
 * defines and registers: int4 / uint4 dequantize (one scale and scale rows)
 * to float32, float16 and bfloat16; int4 / uint4 quantize from float32;
 * float8 e4m3fn / e5m2 quantize from and dequantize to float32. A step is
 * QV_U vectors; the rest (an odd first nibble, the tail, quotients rounded to
 * float16 / bfloat16) is qlow_simd_tail.h's, element by element.
 *
 * Vocabulary: qv_i / qv_f / qv_m (mask); qv_set1_i / qv_set1_f; qv_and /
 * qv_or / qv_xor / qv_add_i / qv_sub_i; qv_shl / qv_srl (v, count); qv_eq_i /
 * qv_gt_i (signed) -> qv_m; qv_sel(m, a, b) = m ? a : b; qv_min_i / qv_max_i;
 * qv_cvt_f (int32 -> float32); qv_cvtt_i (truncating); qv_round_i (nearest
 * even whatever the FP environment's mode, |v| < 2^31); qv_cast_f / qv_cast_i
 * (bits); qv_sub_f / qv_mul_f / qv_div_f; qv_max_f(q, bound) (bound when q is
 * a quiet NaN) / qv_min_f; qv_loadu_f / qv_storeu_f; qv_u8(b, o) (QV_U * QV_W
 * bytes zero-extended, in order); qv_nib(b, o) (QV_U * QV_W / 2 bytes as
 * nibbles, low first); qv_store_u8 / qv_store_nib / qv_store_u16 (QV_U
 * vectors of lanes as bytes, nibbles two a byte, 16-bit halves). Optional:
 * QV_F16_STORE (qv_store_f16, a conversion whose bits are simdops_f32_to_f16's;
 * without it the integer one below); QV_LOOKUP16 (qv_iota_i, qv_lookup_nib:
 * 32 nibbles looked up in a 16-entry table, QV_W == 16); QV_DQ8F_ONE_SCALE(x, n, y, e4, scale), a
 * tier's own float8 dequantize with one scale returning how far it went.
 *
 * The arithmetic is the scalar kernel's, lane by lane: (float)(code) - zp,
 * times the scale; x / scale, clamped, rounded to nearest even; a float8 code's
 * value built from its bits (exact), a NaN code's NaN x's own (0x7fc00000 |
 * sign) whatever the scale. */
#ifndef QLOW_BODY_TIER
#error "define QLOW_BODY_TIER and include the tier's qv_* vocabulary before qlow_body.h"
#endif

#include "kernels/qlow/qlow_simd_tail.h"

#define QB_STEP (QV_U * QV_W)
/* the loops over a step's QV_U vectors unrolled at any optimisation level (at -O2 GCC
 * kept them rolled, with the scale / format tests inside: 1.4x slower on AVX2) */
#if defined(__GNUC__)
#define QB_UNROLL _Pragma("GCC unroll 4")
#else
#define QB_UNROLL
#endif
/* the loops inlined into each table entry, so that the output format, the sign and
 * the scale form are constants there (GCC -O2 kept one shared qb_dq4 testing them at
 * run time: int4 dequantize in 32-element runs of one scale ran at 0.47 of a memcpy of
 * its output on AVX-512 against 0.72 before the body, tools/lowbit_sweep.c) */
#if defined(__GNUC__)
#define QB_LOOP static inline __attribute__((always_inline))
#else
#define QB_LOOP static inline
#endif
#define QB_CAT_(a, b) a##__##b
#define QB_CAT(a, b) QB_CAT_(a, b)
#define QB_NAME(n) QB_CAT(n, QLOW_BODY_TIER)

/* ------------------------------------------------------------------ float32 -> 16 bits */
/* qlow_f32_to_bf16, lane-wise, in each lane's low half */
static inline qv_i qb_bf16(qv_f v)
{
    qv_i u = qv_cast_i(v);
    qv_i r = qv_srl(qv_add_i(qv_add_i(u, qv_set1_i(0x7fff)), qv_and(qv_srl(u, 16), qv_set1_i(1))), 16);
    qv_m nan = qv_gt_i(qv_and(u, qv_set1_i(0x7fffffff)), qv_set1_i(0x7f800000));
    return qv_sel(nan, qv_or(qv_and(qv_srl(u, 16), qv_set1_i(0x8000)), qv_set1_i(0x7fc0)), r);
}
#ifndef QV_F16_STORE
/* simdops_f32_to_f16, lane-wise: the normal range rounds on the bits, below
 * 2^-14 |v| * 2^24 (exact) is rounded to the subnormal's code (1024: the
 * smallest normal's), from 65520 on infinity, NaN 0x7e00 | its payload's top */
static inline qv_i qb_f16(qv_f v)
{
    qv_i u = qv_cast_i(v), a = qv_and(u, qv_set1_i(0x7fffffff));
    qv_i sg = qv_and(qv_srl(u, 16), qv_set1_i(0x8000));
    qv_i h = qv_srl(qv_add_i(qv_add_i(a, qv_set1_i(0xfff - (112 << 23))), qv_and(qv_srl(a, 13), qv_set1_i(1))), 13);
    h = qv_sel(qv_gt_i(qv_set1_i(0x38800000), a), qv_round_i(qv_mul_f(qv_cast_f(a), qv_set1_f(0x1p24f))), h);
    h = qv_sel(qv_gt_i(a, qv_set1_i(0x477fefff)), qv_set1_i(0x7c00), h);
    h = qv_sel(qv_gt_i(a, qv_set1_i(0x7f800000)), qv_or(qv_and(qv_srl(a, 13), qv_set1_i(0x3ff)), qv_set1_i(0x7e00)), h);
    return qv_or(h, sg);
}
static inline void qv_store_f16(uint16_t *y, const qv_f v[QV_U])
{
    qv_i h[QV_U];
    QB_UNROLL
    for (int k = 0; k < QV_U; k++)
        h[k] = qb_f16(v[k]);
    qv_store_u16(y, h);
}
#endif

/* QV_U vectors of results to output elements [at, at + QB_STEP) */
static inline void qb_put(int fs, void *y, size_t at, const qv_f v[QV_U])
{
    if (fs == SIMDOPS_QF_F32) {
        QB_UNROLL
        for (int k = 0; k < QV_U; k++)
            qv_storeu_f((float *)y + at + (size_t)k * QV_W, v[k]);
    } else if (fs == SIMDOPS_QF_F16) {
        qv_store_f16((uint16_t *)y + at, v);
    } else {
        qv_i h[QV_U];
        QB_UNROLL
        for (int k = 0; k < QV_U; k++)
            h[k] = qb_bf16(v[k]);
        qv_store_u16((uint16_t *)y + at, h);
    }
}

/* ------------------------------------------------------------------ int4 / uint4 */
/* the lanes' int4 (flip 8: (nibble ^ 8) - 8) / uint4 (flip 0) values as float32 */
static inline qv_f qb_int4_value(qv_i nib, qv_i flip) { return qv_cvt_f(qv_sub_i(qv_xor(nib, flip), flip)); }

/* dequantize, (value - zp) * scale in float32: one scale (scales NULL: s, zpf)
 * or per-element scale / zp rows */
QB_LOOP void qb_dq4(const void *x, size_t first, size_t n, void *y, int fs, int sgn, float s,
                          float zpf, const float *scales, const float *zps)
{
    const qv_i flip = qv_set1_i(sgn ? 8 : 0);
    size_t i = 0, j;
    const uint8_t *xb;
    qv_i e[QV_U];
    qv_f r[QV_U];
    if (n && (first & 1)) {
        qs_dq4_tail(x, first, 0, 1, y, fs, sgn, s, zpf, scales, zps);
        i = 1;
    }
    xb = (const uint8_t *)x + (first + i) / 2; /* element first + i starts this byte */
    j = i;
#ifdef QV_LOOKUP16
    /* one scale: its 16 results; rows: the 16 codes' values (exact), then the
     * row's arithmetic */
    const qv_f values = qb_int4_value(qv_iota_i(), flip);
    const qv_f table = scales ? values : qv_mul_f(qv_sub_f(values, qv_set1_f(zpf)), qv_set1_f(s));
#define QB_NIB_VALUES(at, e, r) qv_lookup_nib(xb + ((at) - i) / 2, table, r)
    (void)e;
#else
#define QB_NIB_VALUES(at, e, r)                                                                  \
    do {                                                                                         \
        qv_nib(xb + ((at) - i) / 2, e);                                                          \
        QB_UNROLL                                                                                \
        for (int k = 0; k < QV_U; k++)                                                           \
            r[k] = qb_int4_value(e[k], flip);                                                    \
    } while (0)
#endif
    if (!scales) {
#ifndef QV_LOOKUP16
        const qv_f sv = qv_set1_f(s), zv = qv_set1_f(zpf);
#endif
        for (; j + QB_STEP <= n; j += QB_STEP) {
            QB_NIB_VALUES(j, e, r);
#ifndef QV_LOOKUP16
            QB_UNROLL
            for (int k = 0; k < QV_U; k++)
                r[k] = qv_mul_f(qv_sub_f(r[k], zv), sv);
#endif
            qb_put(fs, y, j, r);
        }
    } else if (zps) {
        for (; j + QB_STEP <= n; j += QB_STEP) {
            QB_NIB_VALUES(j, e, r);
            QB_UNROLL
            for (int k = 0; k < QV_U; k++) {
                size_t at = j + (size_t)k * QV_W;
                r[k] = qv_mul_f(qv_sub_f(r[k], qv_loadu_f(zps + at)), qv_loadu_f(scales + at));
            }
            qb_put(fs, y, j, r);
        }
    } else { /* no zero point: value - 0.0f is the value (an integer; 0 stays +0) */
        for (; j + QB_STEP <= n; j += QB_STEP) {
            QB_NIB_VALUES(j, e, r);
            QB_UNROLL
            for (int k = 0; k < QV_U; k++)
                r[k] = qv_mul_f(r[k], qv_loadu_f(scales + j + (size_t)k * QV_W));
            qb_put(fs, y, j, r);
        }
    }
#undef QB_NIB_VALUES
    qs_dq4_tail(x, first, j, n, y, fs, sgn, s, zpf, scales, zps);
}

/* quantize: x / scale clamped to [-32, 32] (NaN -> -32), rounded to nearest
 * even, plus the zero point, clamped to the type: the value of clamping to
 * [lo - zp, hi - zp] first, as the scalar kernel does (every zp lies within 32
 * of lo and hi) */
static inline qv_i qb_q4_code(qv_f x, qv_f s, qv_i zp, qv_i lo, qv_i hi)
{
    qv_f q = qv_min_f(qv_max_f(qv_div_f(x, s), qv_set1_f(-32.0f)), qv_set1_f(32.0f));
    return qv_min_i(qv_max_i(qv_add_i(qv_round_i(q), zp), lo), hi);
}
QB_LOOP void qb_q4(const float *x, size_t n, void *y, size_t first, int sgn, float s, int32_t zp,
                         const float *scales, const float *zps, const simdops_qlow_params *p)
{
    const qv_i lo = qv_set1_i(sgn ? -8 : 0), hi = qv_set1_i(sgn ? 7 : 15);
    size_t i = 0, j;
    uint8_t *yb;
    qv_i c[QV_U];
    if (!qs_plain_quotient(p)) {
        qs_q4_tail(x, 0, n, y, first, sgn, s, zp, scales, zps, p);
        return;
    }
    if (n && (first & 1)) {
        qs_q4_tail(x, 0, 1, y, first, sgn, s, zp, scales, zps, p);
        i = 1;
    }
    yb = (uint8_t *)y + (first + i) / 2;
    j = i;
    if (!scales) {
        const qv_f sv = qv_set1_f(s);
        const qv_i z = qv_set1_i(zp);
        for (; j + QB_STEP <= n; j += QB_STEP) {
            QB_UNROLL
            for (int k = 0; k < QV_U; k++)
                c[k] = qb_q4_code(qv_loadu_f(x + j + (size_t)k * QV_W), sv, z, lo, hi);
            qv_store_nib(yb + (j - i) / 2, c);
        }
    } else {
        for (; j + QB_STEP <= n; j += QB_STEP) {
            QB_UNROLL
            for (int k = 0; k < QV_U; k++) {
                size_t at = j + (size_t)k * QV_W;
                qv_i z = zps ? qv_cvtt_i(qv_loadu_f(zps + at)) : qv_set1_i(0);
                c[k] = qb_q4_code(qv_loadu_f(x + at), qv_loadu_f(scales + at), z, lo, hi);
            }
            qv_store_nib(yb + (j - i) / 2, c);
        }
    }
    qs_q4_tail(x, j, n, y, first, sgn, s, zp, scales, zps, p);
}

/* ------------------------------------------------------------------ float8 e4m3fn / e5m2 */
/* float32 -> float8 (qlow_f32_to_fmt, lane-wise): the normal range rounds on
 * the bits, below it |v| * 2^9 (2^16) is rounded (an exact product; a float32
 * subnormal gives 0 with or without DAZ, as it should), then overflow (above
 * 464, whose tie goes to 448 / from 61440 on, whose tie goes to inf), NaN and
 * the sign; |v|'s bits fit a signed compare */
static inline qv_i qb_f8_code(qv_f v, int e4, int sat)
{
    const int sh = e4 ? 20 : 21;
    qv_i u = qv_cast_i(v), a = qv_and(u, qv_set1_i(0x7fffffff));
    qv_i sg = qv_and(qv_srl(u, 24), qv_set1_i(0x80));
    qv_i c = qv_sub_i(qv_srl(qv_add_i(qv_add_i(a, qv_set1_i((1 << (sh - 1)) - 1)), qv_and(qv_srl(a, sh), qv_set1_i(1))), sh),
                      qv_set1_i(e4 ? 120 << 3 : 112 << 2));
    c = qv_sel(qv_gt_i(qv_set1_i(e4 ? 0x3c800000 : 0x38800000), a),
               qv_round_i(qv_mul_f(qv_cast_f(a), qv_set1_f(e4 ? 512.0f : 65536.0f))), c);
    c = qv_sel(qv_gt_i(a, qv_set1_i(e4 ? 0x43e80000 : 0x476fffff)),
               qv_set1_i(sat ? (e4 ? 0x7e : 0x7b) : (e4 ? 0x7f : 0x7c)), c);
    c = qv_sel(qv_gt_i(a, qv_set1_i(0x7f800000)), qv_set1_i(e4 ? 0x7f : 0x7e), c);
    return qv_or(c, sg);
}
QB_LOOP void qb_q8f(const float *x, size_t n, uint8_t *y, int qt, const float *scales,
                          const simdops_qlow_params *p)
{
    const int e4 = qt == SIMDOPS_QT_e4m3fn, sat = p->saturate != 0;
    const qv_f s = qv_set1_f(p->scale);
    size_t i = 0;
    qv_i c[QV_U];
    if (!qs_plain_quotient(p)) {
        qs_q8f_tail(x, 0, n, y, qt, scales, p);
        return;
    }
    for (; i + QB_STEP <= n; i += QB_STEP) {
        QB_UNROLL
        for (int k = 0; k < QV_U; k++) {
            size_t at = i + (size_t)k * QV_W;
            c[k] = qb_f8_code(qv_div_f(qv_loadu_f(x + at), scales ? qv_loadu_f(scales + at) : s), e4, sat);
        }
        qv_store_u8(y + i, c);
    }
    qs_q8f_tail(x, i, n, y, qt, scales, p);
}

/* float8 code lanes (0..255) -> float32 value times s; NaN codes keep their NaN */
static inline qv_f qb_f8_scaled(qv_i c, int e4, qv_f s)
{
    const qv_i m = qv_and(c, qv_set1_i(0x7f));
    const qv_i sg = qv_shl(qv_and(c, qv_set1_i(0x80)), 24);
    qv_i v = qv_add_i(qv_shl(m, e4 ? 20 : 21), qv_set1_i(e4 ? 120 << 23 : 112 << 23));
    qv_m nan;
    qv_i r;
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
QB_LOOP void qb_dq8f(const uint8_t *x, size_t n, float *y, int qt, float s, const float *scales)
{
    const int e4 = qt == SIMDOPS_QT_e4m3fn;
    const qv_f sv = qv_set1_f(s);
    size_t i = 0;
    qv_i c[QV_U];
#ifdef QV_DQ8F_ONE_SCALE
    if (!scales)
        i = QV_DQ8F_ONE_SCALE(x, n, y, e4, s);
#endif
    for (; i + QB_STEP <= n; i += QB_STEP) {
        qv_u8(x + i, c);
        QB_UNROLL
        for (int k = 0; k < QV_U; k++) {
            size_t at = i + (size_t)k * QV_W;
            qv_storeu_f(y + at, qb_f8_scaled(c[k], e4, scales ? qv_loadu_f(scales + at) : sv));
        }
    }
    qs_dq8f_tail(x, i, n, y, qt, s, scales);
}

/* ------------------------------------------------------------------ the table entries */
#define QB_DQ4(qtag, sgn, ftag, FS)                                                                          \
    static void QB_NAME(qtag##_dq_run_##ftag)(const void *x, size_t first, size_t n, void *y,               \
                                              const simdops_qlow_params *p)                                 \
    {                                                                                                        \
        qb_dq4(x, first, n, y, FS, sgn, p->scale, p->zp_f, NULL, NULL);                                     \
    }                                                                                                        \
    static void QB_NAME(qtag##_dq_row_##ftag)(const void *x, size_t first, size_t n, void *y,               \
                                              const float *scale, const float *zp, const simdops_qlow_params *p) \
    {                                                                                                        \
        (void)p;                                                                                             \
        qb_dq4(x, first, n, y, FS, sgn, 0.0f, 0.0f, scale, zp);                                             \
    }
#define QB_DQ4_ALL(qtag, sgn) \
    QB_DQ4(qtag, sgn, f32, SIMDOPS_QF_F32) QB_DQ4(qtag, sgn, f16, SIMDOPS_QF_F16) QB_DQ4(qtag, sgn, bf16, SIMDOPS_QF_BF16)
QB_DQ4_ALL(i4, 1)
QB_DQ4_ALL(u4, 0)

#define QB_Q4(qtag, sgn)                                                                                     \
    static void QB_NAME(qtag##_q_run_f32)(const void *x, size_t n, void *y, size_t first,                  \
                                          const simdops_qlow_params *p)                                     \
    {                                                                                                        \
        qb_q4((const float *)x, n, y, first, sgn, p->scale, p->zero_point, NULL, NULL, p);                  \
    }                                                                                                        \
    static void QB_NAME(qtag##_q_row_f32)(const void *x, size_t n, void *y, size_t first,                  \
                                          const float *scale, const float *zp, const simdops_qlow_params *p) \
    {                                                                                                        \
        qb_q4((const float *)x, n, y, first, sgn, 0.0f, 0, scale, zp, p);                                   \
    }
QB_Q4(i4, 1)
QB_Q4(u4, 0)

#define QB_F8(qtag)                                                                                          \
    static void QB_NAME(qtag##_q_run_f32)(const void *x, size_t n, void *y, size_t first,                  \
                                          const simdops_qlow_params *p)                                     \
    {                                                                                                        \
        qb_q8f((const float *)x, n, (uint8_t *)y + first, SIMDOPS_QT_##qtag, NULL, p);                      \
    }                                                                                                        \
    static void QB_NAME(qtag##_q_row_f32)(const void *x, size_t n, void *y, size_t first,                  \
                                          const float *scale, const float *zp, const simdops_qlow_params *p) \
    {                                                                                                        \
        (void)zp;                                                                                            \
        qb_q8f((const float *)x, n, (uint8_t *)y + first, SIMDOPS_QT_##qtag, scale, p);                     \
    }                                                                                                        \
    static void QB_NAME(qtag##_dq_run_f32)(const void *x, size_t first, size_t n, void *y,                 \
                                           const simdops_qlow_params *p)                                    \
    {                                                                                                        \
        qb_dq8f((const uint8_t *)x + first, n, (float *)y, SIMDOPS_QT_##qtag, p->scale, NULL);              \
    }                                                                                                        \
    static void QB_NAME(qtag##_dq_row_f32)(const void *x, size_t first, size_t n, void *y,                 \
                                           const float *scale, const float *zp, const simdops_qlow_params *p) \
    {                                                                                                        \
        (void)zp;                                                                                            \
        (void)p;                                                                                             \
        qb_dq8f((const uint8_t *)x + first, n, (float *)y, SIMDOPS_QT_##qtag, 0.0f, scale);                 \
    }
QB_F8(e4m3fn)
QB_F8(e5m2)

#define QB_SET_DQ4(t, qtag, tier)                                                                            \
    QLOW_SET(t, dq_run, qtag, f32, tier) QLOW_SET(t, dq_run, qtag, f16, tier) QLOW_SET(t, dq_run, qtag, bf16, tier) \
    QLOW_SET(t, dq_row, qtag, f32, tier) QLOW_SET(t, dq_row, qtag, f16, tier) QLOW_SET(t, dq_row, qtag, bf16, tier) \
    QLOW_SET(t, q_run, qtag, f32, tier) QLOW_SET(t, q_row, qtag, f32, tier)
#define QB_SET_F8(t, qtag, tier)                                                                             \
    QLOW_SET(t, q_run, qtag, f32, tier) QLOW_SET(t, q_row, qtag, f32, tier)                                  \
    QLOW_SET(t, dq_run, qtag, f32, tier) QLOW_SET(t, dq_row, qtag, f32, tier)
#define QB_REGISTER_(tier)                                                                                   \
    int simdops_qlow_register__##tier(simdops_qlow_table *t)                                                 \
    {                                                                                                        \
        QB_SET_DQ4(t, i4, tier) QB_SET_DQ4(t, u4, tier) QB_SET_F8(t, e4m3fn, tier) QB_SET_F8(t, e5m2, tier)  \
        return 1;                                                                                            \
    }
#define QB_REGISTER(tier) QB_REGISTER_(tier)
QB_REGISTER(QLOW_BODY_TIER)
