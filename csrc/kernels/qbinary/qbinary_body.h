/* The 8-bit quantized binary kernels of every SIMD tier, written once over
 * small per-tier helpers on int32 lanes: the exact arithmetic of
 * qbinary_element.h (which also does each tail, so a tail is the reference by
 * construction), QB_STEP elements (four vectors) a step in each broadcast form.
 * A tier file defines SIMDOPS_TIER and, before including this:
 *
 *   qv_i32, QV_LANES        int32 vector, its lane count
 *   qv_b                    the byte vector of the output's clamp bounds
 *   qv_f32                  float32 vector of QV_LANES lanes
 *   qv_cnt                  a uniform shift count
 *   qv_ort                  the constants' type of ONNX Runtime's add step
 *   qv_set1(int32) qv_set1_b(int) qv_set1_f(float) qv_ort_set1(float)
 *   qv_cnt_left(e) qv_cnt_right(e)   counts for qv_sll / qv_sra
 *   qv_add qv_sub qv_and qv_mullo(a, b)   (wrapping int32)
 *   qv_sll(x, cnt) qv_sra(x, cnt)   shifts by a uniform count
 *   qv_srl31(x)             x >> 31 logical (1 for a negative lane)
 *   qv_add_if_gt(s, r, t)   s + (r > t ? 1 : 0), signed compare
 *   qv_srdhm(x, m)          gemmlowp's SRDHM, m uniform (the 8-bit kernels
 *                           never meet its saturating case: see each caller)
 *   qv_cvt_f(x) qv_mul_f qv_add_f   int32 -> float, float ops (MXCSR / FPCR
 *                           rounding, as the scalar element's)
 *   qv_cvt_rne(v)           float -> int32 half to even, INT32_MIN for NaN and
 *                           beyond int32 (qb_cvt_rne)
 *   qv_ort_add(a, b, ra, rb, fixed)   ONNX Runtime's fmaf(a, ra, fmaf(b, rb,
 *                           fixed)) on the raw inputs, converted as qv_cvt_rne
 *   QV_ORT_VECTORS(p) QV_FP_VECTORS(p)   whether the two float entries' vector
 *                           steps give the scalar bits for p (in the caller's
 *                           rounding mode); else the whole row is scalar
 *   qv_widen4_i8/u8(src, v[4])        4 QV_LANES elements widened to int32
 *   qv_narrow4_i8/u8(dst, v0..v3, lo, hi)  four int32 vectors saturated to the
 *                           type (int32 -> int16 -> 8 bits, the x86 packs' narrowing
 *                           as the runtimes narrow), clamped to [lo, hi], stored
 *
 * Then it defines the kernels and lists them in QBINARY_BODY_KERNELS(X). */
#ifndef SIMDOPS_TIER
#error "define SIMDOPS_TIER and the tier's qv_ helpers before qbinary_body.h"
#endif
#include "qbinary_element.h"
#include "qbinary_bounds.h"
#include "qbinary_form.h"
#include "qbinary_prefetch.h"

enum { QB_STEP = 4 * QV_LANES };

typedef struct qb_consts {
    qv_i32 a_mult, b_mult, y_mult, bias, y_offset, a_offset, b_offset;
    qv_i32 mask_a, thr_a, mask_b, thr_b, mask_y, thr_y; /* RDBPOT's remainder and threshold */
    qv_cnt shift, ls, sa, sb, sy;
    qv_f32 scale, y_offset_f;
    qv_ort ratio_a, ratio_b, fixed;
    qv_b lo, hi;
} qb_consts;

static inline qv_i32 qb_rdbpot_mask(int e) { return qv_set1((int32_t)(((int64_t)1 << e) - 1)); }
static inline qv_i32 qb_rdbpot_thr(int e) { return qv_set1((int32_t)((((int64_t)1 << e) - 1) >> 1)); }

