# ONNX QuantizeLinear / DequantizeLinear (included by _core.pyx). Translation
# only: scale and zero point become buffers (Python numbers as float32 /
# the integer type), the output array is made, C checks and runs.

from libc.string cimport strchr

# numpy scalars a scale keeps as they are (C takes float32 and float16 scales)
cdef tuple _KEPT_SCALAR_TYPES = (np.float32, np.float16)


cdef _Buf _scale_buf(object v, str name):
    """A scale buffer. A real number (a Python int or float, a numpy scalar of a
    type other than float32/float16: np.float64 is a Python float) or a sequence
    of them becomes float32 (ONNX's tensor(float)); float32/float16 arrays are
    used as they are (C refuses other dtypes, naming the argument). None, strings,
    bools and other objects are a TypeError: None used to become a NaN scale."""
    if type(v) is float:  # the common case, as before: one conversion
        return _buf(np.asarray(v, dtype=np.float32), name)
    if isinstance(v, _NPGENERIC) and not isinstance(v, _KEPT_SCALAR_TYPES):
        v = v.item()  # a numpy number is its Python value (bool, complex: refused below)
    if PyObject_CheckBuffer(v) or hasattr(v, "__dlpack__"):
        return _buf(v, name)
    if type(v) is bool or v is None or isinstance(v, (str, complex)):
        raise TypeError(f"{name} must be a float32/float16 array or a real number, "
                        f"got {type(v).__name__}")
    if type(v) is int:  # any size (numpy would make an int past 64 bits an object)
        try:
            return _buf(np.asarray(v, dtype=np.float32), name)
        except OverflowError:
            # (formatting v itself may exceed Python's digit limit: say its size)
            raise ValueError(f"{name}: an int of {v.bit_length()} bits is beyond float32's "
                             f"range") from None
    try:
        arr = np.asarray(v)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a float32/float16 array or a real number") from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a float32/float16 array or real numbers, got "
                        f"{type(v).__name__} holding {arr.dtype}")
    return _buf(arr.astype(np.float32), name)


cdef _Buf _zero_point_buf(object v, str name, object dtype_name):
    """A zero-point buffer; a Python int or sequence becomes dtype_name (range-checked:
    a value the type cannot hold is a ValueError, not a wrap)."""
    if PyObject_CheckBuffer(v) or hasattr(v, "__dlpack__"):
        return _buf(v, name)
    try:
        arr = np.asarray(v)
    except Exception:
        raise TypeError(f"{name} must be an integer array or an int") from None
    if arr.dtype.kind not in "iub" or arr.dtype.kind == "b":
        raise TypeError(f"{name} must hold integers, got {arr.dtype}")
    info = np.iinfo(dtype_name)
    if arr.size and (arr.min() < info.min or arr.max() > info.max):
        raise ValueError(f"{name} has values outside the {dtype_name} range "
                         f"[{info.min}, {info.max}]")
    return _buf(arr.astype(dtype_name), name)


def quantize_linear(x, y_scale, y_zero_point=None, *, axis=1, out=None):
    """ONNX QuantizeLinear: ``y = saturate(round(x / y_scale) + y_zero_point)``.

    Bit-exact with the ONNX reference implementation (``onnx.reference``) for
    uint8, int8, uint16 and int16 outputs; see docs/onnx.md.

    Parameters
    ----------
    x : array-like
        float32 or float16, any shape and strides.
    y_scale : array-like or float
        float32 or float16: a scalar / one element (per tensor), or 1-D of x's
        extent on ``axis`` (per axis). A real number (Python or numpy, e.g.
        ``np.float64``) or a list of them becomes float32. float16 x with a
        float16 scale divides in float16 (as the reference's numpy does); any
        other pairing divides in float32.
    y_zero_point : array-like or int, optional
        Same shape as ``y_scale``; its dtype is the output type (uint8, int8,
        uint16, int16). A Python int takes out's dtype, else uint8. Default 0.
    axis : int
        The per-axis dimension (negative counts from the end); ignored per tensor.
    out : writable buffer, optional
        The output (x's shape; its dtype is the output type when no zero point
        array says otherwise). Default: a new uint8 array (ONNX's default type).

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``

    Raises
    ------
    TypeError
        Unsupported dtype of x, scale, zero point or out; zero point and out disagree;
        a scale that is no real number (None, a string, a bool).
    ValueError
        Scale / zero point of the wrong shape, axis out of range, zero point values
        outside the output type.

    Notes
    -----
    Rounding is half to even. NaN gives the output type's minimum; +-inf and
    quotients beyond the type saturate (the reference leaves those undefined; this
    is ONNX Runtime's x86 result). Every ISA gives identical bits; the GIL is released.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> simdops.quantize_linear(np.array([0.0, 1.0, 2.5, -300.0], np.float32), 0.5, np.uint8(10))
    array([10, 12, 15,  0], dtype=uint8)
    """
    return _quantize_linear(x, y_scale, y_zero_point, axis, out)


