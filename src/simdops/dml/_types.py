"""simdops.dml, part 1 of 3: the DirectML types and descriptors (directml.h's enums,
DML_BUFFER_TENSOR_DESC, the operator descriptors) and DMLCalcBufferTensorSize.

Constructors normalise Python types only (TypeError for a wrong type); every value
rule is checked by compile_operator (simdops.dml._validate). The public names are re-exported
by simdops.dml; see docs/descriptors.md.
"""
from __future__ import annotations

import enum
import itertools
import math
import numbers
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from simdops import _core

# DirectML's DML_TENSOR_DATA_TYPE names (directml.h), DML_TENSOR_DATA_TYPE_ dropped. The C
# dtype table's values are DirectML's, so TensorDataType has a member for each type of the
# table that DirectML names; a type DirectML does not have (bfloat16, say) is simply not one.
_DML_TYPE_NAMES = frozenset((
    "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8", "FLOAT64",
    "UINT64", "INT64", "UINT4", "INT4"))

TensorDataType = enum.IntEnum(
    "TensorDataType",
    [("UNKNOWN", 0)] + [(name.upper(), value) for value, name in _core.DTYPE_NAMES.items()
                        if name.upper() in _DML_TYPE_NAMES],
    module=__name__)
TensorDataType.__doc__ = "DML_TENSOR_DATA_TYPE (values as in directml.h)."


class TensorFlags(enum.IntFlag):
    """DML_TENSOR_FLAGS."""
    NONE = 0
    OWNED_BY_DML = 1


_DEFINED_FLAGS = int(TensorFlags.OWNED_BY_DML)


class FeatureLevel(enum.IntEnum):
    """DML_FEATURE_LEVEL."""
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


NEWEST_FEATURE_LEVEL = max(FeatureLevel)


class InvalidArgumentError(ValueError):
    """DirectML's E_INVALIDARG: the message names the offending field and rule."""


_UINT32_MAX = (1 << 32) - 1
_UINT64_MAX = (1 << 64) - 1

# Each data type's row of C's dtype table: (name, element size, is_float, is_signed,
# lo, hi), the integer range lo..hi (None for float types).
_DTYPE_ROWS = {dt: _core.dtype_info(dt) for dt in TensorDataType if dt != TensorDataType.UNKNOWN}
_FLOATS = frozenset(dt for dt, row in _DTYPE_ROWS.items() if row[2])
_INT_RANGE = {dt: (row[4], row[5]) for dt, row in _DTYPE_ROWS.items() if not row[2]}


def _name(value) -> str:
    """An enum member's name, or the raw value for out-of-enum ints."""
    return value.name if isinstance(value, enum.Enum) else repr(value)


def _level_name(level) -> str:
    return level.name if isinstance(level, FeatureLevel) else hex(level)


# --------------------------------------------------------------------------- coercion

