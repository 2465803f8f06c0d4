"""OpenVINO's CPU plugin reproduced bit for bit: int8 FullyConnected / Convolution with the
output FakeQuantize fused (its low-precision transformations), activations with and
without a zero point, with and without a float bias between the layer and the
FakeQuantize, and the accumulators of x86 CPUs without VNNI (ONEDNN_MAX_CPU_ISA=AVX2:
VPMADDUBSW's int16 pair saturation).

Layers run in OpenVINO, one thread, f32 inference precision, activations on their
FakeQuantize grid (so the int32 accumulators are known): random layers (int8 weights per
tensor or per channel, one in four built next to rounding ties) and near-tie layers
(rows chosen so the FakeQuantize input is nearest a tie: they tell apart formulas that
differ by one float32 rounding). Each output is compared with an independent numpy
formula written from OpenVINO's sources (low_precision_transformations: layer_transformation
.cpp getPrecisionDetails, network_helper.cpp decomposeFakeQuantize, mat_mul.cpp,
fake_quantize.cpp fuseElementwise; intel_cpu: graph_optimizer.cpp
FusePerformedAsScaleShiftAndFakeQuantize, dnnl_postops_composer.cpp
updateOptimizedFormula / appendScale) and the post-ops ONEDNN_VERBOSE=1 prints, and with
simdops (int8_matmul_accumulators, then requantize_fp32 with
runtimes.openvino_fq_requant_params, or runtimes.openvino_fq_requant where the kernel runs
a fused multiply-add or subtracts the zero point's compensation first).
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
import runtime_models_openvino as rmo  # noqa: E402
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


def lpt_activations(layer):
    """The activation FakeQuantize's range as the model writes it, and OpenVINO's
    decomposition of it: (qmin, s_a', zp' or None). int8 for a range straddling 0 within
    0.2 % of -256/254 (no zero point; its high end not 0), else uint8 with a zero point
    unless the low end is 0; s_a' = (oh - ol) / (qmax - qmin),
    zp' = (qmin * oh - qmax * ol) / (oh - ol)."""
    ol = F(layer.sa * F(layer.lo - layer.zp))
    oh = F(layer.sa * F(layer.lo + 255 - layer.zp))
    signed = bool(np.signbit(ol) != np.signbit(oh)) and abs(ol) >= F(1e-6)
    has_zp = abs(ol) >= F(1e-6)
    if signed and oh != 0:  # (oh = 0: a zero point)
        ratio, want = F(ol / oh), F(-F(256) / F(254))
        has_zp = abs(F(F(ratio - want) / min(ratio, want))) > F(0.002)
    qmin, qmax = (F(-128), F(127)) if signed and not has_zp else (F(0), F(255))
    scale = F(F(oh - ol) / F(qmax - qmin))
    zp = F(F(F(qmin * oh) - F(qmax * ol)) / F(oh - ol)) if has_zp else None
    return int(qmin), scale, zp


def raw_accumulators(layer, qmin, pair_saturation=False):
    """int64 [M, N]: sum_k q * w of the integer activations OpenVINO computes
    (q = xq - lo + qmin), no zero point subtracted."""
    if pair_saturation:  # the FcLayer pair model, valid when q is xq (zero point 0)
        assert qmin == layer.lo and layer.zp == 0
        return layer.accumulators(True)
    return (layer.xq - layer.lo + qmin) @ layer.w.astype(np.int64).T


def reference_outputs(layer, pair_saturation=False, fold_output_low=True,
                      equal_bias_as_bias=False, conv=False):
    """The numpy formula (independent of simdops): int64 [M, N] in [-128, 127].
    fold_output_low=False: output_low added after the rounding; equal_bias_as_bias: a
    bias of one value folded as a bias per channel (the neighbour formulas the near-tie
    layers rule out). conv: a Convolution, whose zero point is rounded to an integer and
    subtracted exactly from the accumulators (graph_optimizer.cpp
    FuseConvolutionAndZeroPoints)."""
    qmin, sa, zp = lpt_activations(layer)
    acc = raw_accumulators(layer, qmin, pair_saturation)
    if conv and zp is not None:
        acc = acc - int(np.rint(zp)) * layer.w.astype(np.int64).sum(1)
        zp = None
    acc = acc.astype(F)
    s = (sa * layer.sw).astype(F)
    comp = None
    if zp is not None:  # zp through the weights, folded in float32 in order of k
        comp = np.zeros(layer.w.shape[0], F)
        for k in range(layer.w.shape[1]):
            comp = (comp + (zp * layer.w[:, k].astype(F)).astype(F)).astype(F)
    bias = layer.bias
    if bias is not None and ((bias != bias[0]).any() or equal_bias_as_bias):
        # a bias of distinct values per channel: folded into the FakeQuantize's input
        # shift, the scales into the kernel's multiplier; the compensation subtracted first
        isc = F(F(255) / F(layer.ih - layer.il))
        ish = F(F(-layer.il * F(255)) / F(layer.ih - layer.il))
        shift = (ish + (bias * isc).astype(F)).astype(F)
        if (np.abs(shift - shift[0]) < F(5e-5)).all():
            shift = np.full_like(shift, shift[0])
        v = acc if comp is None else (acc - comp).astype(F)
        v = ((v * (isc * s).astype(F)).astype(F) + (shift - F(128)).astype(F)).astype(F)
        return np.clip(np.rint(v), -128, 127).astype(np.int64)
    il, ih = layer.il, layer.ih
    if bias is not None:  # one value for every channel: folded into the ranges
        il, ih = F(il - bias[0]), F(ih - bias[0])
    ilp = (il / s).astype(F)
    ihp = (ih / s).astype(F)
    if comp is not None:
        ilp, ihp = (ilp + comp).astype(F), (ihp + comp).astype(F)
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


