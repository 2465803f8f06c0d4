"""Type stubs for simdops.dask: the array API's ops on dask arrays, lazily (docs/dask.md).
Every function returns a new dask.array.Array; there is no out= (dask arrays are
immutable). Inputs that are not dask arrays are wrapped with dask.array.asarray."""
from collections.abc import Sequence
from typing import Any, Literal

from dask.array import Array

from simdops._typing import Input, Number, Rounding as _Rounding

__all__: list[str]

_RequantOutDtype = Literal["uint8", "int8", "int16"] | Any  # or a numpy dtype
# a per-tensor int, or a per-channel vector (numpy, sequence of ints, 1-D dask array)
_Channels = int | Input | Array
_Vector = Input | Array

def clip(x: Input | Array, min: Number | None, max: Number | None, *,
         scale: Number | None = None, bias: Number | None = None) -> Array: ...
def shrink(x: Input | Array, bias: Number = 0.0, threshold: Number = 0.5) -> Array: ...
def hardmax(x: Input | Array, axis: int | Sequence[int] = -1) -> Array: ...
def quantize_down_int32_to_uint8(
    x: Input | Array, multiplier: _Channels, shift: _Channels, offset: int, *,
    bias: _Vector | None = None, min: int = 0, max: int = 0,
    rounding: _Rounding = "double") -> Array: ...
def quantize_down_int32(
    x: Input | Array, multiplier: _Channels, shift: _Channels, offset: int = 0, *,
    bias: _Vector | None = None, min: int | None = None, max: int | None = None,
    out_dtype: _RequantOutDtype = "uint8", rounding: _Rounding = "double") -> Array: ...
def requantize_fp32(
    x: Input | Array, scale: float | _Vector, zero_point: int = 0, *,
    bias: _Vector | None = None, min: int | None = None, max: int | None = None,
    out_dtype: _RequantOutDtype = "uint8", precision: Literal["float32", "float64"] = "float32",
    ties: Literal["even", "away", "add_half"] = "even", pre_scale: float | None = None,
    post_scale: float | None = None, post_divide: float | None = None,
    offset: float | None = None, bias_at: Literal["input", "scaled"] = "input") -> Array: ...

_Arithmetic = Literal["tflite", "xnnpack", "onnxruntime"]
def quantized_add(a: Input | Array, a_scale: float, a_zero_point: int, b: Input | Array,
                  b_scale: float, b_zero_point: int, y_scale: float, y_zero_point: int, *,
                  arithmetic: _Arithmetic = "tflite", min: int | None = None,
                  max: int | None = None) -> Array: ...
def quantized_subtract(a: Input | Array, a_scale: float, a_zero_point: int, b: Input | Array,
                       b_scale: float, b_zero_point: int, y_scale: float, y_zero_point: int, *,
                       arithmetic: _Arithmetic = "tflite", min: int | None = None,
                       max: int | None = None) -> Array: ...
def quantized_multiply(a: Input | Array, a_scale: float, a_zero_point: int, b: Input | Array,
                       b_scale: float, b_zero_point: int, y_scale: float, y_zero_point: int, *,
                       arithmetic: _Arithmetic = "tflite", min: int | None = None,
                       max: int | None = None) -> Array: ...
