/* TFLite's 8-bit add proved equal, for one parameter set, to a linear form without a
 * window: portable C (no intrinsics), used by rules/qbinary_proof.c and the harness.
 *
 * Why a proof and not a test per lane: an 8-bit add sees at most 256 x 256 = 65,536
 * input pairs per parameter set. So whether y = clamp(floor(V / 2^S)), V = a Ma + b Mb
 * + bias, equals the reference for EVERY input can be decided by comparing the two over
 * all 65,536 pairs, once. Where it holds, the AVX-512 rows run that form alone
 * (XNNPACK's pair rows, qbinary_xnn_avx512.h, with no window test and no flagged-lane
 * bookkeeping); where it does not, the window rows (qbinary_tfl_avx512.h) as before.
 *
 * The comparison (qb_tfl_proof_check) takes the reference outputs of every pair (the
 * caller computes them with an exact kernel: any tier's is the scalar bits, which the
 * harness checks) and the form, computes the form in int64 for every pair (the pair
 * rows compute it exactly when V lies in int32, which the four corners decide: V is
 * affine in (a, b)), clamps it to the bounds as the packs and the min / max do, and
 * compares. The output bounds are part of the parameters, so they are part of what is
 * proved: a form proved for one (lo, hi) says nothing of another.
 *
 * The form (qb_tfl_proof_find): the plan's S, Ma, Mb with the window's W taken out of
 * the bias (the nominal form) first. Where the scales have exact ties (the benchmark's:
 * 417 a + 388 b = 712 k has solutions) the reference's roundings decide those pairs
 * and the nominal form misses some (24 of 65,536 with the benchmark's numbers); a
 * slightly tilted form can still match them all (there: Ma + 8, Mb + 8). So the
 * multipliers are searched in Ma + [-R, R], Mb + [-R, R] and the bias placed in the
 * middle of what the pairs near a step of the nominal form allow; the best candidate
 * goes through the same exhaustive comparison. A candidate found by a heuristic is
 * fine: only the comparison decides. */
#ifndef SIMDOPS_QBINARY_TFL_PROOF_H
#define SIMDOPS_QBINARY_TFL_PROOF_H

#include <stdint.h>
#include <string.h>

#include "core/kernel_abi.h"
#include "qbinary_tfl_plan.h"
#include "qbinary_xnn_plan.h"

enum {
    QB_PROOF_PAIRS = 65536, /* every (a, b) pair of an 8-bit type */
    QB_PROOF_R = 8,         /* the multipliers' search radius */
    QB_PROOF_NEAR = 2048    /* at most this many pairs near a step steer the search */
};

/* the last pair the comparison makes: the harness's mutant leaves it out */
#ifdef QB_PROOF_MUTANT_SKIP_PAIR
#define QB_PROOF_COMPARED (QB_PROOF_PAIRS - 1)
#else
#define QB_PROOF_COMPARED QB_PROOF_PAIRS
#endif

typedef struct qb_tfl_form {
    int32_t ma, mb, bias; /* V = a Ma + b Mb + bias on the raw inputs */
    int S;                /* y = V >> S */
} qb_tfl_form;

/* pair i: a = tlo + (i >> 8), b = tlo + (i & 255), as the type's bytes */
static inline void qb_tfl_proof_pairs(int is_u8, unsigned char *a, unsigned char *b)
{
    const int tlo = is_u8 ? 0 : -128;
    for (int i = 0; i < QB_PROOF_PAIRS; i++) {
        a[i] = (unsigned char)(tlo + (i >> 8));
        b[i] = (unsigned char)(tlo + (i & 255));
    }
}

static inline int32_t qb_tfl_proof_byte(const unsigned char *r, int i, int is_u8)
{
    return is_u8 ? (int32_t)r[i] : (int32_t)(int8_t)r[i];
}

/* the form's output for (a, b): floor(V / 2^S) clamped to [lo, hi] (within the type,
 * so the packs' saturation to the type changes nothing the clamp keeps) */
