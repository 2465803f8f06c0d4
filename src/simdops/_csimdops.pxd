# Declarations of the C API (csrc/include/simdops/simdops.h) and the kernel
# table (csrc/internal.h) used by _core.pyx.
from libc.stdint cimport int32_t, int64_t, uint64_t

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
    ctypedef enum simdops_status:
        SIMDOPS_OK
        SIMDOPS_E_DTYPE
        SIMDOPS_E_SHAPE
        SIMDOPS_E_PARAM
        SIMDOPS_E_OVERLAP
        SIMDOPS_E_NOMEM
        SIMDOPS_E_ISA
    ctypedef struct simdops_tensor:
        void *data
        simdops_dtype dtype
        int ndim
        int64_t shape[64]
        int64_t strides[64]
    ctypedef enum simdops_number_kind:
        SIMDOPS_NUM_FLOAT
        SIMDOPS_NUM_INT
        SIMDOPS_NUM_UINT
    ctypedef struct simdops_number:
        simdops_number_kind kind
        double f
        int64_t i
        uint64_t u
    ctypedef struct simdops_requant_args:
        int32_t multiplier
        int32_t shift
        const simdops_tensor *multipliers
        const simdops_tensor *shifts
        const simdops_tensor *bias
        int32_t offset
        int32_t min
        int32_t max

    int simdops_clip(const simdops_tensor *x, const simdops_tensor *y, simdops_number min,
                     simdops_number max, const float *scale_bias)
    int simdops_shrink(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                       simdops_number threshold)
    int simdops_hardmax(const simdops_tensor *x, const simdops_tensor *y, int naxes,
                        const int *axes)
    int simdops_requant(const simdops_tensor *x, const simdops_tensor *y,
                        const simdops_requant_args *args)
    size_t simdops_dtype_size(simdops_dtype dtype)
    float simdops_f32_from_f64(double d)
    const char *simdops_status_message(int status)
    const char *simdops_isa()
    int simdops_use_isa(const char *name)
    int simdops_available_isas(const char **names, int cap)
    int simdops_known_isas(const char **names, int cap)
    const char *simdops_cpu_features()

cdef extern from "internal.h" nogil:
    ctypedef struct simdops_kernel_table:
        const char *isa
        void *clip[12]
        void *clip_scale_bias[12]
        void *shrink[12]
        void *argmax_row[12]
        void *argmax_cols[12]
        void *requant[3]
        void *requant_pc[3]
    int simdops_tier_count()
    const simdops_kernel_table *simdops_tier_table(int i)
    const char *simdops_tier_name(int i)

cdef extern from "threadpool.h" nogil:
    int SIMDOPS_MAX_THREADS
    int simdops_set_num_threads(int n)
    int simdops_get_num_threads()
    int simdops_threads_supported()
    int64_t simdops_grain_bytes()
    int64_t simdops_set_grain_bytes(int64_t bytes)
    int64_t simdops_pool_jobs()