def _coerce_int(value, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    return int(value)


# More Sizes or Strides than any tensor can have (SIMDOPS_MAX_DIMS): reading stops one
# entry past it, so an endless iterable is refused instead of hanging.
_MAX_LISTED_DIMS = 64


def _coerce_int_tuple(value, what: str, limit: int = _MAX_LISTED_DIMS,
                      limit_reason: str = f"no tensor has more than {_MAX_LISTED_DIMS} "
                                          f"dimensions") -> Tuple[int, ...]:
    """A tuple of ints from any iterable, reading at most limit + 1 entries: one entry
    past `limit` raises InvalidArgumentError (so a generator never runs away)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be a sequence of ints, got {type(value).__name__}")
    items = tuple(itertools.islice(value, limit + 1))
    if len(items) > limit:
        raise InvalidArgumentError(
            f"{what.capitalize()} has more than {limit} entries; {limit_reason}")
    return tuple(_coerce_int(v, f"{what}[{i}]") for i, v in enumerate(items))


def _coerce_flags(value):
    """A TensorFlags when only defined bits are set; otherwise the raw int, which
    compile_operator rejects (IntFlag would silently turn -1 into OWNED_BY_DML)."""
    value = _coerce_int(value, "flags")
    return TensorFlags(value) if value >= 0 and not value & ~_DEFINED_FLAGS else value


def _coerce_data_type(value, what: str):
    """A TensorDataType, or the raw int when it names no member (rejected at compile)."""
    value = _coerce_int(value, what)
    try:
        return TensorDataType(value)
    except ValueError:
        return value


def _coerce_number(value, what: str):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number, got {type(value).__name__}")
    if isinstance(value, numbers.Integral):
        return int(value)
    try:
        return float(value)
    except OverflowError:  # a Fraction (or the like) beyond double's range: it rounds to ±inf
        return math.inf if value > 0 else -math.inf


def _element_size(data_type) -> int:
    row = _DTYPE_ROWS.get(data_type)
    if row is None:
        raise InvalidArgumentError(f"DataType is {_name(data_type)}; it has no element size")
    return row[1]



# --------------------------------------------------------------------------- descriptors

@dataclass(frozen=True)
class BufferTensorDesc:
    """DML_BUFFER_TENSOR_DESC. DimensionCount is len(sizes); strides are in elements
    (None = packed); total_tensor_size_in_bytes=None means calc_buffer_tensor_size."""
    data_type: TensorDataType
    sizes: Tuple[int, ...]
    strides: Optional[Tuple[int, ...]] = None
    total_tensor_size_in_bytes: Optional[int] = None
    guaranteed_base_offset_alignment: int = 0
    flags: TensorFlags = TensorFlags.NONE

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "data_type", _coerce_data_type(self.data_type, "data_type"))
        set_(self, "sizes", _coerce_int_tuple(self.sizes, "sizes"))
        if self.strides is not None:
            set_(self, "strides", _coerce_int_tuple(self.strides, "strides"))
        set_(self, "guaranteed_base_offset_alignment",
             _coerce_int(self.guaranteed_base_offset_alignment, "guaranteed_base_offset_alignment"))
        set_(self, "flags", _coerce_flags(self.flags))
        if self.total_tensor_size_in_bytes is None:
            # The minimum size when it can be computed; otherwise compile_operator
            # reports whatever makes it incomputable.
            try:
                total = calc_buffer_tensor_size(self.data_type, self.sizes, self.strides)
            except InvalidArgumentError:
                total = None
            set_(self, "total_tensor_size_in_bytes", total)
        else:
            set_(self, "total_tensor_size_in_bytes",
                 _coerce_int(self.total_tensor_size_in_bytes, "total_tensor_size_in_bytes"))

    @property
    def dimension_count(self) -> int:
        """DirectML's DimensionCount: len(sizes)."""
        return len(self.sizes)

    def effective_strides(self) -> Tuple[int, ...]:
        """The strides in elements, packed (row-major) ones when strides is None."""
        if self.strides is not None:
            return self.strides
        out, step = [], 1
        for size in reversed(self.sizes):
            out.append(step)
            step *= size
        return tuple(reversed(out))


@dataclass(frozen=True)
class ScaleBias:
    """DML_SCALE_BIAS: g(x) = x * scale + bias before the operator (FLOAT fields)."""
    scale: float
    bias: float

    def __post_init__(self):
        object.__setattr__(self, "scale", _coerce_number(self.scale, "ScaleBias.scale"))
        object.__setattr__(self, "bias", _coerce_number(self.bias, "ScaleBias.bias"))


def _check_tensor_type(value, what):
    if not isinstance(value, BufferTensorDesc):
        raise TypeError(f"{what} must be a dml.BufferTensorDesc, got {type(value).__name__}")


def _check_scale_bias_type(value):
    if value is not None and not isinstance(value, ScaleBias):
        raise TypeError(f"scale_bias must be a dml.ScaleBias or None, got {type(value).__name__}")


@dataclass(frozen=True)
class ElementWiseClipOperatorDesc:
    """DML_ELEMENT_WISE_CLIP_OPERATOR_DESC: y = max(Min, min(g(x), Max)), Min/Max FLOAT."""
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    min: float
    max: float
    scale_bias: Optional[ScaleBias] = None

    def __post_init__(self):
        _check_tensor_type(self.input_tensor, "input_tensor")
        _check_tensor_type(self.output_tensor, "output_tensor")
        object.__setattr__(self, "min", _coerce_number(self.min, "min"))
        object.__setattr__(self, "max", _coerce_number(self.max, "max"))
        _check_scale_bias_type(self.scale_bias)


@dataclass(frozen=True)
class ElementWiseClip1OperatorDesc:
    """DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC: Min/Max are DML_SCALAR_UNION values whose
    type is min_max_data_type (which must equal the output's data type)."""
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    min_max_data_type: TensorDataType
    min: float
    max: float
    scale_bias: Optional[ScaleBias] = None

    def __post_init__(self):
        _check_tensor_type(self.input_tensor, "input_tensor")
        _check_tensor_type(self.output_tensor, "output_tensor")
        object.__setattr__(self, "min_max_data_type",
                           _coerce_data_type(self.min_max_data_type, "min_max_data_type"))
        object.__setattr__(self, "min", _coerce_number(self.min, "min"))
        object.__setattr__(self, "max", _coerce_number(self.max, "max"))
        _check_scale_bias_type(self.scale_bias)


@dataclass(frozen=True)
class ActivationShrinkOperatorDesc:
    """DML_ACTIVATION_SHRINK_OPERATOR_DESC (Bias, Threshold FLOAT)."""
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    bias: float = 0.0
    threshold: float = 0.5

    def __post_init__(self):
        _check_tensor_type(self.input_tensor, "input_tensor")
        _check_tensor_type(self.output_tensor, "output_tensor")
        object.__setattr__(self, "bias", _coerce_number(self.bias, "bias"))
        object.__setattr__(self, "threshold", _coerce_number(self.threshold, "threshold"))


@dataclass(frozen=True)
class ActivationHardmaxOperatorDesc:
    """DML_ACTIVATION_HARDMAX_OPERATOR_DESC: hardmax along the last dimension;
    the input's effective rank (leading 1s dropped) must be <= 2."""
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc

    def __post_init__(self):
        _check_tensor_type(self.input_tensor, "input_tensor")
        _check_tensor_type(self.output_tensor, "output_tensor")


@dataclass(frozen=True)
class ActivationHardmax1OperatorDesc:
    """DML_ACTIVATION_HARDMAX1_OPERATOR_DESC: hardmax over Axes (AxisCount = len(axes))."""
    input_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    axes: Tuple[int, ...]

    def __post_init__(self):
        _check_tensor_type(self.input_tensor, "input_tensor")
        _check_tensor_type(self.output_tensor, "output_tensor")
        n = self.input_tensor.dimension_count
        object.__setattr__(self, "axes", _coerce_int_tuple(
            self.axes, "axes", limit=n,
            limit_reason=f"AxisCount must be <= InputTensor.DimensionCount {n}"))


# --------------------------------------------------------------------------- sizes

def calc_buffer_tensor_size(data_type, sizes, strides=None) -> int:
    """DMLCalcBufferTensorSize: packed prod(sizes)*esize, strided
    (sum((s-1)*st) + 1)*esize, rounded up to a multiple of 4. Exact (no 32-bit
    wrap-around); raises InvalidArgumentError where DirectML's helper would
    return 0 or misbehave (unknown data type, no dimensions, size < 1,
    negative stride, strides of another length)."""
    data_type = _coerce_data_type(data_type, "data_type")
    sizes = _coerce_int_tuple(sizes, "sizes")
    esize = _element_size(data_type)
    if not sizes:
        raise InvalidArgumentError("Sizes is empty; DimensionCount must be >= 1")
    for i, s in enumerate(sizes):
        if s < 1:
            raise InvalidArgumentError(f"Sizes[{i}] is {s}; every size must be >= 1")
    if strides is None:
        nbytes = math.prod(sizes) * esize
    else:
        strides = _coerce_int_tuple(strides, "strides")
        if len(strides) != len(sizes):
            raise InvalidArgumentError(
                f"Strides has {len(strides)} entries; Sizes has {len(sizes)}")
        for i, st in enumerate(strides):
            if st < 0:
                raise InvalidArgumentError(f"Strides[{i}] is {st}; strides must be >= 0")
        nbytes = (sum((s - 1) * st for s, st in zip(sizes, strides)) + 1) * esize
    return (nbytes + 3) & ~3


