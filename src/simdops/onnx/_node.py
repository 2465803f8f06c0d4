"""run_node: one ONNX NodeProto of the profile's op types through simdops.onnx.
Imports the ``onnx`` package lazily (only to read attributes)."""
from simdops.onnx import _ops

# The newest opset of every op this module knows; run_node accepts any opset
# from the op's first version up to the newest the installed onnx writes.
_FIRST_OPSET = {"Clip": 6, "Shrink": 9, "Hardmax": 1, "QuantizeLinear": 10,
                "DequantizeLinear": 10}


def _attributes(node):
    import onnx.helper  # absolute: the real onnx package, not simdops.onnx

    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _newest_opset():
    import onnx.defs

    return onnx.defs.onnx_opset_version()


def run_node(node, inputs, opset=None):
    """Runs an ``onnx.NodeProto`` (Clip, Shrink, Hardmax, QuantizeLinear,
    DequantizeLinear; default domain) on numpy inputs; returns a list of outputs.

    Parameters
    ----------
    node : onnx.NodeProto
    inputs : sequence
        One array per ``node.input``; ``None`` for an omitted optional input (``''``).
    opset : int, optional
        The default-domain opset of the model; default: the newest the installed
        ``onnx`` package knows.

    Raises
    ------
    ValueError
        An op type or attribute outside the profile (float8/int4/blocked
        quantization, ``output_dtype`` disagreeing with the zero point, ...).
    """
    if node.domain not in ("", "ai.onnx"):
        raise ValueError(f"run_node: domain {node.domain!r} is not ONNX's default domain")
    op = node.op_type
    if op not in _FIRST_OPSET:
        raise ValueError(f"run_node: {op} is not in the simdops ONNX profile "
                         f"({', '.join(_FIRST_OPSET)})")
    opset = _newest_opset() if opset is None else int(opset)
    if opset < _FIRST_OPSET[op]:
        raise ValueError(f"run_node: {op} needs opset >= {_FIRST_OPSET[op]}, got {opset}")
    inputs = list(inputs)
    if len(inputs) != len(node.input):
        raise ValueError(f"run_node: {op} node has {len(node.input)} inputs, got "
                         f"{len(inputs)} arrays")
    inputs = [None if name == "" else v for name, v in zip(node.input, inputs)]
    inputs += [None] * (3 - len(inputs))
    attrs = _attributes(node)
    if op == "Clip":
        if opset < 11:
            lo, hi = attrs.get("min"), attrs.get("max")
        else:
            lo, hi = inputs[0 + 1], inputs[2]
        return [_ops.clip(inputs[0], lo, hi)]
    if op == "Shrink":
        return [_ops.shrink(inputs[0], attrs.get("bias", 0.0), attrs.get("lambd", 0.5))]
    if op == "Hardmax":
        version = 13 if opset >= 13 else (11 if opset >= 11 else 1)
        return [_ops.hardmax(inputs[0], attrs.get("axis"), opset=version)]
    if attrs.get("block_size", 0):
        raise ValueError(f"run_node: blocked {op} (block_size) is outside the profile")
    if attrs.get("precision", 0):
        raise ValueError(f"run_node: {op} with a precision attribute is outside the profile")
    if op == "QuantizeLinear":
        return [_quantize(inputs, attrs)]
    return [_dequantize(inputs, attrs)]


def _onnx_dtype(code):
    import onnx.helper

    return onnx.helper.tensor_dtype_to_np_dtype(code)


def _quantize(inputs, attrs):
    import numpy as np

    if attrs.get("saturate", 1) != 1:
        raise ValueError("run_node: QuantizeLinear saturate=0 applies to float8 only")
    x, scale, zp = inputs[:3]
    out = None
    if attrs.get("output_dtype"):
        dt = _onnx_dtype(attrs["output_dtype"])
        if zp is not None and np.asarray(zp).dtype != dt:
            raise ValueError("run_node: output_dtype disagrees with the zero point's type")
        if zp is None:
            out = np.empty(np.shape(x), dt)
    return _ops.quantize_linear(x, scale, zp, axis=attrs.get("axis", 1), out=out)


def _dequantize(inputs, attrs):
    import numpy as np

    x, scale, zp = inputs[:3]
    out = None
    if attrs.get("output_dtype"):
        out = np.empty(np.shape(x), _onnx_dtype(attrs["output_dtype"]))
    return _ops.dequantize_linear(x, scale, zp, axis=attrs.get("axis", 1), out=out)
