"""simdops.dml, part 2 of 3: compile_operator. DirectML's per-feature-level tables
(operators, data types, dimension counts), the descriptor-structure rules and the
mapping of operator fields to the array API's parameters; the first failure is an
InvalidArgumentError naming the DirectML field. See docs/descriptors.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from simdops._dml_execute import CompiledOperator
from simdops._dml_types import (
    _FLOATS, _INT_RANGE, _UINT32_MAX, _UINT64_MAX, NEWEST_FEATURE_LEVEL,
    ActivationHardmax1OperatorDesc, ActivationHardmaxOperatorDesc,
    ActivationShrinkOperatorDesc, BufferTensorDesc, ElementWiseClip1OperatorDesc,
    ElementWiseClipOperatorDesc, FeatureLevel, InvalidArgumentError, ScaleBias, TensorDataType,
    TensorFlags, _coerce_int, _element_size, _level_name, _name, calc_buffer_tensor_size)

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




def _to_float32(value) -> float:
    """A DirectML FLOAT field: the Python number rounded to float32 (overflow -> inf)."""
    try:
        value = float(value)
    except OverflowError:  # an int beyond float64
        value = math.copysign(math.inf, value)
    with np.errstate(over="ignore"):
        return float(np.float32(value))


