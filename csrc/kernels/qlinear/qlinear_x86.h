/* QuantizeLinear / DequantizeLinear loops written once for every x86 vector
 * width (sse2, sse41: 4 lanes; avx2: 8; avx512: 16). The tier's file supplies
 * its vector operations under the names below, then includes this header
 * inside its SIMDOPS_COMPILE_<ISA> block with SIMDOPS_TIER defined; the
 * kernels come out named <t>_quantize_<x>__<tier> / <t>_dequantize_<y>__<tier>
 * for every type of qlinear_types.h.
 *
 * The arithmetic is the reference's lane for lane (qlinear_element.h): x /
 * scale by a true division (a reciprocal multiply is not the same float),
 * clamped to [qlo, qhi] before rounding (the bounds are integers, so clamping
 * commutes with rounding; NaN -> qlo), rounded half to even, plus the zero
 * point; dequantize is (x - zp) converted to float, times scale.
 *
 * What a tier defines:
 *   QL_V, QL_VI        float32 and int32 vector types; QL_W lanes
 *   QL_MASK, QL_FULL   a lane-mask type and its all-lanes value (a tier
 *                      without masked memory ops: any type, ignored)
 *   QL_QV              vectors per quantize step (its stores take that many)
 *   QL_HAS_F16         1: float16 in and out (F16C), else float32 only
 *   QL_MASKED_TAIL     1: the tail is one masked vector a step (ql_tail_mask,
 *                      ql_put_<t>); 0: element by element through the reference
 *   QL_FAST8           1: the 8-bit outputs of float32 start with ql_q8_recip_steps
 *                      (qlinear_q8_recip.h: no divider where proven exact, else
 *                      ql_q8_steps; its own names are listed there)
 *   QL_PFX             the intrinsics' prefix (_mm, _mm256, _mm512): this header
 *                      makes ql_set1, ql_set1_i32, ql_set1_i16, ql_div, ql_mul,
 *                      ql_sub_i32 and ql_cvt_f32 (int32 -> float) from it
 *   ql_quantize_vec(q, lo, hi, zp)   clamped, rounded, plus zp, as int32 lanes
 *   ql_load_f32(p, m), ql_load_f16(p, m), ql_f16_round(v) (to float16 and back)
 *   ql_store_<t>(y, r)               QL_QV int32 vectors r[] (in range) stored as T
 *                                    (QL_MASKED_TAIL: QL_QV ql_put_<t> instead)
 *   ql_widen_<t>(x, m)               W elements of x as int32 lanes
 *   ql_put_f32(y, v, m), ql_put_f16(y, v, m)
 *   with QL_FAST8: ql_q8_round(q, hi), ql_packs_i32, ql_adds_i16,
 *   ql_packs_i16, ql_packus_i16, ql_store_bytes(y, v) (puts the packs' lanes in order) */
#ifndef SIMDOPS_QLINEAR_X86_H
#define SIMDOPS_QLINEAR_X86_H

#include "qlinear_element.h"
#include "qlinear_types.h"

/* the operations every width spells alike but for the intrinsics' prefix */
#define QL_INTRIN(op) SIMDOPS_CAT(QL_PFX, op)
static inline QL_V ql_set1(float v) { return QL_INTRIN(_set1_ps)(v); }
static inline QL_VI ql_set1_i32(int32_t v) { return QL_INTRIN(_set1_epi32)(v); }
static inline QL_VI ql_set1_i16(int16_t v) { return QL_INTRIN(_set1_epi16)(v); }
static inline QL_V ql_div(QL_V a, QL_V b) { return QL_INTRIN(_div_ps)(a, b); }
static inline QL_V ql_mul(QL_V a, QL_V b) { return QL_INTRIN(_mul_ps)(a, b); }
static inline QL_VI ql_sub_i32(QL_VI a, QL_VI b) { return QL_INTRIN(_sub_epi32)(a, b); }
static inline QL_V ql_cvt_f32(QL_VI v) { return QL_INTRIN(_cvtepi32_ps)(v); }
static inline QL_V ql_max(QL_V a, QL_V b) { return QL_INTRIN(_max_ps)(a, b); }
static inline QL_VI ql_srai14(QL_VI a) { return QL_INTRIN(_srai_epi32)(a, 14); }

#define QL_XT_f32 float
#define QL_XT_f16 uint16_t
#define QL_YT_f32 float
#define QL_YT_f16 uint16_t

/* the quotient's float16 rounding (float16 x by a float16 scale) and the
 * reference quotient of the scalar tail */