static inline void qb_consts_init(qb_consts *c, const simdops_qbinary_params *p)
{
    c->a_mult = qv_set1(p->a_mult);
    c->b_mult = qv_set1(p->b_mult);
    c->y_mult = qv_set1(p->y_mult);
    c->bias = qv_set1(p->bias);
    c->y_offset = qv_set1(p->y_offset);
    c->a_offset = qv_set1(p->a_offset);
    c->b_offset = qv_set1(p->b_offset);
    c->mask_a = qb_rdbpot_mask(p->a_shift);
    c->thr_a = qb_rdbpot_thr(p->a_shift);
    c->mask_b = qb_rdbpot_mask(p->b_shift);
    c->thr_b = qb_rdbpot_thr(p->b_shift);
    c->mask_y = qb_rdbpot_mask(p->y_shift);
    c->thr_y = qb_rdbpot_thr(p->y_shift);
    c->shift = qv_cnt_right(p->shift);
    c->ls = qv_cnt_left(p->left_shift);
    c->sa = qv_cnt_right(p->a_shift);
    c->sb = qv_cnt_right(p->b_shift);
    c->sy = qv_cnt_right(p->y_shift);
    c->scale = qv_set1_f(p->scale);
    c->y_offset_f = qv_set1_f(p->y_offset_f);
    c->ratio_a = qv_ort_set1(p->ratio_a);
    c->ratio_b = qv_ort_set1(p->ratio_b);
    c->fixed = qv_ort_set1(p->fixed);
    c->lo = qv_set1_b(p->lo);
    c->hi = qv_set1_b(p->hi);
}

/* ---------------------------------------------------------------- per-arithmetic steps
 * Each takes QV_LANES widened a and b lanes (a one-element input arrives
 * broadcast) and returns the int32 result before narrowing. */

/* RDBPOT(x, e), e uniform: (x >> e) + ((x & mask) > (mask >> 1) + (x < 0)) */
static inline qv_i32 qb_rdbpot_v(qv_i32 x, qv_cnt e, qv_i32 mask, qv_i32 thr)
{
    return qv_add_if_gt(qv_sra(x, e), qv_and(x, mask), qv_add(thr, qv_srl31(x)));
}

/* XNNPACK add: bias + a * a_mult + b * b_mult (int32, wrapping), arithmetic
 * shift, + zero point */
static inline qv_i32 qb_xnn_add_v(qv_i32 a, qv_i32 b, const qb_consts *c)
{
    qv_i32 acc = qv_add(c->bias, qv_add(qv_mullo(a, c->a_mult), qv_mullo(b, c->b_mult)));
    return qv_add(qv_sra(acc, c->shift), c->y_offset);
}

/* float32(product) * scale, + ONNX Runtime's zero point in float (the
 * caller's rounding, as the scalar element's), converted half to even, +
 * XNNPACK's zero point (wrapping). The product of two offset 8-bit values
 * (|p| <= 65025) is exact in float. */
static inline qv_i32 qb_fp_mul_v(qv_i32 a, qv_i32 b, const qb_consts *c)
{
    qv_i32 prod = qv_mullo(qv_sub(a, c->a_offset), qv_sub(b, c->b_offset));
    qv_f32 v = qv_add_f(qv_mul_f(qv_cvt_f(prod), c->scale), c->y_offset_f);
    return qv_add(qv_cvt_rne(v), c->y_offset);
}

/* TFLite add: each offset input shifted left, SRDHM, RDBPOT, the two summed,
 * scaled by the output's multiplier, + zero point. SRDHM's saturating case
 * (x == m == INT32_MIN) cannot occur: |x| < 2^28 and the sum < 2^31. */
static inline qv_i32 qb_tfl_add_v(qv_i32 a, qv_i32 b, const qb_consts *c)
{
    qv_i32 xa = qv_sll(qv_add(a, c->a_offset), c->ls);
    qv_i32 xb = qv_sll(qv_add(b, c->b_offset), c->ls);
    qv_i32 ra = qb_rdbpot_v(qv_srdhm(xa, c->a_mult), c->sa, c->mask_a, c->thr_a);
    qv_i32 rb = qb_rdbpot_v(qv_srdhm(xb, c->b_mult), c->sb, c->mask_b, c->thr_b);
    qv_i32 sum = qv_add(ra, rb);
    return qv_add(qb_rdbpot_v(qv_srdhm(sum, c->y_mult), c->sy, c->mask_y, c->thr_y), c->y_offset);
}

/* TFLite mul (8-bit): the product (|p| <= 65025) shifted left (left_shift <=
 * 30, wrapping as TFLite's int32 does), SRDHM (m < 2^31: never saturating),
 * RDBPOT, + zero point. */
static inline qv_i32 qb_tfl_mul_v(qv_i32 a, qv_i32 b, const qb_consts *c)
{
    qv_i32 x = qv_sll(qv_mullo(qv_add(a, c->a_offset), qv_add(b, c->b_offset)), c->ls);
    return qv_add(qb_rdbpot_v(qv_srdhm(x, c->y_mult), c->sy, c->mask_y, c->thr_y), c->y_offset);
}

