"""quantize_down_int32_to_uint8 / quantize_down_int32 against the Python-int reference
(docs/semantics.md requant, ACL's GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint)."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdops
from conftest import check_all_isas, random_bits, sprinkle
from reference import (INT32_MAX, INT32_MIN, REQUANT_OUT, assert_matches, rdbpot, requant, srdhm,
                       wrap32)

OUT_DTYPES = list(REQUANT_OUT)
EDGE_X = np.array([INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 0, 1, -1, 2, -2, 3, -3,
                   1 << 30, -(1 << 30), (1 << 30) + 1, -(1 << 30) - 1, 1 << 16, -(1 << 16),
                   6000, -6000, 255, 256, -128, -129, 32767, -32768, 12345678, -87654321],
                  dtype=np.int32)
EDGE_M = [INT32_MIN, INT32_MIN + 1, INT32_MAX, 0, 1, -1, 1 << 30, (1 << 30) + 1, -(1 << 30),
          254601600, 254601601, 1073741823, 1518500250]
SHIFTS = [0, 1, 2, 15, 30, 31, -1, -2, -15, -30, -31]


def ok_bounds(out_dtype):
    tlo, thi = REQUANT_OUT[out_dtype]
    mid = (tlo + thi) // 2
    return [(None, None), (tlo, thi), (tlo, tlo), (thi, thi), (mid, mid), (tlo + 1, thi - 1),
            (mid - 3, mid + 40), (tlo, mid), (mid, thi), (None, mid), (mid, None)]


def offsets(out_dtype):
    return [0] if out_dtype == "int16" else [0, 2, -7, 128, INT32_MAX, INT32_MIN, -300, 100000]


def _call(x, m, s, off, bias, lo, hi, out_dtype, **kw):
    return simdops.quantize_down_int32(x, m, s, off, bias=bias, min=lo, max=hi,
                                       out_dtype=out_dtype, **kw)


# ----------------------------------------------------- the reference's own check

def _rational_srdhm(a, b):  # round(2*a*b / 2**32), halves up, via exact rationals
    if a == b == INT32_MIN:
        return INT32_MAX
    return math.floor(Fraction(2 * a * b, 1 << 32) + Fraction(1, 2))


def _spec_rdbpot(x, e):  # docs/semantics.md wording, on int32 two's complement
    mask = (1 << e) - 1
    return (x >> e) + (1 if (x & mask) > ((mask >> 1) + (1 if x < 0 else 0)) else 0)


def test_reference_fixedpoint_matches_spec_formulas():
    rng = np.random.default_rng(7)
    vals = list(EDGE_X.tolist()) + rng.integers(INT32_MIN, INT32_MAX, 300, endpoint=True).tolist()
    for a in vals[:60]:
        for b in EDGE_M + vals[:20]:
            assert srdhm(a, b) == _rational_srdhm(a, b), (a, b)
            assert INT32_MIN <= srdhm(a, b) <= INT32_MAX
    for x in vals + list(range(-70, 70)):
        for e in range(32):
            assert rdbpot(x, e) == _spec_rdbpot(x, e), (x, e)


# ----------------------------------------------------------- ACL's own test cases

@pytest.mark.parametrize("multiplier", [254601600, 254601601])
@pytest.mark.parametrize("min_,max_", [(0, 0), (0, 171), (0, 172), (0, 173), (1, 171), (1, 172),
                                       (1, 173)])
@pytest.mark.parametrize("add_bias", [False, True])
@pytest.mark.parametrize("shape", [(13, 32), (2, 13, 27), (1, 7), (3, 4, 5, 9)])
def test_acl_gemmlowp_cases(multiplier, min_, max_, add_bias, shape, rng):
    x = rng.integers(-6000, 6000, size=shape, endpoint=True, dtype=np.int32)
    bias = rng.integers(-6000, 6000, size=shape[-1], endpoint=True, dtype=np.int32) if add_bias else None
    expected = requant(x, multiplier, 1, 2, bias, min_, max_, "uint8")
    check_all_isas(lambda: simdops.quantize_down_int32_to_uint8(x, multiplier, 1, 2, bias=bias,
                                                                min=min_, max=max_),
                   expected, x, context=f"M={multiplier}, min={min_}, max={max_}, bias={add_bias}")
    check_all_isas(lambda: simdops.quantize_down_int32(x, multiplier, 1, 2, bias=bias, min=min_,
                                                       max=max_, out_dtype="uint8"), expected, x)


def test_acl_case_min_above_max_rejected():
    x = np.zeros((2, 3), np.int32)
    with pytest.raises(ValueError, match="min"):
        simdops.quantize_down_int32_to_uint8(x, 254601600, 1, 2, min=1, max=0)


def test_acl_known_values():
    # 1000 * 254601600 / 2**31 = 118.56 -> SRDHM 119 -> RDBPOT(119, 1) = 59.5 -> 60 (ties
    # away from zero) -> + 2 = 62: two roundings, as gemmlowp does (one would give 61)
    x = np.array([0, 100, 1000, -1000, 6000, -6000, 1013], np.int32)
    y = simdops.quantize_down_int32_to_uint8(x, 254601600, 1, 2)
    assert y.tolist() == [2, 8, 62, 0, 255, 0, 62]
    y = simdops.quantize_down_int32(x, 254601600, 1, 2, out_dtype="int8")
    assert y.tolist() == [2, 8, 62, -58, 127, -128, 62]


# ------------------------------------------------------------------- edge cases

@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_int32_min_times_int32_min(out_dtype):
    x = np.array([INT32_MIN] * 9 + [INT32_MAX, 0], np.int32)
    for shift in SHIFTS:
        for off in offsets(out_dtype):
            exp = requant(x, INT32_MIN, shift, off, None, None, None, out_dtype)
            check_all_isas(lambda: _call(x, INT32_MIN, shift, off, None, None, None, out_dtype),
                           exp, x, context=f"M=INT32_MIN, shift={shift}, offset={off}")
    # SRDHM saturates: INT32_MIN * INT32_MIN -> INT32_MAX; RDBPOT(., 0) keeps it
    y = simdops.quantize_down_int32(np.array([INT32_MIN], np.int32), INT32_MIN, 0, 0,
                                    out_dtype=out_dtype)
    assert y.tolist() == [REQUANT_OUT[out_dtype][1]]


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("shift", SHIFTS)
def test_edge_multipliers_shifts_offsets_bounds(out_dtype, shift):
    x = np.concatenate([EDGE_X, EDGE_X[::-1]])
    for m in EDGE_M:
        for off in offsets(out_dtype):
            for lo, hi in ok_bounds(out_dtype)[:6]:
                exp = requant(x, m, shift, off, None, lo, hi, out_dtype)
                check_all_isas(lambda: _call(x, m, shift, off, None, lo, hi, out_dtype), exp, x,
                               context=f"M={m}, shift={shift}, offset={off}, min={lo}, max={hi}")


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_min_equal_max_means_no_clamp(out_dtype, rng):
    tlo, thi = REQUANT_OUT[out_dtype]
    x = rng.integers(2 * tlo - 20, 2 * thi + 20, 200, dtype=np.int32)  # M = 2**30 halves it
    free = simdops.quantize_down_int32(x, 1 << 30, 0, 0, out_dtype=out_dtype)
    for v in sorted({tlo, 0 if tlo <= 0 else tlo, 5, thi}):
        y = simdops.quantize_down_int32(x, 1 << 30, 0, 0, min=v, max=v, out_dtype=out_dtype)
        assert y.tobytes() == free.tobytes()
    assert len(np.unique(free)) > 10


def test_uint8_defaults_no_clamp():
    x = np.array([-1000, 0, 1000, 10 ** 6], np.int32)
    y = simdops.quantize_down_int32_to_uint8(x, 1 << 30, 0, 3)
    assert y.tolist() == [0, 3, 255, 255]
    assert simdops.quantize_down_int32(x, 1 << 30, 0, 3).tolist() == [0, 3, 255, 255]


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_bias_and_offset_wrap_around(out_dtype):
    x = np.array([[INT32_MAX, INT32_MIN, INT32_MAX, -5, INT32_MIN]] * 3, np.int32)
    bias = np.array([1, -1, INT32_MAX, INT32_MIN, INT32_MIN], np.int32)
    for m, shift in [(INT32_MAX, 0), (1 << 30, 0), (1 << 30, 31), (INT32_MIN, 0), (1 << 30, -1),
                     (INT32_MAX, -31), (1 << 30, 20)]:
        for off in offsets(out_dtype):
            exp = requant(x, m, shift, off, bias, None, None, out_dtype)
            check_all_isas(lambda: _call(x, m, shift, off, bias, None, None, out_dtype), exp, x,
                           context=f"M={m}, shift={shift}, offset={off}")
    # wrap32(INT32_MAX + 1) = INT32_MIN: a large negative, not a large positive
    y = simdops.quantize_down_int32(np.array([INT32_MAX], np.int32), INT32_MAX, 0, 0,
                                    bias=np.array([1], np.int32), out_dtype=out_dtype)
    assert y.tolist() == [REQUANT_OUT[out_dtype][0]]


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_negative_shift_left_shift_wraps(out_dtype):
    # shift < 0: a * 2**-shift wraps to int32 before SRDHM
    x = np.array([1, 2, 3, -1, 1 << 16, -(1 << 16), (1 << 30) + 7, INT32_MAX], np.int32)
    for shift in (-1, -2, -16, -30, -31):
        for m in (INT32_MAX, 1 << 30, 3, -7):
            exp = requant(x, m, shift, 0, None, None, None, out_dtype)
            check_all_isas(lambda: _call(x, m, shift, 0, None, None, None, out_dtype), exp, x,
                           context=f"M={m}, shift={shift}")


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_per_channel(out_dtype, rng):
    c = 37
    x = sprinkle(rng, random_bits(rng, 4 * c, np.int32), EDGE_X).reshape(4, c)
    x[2] = rng.integers(-6000, 6000, c)
    ms = np.array((EDGE_M * 3)[:c], np.int32)
    shifts = np.array((SHIFTS * 4)[:c], np.int32)
    bias = rng.integers(INT32_MIN, INT32_MAX, c, endpoint=True, dtype=np.int32)
    for off in offsets(out_dtype):
        for lo, hi in ok_bounds(out_dtype)[:5]:
            for b in (None, bias):
                exp = requant(x, ms, shifts, off, b, lo, hi, out_dtype)
                check_all_isas(lambda: _call(x, ms, shifts, off, b, lo, hi, out_dtype), exp, x,
                               context=f"per-channel offset={off}, min={lo}, max={hi}")
    # lists of ints are accepted as per-channel vectors
    assert _call(x, ms.tolist(), shifts.tolist(), 0, bias.tolist(), None, None,
                 out_dtype).tobytes() == requant(x, ms, shifts, 0, bias, None, None,
                                                 out_dtype).tobytes()


@pytest.mark.parametrize("which", ["int shift", "int multiplier"])
def test_per_channel_mixed_with_scalar(which, rng):
    c = 9
    x = rng.integers(-6000, 6000, (3, c), dtype=np.int32)
    ms = np.array(EDGE_M[:c], np.int32)
    shifts = np.array(SHIFTS[:c], np.int32)
    if which == "int shift":
        exp = requant(x, ms, 3, 1, None, None, None, "uint8")
        got = simdops.quantize_down_int32(x, ms, 3, 1)
    else:
        exp = requant(x, 1 << 30, shifts, 1, None, None, None, "uint8")
        got = simdops.quantize_down_int32(x, 1 << 30, shifts, 1)
    assert_matches(got, exp, x)


def test_per_channel_equals_per_tensor_columns(rng):
    x = rng.integers(-100000, 100000, (5, 6), dtype=np.int32)
    ms = np.array([INT32_MIN, 1 << 30, 254601600, 7, INT32_MAX, -5], np.int32)
    sh = np.array([0, 31, 1, -31, -1, 5], np.int32)
    y = simdops.quantize_down_int32(x, ms, sh, 3, out_dtype="int8")
    for k in range(6):
        col = simdops.quantize_down_int32(np.ascontiguousarray(x[:, k]), int(ms[k]), int(sh[k]),
                                          3, out_dtype="int8")
        assert y[:, k].tolist() == col.tolist()


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_every_length(out_dtype, rng):
    off = 0 if out_dtype == "int16" else 5
    for n in range(71):
        x = sprinkle(rng, random_bits(rng, n, np.int32), EDGE_X)
        small = rng.integers(-6000, 6000, n, dtype=np.int32)
        for data in (x, small):
            for m, s in [(254601600, 1), (INT32_MIN, 0), (1 << 30, -3), (1518500250, 31)]:
                exp = requant(data, m, s, off, None, None, None, out_dtype)
                check_all_isas(lambda: _call(data, m, s, off, None, None, None, out_dtype), exp,
                               data, context=f"n={n}, M={m}, shift={s}")
        if n:
            ms = rng.integers(INT32_MIN, INT32_MAX, n, endpoint=True, dtype=np.int32)
            sh = rng.integers(-31, 31, n, endpoint=True, dtype=np.int32)
            bias = rng.integers(-6000, 6000, n, dtype=np.int32)
            data = np.stack([x, small])
            lo, hi = ok_bounds(out_dtype)[6]
            exp = requant(data, ms, sh, off, bias, lo, hi, out_dtype)
            check_all_isas(lambda: _call(data, ms, sh, off, bias, lo, hi, out_dtype), exp, data,
                           context=f"per-channel n={n}")


def test_zero_size_and_0d():
    for shape in [(0,), (3, 0), (0, 4)]:
        x = np.empty(shape, np.int32)
        for od in OUT_DTYPES:
            y = simdops.quantize_down_int32(x, 1 << 30, 1, 0, out_dtype=od)
            assert y.shape == shape and y.dtype == np.dtype(od)
    y = simdops.quantize_down_int32(np.empty((0, 4), np.int32), np.full(4, 1 << 30, np.int32),
                                    np.zeros(4, np.int32), bias=np.zeros(4, np.int32))
    assert y.shape == (0, 4)
    y = simdops.quantize_down_int32_to_uint8(np.array(1000, np.int32), 1 << 30, 0, 1)
    assert y.shape == () and int(y) == 255  # 500 + 1 saturates


@st.composite
def _requant_case(draw):
    out_dtype = draw(st.sampled_from(OUT_DTYPES))
    tlo, thi = REQUANT_OUT[out_dtype]
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=8))
    x = draw(hnp.arrays(np.int32, shape, elements=st.integers(INT32_MIN, INT32_MAX)
                        | st.integers(-7000, 7000)))
    c = shape[-1]
    i32 = st.integers(INT32_MIN, INT32_MAX) | st.sampled_from(EDGE_M)
    sh = st.integers(-31, 31)
    per_channel = draw(st.booleans())
    if per_channel:
        m = np.array(draw(st.lists(i32, min_size=c, max_size=c)), np.int32)
        s = np.array(draw(st.lists(sh, min_size=c, max_size=c)), np.int32)
    else:
        m, s = draw(i32), draw(sh)
    off = 0 if out_dtype == "int16" else draw(st.integers(INT32_MIN, INT32_MAX) | st.integers(-300, 300))
    bias = None
    if draw(st.booleans()):
        bias = np.array(draw(st.lists(st.integers(INT32_MIN, INT32_MAX), min_size=c, max_size=c)),
                        np.int32)
    lo, hi = draw(st.sampled_from([(None, None)]) | st.tuples(st.integers(tlo, thi),
                                                              st.integers(tlo, thi)).map(sorted))
    return x, m, s, off, bias, lo, hi, out_dtype


@given(_requant_case())
def test_requant_property_vs_reference(case):
    x, m, s, off, bias, lo, hi, out_dtype = case
    assert requant(x, m, s, off, bias, lo, hi, out_dtype).tobytes() == \
        _call(x, m, s, off, bias, lo, hi, out_dtype).tobytes()


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
def test_all_shift_values(out_dtype, rng):
    x = np.concatenate([EDGE_X, rng.integers(INT32_MIN, INT32_MAX, 64, endpoint=True,
                                             dtype=np.int32)])
    for shift, m in itertools.product(range(-31, 32), [1 << 30, 1518500250, -(1 << 30) - 3]):
        exp = requant(x, m, shift, 0, None, None, None, out_dtype)
        assert _call(x, m, shift, 0, None, None, None, out_dtype).tobytes() == exp.tobytes(), \
            (shift, m)


def test_wrap32_helper():
    assert wrap32(INT32_MAX + 1) == INT32_MIN and wrap32(INT32_MIN - 1) == INT32_MAX
