"""Arm Compute Library-style functions (SPEC §6) over simdops' requant kernels.

    from simdops import acl
    f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint()
    f.configure(acc, bias, out, result_fixedpoint_multiplier=M, result_shift=s,
                result_offset_after_shift=o, min=0, max=255)
    f.run()

Shapes are in numpy order: the last axis is ACL's dimension 0 (TensorShape(21, 13)
in ACL is shape (13, 21) here). Like ACL's TensorShape, shapes compare equal when
they differ only by leading (numpy order) sizes of 1. See docs/descriptors.md.
"""
from __future__ import annotations

import enum
import numbers
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from simdops import _core

__all__ = [
    "DataType", "ErrorCode", "Status", "TensorInfo",
    "GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint",
    "GEMMLowpOutputStageType", "GEMMLowpOutputStageInfo", "GEMMLowpOutputStage",
]

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
        return _NUMPY[self]


_NUMPY = {DataType.S32: np.dtype(np.int32), DataType.QASYMM8: np.dtype(np.uint8),
          DataType.QASYMM8_SIGNED: np.dtype(np.int8), DataType.QSYMM16: np.dtype(np.int16)}
_FROM_NUMPY = {v: k for k, v in _NUMPY.items()}
_OUTPUT = (DataType.QASYMM8, DataType.QASYMM8_SIGNED, DataType.QSYMM16)
# DataType -> the dtype value C takes (DirectML's values)
_CORE_DTYPE = {dt: {name: value for value, name in _core.DTYPE_NAMES.items()}[dt.numpy_dtype.name]
               for dt in DataType}
_FIXED_NAMES = {"multiplier": "result_fixedpoint_multiplier", "shift": "result_shift",
                "offset": "result_offset_after_shift"}
_STAGE_NAMES = {"multiplier": "gemmlowp_multiplier", "shift": "gemmlowp_shift",
                "offset": "gemmlowp_offset"}


def _range(dt: DataType) -> Tuple[int, int]:
    info = np.iinfo(dt.numpy_dtype)
    return int(info.min), int(info.max)


class ErrorCode(enum.Enum):
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
        return self._code

    def error_description(self) -> str:
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
        shape = tuple(_coerce_int(s, "TensorInfo.shape entries") for s in shape)
        if any(s < 0 for s in shape):
            raise ValueError(f"TensorInfo.shape {shape} has a negative size")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "data_type",
                           _coerce_data_type(self.data_type, "TensorInfo.data_type"))

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


def _validate_input(input, output) -> Status:
    if input is None or output is None:
        return _error("input and output are required")
    din = _describe(input, "input")
    if din.data_type != DataType.S32:
        return _error(f"input data type is {_type_name(din)}; must be S32")
    return Status()


def _validate_tensors(input, bias, output, allowed_outputs) -> Tuple[Status, tuple]:
    """ACL's shared checks: input S32; bias None or S32 with one (ACL) dimension equal to
    input's dimension 0; output of input's shape and an allowed type."""
    status = _validate_input(input, output)
    if not status:
        return status, ()
    din = _describe(input, "input")
    dbias = None if bias is None else _describe(bias, "bias")
    dout = _describe(output, "output")
    channels = din.shape[-1] if din.shape else 1
    if dbias is not None:
        if dbias.data_type != DataType.S32:
            return _error(f"bias data type is {_type_name(dbias)}; must be S32 (the input's)"), ()
        if len(_acl_dims(dbias.shape)) > 1:
            return _error(f"bias has shape {dbias.shape}; it must have one dimension"), ()
        length = dbias.shape[-1] if dbias.shape else 1
        if length != channels:
            return _error(f"bias has {length} elements; must equal the input's last dimension "
                          f"(ACL dimension 0) {channels}"), ()
    if _acl_dims(dout.shape) != _acl_dims(din.shape):
        return _error(f"output shape {dout.shape} differs from input shape {din.shape}"), ()
    if dout.data_type not in allowed_outputs:
        names = " or ".join(d.name for d in allowed_outputs)
        return _error(f"output data type is {_type_name(dout)}; must be {names}"), ()
    return Status(), (din, dbias, dout)


