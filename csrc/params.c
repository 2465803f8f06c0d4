/* Parameter conversion of SPEC §3, done once per call: floats round to
 * nearest even into the tensor's type, integers truncate toward zero and
 * saturate (exact integers are taken exactly). */
#include <math.h>

#include "fp16.h"
#include "internal.h"

static int is_nan(simdops_number v) { return v.kind == SIMDOPS_NUM_FLOAT && v.f != v.f; }

static double as_double(simdops_number v)
{
    return v.kind == SIMDOPS_NUM_FLOAT ? v.f : v.kind == SIMDOPS_NUM_INT ? (double)v.i : (double)v.u;
}

/* Truncate toward zero, saturate to [lo, hi]. */
static int64_t sat_signed(simdops_number v, int64_t lo, int64_t hi)
{
    if (v.kind == SIMDOPS_NUM_UINT)
        return v.u > (uint64_t)hi ? hi : (int64_t)v.u;
    if (v.kind == SIMDOPS_NUM_INT)
        return v.i < lo ? lo : (v.i > hi ? hi : v.i);
    {
        double t = trunc(v.f);
        if (t <= (double)lo)
            return lo;
        if (t >= (double)hi) /* (double)INT64_MAX rounds up to 2^63: still saturates */
            return hi;
        return (int64_t)t;
    }
}

static uint64_t sat_unsigned(simdops_number v, uint64_t hi)
{
    if (v.kind == SIMDOPS_NUM_UINT)
        return v.u > hi ? hi : v.u;
    if (v.kind == SIMDOPS_NUM_INT)
        return v.i < 0 ? 0 : ((uint64_t)v.i > hi ? hi : (uint64_t)v.i);
    {
        double t = trunc(v.f);
        if (t <= 0.0)
            return 0;
        if (t >= (double)hi)
            return hi;
        return (uint64_t)t;
    }
}

/* double -> float, nearest even; beyond float's range the C cast is
 * undefined, so the overflow to inf is spelled out (2^128 - 2^103 is the
 * midpoint above FLT_MAX, which rounds to inf). */
float simdops_f32_from_f64(double d)
{
    const double overflow = 340282356779733661637539395458142568448.0; /* 2^128 - 2^103 */
    if (d >= overflow)
        return (float)HUGE_VAL;
    if (d <= -overflow)
        return (float)-HUGE_VAL;
    return (float)d;
}

static float to_f32(simdops_number v)
{
    return v.kind == SIMDOPS_NUM_FLOAT ? simdops_f32_from_f64(v.f)
           : v.kind == SIMDOPS_NUM_INT ? (float)v.i
                                       : (float)v.u;
}

