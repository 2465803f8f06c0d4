"""Random quantized ADD / SUB / MUL cases and the same cases built for each runtime:
LiteRT .tflite flatbuffers written with the ai_edge_litert object API (one ADD/SUB/MUL
operator per case, all in one subgraph: one interpreter runs a whole sweep) and ONNX
graphs of com.microsoft QLinearAdd / QLinearMul nodes (one node per case), plus the
unfused QDQ form DequantizeLinear -> Add/Mul -> QuantizeLinear.

The runtimes are optional: each builder imports its package lazily; the test file skips
with the reason when a package is missing. BINARY_CASES (env) sets the cases per
runtime, op, dtype and mode (default 600).
"""
import os

import numpy as np

from runtime_models import LITERT_MODES, _interpreter, _litert_tensor  # noqa: F401

CASES = int(os.environ.get("BINARY_CASES", "600"))
RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}
ACTIVATIONS = (None, "relu", "relu6")
EDGES = (None, "tie", "wide")


class Case:
    """One quantized binary op: y = op(a, b) with a, b (numpy-broadcastable shapes) of
    dtype, each with a float32 scale and an integer zero point, an output (s_out,
    zp_out) and a fused activation (None, "relu", "relu6")."""

    def __init__(self, op, dtype, a, b, s1, zp1, s2, zp2, s_out, zp_out, activation):
        self.op, self.dtype, self.a, self.b = op, dtype, a, b
        self.s1, self.zp1, self.s2, self.zp2 = s1, zp1, s2, zp2
        self.s_out, self.zp_out, self.activation = s_out, zp_out, activation

    @property
    def out_shape(self):
        return np.broadcast_shapes(self.a.shape, self.b.shape)

    def scales(self):
        return (self.s1, self.zp1, self.s2, self.zp2, self.s_out, self.zp_out)

    def __repr__(self):
        return (f"Case({self.op}, {self.dtype}, a{self.a.shape}, b{self.b.shape}, "
                f"s=({self.s1!r}, {self.s2!r}, {self.s_out!r}), "
                f"zp=({self.zp1}, {self.zp2}, {self.zp_out}), act={self.activation})")


def _f32(v):
    return float(np.float32(v))


def _shapes(rng, broadcast, max_rank):
    """Two broadcast-compatible shapes (or one shape twice), 16..512 output elements."""
    rank = int(rng.integers(1, max_rank + 1))
    while True:  # sides up to 512 ** (1/rank): 16..512 elements at every rank
        side = max(2, int(round(512 ** (1.0 / rank))))
        out = [int(rng.integers(1, side + 1)) for _ in range(rank)]
        if 16 <= int(np.prod(out)) <= 512:
            break
    if not broadcast:
        return tuple(out), tuple(out)
    a, b = list(out), list(out)
    kind = int(rng.integers(4))
    if kind == 0:        # b a per-channel vector along the last axis
        b = [out[-1]]
    elif kind == 1:      # b a scalar (a one-element tensor)
        b = [1] * int(rng.integers(1, rank + 1))
    else:                # both sides broadcast on random axes, random rank drop
        for axis in range(rank):
            r = int(rng.integers(3))
            if r == 1:
                a[axis] = 1
            elif r == 2:
                b[axis] = 1
        b = b[int(rng.integers(0, rank)):] or [1]
        if kind == 3:
            a, b = b, a
    return tuple(a), tuple(b)


