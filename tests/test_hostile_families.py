"""Hostile inputs to the requantization families' surface: rounding=, requantize_fp32's
modes, quantize_multiplier's conventions, per-channel vectors, bounds, ACL's output stages,
their Dask versions, and the wrappers around ONNX Shrink and Hardmax. Each case once gave a
wrong answer, a hang or a raw exception; now it is right or a TypeError/ValueError that
names the argument (and the function called)."""
import os
import ctypes
import itertools
import re
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import simdops
import simdops.onnx as so
from reference import acl_quantize_down_float, requantize_fp32 as ref_fp32
from simdops import acl

T = acl.GEMMLowpOutputStageType
X4 = np.array([-300, 5, 25, 1000], np.int32)
HUGE = 10**5000  # str() of it exceeds Python's 4,300-digit limit


def _torch():
    return pytest.importorskip("torch")


def _neg_view(t, values, dtype):
    """A torch view of `values` with the lazy negative bit set (it reads as values)."""
    torch = _torch()
    v = torch.tensor([-v for v in values], dtype=dtype)._neg_view()
    assert v.is_neg() and v.tolist() == torch.tensor(values, dtype=dtype).tolist()
    return v


class DLPackOnly:
    """An object with only the DLPack protocol (no buffer, no __array__, no shape)."""

    def __init__(self, array):
        self._a = np.asarray(array)

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


# ------------------------------------------------------------------ messages name the function

@pytest.mark.parametrize("call, func", [
    (lambda: simdops.quantize_down_int32(X4, 1 << 30, 40), "quantize_down_int32"),
    (lambda: simdops.quantize_down_int32(X4, 1 << 30, 1, rounding="nearest"),
     "quantize_down_int32"),
    (lambda: simdops.quantize_down_int32(X4, 1 << 30, 1, out_dtype="float32"),
     "quantize_down_int32"),
    (lambda: simdops.quantize_down_int32(X4, 1 << 30, [1, 2, 3]), "quantize_down_int32"),
    (lambda: simdops.quantize_down_int32_to_uint8(X4, 1 << 30, 1, 0, min=9, max=3),
     "quantize_down_int32_to_uint8"),
    (lambda: simdops.quantize_down_int32_to_uint8(X4.astype(np.int64), 1 << 30, 1, 0),
     "quantize_down_int32_to_uint8"),
    (lambda: simdops.requantize_fp32(X4, 0.5, 300), "requantize_fp32"),
    (lambda: simdops.requantize_fp32(X4, float("inf")), "requantize_fp32"),
    (lambda: simdops.requantize_fp32(X4, 0.5, precision="float16"), "requantize_fp32"),
    (lambda: simdops.requantize_fp32(X4, 0.5, ties="up"), "requantize_fp32"),
    (lambda: simdops.requantize_fp32(X4, 0.5, out_dtype="uint16"), "requantize_fp32"),
    (lambda: simdops.requantize_fp32(X4.astype(np.int64), 0.5), "requantize_fp32"),
    (lambda: simdops.requantize_fp32(X4, np.array([.5, np.nan, .5, .5], np.float32)),
     "requantize_fp32"),
    (lambda: simdops.requantize_fp32(X4, 0.5, bias=[1, 2]), "requantize_fp32"),
])
def test_messages_name_the_function_called(call, func):
    with pytest.raises((TypeError, ValueError)) as e:
        call()
    assert str(e.value).startswith(func + ": "), str(e.value)
    assert "quantize:" not in str(e.value) and "quantize supports" not in str(e.value)


def test_message_of_a_wrong_x_dtype_names_the_function_in_its_supports_list():
    with pytest.raises(TypeError, match=r"^requantize_fp32: x has dtype int64; "
                                        r"requantize_fp32 supports: int32$"):
        simdops.requantize_fp32(X4.astype(np.int64), 0.5)


# ------------------------------------------------------------------ huge ints in messages

