"""Arm Compute Library-style functions (docs/descriptors.md) over simdops' requant kernels.

    from simdops import acl
    f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint()
    f.configure(acc, bias, out, result_fixedpoint_multiplier=M, result_shift=s,
                result_offset_after_shift=o, min=0, max=255)
    f.run()

The types (DataType, Status, TensorInfo, GEMMLowpOutputStageInfo) live in
simdops.acl._types; this module holds the functions: ACL's validate order and messages,
and the calls into C.

Shapes are in numpy order: the last axis is ACL's dimension 0 (TensorShape(21, 13)
in ACL is shape (13, 21) here). Like ACL's TensorShape, shapes compare equal when
they differ only by leading (numpy order) sizes of 1. See docs/descriptors.md.
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from simdops import _core
from simdops.acl import _output_stages
from simdops.acl._types import (
    _CORE_DTYPE, _OUTPUT, DataType,
    ErrorCode, GEMMLowpOutputStageInfo, GEMMLowpOutputStageType, Status, TensorInfo,
    _acl_dims, _coerce_int, _describe, _Described, _error, _range, _type_name)

__all__ = [
    "DataType", "ErrorCode", "Status", "TensorInfo",
    "GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint",
    "GEMMLowpOutputStageType", "GEMMLowpOutputStageInfo", "GEMMLowpOutputStage",
]

# C's requant argument names -> each function's field names
_FIXED_NAMES = {"multiplier": "result_fixedpoint_multiplier", "shift": "result_shift",
                "offset": "result_offset_after_shift"}
_STAGE_NAMES = {"multiplier": "gemmlowp_multiplier", "shift": "gemmlowp_shift",
                "offset": "gemmlowp_offset"}


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
    if dbias is not None:
        # ACL's bias is 1-D after its trailing (numpy: leading) 1s are dropped
        error = _core.check_channels("bias", _core_dtype(dbias.data_type),
                                     _acl_dims(dbias.shape) or (1,), din.shape or (1,))
        if error is not None:
            return _channels_error(error, "bias", dbias, din), ()
    # shapes compare as ACL's TensorShape does: without leading (numpy order) 1s
    error = _core.check_same_shape(_acl_dims(din.shape), _CORE_DTYPE[DataType.S32],
                                   _acl_dims(dout.shape), _CORE_DTYPE[DataType.S32])
    if error is not None:
        return _error(f"output shape {dout.shape} differs from input shape {din.shape}"), ()
    if dout.data_type not in allowed_outputs:
        names = " or ".join(d.name for d in allowed_outputs)
        return _error(f"output data type is {_type_name(dout)}; must be {names}"), ()
    return Status(), (din, dbias, dout)


def _core_dtype(data_type: Optional[DataType]) -> int:
    """The dtype value C takes for an acl.DataType (0, unknown, for None)."""
    return 0 if data_type is None else _CORE_DTYPE[data_type]


def _channels_error(error, name: str, dvec: Optional[_Described], din: _Described) -> Status:
    """C's per-channel rule (simdops_check_channels) in ACL's words."""
    channels = din.shape[-1] if din.shape else 1
    if error.reason == "DTYPE_MISMATCH":
        return _error(f"{name} data type is {_type_name(dvec)}; must be S32 (the input's)")
    if error.reason == "CHANNELS" and error.value != 1:
        return _error(f"{name} has shape {dvec.shape}; it must have one dimension")
    length = error.index  # CHANNELS: 1-D of the wrong length
    return _error(f"{name} has {length} elements; must equal the input's last dimension "
                  f"(ACL dimension 0) {channels}")


def _check_bounds(lo, hi, lo_name, hi_name):
    """ACL's bound fields are int32_t: a value no int32 holds cannot be given to ACL
    (C's int32 rule). (Their meaning, an intersection with the output range, is the
    stage's own.)"""
    for arg, name, v in (("min", lo_name, lo), ("max", hi_name, hi)):
        if _core.check_int32(arg, v) is not None:
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
    accumulators (+ bias) -> QASYMM8 via gemmlowp's fixed-point multiply (docs/semantics.md)."""

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
        # C's bound and min <= max rules, in 18.03's words and order (max first)
        u8 = _CORE_DTYPE[DataType.QASYMM8]
        error = _core.check_bound(u8, "max", max)
        if error is not None and error.value > _range(DataType.QASYMM8)[1]:
            return _error(f"max is {max}; must be <= 255")
        if _core.check_bound(u8, "min", min) is not None or \
                _core.check_min_max(min, max) is not None:
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



def _validate_stage(input, bias, output, info, outputs):
    """The checks every GEMMLowpOutputStage type shares, in ACL's order: the tensors, the
    info's output type, the bounds (int32, min <= max, overlapping the output's range: C's
    rules). Returns (Status, the input's TensorInfo, the output's DataType)."""
    status, described = _validate_tensors(input, bias, output, outputs)
    if not status:
        return status, None, None
    din, _, dout = described
    out_type = dout.data_type
    if info.output_data_type is not None and info.output_data_type != out_type:
        return _error(f"GEMMLowpOutputStageInfo.output_data_type is "
                      f"{info.output_data_type.name}; the output is {out_type.name}"), None, None
    lo, hi = info.gemmlowp_min_bound, info.gemmlowp_max_bound
    status = _check_bounds(lo, hi, "gemmlowp_min_bound", "gemmlowp_max_bound")
    if not status:
        return status, None, None
    if _core.check_min_max(lo, hi) is not None:
        return _error(f"gemmlowp_min_bound {lo} > gemmlowp_max_bound {hi}"), None, None
    tlo, thi = _range(out_type)
    # the bounds clamp inside the output range: their intersection with it must
    # be a range (C's min <= max rule on the intersection)
    if _core.check_min_max(max(lo, tlo), min(hi, thi)) is not None:
        return _error(f"bounds [{lo}, {hi}] lie outside {out_type.name}'s range "
                      f"[{tlo}, {thi}]"), None, None
    return Status(), din, out_type


def _check_stage_channels(info, din) -> Status:
    """Per-channel multipliers and shifts: one per channel of the input's last axis (C's
    per-channel rule, simdops_check_channels)."""
    channels = din.shape[-1] if din.shape else 1
    pairs = (("multiplier", "gemmlowp_multipliers", info.gemmlowp_multipliers),
             ("shift", "gemmlowp_shifts", info.gemmlowp_shifts))
    for arg, name, values in pairs:
        if _core.check_channels(arg, _CORE_DTYPE[DataType.S32], (len(values),),
                                din.shape or (1,)) is not None:
            return _error(f"{name} has {len(values)} entries; per-channel "
                          f"quantization needs the input's last dimension {channels}")
    return Status()


class GEMMLowpOutputStage:
    """NEGEMMLowpOutputStage for QUANTIZE_DOWN_FIXEDPOINT: int32 (+ bias) -> QASYMM8,
    QASYMM8_SIGNED or QSYMM16, per tensor or per channel (last axis); and for
    QUANTIZE_DOWN (integer multiply, floor shift) and QUANTIZE_DOWN_FLOAT (float32
    multiply, round half away) into QASYMM8 / QASYMM8_SIGNED (acl/_output_stages.py)."""

    def __init__(self):
        self._args = None

    @staticmethod
    def validate(input, bias, output, info: GEMMLowpOutputStageInfo) -> Status:
        if not isinstance(info, GEMMLowpOutputStageInfo):
            raise TypeError("info must be an acl.GEMMLowpOutputStageInfo")
        if info.type in (GEMMLowpOutputStageType.QUANTIZE_DOWN,
                         GEMMLowpOutputStageType.QUANTIZE_DOWN_FLOAT):
            return _output_stages.validate(input, bias, output, info)
        if info.type != GEMMLowpOutputStageType.QUANTIZE_DOWN_FIXEDPOINT:
            return _error(f"GEMMLowpOutputStageInfo.type is {info.type.name}; simdops "
                          f"implements QUANTIZE_DOWN, QUANTIZE_DOWN_FIXEDPOINT and "
                          f"QUANTIZE_DOWN_FLOAT")
        status, din, out_type = _validate_stage(input, bias, output, info, _OUTPUT)
        if not status:
            return status
        if info.is_quantized_per_channel:
            status = _check_stage_channels(info, din)
            if not status:
                return status
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
        if info.type != GEMMLowpOutputStageType.QUANTIZE_DOWN_FIXEDPOINT:
            self._args = (_output_stages.configure(din, dout, x, y, b, info),)
            return
        tlo, thi = _range(dout.data_type)
        # Bounds beyond the output range clamp nothing on that side (ACL's defaults are
        # the whole int32 range); inside it they are a bounded ReLU.
        lo = max(info.gemmlowp_min_bound, tlo)
        hi = min(info.gemmlowp_max_bound, thi)
        mult = shift = None
        if info.is_quantized_per_channel:
            mult = np.asarray(info.gemmlowp_multipliers, dtype=np.int32)
            shift = np.asarray(info.gemmlowp_shifts, dtype=np.int32)
        scalar = ((0, 0) if info.is_quantized_per_channel
                  else (info.gemmlowp_multiplier, info.gemmlowp_shift))
        # this stage always clamps (bounds that meet clamp everything to one value),
        # unlike ACL 18.03's min == max "no clamp" of the array API
        prepared = _core.prepare_requant_clamped(_CORE_DTYPE[dout.data_type], *scalar,
                                                 info.gemmlowp_offset, lo, hi)
        self._args = (prepared, x, y, b, mult, shift)

    def run(self) -> None:
        if self._args is None:
            raise RuntimeError("run() before configure()")
        if len(self._args) == 1:  # QUANTIZE_DOWN / QUANTIZE_DOWN_FLOAT
            self._args[0]()
            return
        prepared, x, y, b, mult, shift = self._args
        _core.requant_prepared(prepared, x, y, b, mult, shift)
