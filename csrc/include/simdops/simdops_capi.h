/* simdops C API for other extension modules: a versioned table of function
 * pointers in the capsule simdops._C_API, fetched at run time by the
 * header-only simdops_import(). Nothing is linked against simdops.
 *
 *     #include <Python.h>                 (optional: this header includes it)
 *     #include <simdops/simdops_capi.h>   (-I simdops.get_include())
 *
 *     PyMODINIT_FUNC PyInit_mymod(void) {
 *         if (simdops_import() < 0) return NULL;   (ImportError set)
 *         ...
 *     }
 *     ... simdops_capi_clip_1d(&prepared, x, y, n, &err) ...   (any thread, no GIL)
 *
 * One translation unit: simdops_import() stores the table in a static
 * pointer of the TU that includes this header; call it once (module init)
 * in every TU that uses the API. Several TUs sharing one import (like
 * numpy's PY_ARRAY_UNIQUE_SYMBOL): define SIMDOPS_CAPI_UNIQUE_SYMBOL to one
 * name in every TU, and SIMDOPS_CAPI_NO_IMPORT in every TU but the one that
 * calls simdops_import().
 *
 * ABI promise: fields of simdops_capi are only ever appended; a field is
 * never removed, reordered, or changed in type or meaning. Each append bumps
 * SIMDOPS_CAPI_VERSION. simdops_import() refuses a table whose version or
 * size is below what the caller requires (SIMDOPS_CAPI_REQUIRED_VERSION,
 * default: this header's version). A table newer than the header is fine.
 * docs/c-api.md has the full text. */
#ifndef SIMDOPS_SIMDOPS_CAPI_H
#define SIMDOPS_SIMDOPS_CAPI_H

/* SIMDOPS_CAPI_TABLE_ONLY (simdops' own capi_table.c): the struct alone. */
#ifndef SIMDOPS_CAPI_TABLE_ONLY
#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* simdops.h without the declarations of simdops' own functions: an
 * extension calls them as simdops_capi_NAME (below). The number builders
 * (simdops_float_number, _int_number, _uint_number, _big_number) are
 * header-only and come with the types. */
#ifndef SIMDOPS_CAPI_TABLE_ONLY
#define SIMDOPS_CAPI_CLIENT
#endif
#include "simdops/simdops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIMDOPS_CAPI_NAME "simdops._C_API"
/* 1 + number of appends to simdops_capi so far. */
#define SIMDOPS_CAPI_VERSION 3u

/* The table's function fields, in table order, as
 *     X(version that added it, return type, name, (parameters), (argument names))
 * Each points to the simdops.h function of the same name with the simdops_
 * prefix (see that declaration for what it reads, writes and returns), and is
 * called as simdops_capi_NAME(...) or simdops_api->NAME(...). Every function
 * here may be called without the GIL and from many threads at once; kernels
 * run on the calling thread's ISA tier.
 *
 * This list is the one place a field is written: the struct below, the
 * simdops_capi_NAME wrappers, the size of each version and simdops' own table
 * are expanded from it. Append-only: a new field goes at the end with the next
 * version number (and SIMDOPS_CAPI_VERSION bumped to it). */