def random_case(rng, op, dtype, edge=None, broadcast=False, max_rank=4, activation=None,
                runtime="tflite"):
    """A random case; ``edge``: "tie" (power-of-two scales: exact halves are frequent,
    inputs near the zero points), "wide" (scale ratios near the runtimes' limits)."""
    lo, hi = RANGES[dtype]
    a_shape, b_shape = _shapes(rng, broadcast, max_rank)
    symmetric = dtype == "int16"
    zp = (lambda: 0) if symmetric else (lambda: int(rng.integers(lo, hi + 1)))
    zp1, zp2 = zp(), zp()
    zp_out = 0 if symmetric else int(rng.integers(lo + 40, hi - 40 + 1))
    if edge == "tie":
        s1 = 2.0 ** -int(rng.integers(2, 9))
        s2 = s1 * 2.0 ** int(rng.integers(-3, 4))
    else:
        s1 = _f32(2.0 ** rng.uniform(-9, -2))
        s2 = _f32(s1 * 2.0 ** rng.uniform(-4, 4))
    if op == "multiply":
        # the product of two offsets spans ~2**16 (int8) / 2**30 (int16)
        bits = 8 if dtype != "int16" else 15
        w = rng.uniform(bits - 1, bits + 2) if edge != "wide" else rng.uniform(bits + 4, bits + 7)
        s_out = s1 * s2 * 2.0 ** (int(w) if edge == "tie" else w)
    else:
        w = rng.uniform(-0.5, 1.5) if edge != "wide" else rng.uniform(-3, 4)
        s_out = max(s1, s2) * 2.0 ** (int(w) if edge == "tie" else w)
    s1, s2, s_out = _f32(s1), _f32(s2), _f32(s_out)

    def draw(shape, zero):
        if edge == "tie":
            v = zero + rng.integers(-24, 25, shape)
        else:
            v = rng.integers(lo, hi + 1, shape)
        return np.clip(v, lo, hi).astype(dtype)

    return Case(op, dtype, draw(a_shape, zp1), draw(b_shape, zp2), s1, zp1, s2, zp2,
                s_out, zp_out, activation)


