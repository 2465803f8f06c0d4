/* simdops public C API: tensor views, exact parameters, errors with reasons,
 * N-d entry points, prepared parameters with contiguous 1-D kernels, ISA control.
 *
 * What each op computes: docs/semantics.md; this API: docs/c-api.md. Every
 * entry point validates its input and returns a status (simdops_status)
 * instead of crashing; when `err` is not NULL it also receives the reason, the
 * argument and the offending value, and simdops_error_format() turns that into
 * a sentence naming them.
 *
 * Another extension module calls these functions through the capsule table of
 * simdops_capi.h (simdops_capi_NAME), never directly: see "The functions below
 * are simdops' own" further down.
 *
 * Threads: every function below may be called without the GIL and from many
 * threads at once, except simdops_set_process_isa (call it once, at start-up).
 * Kernels run on the calling thread's ISA tier (simdops_set_thread_isa). The
 * N-d entry points split large calls over simdops' thread pool (the process-
 * wide simdops.set_num_threads, default 1); the 1-D kernels never do. */
#ifndef SIMDOPS_SIMDOPS_H
#define SIMDOPS_SIMDOPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMDOPS_VERSION_MAJOR 0
#define SIMDOPS_VERSION_MINOR 2
#define SIMDOPS_MAX_DIMS 64

/* ------------------------------------------------------------------ types */

/* Values are DirectML's DML_TENSOR_DATA_TYPE. Sizes, names and which
 * op supports which type: simdops_dtype_size / _name, simdops_op_supports. */
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

/* Operations, and the role a dtype plays in them (for simdops_op_supports):
 * X(NAME, code, message name). The code is simdops_error.op's value (ABI: a
 * line keeps its code); the message name starts simdops_error_format's text.
 * SIMDOPS_OP_LINES(X, C) holds the lines with C first and a fourth column, the
 * dtypes the op takes (SIMDOPS_DTYPE_BIT of each), which simdops_op_supports
 * reads: an op's dtype set is written on its own line. */
#define SIMDOPS_DTYPE_BIT(d) (1u << SIMDOPS_##d)
#define SIMDOPS_DTYPE_BITS_INT8 (SIMDOPS_DTYPE_BIT(UINT8) | SIMDOPS_DTYPE_BIT(INT8))
#define SIMDOPS_DTYPE_BITS_INTS                                                               \
    (SIMDOPS_DTYPE_BITS_INT8 | SIMDOPS_DTYPE_BIT(UINT16) | SIMDOPS_DTYPE_BIT(INT16) |          \
     SIMDOPS_DTYPE_BIT(UINT32) | SIMDOPS_DTYPE_BIT(INT32))
#define SIMDOPS_DTYPE_BITS_FLOATS                                                             \
    (SIMDOPS_DTYPE_BIT(FLOAT32) | SIMDOPS_DTYPE_BIT(FLOAT16) | SIMDOPS_DTYPE_BIT(FLOAT64))
#define SIMDOPS_DTYPE_BITS_RQ_OUT (SIMDOPS_DTYPE_BITS_INT8 | SIMDOPS_DTYPE_BIT(INT16))
#define SIMDOPS_DTYPE_BITS_QLINEAR (SIMDOPS_DTYPE_BITS_RQ_OUT | SIMDOPS_DTYPE_BIT(UINT16))
#define SIMDOPS_OP_LINES(X, C)                                                                 \
    X(C, NONE, 0, "", 0u)                                                                      \
    X(C, CLIP, 1, "clip", SIMDOPS_DTYPE_BITS_FLOATS | SIMDOPS_DTYPE_BITS_INTS |                \
      SIMDOPS_DTYPE_BIT(UINT64) | SIMDOPS_DTYPE_BIT(INT64))                                     \
    X(C, CLIP_SCALE_BIAS, 2, "clip", /* clip with scale/bias given */                          \
      SIMDOPS_DTYPE_BITS_FLOATS | SIMDOPS_DTYPE_BITS_INTS)                                     \
    X(C, SHRINK, 3, "shrink", SIMDOPS_DTYPE_BITS_FLOATS | SIMDOPS_DTYPE_BITS_INTS)             \
    X(C, HARDMAX, 4, "hardmax", SIMDOPS_DTYPE_BITS_FLOATS)                                     \
    X(C, REQUANT, 5, "quantize", SIMDOPS_DTYPE_BIT(INT32)) /* input dtype */                   \
    X(C, REQUANT_OUT, 6, "quantize", SIMDOPS_DTYPE_BITS_RQ_OUT) /* output dtype */             \
    X(C, QUANTIZE_LINEAR, 7, "quantize_linear", /* ONNX QuantizeLinear: output */              \
      SIMDOPS_DTYPE_BITS_QLINEAR)                                                              \
    X(C, DEQUANTIZE_LINEAR, 8, "dequantize_linear", /* ONNX DequantizeLinear: input */         \
      SIMDOPS_DTYPE_BITS_QLINEAR | SIMDOPS_DTYPE_BIT(INT32))                                   \
    X(C, QUANTIZED_ADD, 9, "quantized_add", SIMDOPS_DTYPE_BITS_RQ_OUT) /* a, b and y */        \
    X(C, QUANTIZED_SUBTRACT, 10, "quantized_subtract", SIMDOPS_DTYPE_BITS_RQ_OUT)              \
    X(C, QUANTIZED_MULTIPLY, 11, "quantized_multiply", SIMDOPS_DTYPE_BITS_RQ_OUT)              \
    X(C, QBINARY_8BIT, 12, "quantized_binary", /* the 8-bit-only arithmetics' kernels */       \
      SIMDOPS_DTYPE_BITS_INT8)                                                                 \
    X(C, INT8_MATMUL, 13, "int8_matmul_accumulators", SIMDOPS_DTYPE_BITS_INT8) /* a's dtype */
/* The three columns every released user of the list expands: X(NAME, code, message name). */
#define SIMDOPS_OPS(X) SIMDOPS_OP_LINES(SIMDOPS_OP_APPLY3_, X)
#define SIMDOPS_OP_APPLY3_(X, name, code, text, dtypes) X(name, code, text)

typedef enum simdops_op {
#define SIMDOPS_X_OP_ENUM(name, code, text) SIMDOPS_OP_##name = code,
    SIMDOPS_OPS(SIMDOPS_X_OP_ENUM)
#undef SIMDOPS_X_OP_ENUM
    SIMDOPS_OP_COUNT
} simdops_op;

typedef enum simdops_status {
    SIMDOPS_OK = 0,
    SIMDOPS_E_DTYPE = 1,   /* dtype not supported / not the one expected (Python: TypeError) */
    SIMDOPS_E_SHAPE = 2,   /* shapes differ, bad ndim, bad per-channel length */
    SIMDOPS_E_PARAM = 3,   /* NaN parameter, shift out of range, bad axis, ... */
    SIMDOPS_E_OVERLAP = 4, /* output maps two elements to one address */
    SIMDOPS_E_NOMEM = 5,
    SIMDOPS_E_ISA = 6      /* unknown ISA name, or not available here */
} simdops_status;

