# cython: language_level=3
"""The one Cython module on the hot path: buffers in, C entry points out.

Every public op acquires its buffers (buffer protocol, any strides), checks
formats and shapes with messages that name the argument, converts Python
numbers to simdops_number exactly, and calls csrc/api.c with the GIL
released.
"""
import sys

import numpy as np

from simdops import _interop

cimport cython

from cpython.buffer cimport (PyBUF_RECORDS, PyBUF_RECORDS_RO, PyBuffer_Release,
                             PyObject_CheckBuffer, PyObject_GetBuffer)
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint64_t

from simdops._csimdops cimport *

# dtype value -> (name, numpy dtype)
DTYPE_NAMES = {
    SIMDOPS_FLOAT32: "float32", SIMDOPS_FLOAT16: "float16", SIMDOPS_UINT32: "uint32",
    SIMDOPS_UINT16: "uint16", SIMDOPS_UINT8: "uint8", SIMDOPS_INT32: "int32",
    SIMDOPS_INT16: "int16", SIMDOPS_INT8: "int8", SIMDOPS_FLOAT64: "float64",
    SIMDOPS_UINT64: "uint64", SIMDOPS_INT64: "int64",
}
_DTYPE_BY_NAME = {v: k for k, v in DTYPE_NAMES.items()}

cdef unsigned _mask(dtypes):
    cdef unsigned m = 0
    for d in dtypes:
        m |= 1u << <int>d
    return m


def _unmask(unsigned m):
    return [d for d in DTYPE_NAMES if (m >> <int>d) & 1]


cdef unsigned CLIP_DTYPES = _mask(DTYPE_NAMES)
cdef unsigned SHRINK_DTYPES = CLIP_DTYPES & ~_mask((SIMDOPS_UINT64, SIMDOPS_INT64))
cdef unsigned HARDMAX_DTYPES = _mask((SIMDOPS_FLOAT32, SIMDOPS_FLOAT16, SIMDOPS_FLOAT64))
REQUANT_OUT = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}

cdef bint _LITTLE = sys.byteorder == "little"


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


cdef simdops_dtype _dtype_of_format(const char *fmt, Py_ssize_t itemsize, str name) except *:
    """Buffer format -> dtype, by meaning: 'l'/'q' alike, '@'/'=' accepted.
    Plain C on the hot path; Python strings only to build error messages."""
    cdef const char *f = fmt
    cdef char c
    if f == NULL:  # PEP 3118: no format means unsigned bytes
        return SIMDOPS_UINT8 if itemsize == 1 else SIMDOPS_UNKNOWN
    if f[0] == b'@' or f[0] == b'=' or (f[0] == b'<' and _LITTLE) or (f[0] in b'>!' and not _LITTLE):
        f += 1
    elif f[0] == b'<' or f[0] == b'>' or f[0] == b'!':
        raise TypeError(f"{name}: non-native byte order (format {(<bytes>fmt).decode()!r}) "
                        f"is not supported")
    c = f[0]
    if c != 0 and f[1] == 0:
        if c == b'e' and itemsize == 2:
            return SIMDOPS_FLOAT16
        if c == b'f' and itemsize == 4:
            return SIMDOPS_FLOAT32
        if c == b'd' and itemsize == 8:
            return SIMDOPS_FLOAT64
        if c in b"bhilqn":
            return _int_dtype(itemsize, True)
        if c in b"BHILQN":
            return _int_dtype(itemsize, False)
    raise TypeError(f"{name}: unsupported buffer format "
                    f"{(<bytes>fmt).decode(errors='replace')!r} with itemsize {itemsize}")


