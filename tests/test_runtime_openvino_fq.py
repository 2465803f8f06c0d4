"""OpenVINO's standalone FakeQuantize and an ONNX QuantizeLinear read by OpenVINO,
reproduced bit for bit by simdops.runtimes.fake_quantize / openvino_quantize_linear.

Random ranges per level count (one model of many FakeQuantize nodes per plugin
configuration, one thread, f32 inference precision); inputs on the rounding ties of
each range (x = il + (k + 1/2) / isc) and one float32 step to either side, random
values inside and outside the range, NaN, +-inf, +-0.0 and the bounds. The formulas
(simdops.runtimes docstrings) come from snippets' FakeQuantizeDecomposition
(src/common/snippets/src/pass/fq_decomposition.cpp) and the FakeQuantize node's JIT
kernel (src/plugins/intel_cpu/src/nodes/fake_quantize.cpp), then measured.
FQ_RANGES (env) scales the sweep (random ranges per level count and path).
"""
import os

import numpy as np
import pytest

pytest.importorskip("openvino", reason="openvino is not installed (pip install openvino): "
                    "the OpenVINO proof needs it")

import simdops  # noqa: E402
import simdops.onnx  # noqa: E402
from simdops import runtimes  # noqa: E402

F = np.float32
RANGES = int(os.environ.get("FQ_RANGES", "4"))
# 15, 16, 255, 256: level counts OpenVINO's low-precision transformations rewrite
# (tested with them off here, and on below); 3, 17, 65536 run the snippets formula by
# default too
LEVELS = (3, 15, 16, 17, 255, 256, 65536)
NO_LPT = {"LP_TRANSFORMS_MODE": False}
NODE = {"LP_TRANSFORMS_MODE": False, "SNIPPETS_MODE": "DISABLE"}


def _ranges(rng, levels, count):
    out = [(F(-1), F(1), F(-128), F(127)), (F(0), F(6), F(0), F(levels - 1))]
    for i in range(count):
        il = F(-rng.uniform(0, 3)) if i % 2 else F(rng.uniform(-1, 1))
        ih = F(il + rng.uniform(0.05, 5))
        ol = F(rng.uniform(-2, 1))
        oh = F(ol + rng.uniform(0.05, 4)) if i % 3 else F(ol - rng.uniform(0.05, 4))
        out.append((il, ih, ol, oh))
    return out


def _inputs(rng, il, ih, levels):
    isc = F(F(levels - 1) / F(ih - il))
    k = rng.integers(0, levels - 1, 600).astype(np.float64) + 0.5
    x = (k / float(isc) + float(il)).astype(F)
    return np.concatenate([x, np.nextafter(x, F(np.inf)), np.nextafter(x, F(-np.inf)),
                           rng.uniform(float(il) - 1, float(ih) + 1, 300).astype(F),
                           np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, il, ih], F)])


