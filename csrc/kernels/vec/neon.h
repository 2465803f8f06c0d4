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
#include "kernels/vec/vec_parts.h"

#define VEC_NEON_OP(op, SUF) v##op##q_##SUF
#define VEC_NEON_CMP(SUF, a, b, pred) vc##pred##q_##SUF(a, b)

/* tails through a zeroed stack buffer (vec_parts.h) */
#define VEC_NEON_KIND(K, SUF, V)                                                               \
    VEC_BUFFER_PARTS(vec_neon_##K, V, 16, simdops_ld_##SUF, simdops_st_##SUF)                  \
    VEC_KIND(K, V, 16, simdops_ld_##SUF, simdops_st_##SUF, vec_neon_##K##_load_part,           \
             vec_neon_##K##_store_part, VEC_SAME_BITS, VEC_SAME_BITS, vdupq_n_##SUF)

/* Integers up to 32 bits: min and max are exactly the two selects. */
#define VEC_NEON_INT(K, SUF, V) VEC_NEON_KIND(K, SUF, V) VEC_MINMAX(K, VEC_NEON_OP, SUF)
/* 64-bit integers and floats: a < b ? a : b and a > b ? a : b as written
 * (a NaN fails the compare and b is taken). */
#define VEC_NEON_SELECT_MINMAX(K, SUF, V)                                                      \
    VEC_NEON_KIND(K, SUF, V)                                                                   \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return vbslq_##SUF(vcltq_##SUF(a, b), a, b); } \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return vbslq_##SUF(vcgtq_##SUF(a, b), a, b); }
/* kind, lanes, vector type */
#define VEC_NEON_KINDS(INT, SELECT)                                                            \
    INT(u8, u8, uint8x16_t) INT(i8, s8, int8x16_t) INT(u16, u16, uint16x8_t)                   \
    INT(i16, s16, int16x8_t) INT(u32, u32, uint32x4_t) INT(i32, s32, int32x4_t)                \
    SELECT(u64, u64, uint64x2_t) SELECT(i64, s64, int64x2_t) SELECT(f32, f32, float32x4_t)     \
    SELECT(f64, f64, float64x2_t)
VEC_NEON_KINDS(VEC_NEON_INT, VEC_NEON_SELECT_MINMAX)
#undef VEC_NEON_KINDS
#undef VEC_NEON_SELECT_MINMAX
#undef VEC_NEON_INT
#undef VEC_NEON_KIND

/* Float kinds: masks are all-ones lanes of the same width. */
#define VEC_NEON_FLOAT(K, SUF, USUF, M)                                                        \
    typedef M vmask_##K;                                                                       \
    VEC_FLOAT_ARITH(K, VEC_NEON_OP, VEC_NEON_CMP, SUF)                                         \
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

#define VEC_MINMAX_KINDS VEC_ALL_KINDS

#endif
