"""Benchmarked low-bit DequantizeLinear / QuantizeLinear (simdops.onnx with out=):

- int4 blocked dequantize to float32, ONNX Runtime's weight form: DequantizeLinear(axis=0,
  block_size=B) on an INT4 [K, N] tensor given packed (two a byte, as ORT's initializer
  holds it), float32 scales and int4 zero points of shape [K / B, N];
- float8 e4m3fn quantize from float32 and dequantize to float32, one scale.

The np.copyto column of these cases is not x copied into out (their shapes or sizes
differ): int4 dequantize copies the OUTPUT bytes (a float32 array of the output's shape
into out: the input is 8x smaller, writing the output is the bound); float8 quantize and
dequantize run the float32 -> uint8 converting copy of the same element count. ONNX
Runtime is a path of each case (one thread, graph optimisations off so the node runs on
every call, outputs bound to the benchmark's arrays): the int4 weight is an INT4
initializer; ORT's Python API returns no float8 tensor, so the float8 dequantize case
times ORT's QuantizeLinear -> DequantizeLinear chain next to simdops' two calls."""
from dataclasses import dataclass

import numpy as np

from simdops.bench.cases import Case, Path, register_case
from simdops.bench.goals import M, M16, Goal, register_goal
from simdops.bench.ops_base import Op
from simdops.bench.runner import COPY

ORT_DQ = "ORT DequantizeLinear"
ORT_CHAIN = "ORT QuantizeLinear->DequantizeLinear"
PAIR = "simdops quantize+dequantize"
_F8 = "float8_e4m3fn"


def _ort_session(model):
    import onnxruntime as ort
    o = ort.SessionOptions()
    o.intra_op_num_threads = 1
    o.inter_op_num_threads = 1
    o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    o.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), o, providers=["CPUExecutionProvider"])


class Int4BlockedDequantize(Op):
    """int4 [K, N] packed -> float32, axis 0, block B, int4 zero points."""
    kernel_entry = ""      # the qlow table, not the main one (no tier check)
    numpy_desc = ""

    def __init__(self, block):
        self.block = block
        self.name = f"dequantize_linear int4 axis=0 block={block}"

    def out_dtype(self, dtype):
        return "float32"


class Float8Op(Op):
    kernel_entry = ""

    def __init__(self, quantize):
        self.quantize = quantize
        self.name = "quantize_linear e4m3fn" if quantize else "dequantize_linear e4m3fn"

    def out_dtype(self, dtype):
        return _F8 if self.quantize else "float32"


@dataclass
class LowbitCase(Case):
    """A case whose input is not out's shape (see the module docstring)."""

    @property
    def nbytes(self):
        if isinstance(self.op, Int4BlockedDequantize):
            return self.n // 2 + self.n * 4
        return self.n * 5

    @property
    def dtype_label(self):
        if isinstance(self.op, Int4BlockedDequantize):
            return "int4->float32"
        return "float32->" + _F8 if self.op.quantize else _F8 + "->float32"

    def arrays(self, rng):
        import ml_dtypes
        p = {}
        if isinstance(self.op, Int4BlockedDequantize):
            k, cols = self.shape
            w = rng.integers(-8, 8, size=(k, cols)).astype(ml_dtypes.int4)
            nib = np.ascontiguousarray(w).view(np.uint8).reshape(-1) & 15
            p["_w"] = w
            p["_scale"] = (rng.random((-(-k // self.op.block), cols)) * 0.02
                          + 0.001).astype(np.float32)
            p["_zp"] = rng.integers(-8, 8, size=p["_scale"].shape).astype(ml_dtypes.int4)
            x = (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8)   # ONNX's packing
            p["block_size"] = self.op.block
            return x, np.zeros((k, cols), np.float32), p
        p["_scale"] = np.array(0.37, np.float32)
        p["scale"] = 0.37
        p["_f32"] = (rng.standard_normal(self.shape) * 40).astype(np.float32)
        if self.op.quantize:
            return p["_f32"], np.zeros(self.shape, ml_dtypes.float8_e4m3fn), p
        import simdops.onnx
        x = simdops.onnx.quantize_linear(p["_f32"], p["_scale"], output_dtype=_F8)
        return x, np.zeros(self.shape, np.float32), p

    def copy_baseline(self, x, out, p):
        if isinstance(self.op, Int4BlockedDequantize):
            src = np.ones(out.shape, np.float32)
            return lambda: np.copyto(out, src)
        u8 = np.empty(self.shape, np.uint8)
        return lambda: np.copyto(u8, p["_f32"], casting="unsafe")


def _simdops_call(op, x, out, p):
    import simdops.onnx
    if isinstance(op, Int4BlockedDequantize):
        return lambda: simdops.onnx.dequantize_linear(
            x, p["_scale"], p["_zp"], axis=0, block_size=op.block, packed="int4",
            shape=out.shape, out=out)
    if op.quantize:
        return lambda: simdops.onnx.quantize_linear(x, p["_scale"], output_dtype=_F8, out=out)
    return lambda: simdops.onnx.dequantize_linear(x, p["_scale"], out=out)


Int4BlockedDequantize.simdops = lambda self, x, out, p: _simdops_call(self, x, out, p)
Float8Op.simdops = lambda self, x, out, p: _simdops_call(self, x, out, p)


def _ort_int4(x, out, p):
    if "_w" not in p:
        return None
    try:
        from onnx import TensorProto, helper, numpy_helper
        k, cols = out.shape
        block = -(-k // p["_scale"].shape[0])
        inits = [numpy_helper.from_array(p["_w"], "w"), numpy_helper.from_array(p["_scale"], "s"),
                 numpy_helper.from_array(p["_zp"], "z")]
        node = helper.make_node("DequantizeLinear", ["w", "s", "z"], ["y"], axis=0,
                                block_size=block)
        g = helper.make_graph([node], "dq", [], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [k, cols])], initializer=inits)
        sess = _ort_session(helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]))
        binding = sess.io_binding()
        binding.bind_output("y", "cpu", 0, np.float32, [k, cols], out.ctypes.data)
        sess.run_with_iobinding(binding)
    except Exception:      # no onnxruntime / onnx, or no kernel for this form
        return None

    def run():
        sess.run_with_iobinding(binding)
        return out
    return run


