"""DirectML-style descriptors (SPEC §5): describe tensors and operators the way
directml.h does, validate them per feature level at compile_operator, and
execute on raw byte buffers through the same kernels as the array API.

    from simdops import dml
    t = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (1, 1, 2, 3))
    op = dml.compile_operator(dml.ElementWiseClipOperatorDesc(t, t, min=0.0, max=1.0))
    op.execute(src_bytes, dst_bytes)

Field-by-field mapping to directml.h and the decisions taken where the SPEC is
silent: docs/descriptors.md.
"""
from __future__ import annotations

import enum
import math
import numbers
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

import simdops  # the array API; looked up at call time so import order does not matter

__all__ = [
    "TensorDataType", "TensorFlags", "FeatureLevel", "InvalidArgumentError",
    "BufferTensorDesc", "ScaleBias", "ElementWiseClipOperatorDesc",
    "ElementWiseClip1OperatorDesc", "ActivationShrinkOperatorDesc",
    "ActivationHardmaxOperatorDesc", "ActivationHardmax1OperatorDesc",
    "calc_buffer_tensor_size", "compile_operator", "CompiledOperator",
]


class TensorDataType(enum.IntEnum):
    """DML_TENSOR_DATA_TYPE (values as in directml.h / SPEC §2)."""
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
    """DML_TENSOR_FLAGS."""
    NONE = 0
    OWNED_BY_DML = 1


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

_NUMPY_DTYPE = {
    TensorDataType.FLOAT32: np.dtype(np.float32), TensorDataType.FLOAT16: np.dtype(np.float16),
    TensorDataType.UINT32: np.dtype(np.uint32), TensorDataType.UINT16: np.dtype(np.uint16),
    TensorDataType.UINT8: np.dtype(np.uint8), TensorDataType.INT32: np.dtype(np.int32),
    TensorDataType.INT16: np.dtype(np.int16), TensorDataType.INT8: np.dtype(np.int8),
    TensorDataType.FLOAT64: np.dtype(np.float64), TensorDataType.UINT64: np.dtype(np.uint64),
    TensorDataType.INT64: np.dtype(np.int64),
}
_FLOATS = frozenset({TensorDataType.FLOAT32, TensorDataType.FLOAT16, TensorDataType.FLOAT64})
_INT_RANGE = {
    dt: (int(np.iinfo(npdt).min), int(np.iinfo(npdt).max))
    for dt, npdt in _NUMPY_DTYPE.items() if npdt.kind in "iu"
}


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


def _coerce_int_tuple(value, what: str) -> Tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be a sequence of ints, got {type(value).__name__}")
    return tuple(_coerce_int(v, f"{what}[{i}]") for i, v in enumerate(value))


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
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _element_size(data_type) -> int:
    dt = _NUMPY_DTYPE.get(data_type)
    if dt is None:
        raise InvalidArgumentError(f"DataType is {_name(data_type)}; it has no element size")
    return dt.itemsize


def _to_float32(value) -> float:
    """A DirectML FLOAT field: the Python number rounded to float32 (overflow -> inf)."""
    try:
        value = float(value)
    except OverflowError:  # an int beyond float64
        value = math.copysign(math.inf, value)
    with np.errstate(over="ignore"):
        return float(np.float32(value))


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
        set_(self, "flags", TensorFlags(_coerce_int(self.flags, "flags")))
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
        object.__setattr__(self, "axes", _coerce_int_tuple(self.axes, "axes"))


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


# --------------------------------------------------------------------------- operator table

_F = (TensorDataType.FLOAT32, TensorDataType.FLOAT16)
_I32 = (TensorDataType.UINT32, TensorDataType.UINT16, TensorDataType.UINT8,
        TensorDataType.INT32, TensorDataType.INT16, TensorDataType.INT8)
_I64 = (TensorDataType.UINT64, TensorDataType.INT64)
_FL = FeatureLevel


@dataclass(frozen=True)
class _OpSpec:
    name: str
    introduced: FeatureLevel
    dims: tuple          # ((level, (lo, hi)), ...) ascending; the last level <= fl applies
    dtypes: tuple        # ((level, (types...)), ...) cumulative
    in_place: bool

    def dim_range(self, fl):
        return [rng for lvl, rng in self.dims if lvl <= fl][-1]

    def data_types(self, fl):
        out = []
        for lvl, types in self.dtypes:
            if lvl <= fl:
                out.extend(types)
        return tuple(out)