@pytest.mark.parametrize("call, name", [
    (lambda: simdops.quantize_down_int32(X4, 1 << 30, 0, HUGE), "offset"),
    (lambda: simdops.quantize_down_int32(X4, HUGE, 0), "multiplier"),
    (lambda: simdops.quantize_down_int32(X4, 1 << 30, -HUGE), "shift"),
    (lambda: simdops.quantize_down_int32(X4, 1 << 30, 0, min=-HUGE), "min"),
    (lambda: simdops.quantize_down_int32(X4, 1 << 30, 0, max=HUGE), "max"),
    (lambda: simdops.requantize_fp32(X4, 0.5, HUGE), "zero_point"),
    (lambda: simdops.requantize_fp32(X4, HUGE), "scale"),
    (lambda: simdops.requantize_fp32(X4, -HUGE, precision="float64"), "scale"),
    (lambda: simdops.quantize_multiplier(HUGE), "scale"),
    (lambda: simdops.quantize_multiplier(HUGE, "xnnpack"), "scale"),
    (lambda: simdops.clip([HUGE, 1], 0, 3), "x"),
])
def test_a_huge_int_is_named_by_its_size_never_formatted(call, name):
    with pytest.raises(ValueError) as e:
        call()
    text = str(e.value)
    assert re.search(rf"\b{name}\b", text), text
    assert "16610 bits" in text and "Exceeds the limit" not in text
    assert len(text) < 300


def test_acl_huge_fields_are_named_by_their_size():
    x, y = np.zeros((2, 3), np.int32), np.zeros((2, 3), np.uint8)
    for field in ("gemmlowp_offset", "gemmlowp_multiplier", "gemmlowp_min_bound"):
        info = acl.GEMMLowpOutputStageInfo(**{field: HUGE})
        status = acl.GEMMLowpOutputStage.validate(x, None, y, info)
        assert not status
        assert field in status.error_description() and "16610 bits" in \
            status.error_description(), status


# ------------------------------------------------------------------ scale: what it may be

@pytest.mark.parametrize("scale", [None, "0.1", b"0.1", Decimal("0.1"), object(), True,
                                   np.bool_(True)])
def test_a_scale_that_is_not_a_real_number_says_what_a_scale_must_be(scale):
    with pytest.raises(TypeError, match=r"^requantize_fp32: scale must be a real number") as e:
        simdops.requantize_fp32(X4, scale)
    assert "buffer format" not in str(e.value)


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_a_fraction_scale_is_a_real_number(precision):
    got = simdops.requantize_fp32(X4, Fraction(1, 3), 7, precision=precision)
    want = ref_fp32(X4, np.float64(1 / 3) if precision == "float64" else np.float32(1 / 3), 7,
                    precision=precision)
    np.testing.assert_array_equal(got, want)


def test_a_fraction_scale_is_rounded_to_float32_once():
    """float() rounds the Fraction to 0.5 + 2**-25, exactly halfway between the float32s 0.5
    and 0.5 + 2**-24; the Fraction lies above it, so its float32 is 0.5 + 2**-24 (rounding
    the double again, to even, would give 0.5)."""
    scale = Fraction(1, 2) + Fraction(1, 2**25) + Fraction(1, 2**90)
    assert float(scale) == 0.5 + 2**-25
    up = np.float32(0.5 + 2**-24)
    x = np.array([32769, 32771, -32769, 101], np.int32)
    got = simdops.requantize_fp32(x, scale, out_dtype="int16")
    np.testing.assert_array_equal(got, ref_fp32(x, up, out_dtype="int16"))
    assert got[0] == 16385  # 0.5 exactly would give 16384 (16384.5, ties to even)
    # per tensor as an int beyond 2**53: also rounded once (here: to the float32 below)
    np.testing.assert_array_equal(simdops.requantize_fp32(x * 0, 2**54 + 2**30 + 1), x * 0)


