"""PyTorch's x86 int8 path reproduced bit for bit: torchao's X86InductorQuantizer (PT2E),
torch.compile with inductor freezing, which lowers each quantized Linear to
onednn.qlinear_pointwise (u8 activations, s8 weights with per-channel float scales,
float32 bias, u8 or float32 output); simdops gives the same bits with
int8_matmul_accumulators then requantize_fp32(**runtimes.onednn_requant_params(...))
(u8 out) or runtimes.onednn_float_output (float out).

CI runs a sample: one compiled module (its generated code checked to call the oneDNN
op) and cheap calls of that op with the compiled code's arguments, on random layers,
layers with power-of-two scales (exact ties) and rows built next to ties with random
scales; and, in a subprocess with ONEDNN_MAX_CPU_ISA=AVX2, oneDNN's gemm kernel with the
int16 pair saturation of VPMADDUBSW. tools/torch_x86_sweep.py is the full sweep.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import simdops

torch = pytest.importorskip("torch", reason="torch is not installed: the PyTorch x86 proof "
                            "needs the CPU wheel (pip install torch==2.13.0)")
pytest.importorskip("torchao", reason="torchao is not installed: X86InductorQuantizer "
                    "comes from torchao's PT2E (pip install torchao)")
if not hasattr(torch.ops.onednn, "qlinear_pointwise"):
    pytest.skip("this torch build has no oneDNN quantized linear (onednn.qlinear_pointwise)",
                allow_module_level=True)

import runtime_models_torch_x86 as tx  # noqa: E402

# torch.compile, torch.export and set_num_threads are process-wide
pytestmark = pytest.mark.thread_unsafe


def differ(got, want):
    if got.dtype == np.float32:
        return int(np.count_nonzero(got.view(np.int32) != want.view(np.int32)))
    return int(np.count_nonzero(got != want))


KERNEL, PAIRS = tx.cpu_model()  # oneDNN's kernel here, and whether its pairs saturate


_COMPILED = {}


def compiled_run():
    if not _COMPILED:
        rng = np.random.default_rng(71)
        # one module (one compile), one shared input: two u8-output layers with
        # power-of-two scales (ties), two float-output layers with other weight scales
        layers = tx.random_group(rng, 2, False, tie=True)
        for layer in list(layers):
            sw = (layer.sw * np.float32(1.37)).astype(np.float32)
            layers.append(tx.TorchX86Layer(layer.xq, layer.zp, layer.sa, layer.w, sw,
                                           layer.bias, None, None))
        outs, code = tx.run_compiled(layers)
        _COMPILED["v"] = layers, outs, code
    return _COMPILED["v"]


def test_compiled_x86_inductor_is_onednn_and_simdops():
    layers, outs, code = compiled_run()
    assert code.count("torch.ops.onednn.qlinear_pointwise") >= len(layers)
    d = n = 0
    for layer, got in zip(layers, outs):
        assert got.dtype == (np.uint8 if layer.so is not None else np.float32)
        d += differ(got, tx.simdops_outputs(layer, PAIRS, KERNEL))
        # the op the compiled code calls, with its arguments: the same bits
        assert differ(got, tx.run_direct(layer)) == 0
        n += got.size
    assert n > 100 and d == 0, f"{d} of {n} outputs differ from simdops"


@pytest.mark.parametrize("float_out", [False, True], ids=["u8_out", "float_out"])
def test_onednn_qlinear_random_and_tie_layers(float_out):
    rng = np.random.default_rng(73 + float_out)
    d = nb = n = 0
    for g in range(12):
        for layer in tx.random_group(rng, 8, float_out, tie=bool(g % 2)):
            got = tx.run_direct(layer)
            d += differ(got, tx.simdops_outputs(layer, PAIRS, KERNEL))
            nb += differ(got, tx.neighbour_outputs(layer, PAIRS))
            n += got.size
    assert d == 0, f"{d} of {n} outputs differ from simdops"
    assert nb > 0  # the one-combined-scale formula is told apart by these layers


def test_onednn_qlinear_near_ties_zero_point_before_rounding():
    rng = np.random.default_rng(79)
    d = n = 0
    after = 0
    for _ in range(40):
        layer = tx.near_tie_layer(rng)
        got = tx.run_direct(layer)
        want = tx.simdops_outputs(layer, PAIRS, KERNEL)
        d += differ(got, want)
        n += got.size
        # the neighbour: the zero point added after rounding
        import simdops
        from simdops import runtimes
        acc = simdops.int8_matmul_accumulators(layer.xq, np.ascontiguousarray(layer.w.T),
                                               pair_saturation=PAIRS)
        acc = (acc.astype(np.int64) - layer.zp * layer.w.astype(np.int64).sum(1)).astype(
            np.int32)
        p = runtimes.onednn_requant_params(layer.sa, layer.sw, layer.so, layer.ozp,
                                           out_dtype="uint8", kernel=KERNEL)
        p.update(offset=0.0, zero_point=layer.ozp)
        if layer.bias is not None:
            p.update(bias=layer.bias, bias_at="scaled")
        after += differ(got, simdops.requantize_fp32(acc, **p))
    assert d == 0, f"{d} of {n} near-tie outputs differ from simdops"
    assert after > 0


def test_onednn_qconv_random_and_tie_layers():
    """Conv2d on the x86 path: inductor lowers it to onednn.qconv_pointwise (channels
    last); simdops: im2col rows through int8_matmul_accumulators, then the same calls."""
    if PAIRS:
        pytest.skip("this CPU's oneDNN convolution pairs products along input channels "
                    "padded per kernel position; the im2col rows here are not laid out so")
    rng = np.random.default_rng(97)
    d = n = 0
    for i in range(40):
        conv = tx.random_conv(rng, tie=bool(i % 2), float_out=bool(i % 4 >= 2))
        got = tx.run_conv_direct(conv)
        d += differ(got, tx.conv_simdops_outputs(conv, KERNEL))
        n += got.size
    assert n > 1000 and d == 0, f"{d} of {n} outputs differ from simdops"


_AVX2_SCRIPT = r"""
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import runtime_models_torch_x86 as tx
rng = np.random.default_rng(83)
counts = {"n": 0, "model": 0, "exact": 0, "brgemm": 0}
for g in range(8):
    for layer in tx.random_group(rng, 6, bool(g % 2), tie=bool(g % 4 == 1)):
        got = tx.run_direct(layer)
        counts["n"] += got.size
        for key, ps, kernel in (("model", True, "gemm"), ("exact", False, "gemm"),
                                ("brgemm", True, "brgemm")):
            want = tx.simdops_outputs(layer, ps, kernel)
            if got.dtype == np.float32:
                counts[key] += int(np.count_nonzero(got.view(np.int32) != want.view(np.int32)))
            else:
                counts[key] += int(np.count_nonzero(got != want))
