/* QuantizeLinear / DequantizeLinear for NEON (AArch64): 16 elements a step.
 * fmax/fmin here return NaN for a NaN operand, so NaN is replaced by qlo with
 * a compare + select first; vcvtnq rounds to nearest even whatever FPCR says.
 * float16 goes through vcvt_f32_f16 / vcvt_f16_f32 (round to nearest even,
 * as F16C and the scalar conversion). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_NEON
#include <arm_neon.h>

#define SIMDOPS_TIER neon

#include "qlinear_element.h"
#include "qlinear_types.h"

static inline int32x4_t q4(float32x4_t q, float32x4_t lo, float32x4_t hi, int32x4_t zp)
{
    q = vbslq_f32(vcgeq_f32(q, lo), q, lo); /* NaN fails the compare: lo */
    q = vminq_f32(q, hi);
    return vaddq_s32(vcvtnq_s32_f32(q), zp);
}

static inline float32x4_t f16_round_trip(float32x4_t v) { return vcvt_f32_f16(vcvt_f16_f32(v)); }

static inline float32x4_t load_f32(const float *x) { return vld1q_f32(x); }
static inline float32x4_t load_f16(const uint16_t *x) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(x))); }

/* 16 int32 lanes in the type's range */
static inline void store_u8(uint8_t *y, int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d)
{
    int16x8_t ab = vcombine_s16(vqmovn_s32(a), vqmovn_s32(b));
    int16x8_t cd = vcombine_s16(vqmovn_s32(c), vqmovn_s32(d));
    vst1q_u8(y, vcombine_u8(vqmovun_s16(ab), vqmovun_s16(cd)));
}
static inline void store_i8(int8_t *y, int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d)
{
    int16x8_t ab = vcombine_s16(vqmovn_s32(a), vqmovn_s32(b));
    int16x8_t cd = vcombine_s16(vqmovn_s32(c), vqmovn_s32(d));
    vst1q_s8(y, vcombine_s8(vqmovn_s16(ab), vqmovn_s16(cd)));
}
static inline void store_u16(uint16_t *y, int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d)
{
    vst1q_u16(y, vcombine_u16(vqmovun_s32(a), vqmovun_s32(b)));
    vst1q_u16(y + 8, vcombine_u16(vqmovun_s32(c), vqmovun_s32(d)));
}
static inline void store_i16(int16_t *y, int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d)
{
    vst1q_s16(y, vcombine_s16(vqmovn_s32(a), vqmovn_s32(b)));
    vst1q_s16(y + 8, vcombine_s16(vqmovn_s32(c), vqmovn_s32(d)));
}

#define QUOTIENT_f32(v, p) ((v) / (p)->scale)
#define QUOTIENT_f16(v, p) qlinear_quotient_f16((v), (p))

