# Included by _core.pyx (a fragment, not a module): buffers in, simdops_tensor
# views out. A plain ndarray is read from its fields; any other buffer through
# the buffer protocol; anything else through simdops._interop first.

cdef simdops_dtype _int_dtype(Py_ssize_t itemsize, bint signed) noexcept:
    if itemsize == 1:
        return SIMDOPS_INT8 if signed else SIMDOPS_UINT8
    if itemsize == 2:
        return SIMDOPS_INT16 if signed else SIMDOPS_UINT16
    if itemsize == 4:
        return SIMDOPS_INT32 if signed else SIMDOPS_UINT32
    if itemsize == 8:
        return SIMDOPS_INT64 if signed else SIMDOPS_UINT64
    return SIMDOPS_UNKNOWN


cdef simdops_dtype _dtype_of_code(char c, Py_ssize_t itemsize) noexcept:
    """A type character (struct module's, which numpy's dtype.char shares) of
    itemsize bytes -> dtype, integers by size ('l'/'q' alike); UNKNOWN else."""
    if c == b'e':
        return SIMDOPS_FLOAT16 if itemsize == 2 else SIMDOPS_UNKNOWN
    if c == b'f':
        return SIMDOPS_FLOAT32 if itemsize == 4 else SIMDOPS_UNKNOWN
    if c == b'd':
        return SIMDOPS_FLOAT64 if itemsize == 8 else SIMDOPS_UNKNOWN
    if c in b"bhilqn":
        return _int_dtype(itemsize, True)
    if c in b"BHILQN":
        return _int_dtype(itemsize, False)
    return SIMDOPS_UNKNOWN


cdef simdops_dtype _dtype_of_format(const char *fmt, Py_ssize_t itemsize, str name) except *:
    """Buffer format -> dtype, by meaning: 'l'/'q' alike, '@'/'=' accepted.
    Plain C on the hot path; Python strings only to build error messages."""
    cdef const char *f = fmt
    cdef char c
    cdef simdops_dtype d = SIMDOPS_UNKNOWN
    if f == NULL:  # PEP 3118: no format means unsigned bytes
        f = b"B"
    if f[0] == b'@' or f[0] == b'=' or (f[0] == b'<' and _LITTLE) or (f[0] in b'>!' and not _LITTLE):
        f += 1
    elif f[0] == b'<' or f[0] == b'>' or f[0] == b'!':
        raise TypeError(f"{name}: non-native byte order (format {(<bytes>fmt).decode()!r}) "
                        f"is not supported")
    c = f[0]
    if c != 0 and f[1] == 0:
        d = _dtype_of_code(c, itemsize)
    if d == SIMDOPS_UNKNOWN:
        text = (<bytes>fmt).decode(errors='replace') if fmt != NULL else "B"
        raise TypeError(f"{name}: unsupported buffer format {text!r} with itemsize {itemsize}")
    return d


cdef extern from *:
    """
    /* The leading fields of numpy's PyArrayObject_fields and PyArray_Descr
     * (numpy/ndarraytypes.h), which numpy's inline accessors (PyArray_DATA,
     * PyArray_NDIM, PyArray_DESCR(a)->type, ...) compile into every extension
     * built against any numpy since 1.7, 2.x included: numpy cannot move them
     * without breaking all of those. Read directly so that a plain ndarray
     * skips its buffer export, which formats and caches a format string on
     * every call (about 800 of the 5,400 instructions of a 16-element clip). */
    typedef struct {
        PyObject_HEAD
        char *data;
        int nd;
        Py_ssize_t *dimensions;
        Py_ssize_t *strides;
        PyObject *base;
        PyObject *descr;
        int flags;
    } simdops_np_array;
    typedef struct {
        PyObject_HEAD
        PyTypeObject *typeobj;
        char kind;
        char type;
        char byteorder;
    } simdops_np_descr;
    #define SIMDOPS_NP_WRITEABLE 0x0400
    #define SIMDOPS_NP_C_CONTIGUOUS 0x0001
    #define SIMDOPS_NP_WARN_ON_WRITE 0x80000000u
    """
    ctypedef struct simdops_np_array:
        char *data
        int nd
        Py_ssize_t *dimensions
        Py_ssize_t *strides
        void *descr
        int flags
    ctypedef struct simdops_np_descr:
        char type
        char byteorder
    int SIMDOPS_NP_WRITEABLE
    int SIMDOPS_NP_C_CONTIGUOUS
    unsigned int SIMDOPS_NP_WARN_ON_WRITE


