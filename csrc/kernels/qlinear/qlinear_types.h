/* The one list of ONNX QuantizeLinear / DequantizeLinear kernel instances:
 * every tier expands it to instantiate its kernels and to name them for
 * registration, so a type added here is added to every tier at once (XNNPACK's
 * one table, as X-macros). X(A, T, tname): the caller's argument A passed
 * through, the integer C type and its dtype tag (SIMDOPS_DT_<tname>). */
#ifndef SIMDOPS_QLINEAR_TYPES_H
#define SIMDOPS_QLINEAR_TYPES_H

/* the types QuantizeLinear writes, and DequantizeLinear reads with a zero point */
#define QL_QUANTIZED_TYPES(X, A) X(A, uint8_t, u8) X(A, int8_t, i8) X(A, uint16_t, u16) X(A, int16_t, i16)
/* DequantizeLinear reads int32 too (its zero point is 0); QuantizeLinear never writes it */
#define QL_DEQUANTIZED_TYPES(X, A) QL_QUANTIZED_TYPES(X, A) X(A, int32_t, i32)

/* The (entry, tag) lists of SIMDOPS_DEFINE_REGISTER: kernels are named
 * <t>_quantize_<x>__<tier> (x the float input, f32 or f16) and
 * <t>_dequantize_<y>__<tier> (y the float output). QLINEAR_KERNELS_F32 is for
 * tiers that leave float16 to the tier below. */
#define QL_X_QUANTIZE_F32(R, T, tname) R(quantize_f32, tname)
#define QL_X_QUANTIZE_F16(R, T, tname) R(quantize_f16, tname)
#define QL_X_DEQUANTIZE_F32(R, T, tname) R(dequantize_f32, tname)
#define QL_X_DEQUANTIZE_F16(R, T, tname) R(dequantize_f16, tname)
#define QLINEAR_KERNELS_F32(R)                                                                   \
    QL_QUANTIZED_TYPES(QL_X_QUANTIZE_F32, R) QL_DEQUANTIZED_TYPES(QL_X_DEQUANTIZE_F32, R)
#define QLINEAR_KERNELS(R)                                                                       \
    QLINEAR_KERNELS_F32(R)                                                                       \
    QL_QUANTIZED_TYPES(QL_X_QUANTIZE_F16, R) QL_DEQUANTIZED_TYPES(QL_X_DEQUANTIZE_F16, R)

#endif
