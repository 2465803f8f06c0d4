"""DirectML-style descriptors: describe tensors and operators the way
directml.h does, validate them per feature level at compile_operator, and
execute on raw byte buffers through the same kernels as the array API.

    from simdops import dml
    t = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (1, 1, 2, 3))
    op = dml.compile_operator(dml.ElementWiseClipOperatorDesc(t, t, min=0.0, max=1.0))
    op.execute(src_bytes, dst_bytes)

The implementation is split by job: _types (enums, descriptors,
DMLCalcBufferTensorSize), _validate (compile_operator and the feature-level
tables), _execute (CompiledOperator and the binding rules). Field-by-field
mapping to directml.h and the decisions taken where directml.h is silent:
docs/descriptors.md.
"""
from simdops.dml._execute import CompiledOperator
from simdops.dml._types import NEWEST_FEATURE_LEVEL  # noqa: F401 (a module attribute)
from simdops.dml._types import (
    ActivationHardmax1OperatorDesc, ActivationHardmaxOperatorDesc,
    ActivationShrinkOperatorDesc, BufferTensorDesc, ElementWiseClip1OperatorDesc,
    ElementWiseClipOperatorDesc, FeatureLevel, InvalidArgumentError, ScaleBias,
    TensorDataType, TensorFlags, calc_buffer_tensor_size)
from simdops.dml._validate import compile_operator

__all__ = [
    "TensorDataType", "TensorFlags", "FeatureLevel", "InvalidArgumentError",
    "BufferTensorDesc", "ScaleBias", "ElementWiseClipOperatorDesc",
    "ElementWiseClip1OperatorDesc", "ActivationShrinkOperatorDesc",
    "ActivationHardmaxOperatorDesc", "ActivationHardmax1OperatorDesc",
    "calc_buffer_tensor_size", "compile_operator", "CompiledOperator",
]