cdef object _quantize_linear(x, y_scale, y_zero_point, axis, out):
    cdef _Buf xb = _buf(x, "x")
    cdef _Buf sb = _scale_buf(y_scale, "y_scale")
    cdef _Buf zb = None
    cdef _Buf ob
    cdef simdops_error err
    cdef int status
    cdef int64_t ax = _int64(axis, "axis")
    if out is not None:
        ob = _buf(out, "out", True)
    if y_zero_point is not None:
        zb = _zero_point_buf(y_zero_point, "y_zero_point",
                             DTYPE_NAMES.get(ob.t.dtype, "uint8") if out is not None else "uint8")
    if out is None:
        ob = _out_buf(None, xb, zb.t.dtype if zb is not None else SIMDOPS_UINT8)
    with nogil:
        status = simdops_quantize_linear(&xb.t, &sb.t, NULL if zb is None else &zb.t, ax,
                                         &ob.t, &err)
    if status:
        _raise(&err)
    return _result(ob, out)


cdef bint _plain_array_of(object v, const char *chars) noexcept:
    """v is a plain ndarray in native order whose numpy type character is one of chars."""
    cdef simdops_np_descr *d
    if type(v) is not _NDARRAY:
        return False
    d = <simdops_np_descr *>(<simdops_np_array *><void *>v).descr
    return (d.byteorder == b'=' or d.byteorder == b'|') and d.type != 0 and strchr(chars, d.type) != NULL


cdef object _onnx_quantize_any = None  # simdops.onnx._ops.quantize_linear, which registers it


def _set_onnx_quantize_general(general):
    """simdops.onnx._ops hands its quantize_linear over for the calls the entry below does
    not take (so that _core imports nothing that imports it)."""
    global _onnx_quantize_any
    _onnx_quantize_any = general


def onnx_quantize_linear(x, y_scale, y_zero_point=None, *, axis=1, block_size=0, saturate=1,
                         output_dtype=None, precision=None, packed=False, out=None):
    """simdops.onnx.quantize_linear (its documentation is simdops.onnx._ops.quantize_linear's).

    The common call (float32 / float16 ndarray x, a float32 / float16 ndarray or a
    Python float scale, no zero point or a uint8 / int8 / uint16 / int16 ndarray or a
    Python int one, no low-bit attribute, no out= or a uint8 / int8 / uint16 / int16
    ndarray one: a float8 out= is the low-bit path's) goes straight to simdops_quantize_linear, which
    is where the Python function sends it too: its checks and its own call cost 15% of a
    65,536-element kernel. Every other call is the Python function's. Numpy's type
    characters f e B b H h are none of ml_dtypes' (the low-bit path's types)."""
    if (block_size == 0 and saturate == 1 and output_dtype is None and precision is None
            and not packed and _plain_array_of(x, b"fe")
            and (type(y_scale) is float or _plain_array_of(y_scale, b"fe"))
            and (y_zero_point is None or type(y_zero_point) is int
                 or _plain_array_of(y_zero_point, b"BbHh"))
            and (out is None or _plain_array_of(out, b"BbHh"))):
        return _quantize_linear(x, y_scale, y_zero_point, axis, out)
    if _onnx_quantize_any is None:
        raise RuntimeError("onnx_quantize_linear: import simdops.onnx first (it registers "
                           "the general path)")
    return _onnx_quantize_any(x, y_scale, y_zero_point, axis=axis, block_size=block_size,
                              saturate=saturate, output_dtype=output_dtype,
                              precision=precision, packed=packed, out=out)


