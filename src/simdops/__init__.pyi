"""Type stubs for simdops (SPEC §4). Functions return a new C-contiguous numpy
array of x's shape and dtype, or the `out` object when one is given (with
scalar inputs only, numpy returns a numpy scalar at run time)."""
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Literal, TypeVar, overload

from numpy.typing import NDArray

from simdops._typing import Input, Number, Output

__version__: str
__all__: list[str]

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

def quantize_multiplier(real: float) -> tuple[int, int]: ...
def isa() -> str: ...
def available_isas() -> tuple[str, ...]: ...
def get_include() -> str: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...

class use_isa:
    """Context manager forcing one ISA inside the block (for the calling thread)."""
    name: str
    def __init__(self, name: str) -> None: ...
    def __enter__(self) -> str: ...
    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]: ...
