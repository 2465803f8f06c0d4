/* Quantized binary ops for NEON (AArch64), 8-bit types: the shared body
 * (qbinary_body.h) over 4-lane int32 vectors, 16 elements a step. SRDHM is
 * sqrdmulh (gemmlowp's definition, its saturating case included); shifts by a
 * uniform count are sshl by a vector of +-e. The float steps round as the
 * scalar element does in every FPCR mode: the multiply and add (unfused:
 * -ffp-contract=off) and ONNX Runtime's two fused multiply-adds (fmla: the
 * scalar element's fmaf is fmadd) in FPCR's mode, the conversion fcvtns
 * (nearest even), mended to INT32_MIN for NaN and values from 2^31 (fcvtns
 * saturates; qb_cvt_rne gives cvtps2dq's INT32_MIN). Narrowing: sqxtn to
 * int16, the clamp there (the bounds lie inside the type), sqxtn / sqxtun.
 * int16 inherits the scalar kernels. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_NEON
#include <arm_neon.h>

#define SIMDOPS_TIER neon

typedef int32x4_t qv_i32;
typedef int16x8_t qv_b;
typedef float32x4_t qv_f32;
typedef int32x4_t qv_cnt;
typedef float32x4_t qv_ort;
#define QV_LANES 4

static inline qv_i32 qv_set1(int32_t v) { return vdupq_n_s32(v); }
static inline qv_b qv_set1_b(int v) { return vdupq_n_s16((int16_t)v); }
static inline qv_f32 qv_set1_f(float v) { return vdupq_n_f32(v); }
static inline qv_ort qv_ort_set1(float v) { return vdupq_n_f32(v); }
static inline qv_cnt qv_cnt_left(int e) { return vdupq_n_s32(e); }
static inline qv_cnt qv_cnt_right(int e) { return vdupq_n_s32(-e); }
static inline qv_i32 qv_add(qv_i32 a, qv_i32 b) { return vaddq_s32(a, b); }
static inline qv_i32 qv_sub(qv_i32 a, qv_i32 b) { return vsubq_s32(a, b); }
static inline qv_i32 qv_and(qv_i32 a, qv_i32 b) { return vandq_s32(a, b); }
static inline qv_i32 qv_mullo(qv_i32 a, qv_i32 b) { return vmulq_s32(a, b); }
static inline qv_i32 qv_sll(qv_i32 x, qv_cnt e) { return vshlq_s32(x, e); }
static inline qv_i32 qv_sra(qv_i32 x, qv_cnt e) { return vshlq_s32(x, e); }
static inline qv_i32 qv_srl31(qv_i32 x) { return vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(x), 31)); }
static inline qv_i32 qv_add_if_gt(qv_i32 s, qv_i32 r, qv_i32 t) { return vsubq_s32(s, vreinterpretq_s32_u32(vcgtq_s32(r, t))); }
static inline qv_i32 qv_srdhm(qv_i32 x, qv_i32 m) { return vqrdmulhq_s32(x, m); }
static inline qv_f32 qv_cvt_f(qv_i32 x) { return vcvtq_f32_s32(x); }
static inline qv_f32 qv_mul_f(qv_f32 a, qv_f32 b) { return vmulq_f32(a, b); }
static inline qv_f32 qv_add_f(qv_f32 a, qv_f32 b) { return vaddq_f32(a, b); }
static inline qv_i32 qv_cvt_rne(qv_f32 v)
{
    return vbslq_s32(vcltq_f32(v, vdupq_n_f32(0x1p31f)), vcvtnq_s32_f32(v), vdupq_n_s32(INT32_MIN));
}
static inline qv_i32 qv_ort_add(qv_i32 a, qv_i32 b, qv_ort ra, qv_ort rb, qv_ort fixed)
{
    float32x4_t t = vfmaq_f32(fixed, vcvtq_f32_s32(b), rb);
    return qv_cvt_rne(vfmaq_f32(t, vcvtq_f32_s32(a), ra));
}
#define QV_ORT_VECTORS(p) 1
#define QV_FP_VECTORS(p) 1

static inline void qv_widen4_i8(const int8_t *s, qv_i32 v[4])
{
    int8x16_t x = vld1q_s8(s);
    int16x8_t lo = vmovl_s8(vget_low_s8(x)), hi = vmovl_high_s8(x);
    v[0] = vmovl_s16(vget_low_s16(lo));
    v[1] = vmovl_high_s16(lo);
    v[2] = vmovl_s16(vget_low_s16(hi));
    v[3] = vmovl_high_s16(hi);
}
static inline void qv_widen4_u8(const uint8_t *s, qv_i32 v[4])
{
    uint8x16_t x = vld1q_u8(s);
    uint16x8_t lo = vmovl_u8(vget_low_u8(x)), hi = vmovl_high_u8(x);
    v[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo)));
    v[1] = vreinterpretq_s32_u32(vmovl_high_u16(lo));
    v[2] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi)));
    v[3] = vreinterpretq_s32_u32(vmovl_high_u16(hi));
}
/* int32 -> int16 saturated, clamped to [lo, hi] (inside the type) */
static inline int16x8_t qb_narrow16(qv_i32 v0, qv_i32 v1, qv_b lo, qv_b hi)
{
    return vminq_s16(vmaxq_s16(vqmovn_high_s32(vqmovn_s32(v0), v1), lo), hi);
}
static inline void qv_narrow4_i8(int8_t *d, qv_i32 v0, qv_i32 v1, qv_i32 v2, qv_i32 v3, qv_b lo, qv_b hi)
{
    vst1q_s8(d, vqmovn_high_s16(vqmovn_s16(qb_narrow16(v0, v1, lo, hi)), qb_narrow16(v2, v3, lo, hi)));
}
static inline void qv_narrow4_u8(uint8_t *d, qv_i32 v0, qv_i32 v1, qv_i32 v2, qv_i32 v3, qv_b lo, qv_b hi)
{
    vst1q_u8(d, vqmovun_high_s16(vqmovun_s16(qb_narrow16(v0, v1, lo, hi)), qb_narrow16(v2, v3, lo, hi)));
}

#include "qbinary_body.h"
SIMDOPS_DEFINE_REGISTER(qbinary, QBINARY_BODY_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qbinary, neon)
#endif
