/* simdops._ufunc: numpy ufuncs over simdops' C API (docs/ufuncs.md, docs/design.md
 * "numpy ufuncs"). A client of the capsule simdops._C_API like any other
 * extension: nothing here validates or converts a parameter; C does
 * (prepare_*), and the loops only translate numpy's strided operands into
 * simdops_numbers and 1-D tensors. */
#ifndef SIMDOPS_UFUNC_H
#define SIMDOPS_UFUNC_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL simdops_ufunc_ARRAY_API
#define PY_UFUNC_UNIQUE_SYMBOL simdops_ufunc_UFUNC_API
#ifndef SIMDOPS_UFUNC_MAIN
#define NO_IMPORT_ARRAY
#define NO_IMPORT_UFUNC
#endif
#include <numpy/ndarrayobject.h>
#include <numpy/ufuncobject.h>
#include <numpy/dtype_api.h>

#define SIMDOPS_CAPI_UNIQUE_SYMBOL simdops_ufunc_capi
#ifndef SIMDOPS_UFUNC_MAIN
#define SIMDOPS_CAPI_NO_IMPORT
#endif
#include "simdops/simdops_capi.h"

/* What a ufunc computes; its loops read it from their ufunc (uf_op_of). */
typedef enum uf_kind { UF_CLIP, UF_SHRINK, UF_REQUANT, UF_REQUANT_FP, UF_HARDMAX } uf_kind;

typedef struct uf_op {
    const char *name;  /* the ufunc's name (error messages start with it) */
    uf_kind kind;
    int code;          /* requant: the rounding family; requant_fp: the SIMDOPS_FP_* mode */
    PyObject *ufunc;   /* set at module init */
    const char *doc;
    int floor;         /* a bench instrument registered as its op: UF_FLOOR_NUMPY (its loop does
                        * nothing) or UF_FLOOR_KERNEL (the kernel per run, no parameter work) */
} uf_op;

/* The simdops dtype of a numpy descriptor (kind + size), SIMDOPS_UNKNOWN if none. Inline:
 * a loop reads its operands' types on every call. */
static inline simdops_dtype uf_dtype_of(PyArray_Descr *d)
{
    npy_intp size = PyDataType_ELSIZE(d);
    if (!PyArray_ISNBO(d->byteorder))
        return SIMDOPS_UNKNOWN;
    switch (d->kind) {
    case 'f':
        return size == 2 ? SIMDOPS_FLOAT16 : size == 4 ? SIMDOPS_FLOAT32
                                         : size == 8 ? SIMDOPS_FLOAT64 : SIMDOPS_UNKNOWN;
    case 'i':
        return size == 1 ? SIMDOPS_INT8 : size == 2 ? SIMDOPS_INT16
               : size == 4 ? SIMDOPS_INT32 : size == 8 ? SIMDOPS_INT64 : SIMDOPS_UNKNOWN;
    case 'u':
        return size == 1 ? SIMDOPS_UINT8 : size == 2 ? SIMDOPS_UINT16
               : size == 4 ? SIMDOPS_UINT32 : size == 8 ? SIMDOPS_UINT64 : SIMDOPS_UNKNOWN;
    default:
        return SIMDOPS_UNKNOWN;
    }
}

enum { UF_FLOOR_NONE, UF_FLOOR_NUMPY, UF_FLOOR_KERNEL };

/* The strided loops (_ufunc_loops.c), one per kind; the op comes from context->caller. */
PyArrayMethod_StridedLoop uf_clip_loop, uf_shrink_loop, uf_requant_loop, uf_requant_fp_loop,
    uf_hardmax_loop, uf_floor_loop, uf_kernel_floor_loop;

/* The op whose ufunc is `caller` (module table, _ufunc_module.c). */
const uf_op *uf_op_of(PyObject *caller);

#endif