/* Which rule failed. Each reason has one status (simdops_reason_status) and a
 * message template (simdops_reason_message). Values are only ever appended. */
#define SIMDOPS_REASONS(X)                                                                     \
    X(NONE, SIMDOPS_OK, "ok")                                                                  \
    X(NULL_ARG, SIMDOPS_E_PARAM, "%A is NULL")                                                 \
    X(DTYPE_UNKNOWN, SIMDOPS_E_DTYPE, "%A has an unknown dtype value %V")                      \
    X(DTYPE_UNSUPPORTED, SIMDOPS_E_DTYPE, "%A has dtype %D; %O supports: %S")                  \
    X(DTYPE_MISMATCH, SIMDOPS_E_DTYPE, "%A has dtype %D; expected %X")                         \
    X(NDIM, SIMDOPS_E_SHAPE, "%A has %V dimensions; at most 64 are supported")                 \
    X(NEGATIVE_EXTENT, SIMDOPS_E_SHAPE, "%A has extent %V in dimension %I; extents are >= 0")  \
    X(NDIM_MISMATCH, SIMDOPS_E_SHAPE, "%A has %V dimensions; expected %E (those of x)")        \
    X(SHAPE_MISMATCH, SIMDOPS_E_SHAPE,                                                         \
      "%A has extent %V in dimension %I; expected %E (the shape of x)")                        \
    X(NULL_DATA, SIMDOPS_E_PARAM, "%A has elements but a NULL data pointer")                   \
    X(NAN, SIMDOPS_E_PARAM, "%A is NaN")                                                       \
    X(NEGATIVE_THRESHOLD, SIMDOPS_E_PARAM, "%A must be >= 0, got %N")                          \
    X(SCALE_BIAS_64BIT, SIMDOPS_E_PARAM,                                                       \
      "scale/bias are not supported for %D (DirectML has no ScaleBias for 64-bit integers)")   \
    X(NOT_FINITE_F32, SIMDOPS_E_PARAM,                                                         \
      "%A = %N is not finite as a float32; integer tensors need a finite scale and bias")      \
    X(SHIFT_RANGE, SIMDOPS_E_PARAM, "%A must be in [-31, 31], got %V%J")                       \
    X(INT32_RANGE, SIMDOPS_E_PARAM, "%A = %V is outside the int32 range")                      \
    X(BOUND_RANGE, SIMDOPS_E_PARAM,                                                            \
      "%A = %V is outside [%L, %H]; %D output needs %L <= min <= max <= %H")                   \
    X(MIN_ABOVE_MAX, SIMDOPS_E_PARAM, "min = %V is above max = %E; need min <= max")           \
    X(QSYMM16_OFFSET, SIMDOPS_E_PARAM,                                                         \
      "int16 output (QSYMM16) has no offset; offset must be 0, got %V")                        \
    X(AXIS_RANGE, SIMDOPS_E_PARAM, "axis %V is out of range for an array with %E dimensions") \
    X(AXIS_REPEATED, SIMDOPS_E_PARAM, "axis %V is repeated")                                   \
    X(AXES_EMPTY, SIMDOPS_E_PARAM, "axis must name at least one axis")                         \
    X(CHANNELS, SIMDOPS_E_SHAPE,                                                               \
      "%A must be 1-D of length %E (x's last dimension)")                                      \
    X(NEEDS_AXIS, SIMDOPS_E_SHAPE, "%A needs x with at least one dimension")                   \
    X(SELF_OVERLAP, SIMDOPS_E_OVERLAP,                                                         \
      "%A has two elements at one address (a broadcast or overlapping view); it must not")     \
    X(PARTIAL_OVERLAP, SIMDOPS_E_OVERLAP,                                                      \
      "%A overlaps x without being x; the 1-D kernels need y == x or disjoint memory")         \
    X(MISALIGNED, SIMDOPS_E_PARAM, "%A is not aligned to its element size")                    \
    X(NEGATIVE_COUNT, SIMDOPS_E_PARAM, "%A = %V is negative")                                  \
    X(SIZE_OVERFLOW, SIMDOPS_E_PARAM,                                                          \
      "rows * cols = %V * %E is too many elements: they would take %I bytes or more")          \
    X(NOT_PREPARED, SIMDOPS_E_PARAM, "%A was not prepared for %O")                             \
    X(OUT_OF_BOUNDS, SIMDOPS_E_SHAPE,                                                          \
      "%A addresses bytes [%V, %E) outside its buffer of %I bytes")                            \
    X(NOMEM, SIMDOPS_E_NOMEM, "out of memory")                                                 \
    X(ISA_UNKNOWN, SIMDOPS_E_ISA, "unknown ISA name")                                          \
    X(ISA_UNAVAILABLE, SIMDOPS_E_ISA, "ISA not compiled in or not supported by this CPU")     \
    X(NDIM_NEGATIVE, SIMDOPS_E_SHAPE, "%A has ndim = %V; ndim must be >= 0 (0 for a scalar)")   \
    X(TOO_MANY_ELEMENTS, SIMDOPS_E_SHAPE,                                                      \
      "%A has too many elements: with extent %V in dimension %I they take %E bytes or more")   \
    X(SPAN_TOO_LARGE, SIMDOPS_E_SHAPE,                                                         \
      "%A spans too many bytes: with extent %V in dimension %I its first and last elements "   \
      "are %E bytes or more apart")                                                            \
    X(COUNT_TOO_LARGE, SIMDOPS_E_PARAM,                                                        \
      "%A = %V is too many elements: they would take %E bytes or more")                        \
    X(NUMBER_KIND, SIMDOPS_E_PARAM,                                                            \
      "%A has kind %V, not a simdops_number_kind (0 float, 1 int, 2 uint, 3 big)")             \
    X(NUMBER_BIG, SIMDOPS_E_PARAM,                                                             \
      "%A is a SIMDOPS_NUM_BIG that is not normalised (.u needs bit 63 set and .i >= 0; "      \
      "build it with simdops_big_number)")                                                     \
    X(QL_SCALE_SHAPE, SIMDOPS_E_SHAPE,                                                         \
      "%A must be a scalar, one element, or 1-D of length %E (x's extent on axis)")            \
    X(QL_ZERO_POINT_INT32, SIMDOPS_E_PARAM,                                                    \
      "%A must be 0 for int32 x (DequantizeLinear has no int32 zero point), got %V%J")         \
    X(SHIFT_RANGE_FOR, SIMDOPS_E_PARAM, "%A must be in [%E, 31] for this rounding, got %V%J")   \
    X(ROUNDING_UNKNOWN, SIMDOPS_E_PARAM, "%A: unknown requantization rounding or mode %V")     \
    X(NOT_FINITE_SCALE, SIMDOPS_E_PARAM, "%A must be finite, got %N%J")                        \
    X(ZERO_POINT_RANGE, SIMDOPS_E_PARAM, "%A = %V is outside [%L, %H], the range of %D")      \
    X(SCALE_NOT_F32, SIMDOPS_E_PARAM,                                                          \
      "%A = %N%J is not a float32 value; the float64 mode widens float32 per-channel scales "  \
      "exactly and does not round them (round them to float32 first)")                         \
    X(OUT_SHARES_INPUT, SIMDOPS_E_OVERLAP,                                                     \
      "out shares memory with %A; requantization's 1-D kernels write another type than they "  \
      "read and need out disjoint from x and from every vector they read (y == x included)")                                                     \
    X(QL_ONNX_TYPE, SIMDOPS_E_DTYPE, "%A has ONNX type %V, which this op does not take here")  \
    X(QL_OPSET, SIMDOPS_E_PARAM, "%A needs opset %E or later, got opset %V")                    \
    X(QL_BLOCK_SHAPE, SIMDOPS_E_SHAPE,                                                         \
      "%A must have x's shape except on axis, where its extent is ceil(D / block_size); "      \
      "dimension %I has %V, expected %E")                                                      \
    X(QL_NEGATIVE, SIMDOPS_E_PARAM, "%A must be >= 0, got %V")                                 \
    X(QL_ZERO_POINT_FLOAT8, SIMDOPS_E_PARAM,                                                   \
      "%A must be 0 for float8 x (onnx.reference refuses another), got bits %V%J")             \
    X(QL_PRECISION, SIMDOPS_E_PARAM,                                                           \
      "precision must be 0 (none), 1 (FLOAT), 10 (FLOAT16) or 16 (BFLOAT16), got %V")          \
    X(QL_SATURATE, SIMDOPS_E_PARAM, "saturate must be 0 or 1, got %V")                         \
    X(QL_OUTPUT_TYPE, SIMDOPS_E_DTYPE,                                                         \
      "out_dtype must be given for a float8e8m0 %A (the output is float, float16 or bfloat16)") \
    X(QL_ZERO_POINT_SHAPE, SIMDOPS_E_SHAPE, "%A must have the scale's shape (%E elements), got %V") \
    X(QL_PACKED, SIMDOPS_E_PARAM, "packed must be in [0, %E] (bit 0: x or y, bit 1: the zero point), got %V") \
    X(POST_BOTH, SIMDOPS_E_PARAM,                                                              \
      "post_scale and post_divide both given; the chain's last step multiplies or divides")     \
    X(ZERO_DIVISOR, SIMDOPS_E_PARAM, "%A must be nonzero, got %N")                             \
    X(FP_CHAIN_MODE, SIMDOPS_E_PARAM,                                                          \
      "%A: the chain (pre_scale, post_scale, post_divide, offset, a float32 bias) and "        \
      "ties='add_half' need the float families' modes, not ACL's (mode %V)")                   \
    X(NOT_FINITE_BIAS, SIMDOPS_E_PARAM, "%A must be finite, got %N%J")                         \
    X(MATMUL_NDIM, SIMDOPS_E_SHAPE, "%A has %V dimensions; expected 2")                        \
    X(MATMUL_INNER, SIMDOPS_E_SHAPE, "%A has %V rows; expected %E (the columns of a)")         \
    X(MATMUL_OUT_SHAPE, SIMDOPS_E_SHAPE, "%A has extent %V in dimension %I; expected %E") \
    X(QB_ARITHMETIC, SIMDOPS_E_PARAM,                                                          \
      "%A = %V is not a known arithmetic (0 tflite, 1 xnnpack, 2 onnxruntime)")                \
    X(QB_OP, SIMDOPS_E_PARAM, "%A = %V is not a quantized binary op (9 add, 10 subtract, 11 multiply)") \
    X(QB_SCALE, SIMDOPS_E_PARAM, "%A = %N must be a positive, finite float32 (normal for xnnpack)")       \
    X(QB_DTYPE_ARITHMETIC, SIMDOPS_E_DTYPE,                                                    \
      "%A has dtype %D; this arithmetic (%V) supports uint8 and int8 only")                   \
    X(QB_RATIO_RANGE, SIMDOPS_E_PARAM,                                                         \
      "%A = %N is outside the runtime's range [2^%V, 2^%E) (it would not run the op)")     \
    X(QB_INT16_ZERO_POINT, SIMDOPS_E_PARAM,                                                    \
      "%A = %V; this runtime's int16 multiply needs zero points of 0 (symmetric int16)")      \
    X(QB_NO_SUBTRACT, SIMDOPS_E_PARAM,                                                         \
      "%A: ONNX Runtime has no quantized subtract (com.microsoft has QLinearAdd and "          \
      "QLinearMul only)")                                                                      \
    X(BROADCAST, SIMDOPS_E_SHAPE,                                                              \
      "%A has extent %V in dimension %I; it must be 1 or %E (out's extent) to broadcast")      \
    X(BROADCAST_OUT, SIMDOPS_E_SHAPE,                                                          \
      "%A has extent %V in dimension %I; the broadcast shape of a and b has %E there")        \
    X(BROADCAST_NDIM, SIMDOPS_E_SHAPE, "%A has %V dimensions, more than out's %E")            \
    X(QB_MULTIPLIER_RANGE, SIMDOPS_E_PARAM,                                                    \
      "%A: the real multiplier the runtime derives from the scales, %N, is outside what it "  \
      "accepts")

