/* The quantized binary ops' parameter rules and derivation (qbinary.c). */
#ifndef SIMDOPS_RULES_QBINARY_H
#define SIMDOPS_RULES_QBINARY_H

#include "core/kernel_abi.h"

/* Validates args for `dtype` and derives the runtime's parameters (args->op
 * and ->arithmetic pick the formula); err->op becomes args->op. */
int simdops_qbinary_params_init(simdops_dtype dtype, const simdops_qbinary_args *args,
                                simdops_qbinary_params *p, simdops_error *err);
/* TFLite's QuantizeMultiplier of a finite m >= 0 (no single rounding). */
void simdops_tflite_quantize_multiplier(double m, int32_t *q, int *shift);
/* Up to cap (name, value) pairs of a prepared handle's derived parameters;
 * returns how many there are. The handle must come from simdops_prepare_qbinary. */
int simdops_qbinary_describe(const simdops_prepared *prep, const char **names, double *values,
                             int cap);

#endif
