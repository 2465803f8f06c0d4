"""Arm Compute Library-style functions (docs/descriptors.md) over simdops' requant kernels.

::

    from simdops import acl
    f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint()
    f.configure(acc, bias, out, result_fixedpoint_multiplier=M, result_shift=s,
                result_offset_after_shift=o, min=0, max=255)
    f.run()

The types (DataType, Status, TensorInfo, GEMMLowpOutputStageInfo) live in
simdops.acl._types, the checks the functions share in simdops.acl._checks; this module
holds the functions: ACL's validate order and messages, and the calls into C.

Shapes are in numpy order: the last axis is ACL's dimension 0 (TensorShape(21, 13)
in ACL is shape (13, 21) here). Like ACL's TensorShape, shapes compare equal when
they differ only by leading (numpy order) sizes of 1. See docs/descriptors.md.
"""
from __future__ import annotations

import numpy as np

from simdops import _core
from simdops.acl import _output_stages
from simdops.acl._checks import (
    _array_for_run, _check_requant, _check_stage_channels, _validate_input, _validate_stage,
    _validate_tensors, _run_shapes)
from simdops.acl._types import (
    _CORE_DTYPE, _OUTPUT, DataType,
    ErrorCode, GEMMLowpOutputStageInfo, GEMMLowpOutputStageType, Status, TensorInfo,
    _coerce_int, _describe, _error, _range)

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


class GEMMLowpOutputStage:
    """NEGEMMLowpOutputStage for QUANTIZE_DOWN_FIXEDPOINT: int32 (+ bias) -> QASYMM8,
    QASYMM8_SIGNED or QSYMM16, per tensor or per channel (last axis); and for
    QUANTIZE_DOWN (integer multiply, floor shift) and QUANTIZE_DOWN_FLOAT (float32
    multiply, round half away) into QASYMM8 / QASYMM8_SIGNED (acl/_output_stages.py)."""

    def __init__(self):
        self._args = None

    @staticmethod
    def validate(input, bias, output, info: GEMMLowpOutputStageInfo) -> Status:
        """ACL's checks of the stage described by ``info``; a falsy Status says why not."""
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
        """Check everything (ValueError if invalid) and bind the arrays for run()."""
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
        """Write the output from the input's current contents."""
        if self._args is None:
            raise RuntimeError("run() before configure()")
        if len(self._args) == 1:  # QUANTIZE_DOWN / QUANTIZE_DOWN_FLOAT
            self._args[0]()
            return
        prepared, x, y, b, mult, shift = self._args
        _core.requant_prepared(prepared, x, y, b, mult, shift)