/* ONNX Runtime add: the tier's fused (or proven-exact) multiply-adds */
static inline qv_i32 qb_ort_add_v(qv_i32 a, qv_i32 b, const qb_consts *c)
{
    return qv_ort_add(a, b, c->ratio_a, c->ratio_b, c->fixed);
}

#define QB_INT_VECTORS(p) 1

/* ---------------------------------------------------------------- the vector rows
 * qb_rows_<entry>_<tag>: QB_STEP elements a step in each form while
 * VECTORS(p) (else none); the form loop (qbinary_form.h) does the rest. */
#define QB_BLOCK(STEP, tag)                                                                        \
    qv_narrow4_##tag(y + i, STEP(va[0], vb[0], &c), STEP(va[1], vb[1], &c),                       \
                     STEP(va[2], vb[2], &c), STEP(va[3], vb[3], &c), c.lo, c.hi)
/* Two-vector rows whose bounds are the type's own narrow without the clamp where the
 * tier has that narrowing (QV_NARROW_UNCLAMPED: AVX-512); elsewhere never taken */
#ifdef QV_NARROW_UNCLAMPED
#define QB_TYPE_BOUNDS_i8(p) qb_bounds_are_type(p, 0)
#define QB_TYPE_BOUNDS_u8(p) qb_bounds_are_type(p, 1)
#define QB_BLOCK_NC(STEP, tag)                                                                     \
    qv_narrow4_nc_##tag(y + i, STEP(va[0], vb[0], &c), STEP(va[1], vb[1], &c),                    \
                        STEP(va[2], vb[2], &c), STEP(va[3], vb[3], &c))
#else
#define QB_TYPE_BOUNDS_i8(p) 0
#define QB_TYPE_BOUNDS_u8(p) 0
#define QB_BLOCK_NC(STEP, tag) QB_BLOCK(STEP, tag)
#endif
#define QB_ROWS_ONLY(entry, tag, T, STEP, VECTORS)                                                 \
    static inline size_t qb_rows_##entry##_##tag(const T *a, const T *b, T *y, size_t n, int form, \
                                                 const simdops_qbinary_params *p)                 \
    {                                                                                              \
        qb_consts c;                                                                               \
        qv_i32 va[4], vb[4];                                                                       \
        size_t i = 0;                                                                              \
        if (n < QB_STEP || !VECTORS(p))                                                            \
            return 0;                                                                              \
        qb_consts_init(&c, p);                                                                     \
        if (form == SIMDOPS_QB_SV) {                                                               \
            va[0] = va[1] = va[2] = va[3] = qv_set1(a[0]);                                         \
            for (; i + QB_STEP <= n; i += QB_STEP) {                                               \
                QB_PREFETCH((const char *)(b + i) + QB_AHEAD);                                     \
                qv_widen4_##tag(b + i, vb);                                                        \
                QB_BLOCK(STEP, tag);                                                               \
            }                                                                                      \
        } else if (form == SIMDOPS_QB_VS) {                                                        \
            vb[0] = vb[1] = vb[2] = vb[3] = qv_set1(b[0]);                                         \
            for (; i + QB_STEP <= n; i += QB_STEP) {                                               \
                QB_PREFETCH((const char *)(a + i) + QB_AHEAD);                                     \
                qv_widen4_##tag(a + i, va);                                                        \
                QB_BLOCK(STEP, tag);                                                               \
            }                                                                                      \
        } else if (QB_TYPE_BOUNDS_##tag(p)) {                                                      \
            /* the type's own bounds: the packs saturate to them (no min / max) */            \
            for (; i + QB_STEP <= n; i += QB_STEP) {                                               \
                QB_PREFETCH((const char *)(a + i) + QB_AHEAD);                                     \
                QB_PREFETCH((const char *)(b + i) + QB_AHEAD);                                     \
                qv_widen4_##tag(a + i, va);                                                        \
                qv_widen4_##tag(b + i, vb);                                                        \
                QB_BLOCK_NC(STEP, tag);                                                            \
            }                                                                                      \
        } else                                                                                     \
            for (; i + QB_STEP <= n; i += QB_STEP) {                                               \
                QB_PREFETCH((const char *)(a + i) + QB_AHEAD);                                     \
                QB_PREFETCH((const char *)(b + i) + QB_AHEAD);                                     \
                qv_widen4_##tag(a + i, va);                                                        \
                qv_widen4_##tag(b + i, vb);                                                        \
                QB_BLOCK(STEP, tag);                                                               \
            }                                                                                      \
        return i;                                                                                  \
    }