/* Converts v to dtype (float16 stored widened in .f32). */
static simdops_value convert(simdops_dtype dtype, simdops_number v)
{
    simdops_value out;
    out.u64 = 0;
    switch (dtype) {
    case SIMDOPS_FLOAT32: out.f32 = to_f32(v); break;
    case SIMDOPS_FLOAT64: out.f64 = as_double(v); break;
    case SIMDOPS_FLOAT16: out.f32 = simdops_f16_to_f32(simdops_f64_to_f16(as_double(v))); break;
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

static int is_float(simdops_dtype d)
{
    return d == SIMDOPS_FLOAT32 || d == SIMDOPS_FLOAT16 || d == SIMDOPS_FLOAT64;
}

int simdops_clip_params_init(simdops_dtype dtype, simdops_number min, simdops_number max,
                             const float *scale_bias, simdops_clip_params *p)
{
    if (dtype <= SIMDOPS_UNKNOWN || dtype >= SIMDOPS_DTYPE_COUNT)
        return SIMDOPS_E_DTYPE;
    if (is_nan(min) || is_nan(max))
        return SIMDOPS_E_PARAM;
    p->min = convert(dtype, min);
    p->max = convert(dtype, max);
    p->scale = 1.0f;
    p->bias = 0.0f;
    if (scale_bias) {
        if (scale_bias[0] != scale_bias[0] || scale_bias[1] != scale_bias[1])
            return SIMDOPS_E_PARAM;
        if (dtype == SIMDOPS_INT64 || dtype == SIMDOPS_UINT64)
            return SIMDOPS_E_DTYPE; /* DirectML has no ScaleBias for 64-bit integers */
        /* integers: x*scale+bias must stay finite so it truncates to a number */
        if (!is_float(dtype) && !(isfinite(scale_bias[0]) && isfinite(scale_bias[1])))
            return SIMDOPS_E_PARAM;
        p->scale = scale_bias[0];
        p->bias = scale_bias[1];
    }
    return SIMDOPS_OK;
}

typedef struct int_range { int64_t lo, hi; } int_range;

static int int_range_of(simdops_dtype d, int_range *r)
{
    switch (d) {
    case SIMDOPS_UINT8: r->lo = 0; r->hi = UINT8_MAX; return 1;
    case SIMDOPS_INT8: r->lo = INT8_MIN; r->hi = INT8_MAX; return 1;
    case SIMDOPS_UINT16: r->lo = 0; r->hi = UINT16_MAX; return 1;
    case SIMDOPS_INT16: r->lo = INT16_MIN; r->hi = INT16_MAX; return 1;
    case SIMDOPS_UINT32: r->lo = 0; r->hi = UINT32_MAX; return 1;
    case SIMDOPS_INT32: r->lo = INT32_MIN; r->hi = INT32_MAX; return 1;
    default: return 0;
    }
}

static simdops_value int_value(simdops_dtype d, int64_t v)
{
    simdops_number n = {SIMDOPS_NUM_INT, 0.0, v, 0};
    return convert(d, n);
}

int simdops_shrink_params_init(simdops_dtype dtype, simdops_number bias,
                               simdops_number threshold, simdops_shrink_params *p)
{
    int_range r;
    if (dtype <= SIMDOPS_UNKNOWN || dtype >= SIMDOPS_DTYPE_COUNT || dtype == SIMDOPS_INT64 ||
        dtype == SIMDOPS_UINT64)
        return SIMDOPS_E_DTYPE;
    if (is_nan(bias) || is_nan(threshold) || as_double(threshold) < 0 ||
        (threshold.kind == SIMDOPS_NUM_INT && threshold.i < 0))
        return SIMDOPS_E_PARAM;
    if (is_float(dtype)) {
        p->thr = convert(dtype, threshold);
        p->bias = convert(dtype, bias);
        if (dtype == SIMDOPS_FLOAT64)
            p->neg_thr.f64 = -p->thr.f64;
        else
            p->neg_thr.f32 = -p->thr.f32;
        p->sub_lo = p->sub_hi = p->add_lo = p->add_hi = p->thr;
        return SIMDOPS_OK;
    }
    int_range_of(dtype, &r);
    {
        /* x > T <=> x > floor(T) and x < -T <=> x < -floor(T), for real T >= 0;
         * each bound saturates to the type on its own side. */
        const int64_t wide = (int64_t)1 << 40; /* beyond every 32-bit range */
        int64_t t = threshold.kind == SIMDOPS_NUM_FLOAT
                        ? (floor(threshold.f) >= (double)wide ? wide : (int64_t)floor(threshold.f))
                        : sat_signed(threshold, 0, wide);
        int64_t span = r.hi - r.lo;
        int64_t b = sat_signed(bias, -span, span);
        int64_t bpos = b > 0 ? b : 0, bneg = b < 0 ? b : 0;
        p->thr = int_value(dtype, t > r.hi ? r.hi : t);
        p->neg_thr = int_value(dtype, -t < r.lo ? r.lo : -t);
        p->bias.u64 = 0;
        switch (simdops_dtype_size(dtype)) { /* B wrapped to the type's width */
        case 1: p->bias.u8 = (uint8_t)(uint64_t)b; break;
        case 2: p->bias.u16 = (uint16_t)(uint64_t)b; break;
        default: p->bias.u32 = (uint32_t)(uint64_t)b; break;
        }
        p->sub_lo = int_value(dtype, r.lo + bpos);
        p->sub_hi = int_value(dtype, r.hi + bneg);
        p->add_lo = int_value(dtype, r.lo - bneg);
        p->add_hi = int_value(dtype, r.hi - bpos);
    }
    return SIMDOPS_OK;
}
