/* Requant's parameter rules, of every family (the gemmlowp/ACL default's
 * multiplier, shift, offset and bounds; the other families' shift ranges, float
 * scales, zero points), the prepared handles, and each family's kernel choice:
 * the one place each is stated. The per-element formulas are in simdops.h and
 * csrc/kernels/requant/requant_families.h. Nothing here calls params.c. */
#include <math.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "rules/params.h"
#include "rules/rules.h"

/* What the code below relies on in the family lists: the public codes run from
 * 0 to SIMDOPS_ROUNDING_COUNT - 1, one line each (so the internal tags, from
 * SIMDOPS_ROUNDING_COUNT on, are none of them; two lines with one code are a
 * duplicate case in the kernel choice), and every shift range ends at 31 (the
 * SHIFT_RANGE_FOR message says so). */
#define SIMDOPS_X_ROUNDING_LINE(...) +1
typedef char every_code_below_SIMDOPS_ROUNDING_COUNT_needs_its_SIMDOPS_ROUNDINGS_line
    [(0 SIMDOPS_ROUNDINGS(SIMDOPS_X_ROUNDING_LINE)) == SIMDOPS_ROUNDING_COUNT ? 1 : -1];
#undef SIMDOPS_X_ROUNDING_LINE
#define SIMDOPS_X_ROUNDING_HI(name, code, py, api, lo, hi, pt, pc) &&(hi) == 31
typedef char every_SIMDOPS_ROUNDINGS_shift_range_must_end_at_31
    [(1 SIMDOPS_ROUNDINGS(SIMDOPS_X_ROUNDING_HI)) ? 1 : -1];
#undef SIMDOPS_X_ROUNDING_HI

void simdops_requant_shift_range(int family, int32_t *lo, int32_t *hi)
{
    switch (family) {
#define SIMDOPS_X_SHIFT_RANGE(name, code, py, api, lo_, hi_, pt, pc)                              \
    case code: *lo = lo_; *hi = hi_; return;
        SIMDOPS_ROUNDINGS(SIMDOPS_X_SHIFT_RANGE)
#undef SIMDOPS_X_SHIFT_RANGE
    }
    *lo = 1; /* no public family: no shift is valid */
    *hi = 0;
}

int simdops_requant_check_shift_for(int family, int64_t shift, int64_t index, simdops_error *err)
{
    int32_t lo, hi;
    simdops_requant_shift_range(family, &lo, &hi);
    if (shift >= lo && shift <= hi)
        return SIMDOPS_OK;
    /* gemmlowp's whole range has its own message; a narrower one names its low end */
    if (lo == -31 && hi == 31)
        simdops_fail_value(err, SIMDOPS_R_SHIFT_RANGE, SIMDOPS_ARG_SHIFT, shift, 0);
    else
        simdops_fail_value(err, SIMDOPS_R_SHIFT_RANGE_FOR, SIMDOPS_ARG_SHIFT, shift, lo);
    err->index = index;
    return err->status;
}

/* The per-tensor requant parameters with bounds [lo, hi] that always clamp. */
static int requant_params_bounded(simdops_dtype out, int64_t multiplier, int64_t shift,
                                  int64_t offset, int64_t lo, int64_t hi,
                                  simdops_requant_params *p, simdops_error *err)
{
    int s;
    if ((s = simdops_check_op_dtype(SIMDOPS_OP_REQUANT_OUT, out, SIMDOPS_ARG_OUT_DTYPE, err)))
        return s;
    if ((s = simdops_check_int32(SIMDOPS_ARG_MULTIPLIER, multiplier, err)))
        return s;
    if ((s = simdops_requant_check_shift_for(SIMDOPS_ROUNDING_DOUBLE, shift, -1, err)))
        return s;
    if ((s = simdops_check_int32(SIMDOPS_ARG_OFFSET, offset, err)))
        return s;
    /* QSYMM16 is symmetric: ACL's int16 stage has no offset */
    if (out == SIMDOPS_INT16 && offset != 0)
        return simdops_fail_value(err, SIMDOPS_R_QSYMM16_OFFSET, SIMDOPS_ARG_OFFSET, offset, 0);
    if ((s = simdops_check_bound(out, SIMDOPS_ARG_MIN, lo, err)) ||
        (s = simdops_check_bound(out, SIMDOPS_ARG_MAX, hi, err)) ||
        (s = simdops_check_min_max(lo, hi, err)))
        return s;
    memset(p, 0, sizeof(*p));
    p->multiplier = (int32_t)multiplier;
    p->left_shift = shift < 0 ? (int32_t)-shift : 0;
    p->right_shift = shift > 0 ? (int32_t)shift : 0;
    p->offset = (int32_t)offset;
    p->min = (int32_t)lo;
    p->max = (int32_t)hi;
    return SIMDOPS_OK;
}

