/* Reference kernels of the quantized binary ops: one element at a time through
 * qbinary_element.h, in each broadcast form (both vectors, or a / b one element). */
#define SIMDOPS_TIER scalar
#include "qbinary_element.h"

/* X(tag, T): the input/output types of each arithmetic */
#define QB_TYPES_ALL(X) X(u8, uint8_t) X(i8, int8_t) X(i16, int16_t)
#define QB_TYPES_8BIT(X) X(u8, uint8_t) X(i8, int8_t)

/* An integer arithmetic: the form only says where a and b are read. */
#define QB_INT_KERNEL(entry, ONE, tag, T)                                                         \
    static void SIMDOPS_KERNEL_NAME(tag, entry)(const void *av, const void *bv, void *yv,        \
                                                size_t n, int form,                              \
                                                const simdops_qbinary_params *p)                 \
    {                                                                                             \
        const T *a = (const T *)av;                                                               \
        const T *b = (const T *)bv;                                                               \
        T *y = (T *)yv;                                                                           \
        if (form == SIMDOPS_QB_SV) {                                                              \
            const int32_t a0 = a[0];                                                              \
            for (size_t i = 0; i < n; i++)                                                        \
                y[i] = (T)ONE(a0, (int32_t)b[i], p);                                              \
        } else if (form == SIMDOPS_QB_VS) {                                                       \
            const int32_t b0 = b[0];                                                              \
            for (size_t i = 0; i < n; i++)                                                        \
                y[i] = (T)ONE((int32_t)a[i], b0, p);                                              \
        } else {                                                                                  \
            for (size_t i = 0; i < n; i++)                                                        \
                y[i] = (T)ONE((int32_t)a[i], (int32_t)b[i], p);                                   \
        }                                                                                         \
    }
#define QB_TFLITE_ADD(tag, T) QB_INT_KERNEL(qadd_tflite, qb_tflite_add_one, tag, T)
#define QB_TFLITE_MUL(tag, T) QB_INT_KERNEL(qmul_tflite, qb_tflite_mul_one, tag, T)
#define QB_XNNPACK_ADD(tag, T) QB_INT_KERNEL(qadd_xnnpack, qb_xnnpack_add_one, tag, T)
#define QB_FP_MUL(tag, T) QB_INT_KERNEL(qmul_fp, qb_fp_mul_one, tag, T)
QB_TYPES_ALL(QB_TFLITE_ADD)
QB_TYPES_ALL(QB_TFLITE_MUL)
QB_TYPES_8BIT(QB_XNNPACK_ADD)
QB_TYPES_8BIT(QB_FP_MUL)

/* ONNX Runtime's add: a one-element input is read as that element for every i
 * (measured against onnxruntime 1.32: a broadcast scalar gives the bits of the
 * same-shape call, so MLAS's folded-constant form for a scalar input is not what
 * its QLinearAdd runs). */
#define QB_ORT_ADD(tag, T) QB_INT_KERNEL(qadd_ort, qb_ort_add_vv, tag, T)
QB_TYPES_8BIT(QB_ORT_ADD)

#define QBINARY_KERNELS(X)                                                                        \
    X(qadd_tflite, u8) X(qadd_tflite, i8) X(qadd_tflite, i16)                                     \
    X(qmul_tflite, u8) X(qmul_tflite, i8) X(qmul_tflite, i16)                                     \
    X(qadd_xnnpack, u8) X(qadd_xnnpack, i8)                                                       \
    X(qmul_fp, u8) X(qmul_fp, i8)                                                                 \
    X(qadd_ort, u8) X(qadd_ort, i8)
SIMDOPS_DEFINE_REGISTER(qbinary, QBINARY_KERNELS)