typedef enum simdops_reason {
#define SIMDOPS_X_REASON_ENUM(name, status, message) SIMDOPS_R_##name,
    SIMDOPS_REASONS(SIMDOPS_X_REASON_ENUM)
#undef SIMDOPS_X_REASON_ENUM
    SIMDOPS_R_COUNT
} simdops_reason;

/* The argument a reason is about (its name is simdops_arg_name). */
#define SIMDOPS_ARGS(F)                                                                        \
    F(NONE, "")                                                                                \
    F(X, "x")                                                                                  \
    F(OUT, "out")                                                                              \
    F(MIN, "min")                                                                              \
    F(MAX, "max")                                                                              \
    F(SCALE, "scale")                                                                          \
    F(BIAS, "bias")                                                                            \
    F(THRESHOLD, "threshold")                                                                  \
    F(AXIS, "axis")                                                                            \
    F(MULTIPLIER, "multiplier")                                                                \
    F(SHIFT, "shift")                                                                          \
    F(OFFSET, "offset")                                                                        \
    F(OUT_DTYPE, "out_dtype")                                                                  \
    F(N, "n")                                                                                  \
    F(PREPARED, "prepared")                                                                    \
    F(ISA, "isa")                                                                              \
    F(ARGS, "args")                                                                            \
    F(ROWS, "rows")                                                                            \
    F(COLS, "cols")                                                                            \
    F(ROUNDING, "rounding")                                                                    \
    F(ZERO_POINT, "zero_point")                                                                \
    F(LAMBD, "lambd")                                                                          \
    F(Y_SCALE, "y_scale")              /* simdops_quantize_linear's scale, as ONNX names it */  \
    F(Y_ZERO_POINT, "y_zero_point")                                                            \
    F(X_SCALE, "x_scale")              /* simdops_dequantize_linear's */                         \
    F(X_ZERO_POINT, "x_zero_point")                                                            \
    F(BLOCK_SIZE, "block_size")                                                                \
    F(PRECISION, "precision")                                                                  \
    F(SATURATE, "saturate")                                                                    \
    F(OPSET, "opset")                                                                          \
    F(SHAPE, "shape")                                                                          \
    F(PACKED, "packed") \
    F(PRE_SCALE, "pre_scale")          /* the float families' chain (simdops_requant_fp_chain) */ \
    F(POST_SCALE, "post_scale")                                                                \
    F(POST_DIVIDE, "post_divide") \
    F(A, "a")                          /* the int8 matmul's and the quantized binary ops' operands */ \
    F(W, "w") \
    F(B, "b")                                                                                  \
    F(A_SCALE, "a_scale")                                                                      \
    F(A_ZERO_POINT, "a_zero_point")                                                            \
    F(B_SCALE, "b_scale")                                                                      \
    F(B_ZERO_POINT, "b_zero_point")                                                            \
    F(ARITHMETIC, "arithmetic")                                                                \
    F(OP, "op")

