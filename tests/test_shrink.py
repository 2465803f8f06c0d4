"""simdops.shrink against the reference (docs/semantics.md shrink), every dtype."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdops
from conftest import check_all_isas, random_bits, sprinkle
from reference import (FLOAT_DTYPES, SHRINK_DTYPES, assert_matches, edge_values, int_range,
                       is_float, shrink)

DTYPE_IDS = [np.dtype(d).name for d in SHRINK_DTYPES]


def biases(dtype):
    if is_float(dtype):
        fi = np.finfo(dtype)
        return [0.0, -0.0, 0.5, 1.0, -1.0, 2.75, -3.25, np.inf, -np.inf, float(fi.max),
                -float(fi.max), float(fi.smallest_subnormal), 1e30, 0.1, 65520.0]
    lo, hi = int_range(dtype)
    return [0, 1, -1, 0.9, -0.9, 2.5, -2.5, 7, -7, lo, hi, 2 * (hi - lo), -2 * (hi - lo), 1e30,
            -1e30, np.inf, -np.inf, 2 ** 70, -(2 ** 70)]


def thresholds(dtype):
    if is_float(dtype):
        fi = np.finfo(dtype)
        return [0.0, -0.0, 0.5, 1.0, 1.5, 100.0, np.inf, float(fi.max), float(fi.tiny),
                float(fi.smallest_subnormal), 1e-30, 65519.0, 65520.0, 0.1]
    lo, hi = int_range(dtype)
    return [0, 0.0, 0.5, 1, 1.0, 1.5, 2.9999, 3, 99.5, hi, hi - 1, hi + 1, abs(lo), abs(lo) + 1, 1e30,
            np.inf, 2 ** 70, float(hi) - 0.5, max(0.0, float(abs(lo)) - 0.5), float(hi) + 0.5, 2 ** 64]


def edge_input(dtype):
    e = edge_values(dtype)
    return np.concatenate([e, e[::-1], e[: len(e) // 2]])


@pytest.mark.parametrize("dtype", SHRINK_DTYPES, ids=DTYPE_IDS)
def test_shrink_edge_values_all_params(dtype):
    x = edge_input(dtype)
    for b in biases(dtype):
        for t in thresholds(dtype):
            expected = shrink(x, b, t)
            # a NaN computed from finite/inf inputs (inf - inf) need only be NaN;
            # NaN inputs must come back with their own bits (checked separately)
            check_all_isas(lambda: simdops.shrink(x, b, t), expected, x, nan_bits=False,
                           context=f"shrink({np.dtype(dtype).name}, bias={b!r}, threshold={t!r})")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=[np.dtype(d).name for d in FLOAT_DTYPES])
def test_shrink_nan_passes_through_with_its_bits(dtype):
    nans = edge_values(dtype)[-4:]
    assert np.isnan(nans).all()
    for b, t in [(0.0, 0.5), (1.0, 0.0), (np.inf, 0.0), (-2.0, np.inf)]:
        check_all_isas(lambda: simdops.shrink(nans, b, t), nans, nans, context=f"b={b}, t={t}")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=[np.dtype(d).name for d in FLOAT_DTYPES])
def test_shrink_zero_output_is_positive_zero(dtype):
    x = np.array([-0.0, 0.0, -0.25, 0.25, -0.5, 0.5], dtype=dtype)
    for b in (0.0, -0.0, 1.0):
        y = simdops.shrink(x, b, 0.5)
        assert not np.signbit(y).any(), y
    y = simdops.shrink(x, 0.0, 0.0)  # threshold 0: ±0 are inside, everything else passes
    assert y.tobytes() == np.array([0.0, 0.0, -0.25, 0.25, -0.5, 0.5], dtype=dtype).tobytes()


def test_shrink_float16_threshold_rounded_first():
    # 1.00048828125 rounds to 1.0 in float16 (tie to even): x = 1.0 is then not > threshold
    x = np.array([1.0, -1.0, 1.0009765625], dtype=np.float16)
    y = simdops.shrink(x, 0.0, 1.00048828125)
    assert y.tolist() == [0.0, 0.0, 1.0009765625]
    assert_matches(y, shrink(x, 0.0, 1.00048828125), x)


@pytest.mark.parametrize("dtype", [d for d in SHRINK_DTYPES if not is_float(d)],
                         ids=lambda d: np.dtype(d).name)
def test_shrink_integer_exact_threshold_and_saturation(dtype):
    lo, hi = int_range(dtype)
    x = np.array(sorted(v for v in {lo, lo + 1, -3, -2, -1, 0, 1, 2, 3, hi - 1, hi} if lo <= v),
                 dtype=dtype)
    # 2.5: 3 > 2.5 passes, 2 does not; 2.0 exactly: 2 is not > 2
    for t, b in [(2.5, 0), (2.0, 0), (2, 1), (0, -1), (0, 1), (0, hi), (0, lo), (0, 1e30),
                 (0, -1e30), (0.999, 0.999), (hi, 1)]:
        check_all_isas(lambda: simdops.shrink(x, b, t), shrink(x, b, t), x,
                       context=f"threshold={t!r}, bias={b!r}")
    y = simdops.shrink(np.array([3, 2, -2, -3, 0], dtype=dtype), 0.9, 2.5) if lo < 0 else None
    if y is not None:
        assert y.tolist() == [3, 0, 0, -3, 0]  # bias 0.9 truncates to 0


@pytest.mark.parametrize("dtype", SHRINK_DTYPES, ids=DTYPE_IDS)
def test_shrink_every_length(dtype, rng):
    e = edge_values(dtype)
    params = [(0.5, 0.5), (1.0, 0.0), (-2.0, 3.0)] if is_float(dtype) else [(1, 2), (-3, 0), (50, 7.5)]
    for n in range(71):
        x = sprinkle(rng, random_bits(rng, n, dtype), e)
        for b, t in params:
            check_all_isas(lambda: simdops.shrink(x, b, t), shrink(x, b, t), x, nan_bits=False,
                           context=f"n={n}, bias={b}, threshold={t}")


def test_shrink_defaults():
    x = np.array([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0], dtype=np.float32)
    assert simdops.shrink(x).tolist() == [-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]  # bias 0, thr 0.5
    assert_matches(simdops.shrink(x), shrink(x, 0.0, 0.5), x)


@st.composite
def _shrink_case(draw):
    dtype = draw(st.sampled_from([np.dtype(d) for d in SHRINK_DTYPES]))
    x = draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=9)))
    if is_float(dtype):
        b = draw(st.floats(allow_nan=False) | st.sampled_from(biases(dtype)))
        t = draw(st.floats(min_value=0.0, allow_nan=False) | st.sampled_from(thresholds(dtype)))
    else:
        lo, hi = int_range(dtype)
        b = draw(st.integers(2 * lo - 2, 2 * hi + 2) | st.floats(allow_nan=False)
                 | st.sampled_from(biases(dtype)))
        t = draw(st.integers(0, 2 * hi + 2) | st.floats(min_value=0.0, allow_nan=False)
                 | st.sampled_from(thresholds(dtype)))
    return x, b, t


@given(_shrink_case())
def test_shrink_property_vs_reference(case):
    x, b, t = case
    assert_matches(simdops.shrink(x, b, t), shrink(x, b, t), x, nan_bits=False)
    nan = np.isnan(x) if is_float(x.dtype) else np.zeros(x.shape, bool)
    if nan.any():
        y = simdops.shrink(x, b, t)
        assert y[nan].tobytes() == x[nan].tobytes()


def test_shrink_0d_and_empty():
    y = simdops.shrink(np.array(2.0, np.float64), 1.0, 0.5)
    assert y.shape == () and y == 1.0
    for shape in [(0,), (3, 0), (0, 4)]:
        y = simdops.shrink(np.empty(shape, np.float16))
        assert y.shape == shape and y.dtype == np.float16


@pytest.mark.parametrize("bias,threshold", [
    (2 ** 63 + 2 ** 39 + 1, 0), (0, 2 ** 40 + 1), (-(2 ** 62 + 2 ** 38 + 1), 0),
    (2 ** 70 + 2 ** 46 + 1, 0),
])
def test_shrink_python_int_params_rounded_once_float32(bias, threshold):
    x = np.array([np.inf, -np.inf, 3e38, -3e38, 0.0, 1.0], np.float32)
    check_all_isas(lambda: simdops.shrink(x, bias, threshold), shrink(x, bias, threshold), x,
                   nan_bits=False, context=f"bias={bias}, threshold={threshold}")