def test_per_channel_scales_as_floats_are_rounded_once_to_float32():
    x = np.array([[-300, 5, 25, 1000], [7, -8, 9, 2**31 - 1]], np.int32)
    scales = [0.1, 0.2, 1 / 3, 2.5]
    want = ref_fp32(x, np.array(scales, np.float32), 3)
    np.testing.assert_array_equal(simdops.requantize_fp32(x, scales, 3), want)
    np.testing.assert_array_equal(simdops.requantize_fp32(x, np.array(scales), 3), want)
    np.testing.assert_array_equal(simdops.requantize_fp32(x, tuple(scales), 3), want)
    np.testing.assert_array_equal(
        simdops.requantize_fp32(x, np.array(scales, np.float16), 3),
        ref_fp32(x, np.array(scales, np.float16).astype(np.float32), 3))
    np.testing.assert_array_equal(simdops.requantize_fp32(x, [1, 2, 3, 4]),
                                  ref_fp32(x, np.array([1, 2, 3, 4], np.float32)))


def test_float64_per_channel_scales_under_float64_precision_are_doubles():
    x = np.array([[-300, 5, 25, 1000]], np.int32)
    exact = np.array([0.5, 0.25, 2.0, np.float32(0.1)], np.float64)  # float32 values
    np.testing.assert_array_equal(
        simdops.requantize_fp32(x, exact, precision="float64", ties="away"),
        simdops.requantize_fp32(x, exact.astype(np.float32), precision="float64", ties="away"))
    # a list of floats is taken as doubles too (LiteRT's double per-channel scales):
    # 5 * 0.1 is 0.5 in double, which ties="even" rounds to 0; 0.1 as float32 gives 1
    got = simdops.requantize_fp32(x, [0.5, 0.1, 2.0, 0.1], precision="float64", out_dtype="int8")
    assert got.tolist() == [[-128, 0, 50, 100]]


@pytest.mark.parametrize("bad, at", [(1e39, 2), (float("inf"), 0), (float("nan"), 3)])
def test_per_channel_float_scales_not_finite_as_float32_are_named_with_the_index(bad, at):
    scales = [0.5] * 4
    scales[at] = bad
    with pytest.raises(ValueError, match=rf"^requantize_fp32: scale must be finite, got "
                                         rf".* at index {at}$"):
        simdops.requantize_fp32(X4.reshape(1, 4), scales)


def test_per_channel_integer_scales_beyond_a_double_are_refused():
    with pytest.raises(ValueError, match="scale"):
        simdops.requantize_fp32(X4.reshape(1, 4), np.array([2**62 + 1, 1, 1, 1], np.int64))
    with pytest.raises(ValueError, match="scale"):
        simdops.requantize_fp32(X4.reshape(1, 4), np.array([2**63 - 1, 1, 1, 1], np.int64))


# ------------------------------------------------------------------ vectors read like x

def test_per_channel_vectors_from_dlpack_only_objects():
    x = np.array([[-300, 5, 25, 1000]], np.int32)
    m = np.array([1 << 30, 1 << 29, 1 << 30, 3 << 28], np.int32)
    s = np.array([0, 1, 2, -1], np.int32)
    b = np.array([1, -2, 3, -4], np.int32)
    want = simdops.quantize_down_int32(x, m, s, 9, bias=b, out_dtype="int8")
    got = simdops.quantize_down_int32(x, DLPackOnly(m), DLPackOnly(s), 9, bias=DLPackOnly(b),
                                      out_dtype="int8")
    np.testing.assert_array_equal(got, want)
    sc = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    np.testing.assert_array_equal(simdops.requantize_fp32(x, DLPackOnly(sc), bias=DLPackOnly(b)),
                                  simdops.requantize_fp32(x, sc, bias=b))
    np.testing.assert_array_equal(
        so.clip(np.array([-5.0, 0.5, 5.0], np.float32), DLPackOnly(np.float32(-1)),
                DLPackOnly(np.array([1.0], np.float32))),
        np.array([-1.0, 0.5, 1.0], np.float32))


