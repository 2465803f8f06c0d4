"""Type stubs for simdops.torch (torch.ops.simdops.* custom ops; docs/torch.md)."""
from collections.abc import Sequence

import torch
from torch.types import Number

__all__: list[str]

def clip(x: torch.Tensor, min: Number | None, max: Number | None,
         scale: Number | None = None, bias: Number | None = None) -> torch.Tensor: ...
def clip_out(x: torch.Tensor, min: Number | None, max: Number | None, out: torch.Tensor,
             scale: Number | None = None, bias: Number | None = None) -> None: ...
def shrink(x: torch.Tensor, bias: Number = 0.0, threshold: Number = 0.5) -> torch.Tensor: ...
def shrink_out(x: torch.Tensor, out: torch.Tensor, bias: Number = 0.0,
               threshold: Number = 0.5) -> None: ...
def hardmax(x: torch.Tensor, axis: Sequence[int] | None = None) -> torch.Tensor: ...
def hardmax_out(x: torch.Tensor, out: torch.Tensor,
                axis: Sequence[int] | None = None) -> None: ...
def quantize_down_int32(x: torch.Tensor, multiplier: torch.Tensor, shift: torch.Tensor,
                        offset: int = 0, bias: torch.Tensor | None = None,
                        min: int | None = None, max: int | None = None,
                        out_dtype: torch.dtype = ..., rounding: str = "double") -> torch.Tensor: ...
def quantize_down_int32_out(x: torch.Tensor, multiplier: torch.Tensor, shift: torch.Tensor,
                            out: torch.Tensor, offset: int = 0,
                            bias: torch.Tensor | None = None, min: int | None = None,
                            max: int | None = None, rounding: str = "double") -> None: ...
def requantize_fp32(x: torch.Tensor, scale: torch.Tensor, zero_point: int = 0,
                    bias: torch.Tensor | None = None, min: int | None = None,
                    max: int | None = None, out_dtype: torch.dtype = ...,
                    precision: str = "float32", ties: str = "even") -> torch.Tensor: ...
def requantize_fp32_out(x: torch.Tensor, scale: torch.Tensor, out: torch.Tensor,
                        zero_point: int = 0, bias: torch.Tensor | None = None,
                        min: int | None = None, max: int | None = None,
                        precision: str = "float32", ties: str = "even") -> None: ...
