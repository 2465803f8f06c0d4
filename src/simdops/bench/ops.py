"""The benchmarked operations: inputs, parameters and every implementation of each op.

An Op knows how to make an input and parameters for a dtype, and returns zero-argument
callables for simdops, numpy and torch that write a preallocated `out` (torch's allocating
functions return a new tensor instead). A factory returns None when that library has no
implementation for the case; the ONNX Runtime versions live in ort.py."""
import numpy as np

import simdops

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
REQUANT_CHANNELS = 256       # per-channel requant: (n / 256) x 256


def _int_window(dtype):
    """Bounds a quarter of the type's span in from each end."""
    info = np.iinfo(dtype)
    quarter = (int(info.max) - int(info.min)) // 4
    return int(info.min) + quarter, int(info.max) - quarter


class Op:
    """One benchmarked operation (see the module docstring)."""
    name = ""
    kernel_entry = ""            # field of the kernel table (simdops._core.kernel_origins)
    numpy_desc = torch_desc = ""
    onnx_op = None               # ONNX operator name, when ONNX has this op

    def out_dtype(self, dtype):
        return dtype

    def make_input(self, dtype, shape, rng):
        if np.dtype(dtype).kind == "f":
            return rng.standard_normal(shape).astype(dtype)
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)

    def params(self, dtype):
        return {}

    def simdops(self, x, out, p):
        raise NotImplementedError

    def numpy(self, x, out, p):
        return None

    def torch(self, tx, tout, p):
        return None


class Clip(Op):
    name = kernel_entry = "clip"
    numpy_desc = "np.clip(x, lo, hi, out=)"
    torch_desc = "torch.clamp(x, lo, hi, out=)"
    onnx_op = "Clip"

    def params(self, dtype):
        lo, hi = (-1.0, 1.0) if np.dtype(dtype).kind == "f" else _int_window(dtype)
        return {"min": lo, "max": hi}

    def simdops(self, x, out, p):
        return lambda: simdops.clip(x, p["min"], p["max"], out=out)

    def numpy(self, x, out, p):
        return lambda: np.clip(x, p["min"], p["max"], out=out)

    def torch(self, tx, tout, p):
        import torch
        return lambda: torch.clamp(tx, p["min"], p["max"], out=tout)


class ClipScaleBias(Clip):
    name = "clip+scale_bias"
    kernel_entry = "clip_scale_bias"
    numpy_desc = "np.multiply, np.add, np.clip, all out="
    torch_desc = "torch.mul(out=), add_, clamp_"
    onnx_op = None

    def params(self, dtype):
        return {"min": -1.0, "max": 1.0, "scale": 0.75, "bias": 0.125}

    def simdops(self, x, out, p):
        return lambda: simdops.clip(x, p["min"], p["max"], scale=p["scale"], bias=p["bias"],
                                    out=out)

    def numpy(self, x, out, p):
        scale, bias = np.asarray(p["scale"], x.dtype), np.asarray(p["bias"], x.dtype)

        def run():
            np.multiply(x, scale, out=out)
            np.add(out, bias, out=out)
            return np.clip(out, p["min"], p["max"], out=out)
        return run

    def torch(self, tx, tout, p):
        import torch
        return lambda: (torch.mul(tx, p["scale"], out=tout).add_(p["bias"])
                        .clamp_(p["min"], p["max"]))


