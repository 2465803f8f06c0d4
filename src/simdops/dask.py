"""simdops on Dask arrays: the same ops, lazily, block by block.

Install with ``pip install "simdops[dask]"`` (dask[array]; add ``distributed``
to run on a cluster). Every function here builds a lazy ``dask.array.Array``
whose blocks are computed by the matching ``simdops`` function, so results are
bit-identical to calling ``simdops`` on the whole numpy array, whatever the
chunking, scheduler or worker CPU.

How each op maps onto blocks:

- ``clip`` and ``shrink`` are elementwise: one task per block, same chunks.
- ``hardmax`` needs whole rows along the reduced axes: those axes (and only
  those) are rechunked to a single chunk first; every other axis keeps its
  chunks.
- ``quantize_down_int32`` / ``quantize_down_int32_to_uint8``: per-tensor
  parameters go to every block; per-channel ``multiplier`` / ``shift`` /
  ``bias`` vectors become dask arrays chunked like the input's last axis, so
  each block receives exactly its channels.

Parameters are checked when the graph is built, by running the simdops op
once on a one-element (or one-row) stand-in of the input's dtype: a bad
parameter raises there, with simdops' own exception type and message, not
later on a worker. Output dtype and chunks are declared (``meta`` given), so
dask never calls a kernel to infer them. Per-channel vectors given as dask
arrays are only checked for dtype and shape at build time; their values are
checked when the blocks run.

Dask arrays are immutable, so there is no ``out=`` argument. Inputs that are
not dask arrays are wrapped with ``dask.array.asarray`` (one chunk).
"""
import itertools

import numpy as np

try:
    import dask.array as da
except ImportError as exc:  # pragma: no cover - exercised only without dask
    raise ImportError("simdops.dask needs dask[array]: pip install 'simdops[dask]'") from exc

import simdops
from simdops import _core, _interop

__all__ = ["clip", "shrink", "hardmax", "quantize_down_int32_to_uint8", "quantize_down_int32",
           "requantize_fp32", "quantized_add", "quantized_subtract", "quantized_multiply"]


# ------------------------------------------------------------------ helpers

def _as_dask(x):
    return x if isinstance(x, da.Array) else da.asarray(x)


def _stand_in(x, shape=None):
    """A read-only array of x's dtype and the given shape (default: all ones
    with x's ndim) that costs one element of memory (zero strides): enough to
    make simdops validate dtype and parameters exactly as for the real blocks."""
    if shape is None:
        shape = (1,) * x.ndim
    return np.broadcast_to(np.zeros((), dtype=x.dtype), shape)


def _meta(ndim, dtype):
    return np.empty((0,) * ndim, dtype=dtype)


def _as_ndarray(result):
    # a block is always an ndarray, also where simdops would give a numpy scalar
    return np.asarray(result)


# ------------------------------------------------------------- elementwise

def _clip_block(block, lo, hi, scale, bias):
    return _as_ndarray(simdops.clip(block, lo, hi, scale=scale, bias=bias))


def _shrink_block(block, bias, threshold):
    return _as_ndarray(simdops.shrink(block, bias, threshold))


def clip(x, min, max, *, scale=None, bias=None):
    """Lazy ``simdops.clip`` on a dask array: ``y = max(min', min(g(x), max'))``.

    Parameters
    ----------
    x : dask.array.Array
        Input of any simdops clip dtype (float16/32/64, 8..64-bit integers),
        any shape and chunking. Other array-likes are wrapped with
        ``dask.array.asarray``.
    min, max : int, float or None
        Bounds, converted to x's dtype as ``simdops.clip`` does. ``None``
        means the dtype's lowest / highest value (one-sided clip), where the
        installed ``simdops.clip`` supports it.
    scale, bias : float, optional
        DirectML ScaleBias: ``g(x) = x*scale + bias`` (float32 parameters).

    Returns
    -------
    dask.array.Array
        Same shape, chunks and dtype as x; nothing is computed yet.

    Raises
    ------
    TypeError
        Unsupported dtype or parameter type (from simdops, at call time).
    ValueError
        Bad parameter, e.g. a NaN bound or ScaleBias on 64-bit integers
        (from simdops, at call time).

    Examples
    --------
    >>> import dask.array as da, simdops.dask as sd
    >>> x = da.arange(-4, 4, chunks=3, dtype="float32")
    >>> sd.clip(x, -1.0, 2.0).compute()
    array([-1., -1., -1., -1.,  0.,  1.,  2.,  2.], dtype=float32)
    """
    x = _as_dask(x)
    probe = simdops.clip(_stand_in(x), min, max, scale=scale, bias=bias)
    return x.map_blocks(_clip_block, min, max, scale, bias, token="simdops-clip",
                        dtype=probe.dtype, meta=_meta(x.ndim, probe.dtype))


