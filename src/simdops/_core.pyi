"""Type stubs for simdops._core, the Cython module behind the array API
(simdops re-exports clip, shrink, hardmax, quantize_down_int32*)."""
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Literal, TypeVar, overload

from numpy.typing import NDArray

from simdops._typing import Input, Number, Output, Rounding as _Rounding

# what simdops re-exports (`from simdops._core import *`): _core.pyx's __all__
__all__ = [
    "clip", "shrink", "hardmax", "quantize_down_int32_to_uint8", "quantize_down_int32",
    "requantize_fp32", "set_num_threads", "get_num_threads", "int8_matmul_accumulators",
    "quantized_add", "quantized_subtract", "quantized_multiply", "quantized_binary_params",
]

_Out = TypeVar("_Out", bound=Output)
_RequantOutDtype = Literal["uint8", "int8", "int16"] | Any

@overload
def clip(x: Input, min: Number | None, max: Number | None, *, scale: Number | None = None,
         bias: Number | None = None, out: None = None) -> NDArray[Any]: ...
@overload
def clip(x: Input, min: Number | None, max: Number | None, *, scale: Number | None = None,
         bias: Number | None = None, out: _Out) -> _Out: ...

@overload
def shrink(x: Input, bias: Number = 0.0, threshold: Number = 0.5, *,
           out: None = None) -> NDArray[Any]: ...
@overload
def shrink(x: Input, bias: Number = 0.0, threshold: Number = 0.5, *, out: _Out) -> _Out: ...

@overload
def hardmax(x: Input, axis: int | Sequence[int] = -1, *, out: None = None) -> NDArray[Any]: ...
@overload
def hardmax(x: Input, axis: int | Sequence[int] = -1, *, out: _Out) -> _Out: ...

@overload
def quantize_down_int32_to_uint8(
    x: Input, multiplier: int | Input, shift: int | Input, offset: int, *,
    bias: Input | None = None, min: int = 0, max: int = 0,
    rounding: _Rounding = "double", out: None = None) -> NDArray[Any]: ...
@overload
def quantize_down_int32_to_uint8(
    x: Input, multiplier: int | Input, shift: int | Input, offset: int, *,
    bias: Input | None = None, min: int = 0, max: int = 0,
    rounding: _Rounding = "double", out: _Out) -> _Out: ...

@overload
def quantize_down_int32(
    x: Input, multiplier: int | Input, shift: int | Input, offset: int = 0, *,
    bias: Input | None = None, min: int | None = None, max: int | None = None,
    out_dtype: _RequantOutDtype = "uint8", rounding: _Rounding = "double",
    out: None = None) -> NDArray[Any]: ...
@overload
def quantize_down_int32(
    x: Input, multiplier: int | Input, shift: int | Input, offset: int = 0, *,
    bias: Input | None = None, min: int | None = None, max: int | None = None,
    out_dtype: _RequantOutDtype = "uint8", rounding: _Rounding = "double",
    out: _Out) -> _Out: ...


@overload
def requantize_fp32(
    x: Input, scale: float | Fraction | Input, zero_point: int = 0, *, bias: Input | None = None,
    min: int | None = None, max: int | None = None, out_dtype: _RequantOutDtype = "uint8",
    precision: Literal["float32", "float64"] = "float32",
    ties: Literal["even", "away", "add_half"] = "even",
    out: None = None, pre_scale: float | Fraction | None = None,
    post_scale: float | Fraction | None = None, post_divide: float | Fraction | None = None,
    offset: float | Fraction | None = None, bias_at: Literal["input", "scaled"] = "input") -> NDArray[Any]: ...
@overload
def requantize_fp32(
    x: Input, scale: float | Fraction | Input, zero_point: int = 0, *, bias: Input | None = None,
    min: int | None = None, max: int | None = None, out_dtype: _RequantOutDtype = "uint8",
    precision: Literal["float32", "float64"] = "float32",
    ties: Literal["even", "away", "add_half"] = "even",
    out: _Out, pre_scale: float | Fraction | None = None,
    post_scale: float | Fraction | None = None, post_divide: float | Fraction | None = None,
    offset: float | Fraction | None = None, bias_at: Literal["input", "scaled"] = "input") -> _Out: ...

