"""ExecuTorch's XNNPACK delegate reproduced bit for bit: quantized Linear layers
(XNNPACKQuantizer, symmetric config, per tensor and per channel, with and without bias)
exported with to_edge_transform_and_lower(partitioner=[XnnpackPartitioner()]) and run by
ExecuTorch's runtime pybindings; simdops gives every output with exact accumulators and
XNNPACK's fp32 family, requantize_fp32(acc, f32(f32(s_a * s_w[n]) / s_o), zp, bias=the
int32 bias the delegate quantizes at lowering). CI runs a sample (one program of 8
layers, per tensor and per channel); tools/executorch_sweep.py is the full sweep.
"""
import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed: the ExecuTorch proof needs the "
                    "CPU wheel (pip install torch==2.13.0)")
pytest.importorskip("torchao", reason="torchao is not installed (ExecuTorch's PT2E flow)")
try:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import (  # noqa: F401
        XnnpackPartitioner)
    from executorch.extension.pybindings import portable_lib  # noqa: F401
except ImportError as e:  # the package, or one of the dependencies its export needs
    pytest.skip(f"ExecuTorch's XNNPACK export or runtime is not importable: {e!r} (pip "
                "install executorch ruamel.yaml tabulate)", allow_module_level=True)

import runtime_models_executorch as em  # noqa: E402

pytestmark = pytest.mark.thread_unsafe  # torch.export and the program run are process-wide

_RUN = {}


def runs():
    if not _RUN:
        layers = em.layers(89, 8)
        assert {layer.per_channel for layer in layers} == {False, True}
        assert {layer.bias is None for layer in layers} == {False, True}
        _RUN["v"] = layers, em.run_executorch(layers)
    return _RUN["v"]


def test_executorch_xnnpack_linear_reproduced_by_simdops():
    layers, outputs = runs()
    d = n = 0
    for layer, got in zip(layers, outputs):
        d += int(np.count_nonzero(got != em.simdops_outputs(layer)))
        n += got.size
    assert n > 500 and d == 0, f"{d} of {n} outputs differ from simdops"


def test_executorch_xnnpack_is_not_the_chain_or_round_away():
    """The sample tells XNNPACK's fp32 family from its neighbours: rounding half away
    from zero, and a float bias added unrounded (fbgemm's) instead of the int32 one."""
    import simdops

    layers, outputs = runs()
    away = float_bias = 0
    for layer, got in zip(layers, outputs):
        acc = simdops.int8_matmul_accumulators(layer.xq, np.ascontiguousarray(layer.w.T))
        acc = (acc.astype(np.int64) - layer.zp * layer.w.astype(np.int64).sum(1)).astype(
            np.int32)
        scale = ((layer.sa * layer.sw).astype(np.float32) / layer.so).astype(np.float32)
        kw = {} if layer.bias is None else {"bias": em.int32_bias(layer)}
        y = simdops.requantize_fp32(acc, scale, layer.ozp, out_dtype="int8", ties="away", **kw)
        away += int(np.count_nonzero(got != y))
        if layer.bias is not None:
            fb = (layer.bias / (layer.sa * layer.sw).astype(np.float32)).astype(np.float32)
            y = simdops.requantize_fp32(acc, scale, layer.ozp, out_dtype="int8", bias=fb)
            float_bias += int(np.count_nonzero(got != y))
    assert away > 0 and float_bias > 0, (away, float_bias)
