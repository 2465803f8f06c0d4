"""simdops.torch: the ops as torch.ops.simdops custom operators (opcheck, the same bits as
the array API, torch.compile(fullgraph=True) and torch.export of a quantized layer), and
the plain simdops.* functions under torch.compile (a clean graph break).

torch.compile is CPU-heavy: the compile tests are few and small, on the "eager" /
"aot_eager" backends except one on inductor."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: simdops.torch needs "
                            "the CPU wheel (pip install torch)")

import simdops  # noqa: E402
import simdops.onnx as simdops_onnx  # noqa: E402
import simdops.torch  # noqa: E402,F401  (registers torch.ops.simdops.*)

ops = torch.ops.simdops

# torch.compile, torch.export and opcheck install process-wide tracing state (dispatch modes,
# patchers, the dynamo frame hook): two of them at once on two threads trip over each other
# ("ProxyTorchDispatchMode slot already occupied"), so pytest-run-parallel runs them on one
# thread. The eager ops stay on two.
_one_thread = pytest.mark.thread_unsafe(reason="torch tracing state is process-wide")


def _rng(seed=0):
    return np.random.default_rng(seed)


def _acc(shape, seed=0):
    return torch.from_numpy(_rng(seed).integers(-40000, 40000, shape, dtype=np.int32))


def _floats(shape, seed=0):
    x = _rng(seed).standard_normal(shape).astype(np.float32)
    x.flat[::7] = np.array([np.nan, np.inf, -np.inf, -0.0], np.float32)[
        np.arange(x.flat[::7].size) % 4]
    return torch.from_numpy(x)


# (op, args, kwargs) samples; each functional op and its _out form
def _samples():
    x = _floats((3, 17))
    xi = torch.from_numpy(_rng(1).integers(-100, 100, (5, 9), dtype=np.int16))
    acc = _acc((4, 6))
    m, s = simdops.quantize_multiplier(0.0031)
    ms, ss = simdops.quantize_multiplier(np.linspace(0.001, 0.02, 6))
    mult, shift = torch.tensor(m, dtype=torch.int32), torch.tensor(s, dtype=torch.int32)
    bias = torch.from_numpy(_rng(2).integers(-500, 500, 6, dtype=np.int32))
    return [
        (ops.clip, (x, -0.5, 0.75), {}),
        (ops.clip, (x, None, 0.25), {"scale": 2.0, "bias": 0.5}),
        (ops.clip, (xi, -7, 30), {}),
        (ops.shrink, (x,), {"bias": 0.25, "threshold": 0.5}),
        (ops.shrink, (xi,), {"bias": 3, "threshold": 10}),
        (ops.hardmax, (x,), {}),
        (ops.hardmax, (x,), {"axis": [0]}),
        (ops.hardmax, (x.reshape(3, 1, 17),), {"axis": [0, 2]}),
        (ops.quantize_down_int32, (acc, mult, shift), {"offset": 3}),
        (ops.quantize_down_int32, (acc, torch.from_numpy(ms), torch.from_numpy(ss)),
         {"offset": -2, "bias": bias, "min": -100, "max": 90, "out_dtype": torch.int8,
          "rounding": "single"}),
        (ops.requantize_fp32, (acc, torch.tensor(0.0017)), {"zero_point": 5}),
        (ops.requantize_fp32, (acc, torch.linspace(0.001, 0.3, 6)),
         {"zero_point": -3, "bias": bias, "out_dtype": torch.int16, "ties": "away"}),
        (ops.quantize_down_int32_to_uint8, (acc, mult, shift, 7), {"bias": bias}),
        (ops.quantize_down_int32_to_uint8, (acc, torch.from_numpy(ms), torch.from_numpy(ss), 7),
         {"min": 20, "max": 200, "rounding": "double_ties_up"}),
        (ops.quantize_linear, (x, torch.tensor(0.02)), {}),
        (ops.quantize_linear, (x.reshape(3, 17, 1), torch.linspace(0.01, 0.5, 17)),
         {"y_zero_point": torch.arange(-8, 9, dtype=torch.int8), "axis": 1}),
        (ops.dequantize_linear, (xi.to(torch.int16), torch.tensor(0.25)), {}),
        (ops.dequantize_linear, (torch.from_numpy(_rng(3).integers(0, 256, (4, 6),
                                                                    dtype=np.uint8)),
                                 torch.linspace(0.5, 3.0, 6, dtype=torch.float16)),
         {"x_zero_point": torch.arange(6, dtype=torch.uint8), "axis": -1}),
        # ONNX's clip / shrink / hardmax (simdops.onnx's answers)
        (ops.onnx_clip, (x,), {"min": 0.5, "max": -0.25}),      # min > max: max (ONNX)
        (ops.onnx_clip, (xi,), {"min": -3}),
        (ops.onnx_shrink, (x,), {"bias": 0.25, "lambd": 0.5}),
        (ops.onnx_shrink, (xi,), {"bias": 3.0, "lambd": 10.0}),
        (ops.onnx_hardmax, (x.reshape(3, 1, 17),), {"axis": 0}),
        (ops.onnx_hardmax, (x.reshape(3, 1, 17),), {"axis": 1, "opset": 11}),
    ]


def _array_api(name, args, kwargs):
    """The same call through simdops' array API on numpy views (the reference bits)."""
    a = [v.numpy() if isinstance(v, torch.Tensor) else v for v in args]
    kw = {k: (v.numpy() if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
    if name == "hardmax":
        kw["axis"] = tuple(kw.get("axis", (-1,)))
    if name in ("quantize_down_int32", "requantize_fp32"):
        kw["out_dtype"] = str(kw.get("out_dtype", torch.uint8)).replace("torch.", "")
        a = [v[()].item() if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in a]
    if name == "quantize_down_int32" and "offset" in kw:
        a.append(kw.pop("offset"))
    if name == "requantize_fp32" and "zero_point" in kw:
        a.append(kw.pop("zero_point"))
    if name == "quantize_down_int32_to_uint8":
        a = [v[()].item() if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in a]
    if name in ("quantize_linear", "dequantize_linear"):
        return getattr(simdops_onnx, name)(*a, **kw)
    if name.startswith("onnx_"):
        return getattr(simdops_onnx, name[len("onnx_"):])(*a, **kw)
    return getattr(simdops, name)(*a, **kw)


def _name(op):
    """"clip" for torch.ops.simdops.clip."""
    return str(op).split(".")[-1]


@pytest.mark.parametrize("case", range(len(_samples())))
def test_functional_op_gives_the_array_api_bits(case):
    op, args, kwargs = _samples()[case]
    got = op(*args, **kwargs)
    want = _array_api(_name(op), args, kwargs)
    assert got.dtype == torch.from_numpy(want).dtype and tuple(got.shape) == want.shape
    assert got.is_contiguous()
    assert got.numpy().tobytes() == want.tobytes()


@pytest.mark.parametrize("case", range(len(_samples())))
def test_out_op_writes_the_array_api_bits(case):
    op, args, kwargs = _samples()[case]
    want = _array_api(_name(op), args, kwargs)
    kwargs = dict(kwargs)
    out_dtype = kwargs.pop("out_dtype", None)
    out = torch.full(want.shape, 77, dtype=torch.from_numpy(want).dtype)
    assert out_dtype in (None, out.dtype)
    result = getattr(ops, _name(op) + "_out")(*args, out=out, **kwargs)
    assert result is None
    assert out.numpy().tobytes() == want.tobytes()


@pytest.mark.parametrize("case", range(len(_samples())))
@_one_thread
def test_opcheck(case):
    op, args, kwargs = _samples()[case]
    # opcheck compares outputs with assert_close, for which NaN != NaN: no NaN inputs here
    # (the bit-for-bit tests above have them)
    args = tuple(torch.nan_to_num(a, nan=0.25, posinf=np.inf, neginf=-np.inf)
                 if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)
    torch.library.opcheck(op, args, kwargs)
    out = torch.empty_like(op(*args, **kwargs))
    kwargs = {k: v for k, v in kwargs.items() if k != "out_dtype"}  # out's dtype says it
    torch.library.opcheck(getattr(ops, _name(op) + "_out"), args, dict(kwargs, out=out))


def test_out_in_place_and_strided_input():
    x = _floats((6, 10))
    view = x[:, ::2]  # not contiguous
    want = simdops.clip(view.numpy(), -0.5, 0.5)
    assert ops.clip(view, -0.5, 0.5).numpy().tobytes() == want.tobytes()
    ops.clip_out(x, -0.5, 0.5, out=x)  # out is x: in place
    assert x[:, ::2].numpy().tobytes() == want.tobytes()


def test_negative_view_is_read_with_its_sign():
    x = _floats((2, 9))
    neg = torch.neg(x.clone())._neg_view() if hasattr(torch.Tensor, "_neg_view") else None
    if neg is None or not neg.is_neg():
        pytest.skip("this torch has no lazy negative views")
    want = simdops.clip(neg.resolve_neg().numpy(), -0.5, 0.5)
    assert ops.clip(neg, -0.5, 0.5).numpy().tobytes() == want.tobytes()


def test_errors_name_the_argument():
    meta = torch.empty(4, device="meta")
    # the kernel's own check (a meta tensor reaches the fake, not the kernel, through
    # the dispatcher; any other non-CPU device reaches this check)
    with pytest.raises(ValueError, match=r"^x is a tensor on meta; simdops runs on the CPU"):
        simdops.torch._array(meta, "x")
    with pytest.raises(TypeError, match=r"^x has dtype torch.bfloat16"):
        ops.clip(torch.ones(3, dtype=torch.bfloat16), 0.0, 1.0)
    with pytest.raises(TypeError, match=r"out_dtype must be torch.uint8, torch.int8 or "
                                        r"torch.int16, got torch.float32"):
        ops.requantize_fp32(_acc((2, 3)), torch.tensor(0.5), out_dtype=torch.float32)
    with pytest.raises(ValueError, match="shift"):  # simdops' own message
        ops.quantize_down_int32(_acc((2, 3)), torch.tensor(1 << 30, dtype=torch.int32),
                                torch.tensor(99, dtype=torch.int32))


def test_import_simdops_does_not_import_torch():
    code = "import sys, simdops, simdops.onnx, simdops.dml; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- compile and export: a quantized linear layer --------------------------------------

class QuantLinear(torch.nn.Module):
    """int8 x int8 -> int32 accumulators (torch._int_mm), requantized per channel by
    simdops to uint8, then clipped in place through the out= form."""

    def __init__(self, k=32, n=16, seed=3):
        super().__init__()
        rng = _rng(seed)
        self.register_buffer("w", torch.from_numpy(
            rng.integers(-127, 128, (k, n), dtype=np.int8)))
        self.register_buffer("bias", torch.from_numpy(
            rng.integers(-3000, 3000, n, dtype=np.int32)))
        self.register_buffer("scale", torch.from_numpy(
            rng.uniform(1e-4, 4e-3, n).astype(np.float32)))

    def forward(self, x):
        acc = torch._int_mm(x, self.w)
        y = ops.requantize_fp32(acc, self.scale, 128, bias=self.bias, out_dtype=torch.uint8)
        ops.clip_out(y, 10, 240, out=y)
        return y


def _layer_input(seed=4, m=32, k=32):
    return torch.from_numpy(_rng(seed).integers(-128, 128, (m, k), dtype=np.int8))


def _layer_reference(layer, x):
    acc = x.numpy().astype(np.int32) @ layer.w.numpy().astype(np.int32)
    y = simdops.requantize_fp32(acc, layer.scale.numpy(), 128, bias=layer.bias.numpy())
    return simdops.clip(y, 10, 240)


@pytest.fixture(scope="module")
def layer():
    return QuantLinear().eval()


def test_layer_eager_matches_the_array_api(layer):
    x = _layer_input()
    assert layer(x).numpy().tobytes() == _layer_reference(layer, x).tobytes()


@_one_thread
def test_compile_fullgraph_same_bits_as_eager(layer):
    torch._dynamo.reset()
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    for seed in (4, 5):
        x = _layer_input(seed)
        assert compiled(x).numpy().tobytes() == layer(x).numpy().tobytes()
    explained = torch._dynamo.explain(layer)(_layer_input())
    assert explained.graph_break_count == 0 and explained.graph_count == 1


@_one_thread
def test_compile_inductor_same_bits_as_eager():
    torch._dynamo.reset()

    def f(acc, scale):
        return ops.clip(ops.requantize_fp32(acc * 2, scale, -3, out_dtype=torch.int8), -100, 90)

    acc, scale = _acc((8, 5)), torch.linspace(0.001, 0.01, 5)
    compiled = torch.compile(f, fullgraph=True)  # inductor
    assert compiled(acc, scale).numpy().tobytes() == f(acc, scale).numpy().tobytes()


def test_every_op_takes_any_input_layout():
    # inductor's default constraint for an untagged custom op would pin its inputs to the
    # traced strides and spell its defaulted arguments as keywords in the generated call
    for name in simdops.torch.__all__:
        assert torch.Tag.flexible_layout in getattr(ops, name).default.tags, name


@_one_thread
def test_compile_inductor_strided_input_positional_call():
    torch._dynamo.reset()
    from torch._inductor.utils import run_and_get_code

    def f(x):   # a transposed view into each op, defaulted arguments left out
        return ops.clip(x.t(), -0.5, 0.75), ops.clip(x.t(), None, 0.25, scale=2.0, bias=0.5)

    x = _floats((6, 5))
    with torch._inductor.config.patch(fx_graph_cache=False):
        got, (code, *_) = run_and_get_code(torch.compile(f, fullgraph=True), x)
    want = (torch.from_numpy(simdops.clip(x.t().numpy(), -0.5, 0.75)),
            torch.from_numpy(simdops.clip(x.t().numpy(), None, 0.25, scale=2.0, bias=0.5)))
    assert all(_same_bits(g, w) for g, w in zip(got, want))
    calls = re.findall(r"torch\.ops\.simdops\.clip\.default\((.*)\)", code)
    assert len(calls) == 2 and not any("=None" in c for c in calls), calls


@_one_thread
def test_export_runs_with_the_same_bits(layer):
    x = _layer_input()
    exported = torch.export.export(layer, (x,))
    targets = {str(n.target) for n in exported.graph.nodes if n.op == "call_function"}
    assert "simdops.requantize_fp32.default" in targets, targets
    for seed in (4, 6):
        x = _layer_input(seed)
        assert exported.module()(x).numpy().tobytes() == layer(x).numpy().tobytes()


# ---- the plain array API under torch.compile: a graph break, not a crash ----------------

@_one_thread
def test_plain_simdops_call_graph_breaks_cleanly():
    torch._dynamo.reset()

    def f(t):
        return torch.from_numpy(simdops.clip(t * 2, -1.0, 1.0)) + 1

    t = _floats((4, 5))
    want = f(t)
    got = torch.compile(f, backend="eager")(t)
    assert got.numpy().tobytes() == want.numpy().tobytes()
    explained = torch._dynamo.explain(f)(t)
    assert explained.graph_break_count >= 1
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch.compile(f, backend="eager", fullgraph=True)(t)


TORCH_DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "docs", "torch.md")


@pytest.mark.skipif(not os.path.exists(TORCH_DOC), reason="docs/ is not beside tests/ here")
@_one_thread
def test_torch_doc_examples_run():
    """Every python block of docs/torch.md runs as printed (each asserts its claim)."""
    torch._dynamo.reset()
    blocks = re.findall(r"```python\n(.*?)```", open(TORCH_DOC, encoding="utf-8").read(), re.S)
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, TORCH_DOC, "exec"), {})