@cython.freelist(16)
cdef class _Buf:
    """A held buffer and its simdops_tensor view."""
    cdef Py_buffer view
    cdef bint held
    cdef simdops_tensor t
    cdef object obj

    def __cinit__(self):
        self.held = False

    cdef int acquire(self, object obj, str name, bint writable) except -1:
        cdef int d
        if not PyObject_CheckBuffer(obj):
            raise TypeError(f"{name} must support the buffer protocol "
                            f"(numpy array, memoryview, ...), got {type(obj).__name__}")
        if writable:
            try:
                PyObject_GetBuffer(obj, &self.view, PyBUF_RECORDS)
            except (BufferError, ValueError) as e:  # numpy raises ValueError for read-only
                raise ValueError(f"{name} must be writable: {e}") from None
        else:
            PyObject_GetBuffer(obj, &self.view, PyBUF_RECORDS_RO)
        self.held = True
        self.obj = obj
        if self.view.ndim > SIMDOPS_MAX_DIMS:
            raise ValueError(f"{name} has {self.view.ndim} dimensions; at most {SIMDOPS_MAX_DIMS}")
        self.t.dtype = _dtype_of_format(self.view.format, self.view.itemsize, name)
        if self.t.dtype == SIMDOPS_UNKNOWN:
            raise TypeError(f"{name}: unsupported buffer format "
                            f"{(<bytes>self.view.format).decode()!r} with itemsize {self.view.itemsize}")
        self.t.data = self.view.buf
        self.t.ndim = self.view.ndim
        stride = self.view.itemsize
        for d in range(self.view.ndim - 1, -1, -1):
            # NULL shape/strides are allowed for contiguous exporters (ctypes)
            self.t.shape[d] = self.view.shape[d] if self.view.shape != NULL else self.view.len // self.view.itemsize
            self.t.strides[d] = self.view.strides[d] if self.view.strides != NULL else stride
            stride *= self.t.shape[d]
        return 0

    @property
    def shape(self):
        return tuple(self.t.shape[d] for d in range(self.t.ndim))

    @property
    def dtype(self):
        return int(self.t.dtype)

    def __dealloc__(self):
        if self.held:
            PyBuffer_Release(&self.view)


cdef _Buf _buf(object obj, str name, bint writable=False, bint int32=False):
    """obj as a held buffer. Buffer-protocol objects are the zero-copy fast path;
    anything else (DLPack tensors, lists, scalars, __array__) goes through
    simdops._interop first. b.obj stays the caller's object (returned as out)."""
    cdef _Buf b = _Buf()
    if PyObject_CheckBuffer(obj):
        b.acquire(obj, name, writable)
        return b
    arr = _interop.as_output(obj, name) if writable else _interop.as_input(obj, name, int32)
    b.acquire(arr, name, writable)
    if writable:
        b.obj = obj
    return b


cdef inline object _result(_Buf ob, object out):
    """The call's result: out itself, else the new array — a numpy scalar when it is
    0-d, as numpy's functions return for scalar inputs."""
    if out is None and ob.t.ndim == 0:
        return ob.obj[()]
    return ob.obj


def _round_int(v, int bits):
    """v rounded to `bits` significant bits, nearest even (exact integer)."""
    a = -v if v < 0 else v
    e = a.bit_length() - bits
    if e <= 0:
        return v
    q, r = divmod(a, 1 << e)
    half = 1 << (e - 1)
    if r > half or (r == half and q & 1):
        q += 1
    q <<= e
    return -q if v < 0 else q


cdef dict _FLOAT_BITS = {SIMDOPS_FLOAT32: 24, SIMDOPS_FLOAT16: 11, SIMDOPS_FLOAT64: 53}


cdef double _int_to_double(object v, int bits):
    """An int rounded once to `bits` significant bits, as a double (exact unless it
    overflows, which then rounds to inf as the narrower type would)."""
    try:
        return float(_round_int(v, bits))
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


