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
    bias: Input | None = None, min: int = 0, max: int = 0, out: None = None) -> NDArray[Any]: ...
@overload
def quantize_down_int32_to_uint8(
    x: Input, multiplier: int | Input, shift: int | Input, offset: int, *,
    bias: Input | None = None, min: int = 0, max: int = 0, out: _Out) -> _Out: ...

@overload
def quantize_down_int32(
    x: Input, multiplier: int | Input, shift: int | Input, offset: int = 0, *,
    bias: Input | None = None, min: int | None = None, max: int | None = None,
    out_dtype: _RequantOutDtype = "uint8", out: None = None) -> NDArray[Any]: ...
@overload
def quantize_down_int32(
    x: Input, multiplier: int | Input, shift: int | Input, offset: int = 0, *,
    bias: Input | None = None, min: int | None = None, max: int | None = None,
    out_dtype: _RequantOutDtype = "uint8", out: _Out) -> _Out: ...

def isa() -> str: ...
def available_isas() -> tuple[str, ...]: ...
def known_isas() -> tuple[str, ...]: ...
def set_isa(name: str) -> None: ...
def cpu_features() -> str: ...
def kernel_origins(isa_name: str) -> dict[tuple[str, str], str]: ...