def test_per_channel_vectors_from_torch_views_with_the_negative_bit_keep_their_sign():
    torch = _torch()
    x = np.array([[-300, 5, 25, 1000]], np.int32)
    m = [1 << 30, 1 << 29, 1 << 30, 3 << 28]
    s, b, sc = [0, 1, 2, -1], [1, -2, 3, -4], [0.1, 0.2, 0.3, 0.4]
    got = simdops.quantize_down_int32(x, _neg_view(torch, m, torch.int32),
                                      _neg_view(torch, s, torch.int32), 9,
                                      bias=_neg_view(torch, b, torch.int32), out_dtype="int8")
    np.testing.assert_array_equal(got, simdops.quantize_down_int32(
        x, np.array(m, np.int32), np.array(s, np.int32), 9, bias=np.array(b, np.int32),
        out_dtype="int8"))
    got = simdops.requantize_fp32(x, _neg_view(torch, sc, torch.float32), 3,
                                  bias=_neg_view(torch, b, torch.int32))
    np.testing.assert_array_equal(got, ref_fp32(x, np.array(sc, np.float32), 3, bias=b))
    lo = _neg_view(torch, [-1.0], torch.float32).reshape(())
    np.testing.assert_array_equal(so.clip(np.array([-5.0, 0.5], np.float32), lo, None),
                                  np.array([-1.0, 0.5], np.float32))


@pytest.mark.parametrize("bad, exc, words", [
    ([1.5, 2, 3, 4], TypeError, "bias has dtype float64"),
    (["a", 1, 2, 3], TypeError, "bias must hold numbers"),
    ([2**31, 0, 0, 0], ValueError, "bias has values outside the int32 range"),
    ([[1, 2]], TypeError, "bias must be an array-like"),
    (np.array([1, 2, 3]), ValueError, "bias must be 1-D of length 4"),
])
def test_bad_bias_vectors_are_named(bad, exc, words):
    if isinstance(bad, list) and bad == [[1, 2]]:
        bad = [[1, 2], [3]]  # ragged
    with pytest.raises(exc, match=re.escape(words)):
        simdops.quantize_down_int32(X4.reshape(1, 4), 1 << 30, 0, bias=bad)


def test_an_empty_list_is_an_empty_int32_vector():
    x = np.zeros((3, 0), np.int32)
    assert simdops.quantize_down_int32(x, [], [], bias=[]).shape == (3, 0)


# ------------------------------------------------------------------ rounding= and the modes

@pytest.mark.parametrize("rounding", ["floor", "fp", "", "DOUBLE", None, 1, b"double"])
def test_rounding_names_outside_the_array_api_are_refused(rounding):
    with pytest.raises(ValueError, match=r"^quantize_down_int32: rounding must be one of "
                                         r"'double', 'double_ties_up', 'single'"):
        simdops.quantize_down_int32(X4, 1 << 30, 1, rounding=rounding)


@pytest.mark.parametrize("precision, ties", [("float32", "even"), ("float32", "away"),
                                             ("float64", "even"), ("float64", "away")])
def test_requantize_fp32_modes_at_ties_and_saturation(precision, ties):
    x = np.array([5, 15, -5, -15, 25, -25, 2**31 - 1, -2**31, 0, 1], np.int32)
    for out_dtype in ("uint8", "int8", "int16"):
        for scale, zp in ((0.1, 0), (0.5, 3), (3e-10, 0), (3e9, 0)):
            if out_dtype == "uint8" and zp < 0:
                continue
            got = simdops.requantize_fp32(x, scale, zp, out_dtype=out_dtype, precision=precision,
                                          ties=ties)
            want = ref_fp32(x, scale, zp, out_dtype=out_dtype, precision=precision, ties=ties)
            np.testing.assert_array_equal(got, want, err_msg=f"{out_dtype} {scale} {zp}")


@pytest.mark.parametrize("convention", ["acl", "tflite", "xnnpack"])
@pytest.mark.parametrize("scale", [0, -1.0, float("nan"), float("inf"), None, "1", [0.5, -1]])
def test_quantize_multiplier_refuses_what_is_not_a_positive_finite_scale(convention, scale):
    with pytest.raises((TypeError, ValueError), match="scale"):
        simdops.quantize_multiplier(scale, convention)


