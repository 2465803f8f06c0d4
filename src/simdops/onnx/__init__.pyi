"""Type stubs for simdops.onnx (the ONNX profile)."""
from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from simdops._typing import Input, Number, Output

def clip(x: Input, min: Number | Input | None = None, max: Number | Input | None = None, *,
         out: Output | None = None) -> Any: ...
def shrink(x: Input, bias: Number = 0.0, lambd: Number = 0.5, *,
           out: Output | None = None) -> Any: ...
def hardmax(x: Input, axis: int | None = None, *, opset: int = 13,
            out: Output | None = None) -> Any: ...
def quantize_linear(x: Input, y_scale: Input | Number, y_zero_point: Input | int | None = None,
                    *, axis: int = 1, block_size: int = 0, saturate: int = 1,
                    output_dtype: Any = None, precision: Any = None, packed: bool = False,
                    out: Output | None = None) -> Any: ...
def dequantize_linear(x: Input, x_scale: Input | Number, x_zero_point: Input | int | None = None,
                      *, axis: int = 1, block_size: int = 0, output_dtype: Any = None,
                      packed: Any = None, shape: Sequence[int] | None = None,
                      out: Output | None = None) -> Any: ...
def run_node(node: Any, inputs: Sequence[NDArray[Any] | None], opset: int | None = None
             ) -> list[NDArray[Any]]: ...
