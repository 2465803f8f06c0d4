"""One rule, one place: the rules C owns are exposed by simdops._core (csrc/rules/rules.c,
simdops_check_tensor) and the layers above (simdops.dml, simdops.acl, simdops.dask,
the strided plans) call them and word C's reason in their own terms.

Each test checks the C predicate against an independent expectation, then that a
layer's error comes from C's reason: the predicate is replaced by one that reports a
different reason, and the layer's error follows it."""
import numpy as np
import pytest

import simdops
from simdops import _core, acl, dml

F32, I32, U8 = 1, 6, 5
DT = dml.TensorDataType


def _reason(fn, *args):
    error = fn(*args)
    return None if error is None else error.reason


# ------------------------------------------------------------------ the predicates

def test_check_same_shape_reasons_in_order():
    assert _core.check_same_shape((2, 3), F32, (2, 3), F32) is None
    assert _reason(_core.check_same_shape, (2, 3), I32, (2, 4), F32) == "DTYPE_MISMATCH"
    assert _reason(_core.check_same_shape, (2, 3), F32, (2, 3, 1), F32) == "NDIM_MISMATCH"
    e = _core.check_same_shape((2, 3, 4), F32, (2, 3, 5), F32)
    assert (e.reason, e.index, e.value, e.expected) == ("SHAPE_MISMATCH", 2, 5, 4)


def test_check_view_reasons():
    assert _core.check_view(F32, (0, 5)) is None
    assert _reason(_core.check_view, 0, (1,)) == "DTYPE_UNKNOWN"
    assert _reason(_core.check_view, 99, (1,)) == "DTYPE_UNKNOWN"
    assert _reason(_core.check_view, F32, (1,) * 65) == "NDIM"
    assert _core.check_view(F32, (1,) * 64) is None
    e = _core.check_view(F32, (3, -1))
    assert (e.reason, e.index, e.value) == ("NEGATIVE_EXTENT", 1, -1)


def test_check_channels_reasons():
    assert _core.check_channels("bias", I32, (5,), (2, 5)) is None
    assert _reason(_core.check_channels, "bias", F32, (5,), (2, 5)) == "DTYPE_MISMATCH"
    assert _reason(_core.check_channels, "bias", I32, (5,), ()) == "NEEDS_AXIS"
    e = _core.check_channels("multiplier", I32, (4,), (2, 5))
    assert (e.reason, e.arg, e.value, e.expected, e.index) == ("CHANNELS", "multiplier", 1, 5, 4)
    assert _core.check_channels("shift", I32, (1, 5), (5,)).value == 2


@pytest.mark.parametrize("v,ok", [(-(2**31), True), (2**31 - 1, True), (2**31, False),
                                  (-(2**31) - 1, False), (2**70, False), (-(2**70), False)])
def test_check_int32(v, ok):
    assert (_core.check_int32("min", v) is None) == ok


def test_check_bound_and_min_max():
    assert _core.check_bound(U8, "max", 255) is None
    e = _core.check_bound(U8, "max", 256)
    assert (e.reason, e.arg) == ("BOUND_RANGE", "max")
    assert _core.check_min_max(3, 3) is None
    assert _reason(_core.check_min_max, 4, 3) == "MIN_ABOVE_MAX"


def test_check_disjoint():
    assert _core.check_disjoint(100, 10, 110, 10, False) is None
    assert _reason(_core.check_disjoint, 100, 10, 109, 10, False) == "PARTIAL_OVERLAP"
    assert _reason(_core.check_disjoint, 100, 10, 100, 10, False) == "PARTIAL_OVERLAP"
    assert _core.check_disjoint(100, 10, 100, 10, True) is None
    assert _core.check_disjoint(100, 0, 100, 10, False) is None  # empty ranges share nothing
    # lengths up to 2**64 - 1: distances, not end addresses, so nothing wraps
    assert _reason(_core.check_disjoint, 2**40, 2**64 - 1, 2**41, 4, False) == "PARTIAL_OVERLAP"
    assert _core.check_disjoint(2**41, 4, 2**40, 2**39, False) is None


@pytest.mark.parametrize("ndim,axes,expected", [(3, -1, (2,)), (3, (0, -1), (0, 2)),
                                                (3, (2, 0, 1), (0, 1, 2)), (1, 0, (0,))])
def test_reduced_axes(ndim, axes, expected):
    assert _core.reduced_axes(ndim, axes) == expected


@pytest.mark.parametrize("axes,match", [((), "at least one"), ((3,), "out of range"),
                                        ((0, -3), "repeated")])
def test_reduced_axes_errors(axes, match):
    with pytest.raises(ValueError, match=match):
        _core.reduced_axes(3, axes)


