"""ExecuTorch's XNNPACK delegate built for the proofs: random Linear layers quantized by
``XNNPACKQuantizer`` (symmetric config: int8 activations with a zero point, int8
weights symmetric per tensor or per channel, float bias), exported and lowered with
``to_edge_transform_and_lower(..., partitioner=[XnnpackPartitioner()])``, run by
ExecuTorch's runtime pybindings (``_load_for_executorch_from_buffer``).

As in runtime_models_torch_x86.py, the layer's own numbers replace the observers' after
convert_pt2e (input and output quantize / dequantize arguments, the frozen int8 weights
and their scales), so scales can be powers of two (exact ties). The program's output is
the dequantized int8 output ``f32(q - zp) * s_o``; q is recovered exactly (the map is
checked to round-trip bit for bit).

The delegate quantizes the float bias to int32 at lowering time (XNNPACK's node visitor:
``quantize_per_channel(bias, s_w * s_a, 0)``, torch's decomposed op: ``round(bias *
f32(1 / scale))`` in float32) and XNNPACK's qs8 fully connected requantizes with its
fp32 family: ``RNE(f32(acc + bias_q) * f32(f32(s_a * s_w[n]) / s_o)) + zp``.
"""
import numpy as np

from runtime_models_torch_x86 import float_linear

F = np.float32


class EtLayer:
    def __init__(self, xq, zp, sa, w, sw, bias, so, ozp, per_channel):
        self.xq, self.zp, self.sa = xq, int(zp), F(sa)
        self.w, self.sw, self.bias = w, np.asarray(sw, F), bias
        self.so, self.ozp, self.per_channel = F(so), int(ozp), per_channel

    @property
    def x(self):
        return ((self.xq.astype(np.int64) - self.zp) * np.float64(self.sa)).astype(F)


def random_layer(rng, tie=False, m=16):
    k = int(rng.integers(1, 80))
    n = int(rng.integers(1, 33))
    per_channel = bool(rng.integers(2))
    zp = int(rng.integers(-128, 128))
    w = rng.integers(-127, 128, (n, k)).astype(np.int8)
    if tie:
        sa = 2.0 ** -int(rng.integers(2, 7))
        sw = 2.0 ** -rng.integers(4, 9, n if per_channel else 1).astype(np.float64)
        so = sa * float(sw.min()) * 2.0 ** int(rng.integers(1, 7))
        xq = (zp + rng.integers(-12, 13, (m, k))).clip(-128, 127)
    else:
        sa = 2.0 ** rng.uniform(-7, -2)
        sw = 2.0 ** rng.uniform(-10, -5, n if per_channel else 1)
        so = float(np.float32(sa)) * float(sw.max()) * 2 ** rng.uniform(2, 7)
        xq = rng.integers(-128, 128, (m, k))
    sw = np.broadcast_to(np.asarray(sw, F), (n,)).copy()
    b = None
    if rng.integers(2):
        s = float(F(sa)) * sw.astype(np.float64)
        b = (rng.integers(-600, 601, n) * 0.5 * s if tie else
             rng.uniform(-1, 1, n) * 400 * s).astype(F)
    return EtLayer(xq.astype(np.int8), zp, sa, w, sw, b, F(so),
                   int(rng.integers(-128, 128)), per_channel)


def layers(seed, count):
    """count layers, one in three built next to ties."""
    rng = np.random.default_rng(seed)
    return [random_layer(rng, tie=(i % 3 == 1)) for i in range(count)]