def _check_bounds(lo, hi, lo_name, hi_name):
    """ACL's bound fields are int32_t: a value no int32 holds cannot be given to ACL.
    (Their meaning, an intersection with the output range, is the stage's own.)"""
    for name, v in ((lo_name, lo), (hi_name, hi)):
        if not _INT32_MIN <= v <= _INT32_MAX:
            return _error(f"{name} is {v}; outside the int32 range")
    return Status()


def _array_for_run(d: _Described, name: str, shape, writable=False) -> np.ndarray:
    if d.array is None:
        raise TypeError(f"configure needs arrays (buffer-protocol objects); {name} is a "
                        f"TensorInfo (TensorInfo is for validate)")
    arr = d.array
    if writable and not arr.flags.writeable:
        raise ValueError(f"{name} is read-only; it must be writable")
    if arr.shape != shape:
        arr = arr.reshape(shape)  # only size-1 dims differ: always a view, never a copy
    return arr


def _requant_error(error, names: dict) -> str:
    """C's reason for requant parameters (a _core.CoreError) in ACL's words; names maps
    C's argument names (multiplier, shift, offset) to the caller's field names."""
    name = names.get(error.arg, error.arg)
    if error.reason == "INT32_RANGE":
        return f"{name} is {error.value}; outside the int32 range"
    if error.reason == "SHIFT_RANGE":
        return (f"{name} is {error.value}; must be in [-31, 31] (negative: a left shift "
                f"for multipliers > 1)")
    if error.reason == "QSYMM16_OFFSET":
        return f"{name} is {error.value}; QSYMM16 output has no offset (it must be 0)"
    return error.message


def _check_requant(out_type: DataType, names: dict, multiplier, shift, offset, lo=None,
                   hi=None) -> Status:
    """C's requant parameter rules (int32 multiplier and offset, shift in [-31, 31],
    no QSYMM16 offset, bounds) as a Status."""
    try:
        error = _core.check_requant(_CORE_DTYPE[out_type], multiplier, shift, offset, lo, hi)
    except ValueError as e:  # an int beyond 64 bits, refused before C: "multiplier = ..."
        arg, _, rest = str(e).partition(" = ")
        return _error(f"{names.get(arg, arg)} = {rest}")
    return Status() if error is None else _error(_requant_error(error, names))


def _run_shapes(din: _Described, dbias: Optional[_Described]):
    shape = din.shape if din.shape else (1,)
    return shape, (None if dbias is None else (shape[-1],))


class GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint:
    """ACL 18.03's NEGEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint: int32
    accumulators (+ bias) -> QASYMM8 via gemmlowp's fixed-point multiply (SPEC §3)."""

    def __init__(self):
        self._args = None

    @staticmethod
    def validate(input, bias, output, min=0, max=0) -> Status:
        """ACL 18.03 rules: input S32; bias None or S32 1-D of the input's last dimension;
        output QASYMM8 of the input's shape; 0 <= min <= max <= 255."""
        min = _coerce_int(min, "min")
        max = _coerce_int(max, "max")
        # ACL's order: the input's type, then min/max, then bias and output.
        status = _validate_input(input, output)
        if not status:
            return status
        if max > 255:
            return _error(f"max is {max}; must be <= 255")
        if min < 0 or min > max:
            return _error(f"min is {min}; must satisfy 0 <= min <= max (max is {max})")
        status, _ = _validate_tensors(input, bias, output, (DataType.QASYMM8,))
        return status

    def configure(self, input, bias, output, result_fixedpoint_multiplier, result_shift,
                  result_offset_after_shift, min=0, max=0) -> None:
        """Check everything (ValueError if invalid) and bind the arrays for run()."""
        status = self.validate(input, bias, output, min, max)
        if not status:
            raise ValueError(f"GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint: "
                             f"{status.error_description()}")
        params = (_coerce_int(result_fixedpoint_multiplier, "result_fixedpoint_multiplier"),
                  _coerce_int(result_shift, "result_shift"),
                  _coerce_int(result_offset_after_shift, "result_offset_after_shift"),
                  int(min), int(max))
        status = _check_requant(DataType.QASYMM8, _FIXED_NAMES, *params)
        if not status:
            raise ValueError(f"GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint: "
                             f"{status.error_description()}")
        din, dbias, dout = _describe(input, "input"), None, _describe(output, "output")
        if bias is not None:
            dbias = _describe(bias, "bias")
        shape, bias_shape = _run_shapes(din, dbias)
        x = _array_for_run(din, "input", shape)
        b = None if dbias is None else _array_for_run(dbias, "bias", bias_shape)
        y = _array_for_run(dout, "output", shape, writable=True)
        # 18.03: min == max is no clamp, as C's requant reads it
        self._args = (_core.prepare_requant(_CORE_DTYPE[DataType.QASYMM8], *params), x, y, b)

    def run(self) -> None:
        """Write the output from the input's current contents."""
        if self._args is None:
            raise RuntimeError("run() before configure()")
        prepared, x, y, b = self._args
        _core.requant_prepared(prepared, x, y, b)


class GEMMLowpOutputStageType(enum.Enum):
    NONE = 0
    QUANTIZE_DOWN = 1
    QUANTIZE_DOWN_FIXEDPOINT = 2
    QUANTIZE_DOWN_FLOAT = 3


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

    def __post_init__(self):
        set_ = object.__setattr__
        if not isinstance(self.type, GEMMLowpOutputStageType):
            raise TypeError("type must be an acl.GEMMLowpOutputStageType")
        for name in ("gemmlowp_offset", "gemmlowp_multiplier", "gemmlowp_shift",
                     "gemmlowp_min_bound", "gemmlowp_max_bound"):
            set_(self, name, _coerce_int(getattr(self, name), name))
        for name in ("gemmlowp_multipliers", "gemmlowp_shifts"):
            values = getattr(self, name)
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                raise TypeError(f"{name} must be a sequence of ints")
            set_(self, name, tuple(_coerce_int(v, f"{name} entries") for v in values))
        set_(self, "is_quantized_per_channel", bool(self.is_quantized_per_channel))
        if self.output_data_type is not None:
            set_(self, "output_data_type", _coerce_data_type(
                self.output_data_type, "GEMMLowpOutputStageInfo.output_data_type", "or None"))


