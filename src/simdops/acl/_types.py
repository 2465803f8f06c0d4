"""simdops.acl, part 1 of 2: Arm Compute Library's types as this layer models them —
DataType, Status, TensorInfo (and how a buffer is described as one), the
GEMMLowpOutputStageInfo descriptor. Constructors normalise Python types; the
functions' validate() checks values. Re-exported by simdops.acl.
"""
from __future__ import annotations

import enum
import itertools
import numbers
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from simdops import _core

_INT32_MIN = -(1 << 31)
_INT32_MAX = (1 << 31) - 1


class DataType(enum.Enum):
    """The arm_compute::DataType values these functions use."""
    S32 = "S32"
    QASYMM8 = "QASYMM8"
    QASYMM8_SIGNED = "QASYMM8_SIGNED"
    QSYMM16 = "QSYMM16"

    @property
    def numpy_dtype(self) -> np.dtype:
        """The numpy dtype of this ACL data type."""
        return _NUMPY[self]


_NUMPY = {DataType.S32: np.dtype(np.int32), DataType.QASYMM8: np.dtype(np.uint8),
          DataType.QASYMM8_SIGNED: np.dtype(np.int8), DataType.QSYMM16: np.dtype(np.int16)}
_FROM_NUMPY = {v: k for k, v in _NUMPY.items()}
_OUTPUT = (DataType.QASYMM8, DataType.QASYMM8_SIGNED, DataType.QSYMM16)
# DataType -> the dtype value C takes (DirectML's values)
_CORE_DTYPE = {dt: {name: value for value, name in _core.DTYPE_NAMES.items()}[dt.numpy_dtype.name]
               for dt in DataType}


def _range(dt: DataType) -> Tuple[int, int]:
    """dt's integer range, from C's dtype table."""
    row = _core.dtype_info(_CORE_DTYPE[dt])
    return row[4], row[5]


class ErrorCode(enum.Enum):
    """ACL's arm_compute::ErrorCode: a Status is OK or a RUNTIME_ERROR with a description."""

    OK = 0
    RUNTIME_ERROR = 1


class Status:
    """arm_compute::Status: truthy when OK; error_description() says what failed."""
    __slots__ = ("_code", "_description")

    def __init__(self, error_code: ErrorCode = ErrorCode.OK, error_description: str = ""):
        self._code = error_code
        self._description = error_description

    def __bool__(self) -> bool:
        return self._code == ErrorCode.OK

    def error_code(self) -> ErrorCode:
        """OK or RUNTIME_ERROR."""
        return self._code

    def error_description(self) -> str:
        """Why the check failed (ACL's message); empty when OK."""
        return self._description

    def __repr__(self):
        if self:
            return "Status(OK)"
        return f"Status({self._code.name}: {self._description!r})"


def _error(msg: str) -> Status:
    return Status(ErrorCode.RUNTIME_ERROR, msg)


def _coerce_int(value, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    return int(value)


def _coerce_data_type(value, field: str, also: str = "") -> DataType:
    """An acl.DataType, or its name as a str; ValueError names the field and the
    allowed names, TypeError any other type."""
    if isinstance(value, str):
        try:
            return DataType[value]
        except KeyError:
            raise ValueError(f"{field} {value!r} is not one of "
                             f"{', '.join(d.name for d in DataType)}") from None
    if not isinstance(value, DataType):
        raise TypeError(f"{field} must be an acl.DataType{' ' + also if also else ''}, "
                        f"got {type(value).__name__}")
    return value


# dimensions a TensorInfo may have (simdops' views hold at most 64)
_MAX_DIMS = 64


@dataclass(frozen=True)
class TensorInfo:
    """arm_compute::TensorInfo reduced to what validate() reads: shape (numpy order,
    last axis = ACL dimension 0) and data type."""
    shape: Tuple[int, ...]
    data_type: DataType

    def __post_init__(self):
        shape = self.shape
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
            raise TypeError(f"TensorInfo.shape must be a sequence of ints, "
                            f"got {type(shape).__name__}")
        # at most _MAX_DIMS + 1 entries are read: an endless iterable fails at once
        entries = list(itertools.islice(shape, _MAX_DIMS + 1))
        if len(entries) <= _MAX_DIMS:
            shape = tuple(_coerce_int(s, "TensorInfo.shape entries") for s in entries)
        else:
            shape = tuple(entries)
        data_type = _coerce_data_type(self.data_type, "TensorInfo.data_type")
        # C's view rule: at most 64 dimensions, sizes >= 0
        error = _core.check_view(_CORE_DTYPE[data_type], shape, "x")
        if error is not None and error.reason == "NDIM":
            raise ValueError(f"TensorInfo.shape has more than {_MAX_DIMS} dimensions")
        if error is not None:  # NEGATIVE_EXTENT
            raise ValueError(f"TensorInfo.shape {shape} has a negative size")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "data_type", data_type)

    @classmethod
    def from_array(cls, array) -> "TensorInfo":
        """The TensorInfo of a buffer (numpy array, memoryview, ...)."""
        info = _describe(array, "array")
        if info.data_type is None:
            raise TypeError(f"array has dtype {info.dtype}; no acl.DataType describes it")
        return cls(info.shape, info.data_type)

    def num_dimensions(self) -> int:
        """ACL's count: trailing (ACL order) dimensions of size 1 are not counted."""
        return len(_acl_dims(self.shape))

    def dimension(self, index: int) -> int:
        """ACL dimension `index` (0 = the last numpy axis); 1 beyond the shape."""
        return self.shape[-1 - index] if index < len(self.shape) else 1


