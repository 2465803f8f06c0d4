# Entry points for the descriptor layers (simdops.dml, simdops.acl): a
# fragment of _core.pyx (included by it, not a module of its own).
#
# The descriptor layers keep only what is theirs (descriptor structure,
# feature levels, DMLCalcBufferTensorSize). Parameter and layout rules come
# from here: check_* report a rule C found (a CoreError) without running,
# prepare_* convert parameters once into a Prepared handle, and StridedPlan
# runs clip/shrink/hardmax over views of raw byte buffers given as DirectML
# sizes and element strides, without numpy views.

from cpython.buffer cimport PyBUF_SIMPLE, PyBUF_WRITABLE


cdef int _get_raw_bytes(object obj, Py_buffer *view, int flags, str which) except -1:
    """obj's bytes as one contiguous range (PyObject_GetBuffer with flags), never the
    storage of Python references: a numpy object array exports its pointers as plain
    bytes when no format is asked for (a memoryview of it cannot be made), and a kernel
    writing there corrupts the interpreter (a fuzzed DirectML execute with an object
    array as OutputTensor crashed the next garbage collection). TypeError naming the
    argument. (Asking for the format instead changes what numpy and memoryview export
    for a flat range, so the dtype is looked at.)"""
    dtype = getattr(obj, "dtype", None)
    if dtype is not None and getattr(dtype, "hasobject", False):
        raise TypeError(f"{which} holds Python objects (dtype {dtype}); a bound buffer is "
                        f"raw bytes")
    PyObject_GetBuffer(obj, view, flags)
    return 0


class CoreError:
    """A rule C reported: which one, about which argument, and its message.

    status, reason ("NAN", "SHIFT_RANGE", ... as in SIMDOPS_REASONS), arg
    ("min", "out", ...), value / expected / index (the offending numbers),
    message (C's sentence, prefixed with the op), exception_type (TypeError,
    ValueError or MemoryError, as the array API raises)."""

    __slots__ = ("status", "reason", "arg", "value", "expected", "index", "fvalue", "message",
                 "exception_type")

    def __repr__(self):
        return f"CoreError({self.reason}, arg={self.arg!r}: {self.message})"

    def exception(self):
        """The exception the array API raises for this rule."""
        return self.exception_type(self.message)


cdef object _core_error(const simdops_error *err):
    cdef char buf[1024]
    e = CoreError()
    simdops_error_format(err, buf, sizeof(buf))
    e.status = err.status
    e.reason = (<bytes>simdops_reason_name(err.reason)).decode()
    e.arg = (<bytes>simdops_arg_name(err.arg)).decode()
    e.value = err.value
    e.expected = err.expected
    e.index = err.index
    e.fvalue = err.fvalue
    e.message = (<bytes>buf).decode(errors="replace")
    e.exception_type = _EXCEPTIONS.get(err.status, ValueError)
    return e


cdef class Prepared:
    """Parameters validated and converted once by C (simdops_prepared): pass
    it to StridedPlan / requant_prepared. op: "clip", "shrink" or "requant";
    dtype: the tensor's dtype value (requant: the output's)."""
    cdef simdops_prepared p
    cdef readonly str op
    cdef readonly int dtype


cdef const simdops_number *_opt_number(object v, str name, simdops_number *slot) except? NULL:
    if v is None:
        return NULL
    slot[0] = _number(v, name)
    return slot


cdef int _prepare_clip(Prepared p, int dtype, object min, object max, object scale,
                       object bias, simdops_error *err) except -1:
    cdef simdops_number s, b
    return simdops_prepare_clip(<simdops_dtype>dtype, _number(min, "min"), _number(max, "max"),
                                _opt_number(scale, "scale", &s), _opt_number(bias, "bias", &b),
                                &p.p, err)


cdef int _prepare_shrink(Prepared p, int dtype, object bias, object threshold,
                         simdops_error *err) except -1:
    return simdops_prepare_shrink(<simdops_dtype>dtype, _number(bias, "bias"),
                                  _number(threshold, "threshold"), &p.p, err)


cdef int _prepare_requant(Prepared p, int out_dtype, object multiplier, object shift,
                          object offset, object min, object max, simdops_error *err) except -1:
    cdef int64_t lo = 0, hi = 0
    if min is not None:
        lo = _int64(min, "min")
    if max is not None:
        hi = _int64(max, "max")
    return simdops_prepare_requant(<simdops_dtype>out_dtype, _int64(multiplier, "multiplier"),
                                   _int64(shift, "shift"), _int64(offset, "offset"),
                                   NULL if min is None else &lo, NULL if max is None else &hi,
                                   &p.p, err)


cdef Prepared _new_prepared(str op, int dtype):
    cdef Prepared p = Prepared.__new__(Prepared)
    p.op = op
    p.dtype = dtype
    return p


def prepare_clip(int dtype, min, max, scale=None, bias=None):
    """A Prepared clip for tensors of `dtype` (a DirectML dtype value); raises
    TypeError / ValueError with C's message when a rule fails."""
    cdef simdops_error err
    cdef Prepared p = _new_prepared("clip", dtype)
    if _prepare_clip(p, dtype, min, max, scale, bias, &err):
        _raise(&err)
    return p


