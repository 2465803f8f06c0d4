"""Shared helpers of the runtime proof tests: random int8 layers, their exact int32
accumulators (numpy, int64 then checked to fit int32), and the same layer built for each
runtime (LiteRT .tflite flatbuffers written with the object API, ONNX graphs built with
onnx.helper, PyTorch quantized modules).

The runtimes are optional: each builder imports its package lazily and the test files skip
(with the reason) only when the package is missing.

Sweep size: RUNTIME_LAYERS (env) sets the random layers per runtime and kernel mode
(default 1000, a few seconds per test file); e.g. RUNTIME_LAYERS=20000 for a long sweep.
"""
import os

import numpy as np

LAYERS = int(os.environ.get("RUNTIME_LAYERS", "1000"))
INT8_MIN, INT8_MAX = -128, 127


# ------------------------------------------------------------------------ random layers

def _scale(rng, low, high):
    """A float32 scale 2**u, u uniform in [low, high)."""
    return float(np.float32(2.0 ** rng.uniform(low, high)))


class Layer:
    """A quantized fully connected layer: y = requant(sum_k (x - x_zp) * w + bias).

    x int8 [batch, depth] (x_zp), w int8 [channels, depth] symmetric (per-tensor: one
    scale; per-channel: one per output channel), bias int32 [channels] with scale
    x_scale * w_scale, output int8 (out_scale, out_zp). The scales are float32 values,
    as the model formats store them.
    """

    def __init__(self, x, x_scale, x_zp, w, w_scales, bias, out_scale, out_zp,
                 per_channel):
        self.x, self.x_scale, self.x_zp = x, x_scale, x_zp
        self.w, self.w_scales, self.bias = w, np.asarray(w_scales, np.float32), bias
        self.out_scale, self.out_zp, self.per_channel = out_scale, out_zp, per_channel

    @property
    def channels(self):
        return self.w.shape[0]

    def accumulators(self):
        """sum_k (x - x_zp) * w, exact (int64), asserted to fit int32; bias not added."""
        acc = (self.x.astype(np.int64) - self.x_zp) @ self.w.astype(np.int64).T
        assert np.abs(acc).max(initial=0) < 2 ** 31
        return acc.astype(np.int32)

    def scales_double(self):
        """The real multiplier per channel as TFLite computes it: in double,
        double(x_scale) * double(w_scale) / double(out_scale)."""
        ws = np.broadcast_to(self.w_scales.astype(np.float64), (self.channels,))
        return float(self.x_scale) * ws / float(self.out_scale)

    def scale_double(self):
        """scales_double() as simdops takes it: a float per tensor, an array per channel."""
        scales = self.scales_double()
        return scales if self.per_channel else float(scales[0])

    def scale_float32(self):
        """scales_float32() as simdops takes it: np.float32 per tensor, array per channel."""
        scales = self.scales_float32()
        return scales if self.per_channel else scales[0]

    def scales_float32(self):
        """The multiplier per channel in float32 arithmetic, (x_scale * w_scale) /
        out_scale, each step rounded to float32 (XNNPACK's and ORT's derivation)."""
        ws = np.broadcast_to(self.w_scales, (self.channels,))
        return (np.float32(self.x_scale) * ws) / np.float32(self.out_scale)


