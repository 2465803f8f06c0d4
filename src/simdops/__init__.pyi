"""Type stubs for simdops (docs/semantics.md). Functions return a new C-contiguous numpy
array of x's shape and dtype, or the `out` object when one is given (a 0-d
result is a numpy scalar at run time, as numpy returns)."""
from types import TracebackType
from typing import Literal, Sequence, overload

import numpy as np
import numpy.typing as npt

__version__: str
__all__: list[str]

# the array API is _core's (one set of signatures: _core.pyi; the names its __all__ lists)
from simdops._core import *

_Convention = Literal["acl", "tflite", "xnnpack"]

@overload
def quantize_multiplier(scale: float, convention: _Convention = ...) -> tuple[int, int]: ...
@overload
def quantize_multiplier(
    scale: npt.NDArray[np.floating] | npt.NDArray[np.integer] | Sequence[float],
    convention: _Convention = ...,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]: ...
def isa() -> str: ...
def available_isas() -> tuple[str, ...]: ...
def get_include() -> str: ...

class use_isa:
    """Context manager forcing one ISA inside the block (for the calling thread)."""
    name: str
    def __init__(self, name: str) -> None: ...
    def __enter__(self) -> str: ...
    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]: ...
