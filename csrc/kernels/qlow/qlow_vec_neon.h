/* qlow_body.h's vocabulary on NEON (AArch64): 4 lanes. */
#ifndef SIMDOPS_QLOW_VEC_NEON_H
#define SIMDOPS_QLOW_VEC_NEON_H
#include <arm_neon.h>

#define QV_W 4
typedef int32x4_t qv_i;
typedef float32x4_t qv_f;
static inline qv_i qv_set1_i(int32_t v) { return vdupq_n_s32(v); }
static inline qv_f qv_set1_f(float v) { return vdupq_n_f32(v); }
static inline qv_i qv_and(qv_i a, qv_i b) { return vandq_s32(a, b); }
static inline qv_i qv_or(qv_i a, qv_i b) { return vorrq_s32(a, b); }
static inline qv_i qv_xor(qv_i a, qv_i b) { return veorq_s32(a, b); }
static inline qv_i qv_add_i(qv_i a, qv_i b) { return vaddq_s32(a, b); }
static inline qv_i qv_sub_i(qv_i a, qv_i b) { return vsubq_s32(a, b); }
static inline qv_i qv_shl(qv_i a, int c) { return vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(a), vdupq_n_s32(c))); }
static inline qv_i qv_eq_i(qv_i a, qv_i b) { return vreinterpretq_s32_u32(vceqq_s32(a, b)); }
static inline qv_i qv_gt_i(qv_i a, qv_i b) { return vreinterpretq_s32_u32(vcgtq_s32(a, b)); }
static inline qv_i qv_sel(qv_i m, qv_i a, qv_i b) { return vbslq_s32(vreinterpretq_u32_s32(m), a, b); }
static inline qv_f qv_cvt_f(qv_i a) { return vcvtq_f32_s32(a); }
static inline qv_f qv_cast_f(qv_i a) { return vreinterpretq_f32_s32(a); }
static inline qv_i qv_cast_i(qv_f a) { return vreinterpretq_s32_f32(a); }
static inline qv_f qv_sub_f(qv_f a, qv_f b) { return vsubq_f32(a, b); }
static inline qv_f qv_mul_f(qv_f a, qv_f b) { return vmulq_f32(a, b); }
static inline qv_f qv_loadu_f(const float *p) { return vld1q_f32(p); }
static inline void qv_storeu_f(float *p, qv_f v) { vst1q_f32(p, v); }
static inline void qv_bytes16(uint8x16_t b, qv_i o[4])
{
    uint16x8_t lo = vmovl_u8(vget_low_u8(b)), hi = vmovl_u8(vget_high_u8(b));
    o[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo)));
    o[1] = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(lo)));
    o[2] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi)));
    o[3] = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(hi)));
}
static inline void qv_u8x4(const uint8_t *b, qv_i o[4]) { qv_bytes16(vld1q_u8(b), o); }
static inline void qv_nib4(const uint8_t *b, qv_i o[4])
{
    uint8x8_t v = vld1_u8(b); /* 8 bytes: 16 nibbles */
    uint8x8x2_t z = vzip_u8(vand_u8(v, vdup_n_u8(0x0f)), vshr_n_u8(v, 4));
    qv_bytes16(vcombine_u8(z.val[0], z.val[1]), o);
}
#endif
