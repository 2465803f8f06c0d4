"""ONNX's Clip, Shrink and Hardmax (simdops.onnx's answers) as torch custom ops:
``torch.ops.simdops.onnx_clip``, ``onnx_shrink``, ``onnx_hardmax`` and their ``_out``
forms. Part of simdops.torch (which imports this module and exports the ops); apart only to
keep each file to one screenful of ops."""
from typing import Optional

import torch
from torch.library import register_fake
from torch.types import Number

from simdops._torch_tensors import _array, _new_like, simdops_custom_op


def _onnx():
    from simdops import onnx  # on first use: simdops.torch alone does not load the profile
    return onnx


@simdops_custom_op("simdops::onnx_clip_out", mutates_args={"out"})
def onnx_clip_out(x: torch.Tensor, out: torch.Tensor, min: Optional[Number] = None,
                  max: Optional[Number] = None) -> None:
    """simdops.onnx.clip(x, min, max, out=out): ONNX Clip (min > max gives max; None: no
    bound) into out."""
    _onnx().clip(_array(x, "x"), min, max, out=_array(out, "out"))


@simdops_custom_op("simdops::onnx_clip", mutates_args=())
def onnx_clip(x: torch.Tensor, min: Optional[Number] = None,
              max: Optional[Number] = None) -> torch.Tensor:
    """simdops.onnx.clip on a CPU tensor: ONNX Clip, a new contiguous tensor."""
    result = _new_like(x)
    _onnx().clip(_array(x, "x"), min, max, out=_array(result, "out"))
    return result


@simdops_custom_op("simdops::onnx_shrink_out", mutates_args={"out"})
def onnx_shrink_out(x: torch.Tensor, out: torch.Tensor, bias: float = 0.0,
                    lambd: float = 0.5) -> None:
    """simdops.onnx.shrink(x, bias, lambd, out=out): ONNX Shrink into out."""
    _onnx().shrink(_array(x, "x"), bias, lambd, out=_array(out, "out"))


@simdops_custom_op("simdops::onnx_shrink", mutates_args=())
def onnx_shrink(x: torch.Tensor, bias: float = 0.0, lambd: float = 0.5) -> torch.Tensor:
    """simdops.onnx.shrink on a CPU tensor: ONNX Shrink (NaN gives 0), a new tensor."""
    result = _new_like(x)
    _onnx().shrink(_array(x, "x"), bias, lambd, out=_array(result, "out"))
    return result


@simdops_custom_op("simdops::onnx_hardmax_out", mutates_args={"out"})
def onnx_hardmax_out(x: torch.Tensor, out: torch.Tensor, axis: Optional[int] = None,
                     opset: int = 13) -> None:
    """simdops.onnx.hardmax(x, axis, opset=opset, out=out): ONNX Hardmax into out."""
    _onnx().hardmax(_array(x, "x"), axis, opset=opset, out=_array(out, "out"))


@simdops_custom_op("simdops::onnx_hardmax", mutates_args=())
def onnx_hardmax(x: torch.Tensor, axis: Optional[int] = None, opset: int = 13) -> torch.Tensor:
    """simdops.onnx.hardmax on a CPU tensor: ONNX Hardmax (opset 13: one axis, default -1;
    opsets 1 and 11: coerced to 2-D at axis, default 1), a new tensor."""
    result = _new_like(x)
    _onnx().hardmax(_array(x, "x"), axis, opset=opset, out=_array(result, "out"))
    return result


@register_fake("simdops::onnx_clip")
def _onnx_clip_fake(x, min=None, max=None):
    return _new_like(x)


@register_fake("simdops::onnx_shrink")
def _onnx_shrink_fake(x, bias=0.0, lambd=0.5):
    return _new_like(x)


@register_fake("simdops::onnx_hardmax")
def _onnx_hardmax_fake(x, axis=None, opset=13):
    return _new_like(x)


@register_fake("simdops::onnx_clip_out")
@register_fake("simdops::onnx_shrink_out")
@register_fake("simdops::onnx_hardmax_out")
def _onnx_out_fake(x, out, *args):
    return None