def shrink(x, bias=0.0, threshold=0.5):
    """Lazy ``simdops.shrink`` on a dask array.

    ``y = x - bias if x > threshold; x + bias if x < -threshold; 0 otherwise``
    (NaN stays NaN).

    Parameters
    ----------
    x : dask.array.Array
        Input of any simdops shrink dtype (floats, 8..32-bit integers).
    bias : int or float, default 0.0
    threshold : int or float, default 0.5
        Must be >= 0.

    Returns
    -------
    dask.array.Array
        Same shape, chunks and dtype as x; nothing is computed yet.

    Raises
    ------
    TypeError
        Unsupported dtype or parameter type (at call time).
    ValueError
        Negative or NaN threshold, NaN bias (at call time).

    Examples
    --------
    >>> import dask.array as da, simdops.dask as sd
    >>> x = da.from_array([-2.0, -0.25, 0.25, 2.0], chunks=2)
    >>> sd.shrink(x, bias=0.5, threshold=1.0).compute()
    array([-1.5,  0. ,  0. ,  1.5])
    """
    x = _as_dask(x)
    probe = simdops.shrink(_stand_in(x), bias, threshold)
    return x.map_blocks(_shrink_block, bias, threshold, token="simdops-shrink",
                        dtype=probe.dtype, meta=_meta(x.ndim, probe.dtype))


# ------------------------------------------------------------------ hardmax

def _hardmax_block(block, axes):
    return _as_ndarray(simdops.hardmax(block, axis=axes))


def _reduced_axes(x, axis):
    """The axes hardmax reduces, as sorted non-negative ints: simdops itself
    accepts `axis` for an array of x's ndim and dtype (its errors), then C
    normalises it (_core.reduced_axes, the rule simdops.hardmax applies). An
    iterable `axis` is read at most x.ndim + 1 entries far (enough for simdops
    to see a repeat), so an endless generator fails instead of hanging."""
    try:
        entries = iter(axis)
    except TypeError:  # a single axis (or a bad type: simdops raises below)
        axes = axis
    else:
        axes = tuple(itertools.islice(entries, x.ndim + 1))
    simdops.hardmax(_stand_in(x), axis=axes)
    return _core.reduced_axes(x.ndim, axes)


def hardmax(x, axis=-1):
    """Lazy ``simdops.hardmax`` on a dask array: 1 at the first maximum along
    the reduced axes, 0 elsewhere (NaN counts as the maximum).

    The reduced axes are rechunked to a single chunk each (a block must hold
    whole rows); every other axis keeps its chunks. Choose the other axes'
    chunks so that one block still fits a worker's memory.

    Parameters
    ----------
    x : dask.array.Array
        float16, float32 or float64 input.
    axis : int or tuple of ints, default -1
        Reduced axes (several axes: flattened row-major, as simdops.hardmax).

    Returns
    -------
    dask.array.Array
        Same shape and dtype as x, chunked like x except single chunks along
        the reduced axes; nothing is computed yet.

    Raises
    ------
    TypeError
        Unsupported dtype, or axis not an int / tuple of ints (at call time).
    ValueError
        Axis out of range, repeated or empty (at call time).

    Examples
    --------
    >>> import dask.array as da, simdops.dask as sd
    >>> x = da.from_array([[1.0, 3.0, 3.0], [5.0, 4.0, 0.0]], chunks=(1, 2))
    >>> sd.hardmax(x, axis=1).compute()
    array([[0., 1., 0.],
           [1., 0., 0.]])
    """
    x = _as_dask(x)
    axes = _reduced_axes(x, axis)
    whole = x.rechunk({a: -1 for a in axes}) if axes else x
    return whole.map_blocks(_hardmax_block, axes, token="simdops-hardmax",
                            dtype=x.dtype, meta=_meta(x.ndim, x.dtype))


# ------------------------------------------------------------------ requant

def _requant_block(block, multiplier, shift, bias, *, offset, min, max, out_dtype, as_list,
                   rounding="double"):
    # per-channel vectors arrive as this block's slice; those the caller gave
    # as plain sequences go back to simdops as lists, so it converts them itself
    multiplier, shift, bias = (v.tolist() if listed else v
                               for v, listed in zip((multiplier, shift, bias), as_list))
    return _as_ndarray(simdops.quantize_down_int32(
        block, multiplier, shift, offset, bias=bias, min=min, max=max, out_dtype=out_dtype,
        rounding=rounding))