#define QL_DIV_ROUND_f32(q, f16) (q)
#define QL_DIV_ROUND_f16(q, f16) ((f16) ? ql_f16_round(q) : (q))
#define QL_QUOTIENT_f32(v, p) ((v) / (p)->scale)
#define QL_QUOTIENT_f16(v, p) qlinear_quotient_f16((v), (p))
#define QL_ONE_f32(v) (v)
#define QL_ONE_f16(v) simdops_f32_to_f16(v)

#if QL_FAST8
/* 8-bit outputs of float32 x, 4 vectors a step: only min(hi, q) in float (the
 * operand order keeps a NaN, which converts to INT32_MIN like -inf and anything
 * below -2^31), then saturating narrows with the zero point added in int16.
 * That equals clamp-then-round (NaN -> lo): the bounds are the type's limits
 * minus zp, |zp| <= 255, and a value saturated at either 16-bit step lies
 * beyond the 8-bit type on the side the exact sum does. Fewer ops on the
 * convert/min port a vector than the general step; the divide is what remains.
 * Returns how many elements it did. */
static inline size_t ql_q8_steps(const float *x, void *y, size_t n, const simdops_qlinear_params *p,
                                 int is_signed)
{
    const QL_V s = ql_set1(p->scale), hi = ql_set1(p->qhi);
    const QL_VI zp = ql_set1_i16((int16_t)p->zero_point);
    size_t i = 0;
    for (; n - i >= 4 * QL_W; i += 4 * QL_W) {
        QL_VI r0 = ql_q8_round(ql_div(ql_load_f32(x + i, QL_FULL), s), hi);
        QL_VI r1 = ql_q8_round(ql_div(ql_load_f32(x + i + QL_W, QL_FULL), s), hi);
        QL_VI r2 = ql_q8_round(ql_div(ql_load_f32(x + i + 2 * QL_W, QL_FULL), s), hi);
        QL_VI r3 = ql_q8_round(ql_div(ql_load_f32(x + i + 3 * QL_W, QL_FULL), s), hi);
        QL_VI p01 = ql_adds_i16(ql_packs_i32(r0, r1), zp);
        QL_VI p23 = ql_adds_i16(ql_packs_i32(r2, r3), zp);
        ql_store_bytes((char *)y + i, is_signed ? ql_packs_i16(p01, p23) : ql_packus_i16(p01, p23));
    }
    return i;
}
#include "qlinear_q8_recip.h"
#define QL_FAST_u8(x, y, n, p) ql_q8_recip_steps(x, y, n, p, 0)
#define QL_FAST_i8(x, y, n, p) ql_q8_recip_steps(x, y, n, p, 1)
#else
#define QL_FAST_u8(x, y, n, p) 0
#define QL_FAST_i8(x, y, n, p) 0
#endif
#define QL_FAST_u16(x, y, n, p) 0
#define QL_FAST_i16(x, y, n, p) 0
/* where the general loop starts: float16 x has no fast loop */
#define QL_START_f32(tname, x, y, n, p) QL_FAST_##tname(x, y, n, p)
#define QL_START_f16(tname, x, y, n, p) 0

/* F(k, A) for k = 0 .. QL_QV - 1, written out: a loop over k (even of constant
 * trip count) is left rolled at -O2, with r[] on the stack */
#if QL_QV == 2
#define QL_EACH_VECTOR(F, A) F(0, A) F(1, A)
#elif QL_QV == 4
#define QL_EACH_VECTOR(F, A) F(0, A) F(1, A) F(2, A) F(3, A)
#endif
/* Room for a whole step at i. Both tests are exact (i <= n); each is the one the
 * tier's loops were written and measured with, and GCC compiles the two to
 * different loop code. */
#if QL_MASKED_TAIL
#define QL_ROOM(step) (n - i >= (step))
#else
#define QL_ROOM(step) (i + (step) <= n)
#endif
/* a quantize step's store of r[] at y + i */
#if QL_MASKED_TAIL
#define QL_PUT_VECTOR(k, tname) ql_put_##tname(y + i + (k) * QL_W, r[k], QL_FULL);
#define QL_STORE_STEP(tname) QL_EACH_VECTOR(QL_PUT_VECTOR, tname)
#else
#define QL_STORE_STEP(tname) ql_store_##tname(y + i, r);
#endif

#if QL_MASKED_TAIL
#define QL_QUANTIZE_TAIL(xname, T, tname)                                                          \
    for (; i < n; i += QL_W) {                                                                     \
        QL_MASK m = ql_tail_mask(n - i);                                                           \
        QL_V q = QL_DIV_ROUND_##xname(ql_div(ql_load_##xname(x + i, m), s), f16);                  \
        ql_put_##tname(y + i, ql_quantize_vec(q, lo, hi, zp), m);                                  \
    }
