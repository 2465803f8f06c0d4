"""docs/recipes.md ("Reproduce your runtime") runs as printed, each recipe against its
runtime: the page's python blocks are cut out per section and executed in order, in one
namespace per section. Each recipe asserts simdops' bits equal the runtime's own output;
the checks here add what a recipe cannot say about itself (it compared a non-trivial
output; LiteRT's three modes really differ on its layer, so one family could not pass
for another). A recipe whose runtime is not installed skips, naming the package; the
TensorFlow converter block runs only where tensorflow is installed."""
import os
import re

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECIPES = os.path.join(ROOT, "docs", "recipes.md")
MARKER = "not run:"

pytestmark = [
    pytest.mark.skipif(not os.path.exists(RECIPES), reason="docs/ is not beside tests/ here"),
    # torch's quantized engine and thread counts are process-wide
    pytest.mark.thread_unsafe(reason="runtimes' process-wide settings"),
]

# section heading (its start) -> the modules its blocks need, and its checks below
RECIPES_EXPECTED = {
    "ONNX Runtime: QLinearMatMul": ("onnx", "onnxruntime"),
    "ONNX Runtime: per-channel QLinearConv": ("onnx", "onnxruntime"),
    "LiteRT: the three kernel modes": ("ai_edge_litert", "flatbuffers"),
    "PyTorch: fbgemm": ("torch",),
    "OpenVINO: an int8 FullyConnected": ("openvino",),
    "PyTorch x86: X86InductorQuantizer": ("torch", "torchao"),
}


def sections():
    """{heading: [python block, ...]} of the page's ## sections."""
    if not os.path.exists(RECIPES):
        return {}
    with open(RECIPES, encoding="utf-8") as f:
        text = f.read()
    found = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        heading = part.splitlines()[0].strip()
        found[heading] = re.findall(r"^```python\n(.*?)^```", part, flags=re.S | re.M)
    return found


def recipe(prefix):
    matches = [h for h in sections() if h.startswith(prefix)]
    assert len(matches) == 1, f"docs/recipes.md has no single section starting {prefix!r}"
    return matches[0], sections()[matches[0]]


def needs(modules):
    for name in modules:
        pytest.importorskip(name, reason=f"{name} is not installed: the recipe needs it "
                                         '(pip install ".[runtimes]"; torch: see the README)')


def run(prefix):
    heading, blocks = recipe(prefix)
    needs(RECIPES_EXPECTED[prefix])
    namespace = {"__name__": "recipes"}
    ran = 0
    for block in blocks:
        first = block.splitlines()[0]
        if MARKER in first:
            if "tensorflow" not in first:
                continue
            try:
                import tensorflow  # noqa: F401
            except ImportError:
                continue             # the converter block: shown, run where TF is installed
        exec(compile(block, f"docs/recipes.md, {heading}", "exec"), namespace)
        ran += 1
    assert ran >= 1
    return namespace


def test_every_section_is_a_tested_recipe():
    headings = list(sections())
    assert headings, "docs/recipes.md has no recipes"
    for heading in headings:
        assert sum(heading.startswith(p) for p in RECIPES_EXPECTED) == 1, heading
        blocks = sections()[heading]
        assert any("assert np.array_equal(" in b for b in blocks), heading


def test_onnxruntime_qlinearmatmul_recipe():
    ns = run("ONNX Runtime: QLinearMatMul")
    y, y_ort = ns["y"], ns["y_ort"]
    assert y.dtype == np.int8 and np.array_equal(y, y_ort)
    assert len(np.unique(y)) > 20                       # not a clamped, degenerate layer
    assert np.ndim(ns["w_scale"]) == 1 and np.any(ns["w_zp"] != 0) and ns["a_zp"] != 0


def test_onnxruntime_qlinearconv_nchw_recipe():
    ns = run("ONNX Runtime: per-channel QLinearConv")
    y, y_ort = ns["y"], ns["y_ort"]
    assert y.shape == y_ort.shape and y.shape[1] == ns["m"] and np.array_equal(y, y_ort)
    assert len(np.unique(y)) > 20
    # per channel really matters: one channel's scale for all would not give ORT's output
    one = np.moveaxis(ns["simdops"].requantize_fp32(
        np.moveaxis(ns["acc"], 1, -1), ns["scale"][0], int(ns["y_zp"]), bias=ns["bias"],
        out_dtype="int8"), -1, 1)
    assert not np.array_equal(one, y_ort)


