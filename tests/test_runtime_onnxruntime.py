"""ONNX Runtime reproduced bit for bit: QLinearMatMul and QLinearConv (MLAS, CPU
provider) are the float32 family.

Random int8 layers (per-tensor and per-channel weight scales; QLinearConv with an int32
bias) built with onnx.helper run in ONNX Runtime; the same int32 accumulators, computed
exactly with numpy, requantized with scale (x_scale * w_scale) / y_scale in float32 by
tests/reference.py (the proof that the reference is MLAS's arithmetic) and by
simdops.requantize_fp32. RUNTIME_LAYERS sets the sweep (default 1000).
"""
import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed "
                    "(pip install onnxruntime): the ONNX Runtime proof needs it")
pytest.importorskip("onnx", reason="onnx is not installed (pip install onnx): "
                    "the ONNX Runtime proof builds its graphs with onnx.helper")

import simdops  # noqa: E402
import reference as ref  # noqa: E402
import runtime_models as rm  # noqa: E402

_RUNS = {}


def ort_outputs(op, seed=29):
    if (op, seed) not in _RUNS:
        layers = rm.layers(seed)
        _RUNS[op, seed] = layers, rm.run_onnxruntime(rm.onnx_model(layers, op), layers, op)
    return _RUNS[op, seed]


def expected(layer, op, use_simdops, **family):
    bias = layer.bias if op == "conv" else None
    fn = simdops.requantize_fp32 if use_simdops else ref.requantize_fp32
    return fn(layer.accumulators(), layer.scale_float32(), layer.out_zp, bias=bias,
              out_dtype="int8", **family)


@pytest.mark.parametrize("op", ["matmul", "conv"])
def test_onnxruntime_reproduced_by_reference(op):
    layers, outputs = ort_outputs(op)
    differ = elements = other = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != expected(layer, op, False)))
        elements += got.size
    for layer, got in zip(layers[1::5], outputs[1::5]):  # the tie layers
        other += int(np.count_nonzero(
            got != expected(layer, op, False, precision="float64", ties="away")))
    assert elements > 10 * len(layers)
    assert differ == 0, f"{differ} of {elements} outputs differ from the fp32 family"
    assert other > 0  # the sweep tells ties-even from ties-away


@pytest.mark.parametrize("op", ["matmul", "conv"])
def test_onnxruntime_reproduced_by_simdops(op):
    layers, outputs = ort_outputs(op)
    differ = elements = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != expected(layer, op, True)))
        elements += got.size
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops.requantize_fp32"


def test_onnxruntime_per_channel_matmul():
    # per-column b_scale (opset 21) only, float32 multipliers of every magnitude class
    layers = rm.layers(31, count=200, per_channel=True)
    outputs = rm.run_onnxruntime(rm.onnx_model(layers, "matmul"), layers, "matmul")
    for layer, got in zip(layers, outputs):
        assert np.array_equal(got, expected(layer, "matmul", False))
