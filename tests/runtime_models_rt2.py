"""Shared helpers of the second round of runtime proofs (OpenVINO, PyTorch's x86 int8
path, fbgemm with a float bias, ExecuTorch): random int8 layers whose activations lie on
their quantization grid (so the int32 accumulators are known exactly), and the same layer
built for each runtime. Each builder imports its runtime lazily; the test files skip, with
the reason, only when the package is missing.

RUNTIME_LAYERS (env) scales the sweeps as in tests/runtime_models.py (default 1000 layers
there; here the OpenVINO sweep compiles one model per 100 layers, so its default is 120;
OPENVINO_LAYERS sets it alone).
"""
import os

import numpy as np

LAYERS = int(os.environ.get("RUNTIME_LAYERS", "1000"))
# OpenVINO: 120 layers by default (a few seconds of CI); OPENVINO_LAYERS=2500 for a sweep
OV_LAYERS = int(os.environ.get("OPENVINO_LAYERS", "0")) or max(1, LAYERS * 3 // 25)


class FcLayer:
    """An int8 fully connected layer with float32 quantization parameters as OpenVINO's
    low-precision transformations see them: activations xq (uint8 values in [0, 255] when
    lo = 0, int8 values when lo = -128) with scale sa and zero point zp, int8 weights
    w [N, K] with scales sw [N] (equal for a per-tensor layer), an optional float32
    bias [N], and the output FakeQuantize range [il, ih] onto [-128, 127] (256 levels)."""

    def __init__(self, xq, lo, zp, sa, w, sw, bias, il, ih, per_channel):
        self.xq, self.lo, self.zp, self.sa = xq, lo, zp, np.float32(sa)
        self.w, self.sw, self.bias = w, sw.astype(np.float32), bias
        self.il, self.ih, self.per_channel = np.float32(il), np.float32(ih), per_channel

    @property
    def x(self):
        """The float32 activations, exactly sa * (xq - zp)."""
        return ((self.xq - self.zp) * np.float64(self.sa)).astype(np.float32)

    def accumulators(self, pair_saturation=False):
        """int64 [M, N]: sum_k (xq - zp) * w, exactly, or with VPMADDUBSW's pairs (the
        uint8 operand is xq for lo = 0, xq + 128 for lo = -128), numpy only."""
        w = self.w.astype(np.int64)
        if not pair_saturation:
            return self.xq.astype(np.int64) @ w.T - self.zp * w.sum(1)
        off = 128 if self.lo < 0 else 0
        k = self.xq.shape[1]
        a = np.zeros((self.xq.shape[0], k + (k & 1)), np.int64)
        a[:, :k] = self.xq + off
        wp = np.zeros((w.shape[0], k + (k & 1)), np.int64)
        wp[:, :k] = w
        pairs = a[:, None, 0::2] * wp[None, :, 0::2] + a[:, None, 1::2] * wp[None, :, 1::2]
        return np.clip(pairs, -32768, 32767).sum(-1) - (self.zp + off) * w.sum(1)


def random_fc_layer(rng, tie=False, bias=None, per_channel=None, rows=16, zero_point=None):
    """A random layer; tie: power-of-two scales and a FakeQuantize range whose
    multiplier is a power of two and whose shift an integer, so exact halves are common."""
    k = int(rng.integers(1, 70))
    n = int(rng.integers(1, 17))
    per_channel = bool(rng.integers(2)) if per_channel is None else per_channel
    bias = bool(rng.integers(2)) if bias is None else bias
    lo = 0 if rng.integers(2) else -128
    zp = int(rng.integers(lo, lo + 256))
    xq = rng.integers(lo, lo + 256, (rows, k))
    w = rng.integers(-127, 128, (n, k)).astype(np.int8)
    if tie:
        k = int(rng.integers(1, 4))
        xq = xq[:, :k]
        w = w[:, :k]
        if w.shape[1] < k:  # the layer was narrower than k: more weights
            w = np.concatenate([w, rng.integers(-127, 128, (n, k - w.shape[1])).astype(np.int8)],
                               1)
        zp = int(np.clip(zp, lo + 8, lo + 247))
        xq = (zp + rng.integers(-8, 9, (rows, k))).clip(lo, lo + 255)
        sa = 2.0 ** -int(rng.integers(3, 8))
        sw = 2.0 ** -rng.integers(3, 8, n if per_channel else 1).astype(np.float64)
        j = int(rng.integers(1, 6))  # the multiplier 2**-j of the smallest scale
        step = sa * float(sw.min()) * 2.0 ** j  # the output quantum
        il = -step * int(rng.integers(60, 196))
        ih = il + 255 * step
    else:
        sa = 2.0 ** rng.uniform(-8, -3)
        sw = 2.0 ** rng.uniform(-9, -5, n if per_channel else 1)
        span = float(np.float32(sa)) * float(sw.max()) * 2 ** rng.uniform(6, 11) * 255
        il = -span * rng.uniform(0.2, 0.8)
        ih = il + span
    sw = np.broadcast_to(np.asarray(sw, np.float32), (n,)).copy()
    b = None
    if bias:
        scale = float(np.float32(sa)) * sw.astype(np.float64)
        b = (rng.integers(-300, 301, n) * scale if tie else
             rng.uniform(-1, 1, n) * (ih - il) * 0.1).astype(np.float32)
    if zero_point is not None:  # the activations' zero point given: the grid moves with it
        xq = np.clip(np.asarray(xq, np.int64) - zp + zero_point, lo, lo + 255)
        zp = zero_point
    return FcLayer(np.asarray(xq, np.int64), lo, zp, sa, w, sw, b, il, ih, per_channel)


def near_tie_layers(seed, count, zero_point=0, bias=False, rows=64):
    """count one-input-pair layers (K = 2, w[n] = [127, 1], so the accumulators cover
    every integer of a 32K range) whose rows are the activations that bring channel 0's
    FakeQuantize input nearest to a rounding tie: they tell apart formulas that differ
    by one float32 rounding. Alternately per tensor and per channel; uint8 activations
    with the given zero point (None: random; "float": random, between two integers); bias: a float bias per channel ("equal": one
    value for every channel)."""
    rng = np.random.default_rng(seed)
    layers = []
    a1, a2 = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    grid = np.stack([a1.ravel(), a2.ravel()], 1)
    for i in range(count):
        per_channel = bool(i % 2)
        n = int(rng.integers(1, 9))
        zp = int(rng.integers(0, 256)) if zero_point in (None, "float") else zero_point
        if zero_point == "float":  # between the levels: OpenVINO's zero point not an integer
            zp = float(np.clip(zp, 8, 247) + rng.uniform(0.1, 0.9))
        sa = np.float32(2.0 ** rng.uniform(-8, -3))
        sw = np.broadcast_to((2.0 ** rng.uniform(-9, -5, n if per_channel else 1)).astype(
            np.float32), (n,)).copy()
        span = float(sa) * float(sw.max()) * 2 ** rng.uniform(6, 11) * 255
        il = np.float32(-span * rng.uniform(0.2, 0.8))
        ih = np.float32(il + span)
        b = (rng.uniform(-1, 1, n) * (ih - il) * 0.1).astype(np.float32) if bias else None
        til, tih = il, ih  # the ranges the ties are computed from
        if bias == "equal":  # one value for every channel (OpenVINO folds it into the ranges)
            b = np.full(n, b[0], np.float32)
            til, tih = np.float32(il - b[0]), np.float32(ih - b[0])
        w = np.tile(np.array([[127, 1]], np.int8), (n, 1))
        acc = (grid[:, 0] - zp) * 127 + (grid[:, 1] - zp)
        s = np.float32(sa * sw[0])
        ilp, ihp = np.float32(til / s), np.float32(tih / s)
        m = np.float32(np.float32(255) / np.float32(ihp - ilp))
        v = acc.astype(np.float32) * m + np.float32(np.float32(-ilp * np.float32(255)) /
                                                    np.float32(ihp - ilp))
        if b is not None and bias != "equal":  # the bias moves the ties: folded into the
            # FakeQuantize's shift (scale isc * S, shift ish + bias * isc)
            isc = np.float32(np.float32(255) / np.float32(ih - il))
            ish = np.float32(np.float32(-il * np.float32(255)) / np.float32(ih - il))
            v = (acc.astype(np.float32) * np.float32(isc * s)).astype(np.float32) + \
                np.float32(ish + np.float32(b[0] * isc))
        dist = np.abs(v - np.floor(v) - 0.5) + 10 * ((v < 0.5) | (v > 254.5))
        pick = np.argsort(dist, kind="stable")[:rows]
        layers.append(FcLayer(grid[pick].astype(np.int64), 0, zp, sa, w, sw, b, il, ih,
                              per_channel))
    return layers


def fc_layers(seed, count, **kw):
    """count layers, one in four built next to ties."""
    rng = np.random.default_rng(seed)
    return [random_fc_layer(rng, tie=(i % 4 == 1), **kw) for i in range(count)]


# ------------------------------------------------------------------------------ OpenVINO

def _ov_const(v):
    import openvino.opset13 as ops
    return ops.constant(np.asarray(v, np.float32))


def _ov_fc(layer, n, conv=False):
    """One layer: FakeQuantize (the activations' grid, 256 levels) -> MatMul with
    dequantized int8 weights (Convert, Multiply by sw per output channel) [-> Add bias]
    -> FakeQuantize onto [-128, 127]. conv: the same sums as a 1x1 Convolution over
    [1, K, M, 1]. The low-precision transformations turn it into an int8 FullyConnected
    / Convolution with the output FakeQuantize fused."""
    import openvino.opset13 as ops

    x = layer.x
    shape = [1, x.shape[1], x.shape[0], 1] if conv else list(x.shape)
    p = ops.parameter(shape, np.float32, name=f"x{n}")
    lo_v = layer.sa * np.float32(layer.lo - layer.zp)
    hi_v = layer.sa * np.float32(layer.lo + 255 - layer.zp)
    fq = ops.fake_quantize(p, _ov_const(lo_v), _ov_const(hi_v), _ov_const(lo_v),
                           _ov_const(hi_v), 256)
    wshape = (-1, 1, 1, 1) if conv else (-1, 1)
    w = layer.w.reshape(layer.w.shape + ((1, 1) if conv else ()))
    wd = ops.multiply(ops.convert(ops.constant(w), np.float32),
                      _ov_const(layer.sw.reshape(wshape)))
    if conv:
        y = ops.convolution(fq, wd, [1, 1], [0, 0], [0, 0], [1, 1])
    else:
        y = ops.matmul(fq, wd, False, True)
    if layer.bias is not None:
        y = ops.add(y, _ov_const(layer.bias.reshape((1, -1, 1, 1) if conv else (1, -1))))
    out = ops.fake_quantize(y, _ov_const(layer.il), _ov_const(layer.ih), _ov_const(-128),
                            _ov_const(127), 256)
    return p, out


def _ov_compile(model):
    import openvino as ov

    return ov.Core().compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": 1,
                                                  "INFERENCE_PRECISION_HINT": "f32"})


