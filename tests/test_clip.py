"""simdops.clip against the reference (docs/semantics.md clip), every dtype."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdops
from conftest import check_all_isas, random_bits, sprinkle
from reference import (CLIP_DTYPES, FLOAT_DTYPES, assert_matches, clip, edge_values,
                       float_params, int_range, is_float)

DTYPE_IDS = [np.dtype(d).name for d in CLIP_DTYPES]
SB_DTYPES = [d for d in CLIP_DTYPES if np.dtype(d).itemsize < 8 or is_float(d)]


def edge_input(dtype):
    e = edge_values(dtype)
    return np.concatenate([e, e[::-1], e[: len(e) // 2]])  # > one vector of every width


@pytest.mark.parametrize("dtype", CLIP_DTYPES, ids=DTYPE_IDS)
def test_clip_edge_values_all_bound_pairs(dtype):
    """Every pair of interesting bounds (Min > Max included) on every edge value."""
    x = edge_input(dtype)
    params = float_params(dtype)
    for lo in params:
        for hi in params:
            expected = clip(x, lo, hi)
            check_all_isas(lambda: simdops.clip(x, lo, hi), expected, x,
                           context=f"clip({np.dtype(dtype).name}, min={lo!r}, max={hi!r})")


@pytest.mark.parametrize("dtype", CLIP_DTYPES, ids=DTYPE_IDS)
def test_clip_min_greater_than_max_gives_min(dtype):
    x = edge_input(dtype)
    if is_float(dtype):
        lo, hi = 2.0, -1.0
        y = simdops.clip(x, lo, hi)
        nan = np.isnan(x)
        assert np.all(y[~nan] == 2.0)
        assert np.isnan(y[nan]).all()
    else:
        lo, hi = 3, 1
        y = simdops.clip(x, lo, hi)
        assert np.all(y == 3)
    assert_matches(y, clip(x, lo, hi), x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=[np.dtype(d).name for d in FLOAT_DTYPES])
def test_clip_signed_zero_and_nan_bits(dtype):
    dtype = np.dtype(dtype)
    x = np.array([-0.0, 0.0, -0.0, 0.0], dtype=dtype)
    y = simdops.clip(x, 0.0, 1.0)
    assert np.signbit(y).tolist() == [True, False, True, False]  # -0.0 stays -0.0
    y = simdops.clip(x, -0.0, 0.0)
    assert np.signbit(y).tolist() == [True, False, True, False]
    nans = edge_values(dtype)[-4:]
    assert np.isnan(nans).all()
    y = simdops.clip(nans, -1.0, 1.0)
    assert y.tobytes() == nans.tobytes()  # NaN passes through, payload and sign kept
    y = simdops.clip(nans, 5.0, 1.0)  # even with Min > Max
    assert y.tobytes() == nans.tobytes()


@pytest.mark.parametrize("dtype", CLIP_DTYPES, ids=DTYPE_IDS)
def test_clip_every_length(dtype, rng):
    e = edge_values(dtype)
    params = [(-1.5, 2.5), (0, 100), (5, 1)] if is_float(dtype) else [(1, 100), (-3, 7), (9, 2)]
    for n in range(71):
        x = sprinkle(rng, random_bits(rng, n, dtype), e)
        for lo, hi in params:
            check_all_isas(lambda: simdops.clip(x, lo, hi), clip(x, lo, hi), x,
                           context=f"n={n}, min={lo}, max={hi}")


SCALE_BIAS = [(1.0, 0.0), (2.0, 1.0), (-1.0, 0.0), (0.5, -0.25), (0.0, 3.0), (1e-3, 0.5),
              (3.0, None), (None, -7.5), (-2.5, 1e5), (1e10, 1e9), (0.1, 0.1), (1.0, 1e30),
              (-1e30, 0.0), (7, -3)]
SB_FLOAT_EXTRA = [(np.inf, 0.0), (0.0, np.inf), (1.0, -np.inf), (-np.inf, np.inf), (1e-45, 0.0),
                  (3.4e38, 3.4e38), (1e39, 0.0)]


@pytest.mark.parametrize("dtype", SB_DTYPES, ids=[np.dtype(d).name for d in SB_DTYPES])
def test_clip_scale_bias(dtype, rng):
    e = edge_values(dtype)
    x = np.concatenate([e, random_bits(rng, 50, dtype)])
    if not is_float(dtype):
        x = np.concatenate([x, rng.integers(*np.clip(int_range(dtype), -1000, 1000), size=40,
                                            dtype=dtype, endpoint=True)])
    sbs = SCALE_BIAS + (SB_FLOAT_EXTRA if is_float(dtype) else [])
    bounds = ([(-np.inf, np.inf), (-2.0, 3.0), (0.0, 1e4), (4.0, -4.0)] if is_float(dtype)
              else [(int_range(dtype)[0], int_range(dtype)[1]), (-3, 70), (0, 1e30), (8, 2)])
    for scale, bias in sbs:
        kw = {}
        if scale is not None:
            kw["scale"] = scale
        if bias is not None:
            kw["bias"] = bias
        for lo, hi in bounds:
            expected = clip(x, lo, hi, scale=scale, bias=bias)
            # NaN produced by arithmetic (inf*0, inf-inf) need only be NaN; the bits of a NaN
            # computed from a NaN input are hardware-defined, not part of the contract
            check_all_isas(lambda: simdops.clip(x, lo, hi, **kw), expected, x, nan_bits=False,
                           context=f"clip(min={lo}, max={hi}, {kw})")


@pytest.mark.parametrize("dtype", SB_DTYPES, ids=[np.dtype(d).name for d in SB_DTYPES])
def test_clip_scale_bias_default_partner(dtype, rng):
    x = np.concatenate([edge_values(dtype), random_bits(rng, 20, dtype)])
    a = simdops.clip(x, -100, 100, scale=3.0)
    b = simdops.clip(x, -100, 100, scale=3.0, bias=0.0)
    assert_matches(a, b, x, nan_bits=False)
    a = simdops.clip(x, -100, 100, bias=2.0)
    b = simdops.clip(x, -100, 100, scale=1.0, bias=2.0)
    assert_matches(a, b, x, nan_bits=False)


def test_clip_scale_bias_float32_no_fma():
    # x*s + b where an FMA would round once: 1+2**-23 squared has a 2**-46 term
    x = np.array([1 + 2 ** -23] * 9, dtype=np.float32)
    s = 1 + 2 ** -23
    b = -(1 + 2 ** -22)
    y = simdops.clip(x, -10.0, 10.0, scale=s, bias=b)
    expected = clip(x, -10.0, 10.0, scale=s, bias=b)
    assert_matches(y, expected, x)
    assert y[0] == 0.0  # fl32(1 + 2**-22 + 2**-46) = 1 + 2**-22; minus that is 0


def test_clip_scale_bias_float16_rounds_once_to_half():
    # The float32 result is rounded to float16 only at the end.
    x = np.array([1.0, 3.0, -5.0, 2049.0, 65504.0], dtype=np.float16)
    y = simdops.clip(x, -np.inf, np.inf, scale=1.0009765625, bias=0.0004)
    assert_matches(y, clip(x, -np.inf, np.inf, scale=1.0009765625, bias=0.0004), x)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32],
                         ids=lambda d: np.dtype(d).name)
def test_clip_scale_bias_integer_truncates_and_saturates(dtype):
    lo, hi = int_range(dtype)
    x = np.array([lo, hi, 0, 1, 3, lo + 1, hi - 1], dtype=dtype)
    for scale, bias in [(0.5, 0.0), (-0.5, 0.0), (1.0, 0.99), (1.0, -0.99), (2.0, 0.0),
                        (-1.0, 0.0), (1.0, 1e20), (1.0, -1e20), (0.0, 0.0), (0.0, -0.5)]:
        y = simdops.clip(x, lo, hi, scale=scale, bias=bias)
        assert_matches(y, clip(x, lo, hi, scale=scale, bias=bias), x)
    y = simdops.clip(np.array([3, -3, 5], np.int8), -100, 100, scale=0.5)
    assert y.tolist() == [1, -1, 2]  # truncation toward zero, not floor or round


def test_clip_scale_bias_int32_in_float64():
    # fl64 arithmetic: int32 values times a float32 scale are exact in float64
    x = np.array([2 ** 31 - 1, -2 ** 31, 16777217, -16777217], dtype=np.int32)
    y = simdops.clip(x, -2 ** 31, 2 ** 31 - 1, scale=1.0, bias=0.0)
    assert y.tolist() == x.tolist()
    y = simdops.clip(x, -2 ** 31, 2 ** 31 - 1, scale=1.0, bias=0.5)
    assert y.tolist() == [2 ** 31 - 1, -2 ** 31 + 1, 16777217, -16777216]  # trunc toward 0
    assert_matches(y, clip(x, -2 ** 31, 2 ** 31 - 1, scale=1.0, bias=0.5), x)


@pytest.mark.parametrize("dtype,lo,hi", [
    (np.uint8, -1.5, 300), (np.uint8, 255.9, 1e9), (np.int8, -128.9, 127.9),
    (np.int16, -1e30, 1e30), (np.uint64, 2 ** 64 - 1, 2 ** 64), (np.uint64, -5, 2 ** 80),
    (np.int64, -2 ** 63 - 1, 2 ** 63), (np.int64, 2 ** 63 - 1, 2 ** 63 - 1),
    (np.int64, -(2 ** 63), -(2 ** 63) + 1), (np.uint32, 2 ** 32 + 5, 2 ** 32 - 1),
    (np.int32, -2.9, 2.9), (np.int64, 9007199254740993, 9007199254740993),
    (np.uint64, 18446744073709551615, 18446744073709551615), (np.int64, np.inf, -np.inf),
])
def test_clip_integer_parameter_conversion(dtype, lo, hi):
    """Python ints exactly, floats truncated toward zero, then saturated."""
    x = edge_values(dtype)
    check_all_isas(lambda: simdops.clip(x, lo, hi), clip(x, lo, hi), x,
                   context=f"min={lo!r}, max={hi!r}")


@pytest.mark.parametrize("dtype,value", [
    (np.float32, 16777217), (np.float32, 2 ** 62 + 2 ** 38 + 1), (np.float32, -(2 ** 62 + 2 ** 38 + 1)),
    (np.float16, 2049), (np.float16, 2051), (np.float16, 65519), (np.float16, 65520),
    (np.float16, 10 ** 6), (np.float64, 2 ** 53 + 1), (np.float64, 2 ** 70 + 2 ** 17 + 1),
    (np.float32, 2 ** 128), (np.float32, 2 ** 128 - 2 ** 103), (np.float32, 2 ** 128 - 2 ** 104),
    (np.float32, 2 ** 63 + 2 ** 39 + 1), (np.float64, 2 ** 80 + 2 ** 27 + 1),
    (np.float32, 2 ** 64 + 2 ** 40 + 1),
    (np.float32, 2 ** 70 + 2 ** 46 + 1),
    (np.float32, -(2 ** 70 + 2 ** 46 + 1)),
])
def test_clip_python_int_bound_on_float_tensor(dtype, value):
    """A Python int bound is rounded to the tensor's type once, from its exact value."""
    x = np.array([np.inf, -np.inf, 0.0], dtype=dtype)
    check_all_isas(lambda: simdops.clip(x, value, value), clip(x, value, value), x,
                   context=f"min=max={value}")


