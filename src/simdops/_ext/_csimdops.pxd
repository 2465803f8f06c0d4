# Declarations of the C API (csrc/include/simdops/simdops.h) and of the
# kernel-table iteration functions (csrc/dispatch/dispatch.h) used by _core.pyx; the
# types come from simdops/capi_types.pxd.
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from simdops.capi_types cimport *  # the enums and structs, declared once

cdef extern from "simdops/simdops.h" nogil:
    int SIMDOPS_R_COUNT
    ctypedef enum simdops_arg:
        SIMDOPS_ARG_NONE
        SIMDOPS_ARG_X
        SIMDOPS_ARG_OUT
    int SIMDOPS_ARG_COUNT

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
    int simdops_prepare_qbinary(simdops_dtype dtype, const simdops_qbinary_args *args,
                                simdops_prepared *p, simdops_error *err)
    int simdops_qbinary_prepared(const simdops_prepared *p, const simdops_tensor *a,
                                 const simdops_tensor *b, const simdops_tensor *y,
                                 simdops_error *err)
    int simdops_quantize_linear(const simdops_tensor *x, const simdops_tensor *scale,
                                const simdops_tensor *zero_point, int64_t axis,
                                const simdops_tensor *y, simdops_error *err)
    int simdops_quantize_linear_ex(const simdops_qdq_call *call, simdops_error *err)
    int simdops_dequantize_linear_ex(const simdops_qdq_call *call, simdops_error *err)
    int simdops_dequantize_linear(const simdops_tensor *x, const simdops_tensor *scale,
                                  const simdops_tensor *zero_point, int64_t axis,
                                  const simdops_tensor *y, simdops_error *err)
    int simdops_int8_matmul_accumulators(const simdops_tensor *a, const simdops_tensor *w,
                                         const simdops_tensor *out, int pair_saturation,
                                         simdops_error *err)
    int simdops_clip_onnx(const simdops_tensor *x, const simdops_tensor *y,
                          const simdops_number *min, const simdops_number *max,
                          simdops_error *err)
    int simdops_shrink_onnx(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                            simdops_number lambd, simdops_error *err)
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
    int simdops_prepare_requant_fp_chain(simdops_dtype out_dtype, double scale,
                                         int64_t zero_point, const int64_t *min,
                                         const int64_t *max, int mode,
                                         const simdops_requant_fp_chain *chain,
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

# The C lists' columns by code, expanded by the C preprocessor (Cython cannot
# expand an X-macro): SIMDOPS_OPS's members for _core.op_members, SIMDOPS_ROUNDINGS's
# members, names, array_api flags and entries for _core.roundings / rounding_entries.
cdef extern from *:
    """
    #include "simdops/simdops.h"
    static const char *simdops_py_op_member(int op)
    {
        switch (op) {
    #define SIMDOPS_X_PY_OP_MEMBER(name, code, text) case code: return "SIMDOPS_OP_" #name;
        SIMDOPS_OPS(SIMDOPS_X_PY_OP_MEMBER)
    #undef SIMDOPS_X_PY_OP_MEMBER
        }
        return "";
    }
    static const char *simdops_py_rounding_member(int r)
    {
        switch (r) {
    #define SIMDOPS_X_PY_ROUNDING_MEMBER(name, code, ...) case code: return "SIMDOPS_ROUNDING_" #name;
        SIMDOPS_ROUNDINGS(SIMDOPS_X_PY_ROUNDING_MEMBER)
    #undef SIMDOPS_X_PY_ROUNDING_MEMBER
        }
        return "";
    }
    static const char *simdops_py_rounding_name(int r)
    {
        switch (r) {
    #define SIMDOPS_X_PY_ROUNDING_NAME(name, code, py, ...) case code: return py;
        SIMDOPS_ROUNDINGS(SIMDOPS_X_PY_ROUNDING_NAME)
    #undef SIMDOPS_X_PY_ROUNDING_NAME
        }
        return "";
    }
    static const char *simdops_py_rounding_entry(int r)
    {
        switch (r) {
    #define SIMDOPS_X_PY_ROUNDING_ENTRY(name, code, py, api, lo, hi, entry, pc) case code: return #entry;
        SIMDOPS_ROUNDINGS(SIMDOPS_X_PY_ROUNDING_ENTRY)
    #undef SIMDOPS_X_PY_ROUNDING_ENTRY
        }
        return "";
    }
    static int simdops_py_rounding_array_api(int r)
    {
        switch (r) {
    #define SIMDOPS_X_PY_ROUNDING_API(name, code, py, api, ...) case code: return api;
        SIMDOPS_ROUNDINGS(SIMDOPS_X_PY_ROUNDING_API)
    #undef SIMDOPS_X_PY_ROUNDING_API
        }
        return 0;
    }
    """
    const char *simdops_py_op_member(int op)
    const char *simdops_py_rounding_member(int r)
    const char *simdops_py_rounding_name(int r)
    int simdops_py_rounding_array_api(int r)
    const char *simdops_py_rounding_entry(int r)

cdef extern from "driver/strided.h" nogil:
    int simdops_self_overlaps(const simdops_tensor *t)
    int simdops_same_layout(const simdops_tensor *a, const simdops_tensor *b)

cdef extern from "rules/checks.h" nogil:
    int simdops_check_within(const simdops_tensor *t, const void *base, size_t len, int arg,
                             simdops_error *err)

cdef extern from "rules/params.h" nogil:
    void simdops_requant_shift_range(int family, int32_t *lo, int32_t *hi)
    int simdops_requant_scales_from_f64(const double *src, int64_t n, int mode, float *dst,
                                        simdops_error *err)
    int simdops_prepare_requant_clamped(simdops_dtype out_dtype, int64_t multiplier,
                                        int64_t shift, int64_t offset, int64_t min, int64_t max,
                                        simdops_prepared *p, simdops_error *err)

cdef extern from "dispatch/dispatch.h" nogil:
    ctypedef void (*simdops_any_fn)()
    int simdops_kernel_entry_count()
    const char *simdops_kernel_entry_name(int entry)
    int simdops_kernel_entry_slots(int entry)
    const char *simdops_kernel_slot_name(int entry, int slot)
    int simdops_kernel_slot_required(int entry, int slot)
    int simdops_kernel_slot_is_output(int entry)
    int simdops_tier_count()
    int simdops_tier_known(int i)
    int simdops_tier_cpu_supported(int i)
    const char *simdops_tier_name(int i)
    int simdops_tier_parent(int i)
    int simdops_kernel_origin(int tier, int entry, int slot)
    void simdops_init()

cdef extern from "driver/threadpool.h" nogil:
    int SIMDOPS_MAX_THREADS
    int simdops_set_num_threads(int n)
    int simdops_get_num_threads()
    int simdops_threads_supported()
    int64_t simdops_grain_bytes()
    int64_t simdops_set_grain_bytes(int64_t bytes)
    int64_t simdops_pool_jobs()

cdef extern from "core/dtype.h" nogil:
    ctypedef struct simdops_dtype_row:
        const char *name
        unsigned char size, is_float, is_signed
    const simdops_dtype_row simdops_dtype_rows[]

cdef extern from "rules/checks.h" nogil:
    int simdops_check_tensor(const simdops_tensor *t, int arg, simdops_error *err)

cdef extern from "rules/rules.h" nogil:
    int simdops_check_same_shape(const simdops_tensor *x, const simdops_tensor *y,
                                 simdops_dtype dtype, simdops_error *err)
    int simdops_ranges_overlap(const void *a, uint64_t alen, const void *b, uint64_t blen)
    int simdops_check_disjoint(const void *x, uint64_t xlen, const void *y, uint64_t ylen,
                               int same_address_ok, simdops_error *err)
    int simdops_reduced_axes(int ndim, int naxes, const int64_t *axes, int *reduced,
                             simdops_error *err)
    int simdops_check_channels(const simdops_tensor *v, int arg, simdops_dtype dtype,
                               const simdops_tensor *x, simdops_error *err)
    int simdops_check_int32(int arg, int64_t v, simdops_error *err)
    int simdops_check_bound(simdops_dtype out, int arg, int64_t v, simdops_error *err)
    int simdops_check_min_max(int64_t lo, int64_t hi, simdops_error *err)
    int simdops_dtype_int_range(simdops_dtype dtype, int64_t *lo, uint64_t *hi)


cdef extern from "rules/qbinary.h" nogil:
    int simdops_qbinary_describe(const simdops_prepared *prep, const char **names,
                                 double *values, int cap)