typedef enum simdops_arg {
#define SIMDOPS_X_ARG_ENUM(name, text) SIMDOPS_ARG_##name,
    SIMDOPS_ARGS(SIMDOPS_X_ARG_ENUM)
#undef SIMDOPS_X_ARG_ENUM
    SIMDOPS_ARG_COUNT
} simdops_arg;

/* What went wrong, filled by a failing call (a successful call sets status
 * and reason to 0). Fields a reason does not use are 0. */
typedef struct simdops_error {
    int32_t status;   /* simdops_status, also the call's return value */
    int32_t reason;   /* simdops_reason */
    int32_t arg;      /* simdops_arg */
    int32_t op;       /* simdops_op of the call */
    int32_t dtype;    /* the dtype involved (of arg), when there is one */
    int32_t reserved;
    int64_t index;    /* dimension / channel index, -1 when none */
    int64_t value;    /* the offending integer value (or the given dtype / extent) */
    int64_t expected; /* what was expected (dtype, extent, ndim, max) */
    double fvalue;    /* the offending real value, when it is one */
} simdops_error;

/* A strided view. data points at element [0, ..., 0] whatever the strides'
 * signs (with a negative stride the lowest address is below data); strides
 * are in bytes and may be negative, or zero in inputs. 0 <= ndim <= 64,
 * extents >= 0; element count x element size, and the bytes from the first
 * element to the last, below 2^62 (SIMDOPS_E_SHAPE otherwise). */
typedef struct simdops_tensor {
    void *data;
    simdops_dtype dtype;
    int ndim;
    int64_t shape[SIMDOPS_MAX_DIMS];
    int64_t strides[SIMDOPS_MAX_DIMS];
} simdops_tensor;

/* A parameter as the caller gave it, exactly. Converted to the tensor's type
 * once, in C, as docs/semantics.md says (floats round to nearest even, integers
 * truncate toward zero and saturate). */
typedef enum simdops_number_kind {
    SIMDOPS_NUM_FLOAT = 0, /* .f */
    SIMDOPS_NUM_INT = 1,   /* .i holds it exactly */
    SIMDOPS_NUM_UINT = 2,  /* .u holds it exactly (values above INT64_MAX) */
    SIMDOPS_NUM_BIG = 3    /* an integer beyond the others: |v| ~ .u * 2^.i with .i >= 0
                            * and .u's bit 63 set; .u holds the top 64 bits of |v| with
                            * every lower nonzero bit OR-ed into bit 0 (sticky), so
                            * rounding to any float type is exact; .negative gives the
                            * sign. Build it with simdops_big_number. */
} simdops_number_kind;

typedef struct simdops_number {
    simdops_number_kind kind;
    int32_t negative; /* SIMDOPS_NUM_BIG only */
    double f;
    int64_t i;
    uint64_t u;
} simdops_number;

/* Building numbers: header-only, so an extension module calls them directly.
 * Any other kind, or a NUM_BIG not as described above, is SIMDOPS_E_PARAM. */
static inline simdops_number simdops_float_number(double v)
{
    simdops_number n = {SIMDOPS_NUM_FLOAT, 0, 0.0, 0, 0};
    n.f = v;
    return n;
}

static inline simdops_number simdops_int_number(int64_t v)
{
    simdops_number n = {SIMDOPS_NUM_INT, 0, 0.0, 0, 0};
    n.i = v;
    return n;
}

static inline simdops_number simdops_uint_number(uint64_t v)
{
    simdops_number n = {SIMDOPS_NUM_UINT, 0, 0.0, 0, 0};
    n.u = v;
    return n;
}

/* An integer of any size, exactly: its magnitude as nwords 64-bit words,
 * least significant first (what GMP's mpz_export(w, &n, -1, 8, 0, 0, z)
 * writes), and its sign (negative != 0). Magnitudes that fit come back as
 * NUM_INT or NUM_UINT; larger ones as a NUM_BIG (top 64 bits, sticky bit,
 * exponent). Zero is +0 whatever the sign. */
static inline simdops_number simdops_big_number(int negative, const uint64_t *words,
                                                size_t nwords)
{
    simdops_number n = {SIMDOPS_NUM_INT, 0, 0.0, 0, 0};
    uint64_t top, below, dropped = 0;
    int shift = 0;
    size_t k;
    while (nwords > 0 && words[nwords - 1] == 0)
        nwords--;
    if (nwords == 0)
        return n;
    top = words[nwords - 1];
    if (nwords == 1 && !negative && top <= (uint64_t)INT64_MAX) {
        n.i = (int64_t)top;
        return n;
    }
    if (nwords == 1 && !negative)
        return simdops_uint_number(top);
    if (nwords == 1 && top <= (uint64_t)INT64_MAX + 1) { /* -2^63 <= v < 0 */
        n.i = top == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)top;
        return n;
    }
    n.kind = SIMDOPS_NUM_BIG;
    n.negative = negative != 0;
    n.u = top;
    if (nwords == 1) /* a negative magnitude in (2^63, 2^64): exact with .i = 0 */
        return n;
    while (!(top >> (63 - shift)))
        shift++;
    below = words[nwords - 2];
    n.u = shift ? (top << shift) | (below >> (64 - shift)) : top;
    dropped = shift ? below << shift : below;
    for (k = 0; k + 2 < nwords; k++)
        dropped |= words[k];
    n.u |= dropped != 0; /* sticky: every lower nonzero bit */
    n.i = (int64_t)(64 * (nwords - 1)) - shift;
    return n;
}

/* Arguments of the N-d requant entry point simdops_requant. */
typedef struct simdops_requant_args {
    int64_t multiplier, shift;      /* per tensor; must fit int32, shift in [-31, 31] */
    const simdops_tensor *multipliers; /* NULL, or int32 1-D of length = x's last dim */
    const simdops_tensor *shifts;      /* NULL, or int32 1-D of length = x's last dim */
    const simdops_tensor *bias;        /* NULL, or int32 1-D of length = x's last dim */
    int64_t offset;                 /* int32; 0 for int16 output */
    int64_t min, max;               /* read only when has_min / has_max */
    int32_t has_min, has_max;       /* 0: not given (see simdops_prepare_requant) */
} simdops_requant_args;

/* Parameters prepared for one op and dtype: opaque, fixed size, plain old
 * data (copy it freely; no destructor). Its layout is private and may change
 * between versions; its size never does. */