def random_layer(rng, per_channel=None, edge=None):
    """A random layer; ``edge`` picks one of the edge-case classes:
    "tie" (power-of-two multipliers: many exact halves), "near_one" (multipliers in
    [0.5, 2)), "tiny" (multipliers near 2**-24), "big_acc" (bias near the int32 limits)."""
    if per_channel is None:
        per_channel = bool(rng.integers(2))
    batch = int(rng.integers(1, 5))
    depth = int(rng.integers(1, 48))
    channels = int(rng.integers(1, 17))
    x = rng.integers(INT8_MIN, INT8_MAX + 1, (batch, depth)).astype(np.int8)
    w = rng.integers(-127, 128, (channels, depth)).astype(np.int8)
    x_zp = int(rng.integers(INT8_MIN, INT8_MAX + 1))
    out_zp = int(rng.integers(-40, 41))
    x_scale = _scale(rng, -9, -2)
    n_scales = channels if per_channel else 1
    w_scales = np.array([_scale(rng, -9, -3) for _ in range(n_scales)], np.float32)
    # typical: multipliers x_scale * w_scale / out_scale in [2**-13, 2**-6], which put
    # sums of up to 47 int8 products mostly inside the int8 range
    out_scale = float(x_scale) * float(w_scales.max()) * 2.0 ** rng.uniform(6, 13)
    bias_limit = 1 << 12
    if edge == "tie":
        # power-of-two multipliers 2**-j with small sums: exact halves are frequent and
        # land inside the int8 range
        depth = int(rng.integers(1, 4))
        x = (x_zp + rng.integers(-6, 7, (batch, depth))).clip(INT8_MIN, INT8_MAX).astype(np.int8)
        w = rng.integers(-127, 128, (channels, depth)).astype(np.int8)
        x_scale = 2.0 ** -int(rng.integers(3, 8))
        w_scales = np.array([2.0 ** -int(rng.integers(3, 8)) for _ in range(n_scales)],
                            np.float32)
        out_scale = x_scale * float(w_scales.min()) * 2.0 ** int(rng.integers(2, 7))
        bias_limit = 1 << 9
    elif edge == "near_one":
        out_scale = float(np.float32(x_scale * float(w_scales.max()) * rng.uniform(0.5, 2.0)))
    elif edge == "tiny":
        out_scale = float(np.float32(x_scale * float(w_scales.max()) * 2.0 ** rng.uniform(14, 24)))
    elif edge == "big_acc":
        bias_limit = (1 << 31) - (1 << 20)
        out_scale = float(np.float32(x_scale * float(w_scales.max()) * 2.0 ** rng.uniform(22, 28)))
    out_scale = float(np.float32(out_scale))
    bias = rng.integers(-bias_limit, bias_limit, channels).astype(np.int32)
    return Layer(x, float(np.float32(x_scale)), x_zp, w, w_scales, bias, out_scale, out_zp,
                 per_channel)


EDGES = (None, "tie", "near_one", "tiny", "big_acc")


def layers(seed, count=None, per_channel=None):
    """count random layers, one in five of each edge class."""
    rng = np.random.default_rng(seed)
    count = LAYERS if count is None else count
    return [random_layer(rng, per_channel, EDGES[i % len(EDGES)]) for i in range(count)]


# ------------------------------------------------------------------------------ LiteRT

def _litert_tensor(schema, shape, ttype, buffer, name, scales=None, zero_points=None, axis=0):
    tensor = schema.TensorT()
    tensor.shape = list(shape)
    tensor.type = ttype
    tensor.buffer = buffer
    tensor.name = name
    if scales is not None:
        q = schema.QuantizationParametersT()
        q.scale = [float(s) for s in scales]
        q.zeroPoint = [int(z) for z in zero_points]
        q.quantizedDimension = axis
        tensor.quantization = q
    return tensor


