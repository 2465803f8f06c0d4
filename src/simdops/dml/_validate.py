"""simdops.dml, part 2 of 3: compile_operator. DirectML's per-feature-level tables
(operators, data types, dimension counts), the descriptor-structure rules and the
mapping of operator fields to the array API's parameters; the first failure is an
InvalidArgumentError naming the DirectML field. See docs/descriptors.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from simdops import _core
from simdops._interop import int_text
from simdops.dml._execute import CompiledOperator
from simdops.dml._types import (
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
    core_op: str         # the StridedPlan op that runs it

    def dim_range(self, fl):
        return [rng for lvl, rng in self.dims if lvl <= fl][-1]

    def data_types(self, fl):
        out = []
        for lvl, types in self.dtypes:
            if lvl <= fl:
                out.extend(types)
        return tuple(out)


_OPERATOR_RULES = {
    ElementWiseClipOperatorDesc: _OpSpec(
        "CLIP", _FL.FL_1_0, ((_FL.FL_1_0, (4, 4)), (_FL.FL_3_0, (1, 8))),
        ((_FL.FL_1_0, _F), (_FL.FL_2_1, _I32), (_FL.FL_5_0, _I64)), True, "clip"),
    ElementWiseClip1OperatorDesc: _OpSpec(
        "CLIP1", _FL.FL_5_0, ((_FL.FL_5_0, (1, 8)),), ((_FL.FL_5_0, _F + _I32 + _I64),), True,
        "clip"),
    ActivationShrinkOperatorDesc: _OpSpec(
        "SHRINK", _FL.FL_2_0, ((_FL.FL_2_0, (4, 5)), (_FL.FL_3_0, (1, 8))),
        ((_FL.FL_2_0, _F), (_FL.FL_5_1, _I32)), True, "shrink"),
    ActivationHardmaxOperatorDesc: _OpSpec(
        "HARDMAX", _FL.FL_1_0, ((_FL.FL_1_0, (4, 4)), (_FL.FL_2_0, (4, 5)), (_FL.FL_3_0, (1, 8))),
        ((_FL.FL_1_0, _F),), False, "hardmax"),
    ActivationHardmax1OperatorDesc: _OpSpec(
        "HARDMAX1", _FL.FL_5_1, ((_FL.FL_5_1, (1, 8)),), ((_FL.FL_5_1, _F),), False,
        "hardmax"),
}


def _range_text(rng) -> str:
    lo, hi = rng
    return str(lo) if lo == hi else f"{lo} to {hi}"


# --------------------------------------------------------------------------- validation

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
    if role == "OutputTensor" and _core.self_overlaps(dt, t.sizes, t.effective_strides()):
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
            f">= the element size {esize} and <= 2**31 (a UINT)")
    flags = int(t.flags)
    if flags & ~int(TensorFlags.OWNED_BY_DML):
        raise InvalidArgumentError(
            f"{role}.Flags is {flags:#x}; only NONE (0) and OWNED_BY_DML (1) exist")
    if flags & TensorFlags.OWNED_BY_DML and role == "OutputTensor":
        raise InvalidArgumentError(
            f"{role}.Flags has OWNED_BY_DML; only input tensors may be owned by DirectML")


# --------------------------------------------------------------------------- parameters
# C checks the parameters (_core.check_*: NaN, threshold sign, ScaleBias on 64-bit
# integers, finite ScaleBias on integer tensors, axes); here its reasons get DirectML's
# field names. What is DirectML's own stays here: FLOAT fields hold float32 values,
# DML_SCALAR_UNION values must fit MinMaxDataType, Axes are UINTs, HARDMAX's rank.

def _float_field(value):
    """A FLOAT field's value: the number as float32, as DirectML stores it (C rounds)."""
    return _core.float32_value(value)


def _param_error(error, fields: dict, dt, given: dict) -> InvalidArgumentError:
    """C's reason (a _core.CoreError) for the parameters, in DirectML's words.
    fields maps C's argument names to DirectML's; given holds the values as passed."""
    field = fields.get(error.arg, error.arg)
    if error.reason == "NAN":
        return InvalidArgumentError(f"{field} is NaN; it must be a number (±inf allowed)")
    if error.reason == "NEGATIVE_THRESHOLD":
        value = given[error.arg]
        text = int_text(value) if isinstance(value, int) else repr(value)
        return InvalidArgumentError(f"{field} is {text}; must be >= 0")
    if error.reason == "SCALE_BIAS_64BIT":
        return InvalidArgumentError(
            f"ScaleBias is given but the tensors are {dt.name}; DirectML has no ScaleBias "
            f"for 64-bit integer tensors")
    if error.reason == "NOT_FINITE_F32":
        return InvalidArgumentError(
            f"{field} is {_float_field(given[error.arg])} (as FLOAT); {dt.name} tensors need "
            f"a finite Scale and Bias")
    return InvalidArgumentError(f"{field}: {error.message}")  # pragma: no cover


_CLIP_FIELDS = {"min": "Min", "max": "Max", "scale": "ScaleBias.Scale", "bias": "ScaleBias.Bias"}
_SHRINK_FIELDS = {"bias": "Bias", "threshold": "Threshold"}


def _prepared_clip(dt, lo, hi, sb: Optional[ScaleBias]):
    """The _core.Prepared clip of the Min/Max values lo, hi and an optional ScaleBias."""
    given = {"min": lo, "max": hi, "scale": None if sb is None else sb.scale,
             "bias": None if sb is None else sb.bias}
    error = _core.check_clip(dt, **given)
    if error is not None:
        raise _param_error(error, _CLIP_FIELDS, dt, given)
    return _core.prepare_clip(dt, **given)