typedef struct simdops_prepared {
    uint64_t opaque[16];
} simdops_prepared;

/* ONNX QuantizeLinear / DequantizeLinear over every ONNX type and attribute
 * (opsets 10-25): int4 / uint4 / int2 / uint2, the four float8 kinds,
 * float4e2m1, float8e8m0 scales, float16 / bfloat16 x and scales,
 * blocked quantization, output_dtype, precision, saturate. Types are ONNX
 * TensorProto codes; every buffer is C-contiguous in the given shape (the
 * zero point in the scale's shape). 4-bit and 2-bit operands (x of
 * DequantizeLinear, y of QuantizeLinear, their zero points) are packed two /
 * four a byte, low bits first, where `packed` says so, else one element a
 * byte (ml_dtypes' layout: the value's low bits). docs/onnx.md states the
 * arithmetic, which is onnx.reference's. */
typedef struct simdops_qdq_call {
    const void *x, *scale, *zero_point; /* zero_point NULL: none */
    void *y;
    const int64_t *shape;            /* x's and y's: ndim extents */
    const int64_t *scale_shape;      /* scale_ndim extents */
    const int64_t *zero_point_shape; /* zero_point_ndim extents */
    int32_t ndim, scale_ndim, zero_point_ndim;
    int32_t x_type, scale_type, zero_point_type, y_type; /* TensorProto codes */
    int32_t packed;    /* bit 0: the 4/2-bit x (dequantize) or y (quantize) is packed;
                        * bit 1: the 4/2-bit zero point is packed */
    int32_t saturate;  /* QuantizeLinear to float8: 1 (ONNX's default) or 0 */
    int32_t precision; /* QuantizeLinear: 0 or FLOAT / FLOAT16 / BFLOAT16 */
    int32_t opset;     /* the node's opset, for the type and attribute rules; 0: none */
    int64_t axis, block_size;
} simdops_qdq_call;

/* ------------------------------------------------------------------ quantized add / subtract / multiply
 * Two quantized inputs a, b (same dtype: uint8, int8 or int16 as the arithmetic
 * allows), y of a's dtype, each runtime's integer or float arithmetic exactly
 * (docs/quantized-elementwise.md): one X line per arithmetic, X(NAME, code, name).
 *   TFLITE       LiteRT/TFLite builtin ADD/SUB (per-input fixed-point multipliers
 *                after a left shift of 20, 15 for int16; SUB negates b's multiplier)
 *                and MUL (one fixed-point multiplier of the int32 product); all three
 *                dtypes (int16 MUL: zero points 0)
 *   XNNPACK      XNNPACK qs8/qu8-vadd (one accumulator of 21-bit multipliers, one
 *                rounding shift; SUB: b's scale negated) and qs8/qu8-vmul (float32
 *                scale of the int32 product); uint8 / int8
 *   ONNXRUNTIME  com.microsoft QLinearAdd (MLAS x86 AVX2: float scale ratios with
 *                fused multiply-adds) and QLinearMul (float32 scale of the product);
 *                uint8 / int8; subtract is refused (ONNX Runtime has no QLinearSub)
 * The codes are simdops_qbinary_args.arithmetic's values (ABI). */
#define SIMDOPS_QBINARY_ARITHMETICS(X)                                                         \
    X(TFLITE, 0, "tflite")                                                                     \
    X(XNNPACK, 1, "xnnpack")                                                                   \
    X(ONNXRUNTIME, 2, "onnxruntime")

typedef enum simdops_arithmetic {
#define SIMDOPS_X_ARITH_ENUM(name, code, text) SIMDOPS_ARITH_##name = code,
    SIMDOPS_QBINARY_ARITHMETICS(SIMDOPS_X_ARITH_ENUM)
#undef SIMDOPS_X_ARITH_ENUM
    SIMDOPS_ARITH_COUNT
} simdops_arithmetic;

/* The model's numbers: scales (rounded once to float32, as a model stores them;
 * positive and finite), zero points (in the dtype's range) and the fused
 * activation bounds min/max in y's quantized domain (has_min/has_max 0: the
 * dtype's bound; min <= max). */
typedef struct simdops_qbinary_args {
    int32_t op;         /* SIMDOPS_OP_QUANTIZED_ADD, _SUBTRACT or _MULTIPLY */
    int32_t arithmetic; /* simdops_arithmetic */
    simdops_number a_scale, b_scale, y_scale;
    int64_t a_zero_point, b_zero_point, y_zero_point;
    int64_t min, max;
    int32_t has_min, has_max;
} simdops_qbinary_args;

/* The float families' mode flags (simdops_prepare_requant_fp, whose comment says
 * what the first three do) and chain (simdops_prepare_requant_fp_chain): types a
 * capsule client passes, so outside the functions' block. */
#define SIMDOPS_FP_FLOAT64 1
#define SIMDOPS_FP_TIES_AWAY 2
#define SIMDOPS_FP_ACL 4
/* Round by adding copysign(0.5, v) in the working precision and truncating: ncnn's
 * x86 SIMD (`cvtt(v + copysign(0.5, v))`), which rounds 0.49999997 to 1 and an odd
 * integer above 2^23 (float32) up by one where round-half-away keeps it. Not with
 * SIMDOPS_FP_TIES_AWAY or SIMDOPS_FP_ACL. */
#define SIMDOPS_FP_TIES_ADD_HALF 8
/* A float32 bias is added after the multiply by scale[k] (before post_scale /
 * post_divisor and offset) instead of first: oneDNN's f32 bias, added to the
 * dequantized accumulator. */
#define SIMDOPS_FP_BIAS_SCALED 512
/* The float families' chain: the steps given (has_* != 0) run in this order, each
 * rounded to the working precision (float32; double under SIMDOPS_FP_FLOAT64), never
 * fused:
 *     v = f(a) [+ bias, a float32 bias vector: simdops_requant_fp_prepared's bias
 *               given as float32 is added here, unrounded, before any multiply]
 *     v = v * pre_scale                (oneDNN: the source scale first)
 *     v = v * scale[k]                 (the prepared or per-channel scale)
 *     v = v * post_scale | v / post_divisor   (oneDNN's JIT: f32(1/s_o); its reference: / s_o)
 *     v = v + offset                   (OpenVINO's FakeQuantize shift b)
 * then clamped to [min - zp, max - zp] (a NaN, from inf * 0, gives min), rounded by the
 * mode's ties, + zero_point. Each value finite; post_divisor nonzero; at most one of
 * post_scale / post_divisor (POST_BOTH). Under float32 precision each value is rounded
 * once to float32 (and must stay finite). */
typedef struct simdops_requant_fp_chain {
    int has_pre_scale, has_post_scale, has_post_divisor, has_offset;
    double pre_scale, post_scale, post_divisor, offset;
} simdops_requant_fp_chain;

/* The functions below are simdops' own: they live in its Python extension
 * module, which exports none of them. Another extension module calls them
 * through the capsule table, as simdops_capi_NAME(...) of simdops_capi.h
 * (same arguments, same result; only those in the table are callable). That
 * header includes this one with SIMDOPS_CAPI_CLIENT defined, which leaves
 * out these declarations: what an extension sees is what it can call. */
