/* Reference kernels of ONNX QuantizeLinear / DequantizeLinear (one scale and
 * zero point per call; see simdops_qlinear_params). Rounding is computed
 * explicitly (floor + compare), so the result never depends on the
 * floating-point environment's rounding mode. */
#include "qlinear_element.h"
#include "qlinear_types.h"

#define QUANTIZE_KERNELS(T, tname, D)                                                           \
    static void f32_quantize_##tname##__scalar(const void *xv, void *yv, size_t n,             \
                                               const simdops_qlinear_params *p)                \
    {                                                                                          \
        const float *x = (const float *)xv;                                                    \
        T *y = (T *)yv;                                                                        \
        for (size_t i = 0; i < n; i++)                                                         \
            y[i] = (T)qlinear_quantize_one(x[i] / p->scale, p);                                        \
    }                                                                                          \
    static void f16_quantize_##tname##__scalar(const void *xv, void *yv, size_t n,             \
                                               const simdops_qlinear_params *p)                \
    {                                                                                          \
        const uint16_t *x = (const uint16_t *)xv;                                              \
        T *y = (T *)yv;                                                                        \
        for (size_t i = 0; i < n; i++)                                                         \
            y[i] = (T)qlinear_quantize_one(qlinear_quotient_f16(x[i], p), p);                                  \
    }                                                                                          \
    static void tname##_dequantize_f32__scalar(const void *xv, void *yv, size_t n,             \
                                               const simdops_qlinear_params *p)                \
    {                                                                                          \
        const T *x = (const T *)xv;                                                            \
        float *y = (float *)yv;                                                                \
        for (size_t i = 0; i < n; i++)                                                         \
            y[i] = qlinear_dequantize_one((int32_t)x[i], p);                          \
    }                                                                                          \
    static void tname##_dequantize_f16__scalar(const void *xv, void *yv, size_t n,             \
                                               const simdops_qlinear_params *p)                \
    {                                                                                          \
        const T *x = (const T *)xv;                                                            \
        uint16_t *y = (uint16_t *)yv;                                                          \
        for (size_t i = 0; i < n; i++)                                                         \
            y[i] = simdops_f32_to_f16(qlinear_dequantize_one((int32_t)x[i], p));      \
    }

QL_QUANTIZED_TYPES(QUANTIZE_KERNELS)

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

#define QL_TIER scalar
int qlinear_register__scalar(simdops_kernel_table *t)
{
    QL_QUANTIZED_TYPES(QL_SET_QUANTIZE)
    QL_DEQUANTIZED_TYPES(QL_SET_DEQUANTIZE)
    return 1;
}