def _requant_fp_block(block, scale, bias, *, offset, min, max, out_dtype, as_list, precision,
                      ties, chain):
    scale, bias = (v.tolist() if listed else v for v, listed in zip((scale, bias), as_list))
    return _as_ndarray(simdops.requantize_fp32(
        block, scale, offset, bias=bias, min=min, max=max, out_dtype=out_dtype,
        precision=precision, ties=ties, **chain))


def _dlpack_as_array(v, name):
    """A per-channel vector given as a DLPack tensor (torch, an object with only
    __dlpack__) read as the numpy API reads it (a torch view's negative bit
    applied); anything else unchanged."""
    if v is None or isinstance(v, (da.Array, np.ndarray)) or not hasattr(v, "__dlpack__"):
        return v
    return _interop.as_input(v, name)


def _is_per_channel(v):
    return isinstance(v, da.Array) or (v is not None and np.ndim(v) != 0)


def _stand_in_vector(v):
    """What simdops sees at build time for one per-channel argument: the
    values themselves, or for a dask array a zero vector of its dtype/shape."""
    if isinstance(v, da.Array):
        if any(np.isnan(s) for s in v.shape):
            raise ValueError("simdops.dask: per-channel vectors need known lengths; "
                             "call compute_chunk_sizes() first")
        return np.broadcast_to(np.zeros((), dtype=v.dtype), v.shape)
    return v


def _channel_blocks(v, channel_chunks):
    """A per-channel argument as a 1-D dask array chunked like x's last axis."""
    if isinstance(v, da.Array):
        return v.rechunk((channel_chunks,))
    arr = np.asarray(v)
    return da.from_array(arr, chunks=(channel_chunks,), name=False)


def _as_int32_input(x):
    """Plain Python ints are int32 here, as for the eager requantization functions
    (dask alone would make them int64); a value beyond int32 is refused now."""
    if not isinstance(x, da.Array) and not hasattr(x, "dtype"):
        return _interop.as_input(x, "x", int32=True)
    return x


def quantize_down_int32(x, multiplier, shift, offset=0, *, bias=None, min=None, max=None,
                        out_dtype="uint8", rounding="double"):
    """Lazy ``simdops.quantize_down_int32`` (ACL's fixed-point output stage,
    int32 -> uint8 / int8 / int16) on a dask array.

    Parameters
    ----------
    x : dask.array.Array
        int32 input, any shape and chunking.
    multiplier, shift : int, or 1-D int32 vector of length x.shape[-1]
        Per tensor (int) or per channel along the last axis. A vector may be
        a numpy array, a sequence of ints or a 1-D dask array; it is chunked
        like x's last axis so each block gets its own channels.
    offset : int, default 0
        Added after the shift (must be 0 for int16 output).
    bias : 1-D int32 vector of length x.shape[-1], optional
        Added to x before scaling (numpy, sequence or dask array).
    min, max : int, optional
        Bounded-ReLU clamp, as ``simdops.quantize_down_int32``.
    out_dtype : "uint8", "int8" or "int16", default "uint8"
    rounding : "double", "double_ties_up" or "single", default "double"
        The requantization family, as ``simdops.quantize_down_int32``.

    Returns
    -------
    dask.array.Array
        x's shape and chunks, dtype out_dtype; nothing is computed yet.

    Raises
    ------
    TypeError
        x not int32, bad out_dtype, or parameters of the wrong type (at call
        time).
    ValueError
        shift out of [-31, 31], min/max out of range, vector length not
        x.shape[-1], ... (at call time; the values of dask-array vectors are
        checked when the blocks run).

    Examples
    --------
    >>> import dask.array as da, simdops.dask as sd
    >>> acc = da.from_array([[-100, 0, 100, 1000]], chunks=(1, 2)).astype("int32")
    >>> sd.quantize_down_int32(acc, 1 << 30, 1, 10, out_dtype="int8").compute()
    array([[-15,  10,  35, 127]], dtype=int8)
    """
    return _quantize_down(x, multiplier, shift, offset, bias, min, max, out_dtype, rounding,
                          simdops.quantize_down_int32)