@pytest.mark.parametrize("convention", ["acl", "tflite", "xnnpack"])
def test_quantize_multiplier_takes_fractions_and_arrays_alike(convention):
    m, s = simdops.quantize_multiplier(Fraction(1, 3), convention)
    mv, sv = simdops.quantize_multiplier(np.array([1 / 3, 1 / 3]), convention)
    assert (int(mv[0]), int(sv[0])) == (m, s) == (int(mv[1]), int(sv[1]))


# ------------------------------------------------------------------ bounds

@pytest.mark.parametrize("kw, words", [
    (dict(min=-1), "min = -1 is outside [0, 255]"),
    (dict(max=256), "max = 256 is outside [0, 255]"),
    (dict(min=9, max=3), "min = 9 is above max = 3"),
    (dict(min=1.5), "min must be an int"),
    (dict(max=True), "max must be an int"),
])
@pytest.mark.parametrize("func", ["quantize_down_int32", "requantize_fp32"])
def test_bad_bounds_are_named(kw, words, func):
    call = (lambda: simdops.quantize_down_int32(X4, 1 << 30, 1, **kw)) \
        if func == "quantize_down_int32" else (lambda: simdops.requantize_fp32(X4, 0.5, **kw))
    with pytest.raises((TypeError, ValueError), match=re.escape(words)):
        call()


# ------------------------------------------------------------------ ACL output stages

def test_acl_quantize_down_float_validate_refuses_what_run_refuses():
    x, y = np.zeros((2, 3), np.int32), np.zeros((2, 3), np.uint8)
    for offset in (2**31, -2**31 - 1):
        info = acl.GEMMLowpOutputStageInfo(type=T.QUANTIZE_DOWN_FLOAT,
                                           gemmlowp_real_multiplier=0.5, gemmlowp_offset=offset)
        status = acl.GEMMLowpOutputStage.validate(x, None, y, info)
        assert not status
        assert "gemmlowp_offset" in status.error_description()
        with pytest.raises(ValueError, match="gemmlowp_offset"):
            acl.GEMMLowpOutputStage().configure(x, None, y, info)
    info = acl.GEMMLowpOutputStageInfo(type=T.QUANTIZE_DOWN_FLOAT, gemmlowp_real_multiplier=1e39)
    status = acl.GEMMLowpOutputStage.validate(x, None, y, info)
    assert not status and "gemmlowp_real_multiplier" in status.error_description()


@pytest.mark.parametrize("offset", [2**31 - 1, -2**31])
def test_acl_quantize_down_float_runs_at_the_int32_offsets(offset):
    x = np.array([[0, 1, -1, 2**31 - 1, -2**31, 12345]], np.int32)
    y = np.zeros(x.shape, np.int8)
    info = acl.GEMMLowpOutputStageInfo(type=T.QUANTIZE_DOWN_FLOAT, gemmlowp_real_multiplier=0.25,
                                       gemmlowp_offset=offset)
    assert acl.GEMMLowpOutputStage.validate(x, None, y, info)
    stage = acl.GEMMLowpOutputStage()
    stage.configure(x, None, y, info)
    stage.run()
    np.testing.assert_array_equal(y, acl_quantize_down_float(x, 0.25, offset, out_dtype="int8"))


@pytest.mark.parametrize("value", [10**400, -10**400, 2**1024])
def test_acl_real_multiplier_beyond_a_double_is_a_value_error_naming_the_field(value):
    with pytest.raises(ValueError, match="gemmlowp_real_multiplier"):
        acl.GEMMLowpOutputStageInfo(type=T.QUANTIZE_DOWN_FLOAT, gemmlowp_real_multiplier=value)


class LyingLength:
    """len() says n; the iterator yields `yields` entries (None: without end)."""

    def __init__(self, n, yields=None):
        self.n, self.yields = n, yields

    def __len__(self):
        return self.n

    def __iter__(self):
        return itertools.repeat(1) if self.yields is None else iter([1] * self.yields)


