/* The rules of the low-bit QuantizeLinear / DequantizeLinear (simdops_qdq_call):
 * types per role and opset, attributes, the scale / zero-point layout (per
 * tensor, per axis, blocked), and the plan the driver (api_qlow.c) runs. */
#ifndef SIMDOPS_QLOW_RULES_H
#define SIMDOPS_QLOW_RULES_H

#include "simdops/simdops.h"
#include "core/qlow_abi.h"

/* x as [outer, dim, inner] around the axis; the scale as [outer, nblocks,
 * inner] with nblocks = ceil(dim / block): element (m, d, k) reads scale
 * (m, d / block, k). Per tensor: outer = inner = 1, block = dim = numel. */
typedef struct simdops_qlow_plan {
    int quantize;
    int qt;     /* the quantized side's qtype (y of quantize, x of dequantize) */
    int ft;     /* the float side's simdops_qfloat (x of quantize, y of dequantize) */
    int scale_qt, zp_qt; /* zp_qt -1: none */
    int64_t numel, outer, dim, inner, block, nblocks;
    int use_zp; /* the zero point takes part in the arithmetic */
    simdops_qlow_params params; /* div, pre, saturate, has_zp */
    int scale_round; /* simdops_qround the scales take (the precision attribute) */
} simdops_qlow_plan;

int simdops_qlow_check(const simdops_qdq_call *c, int quantize, simdops_qlow_plan *plan,
                       simdops_error *err);

#endif