def _ort_f8_chain(x, out, p):
    if "_f32" not in p or out.dtype != np.float32:
        return None
    try:
        import ml_dtypes
        from onnx import TensorProto, helper, numpy_helper
        n = out.size
        inits = [numpy_helper.from_array(p["_scale"], "s"),
                 numpy_helper.from_array(np.zeros((), ml_dtypes.float8_e4m3fn), "z")]
        nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                 helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
        g = helper.make_graph(nodes, "qdq",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n])],
                              initializer=inits)
        sess = _ort_session(helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]))
        binding = sess.io_binding()
        binding.bind_cpu_input("x", p["_f32"])
        binding.bind_output("y", "cpu", 0, np.float32, [n], out.ctypes.data)
        sess.run_with_iobinding(binding)
    except Exception:
        return None

    def run():
        sess.run_with_iobinding(binding)
        return out
    return run


def _pair(x, out, p):
    """simdops' quantize then dequantize of the same float32 (what ORT's chain computes)."""
    if "_f32" not in p or out.dtype != np.float32:
        return None
    import simdops.onnx
    codes = np.empty(out.shape, x.dtype)

    def run():
        simdops.onnx.quantize_linear(p["_f32"], p["_scale"], output_dtype=_F8, out=codes)
        return simdops.onnx.dequantize_linear(codes, p["_scale"], out=out)
    return run


GOALS_FULL = frozenset({"goals", "full"})


def register():
    # the cases build their arrays with ml_dtypes (int4 weights, float8 outputs): without
    # it (simdops does not require it) the low-bit rows and their goals are left out
    import importlib.util
    if importlib.util.find_spec("ml_dtypes") is None:
        return
    for n, k in ((M, 1024), (M16, 4096)):
        for block in (32, 128):
            case = register_case(LowbitCase(Int4BlockedDequantize(block), "int4",
                                            (k, n // k), tags=GOALS_FULL,
                                            paths=[Path(ORT_DQ, _ort_int4)]))
            register_goal(Goal(f"int4 dq axis=0 block {block} {case.size_label} vs np.copyto of "
                               "the float32 output", (case.id, "simdops"), (case.id, COPY), 0.8))
            register_goal(Goal(f"int4 dq axis=0 block {block} {case.size_label} vs ORT "
                               "DequantizeLinear", (case.id, "simdops"), (case.id, ORT_DQ), 2.0))
    for n in (65_536, M):
        for quantize in (True, False):
            case = register_case(LowbitCase(
                Float8Op(quantize), "float32" if quantize else _F8, (n,), tags=GOALS_FULL,
                paths=[] if quantize else [Path(PAIR, _pair), Path(ORT_CHAIN, _ort_f8_chain)]))
            what = "q" if quantize else "dq"
            register_goal(Goal(f"e4m3fn {what} n={n:,} vs float32->uint8 converting copy",
                               (case.id, "simdops"), (case.id, COPY), 0.8))
            if not quantize:
                register_goal(Goal(f"e4m3fn q+dq n={n:,} vs ORT Q->DQ chain",
                                   (case.id, PAIR), (case.id, ORT_CHAIN), 2.0))


register()
