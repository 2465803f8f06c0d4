"""The tensor side of simdops.torch's kernels, shared by simdops.torch and
simdops._torch_onnx: how an op is registered, a zero-copy numpy view of a CPU tensor with a
clear error otherwise, and the functional ops' result tensor."""
from typing import Optional

import numpy as np
import torch
from torch.library import custom_op

# Every simdops op reads and writes tensors of any strides (the array API takes any strides
# and the bits depend on logical indices only; a functional op's result is contiguous, in
# its fake too), so each is registered as taking any layout. Without a layout tag, inductor
# applies its default custom-op constraint (the exact strides the op saw when traced): it
# normalizes the call against the schema, and its generated code then passes every
# defaulted argument by keyword, `simdops.clip.default(x, -1.0, 1.0, scale=None,
# bias=None)`, ~0.7 us a call more than the positional call (the dispatcher parses the
# keywords; measured interleaved on 16 float32), and it may copy an input to those strides.
# An older torch without the tag: no tag (its default constraint).
_ANY_LAYOUT = tuple(tag for tag in (getattr(torch.Tag, "flexible_layout", None),)
                    if tag is not None)


def simdops_custom_op(name: str, mutates_args):
    """torch.library.custom_op for a simdops op: any input layout (see _ANY_LAYOUT)."""
    return custom_op(name, mutates_args=mutates_args, tags=_ANY_LAYOUT)


def _array(t: torch.Tensor, name: str) -> np.ndarray:
    """A zero-copy numpy view of a CPU tensor (any strides); a clear error otherwise."""
    try:  # the common case first: each torch query below costs a dispatcher call
        return t.numpy()
    except (AttributeError, RuntimeError, TypeError):
        pass
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise ValueError(f"{name} is a tensor on {t.device}; simdops runs on the CPU "
                         f"(move it there first, e.g. tensor.cpu())")
    if t.is_neg() or t.is_conj():  # a lazy sign bit numpy would not see
        t = t.resolve_neg().resolve_conj()
    try:
        return t.detach().numpy()
    except TypeError as e:  # a dtype numpy has no match for (bfloat16, ...)
        raise TypeError(f"{name} has dtype {t.dtype}, which simdops does not compute on "
                        f"({e})") from None


def _new_like(x: torch.Tensor, dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """The functional ops' result: contiguous, x's shape (the same for fake and real).
    empty_like, not torch.empty(x.shape, dtype=, device=): the device argument alone costs
    ~10,000 instructions a call, a sixth of an eager torch.ops.simdops.clip on 16 floats."""
    return torch.empty_like(x, dtype=dtype, memory_format=torch.contiguous_format)
