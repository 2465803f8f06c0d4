"""OpenVINO's int8 Convolution with a float bias per channel, reproduced bit for bit:
oneDNN's convolution applies the weight scale S[n] (the activation scale times the
weight's), adds the float32 bias, then runs the output FakeQuantize as one eltwise
linear post-op (a fused multiply-add), as ONEDNN_VERBOSE=1 prints
(attr-scales:wei, bia:f32, eltwise_linear:isc:ish+ol, eltwise_round_half_to_even,
eltwise_clip). 1x1 Convolutions (brgconv_avx512_1x1_I8) and 3x3 ones
(brgconv_avx512_I8); near-tie layers of the Convolution's own form on every channel,
of the FullyConnected's form, random layers with zero points, shifts either side of the
1e-5 threshold. Helpers shared with tests/test_runtime_openvino.py. OPENVINO_LAYERS
scales the sweeps.
"""
import numpy as np
import pytest

pytest.importorskip("openvino", reason="openvino is not installed (pip install openvino): "
                    "the OpenVINO proof needs it")

import runtime_models_openvino as rmo  # noqa: E402
import runtime_models_rt2 as rm  # noqa: E402
from test_runtime_openvino import (_compare, _fma, assert_reproduced,  # noqa: E402
                                   lpt_activations, raw_accumulators, reference_outputs,
                                   simdops_outputs)

F = np.float32
_RUNS = {}


def _fma_fast(a, b, c):
    """float32 fma of float32 arrays: the product is exact in float64, the sum rounded
    once in float64; rounding that to float32 is the fma's result unless it landed on a
    float32 midpoint (then the exact Fractions of _fma decide)."""
    s = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    out = s.astype(F)
    mid = (s.view(np.int64) & 0x1FFFFFFF) == 0x10000000
    if mid.any():
        out[mid] = _fma(a[mid], b[mid], c[mid])
    return out


def conv_bias_outputs(layer, bias_then_fq=True, fma_scale_bias=False, fq_fma=True,
                      drop_small_shift=True, fold_output_low=True):
    """A Convolution with a float bias per channel (the numpy formula; the keywords give
    the neighbour formulas the near-tie layers rule out), as oneDNN's verbose shows it
    (weight scales S[n], f32 bias, post-ops eltwise_linear:isc:ish+ol, round, clip):
    v = f32(f32(acc) * S[n]) + bias[n], then fma(v, isc, ish + output_low) with the
    shift 0 below 1e-5 of the output range; the zero point compensated in integers.
    bias_then_fq=False: the FullyConnected's form (the bias folded into the shift)."""
    if not bias_then_fq:
        return reference_outputs(layer, conv=True)
    qmin, sa, zp = lpt_activations(layer)
    acc = raw_accumulators(layer, qmin)
    if zp is not None:
        acc = acc - int(np.rint(zp)) * layer.w.astype(np.int64).sum(1)
    a = acc.astype(F)
    s = (sa * layer.sw).astype(F)
    full = lambda x: np.broadcast_to(np.asarray(x, F), a.shape).astype(F)  # noqa: E731
    v = _fma_fast(a, full(s), full(layer.bias)) if fma_scale_bias else \
        ((a * s).astype(F) + layer.bias).astype(F)
    isc = F(F(255) / F(layer.ih - layer.il))
    ish = F(F(-layer.il * F(255)) / F(layer.ih - layer.il))
    shift = F(ish - F(128)) if fold_output_low else ish
    if drop_small_shift and abs(shift) < F(255) * F(1e-5):
        shift = F(0)
    y = _fma_fast(v, full(isc), full(shift)) if fq_fma else \
        ((v * isc).astype(F) + shift).astype(F)
    if not fold_output_low:
        y = np.rint(np.clip(y, 0, 255)) - 128
    return np.clip(np.rint(y), -128, 127).astype(np.int64)


