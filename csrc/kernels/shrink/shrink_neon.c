/* shrink kernels for NEON (AArch64 Advanced SIMD), bit for bit those of
 * shrink_scalar.c: both branches computed, then selected by the compares.
 * float32 and float64 come from the shared body (shrink_body.h). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_NEON
#define SIMDOPS_TIER neon
#include "kernels/vec/neon.h"
#include "kernels/shrink/shrink_body.h"
#include "kernels/shrink/shrink_int_form.h"

/* Integers: x > thr -> clamp(x, sub_lo, sub_hi) - B, x < neg_thr ->
 * clamp(x, add_lo, add_hi) + B, else 0; wrapping add/sub never wrap once x is
 * clamped (see simdops_shrink_params; lo <= hi there). */
#define SHRINK_INT(name, SUF, VT, field, ESIZE)                                           \
    static inline VT name##_v(VT v, const VT *c)                                          \
    {                                                                                     \
        VT sub = vsubq_##SUF(vminq_##SUF(vmaxq_##SUF(v, c[3]), c[4]), c[2]);              \
        VT add = vaddq_##SUF(vminq_##SUF(vmaxq_##SUF(v, c[5]), c[6]), c[2]);              \
        VT addz = vbslq_##SUF(vcltq_##SUF(v, c[1]), add, vdupq_n_##SUF(0));               \
        return vbslq_##SUF(vcgtq_##SUF(v, c[0]), sub, addz);                              \
    }                                                                                     \
    static void name(const void *x, void *y, size_t n, const simdops_shrink_params *p)    \
    {                                                                                     \
        const VT c[7] = {vdupq_n_##SUF(p->thr.field),    vdupq_n_##SUF(p->neg_thr.field), \
                         vdupq_n_##SUF(p->bias.field),   vdupq_n_##SUF(p->sub_lo.field),  \
                         vdupq_n_##SUF(p->sub_hi.field), vdupq_n_##SUF(p->add_lo.field),  \
                         vdupq_n_##SUF(p->add_hi.field)};                                 \
        SIMDOPS_NEON_MAP4_FN(VT, simdops_ld_##SUF, simdops_st_##SUF, ESIZE, x, y, n,      \
                             name##_v, c);                                                \
    }

/* one kernel per row of shrink_int_form.h's SHRINK_INT_TYPES (every tier's list), with its
 * type's intrinsic suffix SUF_<tag> and vector type VT_<tag> */
#define SUF_u8 u8
#define SUF_i8 s8
#define SUF_u16 u16
#define SUF_i16 s16
#define SUF_u32 u32
#define SUF_i32 s32
#define VT_u8 uint8x16_t
#define VT_i8 int8x16_t
#define VT_u16 uint16x8_t
#define VT_i16 int16x8_t
#define VT_u32 uint32x4_t
#define VT_i32 int32x4_t
/* the maps expanded before SHRINK_INT pastes */
#define SHRINK_INT_EXPANDED(name, SUF, VT, field, ESIZE) SHRINK_INT(name, SUF, VT, field, ESIZE)
#define SHRINK_INT_ROW(C, tag, T, UT, tmin, tmax, esize) \
    SHRINK_INT_EXPANDED(SIMDOPS_KERNEL_NAME(tag, shrink), SUF_##tag, VT_##tag, tag, esize)
SHRINK_INT_TYPES(SHRINK_INT_ROW, _)
#undef SHRINK_INT

/* float16: compares and x -/+ bias in float32, one rounding back to half
 * (as shrink_scalar.c); a NaN keeps the input's half bits. */
static inline uint16x8_t f16_shrink_v(uint16x8_t h, float32x4_t thr, float32x4_t neg_thr,
                                      float32x4_t b)
{
    float32x4_t lo = simdops_f16_lo(h), hi = simdops_f16_hi(h);
    uint16x8_t gt = simdops_mask32to16(vcgtq_f32(lo, thr), vcgtq_f32(hi, thr));
    uint16x8_t lt = simdops_mask32to16(vcltq_f32(lo, neg_thr), vcltq_f32(hi, neg_thr));
    uint16x8_t num = simdops_mask32to16(vceqq_f32(lo, lo), vceqq_f32(hi, hi));
    uint16x8_t sub = simdops_f32x2_to_f16(vsubq_f32(lo, b), vsubq_f32(hi, b));
    uint16x8_t add = simdops_f32x2_to_f16(vaddq_f32(lo, b), vaddq_f32(hi, b));
    return vbslq_u16(gt, sub, vbslq_u16(lt, add, vbicq_u16(h, num)));
}

static void f16_shrink__neon(const void *x, void *y, size_t n, const simdops_shrink_params *p)
{
    const float32x4_t thr = vdupq_n_f32(p->thr.f32), neg_thr = vdupq_n_f32(p->neg_thr.f32);
    const float32x4_t b = vdupq_n_f32(p->bias.f32);
    SIMDOPS_NEON_MAP4_FN(uint16x8_t, simdops_ld_u16, simdops_st_u16, 2, x, y, n, f16_shrink_v, thr,
                         neg_thr, b);
}

#define SHRINK_KERNELS(X)                                                                         \
    SHRINK_BODY_KERNELS(X) X(shrink, f16) SHRINK_INT_TYPES(SHRINK_INT_ENTRY, X)
SIMDOPS_DEFINE_REGISTER(shrink, SHRINK_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(shrink, neon)
#endif
