/* ONNX Clip and Shrink: the rules where ONNX (numpy, as onnx.reference runs
 * it) differs from DirectML, on top of the clip kernels and the elementwise
 * driver.
 *
 * Clip: min > max (after conversion to x's type) gives max: the kernel runs
 * with min = max, and float types store max's bits for every non-NaN element
 * (numpy's minimum returns max there, -0.0 vs +0.0 included). A NaN bound (float types) gives that NaN for every non-NaN
 * element; a NaN element stays itself, except with both bounds given on
 * float32/float64, where numpy's clip returns the bound's NaN for it too
 * (measured, numpy 2.4). Where an element equals a bound the element is kept
 * (numpy's clip; its one-sided minimum/maximum return either zero depending on
 * the array's length, so no rule can follow them: docs/onnx.md).
 *
 * Shrink: the reference's numpy computes float16 and 8/16-bit integers in
 * float32, float32 in float32, float64 and 32/64-bit integers in float64,
 * with float32 attributes; NaN compares false and gives 0; integer results
 * truncate toward zero and saturate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/fp16.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "api/run_same_dtype.h"
#include "driver/strided.h"
#include "rules/checks.h"
#include "rules/params.h"

/* ---------------------------------------------------------------- clip */

typedef struct onnx_clip_ctx {
    simdops_clip_fn kernel;
    simdops_clip_params params;
    simdops_dtype dtype;
    int fill;       /* y = fill_bits, or x where x is NaN and keep_nan_x: a NaN bound
                     * (its NaN), or min > max (max, bit for bit) */
    int keep_nan_x;
    uint64_t fill_bits;
} onnx_clip_ctx;

static void clip_row(const void *x, void *y, size_t n, size_t k0, const void *ctxv)
{
    const onnx_clip_ctx *c = (const onnx_clip_ctx *)ctxv;
    const int keep = c->keep_nan_x;
    (void)k0;
    if (!c->fill) {
        c->kernel(x, y, n, &c->params);
        return;
    }
    switch (c->dtype) {
    case SIMDOPS_FLOAT32: {
        const uint32_t b = (uint32_t)c->fill_bits;
        for (size_t i = 0; i < n; i++) {
            float v = ((const float *)x)[i];
            if (keep && v != v)
                ((float *)y)[i] = v;
            else
                memcpy((float *)y + i, &b, 4);
        }
        break;
    }
    case SIMDOPS_FLOAT64:
        for (size_t i = 0; i < n; i++) {
            double v = ((const double *)x)[i];
            if (keep && v != v)
                ((double *)y)[i] = v;
            else
                memcpy((double *)y + i, &c->fill_bits, 8);
        }
        break;
    default: /* float16 */
        for (size_t i = 0; i < n; i++) {
            uint16_t h = ((const uint16_t *)x)[i];
            int nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
            ((uint16_t *)y)[i] = keep && nan ? h : (uint16_t)c->fill_bits;
        }
        break;
    }
}

/* 1 when a > b in dtype */
static int above(simdops_dtype d, const simdops_value *a, const simdops_value *b)
{
    switch (d) {
    case SIMDOPS_FLOAT32:
    case SIMDOPS_FLOAT16: return a->f32 > b->f32;
    case SIMDOPS_FLOAT64: return a->f64 > b->f64;
    case SIMDOPS_UINT8: return a->u8 > b->u8;
    case SIMDOPS_INT8: return a->i8 > b->i8;
    case SIMDOPS_UINT16: return a->u16 > b->u16;
    case SIMDOPS_INT16: return a->i16 > b->i16;
    case SIMDOPS_UINT32: return a->u32 > b->u32;
    case SIMDOPS_INT32: return a->i32 > b->i32;
    case SIMDOPS_UINT64: return a->u64 > b->u64;
    default: return a->i64 > b->i64;
    }
}

static int number_is_nan(simdops_number v) { return v.kind == SIMDOPS_NUM_FLOAT && v.f != v.f; }

int simdops_clip_onnx(const simdops_tensor *x, const simdops_tensor *y, const simdops_number *min,
                      const simdops_number *max, simdops_error *err)
{
    onnx_clip_ctx c;
    simdops_number lo, hi;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_CLIP);
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)))
        return s;
    memset(&c, 0, sizeof(c));
    memset(&lo, 0, sizeof(lo));
    memset(&hi, 0, sizeof(hi));
    lo.kind = hi.kind = SIMDOPS_NUM_FLOAT;
    lo.f = -INFINITY; /* absent: no bound (C saturates it to an integer type's lowest) */
    hi.f = INFINITY;
    if (min)
        lo = *min;
    if (max)
        hi = *max;
    c.dtype = x->dtype;
    if (simdops_dtype_is_float(x->dtype) && (number_is_nan(lo) || number_is_nan(hi))) {
        /* numpy: max(x, NaN min) is that NaN, then min(NaN, max) keeps it */
        double nan = number_is_nan(lo) ? lo.f : hi.f;
        c.fill = 1;
        c.keep_nan_x = !(min && max) || x->dtype == SIMDOPS_FLOAT16;
        if (x->dtype == SIMDOPS_FLOAT32) {
            float f = (float)nan;
            c.fill_bits = simdops_f32_bits(f);
        } else if (x->dtype == SIMDOPS_FLOAT64) {
            c.fill_bits = simdops_f64_bits(nan);
        } else {
            c.fill_bits = simdops_f64_to_f16(nan);
        }
        lo.f = number_is_nan(lo) ? 0.0 : lo.f;
        hi.f = number_is_nan(hi) ? 0.0 : hi.f;
    }
    if ((s = simdops_clip_params_init(x->dtype, lo, hi, NULL, NULL, &c.params, err)))
        return s;
    if (above(x->dtype, &c.params.min, &c.params.max)) {
        /* ONNX >= 11 text: min > max gives max; numpy (onnx.reference) gives its bits
         * for every non-NaN element, +0.0 and -0.0 included, where clamping with
         * min = max would keep an element equal to max with the other sign */
        c.params.min = c.params.max;
        if (simdops_dtype_is_float(x->dtype) && !c.fill) {
            c.fill = 1;
            c.keep_nan_x = 1;
            c.fill_bits = x->dtype == SIMDOPS_FLOAT32   ? simdops_f32_bits(c.params.max.f32)
                          : x->dtype == SIMDOPS_FLOAT64 ? simdops_f64_bits(c.params.max.f64)
                                                        : simdops_f64_to_f16(c.params.max.f32);
        }
    }
    c.kernel = simdops_current_kernels()->clip[x->dtype];
    return simdops_run_same_dtype(x, y, clip_row, &c, err);
}

