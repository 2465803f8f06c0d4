"""ONNX Runtime as a baseline: Clip, Shrink, Hardmax, QuantizeLinear and DequantizeLinear on
the CPU execution provider.

Each model is built in memory with the `onnx` helper package (ORT's own dependency), run on
one thread with I/O binding to the benchmark's preallocated numpy arrays, so ORT neither
allocates nor copies per call. Everything here is optional: when onnxruntime or onnx is not
importable, or ORT has no kernel for an op/dtype, the factory returns None and the column
shows "-"."""
import numpy as np

OPSET = 13          # Clip with min/max as inputs, Hardmax with any axis, Shrink
_ort = None         # (onnxruntime, onnx) once imported; False when not importable
_missing = None     # why not, for the report


def modules():
    """(onnxruntime, onnx), or None when either is not importable."""
    global _ort, _missing
    if _ort is None:
        try:
            import onnxruntime
        except Exception as e:  # not installed, or a broken install: run without ORT
            _ort, _missing = False, f"onnxruntime not importable ({type(e).__name__})"
            return None
        try:
            import onnx
        except Exception as e:
            _ort, _missing = False, (f"onnxruntime {onnxruntime.__version__} found but the onnx "
                                     f"package, needed to build the models, is not "
                                     f"({type(e).__name__}; pip install onnx)")
            return None
        _ort = (onnxruntime, onnx)
    return _ort or None


def version():
    mods = modules()
    return None if mods is None else mods[0].__version__


def missing_reason():
    """Why the ORT column is absent (None when it is present)."""
    return None if modules() else _missing or "ONNX Runtime not importable"


def _model(onnx, op, x, p, axis, out_dtype=None):
    """An ONNX model y = op(x) for x's dtype and shape, parameters baked in."""
    from onnx import helper, numpy_helper
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    out_elem = helper.np_dtype_to_tensor_dtype(np.dtype(out_dtype or x.dtype))
    inputs = [helper.make_tensor_value_info("x", elem, list(x.shape))]
    output = helper.make_tensor_value_info("y", out_elem, list(x.shape))
    initializers, attrs, node_inputs = [], {}, ["x"]
    if op == "Clip":
        for name in ("min", "max"):
            initializers.append(numpy_helper.from_array(np.array(p[name], x.dtype), name))
        node_inputs += ["min", "max"]
    elif op == "Shrink":
        attrs = {"bias": float(p["bias"]), "lambd": float(p["threshold"])}
    elif op == "Hardmax":
        attrs = {"axis": axis}
    elif op in ("QuantizeLinear", "DequantizeLinear"):  # per tensor: p["scale"], p["zero_point"]
        initializers.append(numpy_helper.from_array(np.asarray(p["scale"]), "scale"))
        initializers.append(numpy_helper.from_array(np.asarray(p["zero_point"]), "zero_point"))
        node_inputs += ["scale", "zero_point"]
    node = helper.make_node(op, node_inputs, ["y"], **attrs)
    graph = helper.make_graph([node], "bench", inputs, [output], initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    return model.SerializeToString()


def make(op, x, out, p):
    """A zero-argument callable running the op in ORT into `out`, or None (see module doc)."""
    mods = modules()
    if mods is None or op.onnx_op is None:
        return None
    if not (x.flags.c_contiguous and out.flags.c_contiguous):
        return None                     # ORT binds flat buffers; views would need a copy
    ort, onnx = mods
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(_model(onnx, op.onnx_op, x, p, getattr(op, "axis", -1),
                                              out.dtype),
                                       options, providers=["CPUExecutionProvider"])
        binding = session.io_binding()
        binding.bind_cpu_input("x", x)
        binding.bind_output("y", "cpu", 0, out.dtype, list(out.shape), out.ctypes.data)
        session.run_with_iobinding(binding)     # ORT has no kernel for this dtype: raises here
    except Exception:
        return None

    def run():
        session.run_with_iobinding(binding)
        return out
    return run