#define SIMDOPS_CAPI_ENTRIES(X)                                                                   \
    /* version 1: errors (status texts, the full message of a simdops_error) */                   \
    X(1, const char *, status_message, (int status), (status))                                    \
    X(1, size_t, error_format, (const simdops_error *err, char *buf, size_t cap),                 \
      (err, buf, cap))                                                                            \
    /* dtypes */                                                                                  \
    X(1, size_t, dtype_size, (simdops_dtype dtype), (dtype))                                      \
    X(1, const char *, dtype_name, (simdops_dtype dtype), (dtype))                                \
    X(1, int, op_supports, (int op, simdops_dtype dtype), (op, dtype))                            \
    /* ISA of the calling thread: query, force ("" or NULL clears) */                             \
    X(1, const char *, isa, (void), ())                                                           \
    X(1, int, set_thread_isa, (const char *name, simdops_error *err), (name, err))                \
    /* N-d strided entry points */                                                                \
    X(1, int, clip, (const simdops_tensor *x, const simdops_tensor *y, simdops_number min,        \
      simdops_number max, const simdops_number *scale, const simdops_number *bias,                \
      simdops_error *err), (x, y, min, max, scale, bias, err))                                    \
    X(1, int, shrink, (const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,     \
      simdops_number threshold, simdops_error *err), (x, y, bias, threshold, err))                \
    X(1, int, hardmax, (const simdops_tensor *x, const simdops_tensor *y, int naxes,              \
      const int64_t *axes, simdops_error *err), (x, y, naxes, axes, err))                         \
    X(1, int, requant, (const simdops_tensor *x, const simdops_tensor *y,                         \
      const simdops_requant_args *args, simdops_error *err), (x, y, args, err))                   \
    /* exact numbers -> an opaque prepared handle (validated once) */                             \
    X(1, int, prepare_clip, (simdops_dtype dtype, simdops_number min, simdops_number max,         \
      const simdops_number *scale, const simdops_number *bias, simdops_prepared *p,               \
      simdops_error *err), (dtype, min, max, scale, bias, p, err))                                \
    X(1, int, prepare_shrink, (simdops_dtype dtype, simdops_number bias,                          \
      simdops_number threshold, simdops_prepared *p, simdops_error *err),                         \
      (dtype, bias, threshold, p, err))                                                           \
    X(1, int, prepare_requant, (simdops_dtype out_dtype, int64_t multiplier, int64_t shift,       \
      int64_t offset, const int64_t *min, const int64_t *max, simdops_prepared *p,                \
      simdops_error *err), (out_dtype, multiplier, shift, offset, min, max, p, err))              \
    /* N-d entry points over a prepared handle */                                                 \
    X(1, int, clip_prepared, (const simdops_prepared *p, const simdops_tensor *x,                 \
      const simdops_tensor *y, simdops_error *err), (p, x, y, err))                               \
    X(1, int, shrink_prepared, (const simdops_prepared *p, const simdops_tensor *x,               \
      const simdops_tensor *y, simdops_error *err), (p, x, y, err))                               \
    X(1, int, requant_prepared, (const simdops_prepared *p, const simdops_tensor *x,              \
      const simdops_tensor *y, const simdops_tensor *bias, const simdops_tensor *multipliers,     \
      const simdops_tensor *shifts, simdops_error *err),                                          \
      (p, x, y, bias, multipliers, shifts, err))                                                  \
    /* contiguous 1-D kernels: the hot path */                                                    \
    X(1, int, clip_1d, (const simdops_prepared *p, const void *x, void *y, int64_t n,             \
      simdops_error *err), (p, x, y, n, err))                                                     \
    X(1, int, shrink_1d, (const simdops_prepared *p, const void *x, void *y, int64_t n,           \
      simdops_error *err), (p, x, y, n, err))                                                     \
    X(1, int, hardmax_rows, (simdops_dtype dtype, const void *x, void *y, int64_t rows,           \
      int64_t cols, simdops_error *err), (dtype, x, y, rows, cols, err))                          \
    X(1, int, requant_1d, (const simdops_prepared *p, const int32_t *x, void *y, int64_t n,       \
      const int32_t *bias, simdops_error *err), (p, x, y, n, bias, err))                          \
    X(1, int, requant_pc_1d, (const simdops_prepared *p, const int32_t *x, void *y, int64_t n,    \
      const int32_t *bias, const int32_t *multipliers, const int32_t *shifts,                     \
      simdops_error *err), (p, x, y, n, bias, multipliers, shifts, err))                          \
    /* version 2: the requantization families ... */                                              \
    X(2, int, prepare_requant_rounding, (simdops_dtype out_dtype, int rounding,                   \
      int64_t multiplier, int64_t shift, int64_t offset, const int64_t *min, const int64_t *max,  \
      simdops_prepared *p, simdops_error *err),                                                   \
      (out_dtype, rounding, multiplier, shift, offset, min, max, p, err))                         \
    X(2, int, prepare_requant_fp, (simdops_dtype out_dtype, double scale, int64_t zero_point,     \
      const int64_t *min, const int64_t *max, int mode, simdops_prepared *p,                      \
      simdops_error *err), (out_dtype, scale, zero_point, min, max, mode, p, err))                \
    X(2, int, requant_fp_prepared, (const simdops_prepared *p, const simdops_tensor *x,           \
      const simdops_tensor *y, const simdops_tensor *bias, const simdops_tensor *scales,          \
      simdops_error *err), (p, x, y, bias, scales, err))                                          \
    X(2, int, requant_fp_pc_1d, (const simdops_prepared *p, const int32_t *x, void *y,            \
      int64_t n, const int32_t *bias, const float *scales, simdops_error *err),                   \
      (p, x, y, n, bias, scales, err))                                                            \
    /* ... and the ONNX profile */                                                                \
    X(2, int, quantize_linear, (const simdops_tensor *x, const simdops_tensor *scale,             \
      const simdops_tensor *zero_point, int64_t axis, const simdops_tensor *y,                    \
      simdops_error *err), (x, scale, zero_point, axis, y, err))                                  \
    X(2, int, dequantize_linear, (const simdops_tensor *x, const simdops_tensor *scale,           \
      const simdops_tensor *zero_point, int64_t axis, const simdops_tensor *y,                    \
      simdops_error *err), (x, scale, zero_point, axis, y, err))                                  \
    X(2, int, clip_onnx, (const simdops_tensor *x, const simdops_tensor *y,                       \
      const simdops_number *min, const simdops_number *max, simdops_error *err),                  \
      (x, y, min, max, err))                                                                      \
    X(2, int, shrink_onnx, (const simdops_tensor *x, const simdops_tensor *y,                     \
      simdops_number bias, simdops_number lambd, simdops_error *err), (x, y, bias, lambd, err))                                                                      \
    X(3, int, quantize_linear_ex, (const simdops_qdq_call *call, simdops_error *err), (call, err))   \
    X(3, int, dequantize_linear_ex, (const simdops_qdq_call *call, simdops_error *err), (call, err)) \
    /* version 3: the int8 matmul accumulators (exact, or VPMADDUBSW's pairs) */                  \
    X(3, int, int8_matmul_accumulators, (const simdops_tensor *a, const simdops_tensor *w,        \
      const simdops_tensor *out, int pair_saturation, simdops_error *err),                        \
      (a, w, out, pair_saturation, err)) \
    /* version 3: quantized add / subtract / multiply */                                           \
    X(3, int, prepare_qbinary, (simdops_dtype dtype, const simdops_qbinary_args *args,            \
      simdops_prepared *p, simdops_error *err), (dtype, args, p, err))                            \
    X(3, int, qbinary_prepared, (const simdops_prepared *p, const simdops_tensor *a,              \
      const simdops_tensor *b, const simdops_tensor *y, simdops_error *err), (p, a, b, y, err))   \
    X(3, int, qbinary, (const simdops_tensor *a, const simdops_tensor *b,                         \
      const simdops_tensor *y, const simdops_qbinary_args *args, simdops_error *err),             \
      (a, b, y, args, err))                                                                       \
    X(3, int, qbinary_1d, (const simdops_prepared *p, const void *a, const void *b, void *y,      \
      int64_t n, simdops_error *err), (p, a, b, y, n, err))                                       \
    /* version 3: the float families' chain (oneDNN, OpenVINO, fbgemm's float bias, ncnn) */       \
    X(3, int, prepare_requant_fp_chain, (simdops_dtype out_dtype, double scale,                   \
      int64_t zero_point, const int64_t *min, const int64_t *max, int mode,                       \
      const simdops_requant_fp_chain *chain, simdops_prepared *p, simdops_error *err),            \
      (out_dtype, scale, zero_point, min, max, mode, chain, p, err))

