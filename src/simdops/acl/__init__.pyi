"""Type stubs for simdops.acl: Arm Compute Library function API (docs/descriptors.md)."""
import enum
from typing import Any, TypeAlias

import numpy as np

from simdops._typing import Input, Output

__all__: list[str]

class DataType(enum.Enum):
    S32 = "S32"
    QASYMM8 = "QASYMM8"
    QASYMM8_SIGNED = "QASYMM8_SIGNED"
    QSYMM16 = "QSYMM16"
    @property
    def numpy_dtype(self) -> np.dtype[Any]: ...

class ErrorCode(enum.Enum):
    OK = 0
    RUNTIME_ERROR = 1

class Status:
    def __init__(self, error_code: ErrorCode = ..., error_description: str = "") -> None: ...
    def __bool__(self) -> bool: ...
    def error_code(self) -> ErrorCode: ...
    def error_description(self) -> str: ...

class TensorInfo:
    shape: tuple[int, ...]
    data_type: DataType
    def __init__(self, shape: int | tuple[int, ...] | list[int],
                 data_type: DataType | str) -> None: ...
    @classmethod
    def from_array(cls, array: Input) -> TensorInfo: ...
    def num_dimensions(self) -> int: ...
    def dimension(self, index: int) -> int: ...

# a tensor argument: a TensorInfo (validate only) or an array / buffer
_Tensor: TypeAlias = TensorInfo | Input
_OutTensor: TypeAlias = TensorInfo | Output

class GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint:
    def __init__(self) -> None: ...
    @staticmethod
    def validate(input: _Tensor, bias: _Tensor | None, output: _OutTensor,
                 min: int = 0, max: int = 0) -> Status: ...
    def configure(self, input: Input, bias: Input | None, output: Output,
                  result_fixedpoint_multiplier: int, result_shift: int,
                  result_offset_after_shift: int, min: int = 0, max: int = 0) -> None: ...
    def run(self) -> None: ...

class GEMMLowpOutputStageType(enum.Enum):
    NONE = 0
    QUANTIZE_DOWN = 1
    QUANTIZE_DOWN_FIXEDPOINT = 2
    QUANTIZE_DOWN_FLOAT = 3

class GEMMLowpOutputStageInfo:
    type: GEMMLowpOutputStageType
    gemmlowp_offset: int
    gemmlowp_multiplier: int
    gemmlowp_shift: int
    gemmlowp_min_bound: int
    gemmlowp_max_bound: int
    gemmlowp_multipliers: tuple[int, ...]
    gemmlowp_shifts: tuple[int, ...]
    is_quantized_per_channel: bool
    output_data_type: DataType | None
    gemmlowp_real_multiplier: float
    def __init__(self, type: GEMMLowpOutputStageType = ..., gemmlowp_offset: int = 0,
                 gemmlowp_multiplier: int = 0, gemmlowp_shift: int = 0,
                 gemmlowp_min_bound: int = ..., gemmlowp_max_bound: int = ...,
                 gemmlowp_multipliers: tuple[int, ...] | list[int] = (),
                 gemmlowp_shifts: tuple[int, ...] | list[int] = (),
                 is_quantized_per_channel: bool = False,
                 output_data_type: DataType | str | None = None,
                 gemmlowp_real_multiplier: float = 0.0) -> None: ...

class GEMMLowpOutputStage:
    def __init__(self) -> None: ...
    @staticmethod
    def validate(input: _Tensor, bias: _Tensor | None, output: _OutTensor,
                 info: GEMMLowpOutputStageInfo) -> Status: ...
    def configure(self, input: Input, bias: Input | None, output: Output,
                  info: GEMMLowpOutputStageInfo) -> None: ...
    def run(self) -> None: ...