@pytest.mark.parametrize("field", ["gemmlowp_multipliers", "gemmlowp_shifts"])
@pytest.mark.parametrize("values, words", [(LyingLength(3), "gave more"),
                                           (LyingLength(3, 5), "gave more"),
                                           (LyingLength(3, 1), "gave 1")])
def test_acl_sequence_fields_are_read_with_a_bound(field, values, words):
    with pytest.raises(ValueError, match=rf"^{field}: len\(\) says 3 entries but iterating it "
                                         rf"{words}"):
        acl.GEMMLowpOutputStageInfo(**{field: values})


def test_acl_sequence_fields_that_tell_the_truth_still_work():
    info = acl.GEMMLowpOutputStageInfo(gemmlowp_multipliers=LyingLength(3, 3),
                                       gemmlowp_shifts=range(3))
    assert info.gemmlowp_multipliers == (1, 1, 1) and info.gemmlowp_shifts == (0, 1, 2)


# ------------------------------------------------------------------ ONNX Shrink, Hardmax

def test_onnx_shrink_nan_lambd_gives_zeros_as_the_reference():
    onnx = pytest.importorskip("onnx")
    from onnx import helper
    from onnx.reference import ReferenceEvaluator
    x = np.array([-2.0, -0.1, 0.0, 0.1, 2.0, np.nan, np.inf], np.float32)
    node = helper.make_node("Shrink", ["x"], ["y"], bias=0.5, lambd=float("nan"))
    want = ReferenceEvaluator(node).run(None, {"x": x})[0]
    got = so.shrink(x, 0.5, float("nan"))
    np.testing.assert_array_equal(got, want)
    assert not got.any()
    del onnx
    for dtype in (np.int8, np.uint16, np.int64, np.float16, np.float64):
        xi = np.array([-3, 0, 3]).astype(dtype)
        np.testing.assert_array_equal(so.shrink(xi, 1.0, float("nan")), np.zeros(3, dtype))


def test_onnx_shrink_names_bias_and_lambd():
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match=r"^shrink: bias is NaN$"):
        so.shrink(x, float("nan"), 0.5)
    with pytest.raises(TypeError, match=r"\blambd\b"):
        so.shrink(x, 0.0, "0.5")


def test_c_api_shrink_onnx_names_bias_and_lambd():
    """Numbers of no known kind reach C only through the C API: each is refused naming
    its own parameter (they were reported as min and max)."""
    from test_capi_hostile import Error, Number, Tensor, view
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    table = get_pointer(simdops._C_API, b"simdops._C_API")
    fn = ctypes.c_void_p.from_address(table + 240).value  # shrink_onnx (capi_versions.txt)
    shrink_onnx = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Tensor), ctypes.POINTER(Tensor),
                                   Number, Number, ctypes.POINTER(Error))(fn)
    fmt_fn = ctypes.c_void_p.from_address(table + 16).value  # error_format
    error_format = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.POINTER(Error), ctypes.c_char_p,
                                    ctypes.c_size_t)(fmt_fn)
    a = np.ones(4, np.float32)
    out = np.zeros(4, np.float32)
    xv, yv = view(a, 1), view(out, 1)
    good, bad, nan = Number(), Number(), Number()
    good.kind, good.f = 0, 0.5
    bad.kind = 7
    nan.kind, nan.f = 0, float("nan")
    for args, name in (((bad, good), "bias"), ((good, bad), "lambd"), ((nan, good), "bias")):
        err = Error()
        assert shrink_onnx(ctypes.byref(xv), ctypes.byref(yv), *args, ctypes.byref(err)) == 3
        buf = ctypes.create_string_buffer(256)
        error_format(ctypes.byref(err), buf, 256)
        assert buf.value.decode().startswith(f"shrink: {name} "), buf.value
    err = Error()
    assert shrink_onnx(ctypes.byref(xv), ctypes.byref(yv), good, nan, ctypes.byref(err)) == 0
    assert not out.any()