class GEMMLowpOutputStage:
    """NEGEMMLowpOutputStage for QUANTIZE_DOWN_FIXEDPOINT: int32 (+ bias) -> QASYMM8,
    QASYMM8_SIGNED or QSYMM16, per tensor or per channel (last axis)."""

    def __init__(self):
        self._args = None

    @staticmethod
    def validate(input, bias, output, info: GEMMLowpOutputStageInfo) -> Status:
        if not isinstance(info, GEMMLowpOutputStageInfo):
            raise TypeError("info must be an acl.GEMMLowpOutputStageInfo")
        if info.type != GEMMLowpOutputStageType.QUANTIZE_DOWN_FIXEDPOINT:
            return _error(f"GEMMLowpOutputStageInfo.type is {info.type.name}; simdops "
                          f"implements QUANTIZE_DOWN_FIXEDPOINT only")
        status, described = _validate_tensors(input, bias, output, _OUTPUT)
        if not status:
            return status
        din, _, dout = described
        out_type = dout.data_type
        if info.output_data_type is not None and info.output_data_type != out_type:
            return _error(f"GEMMLowpOutputStageInfo.output_data_type is "
                          f"{info.output_data_type.name}; the output is {out_type.name}")
        lo, hi = info.gemmlowp_min_bound, info.gemmlowp_max_bound
        status = _check_bounds(lo, hi, "gemmlowp_min_bound", "gemmlowp_max_bound")
        if not status:
            return status
        if lo > hi:
            return _error(f"gemmlowp_min_bound {lo} > gemmlowp_max_bound {hi}")
        tlo, thi = _range(out_type)
        if lo > thi or hi < tlo:
            return _error(f"bounds [{lo}, {hi}] lie outside {out_type.name}'s range "
                          f"[{tlo}, {thi}]")
        channels = din.shape[-1] if din.shape else 1
        if info.is_quantized_per_channel:
            pairs = (("gemmlowp_multipliers", info.gemmlowp_multipliers),
                     ("gemmlowp_shifts", info.gemmlowp_shifts))
            for name, values in pairs:
                if len(values) != channels:
                    return _error(f"{name} has {len(values)} entries; per-channel "
                                  f"quantization needs the input's last dimension {channels}")
            # C checks one (multiplier, shift) at a time, with the offset
            checks = [({"multiplier": f"gemmlowp_multipliers[{k}]",
                        "shift": f"gemmlowp_shifts[{k}]", "offset": "gemmlowp_offset"}, m, s)
                      for k, (m, s) in enumerate(zip(info.gemmlowp_multipliers,
                                                     info.gemmlowp_shifts))]
            checks = checks or [(_STAGE_NAMES, 0, 0)]
        else:
            checks = [(_STAGE_NAMES, info.gemmlowp_multiplier, info.gemmlowp_shift)]
        for names, m, s in checks:
            status = _check_requant(out_type, names, m, s, info.gemmlowp_offset)
            if not status:
                return status
        return Status()

    def configure(self, input, bias, output, info: GEMMLowpOutputStageInfo) -> None:
        status = self.validate(input, bias, output, info)
        if not status:
            raise ValueError(f"GEMMLowpOutputStage: {status.error_description()}")
        din, dout = _describe(input, "input"), _describe(output, "output")
        dbias = None if bias is None else _describe(bias, "bias")
        shape, bias_shape = _run_shapes(din, dbias)
        x = _array_for_run(din, "input", shape)
        b = None if dbias is None else _array_for_run(dbias, "bias", bias_shape)
        y = _array_for_run(dout, "output", shape, writable=True)
        tlo, thi = _range(dout.data_type)
        # Bounds beyond the output range clamp nothing on that side (ACL's defaults are
        # the whole int32 range); inside it they are a bounded ReLU.
        lo = max(info.gemmlowp_min_bound, tlo)
        hi = min(info.gemmlowp_max_bound, thi)
        mult = shift = None
        if info.is_quantized_per_channel:
            mult = np.asarray(info.gemmlowp_multipliers, dtype=np.int32)
            shift = np.asarray(info.gemmlowp_shifts, dtype=np.int32)
        bounds = (None, None) if (lo, hi) == (tlo, thi) else (lo, hi)
        scalar = ((0, 0) if info.is_quantized_per_channel
                  else (info.gemmlowp_multiplier, info.gemmlowp_shift))
        prepared = _core.prepare_requant(_CORE_DTYPE[dout.data_type], *scalar,
                                         info.gemmlowp_offset, *bounds)
        self._args = (prepared, x, y, b, mult, shift, lo if lo == hi else None)

    def run(self) -> None:
        if self._args is None:
            raise RuntimeError("run() before configure()")
        prepared, x, y, b, mult, shift, only_value = self._args
        if only_value is not None:
            # Bounds that meet in one value clamp everything to it; C's requant reads
            # min == max as ACL 18.03's "no clamp", so this one case is filled here.
            y[...] = only_value
            return
        _core.requant_prepared(prepared, x, y, b, mult, shift)
