"""simdops.quantize_multiplier against the exact-rational reference (docs/semantics.md)."""
import math
from fractions import Fraction

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
    None, True, np.bool_(True), object(), np.array(["0.5"]), np.array([True]),
    np.array([0.5], dtype=object), [[0.5], [0.5, 0.25]]])
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


# ---------------------------------------------------------------- conventions, arrays

from reference import (quantize_multiplier_tflite, quantize_multiplier_xnnpack,  # noqa: E402
                       requant_family, single_rounding)

CONVENTION_REFS = {"acl": ref_qm, "tflite": quantize_multiplier_tflite,
                   "xnnpack": quantize_multiplier_xnnpack}
SCALES = [1.0, 0.5, 0.25, 0.75, 0.1, 0.3, 1 / 3, 1e-5, 0.0123, 0.999999, 1 - 2 ** -33,
          0.5 + 2 ** -32, 2 ** -32, 2 ** -31, 1.5, 3.0, 25.0, 255.99, 2 ** -30 * 1.7,
          float(np.float32(0.1)), float(np.nextafter(np.float32(1.0), np.float32(0))),
          0.1 + 2 ** -60, float(np.float32(2 ** -32)), 127.5]


@pytest.mark.parametrize("convention", sorted(CONVENTION_REFS))
@pytest.mark.parametrize("scale", SCALES)
def test_convention_values(convention, scale):
    expected = CONVENTION_REFS[convention](scale)
    got = simdops.quantize_multiplier(scale, convention=convention)
    assert got == expected
    assert all(type(v) is int for v in got)


@pytest.mark.parametrize("convention", sorted(CONVENTION_REFS))
def test_convention_vectorised(convention):
    rng = np.random.default_rng(7)
    scales = np.concatenate([np.array(SCALES), 2.0 ** rng.uniform(-31, 7, 500)])
    m, s = simdops.quantize_multiplier(scales, convention=convention)
    assert m.dtype == np.int32 and s.dtype == np.int32 and m.shape == scales.shape
    expected = [CONVENTION_REFS[convention](v) for v in scales.tolist()]
    assert list(zip(m.tolist(), s.tolist())) == expected
    # any shape, lists and float32 arrays too
    m2, s2 = simdops.quantize_multiplier(scales[:12].reshape(3, 4).astype(np.float32).tolist(),
                                         convention=convention)
    assert m2.shape == (3, 4)
    flat = scales[:12].astype(np.float32).tolist()
    assert list(zip(m2.ravel().tolist(), s2.ravel().tolist())) == \
        [CONVENTION_REFS[convention](v) for v in flat]


def test_tflite_differs_from_acl_only_at_tiny_scales():
    # below ~2**-32 TFLite flushes the multiplier to zero where ACL refuses the scale
    tiny = 2 ** -33
    assert simdops.quantize_multiplier(tiny, convention="tflite") == (0, 0)
    with pytest.raises(ValueError):
        simdops.quantize_multiplier(tiny, convention="acl")
    for scale in SCALES:
        assert simdops.quantize_multiplier(scale, "tflite") == simdops.quantize_multiplier(scale)


def test_xnnpack_is_the_float32_significand():
    # 0.05 as float32 is 0x3D4CCCCD: significand 0xCCCCCD, biased exponent 122, t = 28
    assert simdops.quantize_multiplier(0.05, "xnnpack") == (0xCCCCCD << 7, 28 - 24)
    assert simdops.quantize_multiplier(1.0, "xnnpack") == (1 << 30, -1)
    # XNNPACK rounds the double to float32 first: ACL keeps the double's 31 bits
    assert simdops.quantize_multiplier(0.05, "acl") == (1717986918, 4)
    assert simdops.quantize_multiplier(0.05, "xnnpack") == (1717986944, 4)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, 256.0, 2 ** -33, 1e-40])
def test_xnnpack_range(bad):
    with pytest.raises(ValueError):
        quantize_multiplier_xnnpack(bad)
    with pytest.raises(ValueError):
        simdops.quantize_multiplier(bad, "xnnpack")


def test_xnnpack_scaled_pair_equals_xnnpack_arithmetic():
    # (M24 << 7, t - 24) under single rounding is XNNPACK's (a*M24 + 2**(t-1)) >> t exactly
    rng = np.random.default_rng(3)
    accs = [int(v) for v in rng.integers(-2 ** 31, 2 ** 31, 300)] + [-2 ** 31, 2 ** 31 - 1, 0, 1, -1]
    for scale in (0.05, 1e-3, 3.7, 2 ** -32, 255.5, 0.4999999):
        m, shift = simdops.quantize_multiplier(scale, "xnnpack")
        f = Fraction(float(np.float32(scale)))
        t = 150 - (int(np.float32(scale).view(np.uint32)) >> 23)
        m24 = int(f * 2 ** t)
        for a in accs:
            assert single_rounding(a, m, shift) == (a * m24 + (1 << (t - 1))) >> t


@pytest.mark.parametrize("bad", ["ACL", "gemmlowp", ""])
def test_convention_unknown(bad):
    with pytest.raises(ValueError, match="convention"):
        simdops.quantize_multiplier(0.5, convention=bad)


def test_convention_type():
    with pytest.raises(TypeError, match="convention"):
        simdops.quantize_multiplier(0.5, convention=1)


def test_array_error_names_element():
    with pytest.raises(ValueError, match=r"scale\[2\]"):
        simdops.quantize_multiplier(np.array([0.5, 0.25, -1.0]))
    with pytest.raises(ValueError, match=r"scale\[1\]"):
        simdops.quantize_multiplier([0.5, 2.0 ** 40])


PAIRINGS = [("acl", "double"), ("tflite", "double"), ("tflite", "double_ties_up"),
            ("tflite", "single"), ("xnnpack", "single")]


@pytest.mark.parametrize("convention,rounding", PAIRINGS)
def test_pairs_sign_convention_reference(convention, rounding):
    # the returned shift has the sign the requant families take: x * scale within 1
    rng = np.random.default_rng(5)
    scales = 2.0 ** rng.uniform(-20, 3, 16)
    m, s = simdops.quantize_multiplier(scales, convention=convention)
    x = rng.integers(-2 ** 20, 2 ** 20, (16, 16)).astype(np.int32)
    y = requant_family(x, m, s, 3, out_dtype="int16", rounding=rounding).astype(np.int64)
    close = np.clip(np.round(x * scales) + 3, -32768, 32767)
    assert np.max(np.abs(y - close)) <= 1


@pytest.mark.parametrize("convention,rounding", PAIRINGS)
def test_pairs_feed_quantize_down_int32(convention, rounding):
    # per-channel arrays straight from quantize_multiplier into the requant stage
    rng = np.random.default_rng(11)
    scales = 2.0 ** rng.uniform(-20, 3, 16)
    m, s = simdops.quantize_multiplier(scales, convention=convention)
    x = rng.integers(-2 ** 20, 2 ** 20, (64, 16)).astype(np.int32)
    # int16 (QSYMM16) is symmetric: no offset
    got = simdops.quantize_down_int32(x, m, s, 0, out_dtype="int16", rounding=rounding)
    assert np.array_equal(got, requant_family(x, m, s, 0, out_dtype="int16", rounding=rounding))
    close = np.clip(np.round(x * scales), -32768, 32767)
    assert np.max(np.abs(got.astype(np.int64) - close)) <= 1