_SPECS = {
    ElementWiseClipOperatorDesc: _OpSpec(
        "CLIP", _FL.FL_1_0, ((_FL.FL_1_0, (4, 4)), (_FL.FL_3_0, (1, 8))),
        ((_FL.FL_1_0, _F), (_FL.FL_2_1, _I32), (_FL.FL_5_0, _I64)), True),
    ElementWiseClip1OperatorDesc: _OpSpec(
        "CLIP1", _FL.FL_5_0, ((_FL.FL_5_0, (1, 8)),), ((_FL.FL_5_0, _F + _I32 + _I64),), True),
    ActivationShrinkOperatorDesc: _OpSpec(
        "SHRINK", _FL.FL_2_0, ((_FL.FL_2_0, (4, 5)), (_FL.FL_3_0, (1, 8))),
        ((_FL.FL_2_0, _F), (_FL.FL_5_1, _I32)), True),
    ActivationHardmaxOperatorDesc: _OpSpec(
        "HARDMAX", _FL.FL_1_0, ((_FL.FL_1_0, (4, 4)), (_FL.FL_2_0, (4, 5)), (_FL.FL_3_0, (1, 8))),
        ((_FL.FL_1_0, _F),), False),
    ActivationHardmax1OperatorDesc: _OpSpec(
        "HARDMAX1", _FL.FL_5_1, ((_FL.FL_5_1, (1, 8)),), ((_FL.FL_5_1, _F),), False),
}


def _range_text(rng) -> str:
    lo, hi = rng
    return str(lo) if lo == hi else f"{lo} to {hi}"


# --------------------------------------------------------------------------- validation

def _self_overlaps(sizes, strides) -> bool:
    """True when two elements share an address. With the size>1 dims sorted by
    stride, each stride stepping past the span of the smaller ones proves a
    one-to-one layout; interleaved layouts are checked exactly by listing the
    offsets, up to 4M elements (the kernels' driver draws the same line)."""
    dims = sorted((st, s) for s, st in zip(sizes, strides) if s > 1)
    span = 1
    for st, s in dims:
        if st < span:
            count = math.prod(sizes)
            if st == 0 or count > _EXACT_OVERLAP_LIMIT:
                return True
            offsets = np.zeros((), dtype=np.int64)
            for size, stride in zip(sizes, strides):
                offsets = offsets[..., None] + np.arange(size, dtype=np.int64) * stride
            return np.unique(offsets).size < count
        span += (s - 1) * st
    return False


_EXACT_OVERLAP_LIMIT = 1 << 22


def _validate_tensor(t: BufferTensorDesc, role: str, spec: _OpSpec, fl) -> None:
    op = f"{spec.name} at {_level_name(fl)}"
    dt = t.data_type
    if not isinstance(dt, TensorDataType):
        raise InvalidArgumentError(f"{role}.DataType is {dt}; not a DML_TENSOR_DATA_TYPE value")
    if dt == TensorDataType.UNKNOWN:
        raise InvalidArgumentError(f"{role}.DataType is UNKNOWN; {op} needs a data type")
    if dt == TensorDataType.FLOAT64:
        raise InvalidArgumentError(
            f"{role}.DataType is FLOAT64; no DirectML descriptor accepts FLOAT64 "
            f"(the array API simdops.clip/shrink/hardmax does)")
    supported = spec.data_types(fl)
    if dt not in supported:
        later = [f"{_name(dt)} from {lvl.name}" for lvl, types in spec.dtypes
                 if lvl > fl and dt in types]
        hint = f" ({later[0]})" if later else ""
        raise InvalidArgumentError(
            f"{role}.DataType is {dt.name}; {op} supports "
            f"{', '.join(d.name for d in supported)}{hint}")
    n = t.dimension_count
    lo, hi = spec.dim_range(fl)
    if not lo <= n <= hi:
        later = [f"{_range_text(rng)} from {lvl.name}" for lvl, rng in spec.dims
                 if lvl > fl and rng[0] <= n <= rng[1]]
        hint = f" ({later[0]})" if later else ""
        raise InvalidArgumentError(
            f"{role}.DimensionCount is {n}; {op} requires {_range_text((lo, hi))}{hint}")
    for i, s in enumerate(t.sizes):
        if not 1 <= s <= _UINT32_MAX:
            raise InvalidArgumentError(
                f"{role}.Sizes[{i}] is {s}; every size must be in 1..{_UINT32_MAX}")
    count = math.prod(t.sizes)
    if count > _UINT32_MAX:
        raise InvalidArgumentError(
            f"{role}.Sizes {t.sizes} hold {count} elements; at most 2**32-1 are allowed")
    if t.strides is not None:
        if len(t.strides) != n:
            raise InvalidArgumentError(
                f"{role}.Strides has {len(t.strides)} entries; DimensionCount is {n}")
        for i, st in enumerate(t.strides):
            if not 0 <= st <= _UINT32_MAX:
                raise InvalidArgumentError(
                    f"{role}.Strides[{i}] is {st}; strides are element counts in 0..{_UINT32_MAX}")
    if role == "OutputTensor" and _self_overlaps(t.sizes, t.effective_strides()):
        raise InvalidArgumentError(
            f"{role}.Strides {t.effective_strides()} map two elements of Sizes {t.sizes} to "
            f"one address; an output needs a distinct address per element (a stride of 0 "
            f"broadcasts inputs only)")
    minimum = calc_buffer_tensor_size(dt, t.sizes, t.strides)
    total = t.total_tensor_size_in_bytes
    if total is None or total < minimum:
        raise InvalidArgumentError(
            f"{role}.TotalTensorSizeInBytes is {total}; must be >= {minimum} "
            f"(DMLCalcBufferTensorSize of its DataType, Sizes and Strides)")
    if total % 4 or total > _UINT64_MAX:
        raise InvalidArgumentError(
            f"{role}.TotalTensorSizeInBytes is {total}; must be a multiple of 4 "
            f"(and fit in UINT64)")
    align = t.guaranteed_base_offset_alignment
    esize = _element_size(dt)
    if align != 0 and (align < esize or align & (align - 1) or align > _UINT32_MAX):
        raise InvalidArgumentError(
            f"{role}.GuaranteedBaseOffsetAlignment is {align}; must be 0 or a power of two "
            f">= the element size {esize}")
    flags = int(t.flags)
    if flags & ~int(TensorFlags.OWNED_BY_DML):
        raise InvalidArgumentError(
            f"{role}.Flags is {flags:#x}; only NONE (0) and OWNED_BY_DML (1) exist")
    if flags & TensorFlags.OWNED_BY_DML and role == "OutputTensor":
        raise InvalidArgumentError(
            f"{role}.Flags has OWNED_BY_DML; only input tensors may be owned by DirectML")


