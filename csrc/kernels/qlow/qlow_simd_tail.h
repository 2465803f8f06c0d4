/* The per-element loops a SIMD tier of the low-bit hot paths runs around its
 * vectors: an odd first nibble, the tail, and the calls its vectors do not
 * cover (a quotient rounded to float16 / bfloat16, the precision attribute).
 * Each element is qlow_element.h's, as in qlow_scalar.c, so these are the
 * reference by construction. */
#ifndef SIMDOPS_QLOW_SIMD_TAIL_H
#define SIMDOPS_QLOW_SIMD_TAIL_H

#include "kernels/qlow/qlow_kernels.h"

/* element k of an int4 (sgn) / uint4 stream as float32 minus zp, times s */
static inline float qs_dq4_one(const void *x, size_t k, int sgn, float zpf, float s)
{
    uint32_t f = qlow_field((const uint8_t *)x, k, 4);
    return ((float)(sgn ? qlow_sext(f, 4) : (int32_t)f) - zpf) * s;
}
/* y[i] for i in [i0, n): element first + i; scale / zp per element when scales != NULL */
static inline void qs_dq4_tail(const void *x, size_t first, size_t i0, size_t n, void *y, int fs, int sgn,
                               float s, float zpf, const float *scales, const float *zps)
{
    for (size_t i = i0; i < n; i++)
        qlow_store_float(fs, y, i, qs_dq4_one(x, first + i, sgn, scales ? (zps ? zps[i] : 0.0f) : zpf,
                                    scales ? scales[i] : s));
}

/* quantize to int4 / uint4: elements [i0, n) of x to elements first + i of y */
static inline void qs_q4_tail(const float *x, size_t i0, size_t n, void *y, size_t first, int sgn,
                              float s, int32_t zp, const float *scales, const float *zps,
                              const simdops_qlow_params *p)
{
    const int32_t lo = sgn ? -8 : 0, hi = sgn ? 7 : 15;
    for (size_t i = i0; i < n; i++) {
        int32_t z = scales ? (zps ? (int32_t)zps[i] : 0) : zp;
        float q = qlow_quotient(x[i], scales ? scales[i] : s, p);
        qlow_set_field((uint8_t *)y, first + i, 4,
                       (uint32_t)qlow_quantize_int(q, (float)(lo - z), (float)(hi - z), z));
    }
}

/* float8 quantize / dequantize. x (quantize) and y (dequantize) are the caller's
 * arrays, which need not be float-aligned (a buffer one byte past a line, or the
 * plain path of a stream fill): their floats are copied as bytes, as in qlow_scalar.c */
static inline void qs_q8f_tail(const float *x, size_t i0, size_t n, uint8_t *y, int qt, const float *scales,
                               const simdops_qlow_params *p)
{
    qlow_format f = qlow_format_of(qt);
    for (size_t i = i0; i < n; i++) {
        float v;
        memcpy(&v, (const char *)x + 4 * i, 4);
        y[i] = (uint8_t)qlow_f32_to_fmt(qlow_quotient(v, scales ? scales[i] : p->scale, p), &f, p->saturate);
    }
}
/* a NaN code keeps its own NaN whatever the scale (numpy's product of two NaNs
 * returns the first) */
static inline void qs_dq8f_tail(const uint8_t *x, size_t i0, size_t n, float *y, int qt, float s,
                                const float *scales)
{
    qlow_format f = qlow_format_of(qt);
    for (size_t i = i0; i < n; i++) {
        float v = qlow_fmt_to_f32(x[i], &f);
        qlow_store_float(SIMDOPS_QF_F32, y, i, v != v ? v : v * (scales ? scales[i] : s));
    }
}

/* the vector paths run float32 quotients only */
static inline int qs_plain_quotient(const simdops_qlow_params *p)
{
    return p->div == SIMDOPS_QR_NONE && p->pre == SIMDOPS_QR_NONE;
}

#endif