def _litert_graph(schema, layers, op):
    """One subgraph holding one FULLY_CONNECTED or CONV_2D per layer, each with its own
    input and output (one interpreter runs them all: the sweep stays fast)."""
    import flatbuffers

    builtin = {"fc": schema.BuiltinOperator.FULLY_CONNECTED,
               "conv": schema.BuiltinOperator.CONV_2D}[op]
    buffers = [schema.BufferT()]  # buffer 0: the empty sentinel

    def add_buffer(data):
        buf = schema.BufferT()
        buf.data = np.ascontiguousarray(data).view(np.uint8).reshape(-1).tolist()
        buffers.append(buf)
        return len(buffers) - 1

    tensors, operators, inputs, outputs = [], [], [], []
    for n, layer in enumerate(layers):
        batch, depth = layer.x.shape
        ch = layer.channels
        w_scales = layer.w_scales.tolist()
        bias_scales = [float(np.float32(layer.x_scale) * np.float32(s)) for s in w_scales]
        if op == "fc":
            x_shape, w_shape, y_shape = (batch, depth), (ch, depth), (batch, ch)
        else:  # a 1x1 convolution over a [1, batch, 1, depth] image: the same sums
            x_shape, w_shape, y_shape = (1, batch, 1, depth), (ch, 1, 1, depth), (1, batch, 1, ch)
        base = len(tensors)
        tensors += [
            _litert_tensor(schema, x_shape, schema.TensorType.INT8, 0, f"x{n}",
                           [layer.x_scale], [layer.x_zp]),
            _litert_tensor(schema, w_shape, schema.TensorType.INT8, add_buffer(layer.w),
                           f"w{n}", w_scales, [0] * len(w_scales)),
            _litert_tensor(schema, (ch,), schema.TensorType.INT32, add_buffer(layer.bias),
                           f"b{n}", bias_scales, [0] * len(bias_scales)),
            _litert_tensor(schema, y_shape, schema.TensorType.INT8, 0, f"y{n}",
                           [layer.out_scale], [layer.out_zp]),
        ]
        operator = schema.OperatorT()
        operator.opcodeIndex = 0
        operator.inputs = [base, base + 1, base + 2]
        operator.outputs = [base + 3]
        if op == "fc":
            options = schema.FullyConnectedOptionsT()
            operator.builtinOptionsType = schema.BuiltinOptions.FullyConnectedOptions
        else:
            options = schema.Conv2DOptionsT()
            options.padding = schema.Padding.VALID
            options.strideW = options.strideH = 1
            options.dilationWFactor = options.dilationHFactor = 1
            operator.builtinOptionsType = schema.BuiltinOptions.Conv2DOptions
        options.fusedActivationFunction = schema.ActivationFunctionType.NONE
        operator.builtinOptions = options
        operators.append(operator)
        inputs.append(base)
        outputs.append(base + 3)
    code = schema.OperatorCodeT()
    code.builtinCode = builtin
    code.deprecatedBuiltinCode = builtin
    code.version = 1
    graph = schema.SubGraphT()
    graph.tensors = tensors
    graph.inputs = inputs
    graph.outputs = outputs
    graph.operators = operators
    model = schema.ModelT()
    model.version = 3
    model.operatorCodes = [code]
    model.subgraphs = [graph]
    model.buffers = buffers
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def litert_model(layers, op):
    """An int8 .tflite with one op per layer: op "fc" (FULLY_CONNECTED, input
    [batch, depth], weights [channels, depth]) or "conv" (CONV_2D 1x1, VALID, stride 1,
    input [1, batch, 1, depth]); per-tensor or per-channel (axis 0) weight scales, int32
    bias with scale x_scale * w_scale, activation NONE."""
    from ai_edge_litert import schema_py_generated as schema

    return _litert_graph(schema, layers, op)


LITERT_MODES = ("reference", "optimized", "xnnpack")


def _interpreter(model, mode):
    from ai_edge_litert import interpreter as litert

    resolver = {"reference": litert.OpResolverType.BUILTIN_REF,
                "optimized": litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
                "xnnpack": litert.OpResolverType.AUTO}[mode]
    interp = litert.Interpreter(model_content=model, experimental_op_resolver_type=resolver,
                                num_threads=1)
    interp.allocate_tensors()
    return interp


def run_litert(model, layers, mode):
    """Run a model of litert_model(layers, op) in one kernel mode: "reference"
    (OpResolverType.BUILTIN_REF), "optimized" (BUILTIN_WITHOUT_DEFAULT_DELEGATES) or
    "xnnpack" (AUTO: the default XNNPACK delegate). Returns one [batch, channels] int8
    array per layer."""
    interp = _interpreter(model, mode)
    by_name = {d["name"]: d for d in interp.get_input_details() + interp.get_output_details()}
    for n, layer in enumerate(layers):
        detail = by_name[f"x{n}"]
        interp.set_tensor(detail["index"], layer.x.reshape(detail["shape"]))
    interp.invoke()
    return [interp.get_tensor(by_name[f"y{n}"]["index"]).reshape(layer.x.shape[0], layer.channels)
            for n, layer in enumerate(layers)]


def litert_op_names(model, mode):
    """The op names the interpreter runs in a mode ("DELEGATE" for ops XNNPACK took)."""
    return {op["op_name"] for op in _interpreter(model, mode)._get_ops_details()}


# --------------------------------------------------------------------------- ONNX Runtime

