"""simdops' ops as PyTorch custom operators: ``torch.ops.simdops.<name>``.

Importing this module imports torch and registers, with ``torch.library.custom_op``:

- functional ops, each returning a new contiguous tensor: ``clip``, ``shrink``,
  ``hardmax``, ``quantize_down_int32``, ``quantize_down_int32_to_uint8``,
  ``requantize_fp32`` and ONNX's ``quantize_linear`` / ``dequantize_linear``
  (simdops.onnx's);
- their ``out=`` forms, ``<name>_out``, which write into a given tensor and return
  nothing (a custom op that mutates an input declares it in ``mutates_args`` and
  returns None, as torch.library prescribes).

Each has a fake (meta) implementation, so ``torch.compile(fullgraph=True)`` and
``torch.export`` trace through them with no graph break, and the tag
``torch.Tag.flexible_layout`` (any input strides: inductor neither copies an input to
fixed strides nor spells out the defaulted arguments as keywords in its generated call);
at run time the kernel is simdops' own, so the bits are those of the array API. Scalars
are schema scalars (``Scalar``, ``int``, ``float``); per-tensor or per-channel
requantization parameters (multiplier, shift, scale) are tensors: 0-d for per-tensor, 1-d
along the last axis for per-channel. CPU tensors only. ``import simdops`` never imports
torch: only ``import simdops.torch`` does.
"""
from typing import Optional, Sequence

import torch
from torch.library import register_fake
from torch.types import Number

import simdops
from simdops._torch_tensors import _array, _new_like, simdops_custom_op

__all__ = ["clip", "shrink", "hardmax", "quantize_down_int32",
           "quantize_down_int32_to_uint8", "requantize_fp32", "quantize_linear",
           "dequantize_linear", "clip_out", "shrink_out", "hardmax_out",
           "quantize_down_int32_out", "quantize_down_int32_to_uint8_out",
           "requantize_fp32_out", "quantize_linear_out", "dequantize_linear_out",
           "onnx_clip", "onnx_shrink", "onnx_hardmax", "onnx_clip_out", "onnx_shrink_out",
           "onnx_hardmax_out"]