def _hardmax_n1(x, out):
    return so.hardmax(x, axis=np.ndim(x), opset=1, out=out)


def test_onnx_hardmax_coerced_to_n1_writes_out_as_any_call_does():
    x = np.array([[1.0, np.nan], [3.0, -1.0]], np.float32)
    out = np.zeros((2, 2), np.float32)
    assert _hardmax_n1(x, out) is out
    np.testing.assert_array_equal(out, np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match=r"^hardmax: out has dtype float16; expected float32$"):
        _hardmax_n1(x, np.zeros((2, 2), np.float16))
    with pytest.raises(ValueError, match=r"^hardmax: out has 1 dimensions; expected 2"):
        _hardmax_n1(x, np.zeros(2, np.float32))
    with pytest.raises(ValueError, match=r"^hardmax: out has extent 1 in dimension 0"):
        _hardmax_n1(x, np.zeros((1, 2), np.float32))
    ro = np.zeros((2, 2), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"^out must be writable"):
        _hardmax_n1(x, ro)
    assert _hardmax_n1(np.float32(7), None) == np.float32(1)
    assert type(_hardmax_n1(np.float32(7), None)) is np.float32  # 0-d: a numpy scalar
    assert isinstance(so.hardmax(x, axis=2, opset=1), np.ndarray)


def test_onnx_hardmax_coerced_to_n1_writes_into_a_torch_out():
    torch = _torch()
    out = torch.zeros(2, 3, dtype=torch.float64)
    assert _hardmax_n1(np.zeros((2, 3)), out) is out
    assert out.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("axis", [b"\x00", b"", "0", "ab", bytearray(b"\x01"),
                                  memoryview(b"\x00")])
def test_hardmax_axis_given_as_bytes_or_str_is_a_type_error(axis):
    with pytest.raises(TypeError, match=r"^hardmax: axis must be an int or a tuple of ints"):
        simdops.hardmax(np.ones((2, 2), np.float32), axis=axis)


# ------------------------------------------------------------------ dask

def test_dask_requantize_fp32_reads_python_ints_as_int32():
    pytest.importorskip("dask.array")
    import simdops.dask as sd
    np.testing.assert_array_equal(sd.requantize_fp32([[100, 200]], 0.5).compute(),
                                  simdops.requantize_fp32([[100, 200]], 0.5))
    assert simdops.requantize_fp32([[100, 200]], 0.5).tolist() == [[50, 100]]
    with pytest.raises(ValueError, match="x has values outside the int32 range"):
        sd.requantize_fp32([[2**31]], 0.5)


def test_dask_messages_name_the_function_called():
    pytest.importorskip("dask.array")
    import dask.array as da
    import simdops.dask as sd
    x = da.zeros((2, 4), dtype=np.int32, chunks=2)
    for call, func in ((lambda: sd.quantize_down_int32_to_uint8(x, 1 << 30, 1, 0, min=9, max=3),
                        "quantize_down_int32_to_uint8"),
                       (lambda: sd.quantize_down_int32(x, 1 << 30, 40), "quantize_down_int32"),
                       (lambda: sd.requantize_fp32(x, 0.5, 300), "requantize_fp32")):
        with pytest.raises(ValueError, match=rf"^{func}: "):
            call()


def test_dask_per_channel_float_scales_as_a_list():
    pytest.importorskip("dask.array")
    import dask.array as da
    import simdops.dask as sd
    x = np.arange(-40, 40, dtype=np.int32).reshape(10, 8) * 37
    sc = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    got = sd.requantize_fp32(da.from_array(x, chunks=(3, 3)), sc, 4).compute()
    np.testing.assert_array_equal(got, ref_fp32(x, np.array(sc, np.float32), 4))


# ------------------------------------------------------------------ docs that went stale

def _doc(name):
    import pathlib
    return (pathlib.Path(__file__).parent.parent / name).read_text()


