"""The base of the benchmarked operations (ops.py's module docstring says what an Op
does) and the double-rounding requant op, which the requantization families
(ops_requant_families.py) extend: the pieces both ops.py and ops_requant_families.py use,
so that neither imports the other back."""
import numpy as np

import simdops

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
REQUANT_CHANNELS = 256       # per-channel requant: (n / 256) x 256


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
