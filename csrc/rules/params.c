/* Parameter validation and conversion (docs/semantics.md), done once per call (or once
 * per prepared handle): floats round to nearest even into the tensor's type,
 * integers truncate toward zero and saturate; exact integers of any size
 * (SIMDOPS_NUM_BIG) round correctly. Every rule about clip's and shrink's
 * parameter values lives here; requant's, of every family, in requant_families.c
 * (neither file calls the other). */
#include <math.h>
#include <string.h>

#include "rules/params.h"
#include "core/dtype.h"
#include "core/errors.h"
#include "core/fp16.h"
#include "core/kernel_abi.h"
#include "rules/rules.h"

/* v is one of the four kinds, and a NUM_BIG is normalised (bit 63 of .u
 * set, .i >= 0, so |v| >= 2^63); everything below may then rely on it. */
static int check_number(simdops_number v, int arg, simdops_error *err)
{
    switch ((int)v.kind) {
    case SIMDOPS_NUM_FLOAT:
    case SIMDOPS_NUM_INT:
    case SIMDOPS_NUM_UINT: return SIMDOPS_OK;
    case SIMDOPS_NUM_BIG:
        if ((v.u >> 63) && v.i >= 0)
            return SIMDOPS_OK;
        return simdops_fail(err, SIMDOPS_R_NUMBER_BIG, arg);
    default: return simdops_fail_value(err, SIMDOPS_R_NUMBER_KIND, arg, (int)v.kind, 0);
    }
}

static int is_nan(simdops_number v) { return v.kind == SIMDOPS_NUM_FLOAT && v.f != v.f; }

static int is_negative(simdops_number v)
{
    switch (v.kind) {
    case SIMDOPS_NUM_FLOAT: return v.f < 0;
    case SIMDOPS_NUM_INT: return v.i < 0;
    case SIMDOPS_NUM_BIG: return v.negative != 0;
    default: return 0;
    }
}

/* |u * 2^e| rounded to `bits` significant bits (nearest even; bit 0 of u is
 * sticky), as a double; inf when beyond double's range. u != 0. */
