"""Type stubs for simdops.ufunc: simdops' ops as numpy ufuncs (docs/ufuncs.md). Each is a
numpy.ufunc: call it like one (parameters are broadcast inputs; out=, where=, dtype=, and
axis= for the gufunc hardmax)."""
import numpy as np

__all__: list[str]

clip: np.ufunc
shrink: np.ufunc
hardmax: np.ufunc
quantize_down_int32: np.ufunc
quantize_down_int32_double_ties_up: np.ufunc
quantize_down_int32_single: np.ufunc
quantize_down_int32_single_away: np.ufunc
requantize_fp32: np.ufunc
requantize_fp32_away: np.ufunc
requantize_fp32_float64: np.ufunc
requantize_fp32_float64_away: np.ufunc
