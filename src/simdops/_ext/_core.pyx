# cython: language_level=3
"""The one Cython module on the hot path: Python objects in, C values out.

Every public op acquires its buffers (a plain ndarray's fields, else the buffer
protocol; any strides; _core_buffers.pyx), turns the element type into a dtype and Python numbers into exact simdops_numbers, and
calls csrc/ with the GIL released. Every rule (dtype support, parameter
values, shapes, axes, overlap) is checked in C once; a failing call comes back
with a reason, which _raise turns into TypeError / ValueError / MemoryError
with the message C formats (it names the argument and the value).
"""
import numbers
import sys
from fractions import Fraction

import numpy as np

from simdops import _interop

cimport cython

from cpython.buffer cimport (PyBUF_RECORDS, PyBUF_RECORDS_RO, PyBuffer_Release,
                             PyObject_CheckBuffer, PyObject_GetBuffer)
from cpython.long cimport PyLong_FromLongLong
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.math cimport INFINITY, fabs, nextafter
from libc.stdint cimport INT64_MAX, INT64_MIN, int32_t, int64_t, uint64_t
from libc.string cimport memset

from simdops._ext._csimdops cimport *

# The functions simdops re-exports (its __all__ and `from simdops._core import *`;
# _core.pyi's __all__ must match, tests/test_packaging.py checks): a new public
# function is named here, once, beside the module that defines it.
__all__ = [
    "clip", "shrink", "hardmax", "quantize_down_int32_to_uint8", "quantize_down_int32",
    "requantize_fp32", "set_num_threads", "get_num_threads", "int8_matmul_accumulators",
    "quantized_add", "quantized_subtract", "quantized_multiply", "quantized_binary_params",
]

# dtype value -> numpy name, from the C dtype table
DTYPE_NAMES = {d: (<bytes>simdops_dtype_name(<simdops_dtype>d)).decode()
               for d in range(1, SIMDOPS_DTYPE_COUNT)}
_DTYPE_BY_NAME = {v: k for k, v in DTYPE_NAMES.items()}
# typed for the per-call lookups: one dict probe, no module-global lookup
cdef dict _dtype_by_name = _DTYPE_BY_NAME

cdef bint _LITTLE = sys.byteorder == "little"


def op_names():
    """The ops' message names by simdops_op code (what error messages start with:
    "clip", "shrink", "quantize", ...), from C's SIMDOPS_OPS."""
    return [(<bytes>simdops_op_name(op)).decode() for op in range(SIMDOPS_OP_COUNT)]


def op_members():
    """The simdops_op members by code ("SIMDOPS_OP_NONE", "SIMDOPS_OP_CLIP", ...),
    from C's SIMDOPS_OPS: what the Cython declarations of the enum must list."""
    return [(<bytes>simdops_py_op_member(op)).decode() for op in range(SIMDOPS_OP_COUNT)]


# "clip_scale_bias" -> SIMDOPS_OP_CLIP_SCALE_BIAS: every op but NONE, by its member's name
cdef dict _op_codes = {m[len("SIMDOPS_OP_"):].lower(): code
                       for code, m in enumerate(op_members()) if code}


def op_dtypes(str op):
    """Names of the dtypes a C op accepts ("clip", "clip_scale_bias", "shrink",
    "hardmax", "requant", "requant_out", "quantize_linear" (its output),
    "dequantize_linear" (its input)), from the C dtype table."""
    code = _op_codes[op]
    return tuple(name for d, name in DTYPE_NAMES.items()
                 if simdops_op_supports(code, <simdops_dtype>d))


# ---------------------------------------------------------------- errors

_EXCEPTIONS = {SIMDOPS_E_DTYPE: TypeError, SIMDOPS_E_NOMEM: MemoryError}