def _check_float_param(value, field: str) -> float:
    """A FLOAT field: NaN is rejected; the value is rounded to float32 as DirectML stores it."""
    if isinstance(value, float) and math.isnan(value):
        raise InvalidArgumentError(f"{field} is NaN; it must be a number (±inf allowed)")
    return _to_float32(value)


def _scale_bias_params(sb: Optional[ScaleBias], dt: TensorDataType) -> dict:
    if sb is None:
        return {}
    if dt in _I64:
        raise InvalidArgumentError(
            f"ScaleBias is given but the tensors are {dt.name}; DirectML has no ScaleBias "
            f"for 64-bit integer tensors")
    scale = _check_float_param(sb.scale, "ScaleBias.Scale")
    bias = _check_float_param(sb.bias, "ScaleBias.Bias")
    if dt not in _FLOATS:
        for field, v in (("ScaleBias.Scale", scale), ("ScaleBias.Bias", bias)):
            if not math.isfinite(v):
                raise InvalidArgumentError(
                    f"{field} is {v} (as FLOAT); {dt.name} tensors need a finite Scale and Bias")
    return {"scale": scale, "bias": bias}


def _scalar_union_value(value, field: str, dt):
    """A DML_SCALAR_UNION member of type dt holding `value`, as a Python number."""
    if dt in _FLOATS:
        if isinstance(value, float) and math.isnan(value):
            raise InvalidArgumentError(f"{field} is NaN; it must be a number (±inf allowed)")
        return value  # the array API rounds to the tensor's float type exactly once
    lo, hi = _INT_RANGE[dt]
    if isinstance(value, float):
        if not (math.isfinite(value) and value == int(value)):
            raise InvalidArgumentError(
                f"{field} is {value!r}; MinMaxDataType {dt.name} holds integers only")
        value = int(value)
    if not lo <= value <= hi:
        raise InvalidArgumentError(
            f"{field} is {value}; not representable as MinMaxDataType {dt.name} ({lo} to {hi})")
    return value


