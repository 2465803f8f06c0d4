/* simdops._ufunc: the ufunc objects, their loops (one per dtype tuple, all
 * pointing at the kind's strided loop) and the promoter that gives simdops'
 * type resolution instead of numpy's: x keeps its dtype, every parameter keeps
 * its own value exactly (Python ints as int64, floats as float64, float32 and
 * int32 arrays as they are) and C converts it to x's type, as simdops.clip does. */
#define SIMDOPS_UFUNC_MAIN
#include "_ufunc.h"

#include <stdio.h>

#define UF_DOC_COMMON                                                                         \
    "\n\nA numpy ufunc: the parameters are inputs broadcast against x (scalars: per tensor; "  \
    "shape (C, 1, 1) against NCHW: per channel; any shape: per element); out=, where=, "      \
    "dtype= and __array_ufunc__ (dask, xarray, masked arrays) work as for any ufunc. Type "  \
    "resolution is simdops', not numpy's: x keeps its dtype and each parameter's exact "     \
    "value is converted to x's type by simdops' rules (a Python int bound on an int8 x "      \
    "saturates, it is not an int64 promotion); invalid parameters raise what the simdops "   \
    "function raises. docs/ufuncs.md has the details."

static const char uf_doc_clip[] =
    "clip(x, min, max): simdops.clip as a ufunc (DirectML ELEMENT_WISE_CLIP, bit-exact): "
    "max(min', min(x, max')) with min'/max' converted to x's dtype; min > max gives min "
    "(DirectML's order). NaN bounds raise ValueError." UF_DOC_COMMON;
static const char uf_doc_shrink[] =
    "shrink(x, bias, threshold): simdops.shrink as a ufunc (DirectML ACTIVATION_SHRINK, "
    "bit-exact): x - bias above threshold, x + bias below -threshold, 0 between. ONNX calls "
    "threshold lambd." UF_DOC_COMMON;
static const char uf_doc_requant[] =
    "quantize_down_int32[_family](x, multiplier, shift, offset): simdops.quantize_down_int32 "
    "as a ufunc, one ufunc per rounding family (the name's suffix is rounding=; none: "
    "\"double\"). x int32; output uint8 by default, int8 or int16 with dtype=; no clamp "
    "beyond the output type (clamp with simdops.ufunc.clip on the output: the same bits as "
    "min=/max=); bias: add it to x first (np.add wraps in int32 as simdops does)."
    UF_DOC_COMMON;
static const char uf_doc_fp[] =
    "requantize_fp32[_away|_float64|_float64_away](x, scale, zero_point): "
    "simdops.requantize_fp32 as a ufunc, one per (precision, ties): no suffix is "
    "precision=\"float32\", ties=\"even\"; _away ties=\"away\"; _float64 "
    "precision=\"float64\". x int32; output uint8 by default, int8 or int16 with dtype=; no "
    "clamp beyond the output type (clamp the output with simdops.ufunc.clip: the same bits "
    "as min=/max=). Integer scales go through numpy's cast to float64." UF_DOC_COMMON;
static const char uf_doc_hardmax[] =
    "hardmax(x): simdops.hardmax over one axis as a generalized ufunc (n)->(n): 1 at the "
    "first maximum (NaN wins), 0 elsewhere. axis= picks the axis (default -1), as for any "
    "gufunc with one core dimension. float32, float16, float64.";

static const char uf_doc_kernel_floor[] =
    "A bench instrument, not an op: registered as requantize_fp32 (the same loops, promoter "
    "and signature) with a loop that runs the 1-D kernel over each contiguous run with one "
    "handle prepared once per thread (scale 1/1000, zero point 0) whatever the parameters: "
    "its time is numpy's iteration plus the kernel per run with no parameter work. Its output "
    "is not requantize_fp32's (python -m simdops bench).";
