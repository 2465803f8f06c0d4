"""OpenVINO's int8 FullyConnected with a float bias per channel whose FakeQuantize shifts
(``ish + bias[n] * isc``) are one value, or all within 5e-5 of channel 0's (the CPU
plugin's rule: then channel 0's): the plugin keeps one shift and runs the weight scales
S[n] in the kernel and the FakeQuantize as one eltwise linear post-op, a fused
multiply-add (ONEDNN_VERBOSE=1: attr-scales:wei, eltwise_linear:isc:shift,
eltwise_round_half_to_even, eltwise_clip), as a Convolution does with its bias
(tests/test_runtime_openvino_conv.py). With an activation zero point the compensation
C[n] is a post-op of its own before the weight scale (eltwise_linear:1:-C): one weight
scale stays a multiply of its own before the fused multiply-add; per channel the scales
join the FakeQuantize's (binary_mul by isc * S[n], then eltwise_linear:1:shift)."""
import numpy as np
import pytest

pytest.importorskip("openvino", reason="openvino is not installed (pip install openvino): "
                    "the OpenVINO proof needs it")

import runtime_models_openvino as rmo  # noqa: E402
import runtime_models_rt2 as rm  # noqa: E402
from test_runtime_openvino import (_compare, assert_reproduced,  # noqa: E402
                                   reference_outputs)
from test_runtime_openvino_conv import _fma_fast  # noqa: E402

F = np.float32


def fq_one_shift(layer, drop_small_shift=True):
    """The output FakeQuantize's isc = 255 / (ih - il) and its one shift onto [-128, 127]:
    channel 0's ish + bias[n] * isc (every channel's within 5e-5 of it), minus 128, 0 below
    1e-5 of the output range."""
    isc = F(F(255) / F(layer.ih - layer.il))
    ish = F(F(-layer.il * F(255)) / F(layer.ih - layer.il))
    shifts = (ish + (layer.bias * isc).astype(F)).astype(F)
    assert (np.abs(shifts - shifts[0]) < F(5e-5)).all()
    shift = F(shifts[0] - F(128))
    if drop_small_shift and abs(shift) < F(255) * F(1e-5):
        shift = F(0)
    return isc, shift


def one_shift_outputs(layer, fq_fma=True, drop_small_shift=True, combined_scale=False):
    """The numpy formula: v = f32(f32(acc) * S[n]), then fma(v, isc, shift[0] - 128) with
    the shift 0 below 1e-5 of the output range. The keywords give the neighbours."""
    acc = (layer.xq @ layer.w.astype(np.int64).T).astype(F)  # zero point 0, uint8
    s = (layer.sa * layer.sw).astype(F)
    isc, shift = fq_one_shift(layer, drop_small_shift)
    full = lambda x: np.broadcast_to(np.asarray(x, F), acc.shape).astype(F)  # noqa: E731
    if combined_scale:
        y = _fma_fast(acc, full((isc * s).astype(F)), full(shift))
    else:
        v = (acc * s).astype(F)
        y = _fma_fast(v, full(isc), full(shift)) if fq_fma else \
            ((v * isc).astype(F) + shift).astype(F)
    return np.clip(np.rint(y), -128, 127).astype(np.int64)


def test_openvino_fc_bias_one_shift_reproduced():
    layers = rmo.one_shift_bias_layers(91, max(8, rm.OV_LAYERS // 2))
    outputs, kinds = rm.run_openvino_fc(layers)
    assert sum(kinds.values()) == len(layers), kinds
    assert {layer.per_channel for layer in layers} == {False, True}
    paths = assert_reproduced(layers, outputs, one_shift_outputs)
    assert paths == {"numpy": len(layers)}, paths
    # the neighbours miss some: the chain of shifts per channel, one combined scale in
    # the fused multiply-add, the small shift kept (a multiply and an add instead of the
    # fused multiply-add: not told apart by this sample)
    for fn in (lambda layer: reference_outputs(layer),
               lambda layer: one_shift_outputs(layer, combined_scale=True),
               lambda layer: one_shift_outputs(layer, drop_small_shift=False)):
        other, _ = _compare(layers, outputs, fn)
        assert other > 0


def zero_point_outputs(layer, per_channel_fused=True, derived=True):
    """The numpy formula with an activation zero point (OpenVINO's derived scale s_a' and
    float zero point zp', C[n] = sum_k f32(zp' * w[n, k]) in order of k): a = f32(f32(acc)
    - C[n]); one weight scale: fma(f32(a * S), isc, shift); per channel:
    f32(f32(a * f32(isc * S[n])) + shift). The keywords give the neighbours:
    per_channel_fused="always" the per-channel form for one weight scale too, False the
    per-tensor form for every layer, derived=False the model's own activation scale and
    zero point (28 of 95,040 differ in 300 layers; none in this test's sample)."""
    from simdops.runtimes_openvino import _compensation
    from test_runtime_openvino import lpt_activations

    qmin, sa, zp = lpt_activations(layer)
    if not derived:
        sa, zp = layer.sa, F(layer.zp)
    acc = ((layer.xq - layer.lo + qmin) @ layer.w.astype(np.int64).T).astype(F)
    n = layer.w.shape[0]
    a = (acc - _compensation(F(zp), layer.w, n).astype(F)).astype(F)
    s = (sa * layer.sw).astype(F)
    isc, shift = fq_one_shift(layer)
    full = lambda x: np.broadcast_to(np.asarray(x, F), a.shape).astype(F)  # noqa: E731
    if per_channel_fused == "always" or (per_channel_fused and not (s == s[0]).all()):
        y = ((a * (isc * s).astype(F)).astype(F) + shift).astype(F)
    else:
        y = _fma_fast((a * s).astype(F), full(isc), full(shift))
    return np.clip(np.rint(y), -128, 127).astype(np.int64)


def test_openvino_fc_zero_point_bias_one_shift_reproduced():
    layers = rmo.zero_point_one_shift_layers(93, max(8, rm.OV_LAYERS // 2))
    outputs, kinds = rm.run_openvino_fc(layers)
    assert sum(kinds.values()) == len(layers), kinds
    assert {layer.per_channel for layer in layers} == {False, True}
    paths = assert_reproduced(layers, outputs, zero_point_outputs)
    assert paths == {"numpy": len(layers)}, paths
    # the neighbours miss some: the per-channel form for one weight scale, and the
    # per-tensor form for per-channel scales
    for fn in (lambda layer: zero_point_outputs(layer, per_channel_fused="always"),
               lambda layer: zero_point_outputs(layer, per_channel_fused=False)):
        other, _ = _compare(layers, outputs, fn)
        assert other > 0
