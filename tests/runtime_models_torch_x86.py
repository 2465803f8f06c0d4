"""PyTorch's x86 int8 path built for the proofs: random Linear layers quantized by
torchao's ``X86InductorQuantizer`` (PT2E: export, prepare_pt2e, calibrate, convert_pt2e)
and compiled by inductor with freezing, which lowers each dequantize -> linear
[-> quantize] to ``torch.ops.onednn.qlinear_pointwise`` (u8 activations, s8 weights with
per-channel float scales, a float32 bias, u8 or float32 output).

The quantizer's observers choose scales from calibration data; a proof wants to choose
them itself (power-of-two scales put many outputs on exact ties). So after convert_pt2e
the graph's numbers are replaced by the layer's: the input's quantize / dequantize
arguments (s_a, zp), the frozen int8 weights and their per-channel scales. The int8
output is a ``quantized_decomposed.quantize_per_tensor`` written after the linear in
the model (what convert_pt2e writes when the next op is quantized); inductor fuses it.

Compiling is slow (tens of seconds per module on a loaded 2-core machine), so a module
holds many layers sharing one input (one quantize kernel); ``run_direct`` calls the same
oneDNN op with the same arguments layer by layer (qlinear_prepack, qlinear_pointwise),
which the compiled proof shows gives the compiled bits, for cheap sweeps.
"""
import numpy as np

F = np.float32


class TorchX86Layer:
    """xq uint8 [M, K] on the activation grid (x = sa * (xq - zp) exactly as float32),
    w int8 [N, K], sw float32 [N] (per-channel; all equal for a per-tensor layer), bias
    float32 [N] or None, and the output: so / ozp (uint8) or None (float32 output)."""

    def __init__(self, xq, zp, sa, w, sw, bias, so, ozp):
        self.xq, self.zp, self.sa = xq, int(zp), F(sa)
        self.w, self.sw, self.bias = w, np.asarray(sw, F), bias
        self.so = None if so is None else F(so)
        self.ozp = ozp

    @property
    def x(self):
        return ((self.xq.astype(np.int64) - self.zp) * np.float64(self.sa)).astype(F)


def random_layer(rng, k, m, zp, sa, tie, float_out, bias=None):
    """A layer with input width k, m rows, the shared input grid (zp, sa)."""
    n = int(rng.integers(1, 33))
    per_channel = bool(rng.integers(2))
    bias = bool(rng.integers(2)) if bias is None else bias
    w = rng.integers(-128, 128, (n, k)).astype(np.int8)
    if tie:
        sw = 2.0 ** -rng.integers(4, 9, n if per_channel else 1).astype(np.float64)
        so = sa * float(sw.min()) * 2.0 ** int(rng.integers(1, 7))
    else:
        sw = 2.0 ** rng.uniform(-10, -5, n if per_channel else 1)
        so = float(sa) * float(sw.max()) * 2 ** rng.uniform(2, 9)
    sw = np.broadcast_to(np.asarray(sw, F), (n,)).copy()
    b = None
    if bias:
        s = float(sa) * sw.astype(np.float64)
        b = (rng.integers(-600, 601, n) * 0.5 * s if tie else
             rng.uniform(-1, 1, n) * 400 * s).astype(F)
    if float_out:
        so, ozp = None, None
    else:
        so, ozp = F(so), int(rng.integers(0, 256))
    return w, sw, b, so, ozp, n


def random_group(rng, count, float_out, m=16, tie=None):
    """count layers sharing one input (K, grid); tie: power-of-two scales (default:
    one group in three, chosen by rng)."""
    tie = bool(rng.integers(3) == 0) if tie is None else tie
    k = int(rng.integers(1, 80))
    zp = int(rng.integers(0, 256))
    if tie:
        sa = F(2.0 ** -int(rng.integers(2, 7)))
        xq = (zp + rng.integers(-12, 13, (m, k))).clip(0, 255)
    else:
        sa = F(2.0 ** rng.uniform(-7, -2))
        xq = rng.integers(0, 256, (m, k))
    xq = xq.astype(np.uint8)
    layers = []
    for _ in range(count):
        w, sw, b, so, ozp, _ = random_layer(rng, k, m, zp, sa, tie, float_out)
        layers.append(TorchX86Layer(xq, zp, sa, w, sw, b, so, ozp))
    return layers


def float_linear(layer):
    """The float torch Linear a quantizer starts from: the layer's int8 weights times their
    per-channel scales, and its float32 bias (the torch x86 and ExecuTorch models share it)."""
    import torch

    n, k = layer.w.shape
    lin = torch.nn.Linear(k, n, bias=layer.bias is not None)
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(layer.w.astype(F) * layer.sw[:, None]))
        if layer.bias is not None:
            lin.bias.copy_(torch.from_numpy(layer.bias))
    return lin


