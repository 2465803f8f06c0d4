/* Helpers shared by the NEON kernels (csrc/kernels/<op>/<op>_neon.c). Include
 * only inside #if SIMDOPS_COMPILE_NEON. */
#ifndef SIMDOPS_NEON_UTIL_H
#define SIMDOPS_NEON_UTIL_H

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* All loads and stores go through bytes: kernels get pointers of any
 * alignment, so no element alignment is ever promised to the compiler. */
#define SIMDOPS_NEON_LDST(SUF, VT)                                              \
    static inline VT simdops_ld_##SUF(const void *p)                            \
    {                                                                           \
        return vreinterpretq_##SUF##_u8(vld1q_u8((const uint8_t *)p));          \
    }                                                                           \
    static inline void simdops_st_##SUF(void *p, VT v)                          \
    {                                                                           \
        vst1q_u8((uint8_t *)p, vreinterpretq_u8_##SUF(v));                      \
    }
SIMDOPS_NEON_LDST(s8, int8x16_t)
SIMDOPS_NEON_LDST(u16, uint16x8_t)
SIMDOPS_NEON_LDST(s16, int16x8_t)
SIMDOPS_NEON_LDST(u32, uint32x4_t)
SIMDOPS_NEON_LDST(s32, int32x4_t)
SIMDOPS_NEON_LDST(u64, uint64x2_t)
SIMDOPS_NEON_LDST(s64, int64x2_t)
SIMDOPS_NEON_LDST(f32, float32x4_t)
SIMDOPS_NEON_LDST(f64, float64x2_t)
#undef SIMDOPS_NEON_LDST
static inline uint8x16_t simdops_ld_u8(const void *p) { return vld1q_u8((const uint8_t *)p); }
static inline void simdops_st_u8(void *p, uint8x16_t v) { vst1q_u8((uint8_t *)p, v); }

/* float16 <-> float32 with FCVTL/FCVTN: exact widening, RNE narrowing, NaN
 * payload kept and quieted -- the bits of csrc/core/fp16.h. */
static inline float32x4_t simdops_f16_lo(uint16x8_t h)
{
    return vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h)));
}
static inline float32x4_t simdops_f16_hi(uint16x8_t h)
{
    return vcvt_f32_f16(vreinterpret_f16_u16(vget_high_u16(h)));
}
static inline uint16x8_t simdops_f32x2_to_f16(float32x4_t lo, float32x4_t hi)
{
    return vcombine_u16(vreinterpret_u16_f16(vcvt_f16_f32(lo)),
                        vreinterpret_u16_f16(vcvt_f16_f32(hi)));
}

/* Lane masks resized: 32 -> 16 bits, 32 -> 64 bits (all-ones stays all-ones). */
static inline uint16x8_t simdops_mask32to16(uint32x4_t lo, uint32x4_t hi)
{
    return vcombine_u16(vmovn_u32(lo), vmovn_u32(hi));
}
static inline uint64x2_t simdops_mask32to64_lo(uint32x4_t m)
{
    return vreinterpretq_u64_s64(vmovl_s32(vget_low_s32(vreinterpretq_s32_u32(m))));
}
static inline uint64x2_t simdops_mask32to64_hi(uint32x4_t m)
{
    return vreinterpretq_u64_s64(vmovl_high_s32(vreinterpretq_s32_u32(m)));
}

/* y[i] = FN(x[i], ...) over n elements of ESIZE bytes, FN mapping one
 * 16-byte vector (and the constants after it) to one. UNROLL4: four vectors
 * per iteration, all loaded before any store (x may be y). The last partial
 * vector runs through a zeroed stack buffer, so it computes exactly what the
 * body does. */
#define SIMDOPS_NEON_MAP_IMPL(VT, LD, ST, ESIZE, xp, yp, count, UNROLL4, FN, ...)             \
    do {                                                                                      \
        const uint8_t *mx_ = (const uint8_t *)(xp);                                           \
        uint8_t *my_ = (uint8_t *)(yp);                                                       \
        size_t mn_ = (count);                                                                 \
        const size_t ml_ = 16 / (ESIZE);                                                      \
        if (UNROLL4) {                                                                        \
            for (; mn_ >= 4 * ml_; mn_ -= 4 * ml_, mx_ += 64, my_ += 64) {                    \
                VT a0_ = LD(mx_), a1_ = LD(mx_ + 16), a2_ = LD(mx_ + 32), a3_ = LD(mx_ + 48); \
                a0_ = FN(a0_, __VA_ARGS__);                                                   \
                a1_ = FN(a1_, __VA_ARGS__);                                                   \
                a2_ = FN(a2_, __VA_ARGS__);                                                   \
                a3_ = FN(a3_, __VA_ARGS__);                                                   \
                ST(my_, a0_);                                                                 \
                ST(my_ + 16, a1_);                                                            \
                ST(my_ + 32, a2_);                                                            \
                ST(my_ + 48, a3_);                                                            \
            }                                                                                 \
        }                                                                                     \
        for (; mn_ >= ml_; mn_ -= ml_, mx_ += 16, my_ += 16) {                                \
            VT a_ = LD(mx_);                                                                  \
            a_ = FN(a_, __VA_ARGS__);                                                         \
            ST(my_, a_);                                                                      \
        }                                                                                     \
        if (mn_) {                                                                            \
            uint8_t b_[16];                                                                   \
            VT a_;                                                                            \
            memset(b_, 0, sizeof(b_));                                                        \
            memcpy(b_, mx_, mn_ * (ESIZE));                                                   \
            a_ = LD(b_);                                                                      \
            a_ = FN(a_, __VA_ARGS__);                                                         \
            ST(b_, a_);                                                                       \
            memcpy(my_, b_, mn_ * (ESIZE));                                                   \
        }                                                                                     \
    } while (0)
#define SIMDOPS_NEON_MAP4_FN(VT, LD, ST, ESIZE, xp, yp, count, ...)                           \
    SIMDOPS_NEON_MAP_IMPL(VT, LD, ST, ESIZE, xp, yp, count, 1, __VA_ARGS__)
/* For ops that already carry many independent vectors per 16 input bytes. */
#define SIMDOPS_NEON_MAP1_FN(VT, LD, ST, ESIZE, xp, yp, count, ...)                           \
    SIMDOPS_NEON_MAP_IMPL(VT, LD, ST, ESIZE, xp, yp, count, 0, __VA_ARGS__)
/* The same with OP(v) a macro that reads the caller's locals. */
#define SIMDOPS_NEON_APPLY_OP_(v, OP) OP(v)
#define SIMDOPS_NEON_MAP4(VT, LD, ST, ESIZE, xp, yp, count, OP)                               \
    SIMDOPS_NEON_MAP4_FN(VT, LD, ST, ESIZE, xp, yp, count, SIMDOPS_NEON_APPLY_OP_, OP)

#endif
