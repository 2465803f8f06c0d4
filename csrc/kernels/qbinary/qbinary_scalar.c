/* Reference kernels of the quantized binary ops: one element at a time through
 * qbinary_element.h, in each broadcast form (qbinary_form.h). */
#define SIMDOPS_TIER scalar
#include "qbinary_element.h"
#include "qbinary_form.h"

/* X(tag, T): the input/output types of each arithmetic */
#define QB_TYPES_ALL(X) X(u8, uint8_t) X(i8, int8_t) X(i16, int16_t)
#define QB_TYPES_8BIT(X) X(u8, uint8_t) X(i8, int8_t)

/* An arithmetic over the form loop alone (no vector rows) */
#define QB_INT_KERNEL(entry, ONE, tag, T) QB_FORM_KERNEL(entry, tag, T, ONE, QB_NO_ROWS)
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
