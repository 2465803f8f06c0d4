"""Benchmarked requantization families: single rounding, LiteRT x86's ties-up double
rounding, ACL's QUANTIZE_DOWN floor stage and the float families (ONNX Runtime MLAS /
XNNPACK fp32, LiteRT's float64 with ties away, ACL's QUANTIZE_DOWN_FLOAT), per tensor and
per channel with bias, int32 -> uint8, with the same inputs and scales as the
double-rounding rows (ops_base.Requant), so each can be timed beside double rounding."""
import numpy as np

import simdops
from simdops import _core
from simdops.bench.ops_base import REQUANT_CHANNELS, Requant


_UINT8 = {name: value for value, name in _core.DTYPE_NAMES.items()}["uint8"]


def _wrap32(v):
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


class RequantSingle(Requant):
    """int32 -> uint8, single rounding (TFLite single rounding, XNNPACK rndnu), or with
    ties away from zero (rounding="single_away": TVM QNN "TONEAREST")."""

    def __init__(self, per_channel, rounding="single"):
        super().__init__(per_channel)
        self.rounding = rounding
        entry = "requant_" + rounding + ("_pc" if per_channel else "")
        self.name = entry + "+bias" if per_channel else entry
        self.kernel_entry = entry
        self.numpy_desc = ("sign(a*M) * ((|a*M| + 2^(t-1)) >> t) in int64 numpy"
                           if rounding == "single_away" else "(a*M + 2^(t-1)) >> t in int64 numpy")

    def simdops(self, x, out, p):
        q = self.fit(p, x)
        return lambda: simdops.quantize_down_int32_to_uint8(
            x, q["multiplier"], q["shift"], q["offset"], bias=q["bias"], min=q["min"],
            max=q["max"], rounding=self.rounding, out=out)

    def numpy(self, x, out, p):
        q = self.fit(p, x)
        m = np.asarray(q["multiplier"], np.int64)
        t = 31 + np.asarray(q["shift"], np.int64)
        bias = None if q["bias"] is None else np.asarray(q["bias"], np.int64)
        lo, hi = (q["min"], q["max"]) if q["min"] != q["max"] else (0, 255)
        away = self.rounding == "single_away"

        def run():
            a = x.astype(np.int64)
            if bias is not None:
                a = ((a + bias + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
            prod, half = a * m, np.int64(1) << (t - 1)
            v = np.sign(prod) * ((np.abs(prod) + half) >> t) if away else (prod + half) >> t
            np.copyto(out, np.clip(v + q["offset"], lo, hi), casting="unsafe")
            return out
        return run


class RequantTiesUp(Requant):
    """int32 -> uint8, rounding="double_ties_up" (LiteRT's optimized x86 kernels, ruy),
    with double rounding's parameters."""
    numpy_desc = "(a*M + 2^30) >> 31, then (q + 2^(r-1)) >> r in int64 numpy"

    def __init__(self, per_channel):
        super().__init__(per_channel)
        self.name = "requant_ties_up_pc+bias" if per_channel else "requant_ties_up"
        self.kernel_entry = "requant_ties_up_pc" if per_channel else "requant_ties_up"

    def simdops(self, x, out, p):
        q = self.fit(p, x)
        return lambda: simdops.quantize_down_int32_to_uint8(
            x, q["multiplier"], q["shift"], q["offset"], bias=q["bias"], min=q["min"],
            max=q["max"], rounding="double_ties_up", out=out)

    def numpy(self, x, out, p):
        q = self.fit(p, x)
        m = np.asarray(q["multiplier"], np.int64)
        shift = np.asarray(q["shift"], np.int64)
        left, right = np.maximum(-shift, 0), np.maximum(shift, 0)
        half = (np.int64(1) << right) >> 1
        bias = None if q["bias"] is None else np.asarray(q["bias"], np.int64)
        lo, hi = (q["min"], q["max"]) if q["min"] != q["max"] else (0, 255)

        def run():
            a = x.astype(np.int64)
            if bias is not None:
                a = _wrap32(a + bias)
            a = _wrap32(a << left)
            v = ((((a * m + (1 << 30)) >> 31) + half) >> right) + q["offset"]
            np.copyto(out, np.clip(_wrap32(v), lo, hi), casting="unsafe")
            return out
        return run


# ACL QUANTIZE_DOWN's integer multiplier and floor shift for the double-rounding rows'
# scales (1/1000 per tensor, 1/1200..1/800 per channel): M / 2^FLOOR_SHIFT, the offset
# (added before the multiply) offset * 1000 so the results match theirs but for rounding
FLOOR_SHIFT = 20


class RequantFloor(Requant):
    """int32 -> uint8, ACL QUANTIZE_DOWN: ((a + bias + offset) * M) >> shift, wrapping int32,
    floor shift (simdops.acl's GEMMLowpOutputStage; timed through the prepared call the acl
    layer makes). The offset is one per tensor, in the accumulator's scale: per channel the
    results lie up to ~25 from double rounding's (the timing does not depend on it)."""
    numpy_desc = "((a + offset) * M) >> shift, wrapping, in int64 numpy"

    def __init__(self, per_channel):
        super().__init__(per_channel)
        self.name = "requant_floor_pc+bias" if per_channel else "requant_floor"
        self.kernel_entry = "requant_floor_pc" if per_channel else "requant_floor"

    def params(self, dtype):
        p = super().params(dtype)
        scales = (np.linspace(1 / 1200, 1 / 800, REQUANT_CHANNELS) if self.per_channel
                  else np.array([1 / 1000]))
        mult = np.round(scales * 2 ** FLOOR_SHIFT).astype(np.int32)
        p["floor_multiplier"] = mult if self.per_channel else int(mult[0])
        p["floor_shift"] = (np.full(REQUANT_CHANNELS, FLOOR_SHIFT, np.int32) if self.per_channel
                            else FLOOR_SHIFT)
        p["floor_offset"] = p["offset"] * 1000
        return p

    @staticmethod
    def fit(p, x):
        q = Requant.fit(p, x)
        for key in ("floor_multiplier", "floor_shift"):
            if isinstance(q[key], np.ndarray):
                q[key] = np.ascontiguousarray(q[key][:x.shape[-1]])
        return q

    def simdops(self, x, out, p):
        q = self.fit(p, x)
        lo, hi = (q["min"], q["max"]) if q["min"] != q["max"] else (0, 255)
        if self.per_channel:
            prepared = _core.prepare_requant_family_clamped(
                _UINT8, _core.ROUNDING_FLOOR, 0, 0, q["floor_offset"], lo, hi)
            mult, shift = q["floor_multiplier"], q["floor_shift"]
        else:
            prepared = _core.prepare_requant_family_clamped(
                _UINT8, _core.ROUNDING_FLOOR, q["floor_multiplier"], q["floor_shift"],
                q["floor_offset"], lo, hi)
            mult = shift = None
        return lambda: _core.requant_prepared(prepared, x, out, q["bias"], mult, shift)

    def numpy(self, x, out, p):
        q = self.fit(p, x)
        m = np.asarray(q["floor_multiplier"], np.int64)
        shift = np.asarray(q["floor_shift"], np.int64)
        bias = None if q["bias"] is None else np.asarray(q["bias"], np.int64)
        lo, hi = (q["min"], q["max"]) if q["min"] != q["max"] else (0, 255)

        def run():
            a = x.astype(np.int64)
            if bias is not None:
                a = _wrap32(a + bias)
            v = _wrap32(_wrap32(a + q["floor_offset"]) * m) >> shift
            np.copyto(out, np.clip(v, lo, hi), casting="unsafe")
            return out
        return run


# the per-tensor scale of the fp32 rows (the per-channel scales lie around it)
FP32_SCALE = 1 / 1000


class RequantFp32(Requant):
    """int32 -> uint8, float32(acc) * scale, round half to even (ORT MLAS, XNNPACK fp32):
    the scale per tensor or per channel, with or without a bias vector. The pairs the goal
    rows compare differ only in the scale (same bias, clamp and offset)."""
    numpy_desc = "np.rint(x.astype(float32) * scale) in float32 numpy"

    def __init__(self, per_channel, bias=None):
        super().__init__(per_channel)
        self.bias = per_channel if bias is None else bias
        self.name = ("requant_fp32" + ("_pc" if per_channel else "") +
                     ("+bias" if self.bias else ""))
        self.kernel_entry = "requant_fp_pc" if per_channel else "requant_fp"

    def params(self, dtype):
        p = Requant(True).params(dtype) if self.bias or self.per_channel else super().params(dtype)
        if not self.bias:
            p["bias"] = None
        p["scale"] = (np.linspace(1 / 1200, 1 / 800, REQUANT_CHANNELS).astype(np.float32)
                      if self.per_channel else FP32_SCALE)
        if p["min"] == p["max"]:
            p["min"], p["max"] = 0, 255
        return p

    @staticmethod
    def fit(p, x):
        q = Requant.fit(p, x)
        if isinstance(q["scale"], np.ndarray):
            q["scale"] = np.ascontiguousarray(q["scale"][:x.shape[-1]])
        return q

    def simdops(self, x, out, p):
        q = self.fit(p, x)
        return lambda: simdops.requantize_fp32(x, q["scale"], q["offset"], bias=q["bias"],
                                               min=q["min"], max=q["max"], out=out)

    def per_tensor(self, x, out, p):
        """The same call with the per-tensor scale instead of the vector (same shape, bias,
        clamp and offset): timed inside a per-channel case, in the same rounds."""
        q = self.fit(p, x)
        return lambda: simdops.requantize_fp32(x, FP32_SCALE, q["offset"], bias=q["bias"],
                                               min=q["min"], max=q["max"], out=out)

    def numpy(self, x, out, p):
        q = self.fit(p, x)
        scale = np.float32(q["scale"]) if not isinstance(q["scale"], np.ndarray) else q["scale"]
        lo, hi = q["min"] - q["offset"], q["max"] - q["offset"]

        def run():
            a = x if q["bias"] is None else x + q["bias"]
            v = np.clip(a.astype(np.float32) * scale, lo, hi)
            np.copyto(out, np.rint(v) + q["offset"], casting="unsafe")
            return out
        return run


class RequantFloatMode(Requant):
    """int32 -> uint8, the float families other than fp32's default, per tensor at the
    fp32 rows' scale: requantize_fp32(precision="float64", ties="away") (LiteRT's reference
    FULLY_CONNECTED) and ACL's QUANTIZE_DOWN_FLOAT (the zero point added in float)."""

    def __init__(self, mode):
        super().__init__(False)
        self.mode = mode
        self.name = {"fp64_away": "requant_fp64_away", "acl_float": "requant_acl_float"}[mode]
        self.kernel_entry = "requant_fp"
        self.numpy_desc = ("float64 product, rounded half away, in numpy" if mode == "fp64_away"
                           else "float32 product + float32 zero point, rounded half away, in numpy")

    def simdops(self, x, out, p):
        q = self.fit(p, x)
        lo, hi = (q["min"], q["max"]) if q["min"] != q["max"] else (0, 255)
        if self.mode == "fp64_away":
            return lambda: simdops.requantize_fp32(x, FP32_SCALE, q["offset"], bias=q["bias"],
                                                   min=lo, max=hi, precision="float64",
                                                   ties="away", out=out)
        return lambda: _core._requant_fp_mode(x, FP32_SCALE, q["offset"], mode=_core.FP_MODE_ACL,
                                              bias=q["bias"], min=lo, max=hi, out=out)

    def numpy(self, x, out, p):
        q = self.fit(p, x)
        lo, hi = (q["min"], q["max"]) if q["min"] != q["max"] else (0, 255)

        def away(v):                       # v float64, |v| < 2^52: round half away from zero
            return np.sign(v) * np.floor(np.abs(v) + 0.5)

        def run():
            a = x if q["bias"] is None else x + q["bias"]
            if self.mode == "fp64_away":
                v = np.clip(a.astype(np.float64) * np.float64(FP32_SCALE),
                            lo - q["offset"], hi - q["offset"])
                v = away(v) + q["offset"]
            else:
                v = a.astype(np.float32) * np.float32(FP32_SCALE) + np.float32(q["offset"])
                v = away(v.astype(np.float64))
            np.copyto(out, np.clip(v, lo, hi), casting="unsafe")
            return out
        return run


REQUANT_SINGLE, REQUANT_SINGLE_PC = RequantSingle(False), RequantSingle(True)
REQUANT_SINGLE_AWAY = RequantSingle(False, "single_away")
REQUANT_SINGLE_AWAY_PC = RequantSingle(True, "single_away")
REQUANT_TIES_UP, REQUANT_TIES_UP_PC = RequantTiesUp(False), RequantTiesUp(True)
REQUANT_FLOOR, REQUANT_FLOOR_PC = RequantFloor(False), RequantFloor(True)
REQUANT_FP64_AWAY, REQUANT_ACL_FLOAT = RequantFloatMode("fp64_away"), RequantFloatMode("acl_float")
REQUANT_FP32, REQUANT_FP32_PC = RequantFp32(False), RequantFp32(True)
# per channel without the bias vector (each per-channel case times the per-tensor call
# with its own bias or none beside it: RequantFp32.per_tensor)
REQUANT_FP32_PC_NOBIAS = RequantFp32(True, bias=False)
FAMILY_OPS = (REQUANT_SINGLE, REQUANT_SINGLE_PC, REQUANT_TIES_UP, REQUANT_TIES_UP_PC,
              REQUANT_FLOOR, REQUANT_FLOOR_PC, REQUANT_FP32, REQUANT_FP32_PC,
              REQUANT_FP32_PC_NOBIAS, REQUANT_FP64_AWAY, REQUANT_ACL_FLOAT,
              REQUANT_SINGLE_AWAY, REQUANT_SINGLE_AWAY_PC)