static const char uf_doc_floor[] =
    "A bench instrument, not an op: registered as the simdops ufunc its name ends with (the "
    "same loops, promoter and signature) with a loop that computes nothing and leaves out= "
    "as it is: its time is numpy's own cost of the call (python -m simdops bench).";

/* clip, shrink, hardmax, then (uf_fill_families) one ufunc per requantization family
 * quantize_down_int32's rounding= takes and one per requantize_fp32 (precision, ties),
 * read from simdops._core (C's SIMDOPS_ROUNDINGS and SIMDOPS_FP_* through the Cython layer:
 * the lists live once). */
#define UF_MAX_OPS 24
static uf_op uf_ops[UF_MAX_OPS] = {
    {"clip", UF_CLIP, 0, NULL, NULL, 0},
    {"shrink", UF_SHRINK, 0, NULL, NULL, 0},
    {"hardmax", UF_HARDMAX, 0, NULL, NULL, 0},
};
static int uf_nops = 3;
#define UF_NOPS uf_nops

static int uf_add_op(const char *name, uf_kind kind, int code, int floor)
{
    char *copy;
    if (uf_nops == UF_MAX_OPS) {
        PyErr_SetString(PyExc_ImportError, "simdops._ufunc: more families than ufunc slots");
        return -1;
    }
    copy = PyMem_RawMalloc(strlen(name) + 1); /* lives as long as the process (the ufunc) */
    if (!copy) {
        PyErr_NoMemory();
        return -1;
    }
    strcpy(copy, name);
    uf_ops[uf_nops].name = copy;
    uf_ops[uf_nops].kind = kind;
    uf_ops[uf_nops].code = code;
    uf_ops[uf_nops].floor = floor;
    uf_nops++;
    return 0;
}

/* The families from simdops._core.roundings() ((name, code, lo, hi, array_api) each) and
 * the float modes from _core._FP_PRECISIONS / _FP_TIES ({name: flag}). */
static int uf_fill_families(void)
{
    PyObject *core = PyImport_ImportModule("simdops._core"), *list = NULL, *prec = NULL;
    PyObject *ties = NULL, *pk, *pv, *tk, *tv;
    Py_ssize_t k, a, b;
    char name[128];
    int rc = -1;
    if (!core)
        return -1;
    list = PyObject_CallMethod(core, "roundings", NULL);
    prec = PyObject_GetAttrString(core, "_FP_PRECISIONS");
    ties = PyObject_GetAttrString(core, "_FP_TIES");
    if (!list || !prec || !ties)
        goto done;
    for (k = 0; k < PyList_GET_SIZE(list); k++) {
        const char *fam;
        int code, api;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, k), "sinnp", &fam, &code, &a, &b, &api))
            goto done;
        if (!api)
            continue; /* ACL's QUANTIZE_DOWN: simdops.acl's, not the array API's */
        snprintf(name, sizeof(name), code == 0 ? "quantize_down_int32" : "quantize_down_int32_%s",
                 fam);
        if (uf_add_op(name, UF_REQUANT, code, 0) < 0)
            goto done;
    }
    a = 0;
    while (PyDict_Next(prec, &a, &pk, &pv)) {
        b = 0;
        while (PyDict_Next(ties, &b, &tk, &tv)) {
            long mode = PyLong_AsLong(pv) | PyLong_AsLong(tv);
            const char *p = PyUnicode_AsUTF8(pk), *t = PyUnicode_AsUTF8(tk);
            if (!p || !t || PyErr_Occurred())
                goto done;
            /* the defaults (float32, even) are the bare name, as requantize_fp32's */
            snprintf(name, sizeof(name), "requantize_fp32%s%s%s",
                     strcmp(p, "float32") ? "_" : "", strcmp(p, "float32") ? p : "",
                     strcmp(t, "even") ? (strcmp(t, "away") ? "_ties_" : "_away") : "");
            if (!strcmp(t, "even") || !strcmp(t, "away")) {
                if (uf_add_op(name, UF_REQUANT_FP, (int)mode, 0) < 0)
                    goto done;
            }
        }
    }
    /* numpy's floor for the bench: _floor_<op>, registered as <op> (same loops, promoter,
     * signature) with a loop that does nothing (docs/performance.md) */
    for (k = 0, a = uf_nops; k < a; k++) {
        static const char *const measured[] = {"clip", "hardmax", "quantize_down_int32",
                                               "requantize_fp32"};
        size_t m;
        for (m = 0; m < sizeof(measured) / sizeof(measured[0]); m++)
            if (!strcmp(uf_ops[k].name, measured[m])) {
                snprintf(name, sizeof(name), "_floor_%s", uf_ops[k].name);
                if (uf_add_op(name, uf_ops[k].kind, uf_ops[k].code, UF_FLOOR_NUMPY) < 0)
                    goto done;
                /* per channel on NCHW: numpy's iteration and the kernel per plane */
                if (!strcmp(uf_ops[k].name, "requantize_fp32") &&
                    uf_add_op("_kernel_floor_requantize_fp32", uf_ops[k].kind, uf_ops[k].code,
                              UF_FLOOR_KERNEL) < 0)
                    goto done;
            }
    }
    rc = 0;