static inline int32_t qb_tfl_form_one(const qb_tfl_form *f, int32_t a, int32_t b,
                                      const simdops_qbinary_params *p)
{
    const int64_t v = (int64_t)a * f->ma + (int64_t)b * f->mb + f->bias;
    const int64_t y = v >> f->S; /* floor: arithmetic shift of int64 (as simdops_srdhm) */
    return y < p->lo ? p->lo : y > p->hi ? p->hi : (int32_t)y;
}

/* 1 when the pair rows can run f (multipliers split by 257, V within int32 for every
 * pair, S in [1, 30]) */
static inline int qb_tfl_form_fits(const qb_tfl_form *f, int is_u8)
{
    const int32_t tlo = is_u8 ? 0 : -128, thi = is_u8 ? 255 : 127;
    int32_t q, r;
    if (f->S < 1 || f->S > 30 || !qb_xnn_split257(f->ma, &q, &r) || !qb_xnn_split257(f->mb, &q, &r) ||
        f->ma <= -(1 << 21) || f->ma >= (1 << 21) || f->mb <= -(1 << 21) || f->mb >= (1 << 21))
        return 0;
    for (int c = 0; c < 4; c++) {
        const int64_t v = (int64_t)(c & 1 ? thi : tlo) * f->ma + (int64_t)(c & 2 ? thi : tlo) * f->mb +
                          f->bias;
        if (v < INT32_MIN || v > INT32_MAX)
            return 0;
    }
    return 1;
}

/* 1 when f fits the pair rows and equals ref (the reference's outputs of the pairs of
 * qb_tfl_proof_pairs) for every pair. Once f fits, V lies in int32 for every pair, so
 * each row of 256 pairs (one a) is int32 arithmetic without a branch (the compiler
 * vectorizes it), and a row with a difference ends the check. */
static inline int qb_tfl_proof_check(const simdops_qbinary_params *p, int is_u8,
                                     const qb_tfl_form *f, const unsigned char *ref)
{
    const int tlo = is_u8 ? 0 : -128;
    if (!qb_tfl_form_fits(f, is_u8))
        return 0;
    for (int row = 0; row < 256; row++) {
        const int32_t v0 = (tlo + row) * f->ma + f->bias; /* in int32: the form fits */
        const int last = row == 255 ? QB_PROOF_COMPARED - 255 * 256 : 256;
        int32_t differs = 0;
        for (int j = 0; j < last; j++) {
            int32_t y = (v0 + (tlo + j) * f->mb) >> f->S;
            y = y < p->lo ? p->lo : y > p->hi ? p->hi : y;
            differs |= y ^ qb_tfl_proof_byte(ref, 256 * row + j, is_u8);
        }
        if (differs)
            return 0;
    }
    return 1;
}

/* A form proved equal to ref (the exact outputs of every pair for p) into *out: 1, or
 * 0 when neither the nominal form nor the search's best candidate passes the check.
 * The search in int32: for each pair near a step of the nominal form (V0 within band
 * of it, or on its wrong side) the bias change dc it allows, lo_i - t <= dc <= hi_i -
 * t, t = a dA + b dB; the widest interval over the grid wins. */
