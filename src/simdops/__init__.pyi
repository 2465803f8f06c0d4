"""Type stubs for simdops (docs/semantics.md). Functions return a new C-contiguous numpy
array of x's shape and dtype, or the `out` object when one is given (a 0-d
result is a numpy scalar at run time, as numpy returns)."""
from types import TracebackType
from typing import Literal, Sequence, overload

import numpy as np
import numpy.typing as npt

__version__: str
__all__: list[str]

# the array API is _core's (one set of signatures: _core.pyi)
from simdops._core import clip as clip
from simdops._core import get_num_threads as get_num_threads
from simdops._core import hardmax as hardmax
from simdops._core import quantize_down_int32 as quantize_down_int32
from simdops._core import quantize_down_int32_to_uint8 as quantize_down_int32_to_uint8
from simdops._core import quantized_add as quantized_add
from simdops._core import quantized_binary_params as quantized_binary_params
from simdops._core import quantized_multiply as quantized_multiply
from simdops._core import quantized_subtract as quantized_subtract
from simdops._core import requantize_fp32 as requantize_fp32
from simdops._core import int8_matmul_accumulators as int8_matmul_accumulators
from simdops._core import set_num_threads as set_num_threads
from simdops._core import shrink as shrink

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