cdef int _raise(const simdops_error *err, str func=None) except -1:
    """Raises the exception of a failed call, with C's message. func: the public
    function called, named instead of C's op name where they differ (C names
    every requantization call "quantize")."""
    cdef char buf[1024]
    simdops_error_format(err, buf, sizeof(buf))
    message = (<bytes>buf).decode(errors="replace")
    if func is not None:
        op = (<bytes>simdops_op_name(err.op)).decode()
        if op and op != func and message.startswith(op + ": "):
            message = func + message[len(op):].replace(f"; {op} supports:", f"; {func} supports:")
    raise _EXCEPTIONS.get(err.status, ValueError)(message)


cdef object _int_text = _interop.int_text  # a huge int in a message: its size


# Argument intake for objects without the buffer protocol (_interop: Python code).
# torch.compile's Dynamo compiles every Python frame that starts while a compiled
# function runs, including _interop's when simdops.* is called there on a tensor, and
# fails inside them (DLPack's device enum is beyond it). Once torch is imported they run
# under torch.compiler.disable, so that simdops.* under torch.compile is a clean graph
# break; torch is looked up, never imported (import simdops must not import torch).
cdef object _as_input = _interop.as_input
cdef object _as_output = _interop.as_output
cdef object _as_dtype = _interop.as_dtype  # a dtype spelling (np.uint8, "i1", ...)
cdef bint _intake_disabled_for_dynamo = False
_DYNAMO_REASON = ("simdops.* is a CPU kernel call torch.compile cannot trace (a graph break); "
                  "inside compiled code use torch.ops.simdops.* (import simdops.torch)")


cdef void _disable_intake_for_dynamo() except *:
    global _as_input, _as_output, _as_dtype, _intake_disabled_for_dynamo
    torch = sys.modules.get("torch")
    disable = getattr(getattr(torch, "compiler", None), "disable", None)
    if disable is None:  # torch not imported (or still importing)
        return
    _as_input = disable(_interop.as_input, reason=_DYNAMO_REASON)
    _as_output = disable(_interop.as_output, reason=_DYNAMO_REASON)
    _as_dtype = disable(_interop.as_dtype, reason=_DYNAMO_REASON)
    _intake_disabled_for_dynamo = True


cdef inline object _intake_input(object obj, str name, bint int32=False):
    if not _intake_disabled_for_dynamo:
        _disable_intake_for_dynamo()
    return _as_input(obj, name, int32)


cdef inline object _intake_output(object obj, str name):
    if not _intake_disabled_for_dynamo:
        _disable_intake_for_dynamo()
    return _as_output(obj, name)


# ---------------------------------------------------------------- buffers

include "_core_buffers.pyx"


# ---------------------------------------------------------------- numbers

cdef simdops_number _int_number(object v):
    """A Python int exactly: int64, uint64, or (beyond 64 bits) its top 64 bits
    with a sticky bit and a binary exponent, which C rounds correctly."""
    cdef simdops_number n
    memset(&n, 0, sizeof(n))
    if -(1 << 63) <= v < (1 << 63):
        n.kind = SIMDOPS_NUM_INT
        n.i = v
    elif 0 <= v < (1 << 64):
        n.kind = SIMDOPS_NUM_UINT
        n.u = v
    else:
        a = -v if v < 0 else v
        e = a.bit_length() - 64
        n.kind = SIMDOPS_NUM_BIG
        n.negative = v < 0
        n.i = e
        n.u = (a >> e) | (1 if a & ((1 << e) - 1) else 0)
    return n


cdef object _ndarray = np.ndarray


cdef inline object _scalar_of(object v):
    """A 0-d ndarray as its numpy scalar (the exact value: a float32 array gives its
    float32, an int64 array its int), so that it is taken wherever a number is
    (xarray's apply_ufunc and numpy's broadcasting hand parameters over as 0-d arrays);
    anything else unchanged."""
    if type(v) is _ndarray and (<object>v).ndim == 0:
        return v[()]
    return v


