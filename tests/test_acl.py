"""simdops.acl: ACL's GEMMLowp fixed-point output stage as validate/configure/run.

ACL's shapes are written (x, y, ...): TensorShape(21U, 13U) is numpy shape (13, 21)."""
import array
import dataclasses
import itertools

import numpy as np
import pytest

import simdops
from simdops import acl

D = acl.DataType
TI = acl.TensorInfo
Fixed = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1


# --------------------------------------------------------------------------- reference

def wrap32(v):
    return (v + 2 ** 31) % 2 ** 32 - 2 ** 31


def srdhm(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul, in Python integers."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = 2 ** 30 if ab >= 0 else 1 - 2 ** 30
    q = abs(ab + nudge) // 2 ** 31
    return q if ab + nudge >= 0 else -q           # C division truncates toward zero


def rdbpot(x, e):
    mask = (1 << e) - 1
    return (x >> e) + ((x & mask) > ((mask >> 1) + (x < 0)))


def requant_ref(x, bias, mult, shift, offset, lo, hi, out_range, clamp):
    """docs/semantics.md element by element; mult/shift may be per channel (last axis)."""
    x = np.asarray(x)
    out = np.empty(x.shape, dtype=np.int64)
    k_of = np.indices(x.shape)[-1] if x.ndim else np.zeros((), int)
    for idx in np.ndindex(x.shape):
        k = int(k_of[idx])
        a = wrap32(int(x[idx]) + (int(bias[k]) if bias is not None else 0))
        m = int(mult[k]) if np.ndim(mult) else int(mult)
        s = int(shift[k]) if np.ndim(shift) else int(shift)
        q = rdbpot(srdhm(a, m), s) if s >= 0 else srdhm(wrap32(a * 2 ** -s), m)
        r = wrap32(q + offset)
        if clamp:
            r = min(max(r, lo), hi)
        out[idx] = min(max(r, out_range[0]), out_range[1])
    return out


# --------------------------------------------------------------------------- basics

def test_types():
    assert {d.name for d in D} == {"S32", "QASYMM8", "QASYMM8_SIGNED", "QSYMM16"}
    assert D.S32.numpy_dtype == np.int32 and D.QASYMM8.numpy_dtype == np.uint8
    assert D.QASYMM8_SIGNED.numpy_dtype == np.int8 and D.QSYMM16.numpy_dtype == np.int16
    info = TI([13, 21], "S32")
    assert info.shape == (13, 21) and info.data_type is D.S32
    assert info.dimension(0) == 21 and info.dimension(1) == 13 and info.dimension(2) == 1
    assert TI((1, 1, 21), D.S32).num_dimensions() == 1 and TI(21, D.S32).shape == (21,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.shape = (1,)
    assert TI.from_array(np.zeros((2, 3), np.int16)) == TI((2, 3), D.QSYMM16)
    with pytest.raises(TypeError):
        TI.from_array(np.zeros(3, np.float32))
    with pytest.raises(TypeError):
        TI((2,), np.int32)
    with pytest.raises(ValueError):
        TI((2,), "F32")
    with pytest.raises(ValueError):
        TI((-1,), D.S32)


def test_status():
    ok = acl.Status()
    assert ok and ok.error_code() is acl.ErrorCode.OK and ok.error_description() == ""
    bad = acl.Status(acl.ErrorCode.RUNTIME_ERROR, "max is 300; must be <= 255")
    assert not bad and bad.error_description() == "max is 300; must be <= 255"
    assert "RUNTIME_ERROR" in repr(bad) and repr(ok) == "Status(OK)"


# --------------------------------------------------------------------------- validate

# ACL tests/validation/NEON/GEMMLowp.cpp, QuantizeDownInt32ToUint8ScaleByFixedPoint/Validate
ACL_VALIDATE = [
    # input, bias, output, min, max, expected    (ACL shapes reversed into numpy order)
    (TI((13, 21), D.S32), TI((21,), D.S32), TI((13, 21), D.QASYMM8), 0, 205, True),
    (TI((13, 21), D.S32), TI((21,), D.S32), TI((13, 21), D.QASYMM8), 8, 300, False),
    (TI((13, 20), D.S32), TI((20,), D.S32), TI((13, 20), D.S32), 13, 180, False),
]


@pytest.mark.parametrize("inp, bias, out, lo, hi, expected", ACL_VALIDATE)
def test_acl_validate_cases(inp, bias, out, lo, hi, expected):
    assert bool(Fixed.validate(inp, bias, out, lo, hi)) is expected
    # the same with arrays instead of TensorInfo
    arrays = [np.zeros(t.shape, t.data_type.numpy_dtype) for t in (inp, bias, out)]
    assert bool(Fixed.validate(*arrays, min=lo, max=hi)) is expected


def test_acl_validate_messages_of_the_acl_cases():
    assert Fixed.validate(*ACL_VALIDATE[1][:5]).error_description() == "max is 300; must be <= 255"
    assert Fixed.validate(*ACL_VALIDATE[2][:5]).error_description() == \
        "output data type is S32; must be QASYMM8"


def info_or_array(kind, shape, dtype):
    return TI(shape, dtype) if kind == "info" else np.zeros(shape, dtype.numpy_dtype)


VALIDATE_RULES = [
    # (input, bias, output, min, max, message)
    (((13, 21), D.QASYMM8), None, ((13, 21), D.QASYMM8), 0, 0,
     "input data type is QASYMM8; must be S32"),
    (((13, 21), D.S32), None, ((13, 21), D.QASYMM8), 0, 256, "max is 256; must be <= 255"),
    (((13, 21), D.S32), None, ((13, 21), D.QASYMM8), -1, 10,
     "min is -1; must satisfy 0 <= min <= max (max is 10)"),
    (((13, 21), D.S32), None, ((13, 21), D.QASYMM8), 11, 10,
     "min is 11; must satisfy 0 <= min <= max (max is 10)"),
    (((13, 21), D.S32), ((21,), D.QASYMM8), ((13, 21), D.QASYMM8), 0, 0,
     "bias data type is QASYMM8; must be S32 (the input's)"),
    (((13, 21), D.S32), ((2, 21), D.S32), ((13, 21), D.QASYMM8), 0, 0,
     "bias has shape (2, 21); it must have one dimension"),
    (((13, 21), D.S32), ((13,), D.S32), ((13, 21), D.QASYMM8), 0, 0,
     "bias has 13 elements; must equal the input's last dimension (ACL dimension 0) 21"),
    (((13, 21), D.S32), ((21,), D.S32), ((21, 13), D.QASYMM8), 0, 0,
     "output shape (21, 13) differs from input shape (13, 21)"),
    (((13, 21), D.S32), ((21,), D.S32), ((13, 21), D.QASYMM8_SIGNED), 0, 0,
     "output data type is QASYMM8_SIGNED; must be QASYMM8"),
]


@pytest.mark.parametrize("kind", ["info", "array"])
@pytest.mark.parametrize("inp, bias, out, lo, hi, message", VALIDATE_RULES)
def test_validate_rules(kind, inp, bias, out, lo, hi, message):
    args = [None if t is None else info_or_array(kind, *t) for t in (inp, bias, out)]
    status = Fixed.validate(*args, min=lo, max=hi)
    assert not status and status.error_description() == message


def test_validate_reports_in_acl_order():
    # input type, then max/min, then bias, then output
    args = (TI((2, 3), D.S32), TI((4,), D.S32), TI((2, 3), D.S32))
    assert Fixed.validate(TI((2, 3), D.QASYMM8), *args[1:], max=300).error_description() == \
        "input data type is QASYMM8; must be S32"
    assert Fixed.validate(*args, max=300).error_description() == "max is 300; must be <= 255"
    assert Fixed.validate(*args, min=-1, max=3).error_description().startswith("min is -1")
    assert Fixed.validate(*args).error_description().startswith("bias has 4 elements")


def test_validate_accepts_leading_ones_like_acl_tensorshape():
    # ACL's TensorShape(21, 13, 1) == TensorShape(21, 13); a bias TensorShape(21, 1) is 1-D
    assert Fixed.validate(TI((1, 13, 21), D.S32), TI((1, 21), D.S32), TI((13, 21), D.QASYMM8))
    assert Fixed.validate(TI((13, 21), D.S32), None, TI((1, 1, 13, 21), D.QASYMM8), 0, 255)
    assert Fixed.validate(TI((), D.S32), TI((1,), D.S32), TI((1,), D.QASYMM8))


def test_validate_other_inputs():
    assert not Fixed.validate(None, None, TI((2,), D.QASYMM8))
    status = Fixed.validate(np.zeros(3, np.float32), None, np.zeros(3, np.uint8))
    assert "input data type is float32 (no acl.DataType); must be S32" in status.error_description()
    assert not Fixed.validate(np.zeros(3, ">i4"), None, np.zeros(3, np.uint8))
    assert Fixed.validate(array.array("i", [1, 2]), None, bytearray(2))
    with pytest.raises(TypeError):
        Fixed.validate([1, 2], None, bytearray(2))
    with pytest.raises(TypeError):
        Fixed.validate(TI((2,), D.S32), None, TI((2,), D.QASYMM8), min=0.0)
    with pytest.raises(TypeError):
        Fixed.validate(TI((2,), D.S32), None, TI((2,), D.QASYMM8), max=True)


# --------------------------------------------------------------------------- configure / run

SMALL_SHAPES = [(7, 7), (27, 13), (9, 5, 7, 3), (5, 6, 2), (1, 1), (3, 33), (2, 17, 16)]
ACL_RUN_CASES = (
    # result_fixedpoint_multiplier x result_shift x result_offset_after_shift x min x max x bias
    list(itertools.product([254601600, 254601601], [1, 2], [2, 3], [0], [0], [False, True]))
    + list(itertools.product([254601600, 254601601], [1, 2], [2, 3], [0, 1], [171, 173],
                             [False, True])))


@pytest.mark.parametrize("shape", SMALL_SHAPES, ids=str)
def test_configure_run_equals_array_api_and_reference(shape):
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-(2 ** 20), 2 ** 20, size=shape, dtype=np.int32)
    bias = rng.integers(-(2 ** 14), 2 ** 14, size=shape[-1], dtype=np.int32)
    for mult, shift, offset, lo, hi, add_bias in ACL_RUN_CASES:
        b = bias if add_bias else None
        out = np.zeros(shape, np.uint8)
        f = Fixed()
        f.configure(x, b, out, mult, shift, offset, lo, hi)
        assert f.run() is None
        expected = simdops.quantize_down_int32_to_uint8(x, mult, shift, offset, bias=b,
                                                        min=lo, max=hi)
        assert out.tobytes() == expected.tobytes()
    # one case against the independent reference
    out = np.zeros(shape, np.uint8)
    f.configure(x, bias, out, 254601602, 1, 3, 2, 174)
    f.run()
    assert out.tolist() == requant_ref(x, bias, 254601602, 1, 3, 2, 174, (0, 255), True).tolist()


def test_run_again_after_the_input_changes():
    x = np.zeros((4, 8), np.int32)
    bias = np.arange(8, dtype=np.int32) * 1000
    out = np.zeros((4, 8), np.uint8)
    f = Fixed()
    f.configure(x, bias, out, 1 << 30, 4, 5)
    f.run()
    first = out.copy()
    x[...] = np.arange(32, dtype=np.int32).reshape(4, 8) * 777
    bias[0] = -5000
    f.run()
    assert out.tolist() == requant_ref(x, bias, 1 << 30, 4, 5, 0, 0, (0, 255), False).tolist()
    assert not np.array_equal(out, first)


def test_run_with_plain_buffers_and_edge_parameters():
    x = array.array("i", [INT32_MIN, -1, 0, 1, INT32_MAX, 12345678])
    out = bytearray(6)
    f = Fixed()
    for mult, shift, offset in [(INT32_MIN, 0, 0), (INT32_MAX, 31, INT32_MAX),
                                (1 << 30, -3, -7), (0, 5, 200), (1234567890, 17, INT32_MIN)]:
        f.configure(x, None, out, mult, shift, offset)
        f.run()
        assert list(out) == requant_ref(np.array(x, np.int32), None, mult, shift, offset,
                                        0, 0, (0, 255), False).tolist()
    # bias wraps around int32 as in ACL (vaddq_s32): INT32_MAX + 1 is INT32_MIN
    one = np.zeros(1, np.uint8)
    f.configure(np.array([INT32_MAX], np.int32), np.array([1], np.int32), one, INT32_MAX, 24, 128)
    f.run()
    assert one.tolist() == [0] == requant_ref([INT32_MAX], [1], INT32_MAX, 24, 128, 0, 0,
                                              (0, 255), False).tolist()


def test_leading_ones_and_scalar_input_run():
    x = np.arange(-10, 11, dtype=np.int32).reshape(1, 3, 7) * 1000
    bias = np.arange(7, dtype=np.int32).reshape(1, 7)
    out = np.zeros((3, 7), np.uint8)
    f = Fixed()
    f.configure(x, bias, out, 1 << 30, 3, 100, 10, 250)
    f.run()
    assert out.tolist() == requant_ref(x[0], bias[0], 1 << 30, 3, 100, 10, 250, (0, 255),
                                       True).tolist()
    s = np.array(-123456, np.int32)
    one = np.zeros((1,), np.uint8)
    f.configure(s, np.array([1000], np.int32), one, 1 << 30, 2, 128)
    f.run()
    assert one.tolist() == requant_ref(np.array([-123456]), [1000], 1 << 30, 2, 128, 0, 0,
                                       (0, 255), False).tolist()


@pytest.mark.parametrize("args, exc, message", [
    ((TI((2, 3), D.S32), None, TI((2, 3), D.QASYMM8), 1, 1, 0), TypeError, "needs arrays"),
    ((np.zeros((2, 3), np.int32), None, np.zeros((2, 3), np.uint8), 1, 1, 0, 0, 300),
     ValueError, "max is 300; must be <= 255"),
    ((np.zeros((2, 3), np.int32), None, np.zeros((2, 3), np.int8), 1, 1, 0), ValueError,
     "output data type is QASYMM8_SIGNED; must be QASYMM8"),
    ((np.zeros((2, 3), np.int32), None, np.zeros((2, 3), np.uint8), 2 ** 31, 1, 0), ValueError,
     "result_fixedpoint_multiplier is 2147483648; outside the int32 range"),
    ((np.zeros((2, 3), np.int32), None, np.zeros((2, 3), np.uint8), 1, 32, 0), ValueError,
     "result_shift is 32; must be in \\[-31, 31\\]"),
    ((np.zeros((2, 3), np.int32), None, np.zeros((2, 3), np.uint8), 1, -32, 0), ValueError,
     "result_shift is -32"),
    ((np.zeros((2, 3), np.int32), None, np.zeros((2, 3), np.uint8), 1, 1, -(2 ** 31) - 1),
     ValueError, "result_offset_after_shift is -2147483649"),
    ((np.zeros((2, 3), np.int32), None, np.zeros((2, 3), np.uint8), 1.0, 1, 0), TypeError,
     "result_fixedpoint_multiplier must be an int"),
    ((np.zeros((2, 3), np.int32), None, np.frombuffer(bytes(6), np.uint8).reshape(2, 3),
      1, 1, 0), ValueError, "output is read-only"),
])
def test_configure_errors(args, exc, message):
    with pytest.raises(exc, match=message):
        Fixed().configure(*args)


def test_run_before_configure():
    with pytest.raises(RuntimeError):
        Fixed().run()
    with pytest.raises(RuntimeError):
        acl.GEMMLowpOutputStage().run()


# --------------------------------------------------------------------------- output stage

Info = acl.GEMMLowpOutputStageInfo
Stage = acl.GEMMLowpOutputStage
RANGES = {D.QASYMM8: (0, 255), D.QASYMM8_SIGNED: (-128, 127), D.QSYMM16: (-32768, 32767)}


def test_output_stage_info_defaults():
    info = Info()
    assert info.type is acl.GEMMLowpOutputStageType.QUANTIZE_DOWN_FIXEDPOINT
    assert (info.gemmlowp_min_bound, info.gemmlowp_max_bound) == (INT32_MIN, INT32_MAX)
    assert info.output_data_type is None and not info.is_quantized_per_channel
    info = Info(gemmlowp_multipliers=[1, 2], gemmlowp_shifts=np.array([3, 4]),
                output_data_type="QSYMM16")
    assert info.gemmlowp_multipliers == (1, 2) and info.gemmlowp_shifts == (3, 4)
    assert info.output_data_type is D.QSYMM16
    with pytest.raises(TypeError):
        Info(gemmlowp_offset=0.5)
    with pytest.raises(TypeError):
        Info(type="QUANTIZE_DOWN_FIXEDPOINT")


# ACL tests/validation/NEON/GEMMLowp.cpp, QuantizeDownInt32ToInt16ScaleByFixedPoint/Validate
@pytest.mark.parametrize("inp, bias, out, lo, hi, expected", [
    (TI((13, 21), D.S32), TI((21,), D.S32), TI((13, 21), D.QSYMM16), -205, 205, True),
    (TI((13, 21), D.S32), TI((21,), D.S32), TI((13, 20), D.S32), -180, 180, False),
])
def test_output_stage_acl_int16_validate_cases(inp, bias, out, lo, hi, expected):
    info = Info(gemmlowp_min_bound=lo, gemmlowp_max_bound=hi)
    assert bool(Stage.validate(inp, bias, out, info)) is expected


OUTPUT_STAGE_RULES = [
    (Info(type=acl.GEMMLowpOutputStageType.NONE), D.QASYMM8,
     "GEMMLowpOutputStageInfo.type is NONE; simdops implements "
     "QUANTIZE_DOWN, QUANTIZE_DOWN_FIXEDPOINT and QUANTIZE_DOWN_FLOAT"),
    (Info(), D.S32, "output data type is S32; must be QASYMM8 or QASYMM8_SIGNED or QSYMM16"),
    (Info(output_data_type=D.QASYMM8), D.QASYMM8_SIGNED,
     "GEMMLowpOutputStageInfo.output_data_type is QASYMM8; the output is QASYMM8_SIGNED"),
    (Info(gemmlowp_min_bound=10, gemmlowp_max_bound=9), D.QASYMM8,
     "gemmlowp_min_bound 10 > gemmlowp_max_bound 9"),
    (Info(gemmlowp_min_bound=200, gemmlowp_max_bound=300), D.QASYMM8_SIGNED,
     "bounds [200, 300] lie outside QASYMM8_SIGNED's range [-128, 127]"),
    (Info(gemmlowp_max_bound=-1), D.QASYMM8, "bounds [-2147483648, -1] lie outside"),
    (Info(gemmlowp_min_bound=-(2 ** 40)), D.QASYMM8, "gemmlowp_min_bound is -1099511627776; "
                                                     "outside the int32 range"),
    (Info(gemmlowp_offset=3), D.QSYMM16, "gemmlowp_offset is 3; QSYMM16 output has no offset"),
    (Info(gemmlowp_offset=2 ** 31), D.QASYMM8, "gemmlowp_offset is 2147483648; outside the int32"),
    (Info(is_quantized_per_channel=True, gemmlowp_multipliers=[1] * 21, gemmlowp_shifts=[1] * 20),
     D.QASYMM8, "gemmlowp_shifts has 20 entries; per-channel quantization needs the input's "
                "last dimension 21"),
    (Info(is_quantized_per_channel=True), D.QASYMM8, "gemmlowp_multipliers has 0 entries"),
    (Info(gemmlowp_shift=32), D.QSYMM16, "gemmlowp_shift is 32; must be in [-31, 31]"),
    (Info(is_quantized_per_channel=True, gemmlowp_multipliers=[1] * 20 + [2 ** 31],
          gemmlowp_shifts=[1] * 21), D.QASYMM8,
     "gemmlowp_multipliers[20] is 2147483648; outside the int32"),
    (Info(is_quantized_per_channel=True, gemmlowp_multipliers=[1] * 21,
          gemmlowp_shifts=[0] * 3 + [-32] + [0] * 17), D.QASYMM8,
     "gemmlowp_shifts[3] is -32; must be in [-31, 31]"),
]


@pytest.mark.parametrize("info, out_type, message", OUTPUT_STAGE_RULES)
def test_output_stage_validate_rules(info, out_type, message):
    status = Stage.validate(TI((13, 21), D.S32), TI((21,), D.S32), TI((13, 21), out_type), info)
    assert not status
    assert message in status.error_description(), status.error_description()
    with pytest.raises(ValueError):
        Stage().configure(np.zeros((13, 21), np.int32), np.zeros(21, np.int32),
                          np.zeros((13, 21), out_type.numpy_dtype), info)


def test_output_stage_shared_tensor_rules():
    info = Info()
    assert "input data type is QSYMM16" in Stage.validate(
        TI((2, 3), D.QSYMM16), None, TI((2, 3), D.QSYMM16), info).error_description()
    assert "bias has 2 elements" in Stage.validate(
        TI((2, 3), D.S32), TI((2,), D.S32), TI((2, 3), D.QSYMM16), info).error_description()
    assert "output shape (3, 2) differs" in Stage.validate(
        TI((2, 3), D.S32), None, TI((3, 2), D.QASYMM8), info).error_description()
    with pytest.raises(TypeError):
        Stage.validate(TI((2, 3), D.S32), None, TI((2, 3), D.QASYMM8), {"gemmlowp_offset": 1})


@pytest.mark.parametrize("out_type", [D.QASYMM8, D.QASYMM8_SIGNED, D.QSYMM16])
@pytest.mark.parametrize("bounds", [None, "inside", "wide", "low-side", "single"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_output_stage_run_equals_array_api(out_type, bounds, per_channel):
    rng = np.random.default_rng(5)
    shape = (5, 3, 17)
    x = rng.integers(-(2 ** 24), 2 ** 24, size=shape, dtype=np.int32)
    bias = rng.integers(-(2 ** 16), 2 ** 16, size=17, dtype=np.int32)
    tlo, thi = RANGES[out_type]
    offset = 0 if out_type == D.QSYMM16 else 7
    lo, hi = {None: (INT32_MIN, INT32_MAX), "inside": (tlo + 3, thi - 5),
              "wide": (tlo - 1000, thi + 1000), "low-side": (tlo + 1, INT32_MAX),
              "single": (tlo + 2, tlo + 2)}[bounds]
    kw = dict(gemmlowp_offset=offset, gemmlowp_min_bound=lo, gemmlowp_max_bound=hi,
              output_data_type=out_type)
    if per_channel:
        mults = rng.integers(2 ** 30, 2 ** 31 - 1, size=17).tolist()
        shifts = rng.integers(-2, 12, size=17).tolist()
        info = Info(is_quantized_per_channel=True, gemmlowp_multipliers=mults,
                    gemmlowp_shifts=shifts, gemmlowp_multiplier=99, **kw)
        m_arg, s_arg = np.array(mults, np.int32), np.array(shifts, np.int32)
    else:
        info = Info(gemmlowp_multiplier=1518500250, gemmlowp_shift=9, **kw)
        m_arg, s_arg = 1518500250, 9
    out = np.zeros(shape, out_type.numpy_dtype)
    stage = Stage()
    stage.configure(x, bias, out, info)
    stage.run()
    clamp = not (lo <= tlo and hi >= thi)
    ref = requant_ref(x[:1, :1], bias, m_arg, s_arg, offset, max(lo, tlo), min(hi, thi),
                      (tlo, thi), clamp)
    assert out[:1, :1].tolist() == ref.tolist()
    if bounds == "single":
        assert (out == tlo + 2).all()
        return
    bound_kw = {} if not clamp else {"min": max(lo, tlo), "max": min(hi, thi)}
    expected = simdops.quantize_down_int32(x, m_arg, s_arg, offset, bias=bias,
                                           out_dtype=out_type.numpy_dtype.name, **bound_kw)
    assert out.tobytes() == expected.tobytes()
    # the 18.03 function gives the same bytes for QASYMM8 with in-range bounds
    if out_type == D.QASYMM8 and not per_channel and bounds in (None, "inside"):
        out2 = np.zeros(shape, np.uint8)
        f = Fixed()
        f.configure(x, bias, out2, 1518500250, 9, offset, *((0, 0) if bounds is None
                                                             else (tlo + 3, thi - 5)))
        f.run()
        assert out2.tobytes() == out.tobytes()


def test_output_data_type_unknown_name_is_a_value_error():
    """A bare KeyError before; now the field and the allowed names."""
    with pytest.raises(ValueError) as e:
        Info(output_data_type="BOGUS")
    msg = str(e.value)
    assert not isinstance(e.value, KeyError)
    assert msg.startswith("GEMMLowpOutputStageInfo.output_data_type 'BOGUS' is not one of")
    assert all(d.name in msg for d in D)
    with pytest.raises(TypeError, match="output_data_type must be an acl.DataType or None"):
        Info(output_data_type=3)


def test_parameters_beyond_64_bits_name_the_acl_field():
    with pytest.raises(ValueError, match="^GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint: "
                                         "result_fixedpoint_multiplier = 2361183241434822606848 "
                                         "is outside the int32 range"):
        Fixed().configure(np.zeros(3, np.int32), None, np.zeros(3, np.uint8), 2 ** 71, 1, 0)
    status = Stage.validate(TI((3,), D.S32), None, TI((3,), D.QASYMM8),
                            Info(gemmlowp_offset=-(2 ** 80)))
    assert status.error_description().startswith("gemmlowp_offset = -1208925819614629174706176")


def test_per_channel_ignores_the_scalar_fields():
    info = Info(is_quantized_per_channel=True, gemmlowp_multipliers=[1 << 30] * 2,
                gemmlowp_shifts=[0, 1], gemmlowp_multiplier=2 ** 40, gemmlowp_shift=99)
    x = np.array([[100, 100]], np.int32)
    y = np.zeros((1, 2), np.uint8)
    assert Stage.validate(x, None, y, info)
    stage = Stage()
    stage.configure(x, None, y, info)
    stage.run()
    assert y.tolist() == [[50, 25]]


def test_output_stage_info_refuses_endless_and_oversized_vectors():
    """Per-channel vectors are sized sequences: an endless iterator fails at once
    (found by ci/fuzz.sh), and a length beyond any channel count is refused
    before it is read."""
    with pytest.raises(TypeError, match="gemmlowp_shifts must be a sequence"):
        Info(gemmlowp_shifts=itertools.count())
    with pytest.raises(TypeError, match="gemmlowp_multipliers must be a sequence"):
        Info(gemmlowp_multipliers=(m for m in [1, 2]))
    with pytest.raises(ValueError, match="gemmlowp_multipliers has 1000000000 entries"):
        Info(gemmlowp_multipliers=range(10 ** 9))
    assert Info(gemmlowp_shifts=np.array([1, 2], np.int32)).gemmlowp_shifts == (1, 2)


def test_tensor_info_shape_is_read_boundedly():
    with pytest.raises(ValueError, match="more than 64 dimensions"):
        acl.TensorInfo(itertools.count(), "S32")
    with pytest.raises(TypeError, match="shape must be a sequence"):
        acl.TensorInfo("12", "S32")
    assert acl.TensorInfo(iter([2, 3]), "S32").shape == (2, 3)