for _ in range(12):
    layer = tx.near_tie_layer(rng)
    got = tx.run_direct(layer)
    counts["n"] += got.size
    counts["model"] += int(np.count_nonzero(got != tx.simdops_outputs(layer, True, "gemm")))
print(counts)
"""


def test_avx2_pair_saturation_and_gemm_kernel_subprocess():
    """ONEDNN_MAX_CPU_ISA=AVX2 (a process-wide setting read once: a subprocess): oneDNN
    runs gemm:jit, whose u8 x s8 products are summed in pairs saturated to int16
    (VPMADDUBSW) and whose scales are combined: simdops' pair_saturation=True with
    kernel="gemm" gives every bit; exact accumulators, or the brgemm chain, do not."""
    tests = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA="AVX2")
    # the simdops this process imported (in place or installed), as the other subprocess
    # tests do: a src/ tree without a build must not shadow the installed package
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(simdops.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    r = subprocess.run([sys.executable, "-c", _AVX2_SCRIPT, tests], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    counts = eval(r.stdout.strip().splitlines()[-1])  # a dict of ints printed above
    assert counts["n"] > 5000
    assert counts["model"] == 0, counts
    assert counts["exact"] > 0 and counts["brgemm"] > 0, counts


def _tie_layer():
    """acc = (25 - 128) * 8 = -824; -824 * 2^-6 * 2^-5 / 2^-7 = -51.5, output zp 115."""
    return tx.TorchX86Layer(np.full((3, 1), 25, np.uint8), 128, 2.0 ** -6,
                            np.full((1, 1), 8, np.int8), np.array([2.0 ** -5], np.float32),
                            None, 2.0 ** -7, 115)


def test_atlas_x86_inductor_vs_fbgemm_same_layer():
    """Atlas row 24, in both runtimes: PyTorch's x86 path (oneDNN) adds the output zero
    point before rounding (-51.5 + 115 = 63.5 -> 64), fbgemm after (-52 + 115 = 63)."""
    import simdops
    from simdops import runtimes

    if "fbgemm" not in torch.backends.quantized.supported_engines:
        pytest.skip("this torch build has no fbgemm quantized engine")
    layer = _tie_layer()
    assert (tx.run_direct(layer) == 64).all()
    acc = np.full((3, 1), -824, np.int32)
    p = runtimes.onednn_requant_params(2.0 ** -6, 2.0 ** -5, 2.0 ** -7, 115, out_dtype="uint8")
    assert (simdops.requantize_fp32(acc, **p) == 64).all()
    engine = torch.backends.quantized.engine
    torch.backends.quantized.engine = "fbgemm"
    try:
        qw = torch._make_per_tensor_quantized_tensor(torch.from_numpy(layer.w.copy()),
                                                     2.0 ** -5, 0)
        packed = torch.ops.quantized.linear_prepack(qw, None)
        qx = torch._make_per_tensor_quantized_tensor(torch.from_numpy(layer.xq), 2.0 ** -6, 128)
        y = torch.ops.quantized.linear(qx, packed, 2.0 ** -7, 115).int_repr().numpy()
    finally:
        torch.backends.quantized.engine = engine
    assert (y == 63).all()
    assert (simdops.requantize_fp32(acc, 2.0 ** -4, 115) == 63).all()  # fbgemm's family
