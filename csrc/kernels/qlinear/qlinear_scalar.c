/* Reference kernels of ONNX QuantizeLinear / DequantizeLinear (one scale and
 * zero point per call; see simdops_qlinear_params), one element at a time
 * through qlinear_element.h. Rounding is computed explicitly (floor +
 * compare), so the result never depends on the floating-point environment's
 * rounding mode. */
#define SIMDOPS_TIER scalar
#include "qlinear_element.h"
#include "qlinear_types.h"

/* the float side: its C type, x / scale, and the float result stored as it */
#define XT_f32 float
#define XT_f16 uint16_t
#define QUOTIENT_f32(v, p) ((v) / (p)->scale)
#define QUOTIENT_f16(v, p) qlinear_quotient_f16((v), (p))
#define ONE_f32(v) (v)
#define ONE_f16(v) simdops_f32_to_f16(v)

/* X(xname, T, tname): float x to T */
#define QUANTIZE_KERNEL(xname, T, tname)                                                          \
    static void SIMDOPS_KERNEL_NAME(tname, quantize_##xname)(const void *xv, void *yv, size_t n, \
                                                             const simdops_qlinear_params *p)    \
    {                                                                                             \
        const XT_##xname *x = (const XT_##xname *)xv;                                             \
        T *y = (T *)yv;                                                                           \
        for (size_t i = 0; i < n; i++)                                                            \
            y[i] = (T)qlinear_quantize_one(QUOTIENT_##xname(x[i], p), p);                         \
    }
/* X(yname, T, tname): T to float y */
#define DEQUANTIZE_KERNEL(yname, T, tname)                                                        \
    static void SIMDOPS_KERNEL_NAME(tname, dequantize_##yname)(const void *xv, void *yv,         \
                                                               size_t n,                         \
                                                               const simdops_qlinear_params *p)  \
    {                                                                                             \
        const T *x = (const T *)xv;                                                               \
        XT_##yname *y = (XT_##yname *)yv;                                                         \
        for (size_t i = 0; i < n; i++)                                                            \
            y[i] = ONE_##yname(qlinear_dequantize_one((int32_t)x[i], p));                         \
    }

QL_QUANTIZED_TYPES(QUANTIZE_KERNEL, f32)
QL_QUANTIZED_TYPES(QUANTIZE_KERNEL, f16)
QL_QUANTIZED_TYPES(DEQUANTIZE_KERNEL, f32)
QL_QUANTIZED_TYPES(DEQUANTIZE_KERNEL, f16)

/* int32 x: its zero point is 0 (checked), and float32(x) rounds like numpy's astype */
static void i32_dequantize_f32__scalar(const void *xv, void *yv, size_t n,
                                       const simdops_qlinear_params *p)
{
    const int32_t *x = (const int32_t *)xv;
    float *y = (float *)yv;
    for (size_t i = 0; i < n; i++)
        y[i] = (float)x[i] * p->scale;
}

static void i32_dequantize_f16__scalar(const void *xv, void *yv, size_t n,
                                       const simdops_qlinear_params *p)
{
    const int32_t *x = (const int32_t *)xv;
    uint16_t *y = (uint16_t *)yv;
    for (size_t i = 0; i < n; i++)
        y[i] = simdops_f32_to_f16((float)x[i] * p->scale);
}

SIMDOPS_DEFINE_REGISTER(qlinear, QLINEAR_KERNELS)
