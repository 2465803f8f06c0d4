# The simdops C API for Cython:  from simdops cimport capi
#
# Build with include_dirs=[simdops.get_include()] (the C headers); this .pxd
# is found on sys.path inside the installed package. Call
# capi.import_simdops() once at module level: it fetches the simdops._C_API
# capsule (ImportError when simdops is missing or older than this header).
# After that every function below may be called `nogil`, from any thread.
#
# Names are those of simdops/simdops.h and simdops/simdops_capi.h without
# the simdops_ / SIMDOPS_ prefix; types end in _t. Each function documents
# itself where the C header declares it; in short:
#   prepare_clip/shrink/requant   exact numbers -> prepared_t (validated once)
#   clip_1d, shrink_1d, hardmax_rows, requant_1d, requant_pc_1d
#                                 contiguous kernels (the hot path)
#   clip, shrink, hardmax, requant, *_prepared
#                                 N-d entry points on strided tensor_t views
# Each returns a status (0 = OK); the error_t, when given, gets the reason,
# and error_format() writes the full message.
#
# The simdops_capi_* functions below are those of the list SIMDOPS_CAPI_ENTRIES
# (simdops_capi.h), in its order, with its types: Cython cannot expand the
# list, so they are written here by hand and simdops' tests compare the two.
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from simdops.capi_types cimport (simdops_dtype, simdops_error, simdops_number,
                                 simdops_number_kind, simdops_op, simdops_prepared,
                                 simdops_qbinary_args, simdops_qdq_call, simdops_requant_args,
                                 simdops_requant_fp_chain, simdops_status, simdops_tensor)

