/* The ONNX profile's quantized and scale types, one list: SIMDOPS_QTYPES.
 * Codes are ONNX TensorProto data types. The low-bit QuantizeLinear /
 * DequantizeLinear (api_qlow.c), its rules (rules/qlow_rules.c), its kernel
 * table (kernels/qlow/, dispatch/qlow_dispatch.c) and Python
 * (_core.qtypes()) read it; nothing else names these types.
 *
 * X(NAME, tag, onnx code, bits, kind, lo, hi, first opset as QuantizeLinear's
 *   output, first opset as DequantizeLinear's input, ml_dtypes / numpy name)
 * kind: QT_INT (integer; lo/hi its range), QT_F8 / QT_F4 (float formats,
 * qlow_element.h), QT_FLOAT (float32 / float16 / bfloat16: x, scale, y),
 * QT_E8M0 (scale only). Opset 0: never in that role. */
#ifndef SIMDOPS_QTYPE_H
#define SIMDOPS_QTYPE_H

#include <stdint.h>

enum simdops_qtype_kind { QT_FLOAT = 0, QT_INT = 1, QT_F8 = 2, QT_F4 = 3, QT_E8M0 = 4 };

#define SIMDOPS_QTYPES(X)                                                                         \
    X(FLOAT32, f32, 1, 32, QT_FLOAT, 0, 0, 0, 0, "float32")                                       \
    X(FLOAT16, f16, 10, 16, QT_FLOAT, 0, 0, 0, 0, "float16")                                      \
    X(BFLOAT16, bf16, 16, 16, QT_FLOAT, 0, 0, 0, 0, "bfloat16")                                   \
    X(UINT8, u8, 2, 8, QT_INT, 0, 255, 10, 10, "uint8")                                           \
    X(INT8, i8, 3, 8, QT_INT, -128, 127, 10, 10, "int8")                                          \
    X(UINT16, u16, 4, 16, QT_INT, 0, 65535, 21, 21, "uint16")                                     \
    X(INT16, i16, 5, 16, QT_INT, -32768, 32767, 21, 21, "int16")                                  \
    X(INT32, i32, 6, 32, QT_INT, -2147483647 - 1, 2147483647, 0, 10, "int32")                     \
    X(UINT4, u4, 21, 4, QT_INT, 0, 15, 21, 21, "uint4")                                           \
    X(INT4, i4, 22, 4, QT_INT, -8, 7, 21, 21, "int4")                                             \
    X(UINT2, u2, 25, 2, QT_INT, 0, 3, 25, 25, "uint2")                                            \
    X(INT2, i2, 26, 2, QT_INT, -2, 1, 25, 25, "int2")                                             \
    X(FLOAT8E4M3FN, e4m3fn, 17, 8, QT_F8, 0, 0, 19, 19, "float8_e4m3fn")                          \
    X(FLOAT8E4M3FNUZ, e4m3fnuz, 18, 8, QT_F8, 0, 0, 19, 19, "float8_e4m3fnuz")                    \
    X(FLOAT8E5M2, e5m2, 19, 8, QT_F8, 0, 0, 19, 19, "float8_e5m2")                                \
    X(FLOAT8E5M2FNUZ, e5m2fnuz, 20, 8, QT_F8, 0, 0, 19, 19, "float8_e5m2fnuz")                    \
    X(FLOAT4E2M1, f4e2m1, 23, 4, QT_F4, 0, 0, 23, 23, "float4_e2m1fn")                            \
    X(FLOAT8E8M0, e8m0, 24, 8, QT_E8M0, 0, 0, 0, 0, "float8_e8m0fnu")

/* SIMDOPS_QT_<tag>: a type's index in the list (the kernel table's slot). */
enum simdops_qtype {
#define SIMDOPS_X_QT_ENUM(NAME, tag, ...) SIMDOPS_QT_##tag,
    SIMDOPS_QTYPES(SIMDOPS_X_QT_ENUM)
#undef SIMDOPS_X_QT_ENUM
    SIMDOPS_QT_COUNT
};

typedef struct simdops_qtype_row {
    const char *name;   /* ml_dtypes' / numpy's name */
    int32_t onnx;       /* TensorProto code */
    int32_t bits;       /* storage bits of one element (packed 4/2-bit types: 4/2) */
    int32_t kind;       /* simdops_qtype_kind */
    int64_t lo, hi;     /* QT_INT: the range */
    int32_t q_opset;    /* first opset QuantizeLinear writes it (0: never) */
    int32_t dq_opset;   /* first opset DequantizeLinear reads it (0: never) */
} simdops_qtype_row;

extern const simdops_qtype_row simdops_qtype_rows[SIMDOPS_QT_COUNT];

/* The index of an ONNX TensorProto code, or -1. */
int simdops_qtype_of_onnx(int32_t onnx);

#endif