#define QB_VECTOR_ROWS(entry, tag, T, STEP, ONE, VECTORS)                                          \
    QB_ROWS_ONLY(entry, tag, T, STEP, VECTORS)                                                     \
    QB_FORM_KERNEL(entry, tag, T, ONE, qb_rows_##entry##_##tag)

/* XNNPACK's add: the tier's own rows where it defines QV_OWN_XNN_ROWS
 * (qv_xnn_rows_i8 / _u8, of the rows' signature), else the body's */
#ifdef QV_OWN_XNN_ROWS
QB_FORM_KERNEL(qadd_xnnpack, i8, int8_t, qb_xnnpack_add_one, qv_xnn_rows_i8)
QB_FORM_KERNEL(qadd_xnnpack, u8, uint8_t, qb_xnnpack_add_one, qv_xnn_rows_u8)
#define QB_XNN_ENTRY(X)
#else
#define QB_XNN_ENTRY(X) X(qadd_xnnpack, qb_xnn_add_v, qb_xnnpack_add_one, QB_INT_VECTORS)
#endif
/* the fp32 multiply: likewise where the tier defines QV_OWN_FPMUL_ROWS */
#ifdef QV_OWN_FPMUL_ROWS
QB_FORM_KERNEL(qmul_fp, i8, int8_t, qb_fp_mul_one, qv_fpmul_rows_i8)
QB_FORM_KERNEL(qmul_fp, u8, uint8_t, qb_fp_mul_one, qv_fpmul_rows_u8)
#define QB_FPMUL_ENTRY(X)
#else
#define QB_FPMUL_ENTRY(X) X(qmul_fp, qb_fp_mul_v, qb_fp_mul_one, QV_FP_VECTORS)
#endif
/* TFLite's add: where the tier defines QV_OWN_TFL_ADD_ROWS it includes its own
 * rows and kernel after this file (they fall back on the int32 rows here,
 * qb_rows_qadd_tflite_<tag>, and use qb_tfl_add_v); else the body's */
#ifdef QV_OWN_TFL_ADD_ROWS
QB_ROWS_ONLY(qadd_tflite, i8, int8_t, qb_tfl_add_v, QB_INT_VECTORS)
QB_ROWS_ONLY(qadd_tflite, u8, uint8_t, qb_tfl_add_v, QB_INT_VECTORS)
#define QB_TFL_ADD_ENTRY(X)
#else
#define QB_TFL_ADD_ENTRY(X) X(qadd_tflite, qb_tfl_add_v, qb_tflite_add_one, QB_INT_VECTORS)
#endif
/* TFLite's multiply: likewise where the tier defines QV_OWN_TFL_MUL_ROWS (its
 * rows fall back on qb_rows_qmul_tflite_<tag> and qb_tfl_mul_v) */
#ifdef QV_OWN_TFL_MUL_ROWS
QB_ROWS_ONLY(qmul_tflite, i8, int8_t, qb_tfl_mul_v, QB_INT_VECTORS)
QB_ROWS_ONLY(qmul_tflite, u8, uint8_t, qb_tfl_mul_v, QB_INT_VECTORS)
#define QB_TFL_MUL_ENTRY(X)
#else
#define QB_TFL_MUL_ENTRY(X) X(qmul_tflite, qb_tfl_mul_v, qb_tflite_mul_one, QB_INT_VECTORS)
#endif
#define QB_BODY_ENTRIES(X)                                                                         \
    QB_XNN_ENTRY(X)                                                                                \
    QB_FPMUL_ENTRY(X)                                                                              \
    QB_TFL_ADD_ENTRY(X)                                                                            \
    QB_TFL_MUL_ENTRY(X)                                                                            \
    X(qadd_ort, qb_ort_add_v, qb_ort_add_vv, QV_ORT_VECTORS)
#define QB_BODY_TYPES(entry, STEP, ONE, VECTORS)                                                   \
    QB_VECTOR_ROWS(entry, i8, int8_t, STEP, ONE, VECTORS)                                          \
    QB_VECTOR_ROWS(entry, u8, uint8_t, STEP, ONE, VECTORS)
QB_BODY_ENTRIES(QB_BODY_TYPES)

#define QBINARY_BODY_KERNELS(X)                                                                    \
    X(qadd_xnnpack, i8) X(qadd_xnnpack, u8) X(qmul_fp, i8) X(qmul_fp, u8)                          \
    X(qadd_ort, i8) X(qadd_ort, u8)                                                                \
    X(qadd_tflite, i8) X(qadd_tflite, u8) X(qmul_tflite, i8) X(qmul_tflite, u8)
