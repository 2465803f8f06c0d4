/* TFLite's 8-bit multiply proved equal, for one parameter set, to its float form without
 * the window: portable C (no intrinsics), used by rules/qbinary_proof.c and the harness.
 *
 * Why: as the add's proof (qbinary_tfl_proof.h), an 8-bit multiply sees at most 256 x
 * 256 = 65,536 input pairs per parameter set, so whether the AVX-512 rows' float form
 *   J = RN_int(RN(float(p) mu + c_s)), y = clamp(sat(high word of J (+ zp_add)))
 * (qbinary_tfl_mul_avx512.h, p = (a + oa)(b + ob)) gives the reference's y for EVERY
 * input is decided by computing both for all 65,536 pairs, once. Where it holds, the
 * rows run the form alone: no vptestnmd, no flagged-block bookkeeping (and, where one
 * constant c serves both signs, no sign pick); where not, the window rows as before.
 *
 * The form's model (qb_tmf_form_one) is the rows' instructions step by step: float(p)
 * is exact (|p| < 2^24, cvtdq2ps); c_s is chosen as the rows choose it, bit for bit
 * (the pick form: vpternlogd's (p & c-) | (~p & c+) on the product's bits; else by the
 * sign); one fmaf is vfmadd with embedded round to nearest (one rounding of the exact
 * p mu + c_s) as long as fmaf rounds to nearest, which qb_tmf_fma_nearest checks with
 * fmaf itself before any proof (no proof in another mode); qb_cvt_rne is vcvtps2dq's
 * half-to-even with INT32_MIN beyond int32; the high word is J >> 16; the moved offset
 * is added with int16 saturation (vpaddsw); the packs saturate to the type; min / max
 * clamp to the bounds (the bounds are part of the parameters, so of what is proved).
 *
 * The floor form (floor_cvt) is the same with vcvtps2dq rounding down ({rd-sae}, which
 * MXCSR does not change either): J = floor(RN(float(p) mu + c_s)), modelled by
 * qb_tmf_cvt_floor.
 *
 * The candidates (qb_tmf_proof_find), each through the exhaustive comparison, the first
 * that passes wins: one constant c = o 2^16 + 2^15 - 1/2 (the sign terms' middle: the
 * rows then skip the pick; it passes only where no attainable product lies between the
 * two signs' rounding steps, mostly small output multipliers); the floor form's two
 * constants for offset o itself (qb_tmf_floor_nominal: the product picks them with no
 * moved offset); the plan's own two constants without the window's a (c+ / c- of
 * rq_fast_params.h for the plan's offset o', picked as the plan picks); each of the last
 * two also with mu and both constants moved by up to one ulp each (qb_tmf_proof_moves).
 * A candidate is a guess: only the comparison decides. */
#ifndef SIMDOPS_QBINARY_TFL_MUL_PROOF_H
#define SIMDOPS_QBINARY_TFL_MUL_PROOF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/kernel_abi.h"
#include "qbinary_element.h"
#include "qbinary_tfl_mul_plan.h"
#include "qbinary_tfl_proof.h" /* QB_PROOF_PAIRS, QB_PROOF_COMPARED, the pairs, the bytes */

typedef struct qb_tmf_form {
    float mu, cpos, cneg; /* cpos == cneg: one constant */
    int16_t zp_add;       /* with pick: added to the high words, saturating */
    uint8_t pick;         /* 1: the product's bits pick (the plan's pick form); 0: its sign */
    uint8_t floor_cvt;    /* 1: J = floor(...) (vcvtps2dq {rd-sae}); 0: RN_int */
} qb_tmf_form;