class Shrink(Op):
    name = kernel_entry = "shrink"
    numpy_desc = "masks by np.greater/np.less, then np.subtract/np.add with where= and out="
    torch_desc = "torch.nn.functional.softshrink (allocates; float dtypes, bias == threshold)"
    onnx_op = "Shrink"

    def params(self, dtype):
        if np.dtype(dtype).kind == "f":
            return {"bias": 0.5, "threshold": 0.5}      # = softshrink(lambd=0.5), bias != 0
        span = int(np.iinfo(dtype).max) - int(np.iinfo(dtype).min)
        return {"bias": span // 16, "threshold": span // 8}

    def simdops(self, x, out, p):
        return lambda: simdops.shrink(x, p["bias"], p["threshold"], out=out)

    def numpy(self, x, out, p):
        above = np.empty(x.shape, bool)
        below = np.empty(x.shape, bool)
        b, t = p["bias"], p["threshold"]

        def run():
            np.greater(x, t, out=above)
            np.less(x, -t, out=below)
            out.fill(0)
            np.subtract(x, b, out=out, where=above)
            np.add(x, b, out=out, where=below)
            return out
        return run

    def torch(self, tx, tout, p):
        import torch
        if not tx.is_floating_point() or p["bias"] != p["threshold"]:
            return None
        return lambda: torch.nn.functional.softshrink(tx, p["threshold"])


class Hardmax(Op):
    """One-hot of the first maximum along `axis` (last by default, or 0)."""
    kernel_entry = "argmax_row"
    numpy_desc = "zero out, np.argmax(keepdims, out=), np.put_along_axis"
    torch_desc = "torch.argmax(out=), zero_, scatter_"
    onnx_op = "Hardmax"

    def __init__(self, axis=-1):
        self.axis = axis
        self.name = "hardmax" if axis == -1 else f"hardmax axis={axis}"
        if axis != -1:
            self.kernel_entry = "argmax_cols"

    def simdops(self, x, out, p):
        return lambda: simdops.hardmax(x, axis=self.axis, out=out)

    def numpy(self, x, out, p):
        shape = list(x.shape)
        shape[self.axis] = 1
        idx = np.empty(shape, np.intp)

        def run():
            out[...] = 0
            np.argmax(x, axis=self.axis, keepdims=True, out=idx)
            np.put_along_axis(out, idx, 1, axis=self.axis)
            return out
        return run

    def torch(self, tx, tout, p):
        import torch
        shape = list(tx.shape)
        shape[self.axis] = 1
        idx = torch.empty(shape, dtype=torch.long)

        def run():
            torch.argmax(tx, dim=self.axis, keepdim=True, out=idx)
            return tout.zero_().scatter_(self.axis, idx, 1.0)
        return run


class Requant(Op):
    """int32 -> uint8, ACL's ScaleByFixedPoint; per tensor, or per channel with bias."""
    numpy_desc = "the docs/semantics.md formula in int64 numpy"

    def __init__(self, per_channel):
        self.per_channel = per_channel
        self.name = "requant_pc+bias" if per_channel else "requant"
        self.kernel_entry = "requant_pc" if per_channel else "requant"

    def out_dtype(self, dtype):
        return "uint8"

    def make_input(self, dtype, shape, rng):
        return rng.integers(-150_000, 150_000, shape, dtype=np.int32)

    def params(self, dtype):
        if not self.per_channel:
            m, s = simdops.quantize_multiplier(1 / 1000)
            return {"multiplier": m, "shift": s, "offset": 100, "min": 0, "max": 0, "bias": None}
        scales = np.linspace(1 / 1200, 1 / 800, REQUANT_CHANNELS)
        ms = [simdops.quantize_multiplier(float(v)) for v in scales]
        return {"multiplier": np.array([m for m, _ in ms], np.int32),
                "shift": np.array([s for _, s in ms], np.int32),
                "offset": 100, "min": 10, "max": 245,
                "bias": 40 * np.arange(-REQUANT_CHANNELS // 2, REQUANT_CHANNELS // 2,
                                       dtype=np.int32)}

    @staticmethod
    def fit(p, x):
        """The parameters, per-channel vectors cut to x's last dimension."""
        q = dict(p)
        for key in ("multiplier", "shift", "bias"):
            if isinstance(q[key], np.ndarray):
                q[key] = np.ascontiguousarray(q[key][:x.shape[-1]])
        return q

    def simdops(self, x, out, p):
        q = self.fit(p, x)
        return lambda: simdops.quantize_down_int32_to_uint8(
            x, q["multiplier"], q["shift"], q["offset"], bias=q["bias"], min=q["min"],
            max=q["max"], out=out)

    def numpy(self, x, out, p):
        q = self.fit(p, x)
        m = np.asarray(q["multiplier"], np.int64)
        shift = np.asarray(q["shift"], np.int64)
        left, right = np.maximum(-shift, 0), np.maximum(shift, 0)
        mask = (np.int64(1) << right) - 1
        bias = None if q["bias"] is None else np.asarray(q["bias"], np.int64)
        # Only the branches these parameters can reach are computed, to be fair to numpy.
        needs_left = bool(np.any(left))
        needs_saturation = bool(np.any(m == INT32_MIN))

        def wrap32(v):
            return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)

        def run():
            a = x.astype(np.int64)
            if bias is not None:
                a = wrap32(a + bias)
            if needs_left:
                a = wrap32(a << left)
            v = (a * m + (1 << 30)) >> 31                             # SRDHM
            if needs_saturation:
                v = np.where((a == INT32_MIN) & (m == INT32_MIN), INT32_MAX, v)
            v = (v >> right) + ((v & mask) > ((mask >> 1) + (v < 0)))    # RDBPOT
            v = wrap32(v + q["offset"])
            if q["min"] != q["max"]:
                v = np.clip(v, q["min"], q["max"])
            np.copyto(out, np.clip(v, 0, 255), casting="unsafe")
            return out
        return run