def ov_kernels(compiled, layer_type):
    """{primitive type: count} of the executed graph's nodes of one layer type
    ("FullyConnected", "Convolution", "FakeQuantize"...), and their runtime precisions."""
    kinds = {}
    for op in compiled.get_runtime_model().get_ops():
        rt = op.get_rt_info()
        if rt["layerType"].astype(str) == layer_type:
            key = (rt["primitiveType"].astype(str), rt["runtimePrecision"].astype(str))
            kinds[key] = kinds.get(key, 0) + 1
    return kinds


def run_openvino_fc(layers, conv=False, chunk=100):
    """Run the layers (one model of `chunk` layers at a time) on OpenVINO's CPU plugin,
    one thread, f32 inference precision. Returns (outputs as int64 [M, N] per layer,
    the executed kernels {(primitive, precision): count})."""
    import openvino as ov

    outs, kinds = [], {}
    for start in range(0, len(layers), chunk):
        part = layers[start:start + chunk]
        built = [_ov_fc(layer, n, conv) for n, layer in enumerate(part)]
        compiled = _ov_compile(ov.Model([o for _, o in built], [p for p, _ in built]))
        for key, count in ov_kernels(compiled, "Convolution" if conv else "FullyConnected").items():
            kinds[key] = kinds.get(key, 0) + count
        feeds = {}
        for n, layer in enumerate(part):
            x = layer.x
            feeds[f"x{n}"] = np.ascontiguousarray(x.T).reshape(1, x.shape[1], x.shape[0], 1) if conv else x
        res = compiled(feeds)
        for n, layer in enumerate(part):
            y = res[compiled.outputs[n]]
            y = y.reshape(layer.w.shape[0], -1).T if conv else y
            assert np.array_equal(y, np.round(y))  # [-128, 127] in steps of 1: integers
            outs.append(y.astype(np.int64))
    return outs, kinds


