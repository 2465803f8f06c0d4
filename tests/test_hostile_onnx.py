"""Hostile inputs to the ONNX profile (simdops.onnx: quantize_linear, dequantize_linear,
clip, shrink, hardmax, run_node): each case once gave a wrong answer, hung, or leaked a
raw or misleading exception; now it is right, or a TypeError/ValueError that names the
argument as ONNX names it."""
import subprocess
import sys

import numpy as np
import pytest

import simdops
import simdops.onnx as so
from simdops import _core

X = np.ones(3, np.float32)
Q = np.ones(3, np.uint8)


def _onnx():
    return pytest.importorskip("onnx")


def _ml_dtypes():
    return pytest.importorskip("ml_dtypes")


# ------------------------------------------------------------------ scales that are no numbers

@pytest.mark.parametrize("scale", [None, "0.5", b"0.5", [0.5, None], [None], True,
                                   np.bool_(True), 1 + 2j, object(), ["0.5"]],
                         ids=lambda v: type(v).__name__ + repr(v)[:12])
def test_quantize_scale_that_is_no_number_is_a_type_error_naming_y_scale(scale):
    # None became a NaN scale (all zeros), a string was parsed (bytes are a uint8 buffer)
    with pytest.raises(TypeError, match=r"^(quantize_linear: )?y_scale\b"):
        so.quantize_linear(X, scale)


@pytest.mark.parametrize("scale", [None, "0.5", [0.5, None], True, object()],
                         ids=lambda v: type(v).__name__)
def test_dequantize_scale_that_is_no_number_is_a_type_error_naming_x_scale(scale):
    # None gave all NaN
    with pytest.raises(TypeError, match=r"^x_scale\b"):
        so.dequantize_linear(Q, scale)


def test_float64_numpy_scale_is_a_number_like_a_python_float():
    x = np.array([0.0, 1.0, 2.5, -3.0, 1000.0], np.float32)
    want = so.quantize_linear(x, 0.1, np.uint8(10))
    assert want.tolist() == [10, 20, 35, 0, 255]  # x / float32(0.1), ties to even
    np.testing.assert_array_equal(so.quantize_linear(x, np.float64(0.1), np.uint8(10)), want)
    np.testing.assert_array_equal(so.quantize_linear(x, np.int64(2)), so.quantize_linear(x, 2))
    got = so.dequantize_linear(np.array([10, 20], np.uint8), np.float64(0.1), np.uint8(10))
    assert got.dtype == np.float32
    assert got.tolist() == [0.0, float(np.float32(10) * np.float32(0.1))]


def test_float64_scale_array_is_refused_naming_the_scale():
    # an array keeps its dtype (the reference would divide in float64): refused, named
    with pytest.raises(TypeError, match=r"y_scale has dtype float64; expected float32"):
        so.quantize_linear(X, np.array([0.5]))


def test_scale_as_a_huge_python_int():
    # a real number, not an object: rounded to float32, or refused beyond its range
    assert so.quantize_linear(np.array([2.0**101], np.float32), 2**100).tolist() == [2]
    with pytest.raises(ValueError, match=r"^y_scale: an int of 1329 bits is beyond float32"):
        so.quantize_linear(X, 10**400)


@pytest.mark.parametrize("bound", [np.array(None), np.array("0.5"), np.array([None])],
                         ids=["None", "str", "[None]"])
def test_clip_bound_array_holding_no_number_is_a_type_error(bound):
    # an object array holding None read as an absent bound (x came back unclipped)
    with pytest.raises(TypeError, match=r"^min must be a number"):
        so.clip(X, bound, 0.5)
    with pytest.raises(TypeError, match=r"^max must be a number"):
        so.clip(X, None, bound)


def test_clip_bound_array_of_two_names_the_bound():
    with pytest.raises(ValueError, match=r"^clip: max must be a scalar or one element"):
        so.clip(X, None, np.zeros(2, np.float32))


def test_run_node_with_an_omitted_scale_names_it():
    onnx = _onnx()
    for op, name in (("QuantizeLinear", "y_scale"), ("DequantizeLinear", "x_scale")):
        node = onnx.helper.make_node(op, ["x", ""], ["y"])
        x = X if op == "QuantizeLinear" else Q
        with pytest.raises(TypeError, match=rf"{op}'s {name} \(input 1\) is required"):
            so.run_node(node, [x, None])


# ------------------------------------------------------------------ zero points