def test_litert_three_modes_recipe():
    ns = run("LiteRT: the three kernel modes")
    outputs = {mode: ns["run"](mode) for mode in ("reference", "optimized", "xnnpack")}
    assert np.array_equal(outputs["reference"], ns["y_ref"])
    assert np.array_equal(outputs["optimized"], ns["y_opt"])
    assert np.array_equal(outputs["xnnpack"], ns["y_xnn"])
    # the layer tells the modes apart: each family misses another mode's output somewhere
    assert not np.array_equal(ns["y_ref"], ns["y_opt"])
    assert not np.array_equal(ns["y_opt"], ns["y_xnn"])
    assert not np.array_equal(ns["y_ref"], ns["y_xnn"])
    assert len(np.unique(ns["y_ref"])) > 20


def test_pytorch_fbgemm_recipe():
    torch = pytest.importorskip("torch")
    if "fbgemm" not in torch.backends.quantized.supported_engines:
        pytest.skip("this torch build has no fbgemm quantized engine")
    engine = torch.backends.quantized.engine
    try:
        ns = run("PyTorch: fbgemm")
    finally:
        torch.backends.quantized.engine = engine
    y, y_torch = ns["y"], ns["y_torch"]
    assert y.dtype == np.uint8 and np.array_equal(y, y_torch)
    assert len(np.unique(y)) > 20


def test_openvino_fullyconnected_fakequantize_recipe():
    ns = run("OpenVINO: an int8 FullyConnected")
    y, y_ov = ns["y"], ns["y_ov"]
    assert y.dtype == np.int8 and np.array_equal(y, y_ov.astype(np.int8))
    assert len(np.unique(y)) > 20
    # activations with a zero point, and a float bias: reproduced too
    assert ns["act"]["zero_point"] != 0
    assert np.array_equal(ns["y_bias"], ns["y_ov_bias"].astype(np.int8))
    assert not np.array_equal(ns["y_bias"], y)
    # the int8 kernel ran (not a float MatMul that happens to agree)
    precisions = {op.get_rt_info()["runtimePrecision"].astype(str)
                  for op in ns["compiled"].get_runtime_model().get_ops()
                  if op.get_rt_info()["layerType"].astype(str) == "FullyConnected"}
    assert precisions and precisions <= {"u8", "i8"}, precisions
    p = ns["params"]  # per channel: m[n] and the shifts (output_low inside) per channel
    assert p["bias_at"] == "scaled" and p["bias"].shape == (ns["N"],) and p["zero_point"] == 0
    assert p["scale"].shape == (ns["N"],)
    v_ov = ns["v_ov"]
    assert np.array_equal(ns["v_simdops"], v_ov) and len(np.unique(v_ov)) == 16


def test_pytorch_x86_inductor_recipe():
    torch = pytest.importorskip("torch")
    if not hasattr(torch.ops.onednn, "qlinear_pointwise"):
        pytest.skip("this torch build has no oneDNN quantized linear")
    threads = torch.get_num_threads()
    try:
        ns = run("PyTorch x86: X86InductorQuantizer")
    finally:
        torch.set_num_threads(threads)
    y, y_torch, h = ns["y"], ns["y_torch"], ns["h"]
    assert y.dtype == np.float32 and np.array_equal(y.view(np.int32), y_torch.view(np.int32))
    assert h.dtype == np.uint8 and len(np.unique(h)) > 20    # a real u8 hidden layer
    assert len(np.unique(y)) > 100
    assert isinstance(ns["zp_h"], int) and isinstance(ns["s_h"], float)  # from the graph
    # the kernel matters: the other kernel's scale order misses torch's bits
    other = "gemm" if ns["kernel"] == "brgemm" else "brgemm"
    acc2 = ns["accumulators"](h, ns["zp_h"], ns["w2"])
    y_other = ns["runtimes"].onednn_float_output(acc2, ns["s_h"], ns["s_w2"], ns["b2"],
                                                 kernel=other)
    assert not np.array_equal(y_other.view(np.int32), y_torch.view(np.int32))
    assert np.ndim(ns["s_w1"]) == 1 and len(np.unique(ns["s_w1"])) > 1   # per channel