def _conv_bias_layers(count):
    """Biases per channel: near ties of the FullyConnected's form and of the
    Convolution's own, random layers (zero points among them), and FakeQuantize shifts
    either side of the 1e-5 threshold."""
    layers = rm.near_tie_layers(7, max(8, count // 2), bias=True) + \
        rmo.conv_bias_near_tie_layers(31, count) + \
        rm.fc_layers(77, max(8, count // 2), bias=True)
    for k, shift in enumerate((2.2e-3, -2.2e-3, 4e-3, -4e-3)):
        layers += rmo.conv_bias_near_tie_layers(50 + k, 3, shift=shift)
    return layers


def _conv_bias_run():
    if "1x1" not in _RUNS:
        layers = _conv_bias_layers(max(8, rm.OV_LAYERS // 6))
        _RUNS["1x1"] = (layers,) + rm.run_openvino_fc(layers, conv=True)
    return _RUNS["1x1"]


def _distinct(layers, outputs):
    return [(layer, got) for layer, got in zip(layers, outputs) if layer.bias is not
            None and (layer.bias != layer.bias[0]).any()]


def test_openvino_conv_bias_reproduced():
    layers, outputs, kinds = _conv_bias_run()
    assert sum(kinds.values()) == len(layers), kinds
    assert all(p == "u8" and "I8" in k for k, p in kinds), kinds
    distinct = _distinct(layers, outputs)
    assert len(distinct) > len(layers) * 3 // 4
    assert any(lpt_activations(layer)[2] is not None for layer, _ in distinct)
    assert {layer.per_channel for layer, _ in distinct} == {False, True}
    ls, gs = [l for l, _ in distinct], [g for _, g in distinct]
    paths = assert_reproduced(ls, gs, conv_bias_outputs, conv=True)
    assert paths == {"numpy": len(ls)}, paths
    # the neighbour formulas miss some: the FullyConnected's form (the bias in the
    # shift), a fused multiply-add for scale and bias, no fused multiply-add for the
    # FakeQuantize, the small shift kept, output_low added after the rounding
    for kw in ({"bias_then_fq": False}, {"fma_scale_bias": True}, {"fq_fma": False},
               {"drop_small_shift": False}, {"fold_output_low": False}):
        other, _ = _compare(ls, gs, lambda layer: conv_bias_outputs(layer, **kw))
        assert other > 0, kw


def test_openvino_conv3x3_bias_and_zero_point_reproduced():
    # the general (not 1x1) int8 kernel: 3x3 Convolutions whose only nonzero tap is the
    # centre one, so the near-tie rows keep their sums; biases per channel, and zero
    # points without a bias
    count = max(8, rm.OV_LAYERS // 12)
    layers = rmo.conv_bias_near_tie_layers(61, count) + rm.fc_layers(62, count // 2,
                                                                      bias=True)
    outputs, kinds = rmo.run_openvino_conv3x3(layers)
    assert kinds and all(p == "u8" and "1x1" not in k and "I8" in k for k, p in kinds), kinds
    ls, gs = zip(*_distinct(layers, outputs))
    assert_reproduced(ls, gs, conv_bias_outputs, conv=True)
    other, _ = _compare(ls, gs, lambda layer: conv_bias_outputs(layer, bias_then_fq=False))
    assert other > 0
    zp_layers = rm.near_tie_layers(6, count // 2, zero_point=None)
    outputs, _ = rmo.run_openvino_conv3x3(zp_layers)
    assert_reproduced(zp_layers, outputs, lambda layer: reference_outputs(layer, conv=True),
                      conv=True)


def test_atlas_27_openvino_convolution_vs_fully_connected_bias():
    # the same numbers as a FullyConnected and as a 1x1 Convolution with a bias per
    # channel: acc = 192 * 127 + 181 = 24565 on channel 0; the FullyConnected folds the
    # bias into the FakeQuantize's shift (169.5 -> 42), the Convolution adds it after
    # the weight scale (169.49998 -> 41)
    layer = rm.FcLayer(np.array([[192, 181]]), 0, 0, F(0.04858396),
                       np.tile(np.array([[127, 1]], np.int8), (4, 1)),
                       np.full(4, F(0.01681502)),
                       np.array([-6.0301986, -20.329117, 0.87589437, 12.010272], F),
                       F(-141.0017), F(92.24379), False)
    fc = rm.run_openvino_fc([layer])[0][0][0]
    conv = rm.run_openvino_fc([layer], conv=True)[0][0][0]
    assert (fc[0], conv[0]) == (42, 41)
    assert np.array_equal(fc[1:], conv[1:])
    assert simdops_outputs(layer)[0, 0] == 42
    assert simdops_outputs(layer, conv=True)[0, 0] == 41
