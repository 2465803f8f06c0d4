"""Interop (docs/semantics.md): every input kind the array API takes, `out=` as a buffer
or a DLPack tensor, numpy's scalar-result rule, and one-sided clip on every dtype."""
import array

import numpy as np
import pytest

import simdops
from reference import CLIP_DTYPES, assert_matches, clip, edge_values, int_range, is_float

DTYPE_IDS = [np.dtype(d).name for d in CLIP_DTYPES]


class ArrayLike:
    """The smallest object numpy converts: only __array__."""

    def __init__(self, values):
        self._values = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self._values if dtype is None else self._values.astype(dtype)


class DLPackOnly:
    """The smallest DLPack producer: a numpy array's capsule, nothing else
    (no buffer protocol, no __array__)."""

    def __init__(self, arr, device=(1, 0)):
        self._arr = arr
        self._device = device

    def __dlpack__(self, **kwargs):
        return self._arr.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._device


# ------------------------------------------------------------------ inputs

def test_list_input_matches_numpy_clip():
    y = simdops.clip([1.0, 2.0, -3.0], 0, 1)
    assert isinstance(y, np.ndarray) and y.dtype == np.float64
    np.testing.assert_array_equal(y, np.clip([1.0, 2.0, -3.0], 0, 1))


def test_nested_tuple_input():
    y = simdops.shrink(((1.0, -2.0), (0.25, 3.0)), 0.5, 0.5)
    assert y.shape == (2, 2)
    np.testing.assert_array_equal(y, [[0.5, -1.5], [0.0, 2.5]])


def test_python_scalar_gives_numpy_scalar():
    y = simdops.clip(3.0, 0, 1)
    assert type(y) is np.float64 and y == 1.0
    assert np.clip(3.0, 0, 1) == y and type(np.clip(3.0, 0, 1)) is type(y)


def test_python_int_scalar():
    y = simdops.clip(7, 0, 5)
    assert isinstance(y, np.integer) and y == 5


def test_numpy_scalar_gives_numpy_scalar_of_its_type():
    y = simdops.clip(np.float32(3), 0, 1)
    assert type(y) is np.float32 and y == np.float32(1)
    assert type(np.clip(np.float32(3), 0, 1)) is np.float32


def test_zero_d_array_gives_scalar_like_numpy():
    x = np.array(-2.0, np.float32)
    y = simdops.clip(x, -1, 1)
    assert type(y) is type(np.clip(x, -1, 1)) and y == -1


def test_scalar_with_out_returns_out():
    out = np.empty((), np.float64)
    y = simdops.clip(3.0, 0, 1, out=out)
    assert y is out and out[()] == 1.0


def test_memoryview_and_array_array_inputs():
    a = array.array("f", [0.5, 2.0, -4.0])
    y = simdops.clip(a, 0, 1)
    np.testing.assert_array_equal(y, np.array([0.5, 1.0, 0.0], np.float32))
    y = simdops.clip(memoryview(a), 0, 1)
    np.testing.assert_array_equal(y, np.array([0.5, 1.0, 0.0], np.float32))


def test_array_like_object():
    y = simdops.shrink(ArrayLike(np.array([1.0, -1.0, 0.1], np.float32)), 0.5, 0.5)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, np.array([0.5, -0.5, 0.0], np.float32))


def test_dlpack_object_is_viewed_not_copied():
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    y = simdops.clip(DLPackOnly(x), -1, 1)
    np.testing.assert_array_equal(y, np.clip(x, -1, 1))
    # as out: the kernel writes into the producer's memory
    target = np.zeros(9, np.float32)
    holder = DLPackOnly(target)
    assert simdops.clip(x, -1, 1, out=holder) is holder
    np.testing.assert_array_equal(target, np.clip(x, -1, 1))


def test_dlpack_on_another_device_is_refused():
    fake = DLPackOnly(np.zeros(3, np.float32), device=(2, 0))
    with pytest.raises(ValueError, match=r"x .*cuda:0.*CPU"):
        simdops.clip(fake, 0, 1)
    with pytest.raises(ValueError, match=r"out .*cuda:0.*CPU"):
        simdops.clip(np.zeros(3, np.float32), 0, 1, out=fake)


def test_read_only_dlpack_out_is_refused():
    frozen = np.zeros(3, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=r"out must be writable"):
        simdops.clip(np.ones(3, np.float32), 0, 1, out=DLPackOnly(frozen))
    assert not frozen.any()


def test_out_must_be_writable_memory():
    with pytest.raises(TypeError, match=r"\bout\b"):
        simdops.clip(np.ones(3), 0, 1, out=[0.0, 0.0, 0.0])


@pytest.mark.parametrize("bad", [None, "abc", {"a": 1}, object()],
                         ids=["None", "str", "dict", "object"])
def test_non_numeric_inputs_are_type_errors(bad):
    with pytest.raises(TypeError, match=r"\bx\b"):
        simdops.clip(bad, 0, 1)


def test_ragged_list_is_type_error():
    with pytest.raises(TypeError, match=r"\bx\b"):
        simdops.clip([[1.0, 2.0], [3.0]], 0, 1)