cdef type _NDARRAY = np.ndarray
cdef type _NPGENERIC = np.generic


cdef simdops_dtype _dtype_of_char(char c) noexcept:
    """A numpy type character (dtype.char, native size) -> dtype; UNKNOWN for the
    rest (bool, complex, ...: the buffer path names them)."""
    cdef char lower = c | 0x20  # 'B' -> 'b': the unsigned twin has the upper-case letter
    cdef Py_ssize_t size = (2 if c == b'e' else 4 if c == b'f' else 8 if c == b'd' else
                            1 if lower == b'b' else sizeof(short) if lower == b'h' else
                            sizeof(int) if lower == b'i' else sizeof(long) if lower == b'l' else
                            sizeof(long long) if lower == b'q' else 0)
    return _dtype_of_code(c, size)


cdef bint _array_view(object obj, bint writable, simdops_tensor *t) noexcept:
    """t viewing a plain ndarray (type(obj) is np.ndarray) of a simdops dtype in
    native order, from its fields, with no object made (the caller keeps obj
    alive while t is used); False, t untouched, for anything the buffer path
    must see (its errors, numpy's own write checks)."""
    cdef simdops_np_array *a = <simdops_np_array *><void *>obj
    cdef simdops_np_descr *d = <simdops_np_descr *>a.descr
    cdef simdops_dtype dtype
    cdef int k
    if writable and (not (a.flags & SIMDOPS_NP_WRITEABLE) or
                     (<unsigned int>a.flags) & SIMDOPS_NP_WARN_ON_WRITE):
        return False
    if a.nd > SIMDOPS_MAX_DIMS:
        return False
    if not (d.byteorder == b'=' or d.byteorder == b'|' or
            (d.byteorder == b'<' and _LITTLE) or (d.byteorder == b'>' and not _LITTLE)):
        return False
    dtype = _dtype_of_char(d.type)
    if dtype == SIMDOPS_UNKNOWN:
        return False
    t.dtype = dtype
    t.data = a.data
    t.ndim = a.nd
    for k in range(a.nd):
        t.shape[k] = a.dimensions[k]
        t.strides[k] = a.strides[k]
    return True


@cython.freelist(16)
@cython.no_gc  # holds only its exporter, which never refers back to it: no cycles
cdef class _Buf:
    """A held buffer and its simdops_tensor view."""
    cdef Py_buffer view
    cdef bint held
    cdef simdops_tensor t
    cdef object obj  # (held starts False: Cython zeroes new and recycled objects)

    cdef int acquire(self, object obj, str name, bint writable) except -1:
        """obj's buffer; obj supports the protocol (_buf checked or converted it)."""
        cdef int d
        cdef Py_ssize_t stride
        if writable:
            try:
                PyObject_GetBuffer(obj, &self.view, PyBUF_RECORDS)
            except (BufferError, ValueError) as e:  # numpy raises ValueError for read-only
                raise ValueError(f"{name} must be writable: {e}") from None
        else:
            PyObject_GetBuffer(obj, &self.view, PyBUF_RECORDS_RO)
        self.held = True
        self.obj = obj
        if self.view.ndim > SIMDOPS_MAX_DIMS:  # the view could not hold it
            raise ValueError(f"{name} has {self.view.ndim} dimensions; at most {SIMDOPS_MAX_DIMS}")
        self.t.dtype = _dtype_of_format(self.view.format, self.view.itemsize, name)
        self.t.data = self.view.buf
        self.t.ndim = self.view.ndim
        stride = self.view.itemsize
        for d in range(self.view.ndim - 1, -1, -1):
            # NULL shape/strides are allowed for contiguous exporters (ctypes)
            self.t.shape[d] = self.view.shape[d] if self.view.shape != NULL else self.view.len // self.view.itemsize
            self.t.strides[d] = self.view.strides[d] if self.view.strides != NULL else stride
            stride *= self.t.shape[d]
        return 0

    cdef bint take_array(self, object obj, bint writable) noexcept:
        """A plain ndarray (type(obj) is np.ndarray) of a simdops dtype in native
        order, from its fields; False, with nothing taken, for anything the
        buffer path must see (its errors, numpy's own write checks)."""
        if not _array_view(obj, writable, &self.t):
            return False
        self.obj = obj
        return True

    @property
    def shape(self):
        return _shape_tuple(self.t.shape, self.t.ndim)

    def __dealloc__(self):
        if self.held:
            PyBuffer_Release(&self.view)