static double round_big(uint64_t u, int64_t e, int bits, int negative)
{
    int lead = 63;
    uint64_t q, rem, half;
    int drop;
    double d;
    if (e > 2000) /* beyond every float type (and e + drop below cannot overflow) */
        return negative ? -HUGE_VAL : HUGE_VAL;
    while (!(u >> lead))
        lead--;
    drop = lead + 1 - bits;
    if (drop > 0) {
        q = u >> drop;
        rem = u & (((uint64_t)1 << drop) - 1);
        half = (uint64_t)1 << (drop - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        e += drop; /* q may now be 2^bits: still exact in a double */
    } else {
        q = u;
    }
    d = e > 2000 ? HUGE_VAL : ldexp((double)q, (int)e);
    return negative ? -d : d;
}

/* The number as a double rounded once to `bits` significant bits (24: float32,
 * 11: float16, 53: float64); floats are taken as they are. */
static double to_real(simdops_number v, int bits)
{
    switch (v.kind) {
    case SIMDOPS_NUM_INT:
        /* small ints (0, 1, 255, ...) need no rounding: the common case, at
         * call time, without round_big's bit search */
        if (v.i > -((int64_t)1 << bits) && v.i < ((int64_t)1 << bits))
            return (double)v.i;
        return v.i < 0 ? round_big(0 - (uint64_t)v.i, 0, bits, 1) : round_big((uint64_t)v.i, 0, bits, 0);
    case SIMDOPS_NUM_UINT: return v.u ? round_big(v.u, 0, bits, 0) : 0.0;
    case SIMDOPS_NUM_BIG: return v.u ? round_big(v.u, v.i, bits, v.negative) : 0.0;
    default: return v.f;
    }
}

static float to_f32(simdops_number v) { return simdops_f32_from_f64(to_real(v, 24)); }

/* Truncate toward zero, saturate to [lo, hi]. */
static int64_t sat_signed(simdops_number v, int64_t lo, int64_t hi)
{
    switch (v.kind) {
    case SIMDOPS_NUM_UINT: return v.u > (uint64_t)hi ? hi : (int64_t)v.u;
    case SIMDOPS_NUM_INT: return v.i < lo ? lo : (v.i > hi ? hi : v.i);
    case SIMDOPS_NUM_BIG: return v.negative ? lo : hi; /* |v| >= 2^63 */
    default: {
        double t = trunc(v.f);
        if (t <= (double)lo)
            return lo;
        if (t >= (double)hi) /* (double)INT64_MAX rounds up to 2^63: still saturates */
            return hi;
        return (int64_t)t;
    }
    }
}

static uint64_t sat_unsigned(simdops_number v, uint64_t hi)
{
    switch (v.kind) {
    case SIMDOPS_NUM_UINT: return v.u > hi ? hi : v.u;
    case SIMDOPS_NUM_INT: return v.i < 0 ? 0 : ((uint64_t)v.i > hi ? hi : (uint64_t)v.i);
    case SIMDOPS_NUM_BIG: /* .i == 0: exactly .u */
        return v.negative ? 0 : (v.i == 0 && v.u < hi ? v.u : hi);
    default: {
        double t = trunc(v.f);
        if (t <= 0.0)
            return 0;
        if (t >= (double)hi)
            return hi;
        return (uint64_t)t;
    }
    }
}

/* Converts v to dtype (float16 stored widened in .f32). */
static simdops_value convert(simdops_dtype dtype, simdops_number v)
{
    simdops_value out;
    out.u64 = 0;
    switch (dtype) {
    case SIMDOPS_FLOAT32: out.f32 = to_f32(v); break;
    case SIMDOPS_FLOAT64: out.f64 = to_real(v, 53); break;
    case SIMDOPS_FLOAT16: out.f32 = simdops_f16_to_f32(simdops_f64_to_f16(to_real(v, 11))); break;
    case SIMDOPS_UINT8: out.u8 = (uint8_t)sat_unsigned(v, UINT8_MAX); break;
    case SIMDOPS_UINT16: out.u16 = (uint16_t)sat_unsigned(v, UINT16_MAX); break;
    case SIMDOPS_UINT32: out.u32 = (uint32_t)sat_unsigned(v, UINT32_MAX); break;
    case SIMDOPS_UINT64: out.u64 = sat_unsigned(v, UINT64_MAX); break;
    case SIMDOPS_INT8: out.i8 = (int8_t)sat_signed(v, INT8_MIN, INT8_MAX); break;
    case SIMDOPS_INT16: out.i16 = (int16_t)sat_signed(v, INT16_MIN, INT16_MAX); break;
    case SIMDOPS_INT32: out.i32 = (int32_t)sat_signed(v, INT32_MIN, INT32_MAX); break;
    case SIMDOPS_INT64: out.i64 = sat_signed(v, INT64_MIN, INT64_MAX); break;
    default: break;
    }
    return out;
}

/* Records the number in err (value for integers, fvalue for reals). */
static int fail_number(simdops_error *err, int reason, int arg, simdops_number v)
{
    simdops_fail(err, reason, arg);
    if (v.kind == SIMDOPS_NUM_INT)
        err->value = v.i;
    else if (v.kind == SIMDOPS_NUM_UINT)
        err->fvalue = (double)v.u;
    else
        err->fvalue = to_real(v, 53);
    return err->status;
}

/* scale/bias: float32 values, one rounding from the number given. */
static int scale_bias_value(simdops_dtype dtype, const simdops_number *v, float dflt, int arg,
                            float *out, simdops_error *err)
{
    int s;
    if (!v) {
        *out = dflt;
        return SIMDOPS_OK;
    }
    if ((s = check_number(*v, arg, err)))
        return s;
    if (is_nan(*v))
        return simdops_fail(err, SIMDOPS_R_NAN, arg);
    *out = to_f32(*v);
    /* integers: x*scale+bias must stay finite so it truncates to a number */
    if (!simdops_dtype_is_float(dtype) && !isfinite(*out))
        return fail_number(err, SIMDOPS_R_NOT_FINITE_F32, arg, *v);
    return SIMDOPS_OK;
}

/* An op's two parameters: both well-formed numbers, then neither NaN (a
 * malformed one is named before a NaN one). */
static int check_two_numbers(simdops_number a, int arg_a, simdops_number b, int arg_b,
                             simdops_error *err)
{
    int s;
    if ((s = check_number(a, arg_a, err)) || (s = check_number(b, arg_b, err)))
        return s;
    if (is_nan(a))
        return simdops_fail(err, SIMDOPS_R_NAN, arg_a);
    if (is_nan(b))
        return simdops_fail(err, SIMDOPS_R_NAN, arg_b);
    return SIMDOPS_OK;
}

int simdops_clip_params_init(simdops_dtype dtype, simdops_number min, simdops_number max,
                             const simdops_number *scale, const simdops_number *bias,
                             simdops_clip_params *p, simdops_error *err)
{
    int s;
    if ((s = simdops_check_op_dtype(SIMDOPS_OP_CLIP, dtype, SIMDOPS_ARG_X, err)) ||
        (s = check_two_numbers(min, SIMDOPS_ARG_MIN, max, SIMDOPS_ARG_MAX, err)))
        return s;
    memset(p, 0, sizeof(*p));
    p->min = convert(dtype, min);
    p->max = convert(dtype, max);
    p->scale = 1.0f;
    p->bias = 0.0f;
    if (scale || bias) {
        if (!simdops_op_supports(SIMDOPS_OP_CLIP_SCALE_BIAS, dtype)) {
            s = simdops_fail_dtype(err, SIMDOPS_R_SCALE_BIAS_64BIT,
                                   scale ? SIMDOPS_ARG_SCALE : SIMDOPS_ARG_BIAS, dtype, 0);
            return s;
        }
        if ((s = scale_bias_value(dtype, scale, 1.0f, SIMDOPS_ARG_SCALE, &p->scale, err)) ||
            (s = scale_bias_value(dtype, bias, 0.0f, SIMDOPS_ARG_BIAS, &p->bias, err)))
            return s;
    }
    return SIMDOPS_OK;
}

int simdops_f32_attribute(simdops_number v, int arg, int allow_nan, float *out,
                          simdops_error *err)
{
    int s;
    if ((s = check_number(v, arg, err)))
        return s;
    if (is_nan(v) && !allow_nan)
        return simdops_fail(err, SIMDOPS_R_NAN, arg);
    *out = to_f32(v);
    return SIMDOPS_OK;
}

static simdops_value int_value(simdops_dtype d, int64_t v)
{
    simdops_number n;
    memset(&n, 0, sizeof(n));
    n.kind = SIMDOPS_NUM_INT;
    n.i = v;
    return convert(d, n);
}

/* floor(T) of a threshold T >= 0, capped at 2^40 (beyond every 32-bit range). */
static int64_t threshold_floor(simdops_number t)
{
    const int64_t wide = (int64_t)1 << 40;
    if (t.kind == SIMDOPS_NUM_FLOAT)
        return floor(t.f) >= (double)wide ? wide : (int64_t)floor(t.f);
    return sat_signed(t, 0, wide);
}

int simdops_shrink_params_init(simdops_dtype dtype, simdops_number bias,
                               simdops_number threshold, simdops_shrink_params *p,
                               simdops_error *err)
{
    const simdops_dtype_row *r;
    int s;
    if ((s = simdops_check_op_dtype(SIMDOPS_OP_SHRINK, dtype, SIMDOPS_ARG_X, err)) ||
        (s = check_two_numbers(bias, SIMDOPS_ARG_BIAS, threshold, SIMDOPS_ARG_THRESHOLD, err)))
        return s;
    if (is_negative(threshold))
        return fail_number(err, SIMDOPS_R_NEGATIVE_THRESHOLD, SIMDOPS_ARG_THRESHOLD, threshold);
    memset(p, 0, sizeof(*p));
    if (simdops_dtype_is_float(dtype)) {
        p->thr = convert(dtype, threshold);
        p->bias = convert(dtype, bias);
        if (dtype == SIMDOPS_FLOAT64)
            p->neg_thr.f64 = -p->thr.f64;
        else
            p->neg_thr.f32 = -p->thr.f32;
        p->sub_lo = p->sub_hi = p->add_lo = p->add_hi = p->thr;
        return SIMDOPS_OK;
    }
    r = &simdops_dtype_rows[dtype];
    {
        /* x > T <=> x > floor(T) and x < -T <=> x < -floor(T), for real T >= 0;
         * each bound saturates to the type on its own side. */
        int64_t t = threshold_floor(threshold);
        int64_t span = r->hi - r->lo;
        int64_t b = sat_signed(bias, -span, span);
        int64_t bpos = b > 0 ? b : 0, bneg = b < 0 ? b : 0;
        p->thr = int_value(dtype, t > r->hi ? r->hi : t);
        p->neg_thr = int_value(dtype, -t < r->lo ? r->lo : -t);
        p->bias.u64 = 0;
        switch (r->size) { /* B wrapped to the type's width */
        case 1: p->bias.u8 = (uint8_t)(uint64_t)b; break;
        case 2: p->bias.u16 = (uint16_t)(uint64_t)b; break;
        default: p->bias.u32 = (uint32_t)(uint64_t)b; break;
        }
        p->sub_lo = int_value(dtype, r->lo + bpos);
        p->sub_hi = int_value(dtype, r->hi + bneg);
        p->add_lo = int_value(dtype, r->lo - bneg);
        p->add_hi = int_value(dtype, r->hi - bpos);
    }
    return SIMDOPS_OK;
}

/* ------------------------------------------------------------------ prepared handles */

typedef char simdops_prepared_fits[sizeof(simdops_prepared_impl) <= sizeof(simdops_prepared) ? 1 : -1];

/* Both elementwise prepare functions: op SHRINK takes (a, b) = (bias, threshold),
 * CLIP takes (a, b) = (min, max) and scale/bias. */
static int prepare_elementwise(simdops_op op, simdops_dtype dtype, simdops_number a,
                               simdops_number b, const simdops_number *scale,
                               const simdops_number *bias, simdops_prepared *p,
                               simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, op);
    if (!p)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_PREPARED);
    memset(&impl, 0, sizeof(impl));
    s = op == SIMDOPS_OP_SHRINK
            ? simdops_shrink_params_init(dtype, a, b, &impl.u.shrink, err)
            : simdops_clip_params_init(dtype, a, b, scale, bias, &impl.u.clip, err);
    if (s)
        return s;
    if (op == SIMDOPS_OP_CLIP && (scale || bias))
        op = SIMDOPS_OP_CLIP_SCALE_BIAS;
    simdops_prepared_store(p, &impl, op, dtype);
    return SIMDOPS_OK;
}

int simdops_prepare_clip(simdops_dtype dtype, simdops_number min, simdops_number max,
                         const simdops_number *scale, const simdops_number *bias,
                         simdops_prepared *p, simdops_error *err)
{
    return prepare_elementwise(SIMDOPS_OP_CLIP, dtype, min, max, scale, bias, p, err);
}

int simdops_prepare_shrink(simdops_dtype dtype, simdops_number bias, simdops_number threshold,
                           simdops_prepared *p, simdops_error *err)
{
    return prepare_elementwise(SIMDOPS_OP_SHRINK, dtype, bias, threshold, NULL, NULL, p, err);
}
