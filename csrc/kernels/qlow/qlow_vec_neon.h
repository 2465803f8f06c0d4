/* qlow_body.h's vocabulary on NEON (AArch64): 4 lanes, 4 vectors a step.
 * FCVTN to float16 keeps a NaN's payload as the scalar conversion does
 * (core/fp16.h); FCVTNS rounds to nearest even whatever FPCR says. */
#ifndef SIMDOPS_QLOW_VEC_NEON_H
#define SIMDOPS_QLOW_VEC_NEON_H
#include <arm_neon.h>

#include "kernels/qlow/qlow_vec_fn.h"

#define QV_W 4
#define QV_U 4
typedef int32x4_t qv_i; typedef float32x4_t qv_f; typedef int32x4_t qv_m;
#define QV_U32(a) vreinterpretq_u32_s32(a)
#define QV_S32(a) vreinterpretq_s32_u32(a)
static inline qv_i qv_set1_i(int32_t v) { return vdupq_n_s32(v); }
static inline qv_f qv_set1_f(float v) { return vdupq_n_f32(v); }
QV_FN2(qv_i, qv_and, vandq_s32) QV_FN2(qv_i, qv_or, vorrq_s32) QV_FN2(qv_i, qv_xor, veorq_s32)
QV_FN2(qv_i, qv_add_i, vaddq_s32) QV_FN2(qv_i, qv_sub_i, vsubq_s32) QV_FN2(qv_i, qv_min_i, vminq_s32) QV_FN2(qv_i, qv_max_i, vmaxq_s32)
QV_FN2(qv_f, qv_sub_f, vsubq_f32) QV_FN2(qv_f, qv_mul_f, vmulq_f32) QV_FN2(qv_f, qv_div_f, vdivq_f32)
/* qv_max_f(q, bound): FMAXNM gives bound for a quiet NaN q (a quotient's NaN is quiet) */
QV_FN2(qv_f, qv_max_f, vmaxnmq_f32) QV_FN2(qv_f, qv_min_f, vminnmq_f32)
QV_FN1(qv_f, qv_cvt_f, qv_i, vcvtq_f32_s32) QV_FN1(qv_i, qv_cvtt_i, qv_f, vcvtq_s32_f32) QV_FN1(qv_i, qv_round_i, qv_f, vcvtnq_s32_f32)
QV_FN1(qv_f, qv_cast_f, qv_i, vreinterpretq_f32_s32) QV_FN1(qv_i, qv_cast_i, qv_f, vreinterpretq_s32_f32)
static inline qv_i qv_shl(qv_i a, int c) { return QV_S32(vshlq_u32(QV_U32(a), vdupq_n_s32(c))); }
static inline qv_i qv_srl(qv_i a, int c) { return QV_S32(vshlq_u32(QV_U32(a), vdupq_n_s32(-c))); }
static inline qv_m qv_eq_i(qv_i a, qv_i b) { return QV_S32(vceqq_s32(a, b)); }
static inline qv_m qv_gt_i(qv_i a, qv_i b) { return QV_S32(vcgtq_s32(a, b)); }
static inline qv_i qv_sel(qv_m m, qv_i a, qv_i b) { return vbslq_s32(QV_U32(m), a, b); }
static inline qv_f qv_loadu_f(const float *p) { return vld1q_f32(p); }
static inline void qv_storeu_f(float *p, qv_f v) { vst1q_f32(p, v); }
static inline void qv_bytes16(uint8x16_t b, qv_i o[4])
{
    uint16x8_t lo = vmovl_u8(vget_low_u8(b)), hi = vmovl_u8(vget_high_u8(b));
    o[0] = QV_S32(vmovl_u16(vget_low_u16(lo)));
    o[1] = QV_S32(vmovl_u16(vget_high_u16(lo)));
    o[2] = QV_S32(vmovl_u16(vget_low_u16(hi)));
    o[3] = QV_S32(vmovl_u16(vget_high_u16(hi)));
}
static inline void qv_u8(const uint8_t *b, qv_i o[4]) { qv_bytes16(vld1q_u8(b), o); }
static inline void qv_nib(const uint8_t *b, qv_i o[4])
{
    uint8x8_t v = vld1_u8(b); /* 8 bytes: 16 nibbles */
    uint8x8x2_t z = vzip_u8(vand_u8(v, vdup_n_u8(0x0f)), vshr_n_u8(v, 4));
    qv_bytes16(vcombine_u8(z.val[0], z.val[1]), o);
}
static inline uint16x8_t qv_halves8(qv_i a, qv_i b) /* the low halves of 8 lanes */
{
    return vcombine_u16(vmovn_u32(QV_U32(a)), vmovn_u32(QV_U32(b)));
}
static inline uint8x16_t qv_low_bytes(const qv_i c[4])
{
    return vcombine_u8(vmovn_u16(qv_halves8(c[0], c[1])), vmovn_u16(qv_halves8(c[2], c[3])));
}
static inline void qv_store_u8(uint8_t *y, const qv_i c[4]) { vst1q_u8(y, qv_low_bytes(c)); }
static inline void qv_store_nib(uint8_t *y, const qv_i c[4]) /* 16 codes, two a byte, low nibble first */
{
    uint16x8_t w = vreinterpretq_u16_u8(qv_low_bytes(c));
    w = vorrq_u16(vandq_u16(w, vdupq_n_u16(0x0f)), vandq_u16(vshrq_n_u16(w, 4), vdupq_n_u16(0xf0)));
    vst1_u8(y, vmovn_u16(w));
}
static inline void qv_store_u16(uint16_t *y, const qv_i h[4])
{
    vst1q_u16(y, qv_halves8(h[0], h[1]));
    vst1q_u16(y + 8, qv_halves8(h[2], h[3]));
}
#define QV_F16_STORE
static inline void qv_store_f16(uint16_t *y, const qv_f v[4])
{
    for (int k = 0; k < 4; k++)
        vst1_u16(y + 4 * k, vreinterpret_u16_f16(vcvt_f16_f32(v[k])));
}
#endif
