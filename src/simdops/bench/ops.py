"""The benchmarked operations: inputs, parameters and every implementation of each op.

An Op knows how to make an input and parameters for a dtype, and returns zero-argument
callables for simdops, numpy and torch that write a preallocated `out` (torch's allocating
functions return a new tensor instead). A factory returns None when that library has no
implementation for the case; the ONNX Runtime versions live in ort.py."""
import numpy as np

import simdops
from simdops.bench.ops_base import REQUANT_CHANNELS, Op, Requant  # noqa: F401 (re-exported)
from simdops.bench.ops_requant_chain import CHAIN_OPS
from simdops.bench.ops_requant_families import FAMILY_OPS


def _int_window(dtype):
    """Bounds a quarter of the type's span in from each end."""
    info = np.iinfo(dtype)
    quarter = (int(info.max) - int(info.min)) // 4
    return int(info.min) + quarter, int(info.max) - quarter


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


class QuantizeLinear(Op):
    """ONNX QuantizeLinear float32 -> uint8 (or int8), per tensor (simdops.onnx)."""
    kernel_entry = "quantize_f32"
    numpy_desc = "np.divide, np.rint, np.add, np.clip, np.copyto (unsafe)"
    onnx_op = "QuantizeLinear"

    def __init__(self, out="uint8"):
        self.out = out
        self.name = "quantize_linear" if out == "uint8" else f"quantize_linear {out}"
        # the same spread of quotients about the type's middle for both
        self.zero_point = np.array(128 if out == "uint8" else 0, out)

    def out_dtype(self, dtype):
        return self.out

    def make_input(self, dtype, shape, rng):
        return (rng.standard_normal(shape) * 40).astype(dtype)

    def params(self, dtype):
        return {"scale": np.array(0.37, np.float32), "zero_point": self.zero_point}

    def simdops(self, x, out, p):
        import simdops.onnx
        return lambda: simdops.onnx.quantize_linear(x, p["scale"], p["zero_point"], out=out)

    def numpy(self, x, out, p):
        tmp = np.empty(x.shape, np.float32)

        def run():
            np.divide(x, p["scale"], out=tmp)
            np.rint(tmp, out=tmp)
            np.add(tmp, np.float32(p["zero_point"]), out=tmp)
            np.clip(tmp, np.iinfo(self.out).min, np.iinfo(self.out).max, out=tmp)
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


class Int8Matmul(Op):
    """int8_matmul_accumulators, uint8 a [n, n] @ int8 w [n, n] -> int32 (a square
    shape: out has x's shape), exact or with VPMADDUBSW's pairs; numpy: the int64 matmul
    of the same operands (what the accumulators equal when exact)."""
    numpy_desc = "a.astype(int64) @ w.astype(int64), copied to int32"

    def __init__(self, pair_saturation):
        self.pair_saturation = pair_saturation
        self.name = "int8_matmul_pairsat" if pair_saturation else "int8_matmul"
        self.kernel_entry = "int8_dot_pairsat" if pair_saturation else "int8_dot"

    def out_dtype(self, dtype):
        return "int32"

    def params(self, dtype):
        return {}

    def simdops(self, x, out, p):
        import simdops
        w = p.setdefault("w", np.random.default_rng(1).integers(
            -128, 128, (x.shape[1], x.shape[1]), dtype=np.int8))
        return lambda: simdops.int8_matmul_accumulators(x, w, out=out,
                                                        pair_saturation=self.pair_saturation)

    def numpy(self, x, out, p):
        w = p.setdefault("w", np.random.default_rng(1).integers(
            -128, 128, (x.shape[1], x.shape[1]), dtype=np.int8))

        def run():
            np.copyto(out, x.astype(np.int64) @ w.astype(np.int64), casting="unsafe")
            return out
        return run


INT8_MATMUL, INT8_MATMUL_PAIRSAT = Int8Matmul(False), Int8Matmul(True)
CLIP, CLIP_SCALE_BIAS, SHRINK = Clip(), ClipScaleBias(), Shrink()
QUANTIZE_LINEAR, DEQUANTIZE_LINEAR = QuantizeLinear(), DequantizeLinear()
QUANTIZE_LINEAR_I8 = QuantizeLinear("int8")
HARDMAX, HARDMAX_AXIS0 = Hardmax(-1), Hardmax(0)
REQUANT, REQUANT_PC = Requant(False), Requant(True)
OPS = {op.name: op for op in (CLIP, CLIP_SCALE_BIAS, SHRINK, HARDMAX, HARDMAX_AXIS0,
                              REQUANT, REQUANT_PC, QUANTIZE_LINEAR, QUANTIZE_LINEAR_I8, DEQUANTIZE_LINEAR,
                              INT8_MATMUL, INT8_MATMUL_PAIRSAT)}
OPS.update({op.name: op for op in FAMILY_OPS})  # ops_requant_families.py's
OPS.update({op.name: op for op in CHAIN_OPS})  # ops_requant_chain.py's