def _acl_dims(shape) -> Tuple[int, ...]:
    """The shape without leading (numpy order) 1s, as ACL's TensorShape keeps it."""
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return tuple(shape[k:])


@dataclass(frozen=True)
class _Described:
    shape: Tuple[int, ...]
    data_type: Optional[DataType]   # None: a dtype no acl.DataType describes
    dtype: object                   # for messages
    array: Optional[np.ndarray]     # None for TensorInfo


def _describe(obj, name: str) -> _Described:
    if isinstance(obj, TensorInfo):
        return _Described(obj.shape, obj.data_type, obj.data_type.name, None)
    try:
        memoryview(obj)
    except TypeError:
        raise TypeError(f"{name} must be an acl.TensorInfo or a buffer (numpy array, "
                        f"memoryview, ...), got {type(obj).__name__}") from None
    arr = np.asarray(obj)  # a view: buffer-protocol objects are never copied here
    dt = _FROM_NUMPY.get(arr.dtype) if arr.dtype.isnative else None
    return _Described(arr.shape, dt, arr.dtype, arr)


def _type_name(d: _Described) -> str:
    return d.data_type.name if d.data_type is not None else f"{d.dtype} (no acl.DataType)"


class GEMMLowpOutputStageType(enum.Enum):
    """ACL's output stage kinds: which requantization GEMMLowpOutputStage runs."""

    NONE = 0
    QUANTIZE_DOWN = 1
    QUANTIZE_DOWN_FIXEDPOINT = 2
    QUANTIZE_DOWN_FLOAT = 3


# per-channel vectors longer than this are refused before they are read
_MAX_CHANNELS = 1 << 24


@dataclass(frozen=True)
class GEMMLowpOutputStageInfo:
    """arm_compute::GEMMLowpOutputStageInfo (the fields the fixed-point stage reads).
    Bounds default to the whole int32 range (no clamp) as in ACL; output_data_type
    None means "the output's"."""
    type: GEMMLowpOutputStageType = GEMMLowpOutputStageType.QUANTIZE_DOWN_FIXEDPOINT
    gemmlowp_offset: int = 0
    gemmlowp_multiplier: int = 0
    gemmlowp_shift: int = 0
    gemmlowp_min_bound: int = _INT32_MIN
    gemmlowp_max_bound: int = _INT32_MAX
    gemmlowp_multipliers: Tuple[int, ...] = ()
    gemmlowp_shifts: Tuple[int, ...] = ()
    is_quantized_per_channel: bool = False
    output_data_type: Optional[DataType] = None
    gemmlowp_real_multiplier: float = 0.0  # QUANTIZE_DOWN_FLOAT's multiplier

    def __post_init__(self):
        set_ = object.__setattr__
        if not isinstance(self.type, GEMMLowpOutputStageType):
            raise TypeError("type must be an acl.GEMMLowpOutputStageType")
        for name in ("gemmlowp_offset", "gemmlowp_multiplier", "gemmlowp_shift",
                     "gemmlowp_min_bound", "gemmlowp_max_bound"):
            set_(self, name, _coerce_int(getattr(self, name), name))
        for name in ("gemmlowp_multipliers", "gemmlowp_shifts"):
            values = getattr(self, name)
            # ACL's fields are std::vector<int32_t>: a sized sequence (an endless
            # iterator would never finish converting), at most one per channel
            if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") \
                    or not hasattr(values, "__iter__"):
                raise TypeError(f"{name} must be a sequence of ints (with a length), "
                                f"got {type(values).__name__}")
            try:
                count = len(values)
            except OverflowError:  # range(2**70): more entries than a length can count
                count = None
            if count is None or count > _MAX_CHANNELS:
                raise ValueError(f"{name} has {'more than 2**63' if count is None else count} "
                                 f"entries; at most {_MAX_CHANNELS} "
                                 f"(one per channel)")
            # a bounded read: an iterator that outruns its length is refused, not followed
            read = tuple(itertools.islice(values, count + 1))
            if len(read) != count:
                raise ValueError(f"{name}: len() says {count} entries but iterating it gave "
                                 f"{'more' if len(read) > count else len(read)}")
            set_(self, name, tuple(_coerce_int(v, f"{name} entries") for v in read))
        set_(self, "is_quantized_per_channel", bool(self.is_quantized_per_channel))
        if isinstance(self.gemmlowp_real_multiplier, bool) or not isinstance(
                self.gemmlowp_real_multiplier, (int, float, np.floating, np.integer)):
            raise TypeError("gemmlowp_real_multiplier must be a real number")
        try:
            set_(self, "gemmlowp_real_multiplier", float(self.gemmlowp_real_multiplier))
        except OverflowError:  # an int beyond a double's range
            raise ValueError(f"gemmlowp_real_multiplier is an int of "
                             f"{int(self.gemmlowp_real_multiplier).bit_length()} bits; it must "
                             f"be finite as a float32") from None
        if self.output_data_type is not None:
            set_(self, "output_data_type", _coerce_data_type(
                self.output_data_type, "GEMMLowpOutputStageInfo.output_data_type", "or None"))
