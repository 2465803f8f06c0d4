/* A plain C extension calling simdops through its C API capsule.
 *
 * Build: see setup.py (include_dirs=[simdops.get_include()], nothing to link).
 * The module fetches the simdops C API once at init with simdops_import();
 * every kernel call below runs with the GIL released.
 *
 * dtype arguments are DirectML dtype values (1 = float32, 2 = float16, ...,
 * simdops/simdops.h); x, y are C-contiguous buffers of that dtype.
 *   clip(dtype, x, y, min, max)           1-D kernel over all of x
 *   clip_repeat(dtype, x, y, min, max, k) the same k times (timing)
 *   clip_strided(dtype, x, y, min, max)   the N-d entry point, any strides
 *   shrink(dtype, x, y, bias, threshold)  1-D kernel
 *   hardmax_rows(dtype, x, y, cols)       hardmax over rows of cols elements
 *   requant(out_dtype, x, y, multiplier, shift, offset, min, max, bias)
 *       x: int32 rows of C channels; multiplier, shift: ints (per tensor) or
 *       int32 buffers of C values (per channel); bias: None or C int32 values
 *   isa()                                 the calling thread's ISA
 *   version()                             (abi_version, size) of the table
 *   require_version(v)                    imports again, requiring version v
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <simdops/simdops_capi.h>

/* ---- Python <-> simdops helpers ---- */

/* A Python int or float as an exact simdops_number (ints beyond 64 bits:
 * OverflowError in this example). */
static int to_number(PyObject *obj, simdops_number *out)
{
    if (PyLong_Check(obj)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (!overflow) {
            *out = simdops_int_number(v);
            return 0;
        }
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);
        if (u == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        *out = simdops_uint_number(u);
        return 0;
    }
    double f = PyFloat_AsDouble(obj);
    if (f == -1.0 && PyErr_Occurred())
        return -1;
    *out = simdops_float_number(f);
    return 0;
}

/* Raises the error a failed simdops call reported; returns NULL. */
static PyObject *raise_error(const simdops_error *err)
{
    char message[512];
    simdops_capi_error_format(err, message, sizeof message);
    PyErr_SetString(err->status == SIMDOPS_E_DTYPE ? PyExc_TypeError : PyExc_ValueError,
                    message);
    return NULL;
}

/* The C-contiguous buffers of x (read) and y (written); n = elements of x. */
typedef struct buffers {
    Py_buffer x, y;
    int64_t n;
} buffers;