# requant output dtypes: torch's name for each simdops out_dtype
_REQUANT_OUT = {torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16"}


def _per_tensor_or_channel(t: torch.Tensor, name: str):
    """A 0-d tensor as its Python number (per tensor), a 1-d one as an array (per channel)."""
    arr = _array(t, name)
    return arr[()].item() if arr.ndim == 0 else arr


def _optional_array(t: Optional[torch.Tensor], name: str):
    return None if t is None else _array(t, name)


def _out_dtype(dtype: torch.dtype) -> str:
    try:
        return _REQUANT_OUT[dtype]
    except KeyError:
        raise TypeError(f"out_dtype must be torch.uint8, torch.int8 or torch.int16, "
                        f"got {dtype}") from None


# ---- clip ------------------------------------------------------------------------

@simdops_custom_op("simdops::clip_out", mutates_args={"out"})
def clip_out(x: torch.Tensor, min: Optional[Number], max: Optional[Number],
             out: torch.Tensor, scale: Optional[Number] = None,
             bias: Optional[Number] = None) -> None:
    """simdops.clip(x, min, max, scale=scale, bias=bias, out=out) on CPU tensors."""
    simdops.clip(_array(x, "x"), min, max, scale=scale, bias=bias, out=_array(out, "out"))


@simdops_custom_op("simdops::clip", mutates_args=())
def clip(x: torch.Tensor, min: Optional[Number], max: Optional[Number],
         scale: Optional[Number] = None, bias: Optional[Number] = None) -> torch.Tensor:
    """simdops.clip on a CPU tensor: a new contiguous tensor of x's shape and dtype."""
    result = _new_like(x)
    simdops.clip(_array(x, "x"), min, max, scale=scale, bias=bias, out=_array(result, "out"))
    return result


@register_fake("simdops::clip")
def _clip_fake(x, min, max, scale=None, bias=None):
    return _new_like(x)


@register_fake("simdops::clip_out")
def _clip_out_fake(x, min, max, out, scale=None, bias=None):
    return None


# ---- shrink ----------------------------------------------------------------------

@simdops_custom_op("simdops::shrink_out", mutates_args={"out"})
def shrink_out(x: torch.Tensor, out: torch.Tensor, bias: Number = 0.0,
               threshold: Number = 0.5) -> None:
    """simdops.shrink(x, bias, threshold, out=out) on CPU tensors."""
    simdops.shrink(_array(x, "x"), bias, threshold, out=_array(out, "out"))


@simdops_custom_op("simdops::shrink", mutates_args=())
def shrink(x: torch.Tensor, bias: Number = 0.0, threshold: Number = 0.5) -> torch.Tensor:
    """simdops.shrink on a CPU tensor: a new contiguous tensor of x's shape and dtype."""
    result = _new_like(x)
    simdops.shrink(_array(x, "x"), bias, threshold, out=_array(result, "out"))
    return result


@register_fake("simdops::shrink")
def _shrink_fake(x, bias=0.0, threshold=0.5):
    return _new_like(x)


@register_fake("simdops::shrink_out")
def _shrink_out_fake(x, out, bias=0.0, threshold=0.5):
    return None


# ---- hardmax ---------------------------------------------------------------------

def _axes(axis):
    """The schema's axis (a list of ints, or None: a schema list has no default) as
    simdops' axis argument (None: the last axis)."""
    return -1 if axis is None else tuple(axis)


@simdops_custom_op("simdops::hardmax_out", mutates_args={"out"})
def hardmax_out(x: torch.Tensor, out: torch.Tensor, axis: Optional[Sequence[int]] = None) -> None:
    """simdops.hardmax(x, axis, out=out) on CPU tensors (axis: a list of ints; None: the last axis)."""
    simdops.hardmax(_array(x, "x"), _axes(axis), out=_array(out, "out"))


@simdops_custom_op("simdops::hardmax", mutates_args=())
def hardmax(x: torch.Tensor, axis: Optional[Sequence[int]] = None) -> torch.Tensor:
    """simdops.hardmax on a CPU tensor (axis: a list of ints; None: the last axis)."""
    result = _new_like(x)
    simdops.hardmax(_array(x, "x"), _axes(axis), out=_array(result, "out"))
    return result


@register_fake("simdops::hardmax")
def _hardmax_fake(x, axis=None):
    return _new_like(x)


@register_fake("simdops::hardmax_out")
def _hardmax_out_fake(x, out, axis=None):
    return None


# ---- requantization --------------------------------------------------------------

@simdops_custom_op("simdops::quantize_down_int32_out", mutates_args={"out"})
def quantize_down_int32_out(x: torch.Tensor, multiplier: torch.Tensor, shift: torch.Tensor,
                            out: torch.Tensor, offset: int = 0,
                            bias: Optional[torch.Tensor] = None, min: Optional[int] = None,
                            max: Optional[int] = None, rounding: str = "double") -> None:
    """simdops.quantize_down_int32 into out (uint8, int8 or int16; its dtype is out_dtype).
    multiplier, shift: int32 tensors, 0-d per tensor or 1-d per channel (last axis)."""
    out_arr = _array(out, "out")
    simdops.quantize_down_int32(
        _array(x, "x"), _per_tensor_or_channel(multiplier, "multiplier"),
        _per_tensor_or_channel(shift, "shift"), offset, bias=_optional_array(bias, "bias"),
        min=min, max=max, out_dtype=out_arr.dtype, rounding=rounding, out=out_arr)


@simdops_custom_op("simdops::quantize_down_int32", mutates_args=())
def quantize_down_int32(x: torch.Tensor, multiplier: torch.Tensor, shift: torch.Tensor,
                        offset: int = 0, bias: Optional[torch.Tensor] = None,
                        min: Optional[int] = None, max: Optional[int] = None,
                        out_dtype: torch.dtype = torch.uint8,
                        rounding: str = "double") -> torch.Tensor:
    """simdops.quantize_down_int32 on an int32 CPU tensor; out_dtype a torch dtype.
    multiplier, shift: int32 tensors, 0-d per tensor or 1-d per channel (last axis)."""
    result = _new_like(x, out_dtype)
    simdops.quantize_down_int32(
        _array(x, "x"), _per_tensor_or_channel(multiplier, "multiplier"),
        _per_tensor_or_channel(shift, "shift"), offset, bias=_optional_array(bias, "bias"),
        min=min, max=max, out_dtype=_out_dtype(out_dtype), rounding=rounding,
        out=_array(result, "out"))
    return result


@register_fake("simdops::quantize_down_int32")
def _quantize_down_int32_fake(x, multiplier, shift, offset=0, bias=None, min=None, max=None,
                              out_dtype=torch.uint8, rounding="double"):
    _out_dtype(out_dtype)
    return _new_like(x, out_dtype)


@register_fake("simdops::quantize_down_int32_out")
def _quantize_down_int32_out_fake(x, multiplier, shift, out, offset=0, bias=None, min=None,
                                  max=None, rounding="double"):
    return None


@simdops_custom_op("simdops::requantize_fp32_out", mutates_args={"out"})
def requantize_fp32_out(x: torch.Tensor, scale: torch.Tensor, out: torch.Tensor,
                        zero_point: int = 0, bias: Optional[torch.Tensor] = None,
                        min: Optional[int] = None, max: Optional[int] = None,
                        precision: str = "float32", ties: str = "even") -> None:
    """simdops.requantize_fp32 into out (uint8, int8 or int16; its dtype is out_dtype).
    scale: a float tensor, 0-d per tensor or 1-d per channel (last axis)."""
    out_arr = _array(out, "out")
    simdops.requantize_fp32(
        _array(x, "x"), _per_tensor_or_channel(scale, "scale"), zero_point,
        bias=_optional_array(bias, "bias"), min=min, max=max, out_dtype=out_arr.dtype,
        precision=precision, ties=ties, out=out_arr)


@simdops_custom_op("simdops::requantize_fp32", mutates_args=())
def requantize_fp32(x: torch.Tensor, scale: torch.Tensor, zero_point: int = 0,
                    bias: Optional[torch.Tensor] = None, min: Optional[int] = None,
                    max: Optional[int] = None, out_dtype: torch.dtype = torch.uint8,
                    precision: str = "float32", ties: str = "even") -> torch.Tensor:
    """simdops.requantize_fp32 on an int32 CPU tensor; out_dtype a torch dtype.
    scale: a float tensor, 0-d per tensor or 1-d per channel (last axis)."""
    result = _new_like(x, out_dtype)
    simdops.requantize_fp32(
        _array(x, "x"), _per_tensor_or_channel(scale, "scale"), zero_point,
        bias=_optional_array(bias, "bias"), min=min, max=max,
        out_dtype=_out_dtype(out_dtype), precision=precision, ties=ties,
        out=_array(result, "out"))
    return result


@register_fake("simdops::requantize_fp32")
def _requantize_fp32_fake(x, scale, zero_point=0, bias=None, min=None, max=None,
                          out_dtype=torch.uint8, precision="float32", ties="even"):
    _out_dtype(out_dtype)
    return _new_like(x, out_dtype)


@register_fake("simdops::requantize_fp32_out")
def _requantize_fp32_out_fake(x, scale, out, zero_point=0, bias=None, min=None, max=None,
                              precision="float32", ties="even"):
    return None


def _to_uint8_into(x, multiplier, shift, offset, out, bias, min, max, rounding):
    simdops.quantize_down_int32_to_uint8(
        _array(x, "x"), _per_tensor_or_channel(multiplier, "multiplier"),
        _per_tensor_or_channel(shift, "shift"), offset, bias=_optional_array(bias, "bias"),
        min=min, max=max, rounding=rounding, out=_array(out, "out"))


@simdops_custom_op("simdops::quantize_down_int32_to_uint8_out", mutates_args={"out"})
def quantize_down_int32_to_uint8_out(x: torch.Tensor, multiplier: torch.Tensor,
                                     shift: torch.Tensor, offset: int, out: torch.Tensor,
                                     bias: Optional[torch.Tensor] = None, min: int = 0,
                                     max: int = 0, rounding: str = "double") -> None:
    """simdops.quantize_down_int32_to_uint8 into a uint8 out (ACL's min = max = 0: no clamp)."""
    _to_uint8_into(x, multiplier, shift, offset, out, bias, min, max, rounding)


@simdops_custom_op("simdops::quantize_down_int32_to_uint8", mutates_args=())
def quantize_down_int32_to_uint8(x: torch.Tensor, multiplier: torch.Tensor,
                                 shift: torch.Tensor, offset: int,
                                 bias: Optional[torch.Tensor] = None, min: int = 0,
                                 max: int = 0, rounding: str = "double") -> torch.Tensor:
    """simdops.quantize_down_int32_to_uint8 on an int32 CPU tensor: a new uint8 tensor."""
    result = _new_like(x, torch.uint8)
    _to_uint8_into(x, multiplier, shift, offset, result, bias, min, max, rounding)
    return result


@register_fake("simdops::quantize_down_int32_to_uint8")
def _quantize_down_int32_to_uint8_fake(x, multiplier, shift, offset, bias=None, min=0, max=0,
                                       rounding="double"):
    return _new_like(x, torch.uint8)


@register_fake("simdops::quantize_down_int32_to_uint8_out")
def _quantize_down_int32_to_uint8_out_fake(x, multiplier, shift, offset, out, bias=None,
                                           min=0, max=0, rounding="double"):
    return None


# ---- ONNX QuantizeLinear / DequantizeLinear (simdops.onnx) -----------------------------

def _quantize_linear_into(x, y_scale, y_zero_point, out, axis):
    _onnx().quantize_linear(_array(x, "x"), _array(y_scale, "y_scale"),
                            _optional_array(y_zero_point, "y_zero_point"), axis=axis,
                            out=_array(out, "out"))


@simdops_custom_op("simdops::quantize_linear_out", mutates_args={"out"})
def quantize_linear_out(x: torch.Tensor, y_scale: torch.Tensor, out: torch.Tensor,
                        y_zero_point: Optional[torch.Tensor] = None, axis: int = 1) -> None:
    """simdops.onnx.quantize_linear into out (scale / zero point: 0-d or 1-d tensors)."""
    _quantize_linear_into(x, y_scale, y_zero_point, out, axis)


@simdops_custom_op("simdops::quantize_linear", mutates_args=())
def quantize_linear(x: torch.Tensor, y_scale: torch.Tensor,
                    y_zero_point: Optional[torch.Tensor] = None,
                    axis: int = 1) -> torch.Tensor:
    """simdops.onnx.quantize_linear: the result's dtype is y_zero_point's, else uint8."""
    result = _new_like(x, torch.uint8 if y_zero_point is None else y_zero_point.dtype)
    _quantize_linear_into(x, y_scale, y_zero_point, result, axis)
    return result


@register_fake("simdops::quantize_linear")
def _quantize_linear_fake(x, y_scale, y_zero_point=None, axis=1):
    return _new_like(x, torch.uint8 if y_zero_point is None else y_zero_point.dtype)


@register_fake("simdops::quantize_linear_out")
def _quantize_linear_out_fake(x, y_scale, out, y_zero_point=None, axis=1):
    return None


def _dequantize_linear_into(x, x_scale, x_zero_point, out, axis):
    _onnx().dequantize_linear(_array(x, "x"), _array(x_scale, "x_scale"),
                              _optional_array(x_zero_point, "x_zero_point"), axis=axis,
                              out=_array(out, "out"))


@simdops_custom_op("simdops::dequantize_linear_out", mutates_args={"out"})
def dequantize_linear_out(x: torch.Tensor, x_scale: torch.Tensor, out: torch.Tensor,
                          x_zero_point: Optional[torch.Tensor] = None, axis: int = 1) -> None:
    """simdops.onnx.dequantize_linear into a float32 / float16 out."""
    _dequantize_linear_into(x, x_scale, x_zero_point, out, axis)


@simdops_custom_op("simdops::dequantize_linear", mutates_args=())
def dequantize_linear(x: torch.Tensor, x_scale: torch.Tensor,
                      x_zero_point: Optional[torch.Tensor] = None,
                      axis: int = 1) -> torch.Tensor:
    """simdops.onnx.dequantize_linear: the result's dtype is x_scale's."""
    result = _new_like(x, x_scale.dtype)
    _dequantize_linear_into(x, x_scale, x_zero_point, result, axis)
    return result


@register_fake("simdops::dequantize_linear")
def _dequantize_linear_fake(x, x_scale, x_zero_point=None, axis=1):
    return _new_like(x, x_scale.dtype)


@register_fake("simdops::dequantize_linear_out")
def _dequantize_linear_out_fake(x, x_scale, out, x_zero_point=None, axis=1):
    return None


def _onnx():
    from simdops import onnx  # on first use: simdops.torch alone does not load the profile
    return onnx


# ONNX's Clip, Shrink and Hardmax (simdops.onnx's answers), in their own file
from simdops._torch_onnx import (onnx_clip, onnx_clip_out, onnx_hardmax,  # noqa: E402
                                 onnx_hardmax_out, onnx_shrink, onnx_shrink_out)


# ---- the eager fast path -----------------------------------------------------------
# custom_op registers one Python autograd kernel for every op (at the Autograd alias key):
# it checks requires_grad, builds a metadata object, enters _AutoDispatchBelowAutograd and
# redispatches through C++ to a second Python layer (two torch._disable_dynamo wrappers and
# an aliasing check) before reaching the functions above: about two thirds of a
# torch.ops.simdops.clip call on 16 floats, eager or inside a compiled graph (which calls
# the op through the same dispatcher). A kernel at AutogradCPU, which the dispatcher prefers
# to the alias for CPU tensors, calls the function directly when nothing below autograd
# needs dispatching (the next key is CPU: no fake or meta tensor, no mode, no tracing) and
# no gradient is asked for. Anything else goes to custom_op's own kernel, unchanged:
# autograd (backward through an op raises, as custom_op's does), fake tensors, other
# devices (whose error _array gives). The out= forms keep custom_op's path: below
# autograd they also need ADInplaceOrView (the version counter of out).
# Dynamo must never trace into these Python frames (the dispatcher calls them, e.g. from a
# graph-break region, with dynamo's frame hook set; custom_op's own kernels are wrapped in
# torch._disable_dynamo for this): their code objects are marked for dynamo to skip, with
# every frame they call, at registration and at no cost per call.
def _fast_autograd_cpu(op_def, fallback):
    fn = op_def._init_fn
    after_autograd = torch._C._after_autograd_keyset
    cpu = torch._C.DispatchKey.CPU
    grad_enabled = torch.is_grad_enabled
    any_requires_grad = torch._C._any_requires_grad

    def autograd_cpu(keyset, *args, **kwargs):
        if ((keyset & after_autograd).highestPriorityTypeId() == cpu
                and not (grad_enabled() and any_requires_grad(*args, **kwargs))):
            return fn(*args, **kwargs)
        return fallback(keyset, *args, **kwargs)

    return autograd_cpu


def _register_fast_paths():
    try:
        from torch._C._dynamo.eval_frame import (_FrameAction, _FrameExecStrategy,
                                                 set_code_exec_strategy)
        from torch._library.autograd import make_autograd_impl
        skip = _FrameExecStrategy(_FrameAction.SKIP, _FrameAction.SKIP)
    except (ImportError, AttributeError):   # another torch: keep custom_op's path alone
        return None
    lib = torch.library.Library("simdops", "IMPL")
    for name in __all__:
        if name.endswith("_out"):
            continue
        op_def = globals()[name]
        kernel = _fast_autograd_cpu(op_def, make_autograd_impl(op_def._opoverload, op_def))
        set_code_exec_strategy(kernel.__code__, skip)
        set_code_exec_strategy(op_def._init_fn.__code__, skip)
        lib.impl(name, kernel, "AutogradCPU", with_keyset=True)
    return lib


_FAST_PATHS = _register_fast_paths()
