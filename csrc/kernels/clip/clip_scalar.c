/* Reference clip kernels: y = max(min, min(g(x), max)), the operand order of
 * SSE's minps/maxps so that a NaN x passes through unchanged (docs/semantics.md). */
#include "kernels/registry.h"
#include "core/fp16.h"
#define SIMDOPS_TIER scalar

#define CLIP_INT_KERNEL(T, field, name)                                              \
    static void name(const void *xv, void *yv, size_t n, const simdops_clip_params *p) \
    {                                                                                 \
        const T *x = (const T *)xv;                                                   \
        T *y = (T *)yv;                                                               \
        const T lo = p->min.field, hi = p->max.field;                                 \
        for (size_t i = 0; i < n; i++) {                                              \
            T t = hi < x[i] ? hi : x[i];                                              \
            y[i] = lo > t ? lo : t;                                                   \
        }                                                                             \
    }

CLIP_INT_KERNEL(uint8_t, u8, u8_clip__scalar)
CLIP_INT_KERNEL(int8_t, i8, i8_clip__scalar)
CLIP_INT_KERNEL(uint16_t, u16, u16_clip__scalar)
CLIP_INT_KERNEL(int16_t, i16, i16_clip__scalar)
CLIP_INT_KERNEL(uint32_t, u32, u32_clip__scalar)
CLIP_INT_KERNEL(int32_t, i32, i32_clip__scalar)
CLIP_INT_KERNEL(uint64_t, u64, u64_clip__scalar)
CLIP_INT_KERNEL(int64_t, i64, i64_clip__scalar)
CLIP_INT_KERNEL(float, f32, f32_clip__scalar)
CLIP_INT_KERNEL(double, f64, f64_clip__scalar)

/* Integers with ScaleBias: fl64(fl64(x*scale) + bias), saturated, truncated
 * toward zero; scale and bias are finite (checked when params are made). */
#define CLIP_INT_SB_KERNEL(T, field, tmin, tmax, name)                                \
    static void name(const void *xv, void *yv, size_t n, const simdops_clip_params *p) \
    {                                                                                 \
        const T *x = (const T *)xv;                                                   \
        T *y = (T *)yv;                                                               \
        const T lo = p->min.field, hi = p->max.field;                                 \
        const double s = p->scale, b = p->bias;                                       \
        for (size_t i = 0; i < n; i++) {                                              \
            double v = (double)x[i] * s + b;                                          \
            T g, t;                                                                   \
            v = v < (double)(tmin) ? (double)(tmin) : v;                              \
            v = v > (double)(tmax) ? (double)(tmax) : v;                              \
            g = (T)v;                                                                 \
            t = hi < g ? hi : g;                                                      \
            y[i] = lo > t ? lo : t;                                                   \
        }                                                                             \
    }

CLIP_INT_SB_KERNEL(uint8_t, u8, 0, UINT8_MAX, u8_clip_scale_bias__scalar)
CLIP_INT_SB_KERNEL(int8_t, i8, INT8_MIN, INT8_MAX, i8_clip_scale_bias__scalar)
CLIP_INT_SB_KERNEL(uint16_t, u16, 0, UINT16_MAX, u16_clip_scale_bias__scalar)
CLIP_INT_SB_KERNEL(int16_t, i16, INT16_MIN, INT16_MAX, i16_clip_scale_bias__scalar)
CLIP_INT_SB_KERNEL(uint32_t, u32, 0, UINT32_MAX, u32_clip_scale_bias__scalar)
CLIP_INT_SB_KERNEL(int32_t, i32, INT32_MIN, INT32_MAX, i32_clip_scale_bias__scalar)

/* float32 / float64: x * s + b in the tensor's type, two roundings (no FMA:
 * docs/design.md), then min(max, g) and max(min, t) in that operand order. */
#define CLIP_FLOAT_SB_KERNEL(T, field, name)                                                      \
    static void name(const void *xv, void *yv, size_t n, const simdops_clip_params *p)           \
    {                                                                                             \
        const T *x = (const T *)xv;                                                               \
        T *y = (T *)yv;                                                                           \
        const T lo = p->min.field, hi = p->max.field, s = p->scale, b = p->bias;                  \
        for (size_t i = 0; i < n; i++) {                                                          \
            T prod = x[i] * s;                                                                    \
            T g = prod + b;                                                                       \
            T t = hi < g ? hi : g;                                                                \
            y[i] = lo > t ? lo : t;                                                               \
        }                                                                                         \
    }
CLIP_FLOAT_SB_KERNEL(float, f32, f32_clip_scale_bias__scalar)
CLIP_FLOAT_SB_KERNEL(double, f64, f64_clip_scale_bias__scalar)

/* float16: compare widened values; the output is the bits of whichever of
 * g, min, max was chosen, so a NaN g keeps its own bits. */
static inline uint16_t f16_clip_one(uint16_t g, float lo, float hi, uint16_t lo_h, uint16_t hi_h)
{
    float gf = simdops_f16_to_f32(g);
    uint16_t t = g;
    float tf = gf;
    if (hi < gf) { t = hi_h; tf = hi; }
    return lo > tf ? lo_h : t;
}

static void f16_clip__scalar(const void *xv, void *yv, size_t n, const simdops_clip_params *p)
{
    const uint16_t *x = (const uint16_t *)xv;
    uint16_t *y = (uint16_t *)yv;
    const float lo = p->min.f32, hi = p->max.f32;
    const uint16_t lo_h = simdops_f32_to_f16(lo), hi_h = simdops_f32_to_f16(hi);
    for (size_t i = 0; i < n; i++)
        y[i] = f16_clip_one(x[i], lo, hi, lo_h, hi_h);
}

static void f16_clip_scale_bias__scalar(const void *xv, void *yv, size_t n,
                                        const simdops_clip_params *p)
{
    const uint16_t *x = (const uint16_t *)xv;
    uint16_t *y = (uint16_t *)yv;
    const float lo = p->min.f32, hi = p->max.f32, s = p->scale, b = p->bias;
    const uint16_t lo_h = simdops_f32_to_f16(lo), hi_h = simdops_f32_to_f16(hi);
    for (size_t i = 0; i < n; i++) {
        float prod = simdops_f16_to_f32(x[i]) * s;
        float g = prod + b;
        y[i] = f16_clip_one(simdops_f32_to_f16(g), lo, hi, lo_h, hi_h);
    }
}

#define CLIP_KERNELS(X)                                                                       \
    X(clip, u8) X(clip, i8) X(clip, u16) X(clip, i16) X(clip, u32) X(clip, i32) X(clip, u64)  \
    X(clip, i64) X(clip, f32) X(clip, f64) X(clip, f16) X(clip_scale_bias, u8)                \
    X(clip_scale_bias, i8) X(clip_scale_bias, u16) X(clip_scale_bias, i16)                    \
    X(clip_scale_bias, u32) X(clip_scale_bias, i32) X(clip_scale_bias, f32)                   \
    X(clip_scale_bias, f64) X(clip_scale_bias, f16)
SIMDOPS_DEFINE_REGISTER(clip, CLIP_KERNELS)
