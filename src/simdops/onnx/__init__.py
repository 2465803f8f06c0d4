"""simdops.onnx: ONNX's answers for Clip, Shrink, Hardmax, QuantizeLinear and
DequantizeLinear, bit-exact with the ONNX reference implementation
(``onnx.reference``), where the top-level simdops functions give DirectML's.

::

    clip(x, min=None, max=None, *, out=None)
    shrink(x, bias=0.0, lambd=0.5, *, out=None)
    hardmax(x, axis=None, *, opset=13, out=None)
    quantize_linear(x, y_scale, y_zero_point=None, *, axis=1, block_size=0, saturate=1,
                    output_dtype=None, precision=None, packed=False, out=None)
    dequantize_linear(x, x_scale, x_zero_point=None, *, axis=1, block_size=0,
                      output_dtype=None, packed=None, shape=None, out=None)
    run_node(node, inputs, opset=None) -> list     (needs the ``onnx`` package)

This module imports without the ``onnx`` package; only ``run_node`` needs it.
docs/onnx.md compares DirectML, ONNX and ONNX Runtime op by op.
"""
from simdops.onnx._ops import clip, dequantize_linear, hardmax, shrink
# quantize_linear: the C-level entry that sends the common call straight to the kernel and
# the rest to simdops.onnx._ops.quantize_linear (whose documentation it carries)
from simdops.onnx._ops import fast_quantize_linear as quantize_linear
from simdops.onnx._node import run_node

__all__ = ["clip", "shrink", "hardmax", "quantize_linear", "dequantize_linear", "run_node"]