class QuantizeLinear(Op):
    """ONNX QuantizeLinear float32 -> uint8, per tensor (simdops.onnx)."""
    name = "quantize_linear"
    kernel_entry = "quantize_f32"
    numpy_desc = "np.divide, np.rint, np.add, np.clip, np.copyto (unsafe)"
    onnx_op = "QuantizeLinear"

    def out_dtype(self, dtype):
        return "uint8"

    def make_input(self, dtype, shape, rng):
        return (rng.standard_normal(shape) * 40).astype(dtype)

    def params(self, dtype):
        return {"scale": np.array(0.37, np.float32), "zero_point": np.array(128, np.uint8)}

    def simdops(self, x, out, p):
        import simdops.onnx
        return lambda: simdops.onnx.quantize_linear(x, p["scale"], p["zero_point"], out=out)

    def numpy(self, x, out, p):
        tmp = np.empty(x.shape, np.float32)

        def run():
            np.divide(x, p["scale"], out=tmp)
            np.rint(tmp, out=tmp)
            np.add(tmp, np.float32(p["zero_point"]), out=tmp)
            np.clip(tmp, 0, 255, out=tmp)
            np.copyto(out, tmp, casting="unsafe")
            return out
        return run


class DequantizeLinear(Op):
    """ONNX DequantizeLinear uint8 -> float32, per tensor (simdops.onnx)."""
    name = "dequantize_linear"
    kernel_entry = "dequantize_f32"
    numpy_desc = "np.subtract (float32), np.multiply"
    onnx_op = "DequantizeLinear"

    def out_dtype(self, dtype):
        return "float32"

    def params(self, dtype):
        return {"scale": np.array(0.37, np.float32), "zero_point": np.array(128, np.uint8)}

    def simdops(self, x, out, p):
        import simdops.onnx
        return lambda: simdops.onnx.dequantize_linear(x, p["scale"], p["zero_point"], out=out)

    def numpy(self, x, out, p):
        def run():
            np.subtract(x, np.float32(p["zero_point"]), out=out)
            np.multiply(out, p["scale"], out=out)
            return out
        return run


CLIP, CLIP_SCALE_BIAS, SHRINK = Clip(), ClipScaleBias(), Shrink()
QUANTIZE_LINEAR, DEQUANTIZE_LINEAR = QuantizeLinear(), DequantizeLinear()
HARDMAX, HARDMAX_AXIS0 = Hardmax(-1), Hardmax(0)
REQUANT, REQUANT_PC = Requant(False), Requant(True)
OPS = {op.name: op for op in (CLIP, CLIP_SCALE_BIAS, SHRINK, HARDMAX, HARDMAX_AXIS0,
                              REQUANT, REQUANT_PC, QUANTIZE_LINEAR, DEQUANTIZE_LINEAR)}


# the requantization families' ops (ops_requant_families.py), appended to the catalogue
from simdops.bench.ops_requant_families import FAMILY_OPS  # noqa: E402
OPS.update({op.name: op for op in FAMILY_OPS})