def dequantize_linear(x, x_scale, x_zero_point=None, *, axis=1, out=None):
    """ONNX DequantizeLinear: ``y = (x - x_zero_point) * x_scale``.

    Bit-exact with the ONNX reference implementation (``onnx.reference``); see
    docs/onnx.md.

    Parameters
    ----------
    x : array-like
        uint8, int8, uint16, int16 or int32 (int32 has no zero point but 0).
    x_scale : array-like or float
        float32 or float16, a scalar / one element (per tensor) or 1-D of x's extent
        on ``axis``; its dtype is the output type unless ``out`` is given. A real
        number (Python or numpy) or a list of them becomes float32; None, strings and
        bools are a TypeError.
    x_zero_point : array-like or int, optional
        Same shape as the scale and x's dtype (a Python int takes x's dtype). Default 0.
    axis : int
        The per-axis dimension; ignored per tensor.
    out : writable buffer, optional
        float32 or float16 output of x's shape.

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``

    Notes
    -----
    Computed as the reference does: ``float32(x - zero_point) * float32(scale)``
    rounded to float32, then rounded again to float16 for a float16 output.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> simdops.dequantize_linear(np.array([10, 12, 15, 0], np.uint8), 0.5, np.uint8(10))
    array([ 0. ,  1. ,  2.5, -5. ], dtype=float32)
    """
    cdef _Buf xb = _buf(x, "x")
    cdef _Buf sb = _scale_buf(x_scale, "x_scale")
    cdef _Buf zb = None
    cdef _Buf ob
    cdef simdops_error err
    cdef int status
    cdef int64_t ax = _int64(axis, "axis")
    if x_zero_point is not None:
        zb = _zero_point_buf(x_zero_point, "x_zero_point", DTYPE_NAMES.get(xb.t.dtype, "uint8"))
    if out is None:
        ob = _out_buf(None, xb, sb.t.dtype if sb.t.dtype == SIMDOPS_FLOAT16 else SIMDOPS_FLOAT32)
    else:
        ob = _buf(out, "out", True)
    with nogil:
        status = simdops_dequantize_linear(&xb.t, &sb.t, NULL if zb is None else &zb.t, ax,
                                           &ob.t, &err)
    if status:
        _raise(&err)
    return _result(ob, out)


cdef object _onnx_bound(object v, str name):
    """A bound given as a 0-d / one-element array (ONNX's tensor inputs; anything x
    accepts: buffers, DLPack tensors, torch views with the negative bit) becomes its
    Python number; None and plain numbers stay as they are. An array that holds no number
    (an object array holding None used to read as an absent bound) is a TypeError naming
    the bound."""
    if v is None or type(v) is float or type(v) is int:
        return v
    if PyObject_CheckBuffer(v):
        arr = np.asarray(v)
    elif hasattr(v, "shape") or hasattr(v, "__dlpack__"):
        arr = _intake_input(v, name)
    else:
        return v  # _number says what a bound must be
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a number or a one-element numeric array, got an "
                        f"array of dtype {arr.dtype}")
    if arr.size != 1:
        raise ValueError(f"clip: {name} must be a scalar or one element, got shape {arr.shape}")
    return arr.reshape(()).item()