def _scalar_union_value(value, field: str, dt):
    """A DML_SCALAR_UNION member of type dt holding `value`, as a Python number."""
    if dt in _FLOATS:
        return value  # C rounds it to the tensor's float type exactly once
    lo, hi = _INT_RANGE[dt]
    if isinstance(value, float):
        if not (math.isfinite(value) and value == int(value)):
            raise InvalidArgumentError(
                f"{field} is {value!r}; MinMaxDataType {dt.name} holds integers only")
        value = int(value)
    if not lo <= value <= hi:
        raise InvalidArgumentError(
            f"{field} is {int_text(value)}; not representable as MinMaxDataType {dt.name} "
            f"({lo} to {hi})")
    return value


def _hardmax_axes(desc, dt) -> tuple:
    """HARDMAX1's Axes (UINTs, checked by C for range, repeats and count)."""
    axes, n = desc.axes, desc.input_tensor.dimension_count
    for i, a in enumerate(axes):
        if a < 0:
            raise InvalidArgumentError(
                f"Axes[{i}] is {a}; must be in 0..{n - 1} (InputTensor.DimensionCount is {n})")
    error = _core.check_hardmax(dt, n, axes)
    if error is None:
        return axes
    if error.reason == "AXES_EMPTY":
        raise InvalidArgumentError("Axes is empty; AxisCount must be >= 1")
    i = error.index  # the position of the entry C refused
    if error.reason == "AXIS_REPEATED":
        first = axes.index(axes[i])
        raise InvalidArgumentError(
            f"Axes[{i}] is {axes[i]}, which repeats Axes[{first}]; axes must be unique")
    # AXIS_RANGE
    raise InvalidArgumentError(
        f"Axes[{i}] is {axes[i]}; must be in 0..{n - 1} (InputTensor.DimensionCount is {n})")


def _validate_params(desc, spec: _OpSpec, fl):
    """Operator-specific fields -> what CompiledOperator runs: a _core.Prepared for
    CLIP/CLIP1/SHRINK, the reduced axes for HARDMAX/HARDMAX1."""
    dt = desc.input_tensor.data_type
    if isinstance(desc, ElementWiseClipOperatorDesc):
        return _prepared_clip(dt, _float_field(desc.min), _float_field(desc.max), desc.scale_bias)
    if isinstance(desc, ElementWiseClip1OperatorDesc):
        mmdt = desc.min_max_data_type
        out_dt = desc.output_tensor.data_type
        if not isinstance(mmdt, TensorDataType):
            raise InvalidArgumentError(
                f"MinMaxDataType is {mmdt}; not a DML_TENSOR_DATA_TYPE value")
        if mmdt != out_dt:
            raise InvalidArgumentError(
                f"MinMaxDataType is {mmdt.name}; must equal OutputTensor.DataType {out_dt.name}")
        return _prepared_clip(dt, _scalar_union_value(desc.min, "Min", mmdt),
                              _scalar_union_value(desc.max, "Max", mmdt), desc.scale_bias)
    if isinstance(desc, ActivationShrinkOperatorDesc):
        given = {"bias": _float_field(desc.bias), "threshold": _float_field(desc.threshold)}
        error = _core.check_shrink(dt, **given)
        if error is not None:
            raise _param_error(error, _SHRINK_FIELDS, dt,
                               {"bias": desc.bias, "threshold": desc.threshold})
        return _core.prepare_shrink(dt, **given)
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
        return (len(sizes) - 1,)
    if isinstance(desc, ActivationHardmax1OperatorDesc):
        return _hardmax_axes(desc, dt)
    raise AssertionError(desc)  # pragma: no cover


_OUTPUT_RULES = {
    # C's reason (simdops_check_same_shape) -> DirectML's field and its message
    "DTYPE_MISMATCH": lambda a, b: (f"OutputTensor.DataType is {_name(b.data_type)}; must equal "
                                    f"InputTensor.DataType {_name(a.data_type)}"),
    "NDIM_MISMATCH": lambda a, b: (f"OutputTensor.DimensionCount is {b.dimension_count}; must "
                                   f"equal InputTensor.DimensionCount {a.dimension_count}"),
    "SHAPE_MISMATCH": lambda a, b: (f"OutputTensor.Sizes is {b.sizes}; must equal "
                                    f"InputTensor.Sizes {a.sizes}"),
}


def _output_shape_error(error, a: BufferTensorDesc, b: BufferTensorDesc) -> InvalidArgumentError:
    """C's output rule (same dtype, ndim and shape as the input) in DirectML's words."""
    return InvalidArgumentError(_OUTPUT_RULES[error.reason](a, b))


def compile_operator(desc, feature_level=NEWEST_FEATURE_LEVEL) -> "CompiledOperator":
    """Validate `desc` against DirectML's rules at `feature_level` and
    return a CompiledOperator. Raises InvalidArgumentError naming the field."""
    spec = _OPERATOR_RULES.get(type(desc))
    if spec is None:
        names = ", ".join(cls.__name__ for cls in _OPERATOR_RULES)
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
    error = _core.check_same_shape(a.sizes, b.data_type, b.sizes, a.data_type)
    if error is not None:
        raise _output_shape_error(error, a, b)
    params = _validate_params(desc, spec, fl)
    return CompiledOperator(desc, fl, spec, params, compile_operator)