cdef simdops_number _number(object v, str name, simdops_dtype dtype) except *:
    """A Python number, exactly: ints as ints; ints beyond 64 bits become a
    double already rounded to the float type's precision (so the one rounding
    is correct) and saturate integer types; floats as doubles."""
    cdef simdops_number n
    n.f = 0.0
    n.i = 0
    n.u = 0
    if type(v) is float:  # the common case, no further checks needed
        n.kind = SIMDOPS_NUM_FLOAT
        n.f = <double>v
        if n.f != n.f:
            raise ValueError(f"{name} is NaN")
        return n
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got bool")
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if -(1 << 63) <= v < (1 << 63):
            n.kind = SIMDOPS_NUM_INT
            n.i = v
        elif 0 <= v < (1 << 64):
            n.kind = SIMDOPS_NUM_UINT
            n.u = v
        else:
            n.kind = SIMDOPS_NUM_FLOAT
            n.f = _int_to_double(v, _FLOAT_BITS.get(dtype, 53))
        return n
    if isinstance(v, (float, np.floating)):
        n.kind = SIMDOPS_NUM_FLOAT
        n.f = float(v)
        if n.f != n.f:
            raise ValueError(f"{name} is NaN")
        return n
    raise TypeError(f"{name} must be an int or a float, got {type(v).__name__}")


cdef _raise_status(int status, str what):
    msg = (<bytes>simdops_status_message(status)).decode()
    if status == SIMDOPS_E_DTYPE:
        raise TypeError(f"{what}: {msg}")
    if status == SIMDOPS_E_NOMEM:
        raise MemoryError(what)
    raise ValueError(f"{what}: {msg}")


cdef bint _same_shape(_Buf a, _Buf b) noexcept:
    if a.t.ndim != b.t.ndim:
        return False
    for d in range(a.t.ndim):
        if a.t.shape[d] != b.t.shape[d]:
            return False
    return True


cdef _Buf _out_buf(object out, _Buf x, simdops_dtype dtype):
    """The output buffer: `out` checked against x's shape and `dtype`, or a
    new C-contiguous array (then held as the _Buf's obj)."""
    cdef _Buf o
    if out is None:
        return _buf(np.empty(x.shape, dtype=DTYPE_NAMES[dtype]), "out", True)
    o = _buf(out, "out", True)
    if o.t.dtype != dtype:
        raise TypeError(f"out has dtype {DTYPE_NAMES[o.t.dtype]}; expected {DTYPE_NAMES[dtype]}")
    if not _same_shape(o, x):
        raise ValueError(f"out has shape {o.shape}; expected {x.shape} (the shape of x)")
    return o


cdef _Buf _input(object x, unsigned allowed, str op):
    """x as a buffer whose dtype is in the bit set `allowed` (bit = dtype value)."""
    cdef _Buf b = _buf(x, "x")
    if not (allowed >> <int>b.t.dtype) & 1:
        names = ", ".join(sorted(DTYPE_NAMES[d] for d in _unmask(allowed)))
        raise TypeError(f"{op}: x has dtype {DTYPE_NAMES[b.t.dtype]}; supported: {names}")
    return b


cdef _finish(int status, str op):
    if status == SIMDOPS_E_OVERLAP:
        raise ValueError(f"{op}: out has two elements at one address (a broadcast or "
                         f"overlapping view); it must not")
    if status != SIMDOPS_OK:
        _raise_status(status, op)