def test_dtype_table_matches_numpy():
    for value, name in _core.DTYPE_NAMES.items():
        row = _core.dtype_info(value)
        np_dtype = np.dtype(name)
        assert row[:2] == (name, np_dtype.itemsize)
        assert row[2] == (np_dtype.kind == "f")
        if np_dtype.kind in "iu":
            info = np.iinfo(np_dtype)
            assert row[4:] == (int(info.min), int(info.max))
        else:
            assert row[4:] == (None, None)
    with pytest.raises(ValueError):
        _core.dtype_info(0)


# ------------------------------------------------------------------ the layers follow C

def _fake(error):
    """A stand-in predicate that always reports `error` (a real CoreError)."""
    return lambda *args, **kwargs: error


def test_dml_output_rule_is_c_reason(monkeypatch):
    d = dml.BufferTensorDesc(DT.FLOAT32, (2, 2))
    desc = dml.ElementWiseClipOperatorDesc(d, d, 0, 1)
    dml.compile_operator(desc)
    for error, field in [(_core.check_same_shape((1,), I32, (1,), F32), "DataType"),
                         (_core.check_same_shape((1,), F32, (1, 1), F32), "DimensionCount"),
                         (_core.check_same_shape((1,), F32, (2,), F32), "Sizes")]:
        monkeypatch.setattr(_core, "check_same_shape", _fake(error))
        with pytest.raises(dml.InvalidArgumentError, match=rf"^OutputTensor\.{field}"):
            dml.compile_operator(desc)


def test_dml_output_rule_messages_unchanged():
    a = dml.BufferTensorDesc(DT.FLOAT32, (2, 2))
    for b, msg in [(dml.BufferTensorDesc(DT.FLOAT16, (2, 2)),
                    "OutputTensor.DataType is FLOAT16; must equal InputTensor.DataType FLOAT32"),
                   (dml.BufferTensorDesc(DT.FLOAT32, (2, 2, 1)),
                    "OutputTensor.DimensionCount is 3; must equal InputTensor.DimensionCount 2"),
                   (dml.BufferTensorDesc(DT.FLOAT32, (2, 3)),
                    "OutputTensor.Sizes is (2, 3); must equal InputTensor.Sizes (2, 2)")]:
        with pytest.raises(dml.InvalidArgumentError) as info:
            dml.compile_operator(dml.ElementWiseClipOperatorDesc(a, b, 0, 1))
        assert str(info.value) == msg


def test_dml_overlap_rule_is_c_reason():
    d = dml.BufferTensorDesc(DT.FLOAT32, (4,), strides=(1,), total_tensor_size_in_bytes=16)
    op = dml.compile_operator(dml.ActivationHardmaxOperatorDesc(d, d))  # not in place
    buf = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="overlap"):
        op.execute(buf[:4], buf[2:6])  # partial
    with pytest.raises(ValueError):
        op.execute(buf[:4], buf[:4])  # same address, but HARDMAX is not in place
    op.execute(buf[:4], buf[4:])  # disjoint


def test_dml_integer_ranges_come_from_the_c_table():
    i8 = dml.BufferTensorDesc(DT.INT8, (2,))
    with pytest.raises(dml.InvalidArgumentError, match=r"-128 to 127"):
        dml.compile_operator(dml.ElementWiseClip1OperatorDesc(i8, i8, DT.INT8, -129, 0))
    u64 = dml.BufferTensorDesc(DT.UINT64, (2,))
    dml.compile_operator(dml.ElementWiseClip1OperatorDesc(u64, u64, DT.UINT64, 0, 2**64 - 1))
    with pytest.raises(dml.InvalidArgumentError, match=r"0 to 18446744073709551615"):
        dml.compile_operator(dml.ElementWiseClip1OperatorDesc(u64, u64, DT.UINT64, 0, 2**64))
    assert dml.calc_buffer_tensor_size(DT.FLOAT16, (3,)) == 8
    assert dml.calc_buffer_tensor_size(DT.INT64, (3,)) == 24


def test_acl_bias_rule_is_c_reason(monkeypatch):
    x = np.zeros((2, 5), np.int32)
    y = np.zeros((2, 5), np.uint8)
    f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint
    assert f.validate(x, np.zeros(5, np.int32), y)
    cases = [(np.zeros(5, np.float32), "bias data type is"),
             (np.zeros((2, 5), np.int32), "it must have one dimension"),
             (np.zeros(4, np.int32), "bias has 4 elements")]
    for bias, msg in cases:
        status = f.validate(x, bias, y)
        assert not status and msg in status.error_description()
    # the length message follows C's reason, not a Python comparison
    monkeypatch.setattr(_core, "check_channels",
                        _fake(_core.check_channels("bias", I32, (3,), (7,))))
    status = f.validate(x, np.zeros(5, np.int32), y)
    assert not status and "bias has 3 elements" in status.error_description()