cdef _Buf _buf(object obj, str name, bint writable=False, bint int32=False):
    """obj as a held buffer. Buffer-protocol objects are the zero-copy fast path;
    anything else (DLPack tensors, lists, scalars, __array__) goes through
    simdops._interop first (int32: requant's x, whose plain Python ints become
    int32). For a converted `out`, b.obj stays the caller's object: it is what
    the call returns."""
    cdef _Buf b = _Buf.__new__(_Buf)  # tp_new directly: no argument parsing
    if type(obj) is _NDARRAY and b.take_array(obj, writable):
        return b
    if PyObject_CheckBuffer(obj):
        if isinstance(obj, (_NDARRAY, _NPGENERIC)):
            dt = obj.dtype
            kind = dt.kind
            if kind in "mM":
                # numpy exports datetime scalars as raw bytes and refuses such arrays
                # with a message naming no argument: name it, as for any other dtype
                raise TypeError(f"{name} has dtype {dt}; datetime64 and timedelta64 are "
                                f"not numbers simdops computes on (view them as int64 first)")
            if kind == "V" and dt.isbuiltin == 2:
                # a dtype registered from outside numpy (ml_dtypes' bfloat16, float8_*,
                # int4): numpy's buffer export refuses it naming nothing
                raise TypeError(f"{name} has dtype {dt}, which simdops does not support "
                                f"(it computes on numpy's float16/32/64 and integer types)")
        b.acquire(obj, name, writable)
        return b
    arr = _intake_output(obj, name) if writable else _intake_input(obj, name, int32)
    b.acquire(arr, name, writable)
    if writable:
        b.obj = obj
    return b


cdef inline object _result(_Buf ob, object out):
    """The call's result: out itself, else the new array — a numpy scalar when it
    is 0-d, as numpy's functions return for scalar inputs."""
    if out is None and ob.t.ndim == 0:
        return ob.obj[()]
    return ob.obj


cdef tuple _shape_tuple(const int64_t *shape, int ndim):
    """A tensor's shape as a tuple, built in place (no generator: a small call
    without `out` made three of them and spent more on them than on its work)."""
    cdef tuple t = PyTuple_New(ndim)
    cdef int d
    for d in range(ndim):
        v = PyLong_FromLongLong(shape[d])
        Py_INCREF(v)  # PyTuple_SET_ITEM steals the reference the tuple keeps
        PyTuple_SET_ITEM(t, d, v)
    return t


# dtype value -> numpy dtype object for new outputs (np.empty parses a name string
# every call; a dtype object is taken as is); names numpy does not know stay names
cdef dict _NP_DTYPES = {}
for _code, _name in DTYPE_NAMES.items():
    try:
        _NP_DTYPES[_code] = np.dtype(_name)
    except TypeError:
        _NP_DTYPES[_code] = _name
del _code, _name
cdef object _np_empty = np.empty


cdef _Buf _new_out(const int64_t *shape, int ndim, simdops_dtype dtype):
    """A new C-contiguous output array of `shape` and `dtype`, held as a buffer."""
    return _buf(_np_empty(_shape_tuple(shape, ndim), _NP_DTYPES[dtype]), "out", True)


cdef _Buf _out_buf(object out, _Buf x, simdops_dtype dtype):
    """`out` as a writable buffer (C checks its dtype, shape and layout), or a
    new C-contiguous array of x's shape and `dtype`."""
    if out is None:
        return _new_out(x.t.shape, x.t.ndim, dtype)
    return _buf(out, "out", True)