def clip(x, min, max, *, scale=None, bias=None, out=None):
    """Clip every element into [min, max]: DirectML's ELEMENT_WISE_CLIP (bit-exact).

    ``y = max(min', min(g(x), max'))`` with ``g(x) = x`` — or, when ``scale`` or ``bias``
    is given, ``g(x) = x*scale + bias`` (DirectML's ScaleBias, two roundings, no FMA).
    ``min'``/``max'`` are min/max converted once to x's dtype (floats round to nearest
    even, integer types truncate toward zero and saturate).

    Parameters
    ----------
    x : array-like
        float32, float16, float64 or any 8/16/32/64-bit integer. A buffer (numpy array
        of any strides, memoryview, array.array) is used in place; a CPU DLPack tensor
        (torch, JAX, ...) is viewed without a copy; lists and scalars go through
        ``np.asarray``.
    min, max : int, float or None
        The bounds. ``None`` means the dtype's lowest / highest value (floats: -inf /
        +inf). ``min > max`` gives ``min`` everywhere (DirectML's order; numpy and
        ONNX give ``max``). NaN is rejected.
    scale, bias : float, optional
        float32 ScaleBias; when one is given the other defaults to 1.0 / 0.0. Not
        available for 64-bit integer tensors; must be finite for integer tensors.
    out : writable buffer or DLPack tensor, optional
        Receives the result (x's shape and dtype; may be x itself for in-place use).

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``
        ``out`` when given; otherwise a new C-contiguous array, or a numpy scalar when
        the result is 0-d (numpy's rule).

    Raises
    ------
    TypeError
        x or out is not array-like, or has an unsupported dtype; out's dtype differs.
    ValueError
        NaN bound, ScaleBias on a 64-bit integer tensor, non-finite ScaleBias on an
        integer tensor, shape mismatch, read-only ``out``, or ``out`` with two elements
        at one address.

    Notes
    -----
    A NaN element stays that same NaN (payload kept). Every ISA gives identical bits.
    The GIL is released while the kernel runs.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> simdops.clip(np.array([-2.0, 0.5, 3.0], np.float32), -1, 1)
    array([-1. ,  0.5,  1. ], dtype=float32)
    >>> simdops.clip([1, 7, 12], None, 10)
    array([ 1,  7, 10])
    >>> simdops.clip(np.float32(3), 0, 1)
    np.float32(1.0)
    """
    cdef _Buf xb = _input(x, CLIP_DTYPES, "clip")
    cdef simdops_number lo = _number(-INFINITY if min is None else min, "min", xb.t.dtype)
    cdef simdops_number hi = _number(INFINITY if max is None else max, "max", xb.t.dtype)
    cdef float sb[2]
    cdef const float *sbp = NULL
    cdef int status
    if scale is not None or bias is not None:
        if xb.t.dtype in (SIMDOPS_INT64, SIMDOPS_UINT64):
            raise ValueError(f"clip: scale/bias are not supported for "
                             f"{DTYPE_NAMES[xb.t.dtype]} (DirectML has no ScaleBias for 64-bit integers)")
        sb[0] = _scale_bias_value(1.0 if scale is None else scale, "scale", xb.t.dtype)
        sb[1] = _scale_bias_value(0.0 if bias is None else bias, "bias", xb.t.dtype)
        sbp = sb
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    with nogil:
        status = simdops_clip(&xb.t, &ob.t, lo, hi, sbp)
    _finish(status, "clip")
    return _result(ob, out)


cdef float _scale_bias_value(object v, str name, simdops_dtype dtype) except? -1:
    """scale/bias are float32 values: one rounding from the Python number."""
    cdef simdops_number n = _number(v, name, SIMDOPS_FLOAT32)
    cdef double d = n.f if n.kind == SIMDOPS_NUM_FLOAT else _int_to_double(int(v), 24)
    cdef float f = simdops_f32_from_f64(d)  # exact for a rounded int; overflow goes to inf
    if dtype not in (SIMDOPS_FLOAT32, SIMDOPS_FLOAT16, SIMDOPS_FLOAT64) and not (-INFINITY < f < INFINITY):
        raise ValueError(f"clip: {name} = {v!r} is not finite as a float32; integer tensors "
                         f"need a finite scale and bias")
    return f


