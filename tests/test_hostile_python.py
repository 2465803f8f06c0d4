"""Hostile inputs to the Python API and the descriptor layers: each case once gave a
wrong answer or leaked a raw exception; now it is right or a TypeError/ValueError
that names the argument."""
from fractions import Fraction

import numpy as np
import pytest

import simdops
from simdops import acl, dml


def _torch():
    return pytest.importorskip("torch")


# ------------------------------------------------------------------ torch lazy views

def test_torch_negative_view_as_x_is_read_with_its_sign():
    t = _torch()
    v = t.tensor([1 + 2j, -3 - 4j]).conj().imag  # a view with the negative bit set
    assert v.is_neg()
    np.testing.assert_array_equal(simdops.clip(v, -10, 10), [-2.0, 4.0])
    np.testing.assert_array_equal(simdops.clip(v, -3, 3), [-2.0, 3.0])
    np.testing.assert_array_equal(simdops.shrink(v, 1.0, 1.0), [-1.0, 3.0])
    assert v.tolist() == [-2.0, 4.0]  # the caller's tensor is untouched


def test_torch_negative_view_as_out_is_refused():
    t = _torch()
    holder = t.zeros(2, dtype=t.complex64)
    out = holder.conj().imag
    assert out.is_neg()
    with pytest.raises(ValueError, match=r"\bout\b.*negative"):
        simdops.clip(np.array([1.0, 2.0], np.float32), -10, 10, out=out)
    assert holder.tolist() == [0j, 0j]


def test_torch_conjugate_view_as_out_is_refused():
    t = _torch()
    out = t.zeros(2, dtype=t.complex64).conj()
    assert out.is_conj()
    with pytest.raises(ValueError, match=r"\bout\b.*conjugate"):
        simdops.clip(np.array([1.0, 2.0], np.float32), -10, 10, out=out)


def test_torch_conjugate_view_as_x_is_materialised_then_judged_by_dtype():
    t = _torch()
    # read (resolved), then refused for its dtype like any complex tensor
    with pytest.raises(TypeError, match=r"^x: unsupported buffer format 'Z"):
        simdops.clip(t.tensor([1 + 2j]).conj(), 0, 1)


# ------------------------------------------------------------------ datetime64 / timedelta64

@pytest.mark.parametrize("dtype", ["datetime64[D]", "timedelta64[s]", "datetime64[ns]"])
def test_datetime_array_as_x_is_a_type_error_naming_x(dtype):
    with pytest.raises(TypeError, match=r"^x\b.*(datetime64|timedelta64)"):
        simdops.clip(np.zeros(3, dtype), 0, 1)


@pytest.mark.parametrize("dtype", ["datetime64[D]", "timedelta64[s]"])
def test_datetime_array_as_out_is_a_type_error_naming_out(dtype):
    with pytest.raises(TypeError, match=r"^out\b.*(datetime64|timedelta64)"):
        simdops.clip(np.zeros(3, np.int64), 0, 1, out=np.zeros(3, dtype))


@pytest.mark.parametrize("scalar", [np.timedelta64(5, "s"), np.datetime64("2020-01-01")])
def test_datetime_scalar_is_a_type_error_not_raw_bytes(scalar):
    with pytest.raises(TypeError, match=r"^x\b.*(datetime64|timedelta64)"):
        simdops.clip(scalar, 0, 1)
    with pytest.raises(TypeError, match=r"^x\b"):
        simdops.hardmax(scalar)


# ------------------------------------------------------------------ DLPack producers that fail

class BrokenDLPack:
    def __init__(self, exc, where):
        self.exc, self.where = exc, where

    def __dlpack__(self, **kwargs):
        if self.where == "__dlpack__":
            raise self.exc
        return np.zeros(2, np.float32).__dlpack__(**kwargs)

    def __dlpack_device__(self):
        if self.where == "__dlpack_device__":
            raise self.exc
        return (1, 0)


