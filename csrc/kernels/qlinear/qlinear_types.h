/* The one list of ONNX QuantizeLinear / DequantizeLinear kernel instances:
 * every tier expands it to instantiate its kernels and to register them, so a
 * type added here is added to every tier at once (XNNPACK's one table, as
 * X-macros). X(T, tname, D): the integer C type, its name in kernel names and
 * its simdops_dtype. The including file defines QL_TIER (scalar, sse2, ...)
 * before the registration macros expand. */
#ifndef SIMDOPS_QLINEAR_TYPES_H
#define SIMDOPS_QLINEAR_TYPES_H

/* the types QuantizeLinear writes, and DequantizeLinear reads with a zero point */
#define QL_QUANTIZED_TYPES(X)                                                                  \
    X(uint8_t, u8, SIMDOPS_UINT8)                                                              \
    X(int8_t, i8, SIMDOPS_INT8)                                                                \
    X(uint16_t, u16, SIMDOPS_UINT16)                                                           \
    X(int16_t, i16, SIMDOPS_INT16)
/* DequantizeLinear reads int32 too (its zero point is 0); QuantizeLinear never writes it */
#define QL_DEQUANTIZED_TYPES(X) QL_QUANTIZED_TYPES(X) X(int32_t, i32, SIMDOPS_INT32)

/* Kernel names: <x>_quantize_<t>__<tier> and <t>_dequantize_<y>__<tier>, x and y
 * f32 or f16 (the float side's type) */
#define QL_CAT3_(a, b, c) a##b##c
#define QL_CAT3(a, b, c) QL_CAT3_(a, b, c)
#define QL_QUANTIZE_NAME(xname, tname) QL_CAT3(xname##_quantize_##tname, __, QL_TIER)
#define QL_DEQUANTIZE_NAME(tname, yname) QL_CAT3(tname##_dequantize_##yname, __, QL_TIER)

/* registration lines, inside a register function whose table is t: float32 and
 * float16 on the float side, or float32 only (tiers that leave float16 to
 * the tier below) */
#define QL_SET_QUANTIZE(T, tname, D)                                                           \
    t->quantize_f32[D] = QL_QUANTIZE_NAME(f32, tname);                                         \
    t->quantize_f16[D] = QL_QUANTIZE_NAME(f16, tname);
#define QL_SET_DEQUANTIZE(T, tname, D)                                                         \
    t->dequantize_f32[D] = QL_DEQUANTIZE_NAME(tname, f32);                                     \
    t->dequantize_f16[D] = QL_DEQUANTIZE_NAME(tname, f16);
#define QL_SET_QUANTIZE_F32(T, tname, D) t->quantize_f32[D] = QL_QUANTIZE_NAME(f32, tname);
#define QL_SET_DEQUANTIZE_F32(T, tname, D) t->dequantize_f32[D] = QL_DEQUANTIZE_NAME(tname, f32);

#endif