def _validate_params(desc, spec: _OpSpec, fl) -> dict:
    """Operator-specific fields -> keyword arguments for the array API call."""
    dt = desc.input_tensor.data_type
    if isinstance(desc, ElementWiseClipOperatorDesc):
        return {"min": _check_float_param(desc.min, "Min"),
                "max": _check_float_param(desc.max, "Max"),
                **_scale_bias_params(desc.scale_bias, dt)}
    if isinstance(desc, ElementWiseClip1OperatorDesc):
        mmdt = desc.min_max_data_type
        out_dt = desc.output_tensor.data_type
        if not isinstance(mmdt, TensorDataType):
            raise InvalidArgumentError(
                f"MinMaxDataType is {mmdt}; not a DML_TENSOR_DATA_TYPE value")
        if mmdt != out_dt:
            raise InvalidArgumentError(
                f"MinMaxDataType is {mmdt.name}; must equal OutputTensor.DataType {out_dt.name}")
        return {"min": _scalar_union_value(desc.min, "Min", mmdt),
                "max": _scalar_union_value(desc.max, "Max", mmdt),
                **_scale_bias_params(desc.scale_bias, dt)}
    if isinstance(desc, ActivationShrinkOperatorDesc):
        bias = _check_float_param(desc.bias, "Bias")
        threshold = _check_float_param(desc.threshold, "Threshold")
        if threshold < 0:
            raise InvalidArgumentError(f"Threshold is {desc.threshold!r}; must be >= 0")
        return {"bias": bias, "threshold": threshold}
    if isinstance(desc, ActivationHardmaxOperatorDesc):
        sizes = desc.input_tensor.sizes
        k = 0
        while k < len(sizes) - 1 and sizes[k] == 1:
            k += 1
        rank = len(sizes) - k
        if rank > 2:
            raise InvalidArgumentError(
                f"InputTensor.Sizes is {sizes}: effective rank {rank} (DimensionCount without "
                f"leading 1s); HARDMAX requires <= 2 (HARDMAX1 reduces chosen Axes)")
        return {"axis": -1}
    if isinstance(desc, ActivationHardmax1OperatorDesc):
        axes = desc.axes
        n = desc.input_tensor.dimension_count
        if not axes:
            raise InvalidArgumentError("Axes is empty; AxisCount must be >= 1")
        for i, a in enumerate(axes):
            if not 0 <= a < n:
                raise InvalidArgumentError(
                    f"Axes[{i}] is {a}; must be in 0..{n - 1} (InputTensor.DimensionCount is {n})")
            if a in axes[:i]:
                raise InvalidArgumentError(
                    f"Axes[{i}] is {a}, which repeats Axes[{axes.index(a)}]; axes must be unique")
        return {"axis": tuple(axes)}
    raise AssertionError(desc)  # pragma: no cover


def compile_operator(desc, feature_level=NEWEST_FEATURE_LEVEL) -> "CompiledOperator":
    """Validate `desc` against DirectML's rules at `feature_level` (SPEC §5) and
    return a CompiledOperator. Raises InvalidArgumentError naming the field."""
    spec = _SPECS.get(type(desc))
    if spec is None:
        names = ", ".join(cls.__name__ for cls in _SPECS)
        raise TypeError(f"compile_operator: desc must be one of {names}; got {type(desc).__name__}")
    level = _coerce_int(feature_level, "feature_level")
    try:
        fl = FeatureLevel(level)
    except ValueError:
        raise InvalidArgumentError(
            f"feature_level is {level:#x}; not a DML_FEATURE_LEVEL value") from None
    if fl < spec.introduced:
        raise InvalidArgumentError(
            f"{spec.name} is not available at {fl.name}; "
            f"it was introduced in {spec.introduced.name}")
    _validate_tensor(desc.input_tensor, "InputTensor", spec, fl)
    _validate_tensor(desc.output_tensor, "OutputTensor", spec, fl)
    a, b = desc.input_tensor, desc.output_tensor
    if b.data_type != a.data_type:
        raise InvalidArgumentError(
            f"OutputTensor.DataType is {_name(b.data_type)}; must equal InputTensor.DataType "
            f"{_name(a.data_type)}")
    if b.dimension_count != a.dimension_count:
        raise InvalidArgumentError(
            f"OutputTensor.DimensionCount is {b.dimension_count}; must equal "
            f"InputTensor.DimensionCount {a.dimension_count}")
    if b.sizes != a.sizes:
        raise InvalidArgumentError(
            f"OutputTensor.Sizes is {b.sizes}; must equal InputTensor.Sizes {a.sizes}")
    params = _validate_params(desc, spec, fl)
    return CompiledOperator(desc, fl, spec, params)


# --------------------------------------------------------------------------- execution