int simdops_requant_params_init(simdops_dtype out, int64_t multiplier, int64_t shift,
                                int64_t offset, const int64_t *min, const int64_t *max,
                                simdops_requant_params *p, simdops_error *err)
{
    const simdops_dtype_row *r = &simdops_dtype_rows[simdops_dtype_valid(out) ? out : 0];
    int64_t lo, hi;
    int s;
    /* ACL 18.03: min == max means no clamp; neither given is ACL's default 0, 0;
     * one given: the other is the output type's bound */
    lo = min ? *min : (max ? r->lo : 0);
    hi = max ? *max : (min ? r->hi : 0);
    if ((s = requant_params_bounded(out, multiplier, shift, offset, lo, hi, p, err)))
        return s;
    if (lo == hi) {
        p->min = (int32_t)r->lo;
        p->max = (int32_t)r->hi;
    }
    return SIMDOPS_OK;
}

/* Per-channel scales given as doubles, each rounded once to float32 (params.h) */
int simdops_requant_scales_from_f64(const double *src, int64_t n, int mode, float *dst,
                                    simdops_error *err)
{
    for (int64_t k = 0; k < n; k++) {
        float f = simdops_f32_from_f64(src[k]);
        int reason = !isfinite(f) ? SIMDOPS_R_NOT_FINITE_SCALE
                     : (mode & SIMDOPS_FP_FLOAT64) && (double)f != src[k] ? SIMDOPS_R_SCALE_NOT_F32
                                                                          : SIMDOPS_R_NONE;
        if (reason != SIMDOPS_R_NONE) {
            simdops_fail(err, reason, SIMDOPS_ARG_SCALE);
            err->fvalue = src[k];
            err->index = k;
            return err->status;
        }
        dst[k] = f;
    }
    return SIMDOPS_OK;
}

/* The first scale that is not finite, as the error (there is one: the caller's scan said so) */
static int first_not_finite(const float *scale, int64_t n, simdops_error *err)
{
    for (int64_t k = 0; k < n; k++)
        if (!isfinite(scale[k])) {
            simdops_fail(err, SIMDOPS_R_NOT_FINITE_SCALE, SIMDOPS_ARG_SCALE);
            err->fvalue = scale[k];
            err->index = k;
            return err->status;
        }
    return SIMDOPS_OK; /* not reached */
}

/* One pass over the scales' magnitude bits: each test is a difference whose top bit is set
 * exactly when the bits are past the bound (no branch, no min / max chain). With
 * above_floor, one more difference: m - floor wraps exactly when m < floor's bits, zero
 * included. The general pass, for arrays the window pass below refuses. */
static inline int check_scales_pass(const float *scale, int64_t n, int *below_one,
                                    int *above_floor, simdops_error *err)
{
    const uint32_t largest_finite = 0x7f7fffffu, largest_below_one = 0x3f7fffffu;
    uint32_t floor_bits, not_finite = 0, not_below_one = 0, below_floor = 0;
    const float floor = SIMDOPS_RQ_SCALE_FLOOR;
    memcpy(&floor_bits, &floor, sizeof floor_bits);
    for (int64_t k = 0; k < n; k++) {
        uint32_t bits;
        memcpy(&bits, &scale[k], sizeof bits);
        bits &= 0x7fffffffu;
        not_finite |= largest_finite - bits;
        not_below_one |= largest_below_one - bits;
        if (above_floor)
            below_floor |= bits - floor_bits;
    }
    if (not_finite >> 31)
        return first_not_finite(scale, n, err);
    if (below_one)
        *below_one = !(not_below_one >> 31);
    if (above_floor)
        *above_floor = !(below_floor >> 31);
    return SIMDOPS_OK;
}

