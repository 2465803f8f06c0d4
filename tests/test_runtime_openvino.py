"""OpenVINO's CPU plugin reproduced bit for bit: int8 FullyConnected / Convolution with the
output FakeQuantize fused (its low-precision transformations), and the accumulators of
x86 CPUs without VNNI (ONEDNN_MAX_CPU_ISA=AVX2: VPMADDUBSW's int16 pair saturation).

Random layers (activations on their FakeQuantize grid, so the int32 accumulators are
known; int8 weights per tensor or per channel; with and without a float bias; one in four
built next to rounding ties) run in OpenVINO, one thread, f32 inference precision. Each
output is compared with an independent numpy formula written from OpenVINO's
fake_quantize.cpp and measured (S[n] = f32(s_a * s_w[n]); il' = il / S[n], ih' = ih / S[n];
m[n] = 255 / (ih' - il'); b[n] = -il' * 255 / (ih' - il'); a float bias folded into the
shift, b[n] + f32(bias / S[n]) * m[n]; sat(RNE(f32(f32(acc) * m[n]) + b[n])) + output_low),
and with simdops (int8_matmul_accumulators + requantize_fp32 with
simdops.runtimes.openvino_fq_requant_params). RUNTIME_LAYERS scales the sweep.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("openvino", reason="openvino is not installed (pip install openvino): "
                    "the OpenVINO proof needs it")

import simdops  # noqa: E402
import simdops.runtimes  # noqa: E402
import runtime_models_rt2 as rm  # noqa: E402

F = np.float32


def reference_outputs(layer, pair_saturation=False):
    """The numpy formula (independent of simdops): int64 [M, N] in [-128, 127]. Each
    channel's own shift b[n]; a float bias folded into it, f32(b[n] + f32(f32(bias[n] /
    S[n]) * m[n])) (measured: adding f32(bias / S) to the accumulator first misses outputs,
    and a layer whose shifts spread by 3.05e-5 used them per channel, not channel 0's)."""
    acc = layer.accumulators(pair_saturation)
    s = (layer.sa * layer.sw).astype(F)
    ilp = (layer.il / s).astype(F)
    ihp = (layer.ih / s).astype(F)
    m = (F(255) / (ihp - ilp)).astype(F)
    b = ((-ilp * F(255)) / (ihp - ilp)).astype(F)
    if layer.bias is not None:
        b = (b + ((layer.bias / s).astype(F) * m).astype(F)).astype(F)
    v = ((acc.astype(F) * m).astype(F) + b).astype(F)
    return (np.rint(np.clip(v, 0, 255)) - 128).astype(np.int64)


def simdops_outputs(layer, pair_saturation=False):
    """simdops: the accumulators, then one requantize_fp32 call per layer with
    simdops.runtimes.openvino_fq_requant_params of the layer's own numbers (scales,
    output FakeQuantize range, float bias)."""
    a = layer.xq.astype(np.uint8 if layer.lo == 0 else np.int8)
    acc = simdops.int8_matmul_accumulators(a, np.ascontiguousarray(layer.w.T),
                                           pair_saturation=pair_saturation)
    acc = (acc - np.int32(layer.zp) * layer.w.astype(np.int32).sum(1)).astype(np.int32)
    params = simdops.runtimes.openvino_fq_requant_params(
        layer.sa, layer.sw if layer.per_channel else layer.sw[0], layer.il, layer.ih,
        -128.0, 127.0, 256, bias=layer.bias)
    return simdops.requantize_fp32(acc, **params).astype(np.int64)


_RUNS = {}


def ov_fc(conv=False):
    key = ("conv" if conv else "fc")
    if key not in _RUNS:
        layers = rm.fc_layers(71 + conv, rm.OV_LAYERS if not conv else max(1, rm.OV_LAYERS // 4))
        _RUNS[key] = (layers,) + rm.run_openvino_fc(layers, conv)
    return _RUNS[key]


def _compare(layers, outputs, fn):
    differ = elements = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != fn(layer)))
        elements += got.size
    return differ, elements


@pytest.mark.parametrize("conv", [False, True], ids=["fc", "conv1x1"])
def test_openvino_int8_fq_reproduced_by_reference(conv):
    layers, outputs, kinds = ov_fc(conv)
    # the int8 path ran: every layer's node is an int8 kernel with u8 / i8 runtime precision
    assert sum(kinds.values()) == len(layers), kinds
    assert all(p in ("u8", "i8") and ("I8" in k or "i8" in k) for k, p in kinds), kinds
    differ, elements = _compare(layers, outputs, reference_outputs)
    assert elements > 10 * len(layers)
    assert differ == 0, f"{differ} of {elements} outputs differ from the formula"
    # the sweep discriminates: one rounding in double with ties up misses some outputs
    other = 0
    for layer, got in zip(layers[1::4], outputs[1::4]):
        acc = layer.accumulators().astype(np.float64)
        s = np.float64(layer.sa) * layer.sw.astype(np.float64)
        if layer.bias is not None:
            acc = acc + layer.bias / s
        v = (acc * s - np.float64(layer.il)) * 255 / (np.float64(layer.ih) - np.float64(layer.il))
        other += int(np.count_nonzero(got != np.floor(np.clip(v, 0, 255) + 0.5) - 128))
    assert other > 0


@pytest.mark.parametrize("conv", [False, True], ids=["fc", "conv1x1"])
def test_openvino_int8_fq_reproduced_by_simdops(conv):
    layers, outputs, _ = ov_fc(conv)
    differ, elements = _compare(layers, outputs, simdops_outputs)
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops"


def test_openvino_per_tensor_and_per_channel_with_and_without_bias():
    layers, outputs, _ = ov_fc(False)
    seen = {(layer.per_channel, layer.bias is not None) for layer in layers}
    assert seen == {(False, False), (False, True), (True, False), (True, True)}


_AVX2_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import runtime_models_rt2 as rm
layers = rm.fc_layers(int(sys.argv[2]), int(sys.argv[3]), bias=False, rows=32)
outs, kinds = rm.run_openvino_fc(layers, conv=sys.argv[5] == "conv")
np.save(sys.argv[4], np.concatenate([o.reshape(-1) for o in outs]))
print(json.dumps({f"{k[0]}|{k[1]}": v for k, v in kinds.items()}))
"""


@pytest.mark.thread_unsafe  # a subprocess with ONEDNN_MAX_CPU_ISA set
@pytest.mark.parametrize("conv", [False, True], ids=["fc", "conv1x1"])
def test_openvino_avx2_accumulators_pair_saturation(tmp_path, conv):
    count = max(20, rm.OV_LAYERS // 4)
    seed = 83 + conv
    out_file = tmp_path / "outs.npy"
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA="AVX2")
    proc = subprocess.run([sys.executable, "-c", _AVX2_SCRIPT, os.path.dirname(__file__),
                           str(seed), str(count), str(out_file), "conv" if conv else "fc"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    kinds = json.loads(proc.stdout.strip().splitlines()[-1])
    # not the VNNI brgemm kernels: oneDNN's AVX2 int8 gemm / 1x1 convolution
    assert kinds and not any("avx512" in k or "vnni" in k.lower() for k in kinds), kinds
    assert all(("avx2" in k or "gemm" in k) and "I8" in k for k in kinds), kinds
    flat = np.load(out_file)
    layers = rm.fc_layers(seed, count, bias=False, rows=32)
    offset = differ = differ_exact = differ_simdops = 0
    for layer in layers:
        n = layer.xq.shape[0] * layer.w.shape[0]
        got = flat[offset:offset + n].reshape(layer.xq.shape[0], -1)
        offset += n
        differ += int(np.count_nonzero(got != reference_outputs(layer, pair_saturation=True)))
        differ_exact += int(np.count_nonzero(got != reference_outputs(layer)))
        differ_simdops += int(np.count_nonzero(got != simdops_outputs(layer, True)))
    assert offset == flat.size
    assert differ == 0, f"{differ} of {flat.size} outputs differ from the pair-saturation model"
    assert differ_simdops == 0, f"{differ_simdops} of {flat.size} differ from simdops"
    # exact accumulators are not what AVX2 computes
    assert differ_exact > 0