def _quantize_down(x, multiplier, shift, offset, bias, min, max, out_dtype, rounding, eager):
    """quantize_down_int32 and _to_uint8: eager is the simdops function the call
    stands for, which checks the parameters (its messages name it)."""
    x = _as_dask(_as_int32_input(x))
    multiplier, shift, bias = (_dlpack_as_array(v, name) for v, name in
                               ((multiplier, "multiplier"), (shift, "shift"), (bias, "bias")))
    if eager is simdops.quantize_down_int32:
        def probe(sx, m, s, b):
            return eager(sx, m, s, offset, bias=b, min=min, max=max, out_dtype=out_dtype,
                         rounding=rounding)
    else:
        def probe(sx, m, s, b):
            return eager(sx, m, s, offset, bias=b, min=min, max=max, rounding=rounding)
    return _lazy_requant(x, _requant_block, (multiplier, shift, bias), probe,
                         dict(offset=offset, min=min, max=max, rounding=rounding))


def requantize_fp32(x, scale, zero_point=0, *, bias=None, min=None, max=None, out_dtype="uint8",
                    precision="float32", ties="even", pre_scale=None, post_scale=None,
                    post_divide=None, offset=None, bias_at="input"):
    """Lazy ``simdops.requantize_fp32`` (the float requantization of ONNX Runtime, XNNPACK,
    fbgemm, oneDNN, OpenVINO, LiteRT's reference FULLY_CONNECTED, ncnn) on a dask array.

    Parameters
    ----------
    x : dask.array.Array
        int32 input, any shape and chunking.
    scale : float, or 1-D float32 (float64 under precision="float64") vector of length
        x.shape[-1]
        Per tensor, or per channel along the last axis (numpy or dask array).
    zero_point : int, default 0
    bias : 1-D int32 or float32 vector of length x.shape[-1], optional
    min, max : int, optional
    out_dtype : "uint8", "int8" or "int16", default "uint8"
    precision : "float32" or "float64", default "float32"
    ties : "even", "away" or "add_half", default "even"
    pre_scale, post_scale, post_divide, offset : float, optional
    bias_at : "input" or "scaled", default "input"
        The chain's steps, as ``simdops.requantize_fp32``.

    Returns
    -------
    dask.array.Array
        x's shape and chunks, dtype out_dtype; nothing is computed yet.

    Raises
    ------
    TypeError, ValueError
        As ``simdops.requantize_fp32``, at call time (the values of dask-array vectors
        when the blocks run).

    Examples
    --------
    >>> import dask.array as da, simdops.dask as sd
    >>> acc = da.from_array([-300, 5, 25, 1000], chunks=2).astype("int32")
    >>> sd.requantize_fp32(acc, 0.1, 128).compute()
    array([ 98, 128, 130, 228], dtype=uint8)
    """
    x = _as_dask(_as_int32_input(x))
    scale, bias = _dlpack_as_array(scale, "scale"), _dlpack_as_array(bias, "bias")
    # the chain's steps as given (None: absent), passed on unchanged
    chain = {k: v for k, v in (("pre_scale", pre_scale), ("post_scale", post_scale),
                               ("post_divide", post_divide), ("offset", offset))
             if v is not None}
    chain["bias_at"] = bias_at
    return _lazy_requant(
        x, _requant_fp_block, (scale, bias),
        lambda sx, sc, b: simdops.requantize_fp32(sx, sc, zero_point, bias=b, min=min, max=max,
                                                  out_dtype=out_dtype, precision=precision,
                                                  ties=ties, **chain),
        dict(offset=zero_point, min=min, max=max, precision=precision, ties=ties, chain=chain))


def _lazy_requant(x, block_fn, params, probe_fn, extra):
    """block_fn over x's blocks with params (per tensor, or per-channel vectors chunked
    like x's last axis), after probe_fn checked them on a one-element stand-in."""
    per_channel = [_is_per_channel(v) for v in params]
    if any(per_channel) and x.ndim and np.isnan(x.shape[-1]):
        raise ValueError("simdops.dask: per-channel parameters need x's last-axis chunk "
                         "sizes; call x.compute_chunk_sizes() first")
    shape = (1,) * (x.ndim - 1) + (x.shape[-1],) if any(per_channel) and x.ndim else None
    probe = probe_fn(_stand_in(x, shape), *(_stand_in_vector(v) for v in params))
    out = probe.dtype
    kwargs = dict(extra, out_dtype=out.name, token="simdops-quantize", dtype=out,
                  meta=_meta(x.ndim, out))
    if not any(per_channel):
        return x.map_blocks(block_fn, *params, as_list=(False,) * len(params), **kwargs)
    # blockwise: x indexed by all its axes, each vector by the last one only
    index = tuple(range(x.ndim))
    args = [x, index]
    as_list = []
    for v, vector in zip(params, per_channel):
        if vector:
            args += [_channel_blocks(v, x.chunks[-1]), index[-1:]]
        else:
            args += [v, None]
        as_list.append(vector and not isinstance(v, da.Array) and not _has_buffer(v))
    return da.blockwise(block_fn, index, *args, as_list=tuple(as_list), **kwargs)


