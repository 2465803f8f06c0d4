/* gemmlowp's fixed-point helpers as ACL uses them (docs/semantics.md, requant), exact in
 * int64. */
#ifndef SIMDOPS_FIXEDPOINT_H
#define SIMDOPS_FIXEDPOINT_H

#include <stdint.h>

static inline int32_t simdops_wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* >> of a negative signed value shifts arithmetically (implementation-defined in C;
 * GCC, Clang and MSVC do): the helpers below rely on it */
typedef char simdops_arithmetic_shift_check[((int64_t)-3 >> 1) == -2 && (-3 >> 1) == -2 ? 1 : -1];

/* Saturating rounding doubling high multiply: round(a * b / 2^31), ties up;
 * the one overflowing case (INT32_MIN * INT32_MIN) saturates. */
static inline int32_t simdops_srdhm(int32_t a, int32_t b)
{
    int64_t ab;
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    ab = (int64_t)a * (int64_t)b + ((int64_t)1 << 30);
    /* floor division by 2^31: the arithmetic shift of a signed value (what >> of a
     * negative value does on every compiler this builds with, checked below and relied on
     * by simdops_rdbpot too). Written as a choice on ab's sign, GCC branched on it: a
     * mispredict for about half of random inputs (the scalar TFLite add element, three
     * SRDHMs, took ~45 cycles). */
    return (int32_t)(ab >> 31);
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
