"""run_node: one ONNX NodeProto of the profile's op types through simdops.onnx.
Imports the ``onnx`` package lazily (only to read attributes)."""
from simdops.onnx import _lowbit, _ops

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


def _opset(opset, op):
    """The model's opset as an int in [the op's first version, the newest the
    installed onnx knows]; a str, float or bool is a TypeError."""
    import operator

    newest = _newest_opset()
    if opset is None:
        return newest
    if isinstance(opset, bool):
        raise TypeError("run_node: opset must be an int, got bool")
    try:
        opset = operator.index(opset)
    except TypeError:
        raise TypeError(f"run_node: opset must be an int, got {type(opset).__name__} "
                        f"{opset!r}") from None
    if not _FIRST_OPSET[op] <= opset <= newest:
        raise ValueError(f"run_node: {op} runs at opsets {_FIRST_OPSET[op]} to {newest} (the "
                         f"newest the installed onnx knows), got {opset}")
    return opset


def _check_node(node, op, opset):
    """What onnx.checker refuses (attributes the op's version does not have or of
    another type, too many inputs or outputs), as a ValueError; an empty name for a
    required input is a TypeError naming the input (ONNX's name for it)."""
    import onnx.checker
    import onnx.defs

    schema = onnx.defs.get_schema(op, opset)
    for k, (formal, name) in enumerate(zip(schema.inputs, node.input)):
        if name == "" and formal.option == onnx.defs.OpSchema.FormalParameterOption.Single:
            raise TypeError(f"run_node: {op}'s {formal.name} (input {k}) is required; the node "
                            f"gives ''")
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version = onnx.IR_VERSION
    ctx.opset_imports = {"": opset}
    try:
        onnx.checker.C.check_node(node.SerializeToString(), ctx,
                                  onnx.checker.C.LexicalScopeContext())
    except onnx.checker.ValidationError as e:
        raise ValueError(f"run_node: invalid {op}-{schema.since_version} node: {e}") from None


def run_node(node, inputs, opset=None):
    """Runs an ``onnx.NodeProto`` (Clip, Shrink, Hardmax, QuantizeLinear,
    DequantizeLinear; default domain) on numpy inputs; returns a list of outputs.

    Parameters
    ----------
    node : onnx.NodeProto
    inputs : sequence
        One array per ``node.input``; ``None`` for an omitted optional input (``''``).
    opset : int, optional
        The default-domain opset of the model, from the op's first version to the
        newest the installed ``onnx`` package knows (the default).

    Raises
    ------
    TypeError
        ``node`` is not a NodeProto; ``opset`` is not an int; a required input is
        omitted.
    ValueError
        An op type or attribute outside the profile (float8/int4/blocked
        quantization, ``output_dtype`` disagreeing with the zero point, ...); a node
        ``onnx.checker`` refuses (an attribute its version does not have or of
        another type, too many inputs).
    """
    import onnx

    if not isinstance(node, onnx.NodeProto):
        raise TypeError(f"run_node: node must be an onnx.NodeProto, got {type(node).__name__}")
    if node.domain not in ("", "ai.onnx"):
        raise ValueError(f"run_node: domain {node.domain!r} is not ONNX's default domain")
    op = node.op_type
    if op not in _FIRST_OPSET:
        raise ValueError(f"run_node: {op} is not in the simdops ONNX profile "
                         f"({', '.join(_FIRST_OPSET)})")
    opset = _opset(opset, op)
    inputs = list(inputs)
    if len(inputs) != len(node.input):
        raise ValueError(f"run_node: {op} node has {len(node.input)} inputs, got "
                         f"{len(inputs)} arrays")
    _check_node(node, op, opset)
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
    if op == "QuantizeLinear":
        return [_quantize(inputs, attrs, opset)]
    return [_dequantize(inputs, attrs, opset)]


def _quantize(inputs, attrs, opset):
    x, scale, zp = inputs[:3]
    code = attrs.get("output_dtype", 0) or None
    block, precision = attrs.get("block_size", 0), attrs.get("precision", 0) or None
    saturate = attrs.get("saturate", 1)
    if _ops._needs_lowbit(x, scale, zp, block, precision, False,
                          saturate != 1 or code is not None):
        return _lowbit.quantize_linear(x, scale, zp, axis=attrs.get("axis", 1),
                                       block_size=block, saturate=saturate,
                                       output_dtype=code, precision=precision, opset=opset)
    return _ops.quantize_linear(x, scale, zp, axis=attrs.get("axis", 1))


def _dequantize(inputs, attrs, opset):
    x, scale, zp = inputs[:3]
    code = attrs.get("output_dtype", 0) or None
    block = attrs.get("block_size", 0)
    if _ops._needs_lowbit(x, scale, zp, block, None, False, code is not None):
        return _lowbit.dequantize_linear(x, scale, zp, axis=attrs.get("axis", 1),
                                         block_size=block, output_dtype=code, opset=opset)
    return _ops.dequantize_linear(x, scale, zp, axis=attrs.get("axis", 1))
