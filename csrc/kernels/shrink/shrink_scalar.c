/* Reference shrink kernels (docs/semantics.md). Floats: a NaN x matches no branch and
 * passes through unchanged. Integers: saturation by clamping x first (see
 * simdops_shrink_params), so the subtraction itself never wraps. */
#include "kernels/registry.h"
#include "core/fp16.h"
#include "kernels/shrink/shrink_int_form.h"
#define SIMDOPS_TIER scalar

/* one kernel per row of shrink_int_form.h's SHRINK_INT_TYPES (every tier's list) */
#define SHRINK_INT_KERNEL(C, tag, T, UT, tmin, tmax, esize)                            \
    static void SIMDOPS_KERNEL_NAME(tag, shrink)(const void *xv, void *yv, size_t n,   \
                                                 const simdops_shrink_params *p)       \
    {                                                                                  \
        const T *x = (const T *)xv;                                                    \
        T *y = (T *)yv;                                                                \
        const T thr = p->thr.tag, neg_thr = p->neg_thr.tag, b = p->bias.tag;           \
        const T sub_lo = p->sub_lo.tag, sub_hi = p->sub_hi.tag;                        \
        const T add_lo = p->add_lo.tag, add_hi = p->add_hi.tag;                        \
        for (size_t i = 0; i < n; i++) {                                               \
            T v = x[i];                                                                \
            if (v > thr) {                                                             \
                v = v < sub_lo ? sub_lo : (v > sub_hi ? sub_hi : v);                   \
                y[i] = (T)(UT)((UT)v - (UT)b);                                         \
            } else if (v < neg_thr) {                                                  \
                v = v < add_lo ? add_lo : (v > add_hi ? add_hi : v);                   \
                y[i] = (T)(UT)((UT)v + (UT)b);                                         \
            } else {                                                                   \
                y[i] = 0;                                                              \
            }                                                                          \
        }                                                                              \
    }

SHRINK_INT_TYPES(SHRINK_INT_KERNEL, _)

#define SHRINK_FLOAT_KERNEL(T, field, name)                                            \
    static void name(const void *xv, void *yv, size_t n, const simdops_shrink_params *p) \
    {                                                                                  \
        const T *x = (const T *)xv;                                                    \
        T *y = (T *)yv;                                                                \
        const T thr = p->thr.field, neg_thr = p->neg_thr.field, b = p->bias.field;     \
        for (size_t i = 0; i < n; i++) {                                               \
            T v = x[i];                                                                \
            if (v > thr)                                                               \
                y[i] = v - b;                                                          \
            else if (v < neg_thr)                                                      \
                y[i] = v + b;                                                          \
            else if (v == v)                                                           \
                y[i] = 0;                                                              \
            else                                                                       \
                y[i] = v;                                                              \
        }                                                                              \
    }

SHRINK_FLOAT_KERNEL(float, f32, f32_shrink__scalar)
SHRINK_FLOAT_KERNEL(double, f64, f64_shrink__scalar)

/* float16: x -/+ bias in float32 then one rounding to half; float32 has
 * enough bits (24 >= 2*11+2) that this equals the correctly rounded half. */
static void f16_shrink__scalar(const void *xv, void *yv, size_t n, const simdops_shrink_params *p)
{
    const uint16_t *x = (const uint16_t *)xv;
    uint16_t *y = (uint16_t *)yv;
    const float thr = p->thr.f32, neg_thr = p->neg_thr.f32, b = p->bias.f32;
    for (size_t i = 0; i < n; i++) {
        float v = simdops_f16_to_f32(x[i]);
        if (v > thr)
            y[i] = simdops_f32_to_f16(v - b);
        else if (v < neg_thr)
            y[i] = simdops_f32_to_f16(v + b);
        else if (v == v)
            y[i] = 0;
        else
            y[i] = x[i];
    }
}

#define SHRINK_KERNELS(X)                                                                    \
    SHRINK_INT_TYPES(SHRINK_INT_ENTRY, X) X(shrink, f32) X(shrink, f64) X(shrink, f16)
SIMDOPS_DEFINE_REGISTER(shrink, SHRINK_KERNELS)
