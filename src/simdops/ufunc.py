"""simdops' ops as numpy ufuncs (docs/ufuncs.md).

``clip(x, min, max)``, ``shrink(x, bias, threshold)``, ``quantize_down_int32(x, multiplier,
shift, offset)`` (and ``quantize_down_int32_<family>`` for the other rounding families),
``requantize_fp32(x, scale, zero_point)`` (and ``_away``, ``_float64``, ``_float64_away``),
and the gufunc ``hardmax(x)`` with signature ``(n)->(n)`` (``axis=`` chooses the axis).

The parameters are ufunc inputs broadcast against x: a scalar is per tensor, an array of
shape (C, 1, 1) against an NCHW x is per channel, any broadcastable shape is per element.
``out=``, ``where=``, ``dtype=`` (the requantization output type) and ``__array_ufunc__``
(dask arrays stay lazy, masked arrays keep their masks, xarray keeps coordinates) work as
for numpy's own ufuncs. Type resolution is simdops', not numpy's: x keeps its dtype and
every parameter's exact value is converted to x's type by the rules of ``simdops.clip``
etc.; each ufunc gives the bits of the simdops function with the same arguments.

Needs numpy >= 2.0 (the ufuncs' loops use numpy's ArrayMethod API).
"""
from simdops import _ufunc as _impl

__all__ = sorted(name for name in dir(_impl) if not name.startswith("_"))
globals().update({name: getattr(_impl, name) for name in __all__})
