# The C types of simdops/simdops.h, declared once for Cython: the enums and the
# structs (error, tensor view, exact number, requant arguments, prepared handle).
# simdops.capi (the public C API for Cython extensions) gives them their short
# names; simdops/_ext/_csimdops.pxd (the core extension's own declarations)
# cimports them as they are. Edit a struct here, and only here, when simdops.h
# changes it. The enums of simdops.h's lists (simdops_op, simdops_rounding) are
# in capi_types_lists.pxi, which setup.py writes from the lists (list_decls.py).
from libc.stdint cimport int32_t, int64_t, uint64_t

include "capi_types_lists.pxi"

cdef extern from "simdops/simdops.h" nogil:
    int SIMDOPS_MAX_DIMS
    ctypedef enum simdops_dtype:
        SIMDOPS_UNKNOWN
        SIMDOPS_FLOAT32
        SIMDOPS_FLOAT16
        SIMDOPS_UINT32
        SIMDOPS_UINT16
        SIMDOPS_UINT8
        SIMDOPS_INT32
        SIMDOPS_INT16
        SIMDOPS_INT8
        SIMDOPS_FLOAT64
        SIMDOPS_UINT64
        SIMDOPS_INT64
        SIMDOPS_DTYPE_COUNT
    ctypedef enum simdops_arithmetic:
        SIMDOPS_ARITH_TFLITE
        SIMDOPS_ARITH_XNNPACK
        SIMDOPS_ARITH_ONNXRUNTIME
        SIMDOPS_ARITH_COUNT
    ctypedef enum simdops_status:
        SIMDOPS_OK
        SIMDOPS_E_DTYPE
        SIMDOPS_E_SHAPE
        SIMDOPS_E_PARAM
        SIMDOPS_E_OVERLAP
        SIMDOPS_E_NOMEM
        SIMDOPS_E_ISA
    ctypedef enum simdops_number_kind:
        SIMDOPS_NUM_FLOAT
        SIMDOPS_NUM_INT
        SIMDOPS_NUM_UINT
        SIMDOPS_NUM_BIG

    # What went wrong (filled by a failing call; see simdops.h for each field).
    ctypedef struct simdops_error:
        int32_t status
        int32_t reason
        int32_t arg
        int32_t op
        int32_t dtype
        int64_t index
        int64_t value
        int64_t expected
        double fvalue

    # A strided view: strides in bytes (may be negative, or zero for inputs).
    ctypedef struct simdops_tensor:
        void *data
        simdops_dtype dtype
        int ndim
        int64_t shape[64]
        int64_t strides[64]

    # A parameter exactly as given.
    ctypedef struct simdops_number:
        simdops_number_kind kind
        int32_t negative
        double f
        int64_t i
        uint64_t u

    ctypedef struct simdops_requant_args:
        int64_t multiplier
        int64_t shift
        const simdops_tensor *multipliers
        const simdops_tensor *shifts
        const simdops_tensor *bias
        int64_t offset
        int64_t min
        int64_t max
        int32_t has_min
        int32_t has_max

    # The quantized binary ops' model numbers (simdops_prepare_qbinary).
    ctypedef struct simdops_qbinary_args:
        int32_t op
        int32_t arithmetic
        simdops_number a_scale
        simdops_number b_scale
        simdops_number y_scale
        int64_t a_zero_point
        int64_t b_zero_point
        int64_t y_zero_point
        int64_t min
        int64_t max
        int32_t has_min
        int32_t has_max

    # The float families' chain steps (simdops_prepare_requant_fp_chain).
    ctypedef struct simdops_requant_fp_chain:
        int has_pre_scale, has_post_scale, has_post_divisor, has_offset
        double pre_scale, post_scale, post_divisor, offset

    # Prepared parameters: opaque, fixed size, plain data (copy freely).
    ctypedef struct simdops_prepared:
        uint64_t opaque[16]

    # One QuantizeLinear / DequantizeLinear of any ONNX type (simdops.h).
    ctypedef struct simdops_qdq_call:
        const void *x
        const void *scale
        const void *zero_point
        void *y
        const int64_t *shape
        const int64_t *scale_shape
        const int64_t *zero_point_shape
        int32_t ndim, scale_ndim, zero_point_ndim
        int32_t x_type, scale_type, zero_point_type, y_type
        int32_t packed, saturate, precision, opset
        int64_t axis, block_size
