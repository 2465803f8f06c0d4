"""Argument checks and exact float32 arithmetic shared by simdops.runtimes and
simdops.runtimes_openvino (numpy only)."""
import numbers

import numpy as np

from simdops._interop import as_dtype


def dtype_name(value, name):
    """np.dtype(value).name; a spelling numpy cannot read is a TypeError naming the
    argument (_interop.as_dtype)."""
    return as_dtype(value, name).name


def f32_scalar(v, name):
    """v as a finite float32 scalar, else TypeError / ValueError naming the argument."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.floating,
                                                              np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(v).__name__}")
    f = np.float32(v)
    if not np.isfinite(f):
        raise ValueError(f"{name} = {v!r} is not finite as a float32")
    return f


def f32_vector(v, name):
    """A scale given per tensor (a number) or per channel (1-D): float32, and whether
    it was per channel."""
    if isinstance(v, (numbers.Real, np.floating, np.integer)) and not isinstance(
            v, (bool, np.bool_)):
        return np.array([f32_scalar(v, name)], np.float32), False
    a = np.asarray(v)
    if a.ndim != 1 or a.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real number or a 1-D array of them")
    a = a.astype(np.float32)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} has values that are not finite as float32")
    return a, True


def fma32(a, b, c):
    """float32 fma(a, b, c) of float32 arrays, rounded once (as VFMADD): the product is
    exact in float64, the sum rounded to odd in float64 (TwoSum's error decides the
    last bit), then rounded to float32 once (53 >= 24 + 2 bits: no double rounding)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    s = p + c64
    bb = s - p
    err = (p - (s - bb)) + (c64 - bb)
    odd = (s.view(np.int64) & 1) == 1
    fix = (err != 0) & ~odd & np.isfinite(s)
    s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)