def test_zero_point_of_an_unsupported_type_is_named_not_out():
    # out was made from the zero point's type, so the message named an out never passed
    with pytest.raises(TypeError, match=r"^quantize_linear: y_zero_point has dtype int32"):
        so.quantize_linear(X, 0.5, np.int32(3))
    with pytest.raises(TypeError, match=r"^dequantize_linear: x_zero_point has dtype int8"):
        so.dequantize_linear(Q, 0.5, np.int8(0))


@pytest.mark.parametrize("zp", ["3", 2.5, [1.5], True], ids=str)
def test_zero_point_that_is_no_integer_is_a_type_error(zp):
    with pytest.raises(TypeError, match=r"^y_zero_point\b"):
        so.quantize_linear(X, 0.5, zp)


# ------------------------------------------------------------------ parameters inside out

def test_per_axis_scale_inside_out_reads_as_if_copied_first():
    buf = np.zeros(16, np.float32)
    scale = buf[1:4]
    scale[:] = [0.5, 2, 4]
    out = buf[:12].reshape(3, 4)
    got = so.dequantize_linear(np.ones((3, 4), np.uint8), scale, axis=0, out=out)
    assert got is out
    # every row read 0.5: later channels read what channel 0 wrote
    assert out.tolist() == [[0.5] * 4, [2.0] * 4, [4.0] * 4]


