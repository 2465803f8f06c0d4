"""simdops.quantize_multiplier against the exact-rational reference (SPEC §3)."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import simdops
from reference import quantize_multiplier as ref_qm


@pytest.mark.parametrize("real", [
    1.0, 0.5, 0.25, 2.0, 0.75, 1.5, 0.1, 0.3, 0.999999, 0.9999999999, 1 / 3, 2 / 3, 1e-5,
    0.11856, 254601600 / 2 ** 32, 12345.678, 2 ** 30, 2 ** 31 - 1, 2 ** -32, 2 ** -31,
    1.5 * 2 ** -32, 2 ** 30 * 1.999999999, 1 - 2 ** -33, 1 - 2 ** -32, 1 - 2 ** -31,
    0.5 + 2 ** -33, 0.5 + 2 ** -32, 0.5 + 2 ** -33 + 2 ** -50, (1 - 2 ** -32) * 2 ** -31,
    np.float32(0.1), np.float64(0.7), 3, 7,
])
def test_quantize_multiplier_values(real):
    m, shift = simdops.quantize_multiplier(real)
    assert (m, shift) == ref_qm(real)
    assert type(m) is int and type(shift) is int
    assert (1 << 30) <= m < (1 << 31)
    assert -31 <= shift <= 31


def test_quantize_multiplier_known():
    assert simdops.quantize_multiplier(0.5) == (1 << 30, 0)
    assert simdops.quantize_multiplier(1.0) == (1 << 30, -1)
    assert simdops.quantize_multiplier(0.25) == (1 << 30, 1)
    assert simdops.quantize_multiplier(0.75) == (3 << 29, 0)
    # mantissa rounds up to 2**31: renormalised to 2**30 with the exponent bumped
    assert simdops.quantize_multiplier(1 - 2 ** -33) == (1 << 30, -1)
    # half-way: 0.5 + 2**-32 -> mant*2**31 = 2**30 + 0.5 -> rounds away from zero
    assert simdops.quantize_multiplier(0.5 + 2 ** -32) == ((1 << 30) + 1, 0)
    assert simdops.quantize_multiplier(0.5 + 2 ** -33) == (1 << 30, 0)  # + 0.25: down
    assert simdops.quantize_multiplier(0.75 + 2 ** -32) == ((3 << 29) + 1, 0)
    # just below 2**-32: the mantissa rounds up to 2**31, renormalising into range
    assert simdops.quantize_multiplier(2 ** -32 * (1 - 2 ** -40)) == (1 << 30, 31)
    assert simdops.quantize_multiplier(2 ** -32) == (1 << 30, 31)
    assert simdops.quantize_multiplier(2 ** 30) == (1 << 30, -31)


@pytest.mark.parametrize("real", [0.0, -0.0, -1.0, -1e-10, math.nan, math.inf, -math.inf,
                                  2 ** -33, 1e-300, 5e-324, 2.0 ** 31, 2 ** 31 - 2 ** -22, 1e300,
                                  2 ** -33 * (1 - 2 ** -20)])
def test_quantize_multiplier_errors(real):
    with pytest.raises(ValueError):
        ref_qm(real)
    with pytest.raises(ValueError):
        simdops.quantize_multiplier(real)


@pytest.mark.parametrize("bad", [
    "0.5", b"0.5",
    None, [0.5], True, object()])
def test_quantize_multiplier_type_errors(bad):
    with pytest.raises(TypeError):
        simdops.quantize_multiplier(bad)


@given(st.floats(min_value=2 ** -32, max_value=2 ** 31, exclude_max=True) |
       st.floats(min_value=0.01, max_value=100.0))
def test_quantize_multiplier_property(real):
    try:
        expected = ref_qm(real)
    except ValueError:
        with pytest.raises(ValueError):
            simdops.quantize_multiplier(real)
        return
    m, shift = simdops.quantize_multiplier(real)
    assert (m, shift) == expected
    # M * 2**-31 * 2**-shift approximates real within half a unit of M
    approx = m * 2.0 ** (-31 - shift)
    assert abs(approx - real) <= 2.0 ** (-32 - shift) * (1 + 1e-9)


def test_quantize_multiplier_feeds_requant():
    # requant with (M, shift) of a scale approximates x * scale
    x = np.arange(-5000, 5000, 37, dtype=np.int32)
    for scale in (0.0123, 0.5, 0.9, 1.7, 25.0):
        m, shift = simdops.quantize_multiplier(scale)
        y = simdops.quantize_down_int32(x, m, shift, 0, out_dtype="int16")
        expected = np.clip(np.round(x * scale), -32768, 32767)
        assert np.max(np.abs(y.astype(np.int64) - expected)) <= 1