def _module(layers):
    import torch

    qd = torch.ops.quantized_decomposed

    class Layers(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ls = torch.nn.ModuleList()
            for layer in layers:
                self.ls.append(float_linear(layer))
            self.outq = [None if lay.so is None else (float(lay.so), lay.ozp) for lay in layers]

        def forward(self, x):
            ys = []
            for lin, q in zip(self.ls, self.outq):
                y = lin(x)
                if q is not None:
                    y = qd.quantize_per_tensor.default(y, q[0], q[1], 0, 255, torch.uint8)
                ys.append(y)
            return tuple(ys)

    return Layers().eval()


def quantize_x86(layers):
    """export -> X86InductorQuantizer -> prepare_pt2e -> calibrate -> convert_pt2e, then
    the layers' own numbers written into the converted graph. Layers share one input."""
    import torch
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
        X86InductorQuantizer, get_default_x86_inductor_quantization_config)

    qd = torch.ops.quantized_decomposed
    x = torch.from_numpy(layers[0].x)
    exported = torch.export.export(_module(layers), (x,)).module()
    quantizer = X86InductorQuantizer()
    quantizer.set_global(get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(exported, quantizer)
    prepared(x)
    gm = convert_pt2e(prepared)
    first = layers[0]
    act = 0
    linears = []
    for node in gm.graph.nodes:
        is_q = (node.target == qd.quantize_per_tensor.default
                and node.args[0].op == "placeholder")
        is_dq = (node.target == qd.dequantize_per_tensor.default
                 and node.args[0].target == qd.quantize_per_tensor.default
                 and node.args[0].args[0].op == "placeholder")
        if is_q or is_dq:
            node.args = (node.args[0], float(first.sa), first.zp) + tuple(node.args[3:])
            act += 1
        if node.target == torch.ops.aten.linear.default:
            linears.append(node)
    assert act >= 2 and len(linears) == len(layers), (act, len(linears))
    for node, layer in zip(linears, layers):
        dq = node.args[1]
        assert dq.target == qd.dequantize_per_channel.default, dq.target
        wq, scale, zero = dq.args[:3]
        setattr(gm, wq.target, torch.from_numpy(layer.w.copy()))
        setattr(gm, scale.target, torch.from_numpy(layer.sw.copy()))
        setattr(gm, zero.target, torch.zeros(layer.w.shape[0], dtype=torch.int64))
    gm.recompile()
    return gm


def run_compiled(layers):
    """The layers (one shared input) through quantize_x86 and torch.compile with
    inductor freezing, one thread. Returns (outputs as numpy, the generated code)."""
    import torch
    from torch._inductor import config
    from torch._inductor.utils import run_and_get_code

    gm = quantize_x86(layers)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with config.patch(freezing=True), torch.no_grad():
            torch._dynamo.reset()
            compiled = torch.compile(gm)
            ys, code = run_and_get_code(compiled, torch.from_numpy(layers[0].x))
    finally:
        torch.set_num_threads(threads)
    return [y.numpy() for y in ys], "\n".join(code)


def run_direct(layer):
    """One layer through the op the compiled code calls, with its arguments:
    onednn.qlinear_prepack of the int8 weight, onednn.qlinear_pointwise.tensor."""
    import torch

    n = layer.w.shape[0]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad():
            xq = torch.from_numpy(layer.xq)
            packed = torch.ops.onednn.qlinear_prepack(torch.from_numpy(layer.w.copy()),
                                                      list(xq.shape))
            y = torch.ops.onednn.qlinear_pointwise.tensor(
                xq, torch.tensor(float(layer.sa)), torch.tensor(layer.zp, dtype=torch.int32),
                packed, torch.from_numpy(layer.sw.copy()), torch.zeros(n, dtype=torch.int32),
                None if layer.bias is None else torch.from_numpy(layer.bias),
                1.0 if layer.so is None else float(layer.so),
                0 if layer.so is None else layer.ozp,
                torch.float32 if layer.so is None else torch.uint8, "none", [None], "")
    finally:
        torch.set_num_threads(threads)
    return y.numpy()


def simdops_outputs(layer, pair_saturation=False, kernel="brgemm"):
    """The layer's output from simdops: the accumulators (int8_matmul_accumulators, the
    input zero point's compensation in int32), then requantize_fp32 with
    runtimes.onednn_requant_params (u8 output; a bias added after the scales) or
    runtimes.onednn_float_output (float32 output)."""
    import simdops
    from simdops import runtimes

    w_kn = np.ascontiguousarray(layer.w.T)
    acc = simdops.int8_matmul_accumulators(layer.xq, w_kn, pair_saturation=pair_saturation)
    acc = (acc.astype(np.int64) - layer.zp * layer.w.astype(np.int64).sum(1)).astype(np.int32)
    if layer.so is None:
        return runtimes.onednn_float_output(acc, layer.sa, layer.sw, layer.bias, kernel=kernel)
    params = runtimes.onednn_requant_params(layer.sa, layer.sw, layer.so, layer.ozp,
                                            out_dtype="uint8", kernel=kernel)
    if layer.bias is not None:
        params.update(bias=layer.bias, bias_at="scaled")
    return simdops.requantize_fp32(acc, **params)


def neighbour_outputs(layer, pair_saturation=False):
    """The formula a user would write first: one combined float32 scale
    f32(f32(sa * sw[n]) / so) for the u8 output (bias divided into it), one combined
    f32(sa * sw[n]) for the float32 output; the proofs show the runtime is not it."""
    import simdops

    w_kn = np.ascontiguousarray(layer.w.T)
    acc = simdops.int8_matmul_accumulators(layer.xq, w_kn, pair_saturation=pair_saturation)
    acc = (acc.astype(np.int64) - layer.zp * layer.w.astype(np.int64).sum(1)).astype(np.int32)
    s = (layer.sa * layer.sw).astype(F)
    if layer.so is None:
        v = (acc.astype(F) * s).astype(F)
        return v if layer.bias is None else (v + layer.bias).astype(F)
    kw = {}
    if layer.bias is not None:
        kw = {"bias": (layer.bias / s).astype(F)}
    return simdops.requantize_fp32(acc, (s / layer.so).astype(F), layer.ozp,
                                   out_dtype="uint8", **kw)


def near_tie_layer(rng, rows_per_channel=8, bias=None):
    """A u8-output layer with random (not power-of-two) scales whose rows are built so
    that each channel's requantized value lands next to a rounding tie: K = 2, every
    weight row (1, 127), so acc = d0 + 127 * d1 reaches any integer in range (d = xq -
    zp); for each channel the accumulators whose f32(f32(f32(acc * sa) * sw) [+ bias])
    * f32(1 / so) + zp lies within 2**-12 of a half are searched, and rows giving them
    built (each row targets one channel). Where no accumulator is that close, the
    closest ones are taken."""
    n = int(rng.integers(1, 9))
    zp = int(rng.integers(64, 192))
    sa = F(2.0 ** rng.uniform(-7, -2))
    sw = np.asarray(2.0 ** rng.uniform(-10, -5, n), F)
    so = F(float(sa) * float(sw.max()) * 2 ** rng.uniform(2, 7))
    ozp = int(rng.integers(0, 256))
    bias = bool(rng.integers(2)) if bias is None else bias
    b = (rng.uniform(-1, 1, n) * 400 * float(sa) * sw).astype(F) if bias else None
    w = np.tile(np.array([[1, 127]], np.int8), (n, 1))
    lo, hi = -zp, 255 - zp
    acc = np.arange(lo + 127 * lo, hi + 127 * hi + 1, dtype=np.int64)
    inv = F(1) / so
    rows = []
    for c in range(n):
        v = ((acc.astype(F) * sa).astype(F) * sw[c]).astype(F)
        if b is not None:
            v = (v + b[c]).astype(F)
        v = ((v * inv).astype(F) + F(ozp)).astype(F)
        ok = (v > -0.5) & (v < 255.5)
        dist = np.where(ok, np.abs(v - np.floor(v) - F(0.5)), np.inf)
        for a in acc[np.argsort(dist, kind="stable")[:rows_per_channel]]:
            d1 = int(np.clip(np.rint(a / 127), lo, hi))
            d0 = int(a - 127 * d1)
            if not lo <= d0 <= hi:
                d1 += 1 if d0 > hi else -1
                d0 = int(a - 127 * d1)
            rows.append((d0 + zp, d1 + zp))
    xq = np.asarray(rows, np.int64)
    assert ((xq >= 0) & (xq <= 255)).all()
    return TorchX86Layer(xq.astype(np.uint8), zp, sa, w, sw, b, so, ozp)


class TorchX86Conv:
    """A 2-D convolution (stride 1, no padding, one group) of PyTorch's x86 int8 path:
    xq uint8 [1, C, H, W] (NCHW values, run channels-last as inductor does), w int8
    [O, C, kh, kw], per-channel sw, optional float32 bias, u8 (so, ozp) or float out."""

    def __init__(self, xq, zp, sa, w, sw, bias, so, ozp):
        self.xq, self.zp, self.sa = xq, int(zp), F(sa)
        self.w, self.sw, self.bias = w, np.asarray(sw, F), bias
        self.so = None if so is None else F(so)
        self.ozp = ozp


def random_conv(rng, tie, float_out):
    c, o, k = int(rng.integers(1, 9)), int(rng.integers(1, 17)), int(rng.choice([1, 3]))
    h, w = int(rng.integers(k, 8)), int(rng.integers(k, 8))
    zp = int(rng.integers(0, 256))
    if tie:
        sa = F(2.0 ** -int(rng.integers(2, 7)))
        sw = (2.0 ** -rng.integers(4, 9, o)).astype(F)
        so = F(sa * float(sw.min()) * 2.0 ** int(rng.integers(1, 7)))
        xq = (zp + rng.integers(-12, 13, (1, c, h, w))).clip(0, 255)
    else:
        sa = F(2.0 ** rng.uniform(-7, -2))
        sw = (2.0 ** rng.uniform(-10, -5, o)).astype(F)
        so = F(float(sa) * float(sw.max()) * 2 ** rng.uniform(2, 9))
        xq = rng.integers(0, 256, (1, c, h, w))
    wq = rng.integers(-128, 128, (o, c, k, k)).astype(np.int8)
    bias = None
    if rng.integers(2):
        bias = (rng.integers(-600, 601, o) * 0.5 * float(sa) * sw.astype(np.float64)).astype(F)
    so, ozp = (None, None) if float_out else (so, int(rng.integers(0, 256)))
    return TorchX86Conv(xq.astype(np.uint8), zp, sa, wq, sw, bias, so, ozp)


def run_conv_direct(conv):
    """The op inductor lowers a quantized Conv2d to (its generated code calls
    onednn.qconv_pointwise.tensor): onednn.qconv_prepack, then that op on the
    channels-last u8 input. Returns [OH * OW, O]."""
    import torch

    o = conv.w.shape[0]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad():
            qx = torch.from_numpy(conv.xq).contiguous(memory_format=torch.channels_last)
            one = [1, 1]
            packed = torch.ops.onednn.qconv_prepack(
                torch.from_numpy(conv.w.copy()), torch.from_numpy(conv.sw.copy()),
                float(conv.sa), conv.zp, one, [0, 0], one, 1, list(qx.shape))
            y = torch.ops.onednn.qconv_pointwise.tensor(  # the overload compiled code calls
                qx, torch.tensor(float(conv.sa)), torch.tensor(conv.zp, dtype=torch.int32),
                packed, torch.from_numpy(conv.sw.copy()),
                torch.zeros(o, dtype=torch.int32),
                None if conv.bias is None else torch.from_numpy(conv.bias), one, [0, 0], one,
                1, 1.0 if conv.so is None else float(conv.so),
                0 if conv.so is None else conv.ozp,
                torch.float32 if conv.so is None else torch.uint8, "none", [], None)
    finally:
        torch.set_num_threads(threads)
    return np.moveaxis(y.numpy()[0], 0, -1).reshape(-1, o)


def conv_simdops_outputs(conv, kernel="brgemm"):
    """im2col rows (the exact accumulators do not depend on their order), then the
    matmul's calls."""
    import simdops
    from simdops import runtimes

    _, _, h, w = conv.xq.shape
    o, _, kh, kw = conv.w.shape
    cols = np.stack([conv.xq[0, :, i:i + kh, j:j + kw].reshape(-1)
                     for i in range(h - kh + 1) for j in range(w - kw + 1)])
    wm = conv.w.reshape(o, -1)
    acc = simdops.int8_matmul_accumulators(cols, np.ascontiguousarray(wm.T))
    acc = acc - np.int32(conv.zp) * wm.sum(1, dtype=np.int32)
    if conv.so is None:
        return runtimes.onednn_float_output(acc, conv.sa, conv.sw, conv.bias, kernel=kernel)
    p = runtimes.onednn_requant_params(conv.sa, conv.sw, conv.so, conv.ozp, out_dtype="uint8",
                                       kernel=kernel)
    if conv.bias is not None:
        p.update(bias=conv.bias, bias_at="scaled")
    return simdops.requantize_fp32(acc, **p)


def cpu_model():
    """(kernel, pair_saturation) of oneDNN's int8 matmul on this CPU, as measured under
    ONEDNN_MAX_CPU_ISA: AVX-512 CPUs run brgemm, AVX2 ones (AVX-VNNI included) the gemm
    kernel; only brgemm with AVX-512 VNNI sums u8 x s8 products exactly."""
    import os

    import torch

    kernel = "brgemm" if torch.backends.cpu.get_cpu_capability().startswith("AVX512") else "gemm"
    flags = ""
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = f.read()
    return kernel, kernel == "gemm" or "avx512_vnni" not in flags
