"""The low-bit hot paths through Python, interleaved against their baselines (a developer
tool like kernel_bench.py; the rows the issue asks for, until `python -m simdops bench`
has cases for the packed types).

  int4 blocked dequantize to float32 (ORT's weight form: DequantizeLinear(axis=0,
    block_size=B) on an INT4 [K, N] initializer, B = 32 and 128; 1M and 16M outputs)
    against np.copyto of the output bytes (float32 -> float32, same size) and against
    ORT's DequantizeLinear on the same data (an INT4 initializer, graph optimisations
    off so the node runs on every call, one thread);
  float8 e4m3fn quantize and dequantize (64K, 1M) against a float32 -> uint8 converting
    copy, and the quantize+dequantize pair against ORT's QuantizeLinear -> DequantizeLinear
    chain (ORT's Python API returns no float8 tensor, so only the chain is timed there).

simdops runs through _core.qdq with a preallocated output (what quantize_linear /
dequantize_linear call; they allocate their result) and, as "api", through the public
functions; int4 x is given packed (packed="int4", as ORT's initializer holds it: an
ml_dtypes int4 array, one element a byte, is packed by the call first, which costs more
than the kernel). Each ratio is the median over rounds of baseline time / simdops time, rounds
alternating the order; the spread printed is min..max over rounds.
Usage: PYTHONPATH=src python tools/lowbit_bench.py [--rounds N] [--quick]"""
import argparse
import statistics
import time

import ml_dtypes
import numpy as np

import simdops.onnx
from simdops import _core
from simdops.onnx import _lowbit


def best_time(fn, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def compare(label, fn, base, rounds):
    fn()
    base()
    reps = max(1, int(0.02 / max(best_time(fn, 1), 1e-7)))
    ratios = []
    for r in range(rounds):
        if r % 2:
            tf, tb = best_time(fn, reps), best_time(base, reps)
        else:
            tb, tf = best_time(base, reps), best_time(fn, reps)
        ratios.append(tb / tf)
    print(f"{label:72s} ratio {statistics.median(ratios):6.2f}  "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f}, {rounds} rounds)")
    return statistics.median(ratios)


def ort_session(model):
    import onnxruntime as ort
    o = ort.SessionOptions()
    o.intra_op_num_threads = 1
    o.inter_op_num_threads = 1
    o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    o.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), o, providers=["CPUExecutionProvider"])


def int4_rows(n, block, rounds):
    from onnx import TensorProto, helper, numpy_helper
    k = 1024 if n == 1 << 20 else 4096
    cols = n // k
    rng = np.random.default_rng(1)
    w = rng.integers(-8, 8, size=(k, cols)).astype(ml_dtypes.int4)
    scale = (rng.random(((k + block - 1) // block, cols)) * 0.02 + 0.001).astype(np.float32)
    zp = rng.integers(-8, 8, size=scale.shape).astype(ml_dtypes.int4)
    out = np.empty((k, cols), np.float32)
    src = np.ones((k, cols), np.float32)
    nib = np.ascontiguousarray(w).view(np.uint8).reshape(-1) & 15
    packed = (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8)   # ONNX's packing, as ORT stores it

    def run_core():
        _core.qdq(False, packed, scale, zp, out, (k, cols), scale.shape, zp.shape,
                  _lowbit._code("int4"), _lowbit._code("float32"), _lowbit._code("int4"),
                  _lowbit._code("float32"), 1, 1, 0, 0, 0, block)

    def run_api():
        return simdops.onnx.dequantize_linear(packed, scale, zp, axis=0, block_size=block,
                                              packed="int4", shape=(k, cols))

    want = run_api()
    run_core()
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    label = f"int4 dq axis=0 block {block} [{k}, {cols}] ({n:,} outputs)"
    compare(f"{label} vs np.copyto(y)", run_core, lambda: np.copyto(out, src), rounds)
    compare(f"{label} api vs np.copyto(y)", run_api, lambda: np.copyto(out, src), rounds)
    try:
        wt = numpy_helper.from_array(w, "w")
        st = numpy_helper.from_array(scale, "s")
        zt = numpy_helper.from_array(zp, "z")
        node = helper.make_node("DequantizeLinear", ["w", "s", "z"], ["y"], axis=0, block_size=block)
        g = helper.make_graph([node], "dq", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [k, cols])],
                              initializer=[wt, st, zt])
        sess = ort_session(helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]))
        binding = sess.io_binding()
        ort_out = np.empty((k, cols), np.float32)
        binding.bind_output("y", "cpu", 0, np.float32, [k, cols], ort_out.ctypes.data)
        sess.run_with_iobinding(binding)
        same = np.array_equal(ort_out.view(np.uint32), want.view(np.uint32))
        compare(f"{label} vs ORT (same bits: {same})", run_core, lambda: sess.run_with_iobinding(binding), rounds)
    except Exception as e:  # noqa: BLE001 -- report, keep the other rows
        print(f"{label} vs ORT: not measured ({type(e).__name__}: {e})")