/* Whether every |scale[k]| lies in [SIMDOPS_RQ_SCALE_FLOOR, 1): the scales in use (a
 * layer's per-channel scales are 1e-2..1e-6). Such an array is finite, below one and above
 * the floor at once, all three answers of the general pass, from one subtract and one OR a
 * scale: with lb the floor's bits (0x1f800000) and m a magnitude's bits (<= 0x7fffffff),
 * d = m - lb (wrapping) lies in [0, span), span = 1.0's bits less lb, exactly when m is in
 * the window (m < lb wraps d to >= 2^32 - lb > span; infinity and NaN lie above 1.0's
 * bits). span is 64 binades of 2^23 bits, 2^29, a power of two: then every d < span iff
 * the OR of all d < span (an OR of numbers under a power of two stays under it, and one at
 * or above it sets a bit at or above it). A floor whose span is not a power of two takes
 * the two-sided test per scale (d and span - 1 - d, both under 2^31 inside; the compiler
 * keeps one loop, the test being constant). */
static inline int scales_in_window(const float *scale, int64_t n)
{
    const float floor = SIMDOPS_RQ_SCALE_FLOOR, one = 1.0f;
    uint32_t lb, hb, bad = 0;
    memcpy(&lb, &floor, sizeof lb);
    memcpy(&hb, &one, sizeof hb);
    const uint32_t span = hb - lb;
    if (!(span & (span - 1))) {
        for (int64_t k = 0; k < n; k++) {
            uint32_t bits;
            memcpy(&bits, &scale[k], sizeof bits);
            bad |= (bits & 0x7fffffffu) - lb;
        }
        return bad < span;
    }
    for (int64_t k = 0; k < n; k++) {
        uint32_t bits;
        memcpy(&bits, &scale[k], sizeof bits);
        const uint32_t d = (bits & 0x7fffffffu) - lb;
        bad |= d | (span - 1 - d);
    }
    return !(bad >> 31);
}

int simdops_requant_check_scales(const float *scale, int64_t n, int *below_one,
                                 simdops_error *err)
{
    if (scales_in_window(scale, n)) {
        if (below_one)
            *below_one = 1;
        return SIMDOPS_OK;
    }
    return check_scales_pass(scale, n, below_one, NULL, err);
}

int simdops_requant_check_scales_floor(const float *scale, int64_t n, int *below_one,
                                       int *above_floor, simdops_error *err)
{
    if (scales_in_window(scale, n)) {
        *below_one = *above_floor = 1;
        return SIMDOPS_OK;
    }
    return check_scales_pass(scale, n, below_one, above_floor, err);
}

simdops_requant_fn simdops_requant_kernel(const simdops_kernel_table *t, int family, int slot)
{
    switch (family) {
#define SIMDOPS_X_FAMILY_KERNEL(name, code, py, api, lo, hi, pt, pc) case code: return t->pt[slot];
        SIMDOPS_REQUANT_FAMILIES(SIMDOPS_X_FAMILY_KERNEL)
#undef SIMDOPS_X_FAMILY_KERNEL
    }
    return NULL;
}

simdops_requant_pc_fn simdops_requant_pc_kernel(const simdops_kernel_table *t, int family,
                                                int slot)
{
    switch (family) {
#define SIMDOPS_X_FAMILY_PC_KERNEL(name, code, py, api, lo, hi, pt, pc) case code: return t->pc[slot];
        SIMDOPS_REQUANT_FAMILIES(SIMDOPS_X_FAMILY_PC_KERNEL)
#undef SIMDOPS_X_FAMILY_PC_KERNEL
    }
    return NULL;
}