#ifndef SIMDOPS_CAPI_CLIENT

/* ------------------------------------------------------------------ errors */

/* The status a reason implies (SIMDOPS_E_PARAM for an unknown reason). */
int simdops_reason_status(int reason);
/* The reason's message template: %A argument, %O op, %D/%X dtype names, ...
 * (simdops_error_format fills them). Never NULL. */
const char *simdops_reason_message(int reason);
/* The reason's identifier without the prefix ("NAN", "SHIFT_RANGE"); "" if unknown. */
const char *simdops_reason_name(int reason);
/* Short text of a status ("invalid parameter", ...). Never NULL. */
const char *simdops_status_message(int status);
/* "x", "min", ...; "" for SIMDOPS_ARG_NONE or an unknown value. */
const char *simdops_arg_name(int arg);
/* The op's message name (SIMDOPS_OPS: "clip", "shrink", "hardmax", "quantize", ...);
 * "" when unknown. */
const char *simdops_op_name(int op);
/* Writes the full message ("clip: min is NaN") into buf (always terminated
 * when cap > 0); returns the length it needed, like snprintf. */
size_t simdops_error_format(const simdops_error *err, char *buf, size_t cap);

/* ------------------------------------------------------------------ dtypes */

size_t simdops_dtype_size(simdops_dtype dtype);      /* 0 when unknown */
const char *simdops_dtype_name(simdops_dtype dtype); /* numpy name; "unknown" */
/* 1 when op (a simdops_op) accepts dtype (for REQUANT_OUT: as output). */
int simdops_op_supports(int op, simdops_dtype dtype);
/* double -> float32, round to nearest even, overflow to +-inf. */
float simdops_f32_from_f64(double d);

/* ------------------------------------------------------------------ N-d entry points
 * y must have x's shape and dtype (requant: uint8/int8/int16 output), no two
 * elements at one address; y may be x (same layout) for in-place use; any
 * other overlap behaves as if the inputs were copied first. Strides in bytes;
 * elements need no alignment. They read x (and the per-channel vectors),
 * write y, return a status, fill *err when err != NULL, take no GIL. */

/* clip (docs/semantics.md). scale/bias: NULL = not given; when either is given the other
 * defaults to 1 / 0 (DirectML ScaleBias). */
int simdops_clip(const simdops_tensor *x, const simdops_tensor *y, simdops_number min,
                 simdops_number max, const simdops_number *scale, const simdops_number *bias,
                 simdops_error *err);
int simdops_shrink(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                   simdops_number threshold, simdops_error *err);
/* axes: naxes entries, negative counts from the end; each in range, none
 * repeated, 1 <= naxes <= ndim (the reduced axes in any order). */
int simdops_hardmax(const simdops_tensor *x, const simdops_tensor *y, int naxes,
                    const int64_t *axes, simdops_error *err);
/* The checks simdops_hardmax makes on dtype and axes, without running:
 * SIMDOPS_E_DTYPE or SIMDOPS_E_PARAM with the reason (for descriptor layers). */
int simdops_hardmax_check(simdops_dtype dtype, int ndim, int naxes, const int64_t *axes,
                          simdops_error *err);
int simdops_requant(const simdops_tensor *x, const simdops_tensor *y,
                    const simdops_requant_args *args, simdops_error *err);

/* ------------------------------------------------------------------ prepared parameters
 * Validate and convert exact numbers once into *p (written only on success).
 * Statuses: SIMDOPS_E_DTYPE (op does not support dtype), SIMDOPS_E_PARAM. */

/* scale, bias: NULL = not given (see simdops_clip). */
int simdops_prepare_clip(simdops_dtype dtype, simdops_number min, simdops_number max,
                         const simdops_number *scale, const simdops_number *bias,
                         simdops_prepared *p, simdops_error *err);
int simdops_prepare_shrink(simdops_dtype dtype, simdops_number bias, simdops_number threshold,
                           simdops_prepared *p, simdops_error *err);
/* out_dtype: uint8, int8 or int16. min/max: NULL = not given. Neither given:
 * no clamp beyond the output type (ACL's min == max == 0); one given: the
 * other is the output type's bound. Given min == max also means no clamp
 * (ACL). Needs type_lo <= min <= max <= type_hi, multiplier and offset in
 * int32, shift in [-31, 31], offset 0 for int16. The prepared shift and
 * multiplier are the per-tensor ones (ignored by simdops_requant_pc_1d). */
int simdops_prepare_requant(simdops_dtype out_dtype, int64_t multiplier, int64_t shift,
                            int64_t offset, const int64_t *min, const int64_t *max,
                            simdops_prepared *p, simdops_error *err);

/* ------------------------------------------------------------------ requantization families
 * Per element a = wrap32(x + bias[k]) (k: the channel, x's last axis), then:
 *   DOUBLE        gemmlowp/ACL: q = RDBPOT(SRDHM(wrap32(a << l), M), r) (ties away),
 *                 y = clamp(wrap32(q + offset))              (simdops_prepare_requant)
 *   DOUBLE_TIES_UP  LiteRT's optimized int8 kernels on x86 (ruy's x86 paths):
 *                 q1 = floor((wrap32(a << l) * M + 2^30) / 2^31) (no saturation),
 *                 q = floor((q1 + 2^(r - 1)) / 2^r) (r > 0), y = clamp(wrap32(q + offset))
 *   SINGLE        TFLite single rounding, ruy, CMSIS-NN, XNNPACK rndnu: t = 31 + shift,
 *                 q = floor((a * M + 2^(t - 1)) / 2^t) exactly, y = clamp(q + offset)
 *                 exactly (no wrap); shift in [-30, 31]
 *   FLOOR         ACL QUANTIZE_DOWN: q = wrap32(wrap32(a + offset) * M) >> shift (floor),
 *                 y = clamp(q); shift in [0, 31]
 * with l = max(-shift, 0), r = max(shift, 0), clamp to [min, max] (min/max as for
 * simdops_prepare_requant) saturated to out_dtype. */
/* X(NAME, code, name, array_api, shift_lo, shift_hi, per-tensor entry, per-channel entry):
 * the code is what simdops_prepare_requant_rounding takes (ABI: a line keeps its
 * code, codes run 0, 1, ... without gaps); name is the Python name, array_api 1 when
 * quantize_down_int32's rounding= takes it (FLOOR is reached through simdops.acl);
 * [shift_lo, shift_hi] is the family's shift range: SINGLE's total right shift
 * 31 + shift must be >= 1 (TFLite's [1, 62], XNNPACK rndnu's [16, 55]), FLOOR
 * (ACL QUANTIZE_DOWN) is a plain right shift; the last two name the library's
 * kernel-table entries that run the family. */
#define SIMDOPS_ROUNDINGS(X) SIMDOPS_ROUNDINGS_WITH(SIMDOPS_ROUNDING_APPLY_, X)
/* The same lines with C passed first, X(C, NAME, code, ...): for a list expanded
 * inside another list's expansion (the kernel table's entries, two a line). */