def prepare_shrink(int dtype, bias, threshold):
    """A Prepared shrink for tensors of `dtype`; raises like prepare_clip."""
    cdef simdops_error err
    cdef Prepared p = _new_prepared("shrink", dtype)
    if _prepare_shrink(p, dtype, bias, threshold, &err):
        _raise(&err)
    return p


def prepare_requant(int out_dtype, multiplier, shift, offset=0, min=None, max=None):
    """A Prepared per-tensor requant into `out_dtype` (uint8/int8/int16 value).
    min/max None: not given (ACL's defaults, see simdops_prepare_requant)."""
    cdef simdops_error err
    cdef Prepared p = _new_prepared("requant", out_dtype)
    if _prepare_requant(p, out_dtype, multiplier, shift, offset, min, max, &err):
        _raise(&err)
    return p


def prepare_requant_clamped(int out_dtype, multiplier, shift, offset, min, max):
    """A Prepared per-tensor requant whose bounds always clamp, min == max
    included (ACL's GEMMLowpOutputStage); otherwise as prepare_requant."""
    cdef simdops_error err
    cdef Prepared p = _new_prepared("requant", out_dtype)
    if simdops_prepare_requant_clamped(<simdops_dtype>out_dtype, _int64(multiplier, "multiplier"),
                                       _int64(shift, "shift"), _int64(offset, "offset"),
                                       _int64(min, "min"), _int64(max, "max"), &p.p, &err):
        _raise(&err)
    return p


def check_clip(int dtype, min, max, scale=None, bias=None):
    """None when clip accepts these parameters for `dtype`, else the CoreError.
    (TypeError for a parameter that is not a number, as the array API.)"""
    cdef simdops_error err
    return (_core_error(&err) if _prepare_clip(_new_prepared("clip", dtype), dtype, min, max,
                                               scale, bias, &err) else None)


def check_shrink(int dtype, bias, threshold):
    """None when shrink accepts these parameters for `dtype`, else the CoreError."""
    cdef simdops_error err
    return (_core_error(&err) if _prepare_shrink(_new_prepared("shrink", dtype), dtype, bias,
                                                 threshold, &err) else None)


def check_requant(int out_dtype, multiplier, shift, offset=0, min=None, max=None):
    """None when requant accepts these parameters, else the CoreError."""
    cdef simdops_error err
    return (_core_error(&err) if _prepare_requant(_new_prepared("requant", out_dtype), out_dtype,
                                                  multiplier, shift, offset, min, max, &err)
            else None)


def check_hardmax(int dtype, int ndim, axes):
    """None when hardmax accepts `dtype` and `axes` (ints, any order, negative
    from the end) for `ndim` dimensions, else the CoreError."""
    cdef int64_t caxes[65]
    cdef simdops_error err
    cdef int naxes = _read_axes(axes, ndim, caxes)
    return (_core_error(&err) if simdops_hardmax_check(<simdops_dtype>dtype, ndim, naxes, caxes,
                                                       &err) else None)


cdef int _set_view(simdops_tensor *t, int dtype, object sizes, object strides,
                   str name) except -1:
    """t's dtype, shape and byte strides from sizes and element strides."""
    cdef Py_ssize_t n = len(sizes), d
    cdef int64_t es = simdops_dtype_size(<simdops_dtype>dtype)
    cdef simdops_error err
    # known dtype, at most 64 dimensions, extents >= 0: C's view rule
    _rules_memset(&err, 0, sizeof(err))
    _fill_shape(t, dtype, sizes, name)
    if simdops_check_tensor(t, SIMDOPS_ARG_X, &err):
        if err.reason == _REASON_DTYPE_UNKNOWN:
            raise TypeError(f"{name}: unknown dtype value {dtype}")
        if err.reason == _REASON_NDIM:
            raise ValueError(f"{name} has {n} dimensions; at most {SIMDOPS_MAX_DIMS}")
        raise ValueError(f"{name} has size {err.value} in dimension {err.index}; sizes are >= 0")
    if len(strides) != n:
        raise ValueError(f"{name}: {len(strides)} strides for {n} sizes")
    t.data = NULL
    t.dtype = <simdops_dtype>dtype
    t.ndim = <int>n
    for d in range(n):
        t.shape[d] = sizes[d]
        t.strides[d] = <int64_t>strides[d] * es
    return 0


def self_overlaps(int dtype, sizes, strides):
    """True when the view (sizes, element strides) maps two elements to one
    address (the output rule every op applies)."""
    cdef simdops_tensor t
    _set_view(&t, dtype, sizes, strides, "tensor")
    t.data = <void *>1  # only the layout matters
    return bool(simdops_self_overlaps(&t))


def same_layout(int dtype, sizes, strides_a, strides_b):
    """True when two views of one buffer address the same elements in the same
    order (the in-place rule)."""
    cdef simdops_tensor a, b
    _set_view(&a, dtype, sizes, strides_a, "a")
    _set_view(&b, dtype, sizes, strides_b, "b")
    a.data = b.data = <void *>1
    return bool(simdops_same_layout(&a, &b))


