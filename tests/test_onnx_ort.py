"""simdops.onnx against ONNX Runtime's CPU kernels: equal on ordinary data, and
every known difference pinned by a test that names the ORT behaviour
(docs/onnx.md lists them)."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402

import simdops.onnx as so  # noqa: E402

_NP_TO_ONNX = {np.dtype(k): v for k, v in {
    np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16,
    np.float64: TensorProto.DOUBLE, np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8,
    np.int16: TensorProto.INT16, np.uint16: TensorProto.UINT16, np.int32: TensorProto.INT32,
    np.int64: TensorProto.INT64}.items()}


def run_ort(op, feeds, out_dtype, opset=21, **attrs):
    """One node through ONNX Runtime (CPU, one thread); feeds: name -> array or None."""
    names = [n if v is not None else "" for n, v in feeds.items()]
    inputs = [helper.make_tensor_value_info(n, _NP_TO_ONNX[v.dtype], v.shape)
              for n, v in feeds.items() if v is not None]
    out = helper.make_tensor_value_info("y", _NP_TO_ONNX[np.dtype(out_dtype)], None)
    graph = helper.make_graph([helper.make_node(op, names, ["y"], **attrs)], "g", inputs, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    so_ = ort.SessionOptions()
    so_.intra_op_num_threads = 1
    so_.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so_, providers=["CPUExecutionProvider"])
    return sess.run(None, {n: v for n, v in feeds.items() if v is not None})[0]


def bits(a):
    return np.ascontiguousarray(a).tobytes()


rng = np.random.default_rng(7)
ORDINARY = (rng.standard_normal(1000) * 50).astype(np.float32)


# ---------------------------------------------------------------- equal on ordinary data

@pytest.mark.parametrize("qdtype", [np.uint8, np.int8, np.uint16, np.int16])
def test_quantize_dequantize_equal(qdtype):
    x = np.concatenate([ORDINARY, np.arange(-300, 300, 0.5, dtype=np.float32)])
    s, z = np.array(0.5, np.float32), np.array(3, qdtype)
    want = run_ort("QuantizeLinear", {"x": x, "s": s, "z": z}, qdtype)
    got = so.quantize_linear(x, s, z)
    assert bits(got) == bits(want)
    assert bits(so.dequantize_linear(got, s, z)) == bits(
        run_ort("DequantizeLinear", {"q": got, "s": s, "z": z}, np.float32))


def test_quantize_nan_and_inf_equal_ort_x86():
    x = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30], np.float32)
    s, z = np.array(0.5, np.float32), np.array(10, np.uint8)
    assert bits(so.quantize_linear(x, s, z)) == bits(
        run_ort("QuantizeLinear", {"x": x, "s": s, "z": z}, np.uint8))


def test_quantize_per_axis_equal():
    x = (rng.standard_normal((2, 3, 5)) * 20).astype(np.float32)
    s = np.array([0.5, 0.25, 0.1], np.float32)
    z = np.array([0, 5, 250], np.uint8)
    assert bits(so.quantize_linear(x, s, z, axis=1)) == bits(
        run_ort("QuantizeLinear", {"x": x, "s": s, "z": z}, np.uint8, axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint8, np.int32, np.int64])
def test_clip_equal(dtype):
    x = (ORDINARY if dtype == np.float32 else ORDINARY.astype(np.int64).astype(dtype))
    lo, hi = np.array(2 if dtype == np.uint8 else -20, dtype), np.array(30, dtype)
    assert bits(so.clip(x, lo, hi)) == bits(run_ort("Clip", {"x": x, "lo": lo, "hi": hi}, dtype))


def test_shrink_equal_float32():
    assert bits(so.shrink(ORDINARY, 1.5, 2.0)) == bits(
        run_ort("Shrink", {"x": ORDINARY}, np.float32, bias=1.5, lambd=2.0))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_hardmax_equal_float32(axis):
    x = ORDINARY.reshape(10, 100)
    assert bits(so.hardmax(x, axis)) == bits(run_ort("Hardmax", {"x": x}, np.float32, axis=axis))


# ---------------------------------------------------------------- the differences, pinned

def test_ort_hardmax_never_picks_nan():
    """ORT: `[NaN, 1, 2]` gives all zeros; ONNX (numpy argmax) and simdops pick the NaN."""
    x = np.array([[np.nan, 1, 2]], np.float32)
    assert (run_ort("Hardmax", {"x": x}, np.float32, axis=-1) == 0).all()
    assert so.hardmax(x).tolist() == [[1, 0, 0]]


def test_ort_hardmax_has_no_float64_kernel():
    x = np.array([[1.0, 2.0]], np.float64)
    with pytest.raises(Exception, match="(?i)NOT_IMPLEMENTED|not implemented|Could not find"):
        run_ort("Hardmax", {"x": x}, np.float64, axis=-1)
    assert so.hardmax(x).tolist() == [[0, 1]]


def test_ort_clip_has_no_int16_kernel():
    x = np.array([-5, 5], np.int16)
    with pytest.raises(Exception, match="(?i)NOT_IMPLEMENTED|not implemented|Could not find"):
        run_ort("Clip", {"x": x, "lo": np.array(0, np.int16), "hi": np.array(3, np.int16)},
                np.int16)
    assert so.clip(x, 0, 3).tolist() == [0, 3]


def test_ort_clip_absent_bound_is_flt_max():
    """ORT replaces an absent bound by +-FLT_MAX, so +-inf become +-FLT_MAX; ONNX keeps them."""
    x = np.array([np.inf, -np.inf, 1], np.float32)
    got_ort = run_ort("Clip", {"x": x, "lo": None, "hi": np.array(5, np.float32)}, np.float32)
    assert got_ort[1] == -np.finfo(np.float32).max
    assert so.clip(x, None, np.float32(5)).tolist() == [5, -np.inf, 1]


def test_ort_shrink_computes_wide_types_in_float32():
    """ORT: int32 16777217 -> 16777216 (float32 arithmetic); ONNX's numpy uses float64."""
    x = np.array([16777217], np.int32)
    assert run_ort("Shrink", {"x": x}, np.int32, bias=0.0, lambd=0.5)[0] == 16777216
    assert so.shrink(x, 0.0, 0.5)[0] == 16777217


def test_ort_quantize_divides_float16_in_float32():
    """ORT divides float16 x by a float16 scale in float32; ONNX's numpy in float16.
    x = 2.5, scale = 1.3330078 (float16): float16 quotient 1.875 -> 2; float32 1.8754579 -> 2,
    so search for an x where the two roundings land on different integers."""
    s = np.array(np.float16(1.333), np.float16)
    x = (np.arange(1, 4000, dtype=np.float32) * np.float32(0.01)).astype(np.float16)
    ours = so.quantize_linear(x, s, np.array(0, np.uint8))
    theirs = run_ort("QuantizeLinear", {"x": x, "s": s, "z": np.array(0, np.uint8)}, np.uint8)
    in_f32 = np.clip(np.rint(x.astype(np.float32) / np.float32(s)), 0, 255).astype(np.uint8)
    in_f16 = np.clip(np.rint(x / s), 0, 255).astype(np.uint8)
    assert (in_f32 != in_f16).any()  # the data does separate the two
    assert bits(theirs) == bits(in_f32)
    assert bits(ours) == bits(in_f16)