typedef struct simdops_capi {
    /* never change: the table's version (SIMDOPS_CAPI_VERSION of the simdops
     * that filled it) and its size in bytes */
    uint32_t abi_version;
    uint32_t size;
#define SIMDOPS_CAPI_X_FIELD(version, ret, name, params, args) ret (*name) params;
    SIMDOPS_CAPI_ENTRIES(SIMDOPS_CAPI_X_FIELD)
#undef SIMDOPS_CAPI_X_FIELD
} simdops_capi;

/* Size of a table of version 1 and 2 (code written for those headers may use
 * them); simdops_capi_size_of_version() covers every version. */
#define SIMDOPS_CAPI_SIZE_V1 (offsetof(simdops_capi, requant_pc_1d) + sizeof(void (*)(void)))
#define SIMDOPS_CAPI_SIZE_V2 (offsetof(simdops_capi, shrink_onnx) + sizeof(void (*)(void)))

#ifndef SIMDOPS_CAPI_TABLE_ONLY

#ifndef SIMDOPS_CAPI_REQUIRED_VERSION
#define SIMDOPS_CAPI_REQUIRED_VERSION SIMDOPS_CAPI_VERSION
#endif

/* ---- where the imported table lives ---- */
#ifdef SIMDOPS_CAPI_UNIQUE_SYMBOL
#define simdops_api SIMDOPS_CAPI_UNIQUE_SYMBOL
#ifdef SIMDOPS_CAPI_NO_IMPORT
extern const simdops_capi *simdops_api;
#else
const simdops_capi *simdops_api = NULL;
#endif
#else
#ifdef SIMDOPS_CAPI_NO_IMPORT
#error "SIMDOPS_CAPI_NO_IMPORT needs SIMDOPS_CAPI_UNIQUE_SYMBOL (the name of the shared table pointer)"
#endif
static const simdops_capi *simdops_api = NULL;
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SIMDOPS_CAPI_MAYBE_UNUSED __attribute__((unused))
#else
#define SIMDOPS_CAPI_MAYBE_UNUSED
#endif

