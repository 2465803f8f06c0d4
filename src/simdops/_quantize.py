"""quantize_multiplier: a positive real scale -> ACL's (multiplier, shift)."""
import math
import numbers


def quantize_multiplier(real) -> tuple:
    """ACL's (multiplier, shift) for a positive real scale.

    ``real ~= M * 2**-31 * 2**-shift`` with M in [2**30, 2**31), as ACL's
    ``calculate_quantized_multiplier``: frexp, M rounded to nearest (ties away from
    zero), M == 2**31 renormalised; ``shift < 0`` when ``real >= 1``.

    Parameters
    ----------
    real : float or int
        The scale, > 0 and finite.

    Returns
    -------
    (int, int)
        ``(M, shift)`` for ``quantize_down_int32``.

    Raises
    ------
    TypeError
        real is not a real number (bool included).
    ValueError
        real is <= 0, NaN, infinite, too large for a float, or needs a shift outside
        [-31, 31].

    Examples
    --------
    >>> import simdops
    >>> simdops.quantize_multiplier(0.05)
    (1717986918, 4)
    >>> simdops.quantize_multiplier(3.0)
    (1610612736, -2)
    """
    if isinstance(real, bool) or not isinstance(real, numbers.Real):
        raise TypeError(f"real must be a real number, got {type(real).__name__}")
    try:
        value = float(real)
    except OverflowError:  # an int beyond float's range: no shift in [-31, 31] reaches it
        raise ValueError(f"real = {real!r} is too large: it needs a shift below -31") from None
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"real must be a positive finite number, got {real!r}")
    mantissa, exponent = math.frexp(value)      # value = mantissa * 2**exponent, mantissa in [0.5, 1)
    scaled = mantissa * (1 << 31)               # exact: a power-of-two scaling
    whole = math.floor(scaled)
    multiplier = whole + (1 if scaled - whole >= 0.5 else 0)
    if multiplier == 1 << 31:
        multiplier //= 2
        exponent += 1
    shift = -exponent
    if not -31 <= shift <= 31:
        raise ValueError(f"real = {real!r} needs shift {shift}, outside [-31, 31]")
    return multiplier, shift