def _has_buffer(v):
    try:
        memoryview(v)
    except TypeError:
        return False
    return True


def quantize_down_int32_to_uint8(x, multiplier, shift, offset, *, bias=None, min=0, max=0,
                                 rounding="double"):
    """Lazy ACL 18.03 ``GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint`` on
    a dask array (``simdops.quantize_down_int32_to_uint8`` per block).

    Parameters
    ----------
    x : dask.array.Array
        int32 input.
    multiplier, shift : int or 1-D int32 vector of length x.shape[-1]
        Fixed-point multiplier and shift, per tensor or per channel (numpy,
        sequence or dask array).
    offset : int
        result_offset_after_shift.
    bias : 1-D int32 vector of length x.shape[-1], optional
    min, max : int, default 0
        Bounded ReLU in [0, 255]; min == max disables it (ACL).
    rounding : "double", "double_ties_up" or "single", default "double"

    Returns
    -------
    dask.array.Array
        uint8, x's shape and chunks; nothing is computed yet.

    Raises
    ------
    TypeError, ValueError
        As ``quantize_down_int32``, at call time.

    Examples
    --------
    >>> import dask.array as da, simdops.dask as sd
    >>> acc = da.from_array([-100, 0, 100, 1000], chunks=2).astype("int32")
    >>> sd.quantize_down_int32_to_uint8(acc, 1 << 30, 1, 10).compute()
    array([  0,  10,  35, 255], dtype=uint8)
    """
    return _quantize_down(x, multiplier, shift, offset, bias, min, max, "uint8", rounding,
                          simdops.quantize_down_int32_to_uint8)


# ------------------------------------------------------------- quantized add / subtract / multiply

def _qbinary_block(a, b, *, op, qparams, arithmetic, min, max):
    f = getattr(simdops, "quantized_" + op)
    return _as_ndarray(f(a, qparams[0], qparams[1], b, qparams[2], qparams[3], qparams[4],
                         qparams[5], arithmetic=arithmetic, min=min, max=max))


def _qbinary(op, a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
             arithmetic, min, max):
    a, b = _as_dask(a), _as_dask(b)
    qparams = (a_scale, a_zero_point, b_scale, b_zero_point, y_scale, y_zero_point)
    # simdops checks dtypes and parameters now, on one-element stand-ins
    probe = getattr(simdops, "quantized_" + op)(
        _stand_in(a), a_scale, a_zero_point, _stand_in(b), b_scale, b_zero_point, y_scale,
        y_zero_point, arithmetic=arithmetic, min=min, max=max)
    dtype = np.asarray(probe).dtype
    max_ndim = a.ndim if a.ndim >= b.ndim else b.ndim
    return da.map_blocks(_qbinary_block, a, b, op=op, qparams=qparams, arithmetic=arithmetic,
                         min=min, max=max, token=f"simdops-quantized-{op}", dtype=dtype,
                         meta=_meta(max_ndim, dtype)) if max_ndim else \
        da.from_array(np.asarray(_qbinary_block(a.compute(), b.compute(), op=op, qparams=qparams,
                                                arithmetic=arithmetic, min=min, max=max)))


def quantized_add(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *,
                  arithmetic="tflite", min=None, max=None):
    """Lazy ``simdops.quantized_add`` on dask arrays, broadcast as numpy does (dask
    aligns the chunks; a block of each input has the broadcast extents of the whole,
    so every element gets the same bits as one ``simdops.quantized_add`` call)."""
    return _qbinary("add", a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                    y_zero_point, arithmetic, min, max)


def quantized_subtract(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                       y_zero_point, *, arithmetic="tflite", min=None, max=None):
    """Lazy ``simdops.quantized_subtract`` on dask arrays (see :func:`quantized_add`)."""
    return _qbinary("subtract", a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                    y_zero_point, arithmetic, min, max)


def quantized_multiply(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                       y_zero_point, *, arithmetic="tflite", min=None, max=None):
    """Lazy ``simdops.quantized_multiply`` on dask arrays (see :func:`quantized_add`)."""
    return _qbinary("multiply", a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                    y_zero_point, arithmetic, min, max)