def test_per_axis_zero_point_inside_out_reads_as_if_copied_first():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    zp = np.array([7, 100, 250], np.uint8)
    scale = np.array([0.5, 2.0, 4.0], np.float32)
    want = so.quantize_linear(x, scale, zp, axis=0)
    assert want[:, 0].tolist() == [7, 4 // 2 + 100, 8 // 4 + 250]
    buf = np.zeros(16, np.uint8)
    buf[2:5] = zp
    out = buf[:12].reshape(3, 4)
    so.quantize_linear(x, scale, buf[2:5], axis=0, out=out)
    np.testing.assert_array_equal(out, want)


def test_per_axis_scale_inside_a_reversed_out():
    buf = np.zeros(12, np.float32)
    out = buf[::-1].reshape(3, 4)  # out[0] is the buffer's end
    buf[9:12] = [3.0, 2.0, 1.0]
    scale = buf[9:12][::-1]  # [1, 2, 3], inside out's row 0
    got = so.dequantize_linear(np.full((4, 3), 2, np.uint8).T, scale, axis=0, out=out)
    assert got.tolist() == [[2.0] * 4, [4.0] * 4, [6.0] * 4]


# ------------------------------------------------------------------ empty inputs

def test_empty_x_with_2_to_the_44_channels_returns_at_once():
    # 2^44 empty channel calls with the GIL released (hours, Ctrl-C did not stop it);
    # a subprocess, so a regression fails on its timeout instead of hanging the suite
    code = ("import numpy as np, simdops.onnx as so\n"
            "s = np.broadcast_to(np.float32(.5), (2**44,))\n"
            "r = so.quantize_linear(np.zeros((2**44, 0), np.float32), s, axis=0)\n"
            "z = np.broadcast_to(np.int32(0), (2**44,))\n"
            "d = so.dequantize_linear(np.zeros((2**44, 0), np.int32), s, z, axis=0)\n"
            "print(r.shape, r.dtype, d.shape, d.dtype)\n")
    try:
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("an empty quantize_linear / dequantize_linear did not return in 60 s")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["(17592186044416,", "0)", "uint8", "(17592186044416,", "0)",
                                  "float32"]


# ------------------------------------------------------------------ FTZ / DAZ and threads

@pytest.mark.thread_unsafe(reason="sets the process-wide thread count and the FP mode")
@pytest.mark.skipif(not _core.threads_supported(), reason="single-thread build")
def test_flush_denormal_gives_the_same_bits_for_every_thread_count():
    torch = pytest.importorskip("torch")
    if not torch.set_flush_denormal(False):
        pytest.skip("this CPU has no flush-to-zero / denormals-are-zero mode")
    x = np.zeros(1 << 20, np.float32)
    x[1::2] = 1e-40

    def results(n):
        simdops.set_num_threads(n)
        return (so.quantize_linear(x, np.float32(1e-40), np.uint8(7)).tobytes(),
                simdops.shrink(x, 0.0, 5e-41).tobytes(),
                so.dequantize_linear(np.ones(1 << 20, np.uint8), np.float32(1e-40)).tobytes())

    old_n = simdops.get_num_threads()
    jobs = _core._pool_jobs()
    try:
        plain = results(1)
        for n in (2, 4):  # workers started while the caller keeps denormals
            assert results(n) == plain, n
        torch.set_flush_denormal(True)
        flushed = results(1)
        assert flushed != plain  # the caller's mode does change the result
        for n in (2, 4, 6):  # workers of 6 start while the caller flushes
            assert results(n) == flushed, n
        torch.set_flush_denormal(False)
        for n in (6, 1):  # and workers started under flushing do not keep it
            assert results(n) == plain, n
        assert _core._pool_jobs() > jobs  # the calls really were split
    finally:
        torch.set_flush_denormal(False)
        simdops.set_num_threads(old_n)


# ------------------------------------------------------------------ clip with min > max

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_clip_min_above_max_gives_max_bit_for_bit(dtype):
    x = np.array([-0.0, 0.0, 5.0, -7.0, np.inf, -np.inf, np.nan], dtype)
    for lo, hi in ((1e-4, 0.0), (1e-4, -0.0), (np.inf, -0.0), (np.inf, 0.0), (3.0, -2.0)):
        lo_, hi_ = dtype(lo), dtype(hi)
        got = so.clip(x, lo_, hi_)
        want = np.minimum(np.maximum(x, lo_), hi_)  # onnx.reference's numpy
        assert got.tobytes() == want.tobytes(), (lo, hi, got, want)
        assert np.signbit(got[:6]).tolist() == [np.signbit(hi_)] * 6


def test_clip_min_above_max_matches_the_reference():
    onnx = _onnx()
    from onnx.reference import ReferenceEvaluator

    node = onnx.helper.make_node("Clip", ["x", "a", "b"], ["y"])
    info = [onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in "xab"]
    model = onnx.helper.make_model(onnx.helper.make_graph(
        [node], "g", info, [onnx.helper.make_tensor_value_info("y", 1, None)]))
    ref = ReferenceEvaluator(model)
    x = np.array([-0.0, 0.0, np.nan, 1.0], np.float32)
    for lo, hi in ((1.2e-38, 0.0), (np.inf, -0.0)):
        feeds = {"x": x, "a": np.array(lo, np.float32), "b": np.array(hi, np.float32)}
        want = ref.run(None, feeds)[0]
        got = so.run_node(node, [feeds["x"], feeds["a"], feeds["b"]])[0]
        assert got.tobytes() == want.tobytes(), (lo, hi)


# ------------------------------------------------------------------ run_node: nodes ONNX refuses

def test_run_node_of_no_node_is_a_type_error():
    _onnx()
    for node in (None, "Clip", {"op_type": "Clip"}):
        with pytest.raises(TypeError, match="node must be an onnx.NodeProto"):
            so.run_node(node, [X])


def _node(op, inputs=("x",), **attrs):
    return _onnx().helper.make_node(op, list(inputs), ["y"], **attrs)


@pytest.mark.parametrize("node, inputs, opset, text", [
    # min/max attributes were dropped at opset >= 11 (x returned unclipped)
    (lambda: _node("Clip", min=0.0, max=0.5), [X], 11, "Unrecognized attribute"),
    (lambda: _node("Clip", min=0.0, max=0.5), [X], 13, "Unrecognized attribute"),
    # min/max inputs at opset 6
    (lambda: _node("Clip", ("x", "a")), [X, np.float32(0)], 6, "input size 2"),
    # a 4th input was dropped
    (lambda: _node("Clip", ("x", "a", "b", "c")), [X, None, None, X], 13, "input size 4"),
    (lambda: _node("QuantizeLinear", ("x", "s", "z", "w")), [X, 0.5, np.uint8(0), X], 19,
     "input size 4"),
    # an INTS axis reduced both axes; a STRING axis was read as axes
    (lambda: _node("Hardmax", axis=[0, 1]), [np.ones((2, 2), np.float32)], 13, "INTS"),
    (lambda: _node("Hardmax", axis="1"), [np.ones((2, 2), np.float32)], 13, "STRING"),
    (lambda: _node("Shrink", lambd=[0.5]), [X], 13, "FLOATS"),
    (lambda: _node("Shrink", foo=1), [X], 13, "Unrecognized attribute"),
])
def test_run_node_refuses_what_the_schema_does_not_allow(node, inputs, opset, text):
    with pytest.raises(ValueError, match=text):
        so.run_node(node(), inputs, opset=opset)


def test_run_node_clip6_attributes_still_clip():
    y = so.run_node(_node("Clip", min=0.0, max=0.5), [np.array([-1, 0.25, 3], np.float32)],
                    opset=6)[0]
    assert y.tolist() == [0.0, 0.25, 0.5]


@pytest.mark.parametrize("opset, exc", [(100, ValueError), (29, ValueError), (5, ValueError),
                                        ("13", TypeError), (13.7, TypeError), (13.0, TypeError),
                                        (True, TypeError), ([13], TypeError)], ids=repr)
def test_run_node_opset_outside_what_onnx_knows(opset, exc):
    onnx = _onnx()
    newest = onnx.defs.onnx_opset_version()
    if opset == 29 and newest >= 29:
        opset = newest + 1
    with pytest.raises(exc, match="opset"):
        so.run_node(_node("Clip"), [X], opset=opset)


def test_run_node_opset_numpy_int_and_newest_accepted():
    onnx = _onnx()
    assert so.run_node(_node("Clip"), [X], opset=np.int64(13))[0].tolist() == [1, 1, 1]
    assert so.run_node(_node("Clip"), [X], opset=onnx.defs.onnx_opset_version())[0].tolist() \
        == [1, 1, 1]


# ------------------------------------------------------------------ output types

@pytest.mark.parametrize("code, text", [
    (16, r"out_dtype has ONNX type 16, which this op does not take"),  # BFLOAT16
    (1, r"out_dtype has ONNX type 1, which this op does not take"),    # FLOAT
    (999, r"output_dtype: ONNX type 999 is not in the simdops ONNX profile"),
])
def test_run_node_output_dtype_outside_the_types(code, text):
    with pytest.raises(TypeError, match=text):
        so.run_node(_node("QuantizeLinear", ("x", "s"), output_dtype=code), [X, 0.5], opset=21)


@pytest.mark.parametrize("code, bits", [(17, 0x40), (22, 2)])  # FLOAT8E4M3FN 2.0, INT4 2
def test_run_node_low_bit_output_dtype_runs(code, bits):
    y = so.run_node(_node("QuantizeLinear", ("x", "s"), output_dtype=code), [X, 0.5], opset=21)[0]
    assert y.view(np.uint8).tolist() == [bits] * 3


def test_run_node_output_dtype_in_the_profile_runs():
    y = so.run_node(_node("QuantizeLinear", ("x", "s"), output_dtype=3), [X, 0.5], opset=21)[0]
    assert y.dtype == np.int8 and y.tolist() == [2, 2, 2]


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float8_e4m3fn", "int4", "uint4"])
def test_arrays_of_dtypes_from_outside_numpy_name_the_argument(dtype_name):
    """The ml_dtypes types are the low-bit QuantizeLinear / DequantizeLinear's; every
    other function refuses them naming the argument."""
    dt = getattr(_ml_dtypes(), dtype_name)
    a = np.zeros(3, dt)
    pattern = rf"has dtype {dtype_name}, which simdops does not support"
    with pytest.raises(TypeError, match=rf"^out {pattern}"):  # "out must be writable: ..."
        so.clip(X, 0.0, 1.0, out=a)
    with pytest.raises(TypeError, match=rf"^x {pattern}"):
        simdops.clip(a, 0, 1)
    with pytest.raises(TypeError, match=rf"^x {pattern}"):
        so.hardmax(a.reshape(1, 3))
    with pytest.raises(TypeError, match=rf"^x {pattern}"):
        so.shrink(a[0])  # a scalar of the type too
    if dtype_name != "bfloat16":  # a quantized type is no QuantizeLinear input or scale
        with pytest.raises(TypeError, match=r"^quantize_linear: x has ONNX type"):
            so.quantize_linear(a, 0.5)
        with pytest.raises(TypeError, match=r"^quantize_linear: y_scale has ONNX type"):
            so.quantize_linear(X, a)


def test_run_node_float8_zero_point_and_int4_input_run():
    ml = _ml_dtypes()
    node = _node("QuantizeLinear", ("x", "s", "z"))
    y = so.run_node(node, [X, 0.5, np.zeros((), ml.float8_e4m3fn)], opset=21)[0]
    assert y.dtype == ml.float8_e4m3fn
    node = _node("DequantizeLinear", ("x", "s"))
    y = so.run_node(node, [np.ones(3, ml.int4), np.float32(0.5)], opset=21)[0]
    assert y.tolist() == [0.5, 0.5, 0.5]