@pytest.mark.parametrize("dtype,value", [
    (np.float16, 1 + 2 ** -11 + 2 ** -40), (np.float16, 65519.99), (np.float16, 65520.0),
    (np.float16, 2 ** -25), (np.float16, 2 ** -25 + 2 ** -40), (np.float16, 3 * 2 ** -26),
    (np.float32, 1 + 2 ** -24), (np.float32, 1 + 2 ** -24 + 2 ** -50), (np.float32, 1e-46),
    (np.float32, 3.5e38), (np.float32, 2 ** -150), (np.float32, 2 ** -150 + 2 ** -200),
])
def test_clip_python_float_bound_rounding(dtype, value):
    """A Python float bound rounds to nearest even, straight from the double."""
    x = np.array([np.inf, -np.inf, 0.0, -0.0], dtype=dtype)
    check_all_isas(lambda: simdops.clip(x, value, value), clip(x, value, value), x,
                   context=f"min=max={value!r}")


def _dtype_strategy(dtypes):
    return st.sampled_from([np.dtype(d) for d in dtypes])


@st.composite
def _clip_case(draw, dtypes=CLIP_DTYPES):
    dtype = draw(_dtype_strategy(dtypes))
    x = draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=9)))
    if is_float(dtype):
        bound = st.floats(allow_nan=False, width=64) | st.sampled_from(float_params(dtype))
    else:
        lo, hi = int_range(dtype)
        bound = (st.integers(lo - 3, hi + 3) | st.floats(allow_nan=False)
                 | st.sampled_from(float_params(dtype)))
    return x, draw(bound), draw(bound)


