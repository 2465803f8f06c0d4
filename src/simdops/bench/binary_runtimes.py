"""Runtime baselines of the quantized two-input ops: ONNX Runtime's com.microsoft
QLinearAdd / QLinearMul and LiteRT's ADD / MUL on its default XNNPACK delegate.

Each factory returns a zero-argument callable that runs the op on the given arrays
through the runtime's own Python API (ORT: one thread, I/O binding to the benchmark's
arrays, so ORT neither allocates nor copies; LiteRT: one thread, the inputs written with
set_tensor and the output read with get_tensor, the copies its Python API requires), or
None when the runtime is not importable or refuses the case. ``call_overhead`` times the
same call on 1-element arrays: the per-call cost that is not per element, reported next
to the rows."""
import time

import numpy as np

_OPS_ORT = {"add": "QLinearAdd", "multiply": "QLinearMul"}
_OPS_LITERT = {"add": "ADD", "subtract": "SUB", "multiply": "MUL"}


def _ort_model(op, a, b, p):
    from onnx import helper, numpy_helper

    elem = helper.np_dtype_to_tensor_dtype(a.dtype)
    names = ["a", "as", "az", "b", "bs", "bz", "ys", "yz"]
    values = {"as": np.float32(p["a_scale"]), "az": a.dtype.type(p["a_zero_point"]),
              "bs": np.float32(p["b_scale"]), "bz": a.dtype.type(p["b_zero_point"]),
              "ys": np.float32(p["y_scale"]), "yz": a.dtype.type(p["y_zero_point"])}
    inits = [numpy_helper.from_array(np.array(v), k) for k, v in values.items()]
    node = helper.make_node(_OPS_ORT[op], names, ["y"], domain="com.microsoft")
    shape = list(np.broadcast_shapes(a.shape, b.shape))
    graph = helper.make_graph(
        [node], "bench", [helper.make_tensor_value_info("a", elem, list(a.shape)),
                          helper.make_tensor_value_info("b", elem, list(b.shape))],
        [helper.make_tensor_value_info("y", elem, shape)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("com.microsoft", 1)])
    return model.SerializeToString()


def ort_qlinear(op, a, b, out, p):
    """QLinearAdd / QLinearMul on ORT's CPU provider into ``out``; p holds a_scale,
    a_zero_point, b_scale, b_zero_point, y_scale, y_zero_point."""
    if op not in _OPS_ORT:
        return None
    try:
        import onnxruntime as ort
    except Exception:
        return None
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(_ort_model(op, a, b, p), options,
                                       providers=["CPUExecutionProvider"])
        binding = session.io_binding()
        binding.bind_cpu_input("a", a)
        binding.bind_cpu_input("b", b)
        binding.bind_output("y", "cpu", 0, out.dtype, list(out.shape), out.ctypes.data)
        session.run_with_iobinding(binding)
    except Exception:
        return None

    def run():
        session.run_with_iobinding(binding)
        return out
    return run