def test_acl_output_shape_rule_is_c_reason(monkeypatch):
    x = np.zeros((2, 5), np.int32)
    f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint
    assert f.validate(x, None, np.zeros((1, 2, 5), np.uint8))  # ACL: leading 1s don't count
    status = f.validate(x, None, np.zeros((2, 4), np.uint8))
    assert not status and "differs from input shape" in status.error_description()
    monkeypatch.setattr(_core, "check_same_shape",
                        _fake(_core.check_same_shape((1,), F32, (2,), F32)))
    assert not f.validate(x, None, np.zeros((2, 5), np.uint8))


def test_acl_stage_bounds_and_channels_are_c_reasons(monkeypatch):
    x = np.zeros((2, 3), np.int32)
    y = np.zeros((2, 3), np.int8)
    S = acl.GEMMLowpOutputStage
    info = acl.GEMMLowpOutputStageInfo
    assert S.validate(x, None, y, info(gemmlowp_multiplier=1 << 30))
    for kw, msg in [({"gemmlowp_min_bound": 2**31}, "outside the int32 range"),
                    ({"gemmlowp_min_bound": 5, "gemmlowp_max_bound": 4}, "> gemmlowp_max_bound"),
                    ({"gemmlowp_min_bound": 200, "gemmlowp_max_bound": 300}, "lie outside"),
                    ({"is_quantized_per_channel": True, "gemmlowp_multipliers": (1, 2),
                      "gemmlowp_shifts": (1, 2, 3)}, "gemmlowp_multipliers has 2 entries")]:
        status = S.validate(x, None, y, info(**kw))
        assert not status and msg in status.error_description(), (kw, status)
    # ACL clamps inside the output range: bounds overlapping it are fine
    assert S.validate(x, None, y, info(gemmlowp_min_bound=-1000, gemmlowp_max_bound=0))
    monkeypatch.setattr(_core, "check_min_max", _fake(_core.check_min_max(1, 0)))
    status = S.validate(x, None, y, info())
    assert not status and "gemmlowp_min_bound" in status.error_description()


def test_acl_tensor_info_rule_is_c_reason(monkeypatch):
    with pytest.raises(ValueError, match="more than 64 dimensions"):
        acl.TensorInfo((1,) * 65, "S32")
    with pytest.raises(ValueError, match="negative size"):
        acl.TensorInfo((2, -1), "S32")
    monkeypatch.setattr(_core, "check_view", _fake(_core.check_view(F32, (1,) * 65)))
    with pytest.raises(ValueError, match="more than 64 dimensions"):
        acl.TensorInfo((2, 2), "S32")


def test_strided_plan_view_rule_is_c_reason():
    with pytest.raises(TypeError, match="input: unknown dtype value 99"):
        _core.StridedPlan("hardmax", 99, (2,), (1,), (1,), -1)
    with pytest.raises(ValueError, match="input has 65 dimensions"):
        _core.StridedPlan("hardmax", F32, (1,) * 65, (1,) * 65, (1,) * 65, -1)
    with pytest.raises(ValueError, match="input has size -2 in dimension 1"):
        _core.StridedPlan("hardmax", F32, (1, -2), (1, 1), (1, 1), -1)


def test_dask_axes_are_normalised_by_c(monkeypatch):
    da = pytest.importorskip("dask.array")
    import simdops.dask as sd
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for axis in (-1, (0, -1), (-2,), (2, 0)):
        np.testing.assert_array_equal(sd.hardmax(da.from_array(x, chunks=1), axis).compute(),
                                      simdops.hardmax(x, axis))
    calls = []
    real = _core.reduced_axes
    monkeypatch.setattr(_core, "reduced_axes", lambda *a: calls.append(a) or real(*a))
    sd.hardmax(da.from_array(x), (-1, 0))
    assert calls == [(3, (-1, 0))]


def test_acl_18_03_bounds_are_c_reasons(monkeypatch):
    f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint
    x, y = np.zeros(3, np.int32), np.zeros(3, np.uint8)
    for lo, hi, msg in [(0, 256, "max is 256; must be <= 255"),
                        (-1, 5, "min is -1; must satisfy"), (6, 5, "min is 6; must satisfy"),
                        (0, 2**70, "must be <= 255")]:
        status = f.validate(x, None, y, lo, hi)
        assert not status and msg in status.error_description()
    assert f.validate(x, None, y, 0, 255) and f.validate(x, None, y, 7, 7)
    monkeypatch.setattr(_core, "check_min_max", _fake(_core.check_min_max(1, 0)))
    status = f.validate(x, None, y, 0, 255)
    assert not status and "min is 0; must satisfy" in status.error_description()
