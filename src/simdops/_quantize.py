"""quantize_multiplier: a positive real scale -> (multiplier, shift) for quantize_down_int32.

Three runtimes derive the fixed-point pair differently; every convention here returns the
pair in the one sign convention ``quantize_down_int32`` takes:
``scale ~= multiplier * 2**-31 * 2**-shift`` (``shift > 0`` shifts right).

- ``"acl"``: Arm Compute Library's ``calculate_quantized_multiplier`` (also gemmlowp's):
  frexp of the double, the mantissa times 2**31 rounded to nearest with ties away from
  zero, a mantissa that rounds up to 2**31 renormalised. ``shift`` in [-31, 31], else
  ValueError.
- ``"tflite"``: TFLite/LiteRT ``QuantizeMultiplier`` (quantization_util.cc): the same
  rounding, but a scale whose shift would exceed 31 (below about 2**-32) is flushed to
  ``(0, 0)`` (the layer's output is then the zero point). TFLite itself stores the shift
  with the opposite sign (a left-shift exponent): ``tflite_shift == -shift``.
- ``"xnnpack"``: XNNPACK's rndnu derivation (microparams-init.c): the scale is first
  rounded to float32, its 24-bit significand is the multiplier and ``150 - biased
  exponent`` the total right shift ``t`` of ``(x*M + 2**(t-1)) >> t``. Returned here
  scaled by 2**7 (``M << 7``, ``shift = t - 24``), which gives the same integer results
  for every input and keeps ``shift`` in [-8, 31]; XNNPACK accepts scales in
  [2**-32, 256) only, so does this convention.
"""
import numbers

import numpy as np

from simdops._interop import int_text

CONVENTIONS = ("acl", "tflite", "xnnpack")