def shrink(x, bias=0.0, threshold=0.5, *, out=None):
    """DirectML's ACTIVATION_SHRINK (bit-exact): shrink values toward zero.

    ``y = x - bias`` if ``x > threshold``; ``x + bias`` if ``x < -threshold``; 0
    otherwise. With ``bias == threshold`` this is PyTorch's ``softshrink``; with
    ``bias == 0``, ``hardshrink``.

    Parameters
    ----------
    x : array-like
        float32, float16, float64 or an 8/16/32-bit integer type (buffer, DLPack
        tensor, list or scalar; see ``simdops.clip``).
    bias : int or float, default 0.0
        Rounded to x's float type; for integer tensors truncated toward zero (the
        results ``x ∓ bias`` then saturate).
    threshold : int or float, default 0.5
        Must be >= 0. Compared exactly (rounded to float16 first for float16 tensors).
    out : writable buffer or DLPack tensor, optional
        Receives the result (x's shape and dtype; may be x itself).

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``
        As for ``simdops.clip``.

    Raises
    ------
    TypeError
        x is not array-like or has an unsupported dtype (64-bit integers included).
    ValueError
        NaN parameter, negative threshold, shape mismatch, read-only or self-overlapping
        ``out``.

    Notes
    -----
    A NaN element stays that same NaN (PyTorch's choice; ONNX's formula gives 0).

    Examples
    --------
    >>> import numpy as np, simdops
    >>> simdops.shrink(np.array([-2.0, 0.25, 1.5], np.float32), bias=0.5, threshold=0.5)
    array([-1.5,  0. ,  1. ], dtype=float32)
    """
    cdef _Buf xb = _input(x, SHRINK_DTYPES, "shrink")
    cdef simdops_number b = _number(bias, "bias", xb.t.dtype)
    cdef simdops_number t = _number(threshold, "threshold", xb.t.dtype)
    cdef int status
    if (t.kind == SIMDOPS_NUM_FLOAT and t.f < 0) or (t.kind == SIMDOPS_NUM_INT and t.i < 0):
        raise ValueError(f"shrink: threshold must be >= 0, got {threshold!r}")
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    with nogil:
        status = simdops_shrink(&xb.t, &ob.t, b, t)
    _finish(status, "shrink")
    return _result(ob, out)


def _normalize_axes(axis, int ndim):
    axes = (axis,) if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) else axis
    try:
        axes = tuple(axes)
    except TypeError:
        raise TypeError(f"hardmax: axis must be an int or a tuple of ints, got {type(axis).__name__}") from None
    if not axes:
        raise ValueError("hardmax: axis must name at least one axis")
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"hardmax: axis entries must be ints, got {type(a).__name__}")
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"hardmax: axis {a} is out of range for an array with {ndim} dimensions")
        a %= ndim
        if a in out:
            raise ValueError(f"hardmax: axis {a} is repeated")
        out.append(a)
    return sorted(out)


def hardmax(x, axis=-1, *, out=None):
    """DirectML's ACTIVATION_HARDMAX / HARDMAX1: a one-hot of the first maximum.

    The output has x's shape and dtype: 1 at the first occurrence of the maximum along
    the reduced axes, 0 elsewhere. Over several axes the position is row-major in the
    array's own dimension order. NaN counts as the maximum (the first NaN wins, as
    ``numpy.argmax``); +0.0 and -0.0 are equal.

    Parameters
    ----------
    x : array-like
        float32, float16 or float64 (buffer, DLPack tensor, list; see ``simdops.clip``).
    axis : int or sequence of ints, default -1
        The reduced axes; negative values count from the end.
    out : writable buffer or DLPack tensor, optional
        Receives the result (x's shape and dtype; may be x itself).

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``
        As for ``simdops.clip``.

    Raises
    ------
    TypeError
        x is not array-like or not a float type; axis is not an int or a sequence of
        ints.
    ValueError
        An axis out of range or repeated, no axis, shape mismatch, read-only or
        self-overlapping ``out``.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> simdops.hardmax(np.array([[1.0, 3.0, 3.0], [2.0, -1.0, 0.0]], np.float32))
    array([[0., 1., 0.],
           [1., 0., 0.]], dtype=float32)
    >>> simdops.hardmax(np.zeros((2, 2, 2)), axis=(1, 2))[0]
    array([[1., 0.],
           [0., 0.]])
    """
    cdef _Buf xb = _input(x, HARDMAX_DTYPES, "hardmax")
    axes = _normalize_axes(axis, xb.t.ndim)
    cdef int caxes[64]
    cdef int naxes = len(axes)
    cdef int status
    for k in range(naxes):
        caxes[k] = axes[k]
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    with nogil:
        status = simdops_hardmax(&xb.t, &ob.t, naxes, caxes)
    _finish(status, "hardmax")
    return _result(ob, out)