/* ---------------------------------------------------------------- shrink */

typedef struct onnx_shrink_ctx {
    simdops_dtype dtype;
    float bias, lambd;
} onnx_shrink_ctx;

static inline float shrink_f32(float v, float b, float l)
{
    return v < -l ? v + b : v > l ? v - b : 0.0f;
}

static inline double shrink_f64(double v, double b, double l)
{
    return v < -l ? v + b : v > l ? v - b : 0.0;
}

/* truncation toward zero, saturated to [lo, hi] (results are never NaN) */
#define SAT_TRUNC(T, r, lo, hi) ((r) <= (double)(lo) ? (T)(lo) : (r) >= (double)(hi) ? (T)(hi) : (T)(r))

#define SHRINK_LOOP(T, CT, FN, STORE)                                                           \
    do {                                                                                       \
        const T *xx = (const T *)x;                                                            \
        T *yy = (T *)y;                                                                        \
        const CT b = (CT)c->bias, l = (CT)c->lambd;                                            \
        for (size_t i = 0; i < n; i++) {                                                       \
            CT r = FN((CT)xx[i], b, l);                                                        \
            yy[i] = STORE;                                                                     \
        }                                                                                      \
    } while (0)

static void shrink_row(const void *x, void *y, size_t n, size_t k0, const void *ctxv)
{
    const onnx_shrink_ctx *c = (const onnx_shrink_ctx *)ctxv;
    (void)k0;
    switch (c->dtype) {
    case SIMDOPS_FLOAT32: SHRINK_LOOP(float, float, shrink_f32, r); break;
    case SIMDOPS_FLOAT64: SHRINK_LOOP(double, double, shrink_f64, r); break;
    case SIMDOPS_FLOAT16: {
        const uint16_t *xx = (const uint16_t *)x;
        uint16_t *yy = (uint16_t *)y;
        for (size_t i = 0; i < n; i++)
            yy[i] = simdops_f32_to_f16(shrink_f32(simdops_f16_to_f32(xx[i]), c->bias, c->lambd));
        break;
    }
    case SIMDOPS_UINT8: SHRINK_LOOP(uint8_t, float, shrink_f32, SAT_TRUNC(uint8_t, r, 0, UINT8_MAX)); break;
    case SIMDOPS_INT8: SHRINK_LOOP(int8_t, float, shrink_f32, SAT_TRUNC(int8_t, r, INT8_MIN, INT8_MAX)); break;
    case SIMDOPS_UINT16: SHRINK_LOOP(uint16_t, float, shrink_f32, SAT_TRUNC(uint16_t, r, 0, UINT16_MAX)); break;
    case SIMDOPS_INT16: SHRINK_LOOP(int16_t, float, shrink_f32, SAT_TRUNC(int16_t, r, INT16_MIN, INT16_MAX)); break;
    case SIMDOPS_UINT32: SHRINK_LOOP(uint32_t, double, shrink_f64, SAT_TRUNC(uint32_t, r, 0, UINT32_MAX)); break;
    case SIMDOPS_INT32: SHRINK_LOOP(int32_t, double, shrink_f64, SAT_TRUNC(int32_t, r, INT32_MIN, INT32_MAX)); break;
    case SIMDOPS_UINT64:
        /* 2^64 and -2^63 are exact doubles: compare against them, not the integer bounds */
        SHRINK_LOOP(uint64_t, double, shrink_f64,
                    r <= 0.0 ? 0 : r >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)r);
        break;
    default:
        SHRINK_LOOP(int64_t, double, shrink_f64,
                    r < -9223372036854775808.0 ? INT64_MIN
                    : r >= 9223372036854775808.0 ? INT64_MAX : (int64_t)r);
        break;
    }
}

int simdops_shrink_onnx(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                        simdops_number lambd, simdops_error *err)
{
    onnx_shrink_ctx c;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_SHRINK);
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)))
        return s;
    /* a NaN lambd compares false: every element 0, as ONNX's formula gives */
    if ((s = simdops_f32_attribute(bias, SIMDOPS_ARG_BIAS, 0, &c.bias, err)) ||
        (s = simdops_f32_attribute(lambd, SIMDOPS_ARG_LAMBD, 1, &c.lambd, err)))
        return s;
    c.dtype = x->dtype;
    return simdops_run_same_dtype(x, y, shrink_row, &c, err);
}