# ---- the eager fast path (simdops/torch.py, _register_fast_paths) ----------------------

def _same_bits(a, b):                      # the inputs hold NaNs: torch.equal says no
    return a.detach().numpy().tobytes() == b.detach().numpy().tobytes()


FUNCTIONAL = [n for n in simdops.torch.__all__ if not n.endswith("_out")]


def test_fast_path_registered_for_every_functional_op():
    for name in FUNCTIONAL:
        assert torch._C._dispatch_has_kernel_for_dispatch_key(f"simdops::{name}", "AutogradCPU")
    for name in simdops.torch.__all__:
        if name.endswith("_out"):   # custom_op's own path (ADInplaceOrView bumps out's version)
            assert not torch._C._dispatch_has_kernel_for_dispatch_key(
                f"simdops::{name}", "AutogradCPU")


def test_fast_path_keeps_custom_ops_autograd_semantics():
    x = _floats((3, 5))
    plain = ops.clip(x, -0.5, 0.5)
    assert plain.grad_fn is None and not plain.requires_grad
    leaf = x.clone().requires_grad_()
    y = ops.clip(leaf, -0.5, 0.5)                  # custom_op's kernel: a graph node
    assert y.requires_grad and y.grad_fn is not None
    assert _same_bits(y, plain)
    with pytest.raises(RuntimeError, match="no autograd formula"):
        y.sum().backward()
    with torch.no_grad():                          # no gradient asked for: the fast path
        z = ops.clip(leaf, -0.5, 0.5)
    assert not z.requires_grad and _same_bits(z, plain)


def test_out_op_bumps_the_version_of_out():
    x = _floats((4,))
    out = torch.empty(4)
    before = out._version
    ops.clip_out(x, -0.5, 0.5, out)
    assert out._version > before and _same_bits(out, ops.clip(x, -0.5, 0.5))


@_one_thread
def test_fast_path_leaves_fake_and_meta_tensors_to_the_fakes():
    meta = ops.clip(torch.empty(2, 3, device="meta"), -1.0, 1.0)
    assert meta.device.type == "meta" and meta.shape == (2, 3)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        fake = ops.requantize_fp32(torch.empty(2, 3, dtype=torch.int32), torch.tensor(0.5))
    assert fake.shape == (2, 3) and fake.dtype == torch.uint8