static inline int qb_tfl_proof_find(const simdops_qbinary_params *p, int is_u8,
                                    const unsigned char *ref, qb_tfl_form *out)
{
    const int tlo = is_u8 ? 0 : -128;
    qb_tfl_plan tp;
    qb_tfl_form f;
    int32_t na[QB_PROOF_NEAR], nb[QB_PROOF_NEAR], nlo[QB_PROOF_NEAR], nhi[QB_PROOF_NEAR];
    int m = 0, S, bda = 0, bdb = 0;
    int32_t band, one, bl = 0, bh = -1;
    qb_tfl_plan_init(&tp, p, is_u8);
    if (!tp.ok || p->lo >= p->hi)
        return 0; /* lo == hi: one output, the window rows are as good */
    S = tp.S;
    f.S = S;
    f.ma = tp.ma;
    f.mb = tp.mb;
    f.bias = (int32_t)(tp.bias - ((int64_t)1 << (tp.w - 1))); /* the window's W taken out */
    if (qb_tfl_proof_check(p, is_u8, &f, ref)) {
        *out = f;
        return 1;
    }
    if (!qb_tfl_form_fits(&f, is_u8) || S > 29)
        return 0; /* the nominal V in int32, and 2^(S+1) too */
    one = (int32_t)1 << S;
    band = (int32_t)1 << (S > 8 ? S - 8 : 0);
    for (int i = 0; i < QB_PROOF_PAIRS; i++) {
        const int32_t a = tlo + (i >> 8), b = tlo + (i & 255), r = qb_tfl_proof_byte(ref, i, is_u8);
        const int32_t v = a * f.ma + b * f.mb + f.bias;
        const int64_t below = (int64_t)v - (int64_t)r * one, above = (int64_t)(r + 1) * one - 1 - v;
        if ((r > p->lo && below < band) || (r < p->hi && above < band)) {
            if (m == QB_PROOF_NEAR)
                return 0;
            na[m] = a;
            nb[m] = b;
            /* dc >= -below (unless r is the lower bound), dc <= above (unless the upper) */
            /* each within [-2^S, 2^S]: a pair needing more than that of dc fails the check */
            nlo[m] = r > p->lo ? (int32_t)(-below < -one ? -one : -below > one ? one : -below) : -one;
            nhi[m] = r < p->hi ? (int32_t)(above < -one ? -one : above > one ? one : above) : one;
            m++;
        }
    }
    /* every second (dA, dB) of the grid, then the neighbours of the best (the width is
     * concave in (dA, dB) over the reals: a coarse grid finds its top's neighbourhood) */
    for (int pass = 0; pass < 2; pass++) {
        const int ca = bda, cb = bdb, step = pass ? 1 : 2, reach = pass ? 1 : QB_PROOF_R;
        for (int da = ca - reach; da <= ca + reach; da += step)
            for (int db = cb - reach; db <= cb + reach; db += step) {
                int32_t lo = -one, hi = one;
                for (int k = 0; k < m; k++) {
                    const int32_t t = na[k] * da + nb[k] * db;
                    lo = nlo[k] - t > lo ? nlo[k] - t : lo;
                    hi = nhi[k] - t < hi ? nhi[k] - t : hi;
                }
                if (hi - lo > bh - bl) {
                    bl = lo;
                    bh = hi;
                    bda = da;
                    bdb = db;
                }
            }
    }
    if (bh < bl)
        return 0;
    f.ma = tp.ma + bda;
    f.mb = tp.mb + bdb;
    f.bias = (int32_t)((int64_t)f.bias + bl + (bh - bl) / 2); /* a candidate: the check decides */
    if (!qb_tfl_proof_check(p, is_u8, &f, ref))
        return 0;
    *out = f;
    return 1;
}

/* p's plan slot (a TFLite add plan for the type) set to run f without the window:
 * proved, and f as the pair rows' constants (qbinary_xnn_plan.h's split). f passed
 * qb_tfl_proof_check for p. */
static inline void qb_tfl_proof_apply(simdops_qbinary_params *p, int is_u8, const qb_tfl_form *f)
{
    simdops_qb_tfl_add_plan *tp = &p->plan.u.tfl_add;
    simdops_qbinary_params lin;
    qb_xnn_plan pl;
    memset(&lin, 0, sizeof(lin));
    lin.a_mult = f->ma;
    lin.b_mult = f->mb;
    lin.bias = f->bias;
    lin.shift = f->S;
    lin.lo = p->lo;
    lin.hi = p->hi;
    qb_xnn_plan_init(&pl, &lin, is_u8);
    tp->pairs = 1;
    tp->shift = (uint8_t)f->S;
    tp->window = 0;
    tp->pair_bias = pl.pair_bias;
    tp->q_ab = ((uint32_t)(uint16_t)pl.q_b << 16) | (uint16_t)pl.q_a;
    tp->r_ab = ((uint32_t)(uint8_t)pl.r_b << 16) | (uint8_t)pl.r_a;
    tp->proved = 1;
}

#endif