def _module(layers):
    import torch

    class Layers(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ls = torch.nn.ModuleList()
            for layer in layers:
                self.ls.append(float_linear(layer))

        def forward(self, *xs):
            return tuple(lin(x) for lin, x in zip(self.ls, xs))

    return Layers().eval()


def _patch(gm, layers):
    """Write the layers' numbers over the observers' in the converted graph."""
    import torch

    qd = torch.ops.quantized_decomposed
    q_ops = (qd.quantize_per_tensor.default, qd.dequantize_per_tensor.default)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    linears = [n for n in gm.graph.nodes if n.target == torch.ops.aten.linear.default]
    assert len(linears) == len(layers) == len(placeholders)

    def set_qargs(node, s, zp):
        node.args = (node.args[0], float(s), int(zp)) + tuple(node.args[3:])

    for ph, lin, layer in zip(placeholders, linears, layers):
        q = [u for u in ph.users if u.target == q_ops[0]]
        assert len(q) == 1
        set_qargs(q[0], layer.sa, layer.zp)
        for dq in list(q[0].users):
            set_qargs(dq, layer.sa, layer.zp)
        outs = [u for u in lin.users if u.target == q_ops[0]]
        assert len(outs) == 1
        set_qargs(outs[0], layer.so, layer.ozp)
        for dq in list(outs[0].users):
            set_qargs(dq, layer.so, layer.ozp)
        dqw = lin.args[1]
        wq, scale, zero = dqw.args[:3]
        n = layer.w.shape[0]
        setattr(gm, wq.target, torch.from_numpy(layer.w.copy()))
        if dqw.target == qd.dequantize_per_channel.default:
            assert layer.per_channel  # the per-tensor config reached its module
            setattr(gm, scale.target, torch.from_numpy(layer.sw.copy()))
            setattr(gm, zero.target, torch.zeros(n, dtype=torch.int64))
        else:
            assert dqw.target == q_ops[1] and not layer.per_channel
            dqw.args = (dqw.args[0], float(layer.sw[0]), 0) + tuple(dqw.args[3:])
    gm.recompile()


def run_executorch(layers):
    """The layers in one program, each with its own input; a per-tensor layer gets the
    quantizer's per-tensor config by module name (set_module_name), the others the
    per-channel one. Returns the int8 outputs as int64 [M, N] per layer; asserts every
    op ran inside XNNPACK delegates."""
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from executorch.exir import to_edge_transform_and_lower
    from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    xs = tuple(torch.from_numpy(layer.x) for layer in layers)
    gm = torch.export.export(_module(layers), xs).module()
    quantizer = XNNPACKQuantizer()
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    for i, layer in enumerate(layers):
        if not layer.per_channel:
            quantizer.set_module_name(f"ls.{i}",
                                      get_symmetric_quantization_config(is_per_channel=False))
    prepared = prepare_pt2e(gm, quantizer)
    prepared(*xs)
    converted = convert_pt2e(prepared)
    _patch(converted, layers)
    lowered = to_edge_transform_and_lower(torch.export.export(converted, xs),
                                          partitioner=[XnnpackPartitioner()])
    program = lowered.to_executorch()
    graph = program.exported_program().graph
    calls = sum(1 for n in graph.nodes if "executorch_call_delegate" in str(n.target))
    others = [str(n.target) for n in graph.nodes if n.op == "call_function"
              and "executorch_call_delegate" not in str(n.target)
              and "getitem" not in str(n.target)]
    assert calls >= 1 and not others, others  # everything ran in XNNPACK
    module = _load_for_executorch_from_buffer(program.buffer)
    ys = module.forward(xs)
    return [_int8_of(y.numpy(), layer) for layer, y in zip(layers, ys)]


def _int8_of(y, layer):
    """q from the dequantized output f32(q - zp) * s_o, checked to round-trip."""
    q = np.rint(y.astype(np.float64) / float(layer.so)).astype(np.int64) + layer.ozp
    back = ((q - layer.ozp).astype(F) * layer.so).astype(F)
    assert np.array_equal(back.view(np.int32), y.view(np.int32)), "not an int8 grid value"
    assert ((q >= -128) & (q <= 127)).all()
    return q


def int32_bias(layer):
    """The bias as the delegate quantizes it at lowering: round(bias * f32(1 / f32(s_w *
    s_a))) in float32, per channel (torch's decomposed quantize_per_channel)."""
    s = (layer.sw * layer.sa).astype(F)
    inv = (F(1) / s).astype(F)
    return np.rint((layer.bias * inv).astype(F)).astype(np.int32)


def simdops_outputs(layer):
    """simdops: exact accumulators (int8 x int8, the input zero point compensated in
    int32), then XNNPACK's fp32 family, requantize_fp32 with the int32 bias and the
    scale f32(f32(s_a * s_w[n]) / s_o)."""
    import simdops

    acc = simdops.int8_matmul_accumulators(layer.xq, np.ascontiguousarray(layer.w.T))
    acc = (acc.astype(np.int64) - layer.zp * layer.w.astype(np.int64).sum(1)).astype(np.int32)
    scale = ((layer.sa * layer.sw).astype(F) / layer.so).astype(F)
    kw = {} if layer.bias is None else {"bias": int32_bias(layer)}
    return simdops.requantize_fp32(acc, scale if layer.per_channel else float(scale[0]),
                                   layer.ozp, out_dtype="int8", **kw).astype(np.int64)