def cases(seed, op, dtype, count=None, broadcast=False, max_rank=4, valid=None):
    """count random cases (edges and activations in turn); ``valid(case)`` filters
    (e.g. the runtime's parameter limits)."""
    rng = np.random.default_rng(seed)
    count = CASES if count is None else count
    out = []
    i = 0
    while len(out) < count:
        case = random_case(rng, op, dtype, EDGES[i % len(EDGES)], broadcast, max_rank,
                           ACTIVATIONS[(i // len(EDGES)) % len(ACTIVATIONS)])
        i += 1
        if valid is None or valid(case):
            out.append(case)
    return out


# ------------------------------------------------------------------------------ LiteRT

_LITERT_TYPES = {"int8": "INT8", "int16": "INT16", "uint8": "UINT8"}
_LITERT_ACT = {None: "NONE", "relu": "RELU", "relu6": "RELU6", "relu_n1_to_1": "RELU_N1_TO_1"}


def litert_model(case_list, pot_scale_int16=False):
    """One .tflite with one ADD / SUB / MUL operator per case, each with its own inputs
    a<n>, b<n> and output y<n>; pot_scale_int16 is written into ADD/SUB options."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    ops = {"add": (schema.BuiltinOperator.ADD, schema.BuiltinOptions.AddOptions,
                   schema.AddOptionsT),
           "subtract": (schema.BuiltinOperator.SUB, schema.BuiltinOptions.SubOptions,
                        schema.SubOptionsT),
           "multiply": (schema.BuiltinOperator.MUL, schema.BuiltinOptions.MulOptions,
                        schema.MulOptionsT)}
    codes, code_index = [], {}
    tensors, operators, inputs, outputs = [], [], [], []
    for n, c in enumerate(case_list):
        builtin, options_type, options_cls = ops[c.op]
        if c.op not in code_index:
            code = schema.OperatorCodeT()
            code.builtinCode = builtin
            code.deprecatedBuiltinCode = builtin
            code.version = 2 if c.dtype == "int8" else 3
            code_index[c.op] = len(codes)
            codes.append(code)
        ttype = getattr(schema.TensorType, _LITERT_TYPES[c.dtype])
        base = len(tensors)
        tensors += [
            _litert_tensor(schema, c.a.shape, ttype, 0, f"a{n}", [c.s1], [c.zp1]),
            _litert_tensor(schema, c.b.shape, ttype, 0, f"b{n}", [c.s2], [c.zp2]),
            _litert_tensor(schema, c.out_shape, ttype, 0, f"y{n}", [c.s_out], [c.zp_out]),
        ]
        operator = schema.OperatorT()
        operator.opcodeIndex = code_index[c.op]
        operator.inputs = [base, base + 1]
        operator.outputs = [base + 2]
        options = options_cls()
        options.fusedActivationFunction = getattr(schema.ActivationFunctionType,
                                                  _LITERT_ACT[c.activation])
        if c.op != "multiply":
            options.potScaleInt16 = pot_scale_int16
        operator.builtinOptionsType = options_type
        operator.builtinOptions = options
        operators.append(operator)
        inputs += [base, base + 1]
        outputs.append(base + 2)
    graph = schema.SubGraphT()
    graph.tensors, graph.inputs, graph.outputs, graph.operators = (tensors, inputs, outputs,
                                                                    operators)
    model = schema.ModelT()
    model.version = 3
    model.operatorCodes = codes
    model.subgraphs = [graph]
    model.buffers = [schema.BufferT()]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def run_litert(model, case_list, mode):
    """Run litert_model(case_list) in a kernel mode ("reference", "optimized",
    "xnnpack"); returns (outputs, op names the interpreter ran)."""
    interp = _interpreter(model, mode)
    names = {op["op_name"] for op in interp._get_ops_details()}
    by_name = {d["name"]: d for d in interp.get_input_details() + interp.get_output_details()}
    for n, c in enumerate(case_list):
        interp.set_tensor(by_name[f"a{n}"]["index"], c.a)
        interp.set_tensor(by_name[f"b{n}"]["index"], c.b)
    interp.invoke()
    return [interp.get_tensor(by_name[f"y{n}"]["index"]) for n in range(len(case_list))], names


# --------------------------------------------------------------------------- ONNX Runtime

def onnx_model(case_list, fused=True):
    """An ONNX graph with, per case, a com.microsoft QLinearAdd / QLinearMul node
    (fused=True) or the QDQ form DequantizeLinear x2 -> Add/Sub/Mul -> QuantizeLinear
    (fused=False), inputs a<n>, b<n>, output y<n>."""
    import onnx
    from onnx import helper, numpy_helper

    inits, nodes, inputs, outputs = [], [], [], []
    for n, c in enumerate(case_list):
        elem = helper.np_dtype_to_tensor_dtype(np.dtype(c.dtype))
        names = [f"a{n}", f"as{n}", f"az{n}", f"b{n}", f"bs{n}", f"bz{n}", f"ys{n}", f"yz{n}"]
        for name, value in ((names[1], np.float32(c.s1)), (names[2], c.zp1),
                            (names[4], np.float32(c.s2)), (names[5], c.zp2),
                            (names[6], np.float32(c.s_out)), (names[7], c.zp_out)):
            dtype = np.float32 if name[1] == "s" else np.dtype(c.dtype)
            inits.append(numpy_helper.from_array(np.array(value, dtype), name))
        if fused:
            kind = {"add": "QLinearAdd", "multiply": "QLinearMul"}[c.op]
            nodes.append(helper.make_node(kind, names, [f"y{n}"], domain="com.microsoft"))
        else:
            kind = {"add": "Add", "subtract": "Sub", "multiply": "Mul"}[c.op]
            nodes += [
                helper.make_node("DequantizeLinear", names[0:3], [f"fa{n}"]),
                helper.make_node("DequantizeLinear", names[3:6], [f"fb{n}"]),
                helper.make_node(kind, [f"fa{n}", f"fb{n}"], [f"fy{n}"]),
                helper.make_node("QuantizeLinear", [f"fy{n}", names[6], names[7]], [f"y{n}"]),
            ]
        inputs += [helper.make_tensor_value_info(f"a{n}", elem, list(c.a.shape)),
                   helper.make_tensor_value_info(f"b{n}", elem, list(c.b.shape))]
        outputs.append(helper.make_tensor_value_info(f"y{n}", elem, list(c.out_shape)))
    graph = helper.make_graph(nodes, "qlinear_binary", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 10
    return model.SerializeToString()


def run_onnxruntime(model, case_list, optimize=False):
    """Run an onnx_model on ORT's CPU provider, one thread; graph optimizations off
    (the nodes run as written) unless optimize (ORT_ENABLE_ALL: the QDQ fusions)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {}
    for n, c in enumerate(case_list):
        feeds[f"a{n}"], feeds[f"b{n}"] = c.a, c.b
    return session.run([f"y{n}" for n in range(len(case_list))], feeds), session
