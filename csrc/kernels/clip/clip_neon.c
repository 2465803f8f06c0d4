/* clip kernels for NEON (AArch64 Advanced SIMD). Same results as
 * clip_scalar.c bit for bit: t = hi < x ? hi : x; y = lo > t ? lo : t. The
 * integer and float kinds come from the shared body (clip_body.h over
 * vec/neon.h); here float16 through float32 and integer ScaleBias. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_NEON
#include "core/fp16.h"
#define SIMDOPS_TIER neon
#include "kernels/vec/neon.h"
#include "kernels/clip/clip_body.h"

/* float16: compare widened values, output the bits of the chosen operand
 * (g itself, or the half bits of max / min), as clip_scalar.c does. */
static inline uint16x8_t f16_clip_v(uint16x8_t g, float32x4_t lo, float32x4_t hi,
                                    uint16x8_t lo_h, uint16x8_t hi_h)
{
    float32x4_t a = simdops_f16_lo(g), b = simdops_f16_hi(g);
    uint32x4_t ua = vcltq_f32(hi, a), ub = vcltq_f32(hi, b);
    uint32x4_t la = vcgtq_f32(lo, vbslq_f32(ua, hi, a)), lb = vcgtq_f32(lo, vbslq_f32(ub, hi, b));
    uint16x8_t t = vbslq_u16(simdops_mask32to16(ua, ub), hi_h, g);
    return vbslq_u16(simdops_mask32to16(la, lb), lo_h, t);
}

#define F16_CLIP_SETUP                                                            \
    const float32x4_t lo = vdupq_n_f32(p->min.f32), hi = vdupq_n_f32(p->max.f32); \
    const uint16x8_t lo_h = vdupq_n_u16(simdops_f32_to_f16(p->min.f32));          \
    const uint16x8_t hi_h = vdupq_n_u16(simdops_f32_to_f16(p->max.f32))

static void f16_clip__neon(const void *x, void *y, size_t n, const simdops_clip_params *p)
{
    F16_CLIP_SETUP;
#define OP(v) f16_clip_v(v, lo, hi, lo_h, hi_h)
    SIMDOPS_NEON_MAP4(uint16x8_t, simdops_ld_u16, simdops_st_u16, 2, x, y, n, OP);
#undef OP
}

/* float16: g = half(fl32(fl32(x*s) + b)), then clip g as above. */
static inline uint16x8_t f16_sb_v(uint16x8_t h, float32x4_t s, float32x4_t b)
{
    float32x4_t lo = vaddq_f32(vmulq_f32(simdops_f16_lo(h), s), b);
    float32x4_t hi = vaddq_f32(vmulq_f32(simdops_f16_hi(h), s), b);
    return simdops_f32x2_to_f16(lo, hi);
}

static void f16_clip_scale_bias__neon(const void *x, void *y, size_t n,
                                      const simdops_clip_params *p)
{
    F16_CLIP_SETUP;
    const float32x4_t s = vdupq_n_f32(p->scale), b = vdupq_n_f32(p->bias);
#define OP(v) f16_clip_v(f16_sb_v(v, s, b), lo, hi, lo_h, hi_h)
    SIMDOPS_NEON_MAP4(uint16x8_t, simdops_ld_u16, simdops_st_u16, 2, x, y, n, OP);
#undef OP
}

/* Integers with ScaleBias: fl64(fl64(x*s) + b), then FCVTZS/FCVTZU truncate
 * toward zero and saturate to 64 bits, and saturating narrows bring it to the
 * type: the same as clamping in double and truncating (the bounds are
 * integers). x*s+b is finite: s, b finite (checked when params are made). */
static inline int32x4_t sb_s32(int32x4_t x, float64x2_t s, float64x2_t b)
{
    float64x2_t l = vcvtq_f64_s64(vmovl_s32(vget_low_s32(x)));
    float64x2_t h = vcvtq_f64_s64(vmovl_high_s32(x));
    l = vaddq_f64(vmulq_f64(l, s), b);
    h = vaddq_f64(vmulq_f64(h, s), b);
    return vcombine_s32(vqmovn_s64(vcvtq_s64_f64(l)), vqmovn_s64(vcvtq_s64_f64(h)));
}