#ifndef SIMDOPS_CAPI_NO_IMPORT
/* Size a table of `version` must have at least: the end of the last field
 * of that version or older (0 for a version this header does not know:
 * newer than the header, only the version number is checked). */
static SIMDOPS_CAPI_MAYBE_UNUSED size_t simdops_capi_size_of_version(uint32_t version)
{
    size_t size = 0;
    if (version < 1 || version > SIMDOPS_CAPI_VERSION)
        return 0;
#define SIMDOPS_CAPI_X_END(added, ret, name, params, args)                                        \
    if ((uint32_t)(added) <= version)                                                             \
        size = offsetof(simdops_capi, name) + sizeof(((const simdops_capi *)0)->name);
    SIMDOPS_CAPI_ENTRIES(SIMDOPS_CAPI_X_END)
#undef SIMDOPS_CAPI_X_END
    return size;
}

/* Imports simdops, fetches the capsule simdops._C_API and stores its table
 * in simdops_api, refusing a table older than required_version. Needs the
 * GIL. Returns 0, or -1 with an ImportError set. */
static SIMDOPS_CAPI_MAYBE_UNUSED int simdops_import_version(uint32_t required_version)
{
    PyObject *module, *capsule;
    const simdops_capi *table;
    size_t need = simdops_capi_size_of_version(required_version);
    module = PyImport_ImportModule("simdops");
    if (!module)
        return -1;
    capsule = PyObject_GetAttrString(module, "_C_API");
    Py_DECREF(module);
    if (!capsule) {
        PyErr_Clear();
        PyErr_Format(PyExc_ImportError,
                     "simdops has no C API capsule simdops._C_API; this extension needs "
                     "simdops C API version %u or newer (upgrade simdops)",
                     (unsigned)required_version);
        return -1;
    }
    if (!PyCapsule_IsValid(capsule, SIMDOPS_CAPI_NAME)) {
        Py_DECREF(capsule);
        PyErr_Format(PyExc_ImportError,
                     "simdops._C_API is not a capsule named \"%s\"", SIMDOPS_CAPI_NAME);
        return -1;
    }
    table = (const simdops_capi *)PyCapsule_GetPointer(capsule, SIMDOPS_CAPI_NAME);
    Py_DECREF(capsule);
    if (!table)
        return -1;
    if (table->abi_version < required_version) {
        PyErr_Format(PyExc_ImportError,
                     "simdops C API version %u is older than this extension needs "
                     "(version %u); upgrade simdops",
                     (unsigned)table->abi_version, (unsigned)required_version);
        return -1;
    }
    if (table->size < need) {
        PyErr_Format(PyExc_ImportError,
                     "simdops C API table of version %u has %u bytes, fewer than version %u "
                     "needs (%u bytes): a broken simdops build",
                     (unsigned)table->abi_version, (unsigned)table->size,
                     (unsigned)required_version, (unsigned)need);
        return -1;
    }
    simdops_api = table;
    return 0;
}

/* simdops_import_version(SIMDOPS_CAPI_REQUIRED_VERSION). */
static SIMDOPS_CAPI_MAYBE_UNUSED int simdops_import(void)
{
    return simdops_import_version(SIMDOPS_CAPI_REQUIRED_VERSION);
}
#endif /* SIMDOPS_CAPI_NO_IMPORT */

/* ---- calls through the imported table (after simdops_import()) ----
 * simdops_capi_NAME(...) is simdops_api->NAME(...): same arguments, same
 * result; simdops/simdops.h documents each. None needs the GIL. */
#define SIMDOPS_CAPI_X_FORWARD(version, ret, name, params, args)                                  \
    static inline ret simdops_capi_##name params { return simdops_api->name args; }
SIMDOPS_CAPI_ENTRIES(SIMDOPS_CAPI_X_FORWARD)
#undef SIMDOPS_CAPI_X_FORWARD
#endif /* SIMDOPS_CAPI_TABLE_ONLY */

#ifdef __cplusplus
}
#endif
#endif
