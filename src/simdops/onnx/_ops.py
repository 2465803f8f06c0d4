"""The ONNX profile's array functions: thin translations onto the C entry points."""
import numpy as np

from simdops import _core
from simdops.onnx import _lowbit

# the opsets whose Hardmax coerces the input to 2-D at `axis` (reduces every axis from it)
_COERCING_HARDMAX_OPSETS = (1, 11)


def clip(x, min=None, max=None, *, out=None):
    """ONNX Clip (opsets 6-13+): ``y = min(max(x, min), max)`` as ``numpy.clip``.

    Unlike ``simdops.clip`` (DirectML): ``min > max`` gives ``max``; an absent
    (``None``) bound is no bound, so +-inf stay +-inf; a NaN bound gives that NaN for
    every non-NaN element; where an element equals a bound the bound is returned (so
    ``clip(-0.0, 0.0, ...)`` is ``+0.0``). A NaN element stays itself.

    Parameters
    ----------
    x : array-like
        float32, float16, float64 or any 8/16/32/64-bit integer.
    min, max : number, 0-d array, or None
        The bounds, converted to x's dtype (floats round to nearest even, integer types
        truncate toward zero and saturate).
    out : writable buffer, optional
        x's shape and dtype; may be x.

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``
    """
    return _core.onnx_clip(x, min, max, out=out)


def shrink(x, bias=0.0, lambd=0.5, *, out=None):
    """ONNX Shrink: ``x + bias`` if ``x < -lambd``, ``x - bias`` if ``x > lambd``, else 0.

    ``bias`` and ``lambd`` are float32 attributes (rounded to float32 first). Each type
    is computed as the reference's numpy computes it: float16 and 8/16-bit integers in
    float32, float32 in float32, float64 and 32/64-bit integers in float64; integer
    results truncate toward zero and saturate to the type (the reference leaves values
    outside the type undefined). NaN gives 0 (DirectML's shrink keeps NaN).

    Parameters
    ----------
    x : array-like
        Any ONNX numeric type simdops has: float16/32/64, 8/16/32/64-bit integers.
    bias, lambd : float
        lambd may be negative (ONNX does not forbid it); a NaN lambd compares false
        (every element 0, as the reference gives). A NaN bias is a ValueError.
    out : writable buffer, optional
        x's shape and dtype; may be x.
    """
    return _core.onnx_shrink(x, bias, lambd, out=out)


def hardmax(x, axis=None, *, opset=13, out=None):
    """ONNX Hardmax: 1 at the first maximum, 0 elsewhere (NaN is the maximum).

    opset 13 (and later): one axis, default -1. Opsets 1 and 11: the input is coerced to
    2-D at ``axis`` (default 1), so every axis from ``axis`` on is reduced together, as
    the operator text says (``onnx.reference`` reduces ``axis`` alone there; the text
    wins). float16, float32, float64.

    Parameters
    ----------
    x : array-like
    axis : int, optional
    opset : int
        The Hardmax version the node uses (1, 11, 13 or later).
    out : writable buffer, optional
    """
    if isinstance(opset, bool) or not isinstance(opset, int) or opset < 1:
        raise ValueError(f"hardmax: opset must be a positive int, got {opset!r}")
    if opset >= 13:
        return _core.hardmax(x, -1 if axis is None else axis, out=out)
    if not (isinstance(axis, int) or axis is None) or isinstance(axis, bool):
        raise TypeError(f"hardmax: axis must be an int, got {type(axis).__name__}")
    ndim = x.ndim if hasattr(x, "ndim") else np.ndim(x)
    a = 1 if axis is None else axis
    # opset 11 states [-r, r-1]; opset 1 states no range, and axis = r is the [N, 1] coercion
    top = ndim if opset < 11 else ndim - 1
    if a < -ndim or a > top:
        raise ValueError(f"hardmax: axis {a} is out of range for an array with {ndim} "
                         f"dimensions (opset {opset} accepts [-{ndim}, {top}])")
    a = a + ndim if a < 0 else a
    if a == ndim:  # coerced to [N, 1]: every element is its row's maximum
        return _core._hardmax_unit_axis(x, out=out)
    return _core.hardmax(x, tuple(range(a, ndim)), out=out)


# dtypes only the low-bit path (simdops_*_linear_ex) takes
_LOWBIT_NAMES = frozenset(_lowbit._QTYPES) - {"float32", "float16", "uint8", "int8", "uint16",
                                              "int16", "int32"}
_OLD_OUTPUTS = frozenset({"uint8", "int8", "uint16", "int16"})


def _lowbit_dtype(v):
    dt = getattr(v, "dtype", None)
    return isinstance(dt, np.dtype) and _lowbit.dtype_name(dt) in _LOWBIT_NAMES


def _needs_lowbit(x, scale, zp, block_size, precision, packed, extra=False):
    return bool(extra or block_size or precision is not None or packed or _lowbit_dtype(x)
                or _lowbit_dtype(scale) or _lowbit_dtype(zp))


def _into(y, out):
    if out is None or y is out:      # none, or the kernels wrote it directly
        return y
    o = np.asarray(out)
    if o.shape != y.shape or o.dtype != y.dtype:
        raise ValueError(f"out must have shape {y.shape} and dtype {y.dtype}, got "
                         f"{o.shape} {o.dtype}")
    np.copyto(out, y)
    return out