#define QUANTIZE(XT, xname, T, tname)                                                           \
    static void SIMDOPS_KERNEL_NAME(tname, quantize_##xname)(const void *xv, void *yv, size_t n, \
                                                             const simdops_qlinear_params *p)  \
    {                                                                                          \
        const XT *x = (const XT *)xv;                                                          \
        T *y = (T *)yv;                                                                        \
        const float32x4_t s = vdupq_n_f32(p->scale), lo = vdupq_n_f32(p->qlo),                \
                          hi = vdupq_n_f32(p->qhi);                                            \
        const int32x4_t zp = vdupq_n_s32(p->zero_point);                                       \
        const int f16 = p->div_f16;                                                            \
        size_t i = 0;                                                                          \
        for (; i + 16 <= n; i += 16) {                                                         \
            float32x4_t v[4];                                                                  \
            int32x4_t r[4];                                                                    \
            for (int k = 0; k < 4; k++) {                                                      \
                v[k] = vdivq_f32(load_##xname(x + i + 4 * k), s);                              \
                if (f16)                                                                       \
                    v[k] = f16_round_trip(v[k]);                                               \
                r[k] = q4(v[k], lo, hi, zp);                                                   \
            }                                                                                  \
            store_##tname(y + i, r[0], r[1], r[2], r[3]);                                      \
        }                                                                                      \
        for (; i < n; i++)                                                                     \
            y[i] = (T)qlinear_quantize_one(QUOTIENT_##xname(x[i], p), p);                      \
    }

#define QUANTIZE_F32_F16(A, T, tname) QUANTIZE(float, f32, T, tname) QUANTIZE(uint16_t, f16, T, tname)
QL_QUANTIZED_TYPES(QUANTIZE_F32_F16, _)

/* 8 elements widened to two int32x4 */
static inline void widen_u8(const uint8_t *x, int32x4_t *a, int32x4_t *b)
{
    int16x8_t w = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(x)));
    *a = vmovl_s16(vget_low_s16(w));
    *b = vmovl_s16(vget_high_s16(w));
}
static inline void widen_i8(const int8_t *x, int32x4_t *a, int32x4_t *b)
{
    int16x8_t w = vmovl_s8(vld1_s8(x));
    *a = vmovl_s16(vget_low_s16(w));
    *b = vmovl_s16(vget_high_s16(w));
}
static inline void widen_u16(const uint16_t *x, int32x4_t *a, int32x4_t *b)
{
    uint16x8_t w = vld1q_u16(x);
    *a = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(w)));
    *b = vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(w)));
}
static inline void widen_i16(const int16_t *x, int32x4_t *a, int32x4_t *b)
{
    int16x8_t w = vld1q_s16(x);
    *a = vmovl_s16(vget_low_s16(w));
    *b = vmovl_s16(vget_high_s16(w));
}
static inline void widen_i32(const int32_t *x, int32x4_t *a, int32x4_t *b)
{
    *a = vld1q_s32(x);
    *b = vld1q_s32(x + 4);
}

static inline void put_f32(float *y, float32x4_t a, float32x4_t b)
{
    vst1q_f32(y, a);
    vst1q_f32(y + 4, b);
}
static inline void put_f16(uint16_t *y, float32x4_t a, float32x4_t b)
{
    vst1q_u16(y, vreinterpretq_u16_f16(vcombine_f16(vcvt_f16_f32(a), vcvt_f16_f32(b))));
}
#define ONE_f32(v) (v)
#define ONE_f16(v) simdops_f32_to_f16(v)

#define DEQUANTIZE(T, tname, YT, yname)                                                         \
    static void SIMDOPS_KERNEL_NAME(tname, dequantize_##yname)(const void *xv, void *yv,        \
                                                               size_t n,                      \
                                                               const simdops_qlinear_params *p) \
    {                                                                                          \
        const T *x = (const T *)xv;                                                            \
        YT *y = (YT *)yv;                                                                      \
        const float32x4_t s = vdupq_n_f32(p->scale);                                           \
        const int32x4_t zp = vdupq_n_s32(p->zero_point);                                       \
        size_t i = 0;                                                                          \
        for (; i + 8 <= n; i += 8) {                                                           \
            int32x4_t a, b;                                                                    \
            widen_##tname(x + i, &a, &b);                                                      \
            put_##yname(y + i, vmulq_f32(vcvtq_f32_s32(vsubq_s32(a, zp)), s),                  \
                        vmulq_f32(vcvtq_f32_s32(vsubq_s32(b, zp)), s));                        \
        }                                                                                      \
        for (; i < n; i++)                                                                     \
            y[i] = ONE_##yname(qlinear_dequantize_one((int32_t)x[i], p));                      \
    }

#define DEQUANTIZE_F32_F16(A, T, tname) DEQUANTIZE(T, tname, float, f32) DEQUANTIZE(T, tname, uint16_t, f16)
QL_DEQUANTIZED_TYPES(DEQUANTIZE_F32_F16, _)

SIMDOPS_DEFINE_REGISTER(qlinear, QLINEAR_KERNELS)

#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, neon)
#endif