done:
    Py_XDECREF(list);
    Py_XDECREF(prec);
    Py_XDECREF(ties);
    Py_DECREF(core);
    return rc;
}

const uf_op *uf_op_of(PyObject *caller)
{
    int k;
    for (k = 0; k < UF_NOPS; k++)
        if (uf_ops[k].ufunc == caller && caller)
            return &uf_ops[k];
    return NULL;
}

static const char *const uf_clip_args[] = {"x", "min", "max"};
static const char *const uf_shrink_args[] = {"x", "bias", "threshold"};
static const char *const uf_requant_args[] = {"x", "multiplier", "shift", "offset"};
static const char *const uf_fp_args[] = {"x", "scale", "zero_point"};

static PyArray_DTypeMeta *uf_dtype(int typenum)
{
    PyArray_Descr *d = PyArray_DescrFromType(typenum);
    PyArray_DTypeMeta *t = NPY_DTYPE(d);
    Py_DECREF(d); /* the DType class is static */
    return t;
}

static int uf_typenum(simdops_dtype t)
{
    switch (t) {
    case SIMDOPS_FLOAT32: return NPY_FLOAT32;
    case SIMDOPS_FLOAT16: return NPY_FLOAT16;
    case SIMDOPS_FLOAT64: return NPY_FLOAT64;
    case SIMDOPS_UINT8: return NPY_UINT8;
    case SIMDOPS_UINT16: return NPY_UINT16;
    case SIMDOPS_UINT32: return NPY_UINT32;
    case SIMDOPS_UINT64: return NPY_UINT64;
    case SIMDOPS_INT8: return NPY_INT8;
    case SIMDOPS_INT16: return NPY_INT16;
    case SIMDOPS_INT32: return NPY_INT32;
    default: return NPY_INT64;
    }
}

/* ------------------------------------------------------------------ promotion */

enum { UF_P_REAL, UF_P_INT, UF_P_SCALE }; /* a parameter's class */

static int uf_param_class(const uf_op *op, int i)
{
    if (op->kind == UF_REQUANT)
        return UF_P_INT;
    if (op->kind == UF_REQUANT_FP)
        return i == 1 ? UF_P_SCALE : UF_P_INT;
    return UF_P_REAL;
}

static const char *uf_arg_name(const uf_op *op, int i)
{
    switch (op->kind) {
    case UF_CLIP: return uf_clip_args[i];
    case UF_SHRINK: return uf_shrink_args[i];
    case UF_REQUANT: return uf_requant_args[i];
    case UF_REQUANT_FP: return uf_fp_args[i];
    default: return "x";
    }
}

/* The registered parameter DType a parameter of DType `given` runs as, or NULL
 * with TypeError (bool, complex, a float for an integer parameter, ...). */