@pytest.mark.parametrize("exc", [KeyError("k"), AttributeError("a"), ZeroDivisionError("z")],
                         ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("where", ["__dlpack__", "__dlpack_device__"])
@pytest.mark.parametrize("role", ["x", "out"])
def test_failing_dlpack_methods_are_wrapped_naming_the_argument(exc, where, role):
    obj = BrokenDLPack(exc, where)
    with pytest.raises((TypeError, ValueError), match=rf"^{role}\b.*{where}") as info:
        if role == "x":
            simdops.clip(obj, 0, 1)
        else:
            simdops.clip(np.zeros(2, np.float32), 0, 1, out=obj)
    assert info.value.__cause__ is exc  # the original is chained, not lost


@pytest.mark.parametrize("role", ["x", "out"])
def test_torch_meta_tensor_is_refused_naming_the_argument(role):
    t = _torch()
    meta = t.zeros(2, device="meta")
    with pytest.raises(ValueError, match=rf"^{role}\b.*meta"):
        if role == "x":
            simdops.clip(meta, 0, 1)
        else:
            simdops.clip(np.zeros(2, np.float32), 0, 1, out=meta)


# ------------------------------------------------------------------ lists that are not numbers

def test_requant_list_beyond_int32_says_so():
    for big in (2**64, -(2**70), 2**31):
        with pytest.raises(ValueError, match=r"^x\b.*int32 range"):
            simdops.quantize_down_int32([big], 1 << 30, 0)


@pytest.mark.parametrize("x", [None, [1, "a"], ["a", "b"], [1, None], [[1], [2, 3]], {"a": 1}])
def test_non_numbers_are_named_as_such(x):
    with pytest.raises(TypeError, match=r"^x\b") as info:
        simdops.clip(x, 0, 1)
    assert "unsupported buffer format" not in str(info.value)


def test_clip_list_beyond_64_bits_says_so():
    with pytest.raises(ValueError, match=r"^x\b.*64"):
        simdops.clip([2**64], 0, 1)


def test_requant_empty_list_is_int32():
    y = simdops.quantize_down_int32([], 1 << 30, 0)
    assert y.dtype == np.uint8 and y.shape == (0,)
    y = simdops.quantize_down_int32([[], []], 1 << 30, 0, out_dtype="int8")
    assert y.dtype == np.int8 and y.shape == (2, 0)


def test_dask_requant_of_a_list_equals_the_in_memory_call():
    pytest.importorskip("dask.array")
    import simdops.dask as sd
    x = [[100, 200], [-7, 2**31 - 1]]
    expected = simdops.quantize_down_int32(x, 1 << 30, 1, 3)
    np.testing.assert_array_equal(sd.quantize_down_int32(x, 1 << 30, 1, 3).compute(), expected)
    with pytest.raises(ValueError, match=r"\bx\b.*int32 range"):
        sd.quantize_down_int32([[2**31]], 1 << 30, 1)


# ------------------------------------------------------------------ dml / acl numbers

_HUGE = Fraction(10**400, 3)


def _f32_desc(**kw):
    return dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (2, 2), **kw)


def test_dml_huge_fraction_is_the_float_it_rounds_to():
    sb = dml.ScaleBias(_HUGE, -_HUGE)
    assert sb.scale == float("inf") and sb.bias == float("-inf")
    d = _f32_desc()
    op = dml.compile_operator(dml.ElementWiseClipOperatorDesc(d, d, -_HUGE, _HUGE))
    x = np.array([-1e38, 0, 3, 1e38], np.float32)
    y = np.empty_like(x)
    op.execute(x, y)
    np.testing.assert_array_equal(y, x)  # [-inf, inf] keeps every finite value
    with pytest.raises(dml.InvalidArgumentError, match="Min"):
        dml.compile_operator(dml.ElementWiseClip1OperatorDesc(
            dml.BufferTensorDesc(dml.TensorDataType.INT32, (2, 2)),
            dml.BufferTensorDesc(dml.TensorDataType.INT32, (2, 2)),
            dml.TensorDataType.INT32, _HUGE, 1))
    op = dml.compile_operator(dml.ActivationShrinkOperatorDesc(d, d, 0, _HUGE))
    y = np.empty_like(x)
    op.execute(x, y)
    np.testing.assert_array_equal(y, np.zeros_like(x))  # nothing exceeds +inf
    with pytest.raises(dml.InvalidArgumentError, match="Threshold"):
        dml.compile_operator(dml.ActivationShrinkOperatorDesc(d, d, 0, -_HUGE))