#define QL_DEQUANTIZE_TAIL(tname, yname)                                                           \
    for (; i < n; i += QL_W) {                                                                     \
        QL_MASK m = ql_tail_mask(n - i);                                                           \
        QL_VI a = ql_sub_i32(ql_widen_##tname(x + i, m), zp);                                      \
        ql_put_##yname(y + i, ql_mul(ql_cvt_f32(a), s), m);                                        \
    }
#else
#define QL_QUANTIZE_TAIL(xname, T, tname)                                                          \
    for (; i < n; i++)                                                                             \
        y[i] = (T)qlinear_quantize_one(QL_QUOTIENT_##xname(x[i], p), p);
#define QL_DEQUANTIZE_TAIL(tname, yname)                                                           \
    for (; i < n; i++)                                                                             \
        y[i] = QL_ONE_##yname(qlinear_dequantize_one((int32_t)x[i], p));
#endif

/* vector k of a quantize step: r[k] from x + i + k W */
#define QL_QUANTIZE_VECTOR(k, xname)                                                               \
    {                                                                                              \
        QL_V q_ = ql_div(ql_load_##xname(x + i + (k) * QL_W, QL_FULL), s);                         \
        r[k] = ql_quantize_vec(QL_DIV_ROUND_##xname(q_, f16), lo, hi, zp);                         \
    }

/* X(xname, T, tname): QuantizeLinear of float x (f32 or f16) to T */
#define QL_QUANTIZE_KERNEL(xname, T, tname)                                                        \
    static void SIMDOPS_KERNEL_NAME(tname, quantize_##xname)(const void *xv, void *yv, size_t n,   \
                                                             const simdops_qlinear_params *p)      \
    {                                                                                              \
        const QL_XT_##xname *x = (const QL_XT_##xname *)xv;                                        \
        T *y = (T *)yv;                                                                            \
        const QL_V s = ql_set1(p->scale), lo = ql_set1(p->qlo), hi = ql_set1(p->qhi);              \
        const QL_VI zp = ql_set1_i32(p->zero_point);                                               \
        const int f16 = p->div_f16;                                                                \
        size_t i = QL_START_##xname(tname, x, y, n, p);                                            \
        (void)f16;                                                                                 \
        for (; QL_ROOM(QL_QV * QL_W); i += QL_QV * QL_W) {                                         \
            QL_VI r[QL_QV];                                                                        \
            QL_EACH_VECTOR(QL_QUANTIZE_VECTOR, xname)                                              \
            QL_STORE_STEP(tname)                                                                   \
        }                                                                                          \
        QL_QUANTIZE_TAIL(xname, T, tname)                                                          \
    }

/* X(yname, T, tname): DequantizeLinear of T to float y (f32 or f16), two vectors a step */
#define QL_DEQUANTIZE_KERNEL(yname, T, tname)                                                      \
    static void SIMDOPS_KERNEL_NAME(tname, dequantize_##yname)(const void *xv, void *yv,           \
                                                               size_t n,                           \
                                                               const simdops_qlinear_params *p)    \
    {                                                                                              \
        const T *x = (const T *)xv;                                                                \
        QL_YT_##yname *y = (QL_YT_##yname *)yv;                                                    \
        const QL_V s = ql_set1(p->scale);                                                          \
        const QL_VI zp = ql_set1_i32(p->zero_point);                                               \
        size_t i = 0;                                                                              \
        for (; QL_ROOM(2 * QL_W); i += 2 * QL_W) {                                                 \
            QL_VI a = ql_sub_i32(ql_widen_##tname(x + i, QL_FULL), zp);                            \
            QL_VI b = ql_sub_i32(ql_widen_##tname(x + i + QL_W, QL_FULL), zp);                     \
            ql_put_##yname(y + i, ql_mul(ql_cvt_f32(a), s), QL_FULL);                              \
            ql_put_##yname(y + i + QL_W, ql_mul(ql_cvt_f32(b), s), QL_FULL);                       \
        }                                                                                          \
        QL_DEQUANTIZE_TAIL(tname, yname)                                                           \
    }

QL_QUANTIZED_TYPES(QL_QUANTIZE_KERNEL, f32)
QL_DEQUANTIZED_TYPES(QL_DEQUANTIZE_KERNEL, f32)
#if QL_HAS_F16
QL_QUANTIZED_TYPES(QL_QUANTIZE_KERNEL, f16)
QL_DEQUANTIZED_TYPES(QL_DEQUANTIZE_KERNEL, f16)
#endif

#endif