static inline uint32x4_t sb_u32(uint32x4_t x, float64x2_t s, float64x2_t b)
{
    float64x2_t l = vcvtq_f64_u64(vmovl_u32(vget_low_u32(x)));
    float64x2_t h = vcvtq_f64_u64(vmovl_high_u32(x));
    l = vaddq_f64(vmulq_f64(l, s), b);
    h = vaddq_f64(vmulq_f64(h, s), b);
    return vcombine_u32(vqmovn_u64(vcvtq_u64_f64(l)), vqmovn_u64(vcvtq_u64_f64(h)));
}

/* 8/16-bit lanes widened to int32 (exact), through sb_s32, then narrowed
 * with saturation. */
static inline int16x8_t sb_s16(int16x8_t x, float64x2_t s, float64x2_t b)
{
    int32x4_t l = sb_s32(vmovl_s16(vget_low_s16(x)), s, b);
    int32x4_t h = sb_s32(vmovl_high_s16(x), s, b);
    return vcombine_s16(vqmovn_s32(l), vqmovn_s32(h));
}

static inline uint16x8_t sb_u16(uint16x8_t x, float64x2_t s, float64x2_t b)
{
    int32x4_t l = sb_s32(vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(x))), s, b);
    int32x4_t h = sb_s32(vreinterpretq_s32_u32(vmovl_high_u16(x)), s, b);
    return vcombine_u16(vqmovun_s32(l), vqmovun_s32(h));
}

static inline int8x16_t sb_s8(int8x16_t x, float64x2_t s, float64x2_t b)
{
    int16x8_t l = sb_s16(vmovl_s8(vget_low_s8(x)), s, b);
    int16x8_t h = sb_s16(vmovl_high_s8(x), s, b);
    return vcombine_s8(vqmovn_s16(l), vqmovn_s16(h));
}

static inline uint8x16_t sb_u8(uint8x16_t x, float64x2_t s, float64x2_t b)
{
    /* widened u8 fits int16; the int16 result saturates to [0, 255] */
    int16x8_t l = sb_s16(vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(x))), s, b);
    int16x8_t h = sb_s16(vreinterpretq_s16_u16(vmovl_high_u8(x)), s, b);
    return vcombine_u8(vqmovun_s16(l), vqmovun_s16(h));
}

#define CLIP_INT_SB(name, SUF, VT, field, ESIZE, MAP)                                          \
    static void name(const void *x, void *y, size_t n, const simdops_clip_params *p)           \
    {                                                                                          \
        const VT lo = vdupq_n_##SUF(p->min.field), hi = vdupq_n_##SUF(p->max.field);           \
        const float64x2_t s = vdupq_n_f64((double)p->scale), b = vdupq_n_f64((double)p->bias); \
        MAP(VT, simdops_ld_##SUF, simdops_st_##SUF, ESIZE, x, y, n, OP);                       \
    }
#define OP(v) vmaxq_u8(lo, vminq_u8(hi, sb_u8(v, s, b)))
CLIP_INT_SB(u8_clip_scale_bias__neon, u8, uint8x16_t, u8, 1, SIMDOPS_NEON_MAP1)
#undef OP
#define OP(v) vmaxq_s8(lo, vminq_s8(hi, sb_s8(v, s, b)))
CLIP_INT_SB(i8_clip_scale_bias__neon, s8, int8x16_t, i8, 1, SIMDOPS_NEON_MAP1)
#undef OP
#define OP(v) vmaxq_u16(lo, vminq_u16(hi, sb_u16(v, s, b)))
CLIP_INT_SB(u16_clip_scale_bias__neon, u16, uint16x8_t, u16, 2, SIMDOPS_NEON_MAP1)
#undef OP
#define OP(v) vmaxq_s16(lo, vminq_s16(hi, sb_s16(v, s, b)))
CLIP_INT_SB(i16_clip_scale_bias__neon, s16, int16x8_t, i16, 2, SIMDOPS_NEON_MAP1)
#undef OP
#define OP(v) vmaxq_u32(lo, vminq_u32(hi, sb_u32(v, s, b)))
CLIP_INT_SB(u32_clip_scale_bias__neon, u32, uint32x4_t, u32, 4, SIMDOPS_NEON_MAP4)
#undef OP
#define OP(v) vmaxq_s32(lo, vminq_s32(hi, sb_s32(v, s, b)))
CLIP_INT_SB(i32_clip_scale_bias__neon, s32, int32x4_t, i32, 4, SIMDOPS_NEON_MAP4)
#undef OP

SIMDOPS_DEFINE_REGISTER(clip, CLIP_EVERY_KERNEL)
#else
SIMDOPS_TIER_NOT_COMPILED(clip, neon)
#endif