cdef int32_t _int32(object v, str name) except? -1:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    v = int(v)
    if not -(1 << 31) <= v < (1 << 31):
        raise ValueError(f"{name} = {v} is outside the int32 range")
    return v


cdef _channel_array(object v, str name, Py_ssize_t channels):
    """A per-channel int32 vector: any int32 buffer, or a sequence of ints."""
    if not PyObject_CheckBuffer(v):
        try:
            arr = np.asarray(v)
        except Exception:
            raise TypeError(f"{name} must be an int32 array or a sequence of ints") from None
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integers, got {arr.dtype}")
        if arr.size and (arr.min() < -(1 << 31) or arr.max() >= (1 << 31)):
            raise ValueError(f"{name} has values outside the int32 range")
        v = arr.astype(np.int32)
    cdef _Buf b = _buf(v, name)
    if b.t.dtype != SIMDOPS_INT32:
        raise TypeError(f"{name} must be int32, got {DTYPE_NAMES[b.t.dtype]}")
    if b.t.ndim != 1 or b.t.shape[0] != channels:
        raise ValueError(f"{name} must be 1-D of length {channels} (x's last dimension), "
                         f"got shape {b.shape}")
    return b


def quantize_down_int32(x, multiplier, shift, offset=0, *, bias=None, min=None, max=None,
                        out_dtype="uint8", out=None):
    """Arm Compute Library's gemmlowp fixed-point output stage (bit-exact).

    Per element, with ``k`` the index along the last axis (ACL's dimension 0)::

        a = wrap32(x + bias[k])
        q = RDBPOT(SRDHM(wrap32(a << max(-shift, 0)), M), max(shift, 0))
        y = clamp(wrap32(q + offset), min, max), saturated to out_dtype

    SRDHM is gemmlowp's saturating rounding doubling high multiply, RDBPOT its rounding
    divide by a power of two (ties away from zero).

    Parameters
    ----------
    x : array-like of int32
        The accumulators (buffer, DLPack tensor, or a list of Python ints, which become
        int32).
    multiplier : int or sequence of ints
        The fixed-point multiplier M (int32), or one per channel (int32 1-D array of the
        last dimension's length). See ``quantize_multiplier``.
    shift : int or sequence of ints
        In [-31, 31]; negative shifts multiply by ``2**-shift`` first (ACL >= 20.02).
        Per channel like ``multiplier``; a plain int next to an array is broadcast.
    offset : int, default 0
        Added after the shift (int32, wraps). Must be 0 for int16 output (QSYMM16).
    bias : int32 1-D array-like, optional
        Added per channel before the multiply (length = last dimension).
    min, max : int or None
        Bounded ReLU inside out_dtype's range. Both None: no clamp; one None: that side
        is the type's limit; ``min == max`` means no clamp (ACL's convention).
    out_dtype : {"uint8", "int8", "int16"} or numpy dtype, default "uint8"
        QASYMM8, QASYMM8_SIGNED or QSYMM16.
    out : writable buffer or DLPack tensor, optional
        Receives the result (x's shape, out_dtype).

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``
        As for ``simdops.clip``.

    Raises
    ------
    TypeError
        x is not int32, out_dtype is not one of the three, a parameter is not an int.
    ValueError
        A parameter outside int32, shift outside [-31, 31], bounds outside out_dtype's
        range or min > max, offset != 0 for int16, per-channel lengths that differ from
        the last dimension, shape mismatch, read-only or self-overlapping ``out``.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> acc = np.array([[-300, 0, 1000]], np.int32)
    >>> m, s = simdops.quantize_multiplier(0.05)
    >>> simdops.quantize_down_int32(acc, m, s, 128)
    array([[113, 128, 178]], dtype=uint8)
    >>> simdops.quantize_down_int32(acc, m, s, 0, out_dtype="int8", min=-10, max=10)
    array([[-10,   0,  10]], dtype=int8)
    """
    cdef _Buf xb = _buf(x, "x", False, True)
    cdef _Buf ob, bb, mb, sb
    cdef simdops_requant_args a
    cdef int status
    if xb.t.dtype != SIMDOPS_INT32:
        raise TypeError(f"quantize: x must be int32, got {DTYPE_NAMES[xb.t.dtype]}")
    out_name = out_dtype if type(out_dtype) is str and out_dtype in REQUANT_OUT else None
    if out_name is None:  # np.dtype() is slow: only for spellings other than the names
        try:
            out_name = np.dtype(out_dtype).name
        except TypeError:
            raise TypeError(f"quantize: out_dtype {out_dtype!r} is not a dtype") from None
    if out_name not in REQUANT_OUT:
        raise TypeError(f"quantize: out_dtype must be uint8, int8 or int16, got {out_name}")
    tlo, thi = REQUANT_OUT[out_name]
    channels = xb.t.shape[xb.t.ndim - 1] if xb.t.ndim else 0
    a.multipliers = NULL
    a.shifts = NULL
    a.bias = NULL
    a.multiplier = 0
    a.shift = 0
    per_channel = not isinstance(multiplier, (int, np.integer)) or not isinstance(shift, (int, np.integer))
    if per_channel and xb.t.ndim == 0:
        raise ValueError("quantize: per-channel multiplier/shift need x with at least one dimension")
    if per_channel:
        mult_v = (np.full(channels, _int32(multiplier, "multiplier"), np.int32)
                  if isinstance(multiplier, (int, np.integer)) else multiplier)
        shift_v = (np.full(channels, _int32(shift, "shift"), np.int32)
                   if isinstance(shift, (int, np.integer)) else shift)
        mb = _channel_array(mult_v, "multiplier", channels)
        sb = _channel_array(shift_v, "shift", channels)
        shifts = np.asarray(sb.obj)
        if channels and (np.min(shifts) < -31 or np.max(shifts) > 31):
            raise ValueError("quantize: shift values must be in [-31, 31]")
        a.multipliers = &mb.t
        a.shifts = &sb.t
    else:
        a.multiplier = _int32(multiplier, "multiplier")
        a.shift = _int32(shift, "shift")
        if not -31 <= a.shift <= 31:
            raise ValueError(f"quantize: shift must be in [-31, 31], got {a.shift}")
    a.offset = _int32(offset, "offset")
    if out_name == "int16" and a.offset != 0:
        raise ValueError("quantize: int16 output (QSYMM16) has no offset; offset must be 0")
    if min is None and max is None:
        a.min = a.max = 0 if tlo <= 0 <= thi else tlo
    else:
        a.min = tlo if min is None else _int32(min, "min")
        a.max = thi if max is None else _int32(max, "max")
    if not tlo <= a.min <= a.max <= thi:
        raise ValueError(f"quantize: need {tlo} <= min <= max <= {thi} for {out_name} output, "
                         f"got min={a.min}, max={a.max}")
    if bias is not None:
        if xb.t.ndim == 0:
            raise ValueError("quantize: bias needs x with at least one dimension")
        bb = _channel_array(bias, "bias", channels)
        a.bias = &bb.t
    ob = _out_buf(out, xb, _DTYPE_BY_NAME[out_name])
    with nogil:
        status = simdops_requant(&xb.t, &ob.t, &a)
    _finish(status, "quantize")
    return _result(ob, out)