cdef class StridedPlan:
    """clip, shrink or hardmax over views of raw buffers, set up once.

    StridedPlan(op, dtype, sizes, in_strides, out_strides, params):
    op "clip" / "shrink" with params a Prepared of the same op and dtype, or
    "hardmax" with params the reduced axes (an int or ints). sizes and strides
    are in elements (DirectML), strides >= 0 or negative alike. The plan
    checks nothing the run would not; run() reports every rule C applies.

    run(input, output, in_offset=0, out_offset=0): input and output are any
    buffers seen as raw bytes (output writable; they may be the same buffer:
    the same layout is in place, other overlaps read the input first); the
    views start at the byte offsets. Raises ValueError when a view leaves its
    buffer, else as the array API for the C rules (CoreError.exception).
    The GIL is released around the kernels."""
    cdef simdops_tensor x, y
    cdef Prepared prepared
    cdef int op
    cdef int64_t axes[65]
    cdef int naxes

    def __init__(self, str op, int dtype, sizes, in_strides, out_strides, params):
        _set_view(&self.x, dtype, sizes, in_strides, "input")
        _set_view(&self.y, dtype, sizes, out_strides, "output")
        if op == "hardmax":
            self.op = SIMDOPS_OP_HARDMAX
            self.naxes = _read_axes(params, self.x.ndim, self.axes)
            return
        if not isinstance(params, Prepared) or (<Prepared>params).op != op:
            raise TypeError(f"StridedPlan: {op} needs a Prepared {op}, got {params!r}")
        if op == "clip":
            self.op = SIMDOPS_OP_CLIP
        elif op == "shrink":
            self.op = SIMDOPS_OP_SHRINK
        else:
            raise ValueError(f"StridedPlan: op must be clip, shrink or hardmax, got {op!r}")
        self.prepared = params

    def run(self, input, output, Py_ssize_t in_offset=0, Py_ssize_t out_offset=0):
        cdef Py_buffer inv, outv
        _get_raw_bytes(input, &inv, PyBUF_SIMPLE, "input")
        try:
            try:
                _get_raw_bytes(output, &outv, PyBUF_SIMPLE | PyBUF_WRITABLE, "output")
            except (BufferError, ValueError) as e:
                raise ValueError(f"output must be a writable buffer: {e}") from None
            try:
                self._run_on(&inv, &outv, in_offset, out_offset)
            finally:
                PyBuffer_Release(&outv)
        finally:
            PyBuffer_Release(&inv)

    cdef int _run_on(self, Py_buffer *inv, Py_buffer *outv, Py_ssize_t in_offset,
                     Py_ssize_t out_offset) except -1:
        """The kernel on views of two held buffers, starting at the byte offsets.
        The views are copies on this call's stack, so threads running one plan
        at once never share them."""
        cdef simdops_tensor x = self.x, y = self.y
        cdef simdops_error err
        cdef int status
        x.data = <char *>inv.buf + in_offset
        y.data = <char *>outv.buf + out_offset
        with nogil:
            status = simdops_check_within(&x, inv.buf, <size_t>inv.len, SIMDOPS_ARG_X, &err)
            if not status:
                status = simdops_check_within(&y, outv.buf, <size_t>outv.len, SIMDOPS_ARG_OUT,
                                              &err)
            if status:
                pass
            elif self.op == SIMDOPS_OP_HARDMAX:
                status = simdops_hardmax(&x, &y, self.naxes, self.axes, &err)
            elif self.op == SIMDOPS_OP_CLIP:
                status = simdops_clip_prepared(&self.prepared.p, &x, &y, &err)
            else:
                status = simdops_shrink_prepared(&self.prepared.p, &x, &y, &err)
        if status:
            _raise(&err)
        return 0


def execute_strided(str op, int dtype, sizes, input, in_strides, output, out_strides, params,
                    Py_ssize_t in_offset=0, Py_ssize_t out_offset=0):
    """StridedPlan(op, dtype, sizes, in_strides, out_strides, params).run(input,
    output, in_offset, out_offset), for one-off calls."""
    StridedPlan(op, dtype, sizes, in_strides, out_strides, params).run(input, output, in_offset,
                                                                       out_offset)


def requant_prepared(Prepared prepared, x, out=None, bias=None, multipliers=None, shifts=None):
    """Requant of the int32 buffer x with a Prepared requant: out (or a new
    array of the prepared output dtype); bias / multipliers / shifts: None or
    int32 vectors of x's last dimension (per channel; either alone takes the
    prepared value for the other). Returns out. Raises like the array API."""
    cdef _Buf xb = _buf(x, "x")
    cdef _Buf bb = None, mb = None, sb = None
    if prepared.op != "requant":
        raise TypeError(f"requant_prepared needs a Prepared requant, got {prepared.op}")
    if bias is not None:
        bb = _channel_array(bias, "bias")
    if multipliers is not None:
        mb = _channel_array(multipliers, "multiplier")
    if shifts is not None:
        sb = _channel_array(shifts, "shift")
    return _run_requant(&prepared.p, xb, _out_buf(out, xb, <simdops_dtype>prepared.dtype), bb,
                        mb, sb)