@given(_clip_case())
def test_clip_property_vs_reference(case):
    x, lo, hi = case
    assert_matches(simdops.clip(x, lo, hi), clip(x, lo, hi), x)


@given(_clip_case(SB_DTYPES), st.floats(-1e6, 1e6) | st.sampled_from([0.0, -0.0, 1.0, -1.0]),
       st.floats(-1e9, 1e9) | st.sampled_from([0.0, 0.5, -0.5]))
def test_clip_scale_bias_property_vs_reference(case, scale, bias):
    x, lo, hi = case
    y = simdops.clip(x, lo, hi, scale=scale, bias=bias)
    assert_matches(y, clip(x, lo, hi, scale=scale, bias=bias), x, nan_bits=False)


def test_clip_0d_and_empty():
    x = np.array(3.5, dtype=np.float32)
    y = simdops.clip(x, 0.0, 1.0)
    assert y.shape == () and y == 1.0
    for shape in [(0,), (3, 0), (0, 4), (2, 0, 3)]:
        x = np.empty(shape, np.int16)
        y = simdops.clip(x, 0, 1)
        assert y.shape == shape and y.dtype == np.int16


@pytest.mark.parametrize("name", ["scale", "bias"])
@pytest.mark.parametrize("value", [
    16777217, 2 ** 24 + 3, -(2 ** 40 + 1), 2 ** 128, 2 ** 128 - 2 ** 104,
    (2 ** 62 + 2 ** 38 + 1),
    (2 ** 104 + 2 ** 80 + 1),
])
def test_clip_python_int_scale_bias_rounded_once_to_float32(name, value):
    x = np.array([1.0, -2.0, 0.0], np.float32)
    kw = {name: value}
    check_all_isas(lambda: simdops.clip(x, -np.inf, np.inf, **kw),
                   clip(x, -np.inf, np.inf, **kw), x, nan_bits=False, context=str(kw))