def quantize_down_int32_to_uint8(x, multiplier, shift, offset, *, bias=None, min=0, max=0,
                                 out=None):
    """ACL 18.03's GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint on arrays.

    ``quantize_down_int32(x, multiplier, shift, offset, bias=bias, min=min, max=max,
    out_dtype="uint8", out=out)`` with ACL 18.03's defaults: ``min=0, max=0`` (equal
    bounds: no clamp), and ``0 <= min <= max <= 255``.

    Parameters
    ----------
    x : array-like of int32
    multiplier, shift : int or int32 1-D array-like
        As for ``quantize_down_int32``.
    offset : int
        ``result_offset_after_shift``.
    bias : int32 1-D array-like, optional
    min, max : int, default 0
    out : writable buffer or DLPack tensor of uint8, optional

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``

    Raises
    ------
    TypeError, ValueError
        As for ``quantize_down_int32``.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> simdops.quantize_down_int32_to_uint8(np.array([-300, 0, 1000], np.int32),
    ...                                      1 << 30, 4, 100, min=90, max=255)
    array([ 91, 100, 131], dtype=uint8)
    """
    return quantize_down_int32(x, multiplier, shift, offset, bias=bias, min=min, max=max,
                               out_dtype="uint8", out=out)


def isa():
    return (<bytes>simdops_isa()).decode()