def _acl_like(values):
    """frexp, round half away, renormalise: (multiplier, shift) as int64 arrays."""
    mantissa, exponent = np.frexp(values)        # exact: values = mantissa * 2**exponent
    scaled = mantissa * float(1 << 31)           # exact: a power-of-two scaling
    whole = np.floor(scaled)
    multiplier = whole.astype(np.int64) + (scaled - whole >= 0.5)   # scaled > 0: away from zero
    carry = multiplier == (1 << 31)
    multiplier = np.where(carry, multiplier // 2, multiplier)
    shift = -(exponent.astype(np.int64) + carry)
    return multiplier, shift


def _xnnpack(values):
    """XNNPACK rndnu: float32 significand and exponent, as (M << 7, t - 24)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.int64)
    multiplier = ((bits & 0x007FFFFF) | 0x00800000) << 7
    shift = (127 + 23 - (bits >> 23)) - 24
    return multiplier, shift


def _scales_array(scale):
    """scale as a float64 array, or TypeError naming the argument."""
    if isinstance(scale, (bool, np.bool_)):
        raise TypeError("scale must be a real number or an array of them, got bool")
    if isinstance(scale, numbers.Real):
        try:
            return np.asarray(float(scale), dtype=np.float64)
        except OverflowError:  # an int beyond float's range
            raise ValueError(f"scale = {int_text(scale)} is too large") from None
    if isinstance(scale, (str, bytes)) or scale is None:
        raise TypeError(f"scale must be a real number or an array of them, "
                        f"got {type(scale).__name__}")
    try:
        array = np.asarray(scale)
    except (TypeError, ValueError) as error:
        raise TypeError(f"scale must be a real number or an array of them: {error}") from None
    if array.dtype.kind not in "iuf":
        raise TypeError(f"scale must hold real numbers, got dtype {array.dtype}")
    try:
        return array.astype(np.float64)
    except OverflowError:  # pragma: no cover - numpy ints always fit a float64
        raise ValueError("scale is too large") from None


def quantize_multiplier(scale, convention="acl"):
    """The fixed-point (multiplier, shift) of a positive real scale, as a runtime derives it.

    ``scale ~= multiplier * 2**-31 * 2**-shift``, with ``shift > 0`` a right shift: the
    pair feeds ``quantize_down_int32(x, multiplier, shift, ...)`` directly, with
    ``rounding="double"`` (ACL, gemmlowp, TFLite's default build), ``"double_ties_up"``
    (TFLite's optimized x86 kernels) or ``"single"`` (TFLite's single-rounding build, and
    XNNPACK rndnu with ``convention="xnnpack"``).

    Parameters
    ----------
    scale : float, int, or array_like of them
        The real multiplier (for a layer: input_scale * weight_scale / output_scale),
        > 0 and finite. An array (per-channel scales, any shape) is converted elementwise.
    convention : {"acl", "tflite", "xnnpack"}
        ``"acl"``: ACL's ``calculate_quantized_multiplier`` (frexp; the mantissa times
        2**31 rounded half away from zero; multiplier in [2**30, 2**31)).
        ``"tflite"``: TFLite/LiteRT ``QuantizeMultiplier``: as ``"acl"``, except that a
        scale needing ``shift > 31`` becomes ``(0, 0)``. TFLite stores ``-shift``.
        ``"xnnpack"``: XNNPACK rndnu: the scale rounded to float32 first, its 24-bit
        significand shifted left by 7 (multiplier in [2**30, 2**31 - 128]); for scales in
        [2**-32, 256) only.

    Returns
    -------
    (int, int) for a scalar scale; (numpy.ndarray, numpy.ndarray) of int32, the shape of
    scale, for an array.

    Raises
    ------
    TypeError
        scale is not a real number or an array of them (bool included), or convention
        is not a str.
    ValueError
        convention unknown; a scale <= 0, NaN or infinite; or a scale whose shift falls
        outside [-31, 31] (``"acl"``; ``"tflite"`` only for scales of 2**31 and more) or
        outside [2**-32, 256) (``"xnnpack"``). The message names the first bad element.

    Examples
    --------
    >>> import simdops
    >>> simdops.quantize_multiplier(0.05)
    (1717986918, 4)
    >>> simdops.quantize_multiplier(3.0)
    (1610612736, -2)
    >>> simdops.quantize_multiplier(0.05, convention="xnnpack")
    (1717986944, 4)
    >>> m, s = simdops.quantize_multiplier([0.5, 0.25])
    >>> m.tolist(), s.tolist()
    ([1073741824, 1073741824], [0, 1])
    """
    if not isinstance(convention, str):
        raise TypeError(f"convention must be a str, got {type(convention).__name__}")
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    scalar = isinstance(scale, numbers.Real) and not isinstance(scale, (bool, np.bool_))
    values = _scales_array(scale)
    flat = values.reshape(-1)
    bad = ~(np.isfinite(flat) & (flat > 0))
    if bad.any():
        index = int(np.argmax(bad))
        where = "" if scalar else f"[{index}]"
        raise ValueError(f"scale{where} must be a positive finite number, got {flat[index]!r}")
    if convention == "xnnpack":
        as_f32 = flat.astype(np.float32)
        bad = ~((as_f32 >= np.float32(2.0 ** -32)) & (as_f32 < np.float32(256.0)))
        if bad.any():
            index = int(np.argmax(bad))
            where = "" if scalar else f"[{index}]"
            raise ValueError(f"scale{where} = {flat[index]!r} is outside XNNPACK's range "
                             f"[2**-32, 256) once rounded to float32")
        multiplier, shift = _xnnpack(flat)
    else:
        multiplier, shift = _acl_like(flat)
        if convention == "tflite":
            flush = shift > 31
            multiplier = np.where(flush, 0, multiplier)
            shift = np.where(flush, 0, shift)
        bad = (shift < -31) | (shift > 31)
        if bad.any():
            index = int(np.argmax(bad))
            where = "" if scalar else f"[{index}]"
            raise ValueError(f"scale{where} = {flat[index]!r} needs shift {int(shift[index])}, "
                             f"outside [-31, 31]")
    if scalar:
        return int(multiplier[0]), int(shift[0])
    return (multiplier.astype(np.int32).reshape(values.shape),
            shift.astype(np.int32).reshape(values.shape))