static PyArray_DTypeMeta *uf_param_dtype(const uf_op *op, int i, PyArray_DTypeMeta *given)
{
    int cls = uf_param_class(op, i);
    char kind = 0;
    npy_intp size = 8;
    if (given == &PyArray_PyLongDType)
        kind = 'i';
    else if (given == &PyArray_PyFloatDType)
        kind = 'f';
    else if (!(given->flags & NPY_DT_ABSTRACT) && given->singleton) {
        kind = given->singleton->kind;
        size = PyDataType_ELSIZE(given->singleton);
    }
    if (cls == UF_P_SCALE && (kind == 'i' || kind == 'u'))
        return uf_dtype(NPY_FLOAT64); /* numpy's cast to float64, then C's float32 rounding */
    if (kind == 'f' && cls != UF_P_INT)
        return uf_dtype(size == 4 ? NPY_FLOAT32 : NPY_FLOAT64);
    if (cls == UF_P_INT && size <= 2 && (kind == 'i' || kind == 'u') &&
        !(kind == 'u' && size == 2))
        return given; /* int8, uint8, int16: registered (they choose the output type) */
    if (kind == 'i' || (kind == 'u' && (size < 8 || cls == UF_P_INT)))
        return uf_dtype(size == 4 && kind == 'i' ? NPY_INT32 : NPY_INT64);
    if (kind == 'u')
        return uf_dtype(NPY_UINT64);
    PyErr_Format(PyExc_TypeError, "%s: %s must be %s, got %s", op->name, uf_arg_name(op, i),
                 cls == UF_P_INT ? "an int" : "a real number",
                 kind == 'b' ? "bool" : kind == 'f' ? "a float" : ((PyTypeObject *)given)->tp_name);
    return NULL;
}

/* The output type of a requantization: the zero point's (offset's) type when it is one
 * the families produce (ONNX's convention: y_zero_point's type is y's), else uint8. */
static PyArray_DTypeMeta *uf_out_dtype(PyArray_DTypeMeta *zero_point)
{
    simdops_dtype t = zero_point->singleton && !(zero_point->flags & NPY_DT_ABSTRACT)
                          ? uf_dtype_of(zero_point->singleton)
                          : SIMDOPS_UNKNOWN;
    if (t != SIMDOPS_UNKNOWN && simdops_capi_op_supports(SIMDOPS_OP_REQUANT_OUT, t))
        return zero_point;
    return uf_dtype(NPY_UINT8);
}

static int uf_promote(PyObject *ufunc, PyArray_DTypeMeta *const op_dtypes[],
                      PyArray_DTypeMeta *const signature[], PyArray_DTypeMeta *new_op_dtypes[])
{
    const uf_op *op = uf_op_of(ufunc);
    int nin = ((PyUFuncObject *)ufunc)->nin, i;
    PyArray_DTypeMeta *t;
    if (!op) {
        PyErr_SetString(PyExc_RuntimeError, "simdops.ufunc: promoter of an unknown ufunc");
        return -1;
    }
    for (i = 0; i <= nin; i++) { /* the inputs and the one output */
        if (signature[i])
            t = signature[i];
        else if (i == 0 && (op->kind == UF_REQUANT || op->kind == UF_REQUANT_FP))
            t = op_dtypes[0] == &PyArray_PyLongDType ? uf_dtype(NPY_INT32) : op_dtypes[0];
        else if (i == 0)
            t = op_dtypes[0] == &PyArray_PyLongDType    ? uf_dtype(NPY_INT64)
                : op_dtypes[0] == &PyArray_PyFloatDType ? uf_dtype(NPY_FLOAT64)
                                                        : op_dtypes[0];
        else if (i == nin && (op->kind == UF_REQUANT || op->kind == UF_REQUANT_FP))
            t = uf_out_dtype(new_op_dtypes[nin - 1]);
        else if (i == nin)
            t = new_op_dtypes[0];
        else if (!(t = uf_param_dtype(op, i, op_dtypes[i])))
            goto fail;
        Py_INCREF(t);
        new_op_dtypes[i] = t;
    }
    return 0;
fail:
    while (--i >= 0)
        Py_CLEAR(new_op_dtypes[i]);
    return -1;
}