def onnx_clip(x, min=None, max=None, *, out=None):
    """simdops.onnx.clip (see there)."""
    cdef _Buf xb = _buf(x, "x")
    min = _onnx_bound(min, "min")
    max = _onnx_bound(max, "max")
    cdef simdops_number lo, hi
    if min is not None:
        lo = _number(min, "min")
    if max is not None:
        hi = _number(max, "max")
    cdef simdops_error err
    cdef int status
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    with nogil:
        status = simdops_clip_onnx(&xb.t, &ob.t, NULL if min is None else &lo,
                                   NULL if max is None else &hi, &err)
    if status:
        _raise(&err)
    return _result(ob, out)


def onnx_shrink(x, bias=0.0, lambd=0.5, *, out=None):
    """simdops.onnx.shrink (see there)."""
    cdef _Buf xb = _buf(x, "x")
    cdef simdops_number b = _number(bias, "bias")
    cdef simdops_number l = _number(lambd, "lambd")
    cdef simdops_error err
    cdef int status
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    with nogil:
        status = simdops_shrink_onnx(&xb.t, &ob.t, b, l, &err)
    if status:
        _raise(&err)
    return _result(ob, out)


# ---------------------------------------------------------------- every ONNX type
cdef extern from "core/qtype.h" nogil:
    ctypedef struct simdops_qtype_row:
        const char *name
        int32_t onnx, bits, kind
        int64_t lo, hi
        int32_t q_opset, dq_opset
    int SIMDOPS_QT_COUNT
    const simdops_qtype_row simdops_qtype_rows[]


def qtypes():
    """The ONNX profile's types (C's SIMDOPS_QTYPES): name -> (ONNX code, bits,
    kind, lo, hi, first QuantizeLinear opset, first DequantizeLinear opset);
    kind 0 float, 1 integer, 2 float8, 3 float4, 4 float8e8m0."""
    return {(<bytes>simdops_qtype_rows[i].name).decode():
            (simdops_qtype_rows[i].onnx, simdops_qtype_rows[i].bits, simdops_qtype_rows[i].kind,
             simdops_qtype_rows[i].lo, simdops_qtype_rows[i].hi, simdops_qtype_rows[i].q_opset,
             simdops_qtype_rows[i].dq_opset)
            for i in range(SIMDOPS_QT_COUNT)}


cdef const int64_t *_shape_ptr(object a, int64_t *store):
    for i, d in enumerate(a):
        store[i] = d
    return store


def qdq(bint quantize, x, scale, zero_point, y, tuple shape, tuple scale_shape,
        tuple zero_point_shape, int x_type, int scale_type, int zero_point_type, int y_type,
        int packed, int saturate, int precision, int opset, axis, block_size):
    """simdops_quantize_linear_ex / simdops_dequantize_linear_ex on C-contiguous
    numpy arrays of bytes (simdops.onnx._lowbit makes them; translation only:
    C checks every rule)."""
    cdef simdops_qdq_call c
    cdef simdops_error err
    cdef int64_t s0[64]
    cdef int64_t s1[64]
    cdef int64_t s2[64]
    cdef int status
    cdef const unsigned char[::1] xv = x.reshape(-1).view(np.uint8)
    cdef const unsigned char[::1] sv = scale.reshape(-1).view(np.uint8)
    cdef const unsigned char[::1] zv
    cdef unsigned char[::1] yv = y.reshape(-1).view(np.uint8)
    if len(shape) > 64 or len(scale_shape) > 64 or len(zero_point_shape) > 64:
        raise ValueError("at most 64 dimensions")
    memset(&c, 0, sizeof(c))
    c.x = &xv[0] if xv.shape[0] else <const void *>&s0[0]
    c.scale = &sv[0] if sv.shape[0] else <const void *>&s1[0]
    c.y = &yv[0] if yv.shape[0] else <void *>&s2[0]
    if zero_point is not None:
        zv = zero_point.reshape(-1).view(np.uint8)
        c.zero_point = &zv[0] if zv.shape[0] else <const void *>&s2[0]
        c.zero_point_shape = _shape_ptr(zero_point_shape, s2)
        c.zero_point_ndim = len(zero_point_shape)
        c.zero_point_type = zero_point_type
    c.shape = _shape_ptr(shape, s0)
    c.ndim = len(shape)
    c.scale_shape = _shape_ptr(scale_shape, s1)
    c.scale_ndim = len(scale_shape)
    c.x_type = x_type
    c.scale_type = scale_type
    c.y_type = y_type
    c.packed = packed
    c.saturate = saturate
    c.precision = precision
    c.opset = opset
    c.axis = _int64(axis, "axis")
    c.block_size = _int64(block_size, "block_size")
    with nogil:
        if quantize:
            status = simdops_quantize_linear_ex(&c, &err)
        else:
            status = simdops_dequantize_linear_ex(&c, &err)
    if status:
        _raise(&err)
    return y