cdef simdops_number _number(object v, str name) except *:
    """A Python number as C takes it: floats as doubles, ints exactly."""
    cdef simdops_number n
    if type(v) is float:  # the common case
        memset(&n, 0, sizeof(n))
        n.kind = SIMDOPS_NUM_FLOAT
        n.f = <double>v
        return n
    if type(v) is int:
        memset(&n, 0, sizeof(n))
        try:
            n.i = v
        except OverflowError:
            return _int_number(v)
        n.kind = SIMDOPS_NUM_INT
        return n
    v = _scalar_of(v)
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got bool")
    if isinstance(v, (int, np.integer)):
        return _int_number(int(v))
    if isinstance(v, (float, np.floating)):
        memset(&n, 0, sizeof(n))
        n.kind = SIMDOPS_NUM_FLOAT
        n.f = float(v)
        return n
    raise TypeError(f"{name} must be an int or a float, got {type(v).__name__}")


cdef simdops_number _bound(object v, str name, double none_value) except *:
    """A clip bound; None (one-sided clip) is -inf / +inf, which C saturates to an
    integer type's lowest / highest value."""
    cdef simdops_number n
    if v is None:
        memset(&n, 0, sizeof(n))
        n.kind = SIMDOPS_NUM_FLOAT
        n.f = none_value
        return n
    return _number(v, name)


cdef inline bint _is_int(object v):
    return type(v) is int or (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)))


cdef int64_t _int64(object v, str name) except? -1:
    """A Python int as int64 (C checks the range each parameter allows)."""
    cdef int64_t r
    v = _scalar_of(v)
    if type(v) is int:  # the common case, without the int() call
        try:
            r = v
            return r
        except OverflowError:
            pass  # the message below
    elif not _is_int(v):
        raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    try:
        return int(v)
    except OverflowError:
        raise ValueError(f"{name} = {_int_text(v)} is outside the int32 range (it does not "
                         f"even fit 64 bits)") from None


# ---------------------------------------------------------------- ops

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
    cdef _Buf xb = _buf(x, "x")
    cdef simdops_number lo = _bound(min, "min", -INFINITY)
    cdef simdops_number hi = _bound(max, "max", INFINITY)
    cdef simdops_number s, b
    cdef const simdops_number *sp = NULL
    cdef const simdops_number *bp = NULL
    cdef simdops_error err
    cdef int status
    if scale is not None:
        s = _number(scale, "scale")
        sp = &s
    if bias is not None:
        b = _number(bias, "bias")
        bp = &b
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    with nogil:
        status = simdops_clip(&xb.t, &ob.t, lo, hi, sp, bp, &err)
    if status:
        _raise(&err)
    return _result(ob, out)


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
    cdef _Buf xb = _buf(x, "x")
    cdef simdops_number b = _number(bias, "bias")
    cdef simdops_number t = _number(threshold, "threshold")
    cdef simdops_error err
    cdef int status
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    with nogil:
        status = simdops_shrink(&xb.t, &ob.t, b, t, &err)
    if status:
        _raise(&err)
    return _result(ob, out)


cdef int64_t _axis_value(object a) except? -1:
    if not _is_int(a):
        raise TypeError(f"hardmax: axis entries must be ints, got {type(a).__name__}")
    try:
        return int(a)
    except OverflowError:
        # beyond 64 bits is out of range for any array: C says so with the clamped value
        return INT64_MAX if a > 0 else INT64_MIN


cdef int _read_axes(object axis, int ndim, int64_t *axes) except -1:
    """axis (an int or an iterable of ints) into axes[]; reads at most ndim + 1
    entries, which is enough for C to find an out-of-range or repeated one."""
    cdef int n = 0
    if _is_int(axis):
        axes[0] = _axis_value(axis)
        return 1
    if isinstance(axis, (str, bytes, bytearray, memoryview)):  # iterable, but not of axes
        raise TypeError(f"hardmax: axis must be an int or a tuple of ints, "
                        f"got {type(axis).__name__}")
    try:
        it = iter(axis)
    except TypeError:
        raise TypeError(f"hardmax: axis must be an int or a tuple of ints, "
                        f"got {type(axis).__name__}") from None
    for a in it:
        axes[n] = _axis_value(a)
        n += 1
        if n > ndim:
            break
    return n


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
    cdef _Buf xb = _buf(x, "x")
    cdef int64_t axes[65]
    cdef int naxes = _read_axes(axis, xb.t.ndim, axes)
    cdef simdops_error err
    cdef int status
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    with nogil:
        status = simdops_hardmax(&xb.t, &ob.t, naxes, axes, &err)
    if status:
        _raise(&err)
    return _result(ob, out)