def run_openvino_fake_quantize(x, il, ih, ol, oh, levels):
    """A standalone FakeQuantize (x float32, any shape; limits broadcast) on the CPU plugin."""
    import openvino as ov
    import openvino.opset13 as ops

    p = ops.parameter(list(x.shape), np.float32, name="x")
    fq = ops.fake_quantize(p, _ov_const(il), _ov_const(ih), _ov_const(ol), _ov_const(oh), levels)
    compiled = _ov_compile(ov.Model([fq], [p]))
    return compiled({"x": x})[compiled.outputs[0]], ov_kernels(compiled, "FakeQuantize")


def run_openvino_onnx_quantize_linear(x, scale, zero_point):
    """An ONNX QuantizeLinear (opset 21, per tensor; zero point uint8 or int8) read by
    OpenVINO's ONNX frontend (core.read_model of the serialized model) and run on CPU."""
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper, numpy_helper

    zp = np.asarray(zero_point)
    ttype = TensorProto.UINT8 if zp.dtype == np.uint8 else TensorProto.INT8
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    graph = helper.make_graph(
        [node], "ql", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", ttype, list(x.shape))],
        [numpy_helper.from_array(np.array(scale, np.float32), "s"),
         numpy_helper.from_array(zp, "z")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    core = ov.Core()
    ov_model = core.read_model(model.SerializeToString(), b"")  # bytes: an ONNX model
    compiled = core.compile_model(ov_model, "CPU", {"INFERENCE_NUM_THREADS": 1})
    return compiled({0: x})[compiled.outputs[0]]
