"""OpenVINO's CPU plugin reproduced bit for bit: int8 FullyConnected / Convolution with the
output FakeQuantize fused (its low-precision transformations), and the accumulators of
x86 CPUs without VNNI (ONEDNN_MAX_CPU_ISA=AVX2: VPMADDUBSW's int16 pair saturation).

Layers run in OpenVINO, one thread, f32 inference precision, activations on their
FakeQuantize grid (so the int32 accumulators are known): random layers (int8 weights per
tensor or per channel, one in four built next to rounding ties) and near-tie layers
(rows chosen so the FakeQuantize input is nearest a tie: they tell apart formulas that
differ by one float32 rounding). Each output is compared with an independent numpy
formula written from OpenVINO's fake_quantize.cpp (updateOptimizedFormula,
appendAttrPostOps) and measured: S[n] = f32(s_a * s_w[n]); il' = il / S[n],
ih' = ih / S[n]; m[n] = 255 / (ih' - il'); b[n] = -il' * 255 / (ih' - il'), channel 0's
when all lie within 5e-5 of it; shift[n] = f32(b[n] + output_low);
sat(RNE(f32(f32(acc) * m[n]) + shift[n])), or one fused multiply-add
fma(f32(acc), m, shift) where m and shift are one value each (per tensor). And with
simdops (int8_matmul_accumulators, then requantize_fp32 with
runtimes.openvino_fq_requant_params, or runtimes.openvino_fq_requant per tensor).

Proven for activations with zero point 0 and no float bias between the layer and the
FakeQuantize; the two other cases are recorded as not reproduced (tests below).
OPENVINO_LAYERS scales the sweeps.
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


def _fma(a, b, c):
    """float32 fma of float32 arrays, independent of simdops: exact Python Fractions of
    each element, rounded once to float32 (ties to even) by comparing the neighbours."""
    from fractions import Fraction

    out = np.empty(a.shape, F)
    for i, (x, y, z) in enumerate(zip(a.ravel().tolist(), b.ravel().tolist(),
                                      c.ravel().tolist())):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        f = F(float(exact))
        cands = [F(np.nextafter(f, F(-np.inf))), f, F(np.nextafter(f, F(np.inf)))]
        dist = [abs(Fraction(float(v)) - exact) for v in cands]
        best = [v for v, d in zip(cands, dist) if d == min(dist)]
        out.ravel()[i] = best[0] if len(best) == 1 else [
            v for v in best if not int(np.array(v).view(np.int32)) & 1][0]
    return out


def reference_outputs(layer, pair_saturation=False, fold_output_low=True):
    """The numpy formula (independent of simdops): int64 [M, N] in [-128, 127].
    fold_output_low=False: output_low added after the rounding (the neighbour formula
    the near-tie layers rule out)."""
    acc = layer.accumulators(pair_saturation).astype(F)
    s = (layer.sa * layer.sw).astype(F)
    ilp = (layer.il / s).astype(F)
    ihp = (layer.ih / s).astype(F)
    m = (F(255) / (ihp - ilp)).astype(F)
    b = ((-ilp * F(255)).astype(F) / (ihp - ilp)).astype(F)
    if (np.abs(b - b[0]) < F(5e-5)).all():
        b = np.full_like(b, b[0])
    if not fold_output_low:
        v = ((acc * m).astype(F) + b).astype(F)
        return (np.rint(np.clip(v, 0, 255)) - 128).astype(np.int64)
    shift = (b - F(128)).astype(F)
    if (m == m[0]).all() and (shift == shift[0]).all():
        if abs(shift[0]) < F(255) * F(1e-5):
            shift = np.zeros_like(shift)
        v = _fma(acc, np.full(acc.shape, m[0], F), np.full(acc.shape, shift[0], F))
    else:
        v = ((acc * m).astype(F) + shift).astype(F)
    return np.clip(np.rint(v), -128, 127).astype(np.int64)


def simdops_outputs(layer, pair_saturation=False):
    """simdops: the accumulators, then one call per layer: requantize_fp32 with
    openvino_fq_requant_params, or openvino_fq_requant where OpenVINO fuses (per
    tensor)."""
    a = layer.xq.astype(np.uint8 if layer.lo == 0 else np.int8)
    acc = simdops.int8_matmul_accumulators(a, np.ascontiguousarray(layer.w.T),
                                           pair_saturation=pair_saturation)
    acc = (acc - np.int32(layer.zp) * layer.w.astype(np.int32).sum(1)).astype(np.int32)
    args = (layer.sa, layer.sw if layer.per_channel else layer.sw[0], layer.il, layer.ih,
            -128.0, 127.0, 256)
    if layer.per_channel and len(set(layer.sw.tolist())) > 1:
        params = simdops.runtimes.openvino_fq_requant_params(*args)
        return simdops.requantize_fp32(acc, **params).astype(np.int64)
    return simdops.runtimes.openvino_fq_requant(acc, *args).astype(np.int64)


_RUNS = {}


def ov_run(kind):
    """(layers, outputs, kernels) of one sweep, run once per session."""
    if kind not in _RUNS:
        conv = kind == "conv"
        if kind in ("fc", "conv"):
            layers = rm.fc_layers(71 + conv, rm.OV_LAYERS if not conv else
                                  max(1, rm.OV_LAYERS // 4), bias=False, zero_point=0)
        elif kind == "near_ties":
            layers = rm.near_tie_layers(5, max(8, rm.OV_LAYERS // 3))
        elif kind == "near_ties_zp":
            layers = rm.near_tie_layers(6, max(8, rm.OV_LAYERS // 3), zero_point=None)
        else:
            layers = rm.near_tie_layers(7, max(8, rm.OV_LAYERS // 3), bias=True)
        _RUNS[kind] = (layers,) + rm.run_openvino_fc(layers, conv)
    return _RUNS[kind]


def _compare(layers, outputs, fn):
    differ = elements = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != fn(layer)))
        elements += got.size
    return differ, elements


@pytest.mark.parametrize("kind", ["fc", "conv", "near_ties"])
def test_openvino_int8_fq_reproduced(kind):
    layers, outputs, kinds = ov_run(kind)
    # the int8 path ran: every layer's node is an int8 kernel with u8 / i8 runtime precision
    assert sum(kinds.values()) == len(layers), kinds
    assert all(p in ("u8", "i8") and ("I8" in k or "i8" in k) for k, p in kinds), kinds
    assert {layer.per_channel for layer in layers} == {False, True}
    differ, elements = _compare(layers, outputs, reference_outputs)
    assert elements > 10 * len(layers)
    assert differ == 0, f"{differ} of {elements} outputs differ from the formula"
    differ, elements = _compare(layers, outputs, simdops_outputs)
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops"
    if kind == "near_ties":  # the sweep discriminates: output_low added after rounding
        other, _ = _compare(layers, outputs,
                            lambda layer: reference_outputs(layer, fold_output_low=False))
        assert other > 0


@pytest.mark.parametrize("kind", ["near_ties_zp", "near_ties_bias"])
def test_openvino_int8_fq_not_reproduced(kind):
    # recorded, not modelled: with a nonzero activation zero point or a float bias between
    # the layer and its FakeQuantize, OpenVINO's arithmetic near ties is none of the
    # formulas tried (docs/requantization.md); this test fails once one reproduces it
    layers, outputs, _ = ov_run(kind)
    if kind == "near_ties_bias":  # the bias folded as measured on random layers
        def model(layer):
            s = (layer.sa * layer.sw).astype(F)
            ilp, ihp = (layer.il / s).astype(F), (layer.ih / s).astype(F)
            m = (F(255) / (ihp - ilp)).astype(F)
            b = ((-ilp * F(255)).astype(F) / (ihp - ilp)).astype(F)
            b = (b + ((layer.bias / s).astype(F) * m).astype(F) - F(128)).astype(F)
            v = ((layer.accumulators().astype(F) * m).astype(F) + b).astype(F)
            return np.clip(np.rint(v), -128, 127).astype(np.int64)
    else:
        model = reference_outputs
    differ, elements = _compare(layers, outputs, model)
    assert 0 < differ < elements // 100, (differ, elements)


_AVX2_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import runtime_models_rt2 as rm
layers = rm.fc_layers(int(sys.argv[2]), int(sys.argv[3]), bias=False, rows=32, zero_point=0)
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
    assert all(("avx2" in k or "gemm" in k) and "I8" in k.upper() for k in kinds), kinds
    flat = np.load(out_file)
    layers = rm.fc_layers(seed, count, bias=False, rows=32, zero_point=0)
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