def qdq_into(bint quantize, x, scale, y, int q_type, int f32_type, int saturate, axis):
    """simdops_quantize_linear_ex / simdops_dequantize_linear_ex for one common form,
    from the arrays' fields with no Python objects made (qdq's reshape / view /
    memoryview of three arrays cost more than a 64K-element kernel): x and y plain
    C-contiguous ndarrays of one shape, the float side (quantize: x, dequantize: y)
    native float32, the other one byte an element of ONNX type q_type (the caller's
    dtype-name lookup), y writable and not overlapping x, scale a 0-d float32 ndarray,
    no zero point. None, nothing run, when the arrays are not of this form (the caller
    takes qdq's path); C checks every rule."""
    cdef simdops_qdq_call c
    cdef simdops_error err
    cdef int status, k
    cdef int64_t shp[64]
    cdef simdops_np_array *xa
    cdef simdops_np_array *ya
    cdef simdops_np_array *sa
    cdef simdops_np_array *fa
    cdef char *xend
    cdef char *yend
    if type(x) is not _NDARRAY or type(y) is not _NDARRAY or type(scale) is not _NDARRAY:
        return None
    xa = <simdops_np_array *><void *>x
    ya = <simdops_np_array *><void *>y
    sa = <simdops_np_array *><void *>scale
    fa = xa if quantize else ya
    if (not (xa.flags & ya.flags & sa.flags & SIMDOPS_NP_C_CONTIGUOUS) or sa.nd != 0 or xa.nd > 64
            or ya.nd != xa.nd or not _native_f32(fa) or not _native_f32(sa)
            or not (ya.flags & SIMDOPS_NP_WRITEABLE) or (<unsigned int>ya.flags) & SIMDOPS_NP_WARN_ON_WRITE):
        return None
    for k in range(xa.nd):
        if ya.dimensions[k] != xa.dimensions[k]:
            return None
        shp[k] = xa.dimensions[k]
    # the byte ranges: the float side four bytes an element, the other one (an empty
    # array overlaps nothing)
    xend = xa.data + (4 if quantize else 1) * _numel(xa)
    yend = ya.data + (1 if quantize else 4) * _numel(ya)
    if xend != xa.data and xa.data < yend and ya.data < xend:
        return None
    memset(&c, 0, sizeof(c))
    c.x = xa.data
    c.scale = sa.data
    c.y = ya.data
    c.shape = shp
    c.ndim = xa.nd
    c.scale_shape = shp
    c.scale_ndim = 0
    c.x_type = f32_type if quantize else q_type
    c.scale_type = f32_type
    c.y_type = q_type if quantize else f32_type
    c.saturate = saturate
    c.axis = _int64(axis, "axis")
    with nogil:
        if quantize:
            status = simdops_quantize_linear_ex(&c, &err)
        else:
            status = simdops_dequantize_linear_ex(&c, &err)
    if status:
        _raise(&err)
    return y


cdef bint _native_f32(simdops_np_array *a) noexcept:
    cdef simdops_np_descr *d = <simdops_np_descr *>a.descr
    return d.type == b'f' and d.byteorder == b'='


cdef Py_ssize_t _numel(simdops_np_array *a) noexcept:
    cdef Py_ssize_t n = 1
    cdef int k
    for k in range(a.nd):
        n *= a.dimensions[k]
    return n