#define SIMDOPS_ROUNDING_APPLY_(X, ...) X(__VA_ARGS__)
#define SIMDOPS_ROUNDINGS_WITH(X, C)                                                           \
    X(C, DOUBLE, 0, "double", 1, -31, 31, requant, requant_pc)                                 \
    X(C, DOUBLE_TIES_UP, 1, "double_ties_up", 1, -31, 31, requant_ties_up, requant_ties_up_pc) \
    X(C, SINGLE, 2, "single", 1, -30, 31, requant_single, requant_single_pc)                   \
    X(C, FLOOR, 3, "floor", 0, 0, 31, requant_floor, requant_floor_pc)                         \
    X(C, SINGLE_AWAY, 4, "single_away", 1, -30, 31, requant_single_away,                       \
      requant_single_away_pc)

typedef enum simdops_rounding {
#define SIMDOPS_X_ROUNDING_ENUM(name, code, ...) SIMDOPS_ROUNDING_##name = code,
    SIMDOPS_ROUNDINGS(SIMDOPS_X_ROUNDING_ENUM)
#undef SIMDOPS_X_ROUNDING_ENUM
    SIMDOPS_ROUNDING_COUNT
} simdops_rounding;
/* The released codes were macros: each still names itself, so `#ifdef` tests keep working. */
#define SIMDOPS_ROUNDING_DOUBLE SIMDOPS_ROUNDING_DOUBLE
#define SIMDOPS_ROUNDING_DOUBLE_TIES_UP SIMDOPS_ROUNDING_DOUBLE_TIES_UP
#define SIMDOPS_ROUNDING_SINGLE SIMDOPS_ROUNDING_SINGLE
#define SIMDOPS_ROUNDING_FLOOR SIMDOPS_ROUNDING_FLOOR
/* simdops_prepare_requant with a rounding family; DOUBLE is simdops_prepare_requant. */
int simdops_prepare_requant_rounding(simdops_dtype out_dtype, int rounding, int64_t multiplier,
                                     int64_t shift, int64_t offset, const int64_t *min,
                                     const int64_t *max, simdops_prepared *p,
                                     simdops_error *err);

/* The float families, mode = flags:
 *   0 (default)      ONNX Runtime MLAS / XNNPACK fp32 / fbgemm: v = float32(a) * float32(scale)
 *                    (one rounding, never fused), clamped in float to [min - zp, max - zp],
 *                    rounded half to even, + zero_point
 *   SIMDOPS_FP_FLOAT64  v = double(a) * scale in double (LiteRT's reference FULLY_CONNECTED
 *                    with SIMDOPS_FP_TIES_AWAY)
 *   SIMDOPS_FP_TIES_AWAY  round half away from zero
 *   SIMDOPS_FP_ACL   ACL QUANTIZE_DOWN_FLOAT: round_half_away(float32(a) * scale + float32(zp))
 *                    (the zero point added in float before rounding), saturated to int32,
 *                    then clamped; alone (no other flag)
 * zero_point within out_dtype's range (SIMDOPS_FP_ACL: any int32); min/max NULL =
 * the type's bounds; given bounds always clamp (min == max included). scale finite. The
 * per-channel scales (simdops_requant_fp_prepared) are float32 (widened exactly
 * under SIMDOPS_FP_FLOAT64). The flags are defined above, with the chain's struct. */
int simdops_prepare_requant_fp(simdops_dtype out_dtype, double scale, int64_t zero_point,
                               const int64_t *min, const int64_t *max, int mode,
                               simdops_prepared *p, simdops_error *err);
/* simdops_prepare_requant_fp with a chain (NULL: none); mode may add
 * SIMDOPS_FP_TIES_ADD_HALF and SIMDOPS_FP_BIAS_SCALED. */
int simdops_prepare_requant_fp_chain(simdops_dtype out_dtype, double scale, int64_t zero_point,
                                     const int64_t *min, const int64_t *max, int mode,
                                     const simdops_requant_fp_chain *chain, simdops_prepared *p,
                                     simdops_error *err);
/* N-d run of a float-family handle: bias NULL, int32 1-D (a wrapping int32 add) or
 * float32 1-D (finite: added in the working precision to f(a), the chain's first step),
 * scales NULL (the prepared scale), float32 1-D, or, under SIMDOPS_FP_FLOAT64, float64
 * 1-D (used as doubles: LiteRT's per-channel reference FULLY_CONNECTED), both of x's
 * last dimension. */
int simdops_requant_fp_prepared(const simdops_prepared *p, const simdops_tensor *x,
                                const simdops_tensor *y, const simdops_tensor *bias,
                                const simdops_tensor *scales, simdops_error *err);
/* 1-D per-channel run of a float-family handle: scales[i] for element i (finite). */
int simdops_requant_fp_pc_1d(const simdops_prepared *p, const int32_t *x, void *y, int64_t n,
                             const int32_t *bias, const float *scales, simdops_error *err);

/* N-d forms taking a prepared handle (same contract as the N-d entry points;
 * x's dtype must be the prepared one, requant's y the prepared output type). */
int simdops_clip_prepared(const simdops_prepared *p, const simdops_tensor *x,
                          const simdops_tensor *y, simdops_error *err);
int simdops_shrink_prepared(const simdops_prepared *p, const simdops_tensor *x,
                            const simdops_tensor *y, simdops_error *err);
/* bias, multipliers, shifts: NULL or int32 1-D of x's last dim; multipliers or
 * shifts alone: the other is the prepared per-tensor value on every channel. */
int simdops_requant_prepared(const simdops_prepared *p, const simdops_tensor *x,
                             const simdops_tensor *y, const simdops_tensor *bias,
                             const simdops_tensor *multipliers, const simdops_tensor *shifts,
                             simdops_error *err);

/* ------------------------------------------------------------------ contiguous 1-D kernels
 * n elements (n >= 0) at element-aligned pointers (any C array is); y == x is
 * in-place, otherwise x and y must not overlap. The requant 1-D kernels (int32
 * in, another type out) have no in-place form: y must share no byte with x,
 * bias or the per-channel vectors (SIMDOPS_E_OVERLAP, OUT_SHARES_INPUT). They run on the calling
 * thread's tier, read x, write y, take no GIL. Statuses: SIMDOPS_E_PARAM
 * (NULL pointer with n > 0, n < 0, misaligned, handle of another op),
 * SIMDOPS_E_OVERLAP. */
int simdops_clip_1d(const simdops_prepared *p, const void *x, void *y, int64_t n,
                    simdops_error *err);
int simdops_shrink_1d(const simdops_prepared *p, const void *x, void *y, int64_t n,
                      simdops_error *err);
/* hardmax over the last axis of a C-contiguous rows x cols block of dtype
 * (float32/16/64): each row gets 1 at its first maximum (NaN wins), 0
 * elsewhere. rows, cols >= 0; y == x allowed. */
int simdops_hardmax_rows(simdops_dtype dtype, const void *x, void *y, int64_t rows,
                         int64_t cols, simdops_error *err);
/* int32 x -> prepared output type; bias NULL or n int32 values (channel i is
 * element i). */
