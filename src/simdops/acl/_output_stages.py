"""GEMMLowpOutputStage's two other output stage types (QUANTIZE_DOWN and
QUANTIZE_DOWN_FLOAT), bit-exact with ACL's validation reference
(tests/validation/reference/GEMMLowp.cpp):

- QUANTIZE_DOWN: ``y = clamp(((x + bias) + offset) * multiplier >> shift)``, wrapping int32
  arithmetic, an arithmetic (floor) shift in [0, 31]; per tensor or per channel.
- QUANTIZE_DOWN_FLOAT: ``y = clamp(round_half_away(float32(x + bias) * real_multiplier +
  float32(offset)))``, the product and the sum each rounded to float32 (never fused), the
  rounded value saturated to int32; per tensor (GEMMLowpOutputStageInfo has one real
  multiplier).

Both write QASYMM8 or QASYMM8_SIGNED; the bounds clamp as the fixed-point stage's do. The
arithmetic and every parameter rule are C's (simdops' requantization families)."""
from __future__ import annotations


import numpy as np

from simdops import _core
from simdops.acl._checks import _check_stage_channels, _validate_stage
from simdops.acl._types import (_CORE_DTYPE, DataType, GEMMLowpOutputStageType, Status, _error,
                                _range)

_DOWN_OUTPUT = (DataType.QASYMM8, DataType.QASYMM8_SIGNED)


def _bounds(info, out_type):
    tlo, thi = _range(out_type)
    return max(info.gemmlowp_min_bound, tlo), min(info.gemmlowp_max_bound, thi)


def validate(input, bias, output, info) -> Status:
    status, din, out_type = _validate_stage(input, bias, output, info, _DOWN_OUTPUT)
    if not status:
        return status
    blo, bhi = _bounds(info, out_type)
    if info.type == GEMMLowpOutputStageType.QUANTIZE_DOWN_FLOAT:
        if info.is_quantized_per_channel:
            return _error("QUANTIZE_DOWN_FLOAT has one gemmlowp_real_multiplier; per-channel "
                          "quantization is not supported")
        return _check_float_stage(info, out_type, blo, bhi)
    if info.is_quantized_per_channel:
        status = _check_stage_channels(info, din)
        if not status:
            return status
        checks = [(f"gemmlowp_multipliers[{k}]", f"gemmlowp_shifts[{k}]", m, s)
                  for k, (m, s) in enumerate(zip(info.gemmlowp_multipliers,
                                                 info.gemmlowp_shifts))]
    else:
        checks = [("gemmlowp_multiplier", "gemmlowp_shift", info.gemmlowp_multiplier,
                   info.gemmlowp_shift)]
    for mname, sname, m, s in checks:
        try:
            error = _core.check_requant_family(_CORE_DTYPE[out_type], _core.ROUNDING_FLOOR, m, s,
                                               info.gemmlowp_offset, blo, bhi)
        except ValueError as e:  # beyond 64 bits
            return _error(str(e))
        if error is not None:
            name = {"multiplier": mname, "shift": sname, "offset": "gemmlowp_offset"}.get(
                error.arg, error.arg)
            if error.reason in ("SHIFT_RANGE", "SHIFT_RANGE_FOR"):
                return _error(f"{name} is {error.value}; QUANTIZE_DOWN shifts right by "
                              f"[0, 31]")
            if error.reason == "INT32_RANGE":
                return _error(f"{name} is {error.value}; outside the int32 range")
            return _error(error.message)
    return Status()


# C's argument names -> the fields of GEMMLowpOutputStageInfo they come from
_FLOAT_FIELDS = {"scale": "gemmlowp_real_multiplier", "zero_point": "gemmlowp_offset",
                 "min": "gemmlowp_min_bound", "max": "gemmlowp_max_bound"}


def _check_float_stage(info, out_type, lo, hi) -> Status:
    """C's rules for QUANTIZE_DOWN_FLOAT's parameters (those run() applies), as a Status
    naming the field."""
    try:
        error = _core.check_requant_fp(_CORE_DTYPE[out_type], _core.FP_MODE_ACL,
                                       info.gemmlowp_real_multiplier, info.gemmlowp_offset,
                                       lo, hi)
    except ValueError as e:  # an int beyond 64 bits, refused before C: "zero_point = ..."
        arg, _, rest = str(e).partition(" = ")
        return _error(f"{_FLOAT_FIELDS.get(arg, arg)} = {rest}")
    if error is None:
        return Status()
    name = _FLOAT_FIELDS.get(error.arg, error.arg)
    if error.reason == "NOT_FINITE_SCALE":
        return _error(f"{name} is {info.gemmlowp_real_multiplier}; it must be finite as a "
                      f"float32")
    if error.reason == "INT32_RANGE":
        return _error(f"{name} is {error.value}; outside the int32 range")
    return _error(error.message)


def configure(din, dout, x, y, b, info):
    """A zero-argument function that runs the configured stage."""
    out_type = dout.data_type
    lo, hi = _bounds(info, out_type)
    od = _CORE_DTYPE[out_type]
    if info.type == GEMMLowpOutputStageType.QUANTIZE_DOWN_FLOAT:
        kw = dict(mode=_core.FP_MODE_ACL, min=lo, max=hi, out_dtype=np.dtype(y.dtype).name,
                  bias=b, out=y)
        scale, offset = info.gemmlowp_real_multiplier, info.gemmlowp_offset
        return lambda: _core._requant_fp_mode(x, scale, offset, **kw)
    if info.is_quantized_per_channel:
        mult = np.asarray(info.gemmlowp_multipliers, dtype=np.int32)
        shift = np.asarray(info.gemmlowp_shifts, dtype=np.int32)
        prepared = _core.prepare_requant_family_clamped(od, _core.ROUNDING_FLOOR, 0, 0,
                                                        info.gemmlowp_offset, lo, hi)
    else:
        mult = shift = None
        prepared = _core.prepare_requant_family_clamped(
            od, _core.ROUNDING_FLOOR, info.gemmlowp_multiplier, info.gemmlowp_shift,
            info.gemmlowp_offset, lo, hi)
    return lambda: _core.requant_prepared(prepared, x, y, b, mult, shift)