def _bytes_of(buf, name: str, writable: bool) -> memoryview:
    try:
        mv = memoryview(buf)
    except TypeError:
        raise TypeError(f"{name} must support the buffer protocol (bytearray, numpy array, "
                        f"memoryview, ...), got {type(buf).__name__}") from None
    if writable and mv.readonly:
        raise InvalidArgumentError(
            f"{name} buffer is read-only; OutputTensor needs a writable buffer")
    if not mv.c_contiguous:
        raise InvalidArgumentError(
            f"{name} buffer is not C-contiguous; a bound buffer is one flat range of bytes")
    return mv.cast("B") if (mv.ndim != 1 or mv.format != "B") else mv


def _address(mv: memoryview) -> int:
    return np.frombuffer(mv, dtype=np.uint8).__array_interface__["data"][0] if mv.nbytes else 0


def _view(mv: memoryview, t: BufferTensorDesc) -> np.ndarray:
    """The tensor as a numpy view of the buffer: element strides * itemsize bytes."""
    dt = _NUMPY_DTYPE[t.data_type]
    strides = t.effective_strides()
    count = sum((s - 1) * st for s, st in zip(t.sizes, strides)) + 1
    flat = np.frombuffer(mv, dtype=dt, count=count)
    return np.lib.stride_tricks.as_strided(
        flat, shape=t.sizes, strides=tuple(st * dt.itemsize for st in strides),
        writeable=not mv.readonly)


def _same_layout(a: BufferTensorDesc, b: BufferTensorDesc) -> bool:
    return all(s == 1 or x == y for s, x, y in zip(a.sizes, a.effective_strides(),
                                                   b.effective_strides()))


class CompiledOperator:
    """A validated operator (IDMLCompiledOperator). execute() binds buffers and runs."""

    def __init__(self, desc, feature_level: FeatureLevel, spec: _OpSpec, params: dict):
        self._desc = desc
        self._feature_level = feature_level
        self._spec = spec
        self._params = params

    @property
    def desc(self):
        return self._desc

    @property
    def feature_level(self) -> FeatureLevel:
        return self._feature_level

    @property
    def operator(self) -> str:
        """"CLIP", "CLIP1", "SHRINK", "HARDMAX" or "HARDMAX1"."""
        return self._spec.name

    def __repr__(self):
        return f"<dml.CompiledOperator {self._spec.name} at {self._feature_level.name}>"

    def execute(self, input, output) -> None:
        """Run on two buffers seen as raw bytes (offset 0 = the tensor's base).
        Checks the bindings as DirectML does: size >= TotalTensorSizeInBytes,
        address alignment, writable output, in-place only where allowed."""
        name = self._spec.name
        tin, tout = self._desc.input_tensor, self._desc.output_tensor
        if tin.flags & TensorFlags.OWNED_BY_DML:
            raise InvalidArgumentError(
                "InputTensor.Flags has OWNED_BY_DML; simdops has no operator initializer or "
                "persistent resource to own the data, so it cannot execute such a tensor")
        bin_ = _bytes_of(input, "input", writable=False)
        bout = _bytes_of(output, "output", writable=True)
        addresses = []
        for mv, t, role, which in ((bin_, tin, "InputTensor", "input"),
                                   (bout, tout, "OutputTensor", "output")):
            if mv.nbytes < t.total_tensor_size_in_bytes:
                raise InvalidArgumentError(
                    f"{which} buffer has {mv.nbytes} bytes; {role}.TotalTensorSizeInBytes is "
                    f"{t.total_tensor_size_in_bytes}")
            addr = _address(mv)
            align = t.guaranteed_base_offset_alignment
            if align and addr % align:
                raise InvalidArgumentError(
                    f"{which} buffer address {addr:#x} is not a multiple of "
                    f"{role}.GuaranteedBaseOffsetAlignment {align}")
            addresses.append(addr)
        a_in, a_out = addresses
        if (a_in < a_out + tout.total_tensor_size_in_bytes
                and a_out < a_in + tin.total_tensor_size_in_bytes):
            if not self._spec.in_place:
                raise InvalidArgumentError(
                    f"{name} cannot run in place: the output binding overlaps the input binding")
            if a_in != a_out or not _same_layout(tin, tout):
                raise InvalidArgumentError(
                    f"the output binding overlaps the input binding; {name} runs in place only "
                    f"when OutputTensor aliases InputTensor exactly (same address and strides)")
        x = _view(bin_, tin)
        y = _view(bout, tout)
        p = self._params
        if name in ("CLIP", "CLIP1"):
            simdops.clip(x, p["min"], p["max"], scale=p.get("scale"), bias=p.get("bias"), out=y)
        elif name == "SHRINK":
            simdops.shrink(x, p["bias"], p["threshold"], out=y)
        else:
            simdops.hardmax(x, axis=p["axis"], out=y)
