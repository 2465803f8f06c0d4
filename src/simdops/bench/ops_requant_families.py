"""Benchmarked requantization families: single rounding and the fp32 family (ONNX Runtime
MLAS / XNNPACK), per tensor and per channel with bias, int32 -> uint8, with the same
inputs and scales as the double-rounding rows (ops_base.Requant)."""
import numpy as np

import simdops
from simdops.bench.ops_base import REQUANT_CHANNELS, Requant


class RequantSingle(Requant):
    """int32 -> uint8, single rounding (TFLite single rounding, XNNPACK rndnu)."""
    numpy_desc = "(a*M + 2^(t-1)) >> t in int64 numpy"

    def __init__(self, per_channel):
        super().__init__(per_channel)
        self.name = "requant_single_pc+bias" if per_channel else "requant_single"
        self.kernel_entry = "requant_single_pc" if per_channel else "requant_single"

    def simdops(self, x, out, p):
        q = self.fit(p, x)
        return lambda: simdops.quantize_down_int32_to_uint8(
            x, q["multiplier"], q["shift"], q["offset"], bias=q["bias"], min=q["min"],
            max=q["max"], rounding="single", out=out)

    def numpy(self, x, out, p):
        q = self.fit(p, x)
        m = np.asarray(q["multiplier"], np.int64)
        t = 31 + np.asarray(q["shift"], np.int64)
        bias = None if q["bias"] is None else np.asarray(q["bias"], np.int64)
        lo, hi = (q["min"], q["max"]) if q["min"] != q["max"] else (0, 255)

        def run():
            a = x.astype(np.int64)
            if bias is not None:
                a = ((a + bias + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
            v = ((a * m + (np.int64(1) << (t - 1))) >> t) + q["offset"]
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


REQUANT_SINGLE, REQUANT_SINGLE_PC = RequantSingle(False), RequantSingle(True)
REQUANT_FP32, REQUANT_FP32_PC = RequantFp32(False), RequantFp32(True)
# per channel without the bias vector (each per-channel case times the per-tensor call
# with its own bias or none beside it: RequantFp32.per_tensor)
REQUANT_FP32_PC_NOBIAS = RequantFp32(True, bias=False)
FAMILY_OPS = (REQUANT_SINGLE, REQUANT_SINGLE_PC, REQUANT_FP32, REQUANT_FP32_PC,
              REQUANT_FP32_PC_NOBIAS)