def _hardmax_unit_axis(x, *, out=None):
    """hardmax over one axis of extent 1 appended to x and out (ONNX Hardmax-1's
    coercion of x to [N, 1] at axis = ndim): every element 1, out checked by C as
    for any hardmax call (dtype, shape, layout, writable)."""
    cdef _Buf xb = _buf(x, "x")
    cdef _Buf ob = _out_buf(out, xb, xb.t.dtype)
    cdef simdops_tensor xt = xb.t, ot = ob.t
    cdef int64_t axis = xt.ndim
    cdef simdops_error err
    cdef int status
    memset(&err, 0, sizeof(err))
    err.op = SIMDOPS_OP_HARDMAX
    if out is not None and simdops_check_same_shape(&xb.t, &ob.t, xb.t.dtype, &err):
        _raise(&err)  # before the appended axis, so that the message counts x's dimensions
    if xt.ndim >= SIMDOPS_MAX_DIMS or ot.ndim >= SIMDOPS_MAX_DIMS:
        raise ValueError(f"hardmax: x has {xt.ndim} dimensions; the [N, 1] coercion at "
                         f"axis = ndim needs one more, at most {SIMDOPS_MAX_DIMS}")
    xt.shape[xt.ndim] = 1
    xt.strides[xt.ndim] = 0
    xt.ndim += 1
    ot.shape[ot.ndim] = 1
    ot.strides[ot.ndim] = 0
    ot.ndim += 1
    with nogil:
        status = simdops_hardmax(&xt, &ot, 1, &axis, &err)
    if status:
        _raise(&err)
    return _result(ob, out)


cdef _Buf _channel_array(object v, str name):
    """A per-channel int32 vector: any buffer (C checks dtype and length), or what
    x accepts (DLPack tensors, sequences of ints, which become int32: _interop)."""
    cdef _Buf b
    if type(v) is _NDARRAY:  # an int32 ndarray as it is: no dtype probes (~0.1 us each)
        b = _Buf.__new__(_Buf)
        if b.take_array(v, False) and b.t.dtype == SIMDOPS_INT32:
            return b
    if not PyObject_CheckBuffer(v):
        v = _intake_input(v, name, True)
    if (isinstance(v, np.ndarray) and v.dtype.kind in "iu" and v.dtype.isnative
            and v.dtype != np.int32):
        v = _int_array_to_int32(v, name)  # e.g. int64 multipliers whose values fit
    return _buf(v, name)


cdef str _dtype_name_of(object value, str what):
    """np.dtype(value).name; a spelling numpy cannot read is a TypeError naming what
    (the rule lives in _interop.as_dtype)."""
    if not _intake_disabled_for_dynamo:
        _disable_intake_for_dynamo()
    return _as_dtype(value, what).name


cdef simdops_dtype _requant_out_dtype(object out_dtype, str func="quantize") except *:
    code = _dtype_by_name.get(out_dtype) if type(out_dtype) is str else None
    if code is not None:
        name = out_dtype
    else:  # np.dtype() is slow: only for spellings other than the names
        name = _dtype_name_of(out_dtype, f"{func}: out_dtype")
        code = _dtype_by_name.get(name)
        if code is None:
            raise TypeError(f"{func}: out_dtype must be uint8, int8 or int16, got {name}")
    return <simdops_dtype><int>code


