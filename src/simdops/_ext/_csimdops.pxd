# Declarations of the C API (csrc/include/simdops/simdops.h) and of the
# kernel-table iteration functions (csrc/internal.h) used by _core.pyx.
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

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
    ctypedef enum simdops_op:
        SIMDOPS_OP_NONE
        SIMDOPS_OP_CLIP
        SIMDOPS_OP_CLIP_SCALE_BIAS
        SIMDOPS_OP_SHRINK
        SIMDOPS_OP_HARDMAX
        SIMDOPS_OP_REQUANT
        SIMDOPS_OP_REQUANT_OUT
        SIMDOPS_OP_COUNT
    ctypedef enum simdops_status:
        SIMDOPS_OK
        SIMDOPS_E_DTYPE
        SIMDOPS_E_SHAPE
        SIMDOPS_E_PARAM
        SIMDOPS_E_OVERLAP
        SIMDOPS_E_NOMEM
        SIMDOPS_E_ISA
    int SIMDOPS_R_COUNT
    ctypedef enum simdops_arg:
        SIMDOPS_ARG_NONE
        SIMDOPS_ARG_X
        SIMDOPS_ARG_OUT
    int SIMDOPS_ARG_COUNT
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
        SIMDOPS_NUM_BIG
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
    ctypedef struct simdops_prepared:
        uint64_t opaque[16]

    int simdops_reason_status(int reason)
    const char *simdops_reason_message(int reason)
    const char *simdops_reason_name(int reason)
    const char *simdops_status_message(int status)
    const char *simdops_arg_name(int arg)
    const char *simdops_op_name(int op)
    size_t simdops_error_format(const simdops_error *err, char *buf, size_t cap)

    size_t simdops_dtype_size(simdops_dtype dtype)
    const char *simdops_dtype_name(simdops_dtype dtype)
    int simdops_op_supports(int op, simdops_dtype dtype)
    float simdops_f32_from_f64(double d)

    int simdops_clip(const simdops_tensor *x, const simdops_tensor *y, simdops_number min,
                     simdops_number max, const simdops_number *scale,
                     const simdops_number *bias, simdops_error *err)
    int simdops_shrink(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                       simdops_number threshold, simdops_error *err)
    int simdops_hardmax(const simdops_tensor *x, const simdops_tensor *y, int naxes,
                        const int64_t *axes, simdops_error *err)
    int simdops_requant(const simdops_tensor *x, const simdops_tensor *y,
                        const simdops_requant_args *args, simdops_error *err)
    int simdops_hardmax_check(simdops_dtype dtype, int ndim, int naxes, const int64_t *axes,
                              simdops_error *err)

    int simdops_prepare_clip(simdops_dtype dtype, simdops_number min, simdops_number max,
                             const simdops_number *scale, const simdops_number *bias,
                             simdops_prepared *p, simdops_error *err)
    int simdops_prepare_shrink(simdops_dtype dtype, simdops_number bias,
                               simdops_number threshold, simdops_prepared *p,
                               simdops_error *err)
    int simdops_prepare_requant_rounding(simdops_dtype out_dtype, int rounding, int64_t multiplier,
                                         int64_t shift, int64_t offset, const int64_t *min,
                                         const int64_t *max, simdops_prepared *p,
                                         simdops_error *err)
    int simdops_prepare_requant_rounding_clamped(simdops_dtype out_dtype, int rounding,
                                                 int64_t multiplier, int64_t shift,
                                                 int64_t offset, int64_t min, int64_t max,
                                                 simdops_prepared *p, simdops_error *err)
    int simdops_prepare_requant_fp(simdops_dtype out_dtype, double scale, int64_t zero_point,
                                   const int64_t *min, const int64_t *max, int mode,
                                   simdops_prepared *p, simdops_error *err)
    int simdops_requant_fp_prepared(const simdops_prepared *p, const simdops_tensor *x,
                                    const simdops_tensor *y, const simdops_tensor *bias,
                                    const simdops_tensor *scales, simdops_error *err)
    int simdops_prepare_requant(simdops_dtype out_dtype, int64_t multiplier, int64_t shift,
                                int64_t offset, const int64_t *min, const int64_t *max,
                                simdops_prepared *p, simdops_error *err)
    int simdops_clip_prepared(const simdops_prepared *p, const simdops_tensor *x,
                              const simdops_tensor *y, simdops_error *err)
    int simdops_shrink_prepared(const simdops_prepared *p, const simdops_tensor *x,
                                const simdops_tensor *y, simdops_error *err)
    int simdops_requant_prepared(const simdops_prepared *p, const simdops_tensor *x,
                                 const simdops_tensor *y, const simdops_tensor *bias,
                                 const simdops_tensor *multipliers,
                                 const simdops_tensor *shifts, simdops_error *err)

    int simdops_clip_1d(const simdops_prepared *p, const void *x, void *y, int64_t n,
                        simdops_error *err)
    int simdops_shrink_1d(const simdops_prepared *p, const void *x, void *y, int64_t n,
                          simdops_error *err)
    int simdops_hardmax_rows(simdops_dtype dtype, const void *x, void *y, int64_t rows,
                             int64_t cols, simdops_error *err)
    int simdops_requant_1d(const simdops_prepared *p, const int32_t *x, void *y, int64_t n,
                           const int32_t *bias, simdops_error *err)
    int simdops_requant_pc_1d(const simdops_prepared *p, const int32_t *x, void *y, int64_t n,
                              const int32_t *bias, const int32_t *multipliers,
                              const int32_t *shifts, simdops_error *err)

    const char *simdops_isa()
    int simdops_set_thread_isa(const char *name, simdops_error *err)
    const char *simdops_thread_isa()
    int simdops_set_process_isa(const char *name, simdops_error *err)
    const char *simdops_last_call_isa()
    int simdops_available_isas(const char **names, int cap)
    int simdops_known_isas(const char **names, int cap)
    const char *simdops_cpu_features()

cdef extern from "strided.h" nogil:
    int simdops_self_overlaps(const simdops_tensor *t)
    int simdops_same_layout(const simdops_tensor *a, const simdops_tensor *b)

cdef extern from "checks.h" nogil:
    int simdops_check_within(const simdops_tensor *t, const void *base, size_t len, int arg,
                             simdops_error *err)

cdef extern from "internal.h" nogil:
    ctypedef void (*simdops_any_fn)()
    int simdops_prepare_requant_clamped(simdops_dtype out_dtype, int64_t multiplier,
                                        int64_t shift, int64_t offset, int64_t min, int64_t max,
                                        simdops_prepared *p, simdops_error *err)
    int simdops_kernel_entry_count()
    const char *simdops_kernel_entry_name(int entry)
    int simdops_kernel_entry_slots(int entry)
    const char *simdops_kernel_slot_name(int entry, int slot)
    int simdops_kernel_slot_required(int entry, int slot)
    int simdops_tier_count()
    int simdops_tier_known(int i)
    const char *simdops_tier_name(int i)
    int simdops_kernel_origin(int tier, int entry, int slot)
    void simdops_init()

cdef extern from "threadpool.h" nogil:
    int SIMDOPS_MAX_THREADS
    int simdops_set_num_threads(int n)
    int simdops_get_num_threads()
    int simdops_threads_supported()
    int64_t simdops_grain_bytes()
    int64_t simdops_set_grain_bytes(int64_t bytes)
    int64_t simdops_pool_jobs()
