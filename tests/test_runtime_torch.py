"""PyTorch's quantized linear on fbgemm reproduced bit for bit: the float32 family.

Random layers (quint8 activations, qint8 weights per tensor or per channel, no bias) run
through quantized::linear (what torch.ao.nn.quantized.Linear calls) on the fbgemm engine;
the same accumulators, computed exactly with numpy, requantized with the float32
multiplier (x_scale * w_scale) / out_scale by tests/reference.py and by
simdops.requantize_fp32. One fbgemm quirk is recorded, not copied: its AVX2 path turns a
product |acc * scale| >= 2**31 into INT32_MIN before clamping (the output saturates low,
where the float32 family saturates high). RUNTIME_LAYERS sets the sweep (default 1000).
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the PyTorch proof "
                            "needs the CPU wheel (pip install torch==2.13.0)")
if "fbgemm" not in torch.backends.quantized.supported_engines:
    pytest.skip("this torch build has no fbgemm quantized engine", allow_module_level=True)

import simdops  # noqa: E402
import reference as ref  # noqa: E402
import runtime_models as rm  # noqa: E402

_RUNS = {}


def torch_outputs(seed=37):
    if seed not in _RUNS:
        layers = rm.layers(seed)
        _RUNS[seed] = layers, [rm.torch_fbgemm_linear(layer) for layer in layers]
    return _RUNS[seed]


def fp32(layer, use_simdops):
    fn = simdops.requantize_fp32 if use_simdops else ref.requantize_fp32
    return fn(layer.accumulators(), layer.scale_float32(), layer.out_zp + 128,
              out_dtype="uint8")


def test_torch_fbgemm_reproduced_by_reference():
    layers, outputs = torch_outputs()
    differ = elements = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != fp32(layer, False)))
        elements += got.size
    assert elements > 10 * len(layers)
    assert differ == 0, f"{differ} of {elements} outputs differ from the fp32 family"


def test_torch_fbgemm_reproduced_by_simdops():
    layers, outputs = torch_outputs()
    differ = elements = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != fp32(layer, True)))
        elements += got.size
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops.requantize_fp32"


def _overflowing_layer():
    """A layer whose float32 products reach 2**31: multiplier 40000, |acc| up to ~8e4."""
    layer = rm.random_layer(np.random.default_rng(1), per_channel=False)
    layer.out_scale = float(np.float32(layer.x_scale * float(layer.w_scales[0]) / 40000))
    return layer


def test_torch_fbgemm_int32_overflow_quirk():
    layer = _overflowing_layer()
    acc = layer.accumulators()
    scale = layer.scales_float32()
    product = np.abs(acc.astype(np.float32) * scale)
    assert (product >= 2.0 ** 31).any() and (product < 2.0 ** 31).any()
    got = rm.torch_fbgemm_linear(layer)
    quirk = ref.requantize_fp32_fbgemm_avx2(acc, scale, layer.out_zp + 128, out_dtype="uint8")
    family = fp32(layer, False)
    assert np.array_equal(got, quirk)
    # the quirk: a large positive product gives 0 in torch, 255 in the fp32 family
    overflow = product >= 2.0 ** 31
    assert np.array_equal(got[~overflow], family[~overflow])
    assert (got[overflow & (acc > 0)] == 0).all() and (family[overflow & (acc > 0)] == 255).all()


def test_simdops_does_not_copy_the_quirk():
    layer = _overflowing_layer()
    assert np.array_equal(fp32(layer, True), fp32(layer, False))


def test_torch_fbgemm_per_channel_and_per_tensor():
    for per_channel in (False, True):
        for layer in rm.layers(41 + per_channel, count=150, per_channel=per_channel):
            assert np.array_equal(rm.torch_fbgemm_linear(layer), fp32(layer, False))