def _onnx_layer_nodes(layer, n, op):
    """The initializers and node of one layer: QLinearMatMul (x [batch, depth] @ w^T) or
    QLinearConv (1x1 kernel over x as NCHW [1, depth, batch, 1], int32 bias)."""
    from onnx import helper, numpy_helper

    ch, depth = layer.w.shape
    w_scale = layer.w_scales if layer.per_channel else layer.w_scales[:1].reshape(())
    names = [f"{p}{n}" for p in ("x", "xs", "xz", "w", "ws", "wz", "ys", "yz")]
    weights = (np.ascontiguousarray(layer.w.T) if op == "matmul"
               else layer.w.reshape(ch, depth, 1, 1))
    inits = [
        numpy_helper.from_array(np.array(layer.x_scale, np.float32), names[1]),
        numpy_helper.from_array(np.array(layer.x_zp, np.int8), names[2]),
        numpy_helper.from_array(weights, names[3]),
        numpy_helper.from_array(w_scale.astype(np.float32), names[4]),
        numpy_helper.from_array(np.zeros(w_scale.shape, np.int8), names[5]),
        numpy_helper.from_array(np.array(layer.out_scale, np.float32), names[6]),
        numpy_helper.from_array(np.array(layer.out_zp, np.int8), names[7]),
    ]
    if op == "conv":
        inits.append(numpy_helper.from_array(layer.bias, f"b{n}"))
        names.append(f"b{n}")
    node = helper.make_node("QLinearMatMul" if op == "matmul" else "QLinearConv", names,
                            [f"y{n}"])
    return inits, node


def onnx_x(layer, op):
    """The layer's input as the ONNX graph takes it."""
    if op == "matmul":
        return layer.x
    return np.ascontiguousarray(layer.x.T).reshape(1, layer.x.shape[1], layer.x.shape[0], 1)


def onnx_model(layers, op):
    """An ONNX graph (opset 21) with one QLinearMatMul (op "matmul": per-tensor or
    per-column weight scales) or QLinearConv (op "conv": per-tensor or per-output-channel,
    int32 bias) node per layer, int8 in and out, each with its own input x<n> / output y<n>."""
    import onnx
    from onnx import TensorProto, helper

    inits, nodes, inputs, outputs = [], [], [], []
    for n, layer in enumerate(layers):
        layer_inits, node = _onnx_layer_nodes(layer, n, op)
        inits += layer_inits
        nodes.append(node)
        batch = layer.x.shape[0]
        inputs.append(helper.make_tensor_value_info(f"x{n}", TensorProto.INT8,
                                                    list(onnx_x(layer, op).shape)))
        y_shape = [batch, layer.channels] if op == "matmul" else [1, layer.channels, batch, 1]
        outputs.append(helper.make_tensor_value_info(f"y{n}", TensorProto.INT8, y_shape))
    graph = helper.make_graph(nodes, "qlinear", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model.SerializeToString()


def run_onnxruntime(model, layers, op):
    """Run an onnx_model(layers, op) on ORT's CPU provider, one thread, graph
    optimizations off (the nodes run as written). One [batch, channels] array per layer."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {f"x{n}": onnx_x(layer, op) for n, layer in enumerate(layers)}
    ys = session.run([f"y{n}" for n in range(len(layers))], feeds)
    if op == "matmul":
        return ys
    return [y.reshape(layer.channels, -1).T for y, layer in zip(ys, layers)]


# ------------------------------------------------------------------------------ PyTorch

def torch_fbgemm_linear(layer):
    """PyTorch's quantized linear (quantized::linear, what torch.ao.nn.quantized.Linear
    calls) on the fbgemm engine, one thread, no bias: quint8 activations (x + 128, zero
    point x_zp + 128), qint8 weights per tensor or per channel (axis 0), quint8 output
    with zero point out_zp + 128. Returns the output as uint8 [batch, channels]; the
    accumulators are the layer's (the +128 shifts cancel)."""
    import warnings

    import torch

    torch.backends.quantized.engine = "fbgemm"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # quantized tensors are deprecated
            w = torch.from_numpy(layer.w.copy())
            if layer.per_channel:
                qw = torch._make_per_channel_quantized_tensor(
                    w, torch.from_numpy(layer.w_scales.astype(np.float64)),
                    torch.zeros(layer.channels, dtype=torch.int64), 0)
            else:
                qw = torch._make_per_tensor_quantized_tensor(w, float(layer.w_scales[0]), 0)
            packed = torch.ops.quantized.linear_prepack(qw, None)
            x_u8 = (layer.x.astype(np.int16) + 128).astype(np.uint8)
            qx = torch._make_per_tensor_quantized_tensor(
                torch.from_numpy(x_u8), float(layer.x_scale), int(layer.x_zp) + 128)
            with torch.no_grad():
                y = torch.ops.quantized.linear(qx, packed, float(layer.out_scale),
                                               int(layer.out_zp) + 128)
            return y.int_repr().numpy()
    finally:
        torch.set_num_threads(threads)
