"""simdops.onnx bad input: clear TypeError / ValueError naming the argument, never a crash."""
import sys

import numpy as np
import pytest

import simdops.onnx as so

X = np.zeros((2, 3), np.float32)


def test_imports_without_the_onnx_package():
    assert "simdops.onnx" in sys.modules
    # run_node imports onnx only when called; importing simdops.onnx must not need it
    import subprocess
    code = ("import sys; sys.modules['onnx'] = None; import simdops.onnx as so, numpy as np; "
            "print(so.quantize_linear(np.ones(3, np.float32), 0.5).tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[2, 2, 2]"


@pytest.mark.parametrize("call, exc, text", [
    (lambda: so.quantize_linear(X, np.ones(4, np.float32), axis=1), ValueError, "scale"),
    (lambda: so.quantize_linear(X, np.ones(3, np.float32), axis=2), ValueError, "axis"),
    (lambda: so.quantize_linear(X, np.ones((1, 3), np.float32)), ValueError, "scale"),
    (lambda: so.quantize_linear(X, 0.5, np.int8(1), out=np.zeros((2, 3), np.uint8)), TypeError,
     "zero_point"),
    (lambda: so.quantize_linear(X.astype(np.int32), 0.5), TypeError, "x"),
    (lambda: so.quantize_linear(X, 0.5, out=np.zeros((2, 3), np.int32)), TypeError, "out"),
    (lambda: so.quantize_linear(X, 0.5, 300), ValueError, "y_zero_point"),
    (lambda: so.quantize_linear(X, np.ones(1, np.int32)), TypeError, "scale"),
    (lambda: so.dequantize_linear(np.zeros(3, np.int32), 0.5, np.int32(2)), ValueError,
     "zero_point"),
    (lambda: so.dequantize_linear(np.zeros(3, np.float32), 0.5), TypeError, "x"),
    (lambda: so.dequantize_linear(np.zeros(3, np.uint8), 0.5, out=np.zeros(3, np.uint8)),
     TypeError, "out"),
    (lambda: so.dequantize_linear(np.zeros(3, np.uint8), 0.5, np.int8(0)), TypeError,
     "zero_point"),
    (lambda: so.shrink(X, float("nan")), ValueError, "bias"),
    (lambda: so.clip(np.zeros(3, np.int8), float("nan"), None), ValueError, "min"),
    (lambda: so.hardmax(X, 2, opset=11), ValueError, "axis"),
    (lambda: so.hardmax(X, 0, opset=0), ValueError, "opset"),
])
def test_errors(call, exc, text):
    with pytest.raises(exc, match=text):
        call()


def test_per_axis_and_one_element_scale():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert so.quantize_linear(x, np.array([1.0, 0.5, 0.25], np.float32), axis=-1).tolist() == \
        [[0, 2, 8], [3, 8, 20]]
    assert so.quantize_linear(x, np.array([0.5], np.float32)).tolist() == [[0, 2, 4], [6, 8, 10]]


def test_in_place_dequantize_refused_cleanly_or_correct():
    q = np.arange(8, dtype=np.uint8)
    y = so.dequantize_linear(q, np.float32(2.0), np.uint8(1))
    assert y.tolist() == [-2, 0, 2, 4, 6, 8, 10, 12]
