/* The vector vocabulary of vec_map.h for NEON (AArch64 Advanced SIMD):
 * 16-byte vectors loaded and stored as bytes (no element alignment is ever
 * promised), tails through a zeroed stack buffer, no alignment head. fmin/
 * fmax return NaN when either operand is, not the second operand, so the
 * float min/max are the compare and select they stand for; 64-bit integer
 * lanes have no min/max instruction and do the same. Include only inside
 * #if SIMDOPS_COMPILE_NEON. */
#ifndef SIMDOPS_VEC_NEON_H
#define SIMDOPS_VEC_NEON_H

#include "kernels/vec/neon_util.h"
#include "kernels/vec/vec_map.h"

#define VEC_NEON_KIND(K, SUF, V)                                                               \
    typedef V vec_##K;                                                                         \
    enum { VEC_LANES_##K = 16 / sizeof(vec_elem_##K) };                                        \
    static inline vec_##K vec_loadu_##K(const void *p) { return simdops_ld_##SUF(p); }         \
    static inline void vec_storeu_##K(void *p, vec_##K v) { simdops_st_##SUF(p, v); }          \
    static inline vec_##K vec_load_tail_##K(const void *p, size_t k)                           \
    {                                                                                          \
        uint8_t b[16] = {0};                                                                   \
        memcpy(b, p, k * sizeof(vec_elem_##K));                                                \
        return simdops_ld_##SUF(b);                                                            \
    }                                                                                          \
    static inline void vec_store_tail_##K(void *p, vec_##K v, size_t k)                        \
    {                                                                                          \
        uint8_t b[16];                                                                         \
        simdops_st_##SUF(b, v);                                                                \
        memcpy(p, b, k * sizeof(vec_elem_##K));                                                \
    }                                                                                          \
    static inline vec_##K vec_set1_##K(vec_elem_##K e) { return vdupq_n_##SUF(e); }
VEC_NEON_KIND(u8, u8, uint8x16_t)
VEC_NEON_KIND(i8, s8, int8x16_t)
VEC_NEON_KIND(u16, u16, uint16x8_t)
VEC_NEON_KIND(i16, s16, int16x8_t)
VEC_NEON_KIND(u32, u32, uint32x4_t)
VEC_NEON_KIND(i32, s32, int32x4_t)
VEC_NEON_KIND(u64, u64, uint64x2_t)
VEC_NEON_KIND(i64, s64, int64x2_t)
VEC_NEON_KIND(f32, f32, float32x4_t)
VEC_NEON_KIND(f64, f64, float64x2_t)
#undef VEC_NEON_KIND

/* Integers up to 32 bits: min and max are exactly the two selects. */
#define VEC_NEON_MINMAX(K, SUF)                                                                \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return vminq_##SUF(a, b); }     \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return vmaxq_##SUF(a, b); }
VEC_NEON_MINMAX(u8, u8)
VEC_NEON_MINMAX(i8, s8)
VEC_NEON_MINMAX(u16, u16)
VEC_NEON_MINMAX(i16, s16)
VEC_NEON_MINMAX(u32, u32)
VEC_NEON_MINMAX(i32, s32)
#undef VEC_NEON_MINMAX

/* a < b ? a : b and a > b ? a : b as written: a NaN fails the compare and
 * b is taken. */
#define VEC_NEON_SELECT_MINMAX(K, SUF)                                                         \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return vbslq_##SUF(vcltq_##SUF(a, b), a, b); } \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return vbslq_##SUF(vcgtq_##SUF(a, b), a, b); }
VEC_NEON_SELECT_MINMAX(u64, u64)
VEC_NEON_SELECT_MINMAX(i64, s64)
VEC_NEON_SELECT_MINMAX(f32, f32)
VEC_NEON_SELECT_MINMAX(f64, f64)
#undef VEC_NEON_SELECT_MINMAX

/* Float kinds: masks are all-ones lanes of the same width. */
#define VEC_NEON_FLOAT(K, SUF, USUF, M)                                                        \
    typedef M vmask_##K;                                                                       \
    static inline vec_##K vec_add_##K(vec_##K a, vec_##K b) { return vaddq_##SUF(a, b); }     \
    static inline vec_##K vec_sub_##K(vec_##K a, vec_##K b) { return vsubq_##SUF(a, b); }     \
    static inline vec_##K vec_mul_##K(vec_##K a, vec_##K b) { return vmulq_##SUF(a, b); }     \
    static inline vmask_##K vec_gt_##K(vec_##K a, vec_##K b) { return vcgtq_##SUF(a, b); }    \
    static inline vmask_##K vec_lt_##K(vec_##K a, vec_##K b) { return vcltq_##SUF(a, b); }    \
    static inline vec_##K vec_nan_keep_##K(vec_##K a)                                          \
    {                                                                                          \
        return vreinterpretq_##SUF##_##USUF(                                                   \
            vbicq_##USUF(vreinterpretq_##USUF##_##SUF(a), vceqq_##SUF(a, a)));                 \
    }                                                                                          \
    static inline vec_##K vec_merge_##K(vmask_##K m, vec_##K v, vec_##K rest)                  \
    {                                                                                          \
        return vbslq_##SUF(m, v, rest);                                                        \
    }
VEC_NEON_FLOAT(f32, f32, u32, uint32x4_t)
VEC_NEON_FLOAT(f64, f64, u64, uint64x2_t)
#undef VEC_NEON_FLOAT

#define VEC_MINMAX_KINDS(X, a)                                                                 \
    X(u8, a) X(i8, a) X(u16, a) X(i16, a) X(u32, a) X(i32, a) X(u64, a) X(i64, a) X(f32, a)    \
    X(f64, a)
#define VEC_FLOAT_KINDS(X, a) X(f32, a) X(f64, a)

#endif