int simdops_requant_pc_restarts(const simdops_kernel_table *t, int family, int slot)
{
    if (family == SIMDOPS_ROUNDING_FP)
        return 1;
    switch (family) {
#define SIMDOPS_X_FAMILY_RESTARTS(name, code, py, api, lo, hi, pt, pc)                           \
    case code: return t->requant_pc_restarts[SIMDOPS_KE_##pc][slot];
        SIMDOPS_ROUNDINGS(SIMDOPS_X_FAMILY_RESTARTS)
#undef SIMDOPS_X_FAMILY_RESTARTS
    }
    return 0;
}

/* Both requant prepare forms: bounded != 0 takes min/max as bounds that
 * always clamp (min == max included), else as simdops_requant_params_init. */
static int prepare_requant(simdops_dtype out_dtype, int64_t multiplier, int64_t shift,
                           int64_t offset, const int64_t *min, const int64_t *max, int bounded,
                           simdops_prepared *p, simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    if (!p)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_PREPARED);
    memset(&impl, 0, sizeof(impl));
    s = bounded ? requant_params_bounded(out_dtype, multiplier, shift, offset, *min, *max,
                                         &impl.u.requant, err)
                : simdops_requant_params_init(out_dtype, multiplier, shift, offset, min, max,
                                              &impl.u.requant, err);
    if (s)
        return s;
    simdops_prepared_store(p, &impl, SIMDOPS_OP_REQUANT, out_dtype);
    return SIMDOPS_OK;
}

int simdops_prepare_requant(simdops_dtype out_dtype, int64_t multiplier, int64_t shift,
                            int64_t offset, const int64_t *min, const int64_t *max,
                            simdops_prepared *p, simdops_error *err)
{
    return prepare_requant(out_dtype, multiplier, shift, offset, min, max, 0, p, err);
}

int simdops_prepare_requant_clamped(simdops_dtype out_dtype, int64_t multiplier, int64_t shift,
                                    int64_t offset, int64_t min, int64_t max,
                                    simdops_prepared *p, simdops_error *err)
{
    return prepare_requant(out_dtype, multiplier, shift, offset, &min, &max, 1, p, err);
}

int simdops_prepare_requant_rounding(simdops_dtype out_dtype, int rounding, int64_t multiplier,
                                     int64_t shift, int64_t offset, const int64_t *min,
                                     const int64_t *max, simdops_prepared *p,
                                     simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    if (!p)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_PREPARED);
    if (rounding < 0 || rounding >= SIMDOPS_ROUNDING_COUNT)
        return simdops_fail_value(err, SIMDOPS_R_ROUNDING_UNKNOWN, SIMDOPS_ARG_ROUNDING, rounding, 0);
    /* the widest range here; the family's own range below */
    memset(&impl, 0, sizeof(impl));
    if ((s = simdops_requant_params_init(out_dtype, multiplier, shift < -31 || shift > 31 ? 0 : shift,
                                         offset, min, max, &impl.u.requant, err)))
        return s;
    if ((s = simdops_requant_check_shift_for(rounding, shift, -1, err)))
        return s;
    impl.u.requant.family = rounding;
    simdops_prepared_store(p, &impl, SIMDOPS_OP_REQUANT, out_dtype);
    return SIMDOPS_OK;
}

int simdops_prepare_requant_rounding_clamped(simdops_dtype out_dtype, int rounding,
                                             int64_t multiplier, int64_t shift, int64_t offset,
                                             int64_t min, int64_t max, simdops_prepared *p,
                                             simdops_error *err)
{
    simdops_prepared_impl impl;
    simdops_prepared q;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    if (rounding < 0 || rounding >= SIMDOPS_ROUNDING_COUNT)
        return simdops_fail_value(err, SIMDOPS_R_ROUNDING_UNKNOWN, SIMDOPS_ARG_ROUNDING, rounding, 0);
    if ((s = simdops_prepare_requant_clamped(out_dtype, multiplier,
                                             shift < -31 || shift > 31 ? 0 : shift, offset, min,
                                             max, &q, err)))
        return s;
    if ((s = simdops_requant_check_shift_for(rounding, shift, -1, err)))
        return s;
    memcpy(&impl, &q, sizeof impl);
    impl.u.requant.family = rounding;
    simdops_prepared_store(p, &impl, SIMDOPS_OP_REQUANT, out_dtype);
    return SIMDOPS_OK;
}

