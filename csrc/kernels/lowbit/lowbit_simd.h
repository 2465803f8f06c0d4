/* The SIMD tiers' low-bit hot paths: int4 / uint4 dequantize (to float32,
 * float16, bfloat16) and quantize from float32, float8 e4m3fn / e5m2
 * quantize from and dequantize to float32. One parameter block; a kernel runs
 * n contiguous elements whose packed side starts on a whole byte (the caller
 * runs an odd first nibble itself). scales != NULL: per element (scales[i],
 * zps[i]); otherwise scale and zp for all n. Element semantics:
 * lowbit_simd_element.h. */
#ifndef SIMDOPS_LOWBIT_SIMD_H
#define SIMDOPS_LOWBIT_SIMD_H

#include <stddef.h>
#include <stdint.h>

/* float8 kinds the SIMD tiers run */
enum { LBS_E4M3FN = 0, LBS_E5M2 = 1 };

typedef struct lbs_params {
    float scale;          /* one scale for every element (scales == NULL) */
    int32_t zp;           /* its zero point (int4: -8..7, uint4: 0..15; float8: 0) */
    const float *scales;  /* or one per element */
    const int8_t *zps;    /* with scales: one zero point per element */
    int is_signed;        /* int4 (1) or uint4 (0) */
    int kind;             /* float8: LBS_E4M3FN or LBS_E5M2 */
    int saturate;         /* float8 quantize */
} lbs_params;

typedef void (*lbs_fn)(const void *x, void *y, size_t n, const lbs_params *p);

/* X(name, x type, y type) */
#define LBS_KERNELS(X)                     \
    X(dq4_f32, uint8_t, float)             \
    X(dq4_f16, uint8_t, uint16_t)          \
    X(dq4_bf16, uint8_t, uint16_t)         \
    X(q4_f32, float, uint8_t)              \
    X(q8f_f32, float, uint8_t)             \
    X(dq8f_f32, uint8_t, float)

#define LBS_DECLARE(name, xt, yt) \
    void simdops_lbs_##name##__scalar(const void *x, void *y, size_t n, const lbs_params *p); \
    void simdops_lbs_##name##__avx2(const void *x, void *y, size_t n, const lbs_params *p);   \
    void simdops_lbs_##name##__avx512(const void *x, void *y, size_t n, const lbs_params *p);
LBS_KERNELS(LBS_DECLARE)
#undef LBS_DECLARE

#endif