def test_docs_list_what_runs():
    assert "`QUANTIZE_DOWN` and `QUANTIZE_DOWN_FLOAT` are refused" not in _doc(
        "docs/descriptors.md")
    assert "is not modelled" not in _doc("docs/descriptors.md")
    dask_doc = _doc("docs/dask.md")
    assert "simdops.dask.requantize_fp32(" in dask_doc and "rounding=" in dask_doc
    assert "same five" not in dask_doc
    semantics = _doc("docs/semantics.md")
    assert "sse41, avx2, avx512, neon" in semantics
    assert "Every family has kernels in the scalar, AVX2 and NEON tiers" not in semantics
    readme = os.path.join(os.path.dirname(__file__), "..", "README.md")
    if os.path.exists(readme):  # the aarch64 wheel's test tree has docs/ but no README
        assert 'rounding="single")  # TFLite, ruy' not in _doc("README.md")
    assert "avx512" in simdops.isa.__doc__
    assert "ONNX" in simdops.__doc__ and "ONNX Runtime" in simdops.__doc__
    # the installed header (the wheel's tests run without csrc/ beside them)
    with open(os.path.join(simdops.get_include(), "simdops", "simdops.h")) as f:
        header = f.read()
    assert '"avx2", "avx512", "neon"' in header


def test_semantics_tier_sentence_matches_the_kernel_table():
    """What the semantics page says of the families' x86 tiers is what the tables hold:
    ties_up, floor, single and single_away have kernels of their own in every SIMD tier
    (AVX-512 may run AVX2's), fp comes from avx2 (or avx512) once those are available,
    and SSE2/SSE4.1 run the scalar fp kernels."""
    isas = simdops.available_isas()
    if "sse2" not in isas:
        pytest.skip("x86 only")
    text = open(os.path.join(os.path.dirname(__file__), "..", "docs", "semantics.md")).read()
    assert ("`\"double_ties_up\"`, ACL's `QUANTIZE_DOWN`, `\"single\"` and `\"single_away\"` have\n"
            "SIMD kernels in every tier") in text
    for isa in isas:
        origins = simdops._core.kernel_origins(isa)
        for (entry, _dtype), tier in origins.items():
            if entry.startswith(("requant_ties_up", "requant_floor", "requant_single")):
                want = (isa,) if isa != "avx512" else ("avx2", "avx512")
                assert tier in want, (isa, entry, tier)
            elif entry.startswith("requant_fp"):
                want = {"scalar": "scalar", "sse2": "scalar", "sse41": "scalar",
                        "avx2": "avx2"}.get(isa, ("avx2", "avx512"))
                assert tier in ((want,) if isinstance(want, str) else want), (isa, entry, tier)


def test_dask_per_channel_vectors_from_dlpack_and_negative_torch_views():
    pytest.importorskip("dask.array")
    torch = _torch()
    import dask.array as da
    import simdops.dask as sd
    x = np.arange(-40, 40, dtype=np.int32).reshape(10, 8) * 997
    dx = da.from_array(x, chunks=(3, 3))
    m = [1 << 30] * 4 + [3 << 28] * 4
    s = [0, 1, 2, 3, -1, 0, 1, 2]
    b = [1, -2, 3, -4, 5, -6, 7, -8]
    sc = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    want = simdops.quantize_down_int32(x, np.array(m, np.int32), np.array(s, np.int32), 3,
                                       bias=np.array(b, np.int32), out_dtype="int8")
    got = sd.quantize_down_int32(dx, _neg_view(torch, m, torch.int32),
                                 DLPackOnly(np.array(s, np.int32)), 3,
                                 bias=_neg_view(torch, b, torch.int32), out_dtype="int8")
    np.testing.assert_array_equal(got.compute(), want)
    got = sd.requantize_fp32(dx, _neg_view(torch, sc, torch.float32), 4,
                             bias=DLPackOnly(np.array(b, np.int32)))
    np.testing.assert_array_equal(got.compute(), ref_fp32(x, np.array(sc, np.float32), 4, bias=b))