def quantize_linear(x, y_scale, y_zero_point=None, *, axis=1, block_size=0, saturate=1,
                    output_dtype=None, precision=None, packed=False, out=None):
    """ONNX QuantizeLinear: ``y = saturate(round(x / y_scale) + y_zero_point)``, bit-exact
    with ``onnx.reference`` for every output type of opsets 10-25 (docs/onnx.md).

    Parameters
    ----------
    x : array-like
        float32, float16 or bfloat16 (``ml_dtypes.bfloat16``), any shape and strides.
    y_scale : array-like or float
        float32, float16, bfloat16 or float8e8m0 (``ml_dtypes.float8_e8m0fnu``):
        a scalar / one element (per tensor), 1-D of x's extent on ``axis`` (per
        axis), or x's shape with ``ceil(D / block_size)`` on ``axis`` (blocked).
        The division runs in numpy's result type of x and the scale (float16 /
        float16 and bfloat16 / bfloat16 divide in that type), or in ``precision``.
    y_zero_point : array-like or int, optional
        The scale's shape; its dtype is the output type: uint8, int8, uint16, int16,
        or an ``ml_dtypes`` type: int4, uint4, int2, uint2, float8_e4m3fn,
        float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float4_e2m1fn. With
        ``packed=True`` and a 4/2-bit output, a uint8 zero point is packed.
    axis : int
        The per-axis / blocked dimension.
    block_size : int
        0: per tensor or per axis; > 0: blocked quantization (the last block may be short).
    saturate : int
        float8 outputs: 1 saturates to the largest finite value, 0 overflows to inf
        (e5m2) or NaN (the others). Other types ignore it.
    output_dtype : dtype, ml_dtypes type, name or ONNX TensorProto code, optional
        The output type when no zero point gives it (default uint8).
    precision : dtype, name or ONNX code, optional
        The division's type (float32, float16, bfloat16): x and the scale are
        converted to it first.
    packed : bool
        4/2-bit outputs (int4, uint4, int2, uint2, float4e2m1): return the packed
        uint8 buffer (two / four elements a byte, low bits first; a flat array
        of ``ceil(x.size * bits / 8)`` bytes) instead of an ``ml_dtypes`` array.
    out : writable array, optional
        The result's shape and dtype.
    """
    if (type(out) is np.ndarray and y_zero_point is None and not block_size and precision is None
            and packed is False):
        done = _lowbit.quantize_into(x, y_scale, output_dtype, saturate, axis, out)
        if done is not None:
            return done
    if not _needs_lowbit(x, y_scale, y_zero_point, block_size, precision, packed,
                         saturate != 1 or (output_dtype is not None and
                                           _lowbit.type_name(output_dtype, "output_dtype")
                                           not in _OLD_OUTPUTS)):
        if output_dtype is not None and out is None and y_zero_point is None:
            out = np.empty(np.shape(x), _lowbit._np_dtype(_lowbit.type_name(output_dtype,
                                                                               "output_dtype")))
        return _core.quantize_linear(x, y_scale, y_zero_point, axis=axis, out=out)
    return _into(_lowbit.quantize_linear(x, y_scale, y_zero_point, axis=axis,
                                         block_size=block_size, saturate=saturate,
                                         output_dtype=output_dtype, precision=precision,
                                         packed=packed, out=out), out)


# simdops.onnx.quantize_linear: its common call checked in C-level tests and sent straight
# to _core.quantize_linear (where quantize_linear above sends it), the rest to the above
fast_quantize_linear = _core.onnx_quantize_linear
fast_quantize_linear.__doc__ = quantize_linear.__doc__
_core._set_onnx_quantize_general(quantize_linear)


def dequantize_linear(x, x_scale, x_zero_point=None, *, axis=1, block_size=0,
                      output_dtype=None, packed=None, shape=None, out=None):
    """ONNX DequantizeLinear: ``y = (x - x_zero_point) * x_scale``, bit-exact with
    ``onnx.reference`` for every input type of opsets 10-25 (docs/onnx.md).

    Parameters
    ----------
    x : array-like
        uint8, int8, uint16, int16, int32, or an ``ml_dtypes`` array: int4, uint4,
        int2, uint2, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,
        float4_e2m1fn; or, with ``packed``, a packed uint8 buffer.
    x_scale : array-like or float
        float32, float16, bfloat16 or float8e8m0, laid out as for quantize_linear.
    x_zero_point : array-like or int, optional
        x's type (float8: only zeros; float4: unused, as onnx.reference).
    axis, block_size : int
        As quantize_linear.
    output_dtype : dtype, name or ONNX code, optional
        float32, float16 or bfloat16; default the scale's type (a float8e8m0
        scale needs it).
    packed : ml_dtypes type or name, optional
        x is a packed uint8 buffer of this 4/2-bit type (two / four elements a
        byte, low bits first) holding ``shape``; a uint8 zero point is then
        packed too (the scale's shape).
    shape : tuple of int
        With ``packed``: the elements' shape.
    out : writable array, optional
    """
    if (type(out) is np.ndarray and x_zero_point is None and not block_size and packed is None
            and output_dtype is None):
        done = _lowbit.dequantize_into(x, x_scale, axis, out)
        if done is not None:
            return done
    if not _needs_lowbit(x, x_scale, x_zero_point, block_size, None, packed is not None,
                         output_dtype is not None and
                         _lowbit.type_name(output_dtype, "output_dtype") == "bfloat16"):
        if output_dtype is not None and out is None:
            out = np.empty(np.shape(x), _lowbit._np_dtype(_lowbit.type_name(output_dtype,
                                                                               "output_dtype")))
        return _core.dequantize_linear(x, x_scale, x_zero_point, axis=axis, out=out)
    return _into(_lowbit.dequantize_linear(x, x_scale, x_zero_point, axis=axis,
                                           block_size=block_size, output_dtype=output_dtype,
                                           packed=packed, shape=shape, out=out), out)
