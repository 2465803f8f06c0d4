/* simdops public C API: tensor views, parameters, N-d entry points, ISA control.
 * Semantics are those of SPEC.md §3; every entry point returns a status code
 * instead of crashing on bad input. */
#ifndef SIMDOPS_SIMDOPS_H
#define SIMDOPS_SIMDOPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMDOPS_VERSION_MAJOR 0
#define SIMDOPS_VERSION_MINOR 1
#define SIMDOPS_MAX_DIMS 64

/* Values are DirectML's DML_TENSOR_DATA_TYPE (SPEC §2). */
typedef enum simdops_dtype {
    SIMDOPS_UNKNOWN = 0,
    SIMDOPS_FLOAT32 = 1,
    SIMDOPS_FLOAT16 = 2,
    SIMDOPS_UINT32 = 3,
    SIMDOPS_UINT16 = 4,
    SIMDOPS_UINT8 = 5,
    SIMDOPS_INT32 = 6,
    SIMDOPS_INT16 = 7,
    SIMDOPS_INT8 = 8,
    SIMDOPS_FLOAT64 = 9,
    SIMDOPS_UINT64 = 10,
    SIMDOPS_INT64 = 11,
    SIMDOPS_DTYPE_COUNT = 12
} simdops_dtype;

typedef enum simdops_status {
    SIMDOPS_OK = 0,
    SIMDOPS_E_DTYPE = 1,     /* dtype not supported by this op */
    SIMDOPS_E_SHAPE = 2,     /* shapes differ, bad ndim, bad per-channel length */
    SIMDOPS_E_PARAM = 3,     /* NaN parameter, shift out of range, bad axis, ... */
    SIMDOPS_E_OVERLAP = 4,   /* output maps two elements to one address */
    SIMDOPS_E_NOMEM = 5,
    SIMDOPS_E_ISA = 6        /* unknown ISA name, or not available here */
} simdops_status;

/* A strided view; strides are in bytes and may be negative or zero (inputs). */
typedef struct simdops_tensor {
    void *data;
    simdops_dtype dtype;
    int ndim;
    int64_t shape[SIMDOPS_MAX_DIMS];
    int64_t strides[SIMDOPS_MAX_DIMS];
} simdops_tensor;

/* A parameter as the caller gave it: a double, or an exact integer.
 * It is converted to the tensor's type once, as SPEC §3 says. */
typedef enum simdops_number_kind {
    SIMDOPS_NUM_FLOAT = 0,
    SIMDOPS_NUM_INT = 1,   /* .i holds it exactly */
    SIMDOPS_NUM_UINT = 2   /* .u holds it exactly (values above INT64_MAX) */
} simdops_number_kind;

typedef struct simdops_number {
    simdops_number_kind kind;
    double f;
    int64_t i;
    uint64_t u;
} simdops_number;

/* One element of any supported type. float16 parameters are stored widened in
 * .f32 (exactly); kernels narrow them back when they need the bits. */
typedef union simdops_value {
    float f32;
    double f64;
    uint16_t f16;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
} simdops_value;

/* Parameters of the contiguous kernels, already in the tensor's type. */
typedef struct simdops_clip_params {
    simdops_value min, max;
    float scale, bias; /* read by the scale_bias kernels only */
} simdops_clip_params;

/* shrink: y = x > thr ? x - bias : x < neg_thr ? x + bias : 0 (NaN passes through).
 * Integers: bias is B wrapped to the type; the saturating forms are
 *   x - B -> clamp(x, sub_lo, sub_hi) - B   and   x + B -> clamp(x, add_lo, add_hi) + B
 * with wrapping arithmetic, which never wraps once x is clamped. */
typedef struct simdops_shrink_params {
    simdops_value thr, neg_thr, bias;
    simdops_value sub_lo, sub_hi, add_lo, add_hi;
} simdops_shrink_params;

/* requant, per tensor: q = RDBPOT(SRDHM(wrap32(a << left_shift), multiplier), right_shift);
 * y = clamp(wrap32(q + offset), min, max), bounds already inside the output type. */
typedef struct simdops_requant_params {
    int32_t multiplier;
    int32_t left_shift;  /* max(-shift, 0) */
    int32_t right_shift; /* max(shift, 0) */
    int32_t offset;
    int32_t min, max;
} simdops_requant_params;

/* Arguments of the N-d requant entry point. */
typedef struct simdops_requant_args {
    int32_t multiplier, shift;                  /* per tensor, when the arrays are NULL */
    const simdops_tensor *multipliers, *shifts; /* per channel: int32 1-D, len = last dim */
    const simdops_tensor *bias;                 /* NULL or int32 1-D, len = last dim */
    int32_t offset;
    int32_t min, max;                           /* min == max: no clamp (ACL) */
} simdops_requant_args;

/* N-d entry points. y must have x's shape (requant: uint8/int8/int16 output),
 * no two elements at one address; y may be x (same layout) for in-place use,
 * any other overlap behaves as if the inputs were copied first. */
int simdops_clip(const simdops_tensor *x, const simdops_tensor *y, simdops_number min,
                 simdops_number max, const float *scale_bias /* NULL or {scale, bias} */);
int simdops_shrink(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                   simdops_number threshold);
int simdops_hardmax(const simdops_tensor *x, const simdops_tensor *y, int naxes,
                    const int *axes);
int simdops_requant(const simdops_tensor *x, const simdops_tensor *y,
                    const simdops_requant_args *args);

/* Parameter conversion (SPEC §3), exposed so that callers and tests share it. */
int simdops_clip_params_init(simdops_dtype dtype, simdops_number min, simdops_number max,
                             const float *scale_bias, simdops_clip_params *p);
int simdops_shrink_params_init(simdops_dtype dtype, simdops_number bias,
                               simdops_number threshold, simdops_shrink_params *p);

/* Contiguous 1-D forms: n elements, x and y may be the same pointer. The
 * params must come from the *_params_init functions above (the SIMD kernels
 * rely on the invariants those establish). */
int simdops_clip_1d(simdops_dtype dtype, const void *x, void *y, int64_t n,
                    const simdops_clip_params *p, int scale_bias);
int simdops_shrink_1d(simdops_dtype dtype, const void *x, void *y, int64_t n,
                      const simdops_shrink_params *p);

size_t simdops_dtype_size(simdops_dtype dtype);
/* double -> float32, round to nearest even, overflow to +-inf. */
float simdops_f32_from_f64(double d);
const char *simdops_status_message(int status);

/* ISA control. Names: "scalar", "sse2", "sse41", "avx2", "neon". */
const char *simdops_isa(void);
int simdops_use_isa(const char *name);
/* Writes up to cap names of available ISAs (compiled and supported), lowest first. */
int simdops_available_isas(const char **names, int cap);
/* Every ISA this build knows, compiled or not, lowest first. */
int simdops_known_isas(const char **names, int cap);
/* CPU features as a space-separated string, e.g. "sse2 sse41 avx avx2 f16c osxsave". */
const char *simdops_cpu_features(void);

#ifdef __cplusplus
}
#endif
#endif
