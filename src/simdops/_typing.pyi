"""Types shared by the simdops stubs (stub-only module)."""
import array
import mmap
from typing import Any, Protocol, SupportsIndex, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

# Rounding, quantize_down_int32's rounding= names: the families of C's SIMDOPS_ROUNDINGS
# whose array_api column is 1, a Literal setup.py writes from the list (list_decls.py;
# tests/test_lists.py checks it against _core.roundings()).
from simdops._typing_lists import Rounding as Rounding

class SupportsDLPack(Protocol):
    """A CPU tensor exported zero-copy through DLPack (torch, jax, cupy on CPU, ...)."""
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

# Anything simdops reads: buffers (zero copy), DLPack tensors, or what
# np.asarray accepts (lists, scalars, objects with __array__).
Input: TypeAlias = ArrayLike | SupportsDLPack | memoryview[Any] | bytearray | array.array[Any] | mmap.mmap
# Anything simdops may write into (out=): a writable buffer or DLPack tensor.
Output: TypeAlias = NDArray[Any] | SupportsDLPack | memoryview[Any] | bytearray | array.array[Any] | mmap.mmap
# A clip bound / shrink parameter: a Python or numpy number.
Number: TypeAlias = float | int | np.floating[Any] | np.integer[Any] | SupportsIndex