def _litert_model(op, a, b, p):
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    ttype = {"int8": schema.TensorType.INT8, "uint8": schema.TensorType.UINT8,
             "int16": schema.TensorType.INT16}[a.dtype.name]

    def tensor(shape, name, scale, zp):
        t = schema.TensorT()
        t.shape, t.type, t.buffer, t.name = list(shape), ttype, 0, name
        q = schema.QuantizationParametersT()
        q.scale, q.zeroPoint = [float(scale)], [int(zp)]
        t.quantization = q
        return t

    builtin = getattr(schema.BuiltinOperator, _OPS_LITERT[op])
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = builtin
    code.version = 2
    options = {"add": schema.AddOptionsT, "subtract": schema.SubOptionsT,
               "multiply": schema.MulOptionsT}[op]()
    operator = schema.OperatorT()
    operator.opcodeIndex, operator.inputs, operator.outputs = 0, [0, 1], [2]
    operator.builtinOptionsType = getattr(schema.BuiltinOptions,
                                          {"add": "AddOptions", "subtract": "SubOptions",
                                           "multiply": "MulOptions"}[op])
    operator.builtinOptions = options
    graph = schema.SubGraphT()
    graph.tensors = [tensor(a.shape, "a", p["a_scale"], p["a_zero_point"]),
                     tensor(b.shape, "b", p["b_scale"], p["b_zero_point"]),
                     tensor(np.broadcast_shapes(a.shape, b.shape), "y", p["y_scale"],
                            p["y_zero_point"])]
    graph.inputs, graph.outputs, graph.operators = [0, 1], [2], [operator]
    model = schema.ModelT()
    model.version, model.operatorCodes, model.subgraphs = 3, [code], [graph]
    model.buffers = [schema.BufferT()]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def litert_xnnpack(op, a, b, out, p):
    """LiteRT ADD / SUB / MUL with the default XNNPACK delegate (one thread): the inputs
    set, invoke, the output copied into ``out``. None when not importable, or when the
    delegate does not take the op (it would time the builtin kernel instead)."""
    try:
        from ai_edge_litert import interpreter as litert
        interp = litert.Interpreter(model_content=_litert_model(op, a, b, p), num_threads=1,
                                    experimental_op_resolver_type=litert.OpResolverType.AUTO)
        interp.allocate_tensors()
        if "DELEGATE" not in {d["op_name"] for d in interp._get_ops_details()}:
            return None
    except Exception:
        return None
    ia, ib, iy = (d["index"] for d in interp.get_input_details() + interp.get_output_details())

    def run():
        interp.set_tensor(ia, a)
        interp.set_tensor(ib, b)
        interp.invoke()
        np.copyto(out, interp.get_tensor(iy))
        return out
    return run


def call_overhead(factory, op, dtype, p, repeat=2000):
    """The median time of one call on 1-element inputs (seconds), or None."""
    a = np.zeros(1, dtype)
    b = np.zeros(1, dtype)
    out = np.zeros(1, dtype)
    fn = factory(op, a, b, out, p)
    if fn is None:
        return None
    times = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - t) / repeat)
    return sorted(times)[len(times) // 2]


# ------------------------------------------------------------ the paths of the bench cases

ORT_ADD, ORT_MUL = "ort QLinearAdd", "ort QLinearMul"
LITERT_ADD, LITERT_MUL = "litert XNNPACK ADD", "litert XNNPACK MUL"
ONE = " (1-element call)"
SIZES = ("65536", "1048576", "256x256", "4096x256")
# (case op name, runtime op, factory, path name): each runtime on the simdops case that
# computes the same work (ORT's QLinearMul on the fp32 multiply, its family)
PAIRS = (("quantized_add onnxruntime", "add", ort_qlinear, ORT_ADD),
         ("quantized_multiply xnnpack", "multiply", ort_qlinear, ORT_MUL),
         ("quantized_add xnnpack", "add", litert_xnnpack, LITERT_ADD),
         ("quantized_multiply xnnpack", "multiply", litert_xnnpack, LITERT_MUL))


def _case_inputs(x):
    """b and the model numbers the simdops row of the case uses."""
    from simdops.bench import ops_qbinary
    return ops_qbinary._other(x), ops_qbinary._PARAMS


def _make(factory, op):
    def make(x, out, p):
        b, params = _case_inputs(x)
        return factory(op, x, b, out, params)
    return make


def _make_one(factory, op):
    """The same runtime call on 1-element inputs: its time is the per-call overhead."""
    def make(x, out, p):
        _, params = _case_inputs(x)
        one = np.zeros(1, x.dtype)
        return factory(op, one, one.copy(), np.zeros(1, x.dtype), params)
    return make


def register():
    from simdops.bench.cases import Path, register_path
    for case_op, op, factory, name in PAIRS:
        for size in SIZES:
            register_path(f"{case_op}/int8/{size}", Path(name, _make(factory, op)))
        register_path(f"{case_op}/int8/65536", Path(name + ONE, _make_one(factory, op)))


register()
