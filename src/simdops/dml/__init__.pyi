"""Type stubs for simdops.dml: DirectML descriptors (docs/descriptors.md)."""
import enum
from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias

from simdops._typing import Input, Output

__all__: list[str]

class TensorDataType(enum.IntEnum):
    UNKNOWN = 0
    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11

class TensorFlags(enum.IntFlag):
    NONE = 0
    OWNED_BY_DML = 1

class FeatureLevel(enum.IntEnum):
    FL_1_0 = 0x1000
    FL_2_0 = 0x2000
    FL_2_1 = 0x2100
    FL_3_0 = 0x3000
    FL_3_1 = 0x3100
    FL_4_0 = 0x4000
    FL_4_1 = 0x4100
    FL_5_0 = 0x5000
    FL_5_1 = 0x5100
    FL_5_2 = 0x5200
    FL_6_0 = 0x6000
    FL_6_1 = 0x6100
    FL_6_2 = 0x6200
    FL_6_3 = 0x6300
    FL_6_4 = 0x6400

NEWEST_FEATURE_LEVEL: FeatureLevel

class InvalidArgumentError(ValueError): ...

# a data type given as the enum, its int value or its name
_DataTypeLike: TypeAlias = TensorDataType | int | str
_Number: TypeAlias = float | int

class BufferTensorDesc:
    data_type: TensorDataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...] | None
    total_tensor_size_in_bytes: int | None
    guaranteed_base_offset_alignment: int
    flags: TensorFlags
    def __init__(self, data_type: _DataTypeLike, sizes: Iterable[int],
                 strides: Iterable[int] | None = None,
                 total_tensor_size_in_bytes: int | None = None,
                 guaranteed_base_offset_alignment: int = 0,
                 flags: TensorFlags | int = ...) -> None: ...
    @property
    def dimension_count(self) -> int: ...
    def effective_strides(self) -> tuple[int, ...]: ...

class ScaleBias:
    scale: float
    bias: float
    def __init__(self, scale: _Number, bias: _Number) -> None: ...

class ElementWiseClipOperatorDesc:
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    min: float
    max: float
    scale_bias: ScaleBias | None
    def __init__(self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc,
                 min: _Number, max: _Number, scale_bias: ScaleBias | None = None) -> None: ...

class ElementWiseClip1OperatorDesc:
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    min_max_data_type: TensorDataType
    min: _Number
    max: _Number
    scale_bias: ScaleBias | None
    def __init__(self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc,
                 min_max_data_type: _DataTypeLike, min: _Number, max: _Number,
                 scale_bias: ScaleBias | None = None) -> None: ...

class ActivationShrinkOperatorDesc:
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    bias: float
    threshold: float
    def __init__(self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc,
                 bias: _Number = 0.0, threshold: _Number = 0.5) -> None: ...

class ActivationHardmaxOperatorDesc:
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    def __init__(self, input_tensor: BufferTensorDesc,
                 output_tensor: BufferTensorDesc) -> None: ...

class ActivationHardmax1OperatorDesc:
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    axes: tuple[int, ...]
    def __init__(self, input_tensor: BufferTensorDesc, output_tensor: BufferTensorDesc,
                 axes: Iterable[int]) -> None: ...

_OperatorDesc: TypeAlias = (ElementWiseClipOperatorDesc | ElementWiseClip1OperatorDesc
                            | ActivationShrinkOperatorDesc | ActivationHardmaxOperatorDesc
                            | ActivationHardmax1OperatorDesc)

def calc_buffer_tensor_size(data_type: _DataTypeLike, sizes: Sequence[int],
                            strides: Sequence[int] | None = None) -> int: ...
def compile_operator(desc: _OperatorDesc,
                     feature_level: FeatureLevel | int = ...) -> CompiledOperator: ...

class CompiledOperator:
    @property
    def desc(self) -> _OperatorDesc: ...
    @property
    def feature_level(self) -> FeatureLevel: ...
    @property
    def operator(self) -> str: ...
    def execute(self, input: Input, output: Output) -> None: ...
