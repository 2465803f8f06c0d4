/* What a low-bit QuantizeLinear / DequantizeLinear kernel sees (kernels/qlow/):
 * the run parameters and the four kernel signatures. The slots of the table
 * (dispatch/qlow_dispatch.h) are indexed by the simdops_qtype of the
 * quantized side (core/qtype.h) and by the float side: SIMDOPS_QF_F32 / _F16 /
 * _BF16.
 *
 * Element addressing. A quantized operand is (base, first): element i of the
 * call is element first + i of the stream at base. 4-bit types hold two
 * elements a byte, 2-bit types four, low bits first (element k at bits
 * (k % per_byte) * bits of byte k / per_byte: ONNX's packing); 8/16/32-bit
 * types are plain arrays of their C type (first counts elements). A kernel
 * reads no byte outside the elements it covers, and a quantize kernel writes
 * only its elements' bits (the other bits of a shared first / last byte are
 * kept: read-modify-write). Float operands are plain arrays, no alignment
 * assumed. n may be 0.
 *
 * The arithmetic, as onnx.reference computes it (numpy / ml_dtypes):
 *   dequantize: y = OUT(float32(x - zp) * scale)   (x - zp exact; float8 and
 *     float4 x: float32(x) * scale, zero point unused; a NaN x gives its own
 *     NaN (0x7fc00000 | sign) even when the scale is NaN too: numpy's product
 *     returns its first NaN operand); OUT the float32
 *     product rounded to float16 / bfloat16 (RNE; bfloat16 NaN: 0x7fc0 | sign).
 *   quantize: q = x / scale in float32, then rounded to float16 / bfloat16
 *     when p->div says so (numpy's float16 / bfloat16 division: float32
 *     division rounded once more gives the same bits); x is first rounded to
 *     p->pre's type (the precision attribute) when set;
 *     integer types: clamp q to [lo - zp, hi - zp] (NaN -> lo - zp), round half
 *       to even, + zp;
 *     float8: RNE to the format; saturate: |v| beyond the largest finite
 *       (and +-inf) -> +-largest; otherwise e4m3fn -> NaN (0x7f | sign),
 *       e5m2 -> +-inf, fnuz -> 0x80; NaN -> the format's NaN (e4m3fn 0x7f|s,
 *       e5m2 0x7e|s, fnuz 0x80); fnuz has no -0 (-0 and negative underflow
 *       -> 0x00);
 *     float4e2m1: (q + zp in float32, rounded to bfloat16 when div is BF16)
 *       when the call has a zero point, then RNE saturating to +-6; NaN -> a
 *       zero of the opposite sign (ml_dtypes' bits: +NaN -> 0x8, -NaN -> 0x0). */
#ifndef SIMDOPS_QLOW_ABI_H
#define SIMDOPS_QLOW_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "core/qtype.h"

/* the float side of a kernel: x of quantize, y of dequantize */
enum simdops_qfloat { SIMDOPS_QF_F32 = 0, SIMDOPS_QF_F16 = 1, SIMDOPS_QF_BF16 = 2, SIMDOPS_QF_COUNT = 3 };
/* rounding of a quotient (div) or of x before dividing (pre) */
enum simdops_qround { SIMDOPS_QR_NONE = 0, SIMDOPS_QR_F16 = 1, SIMDOPS_QR_BF16 = 2 };

typedef struct simdops_qlow_params {
    float scale;        /* run kernels: the scale, exact in float32 (quantize: already
                         * rounded to the division's type) */
    int32_t zero_point; /* run kernels, integer types: the zero point */
    float zp_f;         /* run kernels: the zero point as float32 (integer types: exact;
                         * float4: its value) */
    int32_t has_zp;     /* float4 quantize: add zp_f (a call without a zero point does
                         * not add 0: -0.0 stays -0.0) */
    int32_t div;        /* quantize: simdops_qround of the quotient */
    int32_t pre;        /* quantize: simdops_qround of x before the division */
    int32_t saturate;   /* float8 quantize: 1 saturate, 0 overflow to inf / NaN */
} simdops_qlow_params;

/* One scale and zero point for the n elements (per tensor; a block along the
 * last axis; one channel). x quantized (base, first), y floats. */
typedef void (*simdops_qlow_dq_run_fn)(const void *x, size_t first, size_t n, void *y,
                                       const simdops_qlow_params *p);
/* Element i has its own scale[i] and zero point zp[i] (float32, exact integer
 * values; NULL: 0): a row of a tensor blocked or quantized per axis on a
 * non-last axis (ORT's int4 weights: DequantizeLinear(axis=0, block_size=32)
 * on [K, N] is K rows of N, row k reading scale row k / 32). p gives the rest
 * (its scale / zero-point fields unused). */
typedef void (*simdops_qlow_dq_row_fn)(const void *x, size_t first, size_t n, void *y,
                                       const float *scale, const float *zp,
                                       const simdops_qlow_params *p);
/* quantize: x floats, y quantized (base, first) */
typedef void (*simdops_qlow_q_run_fn)(const void *x, size_t n, void *y, size_t first,
                                      const simdops_qlow_params *p);
typedef void (*simdops_qlow_q_row_fn)(const void *x, size_t n, void *y, size_t first,
                                      const float *scale, const float *zp,
                                      const simdops_qlow_params *p);

/* The table (one per tier; a NULL entry inherits the parent tier's).
 * [qtype][float side]; dequantize's qtype is x's, quantize's y's. */
#define SIMDOPS_QLOW_ENTRIES(X)                                                                   \
    X(dq_run, simdops_qlow_dq_run_fn)                                                             \
    X(dq_row, simdops_qlow_dq_row_fn)                                                             \
    X(q_run, simdops_qlow_q_run_fn)                                                               \
    X(q_row, simdops_qlow_q_row_fn)

typedef struct simdops_qlow_table {
#define SIMDOPS_X_QLOW_FIELD(field, type) type field[SIMDOPS_QT_COUNT][SIMDOPS_QF_COUNT];
    SIMDOPS_QLOW_ENTRIES(SIMDOPS_X_QLOW_FIELD)
#undef SIMDOPS_X_QLOW_FIELD
} simdops_qlow_table;

#endif
