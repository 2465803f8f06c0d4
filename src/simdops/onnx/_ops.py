"""The ONNX profile's array functions: thin translations onto the C entry points."""
import numpy as np

from simdops import _core

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


quantize_linear = _core.quantize_linear
dequantize_linear = _core.dequantize_linear