static inline uint32_t qb_tmf_fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float qb_tmf_bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* 1 when fmaf rounds to nearest, ties to even (the vector's embedded rounding): the
 * three sums 1 + 2^-24 (a tie: 1), -1 - 2^-24 (-1) and 1 + 1.5 2^-24 (1 + 2^-23)
 * tell it from every other mode; volatile so that the compiler cannot fold them */
static inline int qb_tmf_fma_nearest(void)
{
    volatile float one = 1.0f, t = 0x1p-24f, t15 = 0x1.8p-24f;
    return fmaf(one, one, t) == 1.0f && fmaf(-one, one, -t) == -1.0f &&
           fmaf(one, one, t15) == 1.0f + 0x1p-23f;
}

/* vcvtps2dq with {rd-sae}: floor, INT32_MIN beyond int32 (and for NaN) */
static inline int32_t qb_tmf_cvt_floor(float v)
{
    if (!(v >= -2147483648.0f && v < 2147483648.0f))
        return INT32_MIN;
    return (int32_t)floor((double)v); /* exact: v and its floor are doubles in int32's range */
}

/* the form's output for the inputs (a, b), as the rows compute it */
static inline int32_t qb_tmf_form_one(const qb_tmf_form *f, int32_t a, int32_t b,
                                      const simdops_qbinary_params *p, int is_u8)
{
    const int32_t pr = (a + p->a_offset) * (b + p->b_offset); /* |oa|, |ob| <= 255: exact */
    const uint32_t pb = (uint32_t)pr, cp = qb_tmf_fbits(f->cpos), cn = qb_tmf_fbits(f->cneg);
    const uint32_t cs = f->pick ? (pb & cn) | (~pb & cp) : pr < 0 ? cn : cp;
    const float x = fmaf((float)pr, f->mu, qb_tmf_bitsf(cs));
    const int32_t j = f->floor_cvt ? qb_tmf_cvt_floor(x) : qb_cvt_rne(x);
    int32_t h = (int32_t)(int16_t)(uint16_t)((uint32_t)j >> 16); /* the high word */
    const int32_t tlo = is_u8 ? 0 : -128, thi = is_u8 ? 255 : 127;
    if (f->pick && f->zp_add) {
        h += f->zp_add;
        h = h < -32768 ? -32768 : h > 32767 ? 32767 : h;
    }
    h = h < tlo ? tlo : h > thi ? thi : h;
    return h < p->lo ? p->lo : h > p->hi ? p->hi : h;
}

/* 1 when f gives ref (the reference's outputs of the pairs of qb_tfl_proof_pairs) for
 * every pair; a row of 256 pairs with a difference ends the check */
static inline int qb_tmf_proof_check(const simdops_qbinary_params *p, int is_u8,
                                     const qb_tmf_form *f, const unsigned char *ref)
{
    const int tlo = is_u8 ? 0 : -128;
    if (p->a_offset < -255 || p->a_offset > 255 || p->b_offset < -255 || p->b_offset > 255)
        return 0; /* the rows' int16 inputs */
    for (int row = 0; row < 256; row++) {
        const int last = row == 255 ? QB_PROOF_COMPARED - 255 * 256 : 256;
        int32_t differs = 0;
        for (int j = 0; j < last; j++)
            differs |= qb_tmf_form_one(f, tlo + row, tlo + j, p, is_u8) ^
                        qb_tfl_proof_byte(ref, 256 * row + j, is_u8);
        if (differs)
            return 0;
    }
    return 1;
}

/* the window-free constants of the plan pl (c+ and c- for its offset o' = o - zp_add,
 * a = 0), picked as pl picks them when they still share their low 16 bits: 1, or 0 */
static inline int qb_tmf_nominal(const simdops_qbinary_params *p, const qb_tmf_plan *pl,
                                 qb_tmf_form *f)
{
    const int32_t o = p->y_offset - (pl->pick ? pl->zp_add : 0);
    memset(f, 0, sizeof(*f));
    if (!rqf_pair_consts(p->y_mult, p->y_shift, p->left_shift, o, 0, RQF_PC_K, &f->mu, &f->cpos,
                         &f->cneg))
        return 0;
    f->pick = pl->pick;
    f->zp_add = pl->pick ? pl->zp_add : 0;
    if (f->pick && ((qb_tmf_fbits(f->cpos) ^ qb_tmf_fbits(f->cneg)) & 0xFFFFu)) {
        /* the picked pair no longer shares them: the sign picks, offset o itself */
        if (!rqf_pair_consts(p->y_mult, p->y_shift, p->left_shift, p->y_offset, 0, RQF_PC_K,
                             &f->mu, &f->cpos, &f->cneg))
            return 0;
        f->pick = 0;
        f->zp_add = 0;
    }
    return 1;
}

/* The floor form: J = floor(RN(float(p) mu + c_s)), its high word r + o, for offset o
 * itself. Its constants are the exact rounding's own, no half-unit below them:
 * c+ = o 2^16 + 2^15 + 2^(15-e) and c- = c+ - 2^(16-e), 2^16 (o + 1/2 +- 2^-(e+1))
 * (the reference is floor(v + 1/2 + s 2^-(e+1)) + o). They are integers for e <= 15, so
 * for e <= 7 and the usual offsets 0 and -1 their low 16 bits are all zero although c+
 * and c- lie in two binades (2^15 +- 2^(15-e)): the product's bits pick them with no
 * moved offset, where the nearest form's c +- 1/2 needs one (and 2 vpaddsw a 64). The
 * pick's condition is checked all the same (low 16 bits equal). 1, or 0 when the plan's
 * parameters have no float form or the pick cannot take these constants. */
static inline int qb_tmf_floor_nominal(const simdops_qbinary_params *p, qb_tmf_form *f)
{
    double cp;
    memset(f, 0, sizeof(*f));
    if (!rqf_pair_consts(p->y_mult, p->y_shift, p->left_shift, p->y_offset, 0, RQF_PC_K,
                         &f->mu, &f->cpos, &f->cneg))
        return 0; /* its refusals (a left shift, M <= 0, e outside [1, 23]) hold here too */
    cp = ldexp((double)p->y_offset, RQF_PC_K) + (1 << (RQF_PC_K - 1)) +
         ldexp(1.0, RQF_PC_K - 1 - p->y_shift);
    f->cpos = (float)cp;
    f->cneg = (float)(cp - ldexp(1.0, RQF_PC_K - p->y_shift));
    f->pick = 1;
    f->floor_cvt = 1;
    return !((qb_tmf_fbits(f->cpos) ^ qb_tmf_fbits(f->cneg)) & 0xFFFFu);
}

/* f moved by k ulps (k in {-1, 0, 1}) */
static inline float qb_tmf_ulps(float x, int k)
{
    return k ? nextafterf(x, k > 0 ? INFINITY : -INFINITY) : x;
}

/* base, then base with mu and both constants moved by up to one ulp each (the pairs whose
 * exact value lies within the float error of a step: near exact ties, where another
 * rounding of the constants can still match them all): the first that passes into *out,
 * 1; or 0 */
static inline int qb_tmf_proof_moves(const simdops_qbinary_params *p, int is_u8,
                                     const unsigned char *ref, const qb_tmf_form *base,
                                     qb_tmf_form *out)
{
    /* the base first (k = 4: no move), then one ulp each way */
    for (int k = 4; k < 4 + 27; k++) {
        const int m = k % 27, dm = m % 3 - 1, dc = m / 3 % 3 - 1, dn = m / 9 - 1;
        qb_tmf_form g = *base;
        g.mu = qb_tmf_ulps(base->mu, dm);
        g.cpos = qb_tmf_ulps(base->cpos, dc);
        g.cneg = qb_tmf_ulps(base->cneg, dn);
        if (g.pick && ((qb_tmf_fbits(g.cpos) ^ qb_tmf_fbits(g.cneg)) & 0xFFFFu))
            continue; /* the pick needs the shared low bits */
        if (qb_tmf_proof_check(p, is_u8, &g, ref)) {
            *out = g;
            return 1;
        }
    }
    return 0;
}

/* A form proved equal to ref (the exact outputs of every pair for p) into *out: 1, or 0
 * when no candidate passes (or the plan is refused, the bounds leave one output, or
 * fmaf does not round to nearest here). */
static inline int qb_tmf_proof_find(const simdops_qbinary_params *p, int is_u8,
                                    const unsigned char *ref, qb_tmf_form *out)
{
    qb_tmf_plan pl;
    qb_tmf_form f;
    qb_tmf_plan_init(&pl, p, is_u8);
    if (!pl.ok || p->lo >= p->hi || !qb_tmf_fma_nearest())
        return 0;
    /* one constant, offset o itself: no pick (the middle of c+ and c-, exact in float:
     * a multiple of 1/2 below 2^24) */
    memset(&f, 0, sizeof(f));
    f.mu = (float)ldexp((double)p->y_mult, RQF_PC_K - 31 - p->y_shift);
    f.cpos = f.cneg = (float)(ldexp((double)p->y_offset, RQF_PC_K) + (1 << (RQF_PC_K - 1)) - 0.5);
    if (qb_tmf_proof_check(p, is_u8, &f, ref)) {
        *out = f;
        return 1;
    }
    /* the floor form: the product picks, no moved offset (the faster rows, where the
     * nearest form would need one) */
    if (qb_tmf_floor_nominal(p, &f) && qb_tmf_proof_moves(p, is_u8, ref, &f, out))
        return 1;
    return qb_tmf_nominal(p, &pl, &f) && qb_tmf_proof_moves(p, is_u8, ref, &f, out);
}

/* p's plan slot (a TFLite multiply plan for the type) set to run f without the window.
 * f passed qb_tmf_proof_check for p. */
static inline void qb_tmf_proof_apply(simdops_qbinary_params *p, const qb_tmf_form *f)
{
    simdops_qb_tfl_mul_plan *tp = &p->plan.u.tfl_mul;
    tp->ok = 1;
    tp->pick = f->cpos == f->cneg && qb_tmf_fbits(f->cpos) == qb_tmf_fbits(f->cneg) ? 2 : f->pick;
    tp->zp_add = tp->pick == 1 ? f->zp_add : 0;
    tp->floor_cvt = f->floor_cvt;
    tp->mu = f->mu;
    tp->cpos = f->cpos;
    tp->cneg = f->cneg;
    tp->window = 0;
    tp->proved = 1;
}

#endif