def isa() -> str: ...
def available_isas() -> tuple[str, ...]: ...
def known_isas() -> tuple[str, ...]: ...
def cpu_supported_isas() -> tuple[str, ...]: ...
def set_thread_isa(name: str | None) -> None: ...
def thread_isa() -> str | None: ...
def set_process_isa(name: str) -> None: ...
def last_call_isa() -> str | None: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
def threads_supported() -> bool: ...
def cpu_features() -> str: ...
def tier_parents() -> dict[str, str | None]: ...
def rounding_entries() -> dict[str, str]: ...
def kernel_slot_dtype(entry: str, dtype: str, out_dtype: str) -> str: ...
def kernel_origins(isa_name: str) -> dict[tuple[str, str], str]: ...
def op_names() -> list[str]: ...
def op_members() -> list[str]: ...
def roundings() -> list[tuple[str, int, int, int, bool]]: ...

def int8_matmul_accumulators(a: Input, w: Input, *, pair_saturation: bool = False,
                             out: Output | None = None) -> Any: ...

# the ONNX profile (simdops.onnx re-exports these)
def quantize_linear(x: Input, y_scale: Any, y_zero_point: Any = None, *, axis: int = 1,
                    out: Output | None = None) -> Any: ...
def dequantize_linear(x: Input, x_scale: Any, x_zero_point: Any = None, *, axis: int = 1,
                      out: Output | None = None) -> Any: ...
def onnx_clip(x: Input, min: Any = None, max: Any = None, *, out: Output | None = None) -> Any: ...
def onnx_shrink(x: Input, bias: Number = 0.0, lambd: Number = 0.5, *,
                out: Output | None = None) -> Any: ...

_Arithmetic = Literal["tflite", "xnnpack", "onnxruntime"]

@overload
def quantized_add(a: Input, a_scale: float, a_zero_point: int, b: Input, b_scale: float,
                  b_zero_point: int, y_scale: float, y_zero_point: int, *,
                  arithmetic: _Arithmetic = "tflite", min: int | None = None,
                  max: int | None = None, out: None = None) -> NDArray[Any]: ...
@overload
def quantized_add(a: Input, a_scale: float, a_zero_point: int, b: Input, b_scale: float,
                  b_zero_point: int, y_scale: float, y_zero_point: int, *,
                  arithmetic: _Arithmetic = "tflite", min: int | None = None,
                  max: int | None = None, out: _Out) -> _Out: ...
@overload
def quantized_subtract(a: Input, a_scale: float, a_zero_point: int, b: Input, b_scale: float,
                       b_zero_point: int, y_scale: float, y_zero_point: int, *,
                       arithmetic: _Arithmetic = "tflite", min: int | None = None,
                       max: int | None = None, out: None = None) -> NDArray[Any]: ...
@overload
def quantized_subtract(a: Input, a_scale: float, a_zero_point: int, b: Input, b_scale: float,
                       b_zero_point: int, y_scale: float, y_zero_point: int, *,
                       arithmetic: _Arithmetic = "tflite", min: int | None = None,
                       max: int | None = None, out: _Out) -> _Out: ...
@overload
def quantized_multiply(a: Input, a_scale: float, a_zero_point: int, b: Input, b_scale: float,
                       b_zero_point: int, y_scale: float, y_zero_point: int, *,
                       arithmetic: _Arithmetic = "tflite", min: int | None = None,
                       max: int | None = None, out: None = None) -> NDArray[Any]: ...
@overload
def quantized_multiply(a: Input, a_scale: float, a_zero_point: int, b: Input, b_scale: float,
                       b_zero_point: int, y_scale: float, y_zero_point: int, *,
                       arithmetic: _Arithmetic = "tflite", min: int | None = None,
                       max: int | None = None, out: _Out) -> _Out: ...
def quantized_binary_params(op: Literal["add", "subtract", "multiply"], a_scale: float,
                            a_zero_point: int, b_scale: float, b_zero_point: int,
                            y_scale: float, y_zero_point: int, *,
                            arithmetic: _Arithmetic = "tflite", dtype: Any = "int8",
                            min: int | None = None,
                            max: int | None = None) -> dict[str, int | float]: ...
def arithmetics() -> tuple[str, ...]: ...
