/* gemmlowp's fixed-point helpers as ACL uses them (docs/semantics.md, requant), exact in
 * int64. */
#ifndef SIMDOPS_FIXEDPOINT_H
#define SIMDOPS_FIXEDPOINT_H

#include <stdint.h>

static inline int32_t simdops_wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* Saturating rounding doubling high multiply: round(a * b / 2^31), ties up;
 * the one overflowing case (INT32_MIN * INT32_MIN) saturates. */
static inline int32_t simdops_srdhm(int32_t a, int32_t b)
{
    int64_t ab;
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    ab = (int64_t)a * (int64_t)b + ((int64_t)1 << 30);
    /* floor division by 2^31: arithmetic shift of a signed value */
    return (int32_t)(ab >= 0 ? ab >> 31 : -((-ab + ((int64_t)1 << 31) - 1) >> 31));
}

/* Rounding divide by 2^e, ties away from zero, e in [0, 31]. */
static inline int32_t simdops_rdbpot(int32_t x, int e)
{
    int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (remainder > threshold ? 1 : 0);
}

/* The whole per-element requant formula of docs/semantics.md (left_shift/right_shift form). */
static inline int32_t simdops_requant_one(int32_t a, int32_t multiplier, int left_shift,
                                          int right_shift, int32_t offset, int32_t lo, int32_t hi)
{
    int32_t shifted = simdops_wrap32((int64_t)((uint64_t)(uint32_t)a << left_shift));
    int32_t q = simdops_rdbpot(simdops_srdhm(shifted, multiplier), right_shift);
    int32_t r = simdops_wrap32((int64_t)q + offset);
    return r < lo ? lo : (r > hi ? hi : r);
}

#endif