/* The scale or one chain value: finite, nonzero where it divides, finite again as a
 * float32 under float32 precision; stored in both precisions. */
static int chain_value(double v, int arg, int divides, int mode, float *f, double *d,
                       simdops_error *err)
{
    /* simdops_f32_from_f64 inline (an out-of-line call per chain step was ~14
     * instructions): inside float32's range the conversion rounds to nearest */
    const float v32 = fabs(v) < 340282356779733661637539395458142568448.0 ? (float)v
                                                                          : simdops_f32_from_f64(v);
    if (!isfinite(v) || (!(mode & SIMDOPS_FP_FLOAT64) && !isfinite(v32))) {
        simdops_fail(err, SIMDOPS_R_NOT_FINITE_SCALE, arg);
        err->fvalue = v;
        return err->status;
    }
    *f = v32;
    *d = v;
    /* a divisor that is zero in the working precision (float32 flushes tiny ones) */
    if (divides && ((mode & SIMDOPS_FP_FLOAT64) ? v == 0.0 : *f == 0.0f)) {
        simdops_fail(err, SIMDOPS_R_ZERO_DIVISOR, arg);
        err->fvalue = v;
        return err->status;
    }
    return SIMDOPS_OK;
}

static int prepare_requant_fp(simdops_dtype out_dtype, double scale, int64_t zero_point,
                              const int64_t *min, const int64_t *max, int mode,
                              const simdops_requant_fp_chain *chain, simdops_prepared *p,
                              simdops_error *err);

/* One given step of the chain: chain_value, and its bit into *mode on success. */
static int chain_step(double v, int arg, int divides, int bit, int *mode, float *f, double *d,
                      simdops_error *err)
{
    const int s = chain_value(v, arg, divides, *mode, f, d, err);
    *mode |= s ? 0 : bit;
    return s;
}

int simdops_prepare_requant_fp(simdops_dtype out_dtype, double scale, int64_t zero_point,
                               const int64_t *min, const int64_t *max, int mode,
                               simdops_prepared *p, simdops_error *err)
{
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    /* the chain's rounding and bias position are simdops_prepare_requant_fp_chain's */
    if (mode >= 0 && (mode & (SIMDOPS_FP_TIES_ADD_HALF | SIMDOPS_FP_BIAS_SCALED)))
        return simdops_fail_value(err, SIMDOPS_R_ROUNDING_UNKNOWN, SIMDOPS_ARG_ROUNDING, mode, 0);
    return prepare_requant_fp(out_dtype, scale, zero_point, min, max, mode, NULL, p, err);
}

int simdops_prepare_requant_fp_chain(simdops_dtype out_dtype, double scale, int64_t zero_point,
                                     const int64_t *min, const int64_t *max, int mode,
                                     const simdops_requant_fp_chain *chain, simdops_prepared *p,
                                     simdops_error *err)
{
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    return prepare_requant_fp(out_dtype, scale, zero_point, min, max, mode, chain, p, err);
}