def f8_rows(n, rounds):
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(n) * 40).astype(np.float32)
    scale = np.array(0.37, np.float32)
    q = np.empty(n, ml_dtypes.float8_e4m3fn)
    y = np.empty(n, np.float32)
    u8 = np.empty(n, np.uint8)
    qa = q.view(np.uint8)
    e4 = _lowbit._code("float8_e4m3fn")
    f32 = _lowbit._code("float32")

    def run_q():
        _core.qdq(True, x, scale, None, q, (n,), (), (), f32, f32, 0, e4, 0, 1, 0, 0, 1, 0)

    def run_dq():
        _core.qdq(False, q, scale, None, y, (n,), (), (), e4, f32, 0, f32, 0, 1, 0, 0, 1, 0)

    run_q()
    assert np.array_equal(qa, simdops.onnx.quantize_linear(x, scale, output_dtype="float8_e4m3fn").view(np.uint8))
    run_dq()
    cvt = lambda: np.copyto(u8, x, casting="unsafe")  # noqa: E731
    compare(f"e4m3fn q n={n:,} vs f32->u8 converting copy", run_q, cvt, rounds)
    compare(f"e4m3fn dq n={n:,} vs f32->u8 converting copy", run_dq, cvt, rounds)
    try:
        zt = numpy_helper.from_array(np.zeros((), ml_dtypes.float8_e4m3fn), "z")
        st = numpy_helper.from_array(scale, "s")
        nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                 helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
        g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n])], initializer=[st, zt])
        sess = ort_session(helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]))
        binding = sess.io_binding()
        ort_y = np.empty(n, np.float32)
        binding.bind_cpu_input("x", x)
        binding.bind_output("y", "cpu", 0, np.float32, [n], ort_y.ctypes.data)
        sess.run_with_iobinding(binding)
        same = np.array_equal(ort_y.view(np.uint32), y.view(np.uint32))

        def both():
            run_q()
            run_dq()
        compare(f"e4m3fn q+dq n={n:,} vs ORT Q->DQ chain (same bits: {same})", both,
                lambda: sess.run_with_iobinding(binding), rounds)
    except Exception as e:  # noqa: BLE001
        print(f"e4m3fn n={n:,} vs ORT: not measured ({type(e).__name__}: {e})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="1M / 64K only")
    a = ap.parse_args()
    print(f"simdops ISA {simdops.isa() if hasattr(simdops, 'isa') else '?'}")
    for n in ((1 << 20,) if a.quick else (1 << 20, 1 << 24)):
        for block in (32, 128):
            int4_rows(n, block, a.rounds)
    for n in ((1 << 16,) if a.quick else (1 << 16, 1 << 20)):
        f8_rows(n, a.rounds)


if __name__ == "__main__":
    main()