def quantize_down_int32(x, multiplier, shift, offset=0, *, bias=None, min=None, max=None,
                        out_dtype="uint8", rounding="double", out=None):
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
    rounding : {"double", "double_ties_up", "single"}, default "double"
        The requantization family (the user guide's "Requantization families"):
        ``"double"`` is the formula above (gemmlowp, ACL, TFLite's default build).
        ``"single"`` is TFLite's single rounding, ruy, CMSIS-NN and XNNPACK's rndnu:
        with ``t = 31 + shift`` (shift in [-30, 31]),
        ``y = clamp(floor((a*M + 2**(t-1)) / 2**t) + offset, min, max)`` computed
        exactly (no wrap). ``"double_ties_up"`` is LiteRT's optimized int8 form on x86
        (ruy's x86 paths): ``q1 = floor((wrap32(a << l)*M + 2**30) / 2**31)`` (no
        saturation), ``q = floor((q1 + 2**(r-1)) / 2**r)``, then the offset and clamp as
        for "double".
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
    return _requant(x, multiplier, shift, offset, bias, min, max,
                    _requant_out_dtype(out_dtype, "quantize_down_int32"), out,
                    _rounding_value(rounding, "quantize_down_int32"), "quantize_down_int32")


def quantize_down_int32_to_uint8(x, multiplier, shift, offset, *, bias=None, min=0, max=0,
                                 rounding="double", out=None):
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
    rounding : {"double", "double_ties_up", "single"}, default "double"
        As for ``quantize_down_int32``.
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
    return _requant(x, multiplier, shift, offset, bias, min, max, SIMDOPS_UINT8, out,
                    _rounding_value(rounding, "quantize_down_int32_to_uint8"),
                    "quantize_down_int32_to_uint8")


cdef object _requant(object x, object multiplier, object shift, object offset, object bias,
                     object min, object max, simdops_dtype od, object out, int rounding=0,
                     str func=None):
    cdef _Buf xb = _buf(x, "x", False, True)
    cdef _Buf bb = None, mb = None, sb = None
    cdef simdops_prepared prep
    cdef simdops_error err
    cdef int64_t m = 0, s = 0, lo = 0, hi = 0
    multiplier = _scalar_of(multiplier)
    shift = _scalar_of(shift)
    if _is_int(multiplier):
        m = _int64(multiplier, "multiplier")
    else:
        mb = _channel_array(multiplier, "multiplier")
    if _is_int(shift):
        s = _int64(shift, "shift")
    else:
        sb = _channel_array(shift, "shift")
    cdef int64_t off = _int64(offset, "offset")
    if min is not None:
        lo = _int64(min, "min")
    if max is not None:
        hi = _int64(max, "max")
    if simdops_prepare_requant_rounding(od, rounding, m, s, off, NULL if min is None else &lo,
                                        NULL if max is None else &hi, &prep, &err):
        _raise(&err, func)
    if bias is not None:
        bb = _channel_array(bias, "bias")
    cdef _Buf ob = _out_buf(out, xb, od)
    _run_requant(&prep, xb, ob, bb, mb, sb, func)
    return _result(ob, out)


cdef object _run_requant(const simdops_prepared *prep, _Buf xb, _Buf ob, _Buf bb, _Buf mb,
                         _Buf sb, str func=None):
    """The prepared requant of xb into ob (per-channel vectors None or buffers)."""
    cdef simdops_error err
    cdef int status
    with nogil:
        status = simdops_requant_prepared(prep, &xb.t, &ob.t,
                                          NULL if bb is None else &bb.t,
                                          NULL if mb is None else &mb.t,
                                          NULL if sb is None else &sb.t, &err)
    if status:
        _raise(&err, func)
    return ob.obj


# Fragments included here (files named .pyx so that the sdist ships them; they
# are not modules of their own).
include "_core_requant.pyx"
include "_core_isa.pyx"
include "_core_rules.pyx"
include "_core_strided.pyx"
include "_core_dml.pyx"
include "_core_capi.pyx"
include "_core_threads.pyx"
include "_core_onnx.pyx"
include "_core_int8mm.pyx"
include "_core_qbinary.pyx"