# The types of simdops.h (declared once, in simdops/capi_types.pxd) under short names.
cdef extern from "simdops/simdops_capi.h" nogil:
    enum: MAX_DIMS "SIMDOPS_MAX_DIMS"
    enum: CAPI_VERSION "SIMDOPS_CAPI_VERSION"

    ctypedef simdops_dtype dtype_t "simdops_dtype"
    ctypedef simdops_op op_t "simdops_op"
    ctypedef simdops_status status_t "simdops_status"
    ctypedef simdops_number_kind number_kind_t "simdops_number_kind"
    # What went wrong (filled by a failing call; see simdops.h for each field).
    ctypedef simdops_error error_t "simdops_error"
    # A strided view: strides in bytes (may be negative, or zero for inputs).
    ctypedef simdops_tensor tensor_t "simdops_tensor"
    # A parameter exactly as given: build it with float_number/int_number/uint_number/big_number.
    ctypedef simdops_number number_t "simdops_number"
    ctypedef simdops_requant_args requant_args_t "simdops_requant_args"
    # Prepared parameters: opaque, fixed size, plain data (copy freely).
    ctypedef simdops_prepared prepared_t "simdops_prepared"
    # One QuantizeLinear / DequantizeLinear of any ONNX type (types as TensorProto codes).
    ctypedef simdops_qdq_call qdq_call_t "simdops_qdq_call"
    ctypedef simdops_qbinary_args qbinary_args_t "simdops_qbinary_args"
    # The float families' chain steps (has_* != 0: that step runs).
    ctypedef simdops_requant_fp_chain requant_fp_chain_t "simdops_requant_fp_chain"

    const dtype_t UNKNOWN "SIMDOPS_UNKNOWN"
    const dtype_t FLOAT32 "SIMDOPS_FLOAT32"
    const dtype_t FLOAT16 "SIMDOPS_FLOAT16"
    const dtype_t UINT32 "SIMDOPS_UINT32"
    const dtype_t UINT16 "SIMDOPS_UINT16"
    const dtype_t UINT8 "SIMDOPS_UINT8"
    const dtype_t INT32 "SIMDOPS_INT32"
    const dtype_t INT16 "SIMDOPS_INT16"
    const dtype_t INT8 "SIMDOPS_INT8"
    const dtype_t FLOAT64 "SIMDOPS_FLOAT64"
    const dtype_t UINT64 "SIMDOPS_UINT64"
    const dtype_t INT64 "SIMDOPS_INT64"

    const status_t OK "SIMDOPS_OK"
    const status_t E_DTYPE "SIMDOPS_E_DTYPE"
    const status_t E_SHAPE "SIMDOPS_E_SHAPE"
    const status_t E_PARAM "SIMDOPS_E_PARAM"
    const status_t E_OVERLAP "SIMDOPS_E_OVERLAP"
    const status_t E_NOMEM "SIMDOPS_E_NOMEM"
    const status_t E_ISA "SIMDOPS_E_ISA"

    const number_kind_t NUM_FLOAT "SIMDOPS_NUM_FLOAT"
    const number_kind_t NUM_INT "SIMDOPS_NUM_INT"
    const number_kind_t NUM_UINT "SIMDOPS_NUM_UINT"
    const number_kind_t NUM_BIG "SIMDOPS_NUM_BIG"

    # The table (fields appended only; see simdops_capi.h) and the imported one.
    ctypedef struct table_t "simdops_capi":
        uint32_t abi_version
        uint32_t size
    const table_t *api "simdops_api"

    number_t float_number "simdops_float_number"(double v)
    number_t int_number "simdops_int_number"(int64_t v)
    number_t uint_number "simdops_uint_number"(uint64_t v)
    # an integer of any size: its magnitude's 64-bit words, least significant first
    number_t big_number "simdops_big_number"(int negative, const uint64_t *words, size_t nwords)

    # errors, dtypes, ISA
    const char *status_message "simdops_capi_status_message"(int status)
    size_t error_format "simdops_capi_error_format"(const error_t *err, char *buf, size_t cap)
    size_t dtype_size "simdops_capi_dtype_size"(dtype_t dtype)
    const char *dtype_name "simdops_capi_dtype_name"(dtype_t dtype)
    int op_supports "simdops_capi_op_supports"(int op, dtype_t dtype)
    const char *isa "simdops_capi_isa"()
    int set_thread_isa "simdops_capi_set_thread_isa"(const char *name, error_t *err)

    # N-d entry points (scale, bias: NULL = not given)
    int clip "simdops_capi_clip"(const tensor_t *x, const tensor_t *y, number_t min,
                                 number_t max, const number_t *scale, const number_t *bias,
                                 error_t *err)
    int shrink "simdops_capi_shrink"(const tensor_t *x, const tensor_t *y, number_t bias,
                                     number_t threshold, error_t *err)
    int hardmax "simdops_capi_hardmax"(const tensor_t *x, const tensor_t *y, int naxes,
                                       const int64_t *axes, error_t *err)
    int requant "simdops_capi_requant"(const tensor_t *x, const tensor_t *y,
                                       const requant_args_t *args, error_t *err)

    # prepared parameters (min, max of requant: NULL = not given)
    int prepare_clip "simdops_capi_prepare_clip"(dtype_t dtype, number_t min, number_t max,
                                                 const number_t *scale, const number_t *bias,
                                                 prepared_t *p, error_t *err)
    int prepare_shrink "simdops_capi_prepare_shrink"(dtype_t dtype, number_t bias,
                                                     number_t threshold, prepared_t *p,
                                                     error_t *err)
    int prepare_requant "simdops_capi_prepare_requant"(dtype_t out_dtype, int64_t multiplier,
                                                       int64_t shift, int64_t offset,
                                                       const int64_t *min, const int64_t *max,
                                                       prepared_t *p, error_t *err)
    int clip_prepared "simdops_capi_clip_prepared"(const prepared_t *p, const tensor_t *x,
                                                   const tensor_t *y, error_t *err)
    int shrink_prepared "simdops_capi_shrink_prepared"(const prepared_t *p, const tensor_t *x,
                                                       const tensor_t *y, error_t *err)
    int requant_prepared "simdops_capi_requant_prepared"(
        const prepared_t *p, const tensor_t *x, const tensor_t *y, const tensor_t *bias,
        const tensor_t *multipliers, const tensor_t *shifts, error_t *err)

    # contiguous 1-D kernels (n elements; y == x is in place)
    int clip_1d "simdops_capi_clip_1d"(const prepared_t *p, const void *x, void *y, int64_t n,
                                       error_t *err)
    int shrink_1d "simdops_capi_shrink_1d"(const prepared_t *p, const void *x, void *y,
                                           int64_t n, error_t *err)
    int hardmax_rows "simdops_capi_hardmax_rows"(dtype_t dtype, const void *x, void *y,
                                                 int64_t rows, int64_t cols, error_t *err)
    int requant_1d "simdops_capi_requant_1d"(const prepared_t *p, const int32_t *x, void *y,
                                             int64_t n, const int32_t *bias, error_t *err)
    int requant_pc_1d "simdops_capi_requant_pc_1d"(
        const prepared_t *p, const int32_t *x, void *y, int64_t n, const int32_t *bias,
        const int32_t *multipliers, const int32_t *shifts, error_t *err)

    # version 2: the requantization families (simdops.h: SIMDOPS_FP_*; the
    # ROUNDING_* codes are in capi_lists.pxi, below)
    enum: FP_FLOAT64 "SIMDOPS_FP_FLOAT64"
    enum: FP_TIES_AWAY "SIMDOPS_FP_TIES_AWAY"
    enum: FP_ACL "SIMDOPS_FP_ACL"
    enum: FP_TIES_ADD_HALF "SIMDOPS_FP_TIES_ADD_HALF"
    enum: FP_BIAS_SCALED "SIMDOPS_FP_BIAS_SCALED"
    int prepare_requant_rounding "simdops_capi_prepare_requant_rounding"(
        dtype_t out_dtype, int rounding, int64_t multiplier, int64_t shift, int64_t offset,
        const int64_t *min, const int64_t *max, prepared_t *p, error_t *err)
    int prepare_requant_fp "simdops_capi_prepare_requant_fp"(
        dtype_t out_dtype, double scale, int64_t zero_point, const int64_t *min,
        const int64_t *max, int mode, prepared_t *p, error_t *err)
    int requant_fp_prepared "simdops_capi_requant_fp_prepared"(
        const prepared_t *p, const tensor_t *x, const tensor_t *y, const tensor_t *bias,
        const tensor_t *scales, error_t *err)
    int requant_fp_pc_1d "simdops_capi_requant_fp_pc_1d"(
        const prepared_t *p, const int32_t *x, void *y, int64_t n, const int32_t *bias,
        const float *scales, error_t *err)
    # version 2 (continued): the ONNX profile (N-d; zero_point / min / max may be NULL)
    int quantize_linear "simdops_capi_quantize_linear"(
        const tensor_t *x, const tensor_t *scale, const tensor_t *zero_point, int64_t axis,
        const tensor_t *y, error_t *err)
    int dequantize_linear "simdops_capi_dequantize_linear"(
        const tensor_t *x, const tensor_t *scale, const tensor_t *zero_point, int64_t axis,
        const tensor_t *y, error_t *err)
    int clip_onnx "simdops_capi_clip_onnx"(const tensor_t *x, const tensor_t *y,
                                           const number_t *min, const number_t *max,
                                           error_t *err)
    int shrink_onnx "simdops_capi_shrink_onnx"(const tensor_t *x, const tensor_t *y,
                                               number_t bias, number_t lambd, error_t *err)
    # version 3: every ONNX type and attribute of QuantizeLinear / DequantizeLinear
    int quantize_linear_ex "simdops_capi_quantize_linear_ex"(const qdq_call_t *call, error_t *err)
    int dequantize_linear_ex "simdops_capi_dequantize_linear_ex"(const qdq_call_t *call,
                                                                 error_t *err)
    int int8_matmul_accumulators "simdops_capi_int8_matmul_accumulators"(
        const tensor_t *a, const tensor_t *w, const tensor_t *out, int pair_saturation,
        error_t *err)
    # version 3: quantized add / subtract / multiply (docs/quantized-elementwise.md)
    int prepare_qbinary "simdops_capi_prepare_qbinary"(dtype_t dtype, const qbinary_args_t *args,
                                                       prepared_t *p, error_t *err)
    int qbinary_prepared "simdops_capi_qbinary_prepared"(const prepared_t *p, const tensor_t *a,
                                                         const tensor_t *b, const tensor_t *y,
                                                         error_t *err)
    int qbinary "simdops_capi_qbinary"(const tensor_t *a, const tensor_t *b, const tensor_t *y,
                                       const qbinary_args_t *args, error_t *err)
    int qbinary_1d "simdops_capi_qbinary_1d"(const prepared_t *p, const void *a, const void *b,
                                             void *y, int64_t n, error_t *err)
    # version 3: the float families' chain (runs through requant_fp_prepared)
    int prepare_requant_fp_chain "simdops_capi_prepare_requant_fp_chain"(
        dtype_t out_dtype, double scale, int64_t zero_point, const int64_t *min,
        const int64_t *max, int mode, const requant_fp_chain_t *chain, prepared_t *p,
        error_t *err)

# The codes of simdops.h's lists under their short names, OP_<NAME> (op_t) for
# each SIMDOPS_OP_LINES line and ROUNDING_<NAME> for each SIMDOPS_ROUNDINGS line:
# setup.py writes them from the lists (list_decls.py).
include "capi_lists.pxi"

cdef extern from "simdops/simdops_capi.h":
    # Need the GIL. 0, or -1 with ImportError set (Cython raises it).
    int import_simdops "simdops_import"() except -1
    int import_simdops_version "simdops_import_version"(uint32_t required_version) except -1


cdef inline int check(int status, const error_t *err) except -1:
    """0 when status is OK; else raises what err reports (TypeError for a
    dtype, ValueError otherwise), with simdops' full message. Needs the GIL."""
    cdef char message[512]
    if status == OK:
        return 0
    error_format(err, message, sizeof(message))
    if status == E_DTYPE:
        raise TypeError(message.decode("utf-8", "replace"))
    raise ValueError(message.decode("utf-8", "replace"))
