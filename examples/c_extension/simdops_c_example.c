/* A plain C extension calling simdops through its C API capsule.
 *
 * Build: see setup.py (include_dirs=[simdops.get_include()], nothing to link).
 * The module imports the simdops C API once at init with simdops_import();
 * every kernel call below runs with the GIL released.
 *
 * Functions (x, y: C-contiguous buffers; dtype: a DirectML dtype value,
 * e.g. 1 = float32, see simdops/simdops.h):
 *   clip(dtype, x, y, min, max)             y = clip(x), n = len(x) elements
 *   clip_strided(dtype, x, y, min, max)     the N-d entry point on any strides
 *   isa()                                   the calling thread's ISA
 *   require_version(v)                      re-imports, requiring C API version v
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <simdops/simdops_capi.h>

/* ---- Python argument helpers ---- */

/* A Python int or float as a simdops_number (ints taken exactly). */
static int to_number(PyObject *obj, simdops_number *out)
{
    out->f = 0.0;
    out->i = 0;
    out->u = 0;
    if (PyLong_Check(obj)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (!overflow) {
            out->kind = SIMDOPS_NUM_INT;
            out->i = v;
            return 0;
        }
        out->kind = SIMDOPS_NUM_UINT;
        out->u = PyLong_AsUnsignedLongLong(obj); /* OverflowError beyond uint64 */
        return out->u == (unsigned long long)-1 && PyErr_Occurred() ? -1 : 0;
    }
    out->kind = SIMDOPS_NUM_FLOAT;
    out->f = PyFloat_AsDouble(obj);
    return out->f == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* A simdops status as a Python exception (0 stays 0). */
static int check_status(int status)
{
    if (status == SIMDOPS_OK)
        return 0;
    PyErr_Format(PyExc_ValueError, "simdops: %s (status %d)",
                 simdops_api->status_message(status), status);
    return -1;
}

/* A strided simdops_tensor over a Py_buffer (strides in bytes, as simdops wants). */
static int tensor_of_buffer(const Py_buffer *b, int dtype, simdops_tensor *t)
{
    if (b->ndim > SIMDOPS_MAX_DIMS) {
        PyErr_SetString(PyExc_ValueError, "too many dimensions");
        return -1;
    }
    t->data = b->buf;
    t->dtype = (simdops_dtype)dtype;
    t->ndim = b->ndim;
    for (int d = 0; d < b->ndim; d++) {
        t->shape[d] = b->shape[d];
        t->strides[d] = b->strides[d];
    }
    return 0;
}

/* ---- module functions ---- */

static PyObject *clip_strided(PyObject *self, PyObject *args)
{
    int dtype, status;
    PyObject *xo, *yo, *lo_obj, *hi_obj;
    Py_buffer xb, yb;
    simdops_tensor x, y;
    simdops_number lo, hi;
    (void)self;
    if (!PyArg_ParseTuple(args, "iOOOO", &dtype, &xo, &yo, &lo_obj, &hi_obj) ||
        to_number(lo_obj, &lo) || to_number(hi_obj, &hi))
        return NULL;
    if (PyObject_GetBuffer(xo, &xb, PyBUF_RECORDS_RO) < 0)
        return NULL;
    if (PyObject_GetBuffer(yo, &yb, PyBUF_RECORDS) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    status = -1;
    if (!tensor_of_buffer(&xb, dtype, &x) && !tensor_of_buffer(&yb, dtype, &y)) {
        Py_BEGIN_ALLOW_THREADS
        status = simdops_api->clip(&x, &y, lo, hi, NULL);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    if (status == -1 || check_status(status))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *isa(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return PyUnicode_FromString(simdops_api->isa());
}

static PyObject *require_version(PyObject *self, PyObject *arg)
{
    unsigned long v = PyLong_AsUnsignedLong(arg);
    (void)self;
    if (v == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    if (simdops_import_version((uint32_t)v) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"clip_strided", clip_strided, METH_VARARGS, "clip_strided(dtype, x, y, min, max): N-d clip"},
    {"isa", isa, METH_NOARGS, "isa() -> the calling thread's simdops ISA"},
    {"require_version", require_version, METH_O,
     "require_version(v): import the simdops C API again, requiring version v"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "simdops_c_example",
    "simdops kernels called from plain C through the simdops._C_API capsule", -1, methods,
};

PyMODINIT_FUNC PyInit_simdops_c_example(void)
{
    if (simdops_import() < 0)
        return NULL;
    return PyModule_Create(&moduledef);
}
