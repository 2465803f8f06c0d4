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
#define SB_32(VT, S) /* S: s for int32 lanes, u for uint32 */                            \
    static inline VT sb_##S##32(VT x, float64x2_t s, float64x2_t b)                           \
    {                                                                                          \
        float64x2_t l = vcvtq_f64_##S##64(vmovl_##S##32(vget_low_##S##32(x)));                \
        float64x2_t h = vcvtq_f64_##S##64(vmovl_high_##S##32(x));                             \
        l = vaddq_f64(vmulq_f64(l, s), b);                                                     \
        h = vaddq_f64(vmulq_f64(h, s), b);                                                     \
        return vcombine_##S##32(vqmovn_##S##64(vcvtq_##S##64_f64(l)),                         \
                                vqmovn_##S##64(vcvtq_##S##64_f64(h)));                        \
    }
SB_32(int32x4_t, s)
SB_32(uint32x4_t, u)
#undef SB_32

/* 16-bit lanes through sb_s32 and 8-bit lanes through sb_s16: each half
 * widened (exact; unsigned lanes fit the wider signed kind), through WIDE,
 * then narrowed with saturation (NARROW: vqmovn, or vqmovun to unsigned). */
#define SB_SAME(v) (v)
#define SB_THROUGH_WIDER(name, VT, SUF, WT, WIDE, AS_SIGNED, NARROW)           \
    static inline VT name(VT x, float64x2_t s, float64x2_t b)                 \
    {                                                                         \
        WT l = WIDE(AS_SIGNED(vmovl_##SUF(vget_low_##SUF(x))), s, b);         \
        WT h = WIDE(AS_SIGNED(vmovl_high_##SUF(x)), s, b);                    \
        return vcombine_##SUF(NARROW(l), NARROW(h));                          \
    }
SB_THROUGH_WIDER(sb_s16, int16x8_t, s16, int32x4_t, sb_s32, SB_SAME, vqmovn_s32)
SB_THROUGH_WIDER(sb_u16, uint16x8_t, u16, int32x4_t, sb_s32, vreinterpretq_s32_u32, vqmovun_s32)
SB_THROUGH_WIDER(sb_s8, int8x16_t, s8, int16x8_t, sb_s16, SB_SAME, vqmovn_s16)
/* widened u8 fits int16; the int16 result saturates to [0, 255] */
SB_THROUGH_WIDER(sb_u8, uint8x16_t, u8, int16x8_t, sb_s16, vreinterpretq_s16_u16, vqmovun_s16)
#undef SB_THROUGH_WIDER
#undef SB_SAME

/* Integer ScaleBias, then the clip to [lo, hi]; 8/16-bit lanes carry four
 * vectors per 16 bytes already, so they map without the 4x unroll. */
#define CLIP_INT_SB(name, SUF, VT, field, ESIZE, MAP)                                          \
    static inline VT name##_v(VT v, VT lo, VT hi, float64x2_t s, float64x2_t b)                \
    {                                                                                          \
        return vmaxq_##SUF(lo, vminq_##SUF(hi, sb_##SUF(v, s, b)));                            \
    }                                                                                          \
    static void name(const void *x, void *y, size_t n, const simdops_clip_params *p)           \
    {                                                                                          \
        const VT lo = vdupq_n_##SUF(p->min.field), hi = vdupq_n_##SUF(p->max.field);           \
        const float64x2_t s = vdupq_n_f64((double)p->scale), b = vdupq_n_f64((double)p->bias); \
        MAP(VT, simdops_ld_##SUF, simdops_st_##SUF, ESIZE, x, y, n, name##_v, lo, hi, s, b);   \
    }
CLIP_INT_SB(u8_clip_scale_bias__neon, u8, uint8x16_t, u8, 1, SIMDOPS_NEON_MAP1_FN)
CLIP_INT_SB(i8_clip_scale_bias__neon, s8, int8x16_t, i8, 1, SIMDOPS_NEON_MAP1_FN)
CLIP_INT_SB(u16_clip_scale_bias__neon, u16, uint16x8_t, u16, 2, SIMDOPS_NEON_MAP1_FN)
CLIP_INT_SB(i16_clip_scale_bias__neon, s16, int16x8_t, i16, 2, SIMDOPS_NEON_MAP1_FN)
CLIP_INT_SB(u32_clip_scale_bias__neon, u32, uint32x4_t, u32, 4, SIMDOPS_NEON_MAP4_FN)
CLIP_INT_SB(i32_clip_scale_bias__neon, s32, int32x4_t, i32, 4, SIMDOPS_NEON_MAP4_FN)
#undef CLIP_INT_SB

SIMDOPS_DEFINE_REGISTER(clip, CLIP_EVERY_KERNEL)
#else
SIMDOPS_TIER_NOT_COMPILED(clip, neon)
#endif