def available_isas():
    cdef const char *names[8]
    cdef int n = simdops_available_isas(names, 8)
    return tuple((<bytes>names[i]).decode() for i in range(n))


def known_isas():
    cdef const char *names[8]
    cdef int n = simdops_known_isas(names, 8)
    return tuple((<bytes>names[i]).decode() for i in range(n))


def set_isa(str name):
    if simdops_use_isa(name.encode()) != SIMDOPS_OK:
        raise ValueError(f"ISA {name!r} is not available here; available: "
                         f"{', '.join(available_isas())}")


def cpu_features():
    return (<bytes>simdops_cpu_features()).decode()


_TABLE_FIELDS = ("clip", "clip_scale_bias", "shrink", "argmax_row", "argmax_cols")
_REQUANT_NAMES = ("uint8", "int8", "int16")


cdef void *_entry(const simdops_kernel_table *t, str field, int k):
    if field == "clip": return t.clip[k]
    if field == "clip_scale_bias": return t.clip_scale_bias[k]
    if field == "shrink": return t.shrink[k]
    if field == "argmax_row": return t.argmax_row[k]
    if field == "argmax_cols": return t.argmax_cols[k]
    if field == "requant": return t.requant[k]
    return t.requant_pc[k]


def kernel_origins(str isa_name):
    """{(entry, dtype): tier whose own kernel the ISA's table uses} for one usable ISA."""
    cdef int count = simdops_tier_count()
    cdef int i, j, k
    cdef const simdops_kernel_table *t
    cdef const simdops_kernel_table *lower
    idx = [i for i in range(count) if (<bytes>simdops_tier_name(i)).decode() == isa_name]
    if not idx or simdops_tier_table(idx[0]) == NULL:
        raise ValueError(f"ISA {isa_name!r} is not available here")
    i = idx[0]
    t = simdops_tier_table(i)
    result = {}
    entries = [(f, k, DTYPE_NAMES[k]) for f in _TABLE_FIELDS for k in DTYPE_NAMES]
    entries += [(f, k, _REQUANT_NAMES[k]) for f in ("requant", "requant_pc") for k in range(3)]
    for field, k, dname in entries:
        p = <size_t>_entry(t, field, k)
        if p == 0:
            continue
        origin = i
        for j in range(i - 1, -1, -1):
            lower = simdops_tier_table(j)
            if lower == NULL or <size_t>_entry(lower, field, k) != p:
                break
            origin = j
        result[(field, dname)] = (<bytes>simdops_tier_name(origin)).decode()
    return result


# Build the kernel tables now, at import and under the GIL, so that no two
# threads can race to build them from inside nogil kernel calls.
simdops_isa()