static int prepare_requant_fp(simdops_dtype out_dtype, double scale, int64_t zero_point,
                              const int64_t *min, const int64_t *max, int mode,
                              const simdops_requant_fp_chain *chain, simdops_prepared *p,
                              simdops_error *err)
{
    simdops_prepared_impl impl;
    simdops_prepared bounds; /* *p is written only on success */
    const simdops_dtype_row *r;
    int64_t lo, hi;
    int s;
    const int has_chain = chain && (chain->has_pre_scale || chain->has_post_scale ||
                                    chain->has_post_divisor || chain->has_offset);
    if (!p)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_PREPARED);
    if (mode < 0 ||
        (mode & ~(SIMDOPS_FP_FLOAT64 | SIMDOPS_FP_TIES_AWAY | SIMDOPS_FP_TIES_ADD_HALF |
                  SIMDOPS_FP_BIAS_SCALED) &&
         mode != SIMDOPS_FP_ACL) ||
        ((mode & SIMDOPS_FP_TIES_AWAY) && (mode & SIMDOPS_FP_TIES_ADD_HALF)))
        return simdops_fail_value(err, SIMDOPS_R_ROUNDING_UNKNOWN, SIMDOPS_ARG_ROUNDING, mode, 0);
    if (mode == SIMDOPS_FP_ACL && has_chain)
        return simdops_fail_value(err, SIMDOPS_R_FP_CHAIN_MODE, SIMDOPS_ARG_ROUNDING, mode, 0);
    if (chain && chain->has_post_scale && chain->has_post_divisor)
        return simdops_fail(err, SIMDOPS_R_POST_BOTH, SIMDOPS_ARG_POST_SCALE);
    if ((s = simdops_check_op_dtype(SIMDOPS_OP_REQUANT_OUT, out_dtype, SIMDOPS_ARG_OUT_DTYPE, err)))
        return s;
    r = &simdops_dtype_rows[out_dtype];
    memset(&impl, 0, sizeof(impl));
    if (mode == SIMDOPS_FP_ACL) {
        /* ACL's offset is any int32 (added in float before rounding) */
        if (zero_point < INT32_MIN || zero_point > INT32_MAX)
            return simdops_fail_value(err, SIMDOPS_R_INT32_RANGE, SIMDOPS_ARG_ZERO_POINT, zero_point, 0);
    } else if (zero_point < r->lo || zero_point > r->hi) {
        simdops_fail_value(err, SIMDOPS_R_ZERO_POINT_RANGE, SIMDOPS_ARG_ZERO_POINT, zero_point, 0);
        err->dtype = out_dtype;
        return err->status;
    }
    {
        lo = min ? *min : r->lo;
        hi = max ? *max : r->hi;
        /* given bounds always clamp: the validation of simdops_prepare_requant_clamped */
        if ((s = simdops_prepare_requant_clamped(out_dtype, 0, 0, 0, lo, hi, &bounds, err)))
            return s;
        memcpy(&impl, &bounds, sizeof(impl));
        impl.u.requant.offset = (int32_t)zero_point;
    }
    /* the scale: the rule of a chain value that does not divide */
    if ((s = chain_value(scale, SIMDOPS_ARG_SCALE, 0, mode, &impl.u.requant.scale,
                         &impl.u.requant.scale64, err)))
        return s;
    impl.u.requant.family = SIMDOPS_ROUNDING_FP;
    if (has_chain) {
        /* the chain's steps in order, each given one checked and stored (its error first) */
        simdops_requant_params *q = &impl.u.requant;
        if ((chain->has_pre_scale &&
             (s = chain_step(chain->pre_scale, SIMDOPS_ARG_PRE_SCALE, 0, SIMDOPS_RQ_FP_PRE,
                             &mode, &q->pre_scale, &q->pre64, err))) ||
            (chain->has_post_scale &&
             (s = chain_step(chain->post_scale, SIMDOPS_ARG_POST_SCALE, 0,
                             SIMDOPS_RQ_FP_POST_MUL, &mode, &q->post, &q->post64, err))) ||
            (chain->has_post_divisor &&
             (s = chain_step(chain->post_divisor, SIMDOPS_ARG_POST_DIVIDE, 1,
                             SIMDOPS_RQ_FP_POST_DIV, &mode, &q->post, &q->post64, err))) ||
            (chain->has_offset &&
             (s = chain_step(chain->offset, SIMDOPS_ARG_OFFSET, 0, SIMDOPS_RQ_FP_OFFSET, &mode,
                             &q->offset_f, &q->offset64, err))))
            return s;
        q->fp_mode = mode;
        /* oneDNN's powers of two folded here, once, not by every call */
        simdops_requant_fold_prepare(q);
    }
    impl.u.requant.fp_mode = mode;
    simdops_prepared_store(p, &impl, SIMDOPS_OP_REQUANT, out_dtype);
    return SIMDOPS_OK;
}
