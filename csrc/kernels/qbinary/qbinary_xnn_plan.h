/* XNNPACK's 8-bit add (qb_xnnpack_add_one: y = clamp(((bias + a ma + b mb) >> s)
 * + zp)), what a call's parameters allow the AVX-512 rows to leave out or
 * rewrite; decided once a call (portable C, no intrinsics, so the harness can
 * ask which rows a parameter set takes).
 *
 * fold: the zero point folded into the bias, (v + zp 2^s) >> s = (v >> s) + zp
 *   for an integer zp, when no int32 sum wraps: v = bias + a ma + b mb is
 *   affine in (a, b), so over the type's box its extremes are at the four
 *   corners; if v and v + zp 2^s lie in int32 there, they do for every input,
 *   the reference's wrap32 is the identity and its + zp (|v >> s| <= 2^18) does
 *   not wrap either. Else the rows add zp after the shift.
 * clamp: the bounds are the type's own range: the packs saturate to it, so
 *   the min / max are left out.
 * pairs: each multiplier m = 257 q + r with r in [-128, 127] (|q| < 2^13:
 *   |m| <= 2^21), for the AVX512-VNNI rows. There each element's word
 *   w = lo + 256 hi of the bytes (a ^ 0x80, a) (int8: 257 a + 128) or
 *   (a, a ^ 0x80) (uint8: 257 a - 32768) lies in int16, and with the b word
 *   beside it in one dword, one vpdpwssd against (q_a, q_b) and one vpdpbusd
 *   of the low bytes (a ^ 0x80 resp. a, unsigned) against (r_a, r_b) give
 *   a ma + b mb + 128 (q_a + r_a + q_b + r_b) (int8) resp. - 32768 (q_a + q_b)
 *   (uint8): the constant goes into the bias. Every product is exact and
 *   every sum is taken mod 2^32, as the reference's wrap32: the same bits with
 *   or without overflow. m = 128 mod 257 (r would be 128) keeps the vpmulld
 *   rows.
 * high: the pair rows with s >= 16 take the high words of two accumulators
 *   by one vpermt2w (in packssdw's order) and shift them by s - 16 as int16:
 *   floor(floor(v / 2^16) / 2^(s - 16)) = floor(v / 2^s), and |v >> s| <=
 *   2^(31 - s) <= 2^15 fits int16 as it is (packssdw would not saturate
 *   either). The rules' parameters never have s < 16 without the fold: there
 *   |v| <= 2 * 255 * 2^21 + 2^(s - 1) < 2^30 and |zp| 2^s < 2^23, so the
 *   pair rows without either have no loop (the vpmulld rows take it). */
#ifndef SIMDOPS_QBINARY_XNN_PLAN_H
#define SIMDOPS_QBINARY_XNN_PLAN_H

#include <stdint.h>

#include "core/kernel_abi.h"
#include "qbinary_bounds.h"

/* kernel_abi.h holds the type: the parameters store it (their plan slot) */
typedef simdops_qb_xnn_add_plan qb_xnn_plan;

/* m = 257 q + r, r in [-128, 128]: 1 when r fits a signed byte */
static inline int qb_xnn_split257(int32_t m, int32_t *q, int32_t *r)
{
    int64_t t = (int64_t)m + 128;
    int64_t qq = t >= 0 ? t / 257 : -((-t + 256) / 257); /* floor */
    *q = (int32_t)qq;
    *r = (int32_t)((int64_t)m - 257 * qq);
    return *r <= 127;
}

static inline void qb_xnn_plan_init(qb_xnn_plan *pl, const simdops_qbinary_params *p, int is_u8)
{
    const int32_t tlo = is_u8 ? 0 : -128, thi = is_u8 ? 255 : 127;
    const int64_t zs = (int64_t)p->y_offset * ((int64_t)1 << p->shift);
    uint32_t k;
    int32_t q_a, r_a, q_b, r_b;
    pl->fold = 1;
    for (int i = 0; i < 4; i++) {
        int64_t v = (int64_t)p->bias + (int64_t)(i & 1 ? thi : tlo) * p->a_mult +
                    (int64_t)(i & 2 ? thi : tlo) * p->b_mult;
        if (v < INT32_MIN || v > INT32_MAX || v + zs < INT32_MIN || v + zs > INT32_MAX)
            pl->fold = 0;
    }
    pl->clamp = !qb_bounds_are_type(p, is_u8);
    pl->bias = (uint32_t)p->bias + (pl->fold ? (uint32_t)zs : 0u);
    pl->pairs = (uint8_t)(qb_xnn_split257(p->a_mult, &q_a, &r_a) &
                          qb_xnn_split257(p->b_mult, &q_b, &r_b));
    /* |m| <= 2^21 for the pair rows: q in int16, r in int8 (else pairs is 0 and they
     * are not read) */
    pl->q_a = (int16_t)(pl->pairs ? q_a : 0);
    pl->r_a = (int8_t)(pl->pairs ? r_a : 0);
    pl->q_b = (int16_t)(pl->pairs ? q_b : 0);
    pl->r_b = (int8_t)(pl->pairs ? r_b : 0);
    pl->high = pl->pairs && p->shift >= 16;
    k = is_u8 ? 32768u * ((uint32_t)pl->q_a + (uint32_t)pl->q_b)
              : 0u - 128u * ((uint32_t)pl->q_a + (uint32_t)pl->r_a + (uint32_t)pl->q_b +
                             (uint32_t)pl->r_b);
    pl->pair_bias = pl->bias + k;
}

#endif