def simdops_outputs(layer, pair_saturation=False, paths=None, conv=False):
    """simdops: the activation quantization OpenVINO derives, the accumulators, then one
    call per layer: requantize_fp32 with openvino_fq_requant_params, or
    openvino_fq_requant where OpenVINO's kernel runs a form requantize_fp32 has not.
    paths: a dict counting which one ran."""
    ol = F(layer.sa * F(layer.lo - layer.zp))
    oh = F(layer.sa * F(layer.lo + 255 - layer.zp))
    act = simdops.runtimes.openvino_activation_quantization(ol, oh)
    qmin = 0 if act["dtype"] == "uint8" else -128
    q = (layer.xq - layer.lo + qmin).astype(act["dtype"])
    acc = simdops.int8_matmul_accumulators(q, np.ascontiguousarray(layer.w.T),
                                           pair_saturation=pair_saturation)
    args = (act["input_scale"], layer.sw if layer.per_channel else layer.sw[0], layer.il,
            layer.ih, -128.0, 127.0, 256)
    kw = {"zero_point": act["zero_point"], "weights": layer.w, "bias": layer.bias,
          "layer": "convolution" if conv else "fully_connected"}
    try:
        params = simdops.runtimes.openvino_fq_requant_params(*args, **kw)
    except ValueError as e:
        if "openvino_fq_requant(acc" not in str(e):
            raise
        path, out = "numpy", simdops.runtimes.openvino_fq_requant(acc, *args, **kw)
    else:
        path, out = "requantize_fp32", simdops.requantize_fp32(acc, **params)
    if paths is not None:
        paths[path] = paths.get(path, 0) + 1
    return out.astype(np.int64)


_RUNS = {}


def assert_reproduced(layers, outputs, formula, conv=False):
    """0 differences from the numpy formula and from simdops (more than 10 outputs a
    layer); returns {simdops path: layers}."""
    differ, elements = _compare(layers, outputs, formula)
    assert elements > 10 * len(layers)
    assert differ == 0, f"{differ} of {elements} outputs differ from the formula"
    paths = {}
    differ, elements = _compare(layers, outputs, lambda layer: simdops_outputs(
        layer, paths=paths, conv=conv))
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops"
    return paths


