"""The checks simdops.acl's functions share (ACL's validate order and messages over C's
rules) and the helpers that bind their arrays: one module below both acl/__init__.py and
acl/_output_stages.py, so neither imports the other back."""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from simdops import _core
from simdops._interop import int_text
from simdops.acl._types import (
    _CORE_DTYPE, DataType, Status, _acl_dims, _describe, _Described, _error, _range, _type_name)


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
            return _error(f"{name} is {int_text(v)}; outside the int32 range")
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