/* ------------------------------------------------------------------ loops */

static const int uf_real_params[] = {NPY_FLOAT64, NPY_FLOAT32, NPY_INT64, NPY_INT32, NPY_UINT64};
static const int uf_int_params[] = {NPY_INT64, NPY_INT32};
/* the offset / zero point: also the output types' own (they choose the output type) */
static const int uf_zero_point_params[] = {NPY_INT64, NPY_INT32, NPY_UINT8, NPY_INT8, NPY_INT16};
static const int uf_scale_params[] = {NPY_FLOAT64, NPY_FLOAT32};

static int uf_param_set(const uf_op *op, int i, const int **types)
{
    int last = op->kind == UF_REQUANT ? 3 : 2;
    switch (uf_param_class(op, i)) {
    case UF_P_INT:
        if (i == last) {
            *types = uf_zero_point_params;
            return 5;
        }
        *types = uf_int_params;
        return 2;
    case UF_P_SCALE: *types = uf_scale_params; return 2;
    default: *types = uf_real_params; return 5;
    }
}

/* Registers the loop for x (and y) of xt / yt and every parameter DType combination. */
static int uf_add_loops(const uf_op *op, int nin, simdops_dtype xt, simdops_dtype yt)
{
    PyArray_DTypeMeta *dtypes[8];
    PyType_Slot slots[2] = {{0, NULL}, {0, NULL}};
    PyArrayMethod_Spec spec;
    const int *sets[4];
    int sizes[4], idx[4] = {0, 0, 0, 0}, i, done = 0;
    slots[0].slot = NPY_METH_strided_loop;
    slots[0].pfunc = op->floor == UF_FLOOR_KERNEL ? (void *)uf_kernel_floor_loop
                     : op->floor                 ? (void *)uf_floor_loop
                     : op->kind == UF_CLIP       ? (void *)uf_clip_loop
                     : op->kind == UF_SHRINK     ? (void *)uf_shrink_loop
                     : op->kind == UF_REQUANT    ? (void *)uf_requant_loop
                     : op->kind == UF_REQUANT_FP ? (void *)uf_requant_fp_loop
                                                 : (void *)uf_hardmax_loop;
    for (i = 1; i < nin; i++)
        sizes[i] = uf_param_set(op, i, &sets[i]);
    spec.name = op->name;
    spec.nin = nin;
    spec.nout = 1;
    spec.casting = NPY_NO_CASTING;
    /* the kernels' FP status flags mean nothing (NaN compares, saturating casts) */
    spec.flags = NPY_METH_NO_FLOATINGPOINT_ERRORS;
    spec.dtypes = dtypes;
    spec.slots = slots;
    dtypes[0] = uf_dtype(uf_typenum(xt));
    dtypes[nin] = uf_dtype(uf_typenum(yt));
    while (!done) {
        for (i = 1; i < nin; i++)
            dtypes[i] = uf_dtype(sets[i][idx[i]]);
        if (PyUFunc_AddLoopFromSpec(op->ufunc, &spec) < 0)
            return -1;
        for (i = nin - 1, done = 1; i >= 1 && done; i--) { /* next combination */
            done = ++idx[i] == sizes[i];
            if (done)
                idx[i] = 0;
        }
    }
    return 0;
}