def ov_run(kind):
    """(layers, outputs, kernels) of one sweep, run once per session."""
    if kind not in _RUNS:
        conv = kind.startswith("conv")
        few = max(8, rm.OV_LAYERS // 3)
        if kind in ("fc", "conv"):
            layers = rm.fc_layers(71 + conv, rm.OV_LAYERS if not conv else
                                  max(1, rm.OV_LAYERS // 4), bias=False, zero_point=0)
        elif kind == "fc_zero_point_bias":  # random zero points and biases; a quarter
            # with zero point 0 (int8 activations among them) and biases; uint8 ranges
            # within 0.2 % of symmetric (OpenVINO: int8, zero point dropped)
            layers = rm.fc_layers(74, max(8, rm.OV_LAYERS * 2 // 5)) + rm.fc_layers(
                75, max(8, rm.OV_LAYERS // 8), zero_point=0)
            for layer in rm.fc_layers(76, 16, zero_point=0):
                if layer.lo == 0:
                    layer.zp = 128.05
                    layers.append(layer)
        elif kind == "conv_zero_point":  # 1x1 convolutions: zero points, equal biases
            layers = rm.near_tie_layers(6, max(8, rm.OV_LAYERS // 6), zero_point=None) + \
                rm.near_tie_layers(9, max(8, rm.OV_LAYERS // 12), bias="equal")
        elif kind == "near_ties":
            layers = rm.near_tie_layers(5, few)
        elif kind == "near_ties_zp":  # integer zero points, and zero points between two
            layers = rm.near_tie_layers(6, few, zero_point=None) + rm.near_tie_layers(
                10, max(8, few // 2), zero_point="float")
        else:  # biases per channel, and one value for every channel
            layers = rm.near_tie_layers(7, few, bias=True) + rm.near_tie_layers(
                9, max(8, few * 3 // 4), bias="equal")
        _RUNS[kind] = (layers,) + rm.run_openvino_fc(layers, conv)
    return _RUNS[kind]


def _compare(layers, outputs, fn):
    differ = elements = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != fn(layer)))
        elements += got.size
    return differ, elements


@pytest.mark.parametrize("kind", ["fc", "conv", "near_ties", "fc_zero_point_bias",
                                  "near_ties_zp", "near_ties_bias", "conv_zero_point"])
def test_openvino_int8_fq_reproduced(kind):
    layers, outputs, kinds = ov_run(kind)
    conv = kind.startswith("conv")
    # the int8 path ran: every layer's node is an int8 kernel with u8 / i8 runtime precision
    assert sum(kinds.values()) == len(layers), kinds
    assert all(p in ("u8", "i8") and ("I8" in k or "i8" in k) for k, p in kinds), kinds
    assert {layer.per_channel for layer in layers} == {False, True}
    paths = assert_reproduced(layers, outputs, lambda layer: reference_outputs(
        layer, conv=conv), conv)
    assert paths.get("requantize_fp32", 0) > 0, paths  # the C kernel ran on some
    if kind == "near_ties":  # the sweep discriminates: output_low added after rounding
        other, _ = _compare(layers, outputs,
                            lambda layer: reference_outputs(layer, fold_output_low=False))
        assert other > 0
    if kind == "conv_zero_point":  # the FullyConnected's folding of the zero point misses
        other, _ = _compare(layers, outputs, reference_outputs)
        assert other > 0
    if kind == "fc_zero_point_bias":  # every case ran: zero points (with int8 kept where
        # OpenVINO drops them), per-channel biases, one-channel biases folded into ranges
        acts = [lpt_activations(layer) for layer in layers]
        assert any(zp is not None for _, _, zp in acts)
        assert any(qmin == -128 for qmin, _, _ in acts)
        assert any(qmin == -128 and layer.zp == 128.05 for layer, (qmin, _, _) in
                   zip(layers, acts))
        assert any(layer.bias is not None and layer.bias.size == 1 for layer in layers)
        assert any(layer.bias is not None and zp is not None and layer.bias.size > 1
                   for layer, (_, _, zp) in zip(layers, acts))
    if kind == "near_ties_bias":  # the bias folded as it was first measured misses some
        def folded_into_shift(layer):
            qmin, sa, _ = lpt_activations(layer)
            s = (sa * layer.sw).astype(F)
            ilp, ihp = (layer.il / s).astype(F), (layer.ih / s).astype(F)
            m = (F(255) / (ihp - ilp)).astype(F)
            b = ((-ilp * F(255)).astype(F) / (ihp - ilp)).astype(F)
            b = (b + ((layer.bias / s).astype(F) * m).astype(F) - F(128)).astype(F)
            v = ((raw_accumulators(layer, qmin).astype(F) * m).astype(F) + b).astype(F)
            return np.clip(np.rint(v), -128, 127).astype(np.int64)
        other, _ = _compare(layers, outputs, folded_into_shift)
        assert other > 0
        equal = [(layer, got) for layer, got in zip(layers, outputs)
                 if layer.w.shape[0] > 1 and (layer.bias == layer.bias[0]).all()]
        assert equal  # an equal bias is not OpenVINO's bias: its shift form misses some
        as_bias, _ = _compare([l for l, _ in equal], [g for _, g in equal], lambda layer:
                              reference_outputs(layer, equal_bias_as_bias=True))
        assert as_bias > 0


def test_openvino_compensation_summed_in_order_of_k():
    # a float activation zero point through the weights: C[n] summed in float32 in
    # order of k (the constant folding's MatMul), not one float64 sum, nor in reverse:
    # layers whose rows were chosen where the float64 sum gives other outputs
    layers = rmo.compensation_order_layers(41, max(8, rm.OV_LAYERS // 6))
    outputs, kinds = rm.run_openvino_fc(layers)
    assert sum(kinds.values()) == len(layers), kinds
    differ, elements = _compare(layers, outputs, reference_outputs)
    assert differ == 0, f"{differ} of {elements} outputs differ from the formula"
    differ, elements = _compare(layers, outputs, simdops_outputs)
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops"

    def other_order(layer, total):
        qmin, _, zp = lpt_activations(layer)
        acc = raw_accumulators(layer, qmin)
        return rmo._fc_zero_point_outputs(layer, acc, total(zp, layer.w))

    float64, _ = _compare(layers, outputs, lambda layer: other_order(
        layer, rmo.compensation_float64))
    reverse, _ = _compare(layers, outputs, lambda layer: other_order(
        layer, lambda zp, w: rmo.compensation_k_order(zp, w[:, ::-1])))
    assert float64 > 0 and reverse > 0, (float64, reverse)


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
