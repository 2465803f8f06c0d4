/* Reference kernels of ONNX QuantizeLinear / DequantizeLinear (one scale and
 * zero point per call; see simdops_qlinear_params). Rounding is computed
 * explicitly (floor + compare), so the result never depends on the
 * floating-point environment's rounding mode. */
#include "qlinear_element.h"

#define QUANTIZE_KERNELS(T, tname)                                                             \
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

QUANTIZE_KERNELS(uint8_t, u8)
QUANTIZE_KERNELS(int8_t, i8)
QUANTIZE_KERNELS(uint16_t, u16)
QUANTIZE_KERNELS(int16_t, i16)

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

#define QL_SET(T, D, tname)                                                                    \
    t->quantize_f32[D] = f32_quantize_##tname##__scalar;                                        \
    t->quantize_f16[D] = f16_quantize_##tname##__scalar;                                        \
    t->dequantize_f32[D] = tname##_dequantize_f32__scalar;                                      \
    t->dequantize_f16[D] = tname##_dequantize_f16__scalar;

int qlinear_register__scalar(simdops_kernel_table *t)
{
    QL_SET(uint8_t, SIMDOPS_UINT8, u8)
    QL_SET(int8_t, SIMDOPS_INT8, i8)
    QL_SET(uint16_t, SIMDOPS_UINT16, u16)
    QL_SET(int16_t, SIMDOPS_INT16, i16)
    t->dequantize_f32[SIMDOPS_INT32] = i32_dequantize_f32__scalar;
    t->dequantize_f16[SIMDOPS_INT32] = i32_dequantize_f16__scalar;
    return 1;
}