@pytest.mark.parametrize("axis", [2**63, 2**64 + 1, 2**31])
def test_dml_hardmax1_huge_axis_names_axes(axis):
    d = _f32_desc()
    with pytest.raises(dml.InvalidArgumentError, match=r"Axes\[1\]"):
        dml.compile_operator(dml.ActivationHardmax1OperatorDesc(d, d, (0, axis)))


def test_dml_total_size_2_63_fits_uint64():
    d = _f32_desc()
    op = dml.compile_operator(dml.ElementWiseClipOperatorDesc(
        _f32_desc(total_tensor_size_in_bytes=2**63), d, 0, 1))
    # compiles; at execute no buffer is that large: the size rule says so
    with pytest.raises(ValueError, match="InputTensor"):
        op.execute(np.zeros(4, np.float32), np.zeros(4, np.float32))
    with pytest.raises(dml.InvalidArgumentError, match="UINT64"):
        dml.compile_operator(dml.ElementWiseClipOperatorDesc(
            _f32_desc(total_tensor_size_in_bytes=2**64), d, 0, 1))


def test_dml_alignment_message_states_a_true_limit():
    d = _f32_desc()
    with pytest.raises(dml.InvalidArgumentError) as info:
        dml.compile_operator(dml.ElementWiseClipOperatorDesc(
            _f32_desc(guaranteed_base_offset_alignment=2**40), d, 0, 1))
    msg = str(info.value)
    assert "2**31" in msg or "2147483648" in msg
    # and the stated limit holds: 2**31 itself is accepted
    dml.compile_operator(dml.ElementWiseClipOperatorDesc(
        _f32_desc(guaranteed_base_offset_alignment=2**31), d, 0, 1))


def test_acl_endless_range_of_multipliers_is_a_clear_error():
    with pytest.raises(ValueError, match="gemmlowp_multipliers.*entries"):
        acl.GEMMLowpOutputStageInfo(gemmlowp_multipliers=range(2**70))
    with pytest.raises(ValueError, match="gemmlowp_shifts.*entries"):
        acl.GEMMLowpOutputStageInfo(gemmlowp_shifts=range(2**70))


# ------------------------------------------------------------------ unreadable dtype spellings

# numpy parses a string with a comma as a Python literal (',' raised SyntaxError through
# quantize_down_int32's out_dtype; found by the fuzzer), and other spellings raise ValueError
@pytest.mark.parametrize("spelling", [",", "i4,", "(", "f8[", "S-1"])
def test_unreadable_dtype_spellings_are_a_type_error_naming_the_argument(spelling):
    from simdops import onnx, runtimes
    with pytest.raises(TypeError, match="out_dtype"):
        simdops.quantize_down_int32([1, 2], 1 << 30, 0, out_dtype=spelling)
    with pytest.raises(TypeError, match="out_dtype"):
        simdops.requantize_fp32([1, 2], 0.5, out_dtype=spelling)
    with pytest.raises(TypeError, match="dtype"):
        simdops.quantized_binary_params("add", 0.5, 0, 0.5, 0, 0.5, 0, dtype=spelling)
    with pytest.raises(TypeError, match="dtype"):
        runtimes.openvino_quantize_linear_params(0.5, 0, dtype=spelling)
    with pytest.raises(TypeError, match="out_dtype"):
        runtimes.onednn_requant_params(0.5, 0.5, 0.5, out_dtype=spelling)
    with pytest.raises(TypeError):
        onnx.quantize_linear(np.zeros(4, np.float32), np.float32(1.0), output_dtype=spelling)
