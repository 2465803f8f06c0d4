"""simdops.dml, part 3 of 3: CompiledOperator.execute. DirectML's binding rules
(buffer size, base alignment, in-place aliasing), then the kernel on the bound bytes.
"""
from __future__ import annotations

import numpy as np

import simdops  # the array API; looked up at call time so import order does not matter
from simdops._dml_types import (_NUMPY_DTYPE, BufferTensorDesc, FeatureLevel,
                                InvalidArgumentError, TensorFlags)

# --------------------------------------------------------------------------- execution

def _bytes_of(buf, name: str, writable: bool) -> memoryview:
    try:
        mv = memoryview(buf)
    except TypeError:
        raise TypeError(f"{name} must support the buffer protocol (bytearray, numpy array, "
                        f"memoryview, ...), got {type(buf).__name__}") from None
    if writable and mv.readonly:
        raise InvalidArgumentError(
            f"{name} buffer is read-only; OutputTensor needs a writable buffer")
    if not mv.c_contiguous:
        raise InvalidArgumentError(
            f"{name} buffer is not C-contiguous; a bound buffer is one flat range of bytes")
    return mv.cast("B") if (mv.ndim != 1 or mv.format != "B") else mv


def _address(mv: memoryview) -> int:
    return np.frombuffer(mv, dtype=np.uint8).__array_interface__["data"][0] if mv.nbytes else 0


def _view(mv: memoryview, t: BufferTensorDesc) -> np.ndarray:
    """The tensor as a numpy view of the buffer: element strides * itemsize bytes."""
    dt = _NUMPY_DTYPE[t.data_type]
    strides = t.effective_strides()
    count = sum((s - 1) * st for s, st in zip(t.sizes, strides)) + 1
    flat = np.frombuffer(mv, dtype=dt, count=count)
    return np.lib.stride_tricks.as_strided(
        flat, shape=t.sizes, strides=tuple(st * dt.itemsize for st in strides),
        writeable=not mv.readonly)


def _same_layout(a: BufferTensorDesc, b: BufferTensorDesc) -> bool:
    return all(s == 1 or x == y for s, x, y in zip(a.sizes, a.effective_strides(),
                                                   b.effective_strides()))


class CompiledOperator:
    """A validated operator (IDMLCompiledOperator). execute() binds buffers and runs."""

    def __init__(self, desc, feature_level: FeatureLevel, spec, params: dict):
        self._desc = desc
        self._feature_level = feature_level
        self._spec = spec
        self._params = params

    @property
    def desc(self):
        return self._desc

    @property
    def feature_level(self) -> FeatureLevel:
        return self._feature_level

    @property
    def operator(self) -> str:
        """"CLIP", "CLIP1", "SHRINK", "HARDMAX" or "HARDMAX1"."""
        return self._spec.name

    def __repr__(self):
        return f"<dml.CompiledOperator {self._spec.name} at {self._feature_level.name}>"

    def execute(self, input, output) -> None:
        """Run on two buffers seen as raw bytes (offset 0 = the tensor's base).
        Checks the bindings as DirectML does: size >= TotalTensorSizeInBytes,
        address alignment, writable output, in-place only where allowed."""
        name = self._spec.name
        tin, tout = self._desc.input_tensor, self._desc.output_tensor
        if tin.flags & TensorFlags.OWNED_BY_DML:
            raise InvalidArgumentError(
                "InputTensor.Flags has OWNED_BY_DML; simdops has no operator initializer or "
                "persistent resource to own the data, so it cannot execute such a tensor")
        bin_ = _bytes_of(input, "input", writable=False)
        bout = _bytes_of(output, "output", writable=True)
        addresses = []
        for mv, t, role, which in ((bin_, tin, "InputTensor", "input"),
                                   (bout, tout, "OutputTensor", "output")):
            if mv.nbytes < t.total_tensor_size_in_bytes:
                raise InvalidArgumentError(
                    f"{which} buffer has {mv.nbytes} bytes; {role}.TotalTensorSizeInBytes is "
                    f"{t.total_tensor_size_in_bytes}")
            addr = _address(mv)
            align = t.guaranteed_base_offset_alignment
            if align and addr % align:
                raise InvalidArgumentError(
                    f"{which} buffer address {addr:#x} is not a multiple of "
                    f"{role}.GuaranteedBaseOffsetAlignment {align}")
            addresses.append(addr)
        a_in, a_out = addresses
        if (a_in < a_out + tout.total_tensor_size_in_bytes
                and a_out < a_in + tin.total_tensor_size_in_bytes):
            if not self._spec.in_place:
                raise InvalidArgumentError(
                    f"{name} cannot run in place: the output binding overlaps the input binding")
            if a_in != a_out or not _same_layout(tin, tout):
                raise InvalidArgumentError(
                    f"the output binding overlaps the input binding; {name} runs in place only "
                    f"when OutputTensor aliases InputTensor exactly (same address and strides)")
        x = _view(bin_, tin)
        y = _view(bout, tout)
        p = self._params
        if name in ("CLIP", "CLIP1"):
            simdops.clip(x, p["min"], p["max"], scale=p.get("scale"), bias=p.get("bias"), out=y)
        elif name == "SHRINK":
            simdops.shrink(x, p["bias"], p["threshold"], out=y)
        else:
            simdops.hardmax(x, axis=p["axis"], out=y)

