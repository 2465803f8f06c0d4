"""simdops.dml, part 3 of 3: CompiledOperator.execute. DirectML's binding rules
(buffer size, base alignment, in-place aliasing), then the kernel on the bound bytes.
"""
from __future__ import annotations

from simdops import _core
from simdops.dml._types import FeatureLevel, InvalidArgumentError, TensorFlags


class _RefuseOwnedInput:
    """The plan of an operator whose input is OWNED_BY_DML: DirectML accepts it at
    compile, but there is no initializer here to own the data, so execute refuses."""

    @staticmethod
    def execute(input, output):
        return ("owned", "input")


class CompiledOperator:
    """A validated operator (IDMLCompiledOperator). execute() binds buffers and runs."""

    def __init__(self, desc, feature_level: FeatureLevel, spec, params, recompile):
        """params: the _core.Prepared of CLIP/CLIP1/SHRINK, the reduced axes of HARDMAX*;
        recompile: compile_operator, which a pickle calls again (the plan holds C views)."""
        self._desc = desc
        self._recompile = recompile
        self._feature_level = feature_level
        self._spec = spec
        tin, tout = desc.input_tensor, desc.output_tensor
        if tin.flags & TensorFlags.OWNED_BY_DML:
            self._plan = _RefuseOwnedInput
            return
        sizes, in_strides, out_strides = tin.sizes, tin.effective_strides(), tout.effective_strides()
        alias_ok = spec.in_place and _core.same_layout(tin.data_type, sizes, in_strides,
                                                       out_strides)
        self._plan = _core.BoundPlan(
            spec.core_op, tin.data_type, sizes, in_strides, out_strides, params,
            tin.total_tensor_size_in_bytes, tout.total_tensor_size_in_bytes,
            tin.guaranteed_base_offset_alignment, tout.guaranteed_base_offset_alignment,
            alias_ok)

    def __reduce__(self):
        # the plan holds C views: a pickle carries the descriptor and compiles again
        return self._recompile, (self._desc, self._feature_level)

    @property
    def desc(self):
        """The operator description this was compiled from."""
        return self._desc

    @property
    def feature_level(self) -> FeatureLevel:
        """The feature level the description was validated against."""
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
        failure = self._plan.execute(input, output)
        if failure is not None:
            raise self._binding_error(failure, input if failure[1] == "input" else output)

    def _binding_error(self, failure, buffer) -> Exception:
        """DirectML's wording for a binding rule BoundPlan.execute reported."""
        kind, which = failure[0], failure[1]
        role = "InputTensor" if which == "input" else "OutputTensor"
        t = self._desc.input_tensor if which == "input" else self._desc.output_tensor
        name = self._spec.name
        if kind == "owned":
            return InvalidArgumentError(
                "InputTensor.Flags has OWNED_BY_DML; simdops has no operator initializer or "
                "persistent resource to own the data, so it cannot execute such a tensor")
        if kind == "type":
            return TypeError(f"{which} must support the buffer protocol (bytearray, numpy array, "
                             f"memoryview, ...), got {type(buffer).__name__}")
        if kind == "objects":
            return TypeError(f"{which} holds Python objects (a numpy object array); a bound "
                             f"buffer is raw bytes")
        if kind == "contiguous":
            return InvalidArgumentError(f"{which} buffer is not C-contiguous; a bound buffer is "
                                        f"one flat range of bytes")
        if kind == "readonly":
            return InvalidArgumentError(
                f"{which} buffer is read-only; OutputTensor needs a writable buffer")
        if kind == "size":
            return InvalidArgumentError(
                f"{which} buffer has {failure[2]} bytes; {role}.TotalTensorSizeInBytes is "
                f"{t.total_tensor_size_in_bytes}")
        if kind == "align":
            return InvalidArgumentError(
                f"{which} buffer address {failure[2]:#x} is not a multiple of "
                f"{role}.GuaranteedBaseOffsetAlignment {t.guaranteed_base_offset_alignment}")
        if not self._spec.in_place:
            return InvalidArgumentError(
                f"{name} cannot run in place: the output binding overlaps the input binding")
        return InvalidArgumentError(
            f"the output binding overlaps the input binding; {name} runs in place only "
            f"when OutputTensor aliases InputTensor exactly (same address and strides)")