int simdops_requant_1d(const simdops_prepared *p, const int32_t *x, void *y, int64_t n,
                       const int32_t *bias, simdops_error *err);
/* Per channel: multipliers[i], shifts[i] (shifts in [-31, 31], checked). */
int simdops_requant_pc_1d(const simdops_prepared *p, const int32_t *x, void *y, int64_t n,
                          const int32_t *bias, const int32_t *multipliers,
                          const int32_t *shifts, simdops_error *err);

/* ------------------------------------------------------------------ ONNX Quantize/DequantizeLinear
 * y = saturate(round_half_even(x / scale) + zero_point) and
 * y = (x - zero_point) * scale, as the ONNX reference computes them (docs/onnx.md).
 * quantize: x float32/float16; y uint8/int8/uint16/int16 (y's dtype is the
 * output type); scale float32 or float16 (float16 x with float16 scale
 * divides in float16, otherwise float32); zero_point NULL (0) or of y's dtype.
 * dequantize: x uint8/int8/uint16/int16/int32; y float32 or float16 (float16
 * rounds the float32 product); scale float32/float16; zero_point NULL or of
 * x's dtype (0 for int32). scale/zero_point: 0-d or one element (per tensor),
 * or 1-D of x's extent on `axis` (per axis; axis negative counts from the
 * end). NaN quantizes to the type's minimum, +-inf and out-of-range
 * quotients saturate (x / 0 is +-inf or NaN and follows the same rule).
 * Errors name scale / zero_point as ONNX does: y_scale / y_zero_point
 * (quantize), x_scale / x_zero_point (dequantize). A per-axis scale or zero
 * point that overlaps y is read as if copied first; an empty x returns at once. */
/* The int32 accumulators of the int8 matmul a @ w: a [M, K] uint8 or int8, w
 * [K, N] int8, out [M, N] int32 (any strides; out may overlap a or w: both are
 * read into packed copies first). pair_saturation 0: the exact sums, added in
 * int32 (wrapping, as the runtimes' int32 adds do; exact for K < 2^16).
 * pair_saturation 1: x86 VPMADDUBSW's arithmetic, what oneDNN / OpenVINO /
 * PyTorch's x86 int8 paths compute on CPUs without VNNI: products of the pairs
 * (2p, 2p + 1) along K summed and saturated to int16 (an odd K's last element
 * pairs with 0), the pair sums added in int32; an int8 a enters as the uint8
 * a + 128 and 128 * sum_k w[k, n] is subtracted (oneDNN's s8 x s8 compensation). */
int simdops_int8_matmul_accumulators(const simdops_tensor *a, const simdops_tensor *w,
                                     const simdops_tensor *out, int pair_saturation,
                                     simdops_error *err);
int simdops_quantize_linear(const simdops_tensor *x, const simdops_tensor *scale,
                            const simdops_tensor *zero_point, int64_t axis,
                            const simdops_tensor *y, simdops_error *err);
int simdops_dequantize_linear(const simdops_tensor *x, const simdops_tensor *scale,
                              const simdops_tensor *zero_point, int64_t axis,
                              const simdops_tensor *y, simdops_error *err);

int simdops_quantize_linear_ex(const simdops_qdq_call *call, simdops_error *err);
int simdops_dequantize_linear_ex(const simdops_qdq_call *call, simdops_error *err);

/* ONNX Clip as onnx.reference computes it: min/max NULL = absent (no bound);
 * min > max gives max; a NaN bound (float x) gives that NaN for every non-NaN
 * element (and for NaN elements too when both bounds are given on
 * float32/float64, as numpy's clip does). Otherwise as simdops_clip. */
int simdops_clip_onnx(const simdops_tensor *x, const simdops_tensor *y, const simdops_number *min,
                      const simdops_number *max, simdops_error *err);
/* ONNX Shrink, any dtype: bias and lambd rounded to float32; computed in
 * float32 (float16, float32, 8/16-bit integers) or float64 (float64, 32/64-bit
 * integers); NaN gives 0; integer results truncate toward zero and saturate.
 * A NaN lambd compares false (every element 0, as ONNX's formula gives); a NaN
 * bias: SIMDOPS_E_PARAM (arg bias; the reference's integer results would be
 * undefined). */
int simdops_shrink_onnx(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                        simdops_number lambd, simdops_error *err);

/* ------------------------------------------------------------------ quantized add / subtract / multiply
 * (the arithmetics and args are above, with the types) */
/* Validates args for inputs of `dtype` and derives the runtime's parameters
 * into *p (SIMDOPS_E_DTYPE, SIMDOPS_E_PARAM with the argument named). */
int simdops_prepare_qbinary(simdops_dtype dtype, const simdops_qbinary_args *args,
                            simdops_prepared *p, simdops_error *err);
/* y = op(a, b) with numpy broadcasting: a and b have at most y's ndim, each
 * extent 1 or y's (aligned from the last dimension); y has the prepared dtype,
 * the broadcast shape of a and b, no two elements at one address. y may be a or
 * b (same layout); any other overlap reads the inputs as if copied first. */
int simdops_qbinary_prepared(const simdops_prepared *p, const simdops_tensor *a,
                             const simdops_tensor *b, const simdops_tensor *y,
                             simdops_error *err);
/* simdops_prepare_qbinary for a's dtype, then simdops_qbinary_prepared. */
int simdops_qbinary(const simdops_tensor *a, const simdops_tensor *b, const simdops_tensor *y,
                    const simdops_qbinary_args *args, simdops_error *err);
/* Contiguous 1-D form: n elements of a, b and y (y may equal a or b; otherwise
 * no overlap with them). */
int simdops_qbinary_1d(const simdops_prepared *p, const void *a, const void *b, void *y,
                       int64_t n, simdops_error *err);

/* ------------------------------------------------------------------ ISA control
 * Names: "scalar", "sse2", "sse41", "avx2", "avx512", "neon". A call runs on the calling
 * thread's forced tier if it set one, else on the process tier (the best
 * available, or SIMDOPS_ISA chosen at import). */

/* The calling thread's effective tier. */
const char *simdops_isa(void);
/* Forces a tier for the calling thread only; NULL or "" clears the force.
 * SIMDOPS_E_ISA when unknown or unavailable (the force is then unchanged). */
int simdops_set_thread_isa(const char *name, simdops_error *err);
/* The calling thread's forced tier, or NULL when none. */
const char *simdops_thread_isa(void);
/* Sets the process tier (atomic; meant for start-up, e.g. SIMDOPS_ISA). */
int simdops_set_process_isa(const char *name, simdops_error *err);
/* The tier the calling thread's last N-d or 1-D call ran on (NULL: none yet). */
const char *simdops_last_call_isa(void);
/* Writes up to cap names of available ISAs (compiled and supported), lowest first. */
int simdops_available_isas(const char **names, int cap);
/* Every ISA this build knows for its architecture, lowest first. */
int simdops_known_isas(const char **names, int cap);
/* CPU features as a space-separated string, e.g. "sse2 sse41 avx avx2 f16c osxsave". */
const char *simdops_cpu_features(void);

#endif /* SIMDOPS_CAPI_CLIENT */

#ifdef __cplusplus
}
#endif
#endif
