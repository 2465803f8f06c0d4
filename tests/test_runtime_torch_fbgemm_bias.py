"""PyTorch's quantized linear on fbgemm **with its float bias** reproduced bit for bit.

torch.ao.nn.quantized.Linear keeps its bias in float32; fbgemm divides it by
S[n] = f32(s_a * s_w[n]) and adds it, unrounded to an integer, to the float32 accumulator
before the multiply by M[n] = f32(S[n] / s_o) (QuantUtils.h). Random layers of
tests/runtime_models.py (per tensor and per channel, one in five built next to ties) with a
random float bias run through quantized::linear; each output is compared with a numpy formula
and with simdops.requantize_fp32(**simdops.runtimes.fbgemm_float_bias_params(...)).
"""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the PyTorch proof "
                            "needs the CPU wheel (pip install torch==2.13.0)")
if "fbgemm" not in torch.backends.quantized.supported_engines:
    pytest.skip("this torch build has no fbgemm quantized engine", allow_module_level=True)

import simdops  # noqa: E402
import simdops.runtimes  # noqa: E402
import runtime_models as rm  # noqa: E402

F = np.float32


def _bias(layer, rng):
    s = F(layer.x_scale) * np.broadcast_to(layer.w_scales, (layer.channels,))
    if rng.integers(2):  # next to ties: integer multiples of S plus halves
        return (rng.integers(-400, 401, layer.channels) * F(0.5) * s).astype(F)
    return (rng.uniform(-1, 1, layer.channels) * 200 * s).astype(F)


def torch_linear_float_bias(layer, bias):
    torch.backends.quantized.engine = "fbgemm"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            w = torch.from_numpy(layer.w.copy())
            if layer.per_channel:
                qw = torch._make_per_channel_quantized_tensor(
                    w, torch.from_numpy(layer.w_scales.astype(np.float64)),
                    torch.zeros(layer.channels, dtype=torch.int64), 0)
            else:
                qw = torch._make_per_tensor_quantized_tensor(w, float(layer.w_scales[0]), 0)
            packed = torch.ops.quantized.linear_prepack(qw, torch.from_numpy(bias))
            x_u8 = (layer.x.astype(np.int16) + 128).astype(np.uint8)
            qx = torch._make_per_tensor_quantized_tensor(
                torch.from_numpy(x_u8), float(layer.x_scale), int(layer.x_zp) + 128)
            with torch.no_grad():
                y = torch.ops.quantized.linear(qx, packed, float(layer.out_scale),
                                               int(layer.out_zp) + 128)
            return y.int_repr().numpy().astype(np.int64)
    finally:
        torch.set_num_threads(threads)


def reference(layer, bias):
    acc = layer.accumulators().astype(F)
    s = (F(layer.x_scale) * np.broadcast_to(layer.w_scales, (layer.channels,))).astype(F)
    m = (s / F(layer.out_scale)).astype(F)
    v = ((acc + (bias / s).astype(F)).astype(F) * m).astype(F)
    return np.clip(np.rint(v) + layer.out_zp + 128, 0, 255).astype(np.int64)


def int32_bias_recipe(layer, bias):
    """The neighbour: the bias rounded to int32 first (what an int32-bias layer does)."""
    acc = layer.accumulators().astype(np.int64)
    s = (F(layer.x_scale) * np.broadcast_to(layer.w_scales, (layer.channels,))).astype(F)
    m = (s / F(layer.out_scale)).astype(F)
    v = ((acc + np.rint(bias / s).astype(np.int64)).astype(F) * m).astype(F)
    return np.clip(np.rint(v) + layer.out_zp + 128, 0, 255).astype(np.int64)


_RUN = {}


def runs():
    if not _RUN:
        rng = np.random.default_rng(59)
        layers = [layer for layer in rm.layers(61) if layer.bias is not None]
        for layer in layers:
            layer.bias = np.zeros(layer.channels, np.int32)  # the float bias replaces it
        biases = [_bias(layer, rng) for layer in layers]
        _RUN["v"] = layers, biases, [torch_linear_float_bias(l, b) for l, b in zip(layers, biases)]
    return _RUN["v"]


pytestmark = pytest.mark.thread_unsafe  # torch.set_num_threads and the engine are process-wide


def test_fbgemm_float_bias_reproduced_by_reference():
    layers, biases, outputs = runs()
    differ = elements = other = 0
    for layer, bias, got in zip(layers, biases, outputs):
        differ += int(np.count_nonzero(got != reference(layer, bias)))
        other += int(np.count_nonzero(got != int32_bias_recipe(layer, bias)))
        elements += got.size
    assert elements > 10 * len(layers)
    assert differ == 0, f"{differ} of {elements} outputs differ from the formula"
    assert other > 0  # the int32-bias recipe misses some: the sweep tells them apart


def test_fbgemm_float_bias_reproduced_by_simdops():
    layers, biases, outputs = runs()
    differ = 0
    for layer, bias, got in zip(layers, biases, outputs):
        ws = layer.w_scales if layer.per_channel else layer.w_scales[0]
        params = simdops.runtimes.fbgemm_float_bias_params(
            bias, layer.x_scale, ws, layer.out_scale, layer.out_zp + 128)
        acc = layer.accumulators().astype(np.int32)
        differ += int(np.count_nonzero(got != simdops.requantize_fp32(acc, **params)))
    assert differ == 0, f"{differ} outputs differ from simdops"