def _run_many(cases, config):
    """One model: a FakeQuantize per case on its own input. Returns the outputs and the
    executed layer types."""
    import openvino as ov
    import openvino.opset13 as ops

    params, outs = [], []
    for n, (x, il, ih, ol, oh, levels) in enumerate(cases):
        p = ops.parameter([1, x.size], np.float32, name=f"x{n}")
        c = [ops.constant(np.asarray(v, F)) for v in (il, ih, ol, oh)]
        params.append(p)
        outs.append(ops.fake_quantize(p, *c, levels))
    compiled = ov.Core().compile_model(ov.Model(outs, params), "CPU", dict(
        {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32"}, **config))
    kinds = {op.get_rt_info()["layerType"].astype(str)
             for op in compiled.get_runtime_model().get_ops()} - {"Input", "Output", "Const"}
    res = compiled({f"x{n}": c[0].reshape(1, -1) for n, c in enumerate(cases)})
    return [res[compiled.outputs[n]].reshape(-1) for n in range(len(cases))], kinds


def _sweep(seed, levels_list, config, path):
    rng = np.random.default_rng(seed)
    cases = [(_inputs(rng, il, ih, lv), il, ih, ol, oh, lv) for lv in levels_list
             for il, ih, ol, oh in _ranges(rng, lv, RANGES)]
    outs, kinds = _run_many(cases, config)
    differ = compared = 0
    other = 0
    for (x, il, ih, ol, oh, lv), got in zip(cases, outs):
        want = runtimes.fake_quantize(x, il, ih, ol, oh, lv, path=path)
        differ += int(np.count_nonzero(got.view(np.int32) != want.view(np.int32)))
        compared += got.size
        alt = runtimes.fake_quantize(x, il, ih, ol, oh, lv,
                                     path="node" if path == "subgraph" else "subgraph")
        other += int(np.count_nonzero(got.view(np.int32) != alt.view(np.int32)))
    return differ, compared, other, kinds, len(cases)


def test_fake_quantize_subgraph_every_level_count():
    differ, compared, other, kinds, n = _sweep(11, LEVELS, NO_LPT, "subgraph")
    assert kinds == {"Subgraph"}, kinds
    assert differ == 0, f"{differ} of {compared} outputs of {n} FakeQuantize nodes differ"
    assert other > 0  # the node formula misses some of them: the sweep discriminates


def test_fake_quantize_subgraph_default_configuration():
    # levels the low-precision transformations leave alone: the default configuration
    differ, compared, _, kinds, n = _sweep(12, (3, 17, 65536), {}, "subgraph")
    assert kinds == {"Subgraph"}, kinds
    assert differ == 0, f"{differ} of {compared} outputs of {n} FakeQuantize nodes differ"


def test_fake_quantize_node_kernel():
    differ, compared, other, kinds, n = _sweep(13, LEVELS, NODE, "node")
    assert kinds == {"FakeQuantize"}, kinds
    assert differ == 0, f"{differ} of {compared} outputs of {n} FakeQuantize nodes differ"
    assert other > 0


def _lpt_ranges(rng, levels, count):
    """Ranges that take each branch of the low-precision transformations' precision
    choice: random ones (_ranges: uint8 with and without a zero point, inverted ranges),
    ranges within 0.2 % of the int8 ratio and just outside it (signed: int8 without a
    zero point, or uint8 with one; 15 levels: always uint8), output_low within 1e-6 of
    0 (no zero point) and both ends below 1e-6, and oh = 0."""
    want = -levels / (levels - 2) if levels in (16, 256) else -1.0
    out = _ranges(rng, levels, count)
    for i in range(count):
        il = F(-rng.uniform(0, 3))
        ih = F(il + rng.uniform(0.05, 5))
        oh = F(rng.uniform(0.05, 4))
        off = rng.uniform(-0.0019, 0.0019) if i % 3 else rng.choice([-1, 1]) * 0.0021
        out.append((il, ih, F(oh * want * (1 + off)), oh))
    out += [(F(-1), F(2), F(-4e-7), F(1.5)), (F(-1), F(2), F(-4e-7), F(6e-7)),
            (F(0.5), F(2), F(-1.25), F(0))]
    return out


def test_fake_quantize_default_configuration_low_precision_rewrite():
    # 15, 16, 255, 256 levels in the default configuration: the low-precision
    # transformations rewrite the ranges (runtimes.openvino_fake_quantize)
    rng = np.random.default_rng(14)
    cases = [(_inputs(rng, il, ih, lv), il, ih, ol, oh, lv) for lv in (15, 16, 255, 256)
             for il, ih, ol, oh in _lpt_ranges(rng, lv, RANGES + 2)]
    outs, kinds = _run_many(cases, {})
    assert kinds == {"Subgraph"}, kinds
    differ = compared = as_written = levels_minus_one = 0
    dtypes = set()
    for (x, il, ih, ol, oh, lv), got in zip(cases, outs):
        bits = got.view(np.int32)
        want = runtimes.openvino_fake_quantize(x, il, ih, ol, oh, lv)
        differ += int(np.count_nonzero(bits != want.view(np.int32)))
        compared += got.size
        p = runtimes.openvino_fake_quantize_params(il, ih, ol, oh, lv)
        dtypes.add((lv, p["dtype"]))
        plain = runtimes.fake_quantize(x, il, ih, ol, oh, lv)
        as_written += int(np.count_nonzero(bits != plain.view(np.int32)))
        if p["dtype"] == "uint8" and lv != 16:  # the neighbour: uint8 onto [0, levels-1]
            hi = F(lv - 1)
            scale = F(F(oh - ol) / hi)
            shift = F(F(-F(hi * ol)) / F(oh - ol)) if abs(ol) >= F(1e-6) else F(0)
            other = runtimes.fake_quantize(x, il, ih, F(F(-shift) * scale),
                                           F(F(hi - shift) * scale), lv)
            levels_minus_one += int(np.count_nonzero(bits != other.view(np.int32)))
    assert differ == 0, f"{differ} of {compared} outputs of {len(cases)} nodes differ"
    # every branch ran: int8 for 16, 255, 256 levels; 15 levels never int8
    assert {(16, "int8"), (255, "int8"), (256, "int8"), (15, "uint8")} <= dtypes, dtypes
    assert (15, "int8") not in dtypes
    assert as_written > 0 and levels_minus_one > 0  # the sweep discriminates


def test_atlas_26_fake_quantize_low_precision_rewrite():
    # a 16-level FakeQuantize: x = il gives output_low as written, and OpenVINO's
    # default configuration gives the rewritten output_low' (uint8 [0, 15], zero point)
    il, ih, ol, oh = F(0.9794015), F(5.764948), F(-1.9283478), F(-1.0532889)
    x = np.array([il, ih], F)
    (default,), _ = _run_many([(x, il, ih, ol, oh, 16)], {})
    (plain,), _ = _run_many([(x, il, ih, ol, oh, 16)], NO_LPT)
    want = runtimes.fake_quantize(x, il, ih, ol, oh, 16)
    assert want[0] == ol and np.array_equal(plain, want)
    assert default[0] != ol
    scale = F(F(oh - ol) / F(15))
    shift = F(F(F(0) - F(F(15) * ol)) / F(oh - ol))
    assert default[0] == F(F(-shift) * scale)
    assert np.array_equal(default, runtimes.openvino_fake_quantize(x, il, ih, ol, oh, 16))


# ------------------------------------------------------------- ONNX QuantizeLinear

def _run_onnx_ql(x, scale, zero_point):
    import runtime_models_rt2 as rm

    return rm.run_openvino_onnx_quantize_linear(x.reshape(1, -1), scale,
                                                zero_point).reshape(-1)


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_onnx_quantize_linear_read_by_openvino(dtype):
    rng = np.random.default_rng(21 if dtype == "uint8" else 22)
    qmin, qmax = (0, 255) if dtype == "uint8" else (-128, 127)
    differ = compared = differ_onnx = 0
    zps = [qmin, 0 if dtype == "int8" else 128, int(rng.integers(qmin, qmax + 1))]
    for zp in zps:
        for _ in range(2):
            s = F(2.0 ** rng.uniform(-10, 2))
            k = rng.integers(qmin - zp - 3, qmax - zp + 3, 500) + 0.5
            x = (k * float(s)).astype(F)
            x = np.concatenate([x, np.nextafter(x, F(np.inf)), np.nextafter(x, F(-np.inf)),
                                (rng.normal(size=200) * 300 * s).astype(F),
                                np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], F)])
            got = _run_onnx_ql(x, s, np.array(zp, dtype))
            want = runtimes.openvino_quantize_linear(x, s, zp, dtype)
            differ += int(np.count_nonzero(got != want))
            compared += got.size
            onnx = simdops.onnx.quantize_linear(x[np.isfinite(x)], s, np.array(zp, dtype))
            differ_onnx += int(np.count_nonzero(got[np.isfinite(x)] != onnx))
            assert got[-5] == qmin  # NaN
    assert differ == 0, f"{differ} of {compared} outputs differ"
    assert differ_onnx > 0  # OpenVINO's QuantizeLinear is not ONNX's on ties


def test_atlas_21_openvino_quantize_linear_vs_onnx_in_openvino():
    from onnx.reference import ReferenceEvaluator
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    s = F(0.0137)
    x = np.array([F(F(-111.5) * s)], F)
    zp = np.array(0, np.int8)
    assert _run_onnx_ql(x, s, zp).tolist() == [-111]
    assert runtimes.openvino_quantize_linear(x, s, 0, "int8").tolist() == [-111]
    graph = helper.make_graph(
        [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])], "ql",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.INT8, [1])],
        [numpy_helper.from_array(np.array(s, F), "s"), numpy_helper.from_array(zp, "z")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    ref = ReferenceEvaluator(model).run(None, {"x": x})[0]
    assert ref.tolist() == [-112]
    assert simdops.onnx.quantize_linear(x, s, zp).tolist() == [-112]
