"""Type stubs for simdops._core, the Cython module behind the array API
(simdops re-exports clip, shrink, hardmax, quantize_down_int32*)."""
from collections.abc import Sequence
from typing import Any, Literal, TypeVar, overload

from numpy.typing import NDArray

from simdops._typing import Input, Number, Output

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

_Rounding = Literal["double", "double_ties_up", "single"]

@overload
def requantize_fp32(
    x: Input, scale: float | Input, zero_point: int = 0, *, bias: Input | None = None,
    min: int | None = None, max: int | None = None, out_dtype: _RequantOutDtype = "uint8",
    precision: Literal["float32", "float64"] = "float32", ties: Literal["even", "away"] = "even",
    out: None = None) -> NDArray[Any]: ...
@overload
def requantize_fp32(
    x: Input, scale: float | Input, zero_point: int = 0, *, bias: Input | None = None,
    min: int | None = None, max: int | None = None, out_dtype: _RequantOutDtype = "uint8",
    precision: Literal["float32", "float64"] = "float32", ties: Literal["even", "away"] = "even",
    out: _Out) -> _Out: ...

def isa() -> str: ...
def available_isas() -> tuple[str, ...]: ...
def known_isas() -> tuple[str, ...]: ...
def set_thread_isa(name: str | None) -> None: ...
def thread_isa() -> str | None: ...
def set_process_isa(name: str) -> None: ...
def last_call_isa() -> str | None: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
def threads_supported() -> bool: ...
def cpu_features() -> str: ...
def kernel_origins(isa_name: str) -> dict[tuple[str, str], str]: ...