def test_requant_list_of_python_ints_is_int32():
    got = simdops.quantize_down_int32_to_uint8([1000, -5, 1 << 20], 1 << 30, 1, 128)
    want = simdops.quantize_down_int32_to_uint8(np.array([1000, -5, 1 << 20], np.int32),
                                                1 << 30, 1, 128)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match=r"x .*int32"):
        simdops.quantize_down_int32_to_uint8([1 << 40], 1 << 30, 1, 128)
    # a typed array keeps its dtype: int64 is not requant's input type
    with pytest.raises(TypeError, match=r"\bx\b"):
        simdops.quantize_down_int32_to_uint8(np.array([1], np.int64), 1 << 30, 1, 128)


# ------------------------------------------------------------------ torch

def _torch():
    """torch, imported per test so the rest of the file runs without it."""
    return pytest.importorskip("torch")


def test_torch_tensor_in():
    t = _torch()
    x = t.linspace(-2, 2, 17)
    y = simdops.clip(x, -0.5, 0.5)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32
    np.testing.assert_array_equal(y, np.clip(x.numpy(), -0.5, 0.5))


def test_torch_tensor_as_out_is_written_in_place():
    t = _torch()
    x = t.randn(64, generator=t.Generator().manual_seed(0))
    out = t.empty(64)
    ptr = out.data_ptr()
    got = simdops.shrink(x, 0.5, 0.5, out=out)
    assert got is out and out.data_ptr() == ptr
    want = t.nn.functional.softshrink(x, 0.5)  # bias == threshold: softshrink
    assert t.equal(out, want)


def test_torch_strided_views():
    t = _torch()
    base = t.arange(48, dtype=t.float32).reshape(6, 8)
    view = base.t()[::2]  # non-contiguous, transposed
    y = simdops.clip(view, 5, 30)
    np.testing.assert_array_equal(y, np.clip(view.numpy(), 5, 30))
    out = t.zeros(8, 6).t()
    simdops.clip(base, 5, 30, out=out)
    assert t.equal(out, base.clamp(5, 30))


def test_torch_hardmax_and_requant():
    t = _torch()
    x = t.tensor([[1.0, 3.0, 3.0], [-1.0, -2.0, -0.5]])
    out = t.empty_like(x)
    simdops.hardmax(x, axis=1, out=out)
    assert t.equal(out, t.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    acc = t.tensor([[100, -100, 70000]], dtype=t.int32)
    q = t.empty(1, 3, dtype=t.uint8)
    simdops.quantize_down_int32_to_uint8(acc, 1 << 30, 2, 10, out=q)
    np.testing.assert_array_equal(
        q.numpy(), simdops.quantize_down_int32_to_uint8(acc.numpy(), 1 << 30, 2, 10))


def test_torch_errors():
    t = _torch()
    with pytest.raises(TypeError, match=r"\bx\b.*DLPack.*grad"):
        simdops.clip(t.ones(3, requires_grad=True), 0, 1)
    with pytest.raises(TypeError, match=r"\bx\b"):
        simdops.clip(t.ones(3, dtype=t.bfloat16), 0, 1)
    with pytest.raises(TypeError, match=r"out has dtype float64"):
        simdops.clip(np.ones(3, np.float32), 0, 1, out=t.zeros(3, dtype=t.float64))


# ------------------------------------------------------------------ one-sided clip

@pytest.mark.parametrize("dtype", CLIP_DTYPES, ids=DTYPE_IDS)
def test_one_sided_clip_every_dtype(dtype):
    x = np.concatenate([edge_values(dtype)] * 3)
    params = [0, 1, -1, 100.5] if is_float(dtype) or np.dtype(dtype).kind == "i" else [0, 1, 100]
    if is_float(dtype):
        lowest, highest = -np.inf, np.inf
    else:
        lowest, highest = int_range(dtype)
    for v in params:
        assert_matches(simdops.clip(x, None, v), clip(x, lowest, v), x)
        assert_matches(simdops.clip(x, v, None), clip(x, v, highest), x)
    assert_matches(simdops.clip(x, None, None), x.copy(), x)


def test_one_sided_clip_agrees_with_numpy():
    x = np.array([-3.0, 0.5, 7.0, np.inf, -np.inf], np.float32)
    np.testing.assert_array_equal(simdops.clip(x, None, 1.0), np.clip(x, None, 1.0))
    np.testing.assert_array_equal(simdops.clip(x, 0.0, None), np.clip(x, 0.0, None))


# ------------------------------------------------------------------ docs

PUBLIC = ["clip", "shrink", "hardmax", "quantize_down_int32", "quantize_down_int32_to_uint8",
          "quantize_multiplier"]


@pytest.mark.parametrize("name", PUBLIC)
# pytest-run-parallel: doctest swaps sys.stdout for the whole process while an example runs
@pytest.mark.thread_unsafe(reason="doctest redirects sys.stdout process-wide")
def test_docstring_is_complete_and_its_examples_run(name):
    """help() shows parameters, returns, raises and examples, and the examples are true."""
    import doctest

    fn = getattr(simdops, name)
    doc = fn.__doc__ or ""
    for section in ("Parameters", "Returns", "Raises", "Examples"):
        assert section in doc, f"{name}: no {section} section"
    assert "docs/" not in doc, f"{name}: points to a file a wheel does not ship"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(fn, name, globs={}):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, f"{name}: {result}"