static int get_buffers(PyObject *x, PyObject *y, size_t x_size, size_t y_size, buffers *b)
{
    if (x_size == 0 || y_size == 0) {
        PyErr_SetString(PyExc_TypeError, "unknown dtype value");
        return -1;
    }
    if (PyObject_GetBuffer(x, &b->x, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (PyObject_GetBuffer(y, &b->y, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&b->x);
        return -1;
    }
    b->n = (int64_t)(b->x.len / (Py_ssize_t)x_size);
    if (b->x.len % (Py_ssize_t)x_size || b->y.len != (Py_ssize_t)(b->n * (int64_t)y_size)) {
        PyBuffer_Release(&b->x);
        PyBuffer_Release(&b->y);
        PyErr_SetString(PyExc_ValueError, "x and y must hold the same number of elements");
        return -1;
    }
    return 0;
}

static void release_buffers(buffers *b)
{
    PyBuffer_Release(&b->x);
    PyBuffer_Release(&b->y);
}

/* ---- clip and shrink: prepare once, then the 1-D kernel ---- */

static PyObject *clip_times(PyObject *args, int with_repeats)
{
    int dtype, status = SIMDOPS_OK;
    long repeats = 1;
    PyObject *xo, *yo, *lo_obj, *hi_obj;
    simdops_number lo, hi;
    simdops_prepared prepared;
    simdops_error err;
    buffers b;
    if (!PyArg_ParseTuple(args, with_repeats ? "iOOOOl" : "iOOOO", &dtype, &xo, &yo, &lo_obj,
                          &hi_obj, &repeats) ||
        to_number(lo_obj, &lo) || to_number(hi_obj, &hi))
        return NULL;
    if (simdops_capi_prepare_clip((simdops_dtype)dtype, lo, hi, NULL, NULL, &prepared, &err))
        return raise_error(&err);
    size_t size = simdops_capi_dtype_size((simdops_dtype)dtype);
    if (get_buffers(xo, yo, size, size, &b) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    for (long k = 0; k < repeats && status == SIMDOPS_OK; k++)
        status = simdops_capi_clip_1d(&prepared, b.x.buf, b.y.buf, b.n, &err);
    Py_END_ALLOW_THREADS
    release_buffers(&b);
    if (status)
        return raise_error(&err);
    Py_RETURN_NONE;
}

static PyObject *clip(PyObject *self, PyObject *args) { return clip_times(args, 0); }
static PyObject *clip_repeat(PyObject *self, PyObject *args) { return clip_times(args, 1); }

static PyObject *shrink(PyObject *self, PyObject *args)
{
    int dtype, status;
    PyObject *xo, *yo, *bias_obj, *threshold_obj;
    simdops_number bias, threshold;
    simdops_prepared prepared;
    simdops_error err;
    buffers b;
    if (!PyArg_ParseTuple(args, "iOOOO", &dtype, &xo, &yo, &bias_obj, &threshold_obj) ||
        to_number(bias_obj, &bias) || to_number(threshold_obj, &threshold))
        return NULL;
    if (simdops_capi_prepare_shrink((simdops_dtype)dtype, bias, threshold, &prepared, &err))
        return raise_error(&err);
    size_t size = simdops_capi_dtype_size((simdops_dtype)dtype);
    if (get_buffers(xo, yo, size, size, &b) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    status = simdops_capi_shrink_1d(&prepared, b.x.buf, b.y.buf, b.n, &err);
    Py_END_ALLOW_THREADS
    release_buffers(&b);
    if (status)
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* ---- hardmax over contiguous rows ---- */

static PyObject *hardmax_rows(PyObject *self, PyObject *args)
{
    int dtype, status;
    long long cols;
    PyObject *xo, *yo;
    simdops_error err;
    buffers b;
    if (!PyArg_ParseTuple(args, "iOOL", &dtype, &xo, &yo, &cols))
        return NULL;
    size_t size = simdops_capi_dtype_size((simdops_dtype)dtype);
    if (get_buffers(xo, yo, size, size, &b) < 0)
        return NULL;
    int64_t rows = cols > 0 ? b.n / cols : 0;
    Py_BEGIN_ALLOW_THREADS
    status = simdops_capi_hardmax_rows((simdops_dtype)dtype, b.x.buf, b.y.buf, rows, cols, &err);
    Py_END_ALLOW_THREADS
    release_buffers(&b);
    if (status)
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* ---- requant: rows of `channels` int32 values ---- */

/* An optional int32 vector of `channels` values (obj None: NULL). */
static int get_channel_vector(PyObject *obj, Py_buffer *view, int64_t channels)
{
    view->obj = NULL;
    view->buf = NULL;
    if (obj == Py_None)
        return 0;
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->len != (Py_ssize_t)(channels * 4)) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "per-channel vectors need one int32 per channel");
        return -1;
    }
    return 0;
}

static PyObject *requant(PyObject *self, PyObject *args)
{
    int out_dtype, status = SIMDOPS_OK, per_channel;
    long long offset, lo, hi, multiplier = 0, shift = 0;
    PyObject *xo, *yo, *mult_obj, *shift_obj, *bias_obj;
    Py_buffer mults, shifts, bias;
    simdops_prepared prepared;
    simdops_error err;
    buffers b;
    if (!PyArg_ParseTuple(args, "iOOOOLLLO", &out_dtype, &xo, &yo, &mult_obj, &shift_obj,
                          &offset, &lo, &hi, &bias_obj))
        return NULL;
    per_channel = !PyLong_Check(mult_obj);
    if (!per_channel) {
        multiplier = PyLong_AsLongLong(mult_obj);
        shift = PyLong_AsLongLong(shift_obj);
        if (PyErr_Occurred())
            return NULL;
    }
    int64_t min = lo, max = hi;
    if (simdops_capi_prepare_requant((simdops_dtype)out_dtype, multiplier, shift, offset, &min,
                                     &max, &prepared, &err))
        return raise_error(&err);
    if (get_buffers(xo, yo, 4, simdops_capi_dtype_size((simdops_dtype)out_dtype), &b) < 0)
        return NULL;
    /* channels: the length of the per-channel vectors, else of the bias, else all of x */
    PyObject *vector = per_channel ? mult_obj : bias_obj;
    Py_ssize_t channels = vector == Py_None ? (Py_ssize_t)b.n : PyObject_Length(vector);
    if (channels < 0 || (b.n && (channels == 0 || b.n % channels))) {
        release_buffers(&b);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "x must hold whole rows of channels");
        return NULL;
    }
    if (get_channel_vector(bias_obj, &bias, channels) < 0) {
        release_buffers(&b);
        return NULL;
    }
    mults.obj = shifts.obj = NULL;
    if (per_channel && (get_channel_vector(mult_obj, &mults, channels) < 0 ||
                        get_channel_vector(shift_obj, &shifts, channels) < 0)) {
        PyBuffer_Release(&bias);
        PyBuffer_Release(&mults);
        release_buffers(&b);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    const int32_t *x = (const int32_t *)b.x.buf;
    char *y = (char *)b.y.buf;
    size_t y_size = (size_t)(b.y.len / (b.n ? b.n : 1));
    for (int64_t row = 0; channels && row < b.n / channels && status == SIMDOPS_OK; row++) {
        const int32_t *xr = x + row * channels;
        void *yr = y + row * channels * (int64_t)y_size;
        status = per_channel
            ? simdops_capi_requant_pc_1d(&prepared, xr, yr, channels, (const int32_t *)bias.buf,
                                         (const int32_t *)mults.buf,
                                         (const int32_t *)shifts.buf, &err)
            : simdops_capi_requant_1d(&prepared, xr, yr, channels, (const int32_t *)bias.buf,
                                      &err);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bias);
    PyBuffer_Release(&mults);
    PyBuffer_Release(&shifts);
    release_buffers(&b);
    if (status)
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* ---- the N-d entry point on any strides ---- */

/* A simdops_tensor over a strided Py_buffer (strides in bytes, as simdops wants). */
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

static PyObject *clip_strided(PyObject *self, PyObject *args)
{
    int dtype, status = -1;
    PyObject *xo, *yo, *lo_obj, *hi_obj;
    Py_buffer xb, yb;
    simdops_tensor x, y;
    simdops_number lo, hi;
    simdops_error err;
    if (!PyArg_ParseTuple(args, "iOOOO", &dtype, &xo, &yo, &lo_obj, &hi_obj) ||
        to_number(lo_obj, &lo) || to_number(hi_obj, &hi))
        return NULL;
    if (PyObject_GetBuffer(xo, &xb, PyBUF_RECORDS_RO) < 0)
        return NULL;
    if (PyObject_GetBuffer(yo, &yb, PyBUF_RECORDS) < 0) {
        PyBuffer_Release(&xb);
        return NULL;
    }
    if (!tensor_of_buffer(&xb, dtype, &x) && !tensor_of_buffer(&yb, dtype, &y)) {
        Py_BEGIN_ALLOW_THREADS
        status = simdops_capi_clip(&x, &y, lo, hi, NULL, NULL, &err);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    if (status == -1)
        return NULL;
    if (status)
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* ---- the table itself ---- */

static PyObject *isa(PyObject *self, PyObject *args) { return PyUnicode_FromString(simdops_capi_isa()); }

static PyObject *version(PyObject *self, PyObject *args)
{
    return Py_BuildValue("(II)", (unsigned)simdops_api->abi_version, (unsigned)simdops_api->size);
}

static PyObject *require_version(PyObject *self, PyObject *arg)
{
    unsigned long v = PyLong_AsUnsignedLong(arg);
    if (v == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    if (simdops_import_version((uint32_t)v) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"clip", clip, METH_VARARGS, "clip(dtype, x, y, min, max)"},
    {"clip_repeat", clip_repeat, METH_VARARGS, "clip_repeat(dtype, x, y, min, max, repeats)"},
    {"clip_strided", clip_strided, METH_VARARGS, "clip_strided(dtype, x, y, min, max)"},
    {"shrink", shrink, METH_VARARGS, "shrink(dtype, x, y, bias, threshold)"},
    {"hardmax_rows", hardmax_rows, METH_VARARGS, "hardmax_rows(dtype, x, y, cols)"},
    {"requant", requant, METH_VARARGS,
     "requant(out_dtype, x, y, multiplier, shift, offset, min, max, bias)"},
    {"isa", isa, METH_NOARGS, "isa() -> the calling thread's simdops ISA"},
    {"version", version, METH_NOARGS, "version() -> (abi_version, size) of the C API table"},
    {"require_version", require_version, METH_O,
     "require_version(v): import the simdops C API again, requiring version v"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "simdops_c_example",
    "simdops kernels called from plain C through the simdops._C_API capsule", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_simdops_c_example(void)
{
    if (simdops_import() < 0) /* ImportError set: simdops missing or too old */
        return NULL;
    return PyModule_Create(&moduledef);
}