static int uf_register(uf_op *op)
{
    int nin = op->kind == UF_CLIP || op->kind == UF_SHRINK ? 3
              : op->kind == UF_REQUANT                     ? 4
              : op->kind == UF_REQUANT_FP                  ? 3
                                                           : 1;
    int sop = op->kind == UF_CLIP ? SIMDOPS_OP_CLIP : op->kind == UF_SHRINK ? SIMDOPS_OP_SHRINK
              : op->kind == UF_HARDMAX                                      ? SIMDOPS_OP_HARDMAX
                                                       : SIMDOPS_OP_REQUANT_OUT;
    int d;
    PyObject *none_tuple, *promoter;
    op->doc = op->kind == UF_CLIP ? uf_doc_clip : op->kind == UF_SHRINK ? uf_doc_shrink
              : op->kind == UF_REQUANT ? uf_doc_requant : op->kind == UF_REQUANT_FP ? uf_doc_fp
              : uf_doc_hardmax;
    if (op->floor)
        op->doc = op->floor == UF_FLOOR_KERNEL ? uf_doc_kernel_floor : uf_doc_floor;
    if (op->kind == UF_HARDMAX)
        op->ufunc = PyUFunc_FromFuncAndDataAndSignature(NULL, NULL, NULL, 0, 1, 1, PyUFunc_None,
                                                        op->name, op->doc, 0, "(n)->(n)");
    else
        op->ufunc = PyUFunc_FromFuncAndData(NULL, NULL, NULL, 0, nin, 1, PyUFunc_None, op->name,
                                            op->doc, 0);
    if (!op->ufunc)
        return -1;
    for (d = 1; d < SIMDOPS_DTYPE_COUNT; d++) {
        if (!simdops_capi_op_supports(sop, (simdops_dtype)d))
            continue;
        if (op->kind == UF_REQUANT || op->kind == UF_REQUANT_FP) {
            if (uf_add_loops(op, nin, SIMDOPS_INT32, (simdops_dtype)d) < 0)
                return -1;
        }
        else if (uf_add_loops(op, nin, (simdops_dtype)d, (simdops_dtype)d) < 0)
            return -1;
    }
    if (op->kind == UF_HARDMAX)
        return 0; /* a float x of another type: numpy's no-loop TypeError */
    none_tuple = PyTuple_New(nin + 1);
    if (!none_tuple)
        return -1;
    for (d = 0; d <= nin; d++) {
        Py_INCREF(Py_None);
        PyTuple_SET_ITEM(none_tuple, d, Py_None);
    }
    promoter = PyCapsule_New((void *)uf_promote, "numpy._ufunc_promoter", NULL);
    if (!promoter || PyUFunc_AddPromoter(op->ufunc, none_tuple, promoter) < 0) {
        Py_XDECREF(promoter);
        Py_DECREF(none_tuple);
        return -1;
    }
    Py_DECREF(promoter);
    Py_DECREF(none_tuple);
    return 0;
}

/* ------------------------------------------------------------------ module */

static int uf_exec(PyObject *m)
{
    int k;
    if (PyArray_ImportNumPyAPI() < 0)
        return -1;
    import_umath1(-1);
    if (simdops_import() < 0)
        return -1;
    if (uf_nops == 3 && uf_fill_families() < 0)
        return -1;
    for (k = 0; k < UF_NOPS; k++) {
        if (!uf_ops[k].ufunc && uf_register(&uf_ops[k]) < 0)
            return -1;
        Py_INCREF(uf_ops[k].ufunc);
        if (PyModule_AddObject(m, uf_ops[k].name, uf_ops[k].ufunc) < 0) {
            Py_DECREF(uf_ops[k].ufunc);
            return -1;
        }
    }
    return 0;
}

static PyModuleDef_Slot uf_slots[] = {
    {Py_mod_exec, (void *)uf_exec},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
#ifdef Py_GIL_DISABLED
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef uf_module = {
    PyModuleDef_HEAD_INIT, "simdops._ufunc",
    "simdops' numpy ufuncs (simdops.ufunc re-exports them; docs/ufuncs.md).", 0, NULL, uf_slots,
    NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__ufunc(void) { return PyModuleDef_Init(&uf_module); }
