"""The requantization families against plain-Python references (ints and
exact fractions), on every available tier, per tensor and per channel, with and
without bias, into uint8/int8/int16."""
from fractions import Fraction
import math

import numpy as np
import pytest

import simdops

OUT = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}
RNG = np.random.default_rng(1234)


def wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


def ref_single(a, m, shift, offset, lo, hi):
    t = 31 + shift
    q = (a * m + (1 << (t - 1))) >> t  # Python's >> is floor division
    return min(max(q + offset, lo), hi)


def ref_single_away(a, m, shift, offset, lo, hi):
    t = 31 + shift
    p = Fraction(a * m, 1 << t)  # exact; rounded half away from zero
    q = math.floor(p + Fraction(1, 2)) if p >= 0 else -math.floor(-p + Fraction(1, 2))
    return min(max(q + offset, lo), hi)


def ref_ties_up(a, m, shift, offset, lo, hi):
    left, right = max(-shift, 0), max(shift, 0)
    q = (wrap32(a << left) * m + (1 << 30)) >> 31
    if right:
        q = (q + (1 << (right - 1))) >> right
    return min(max(wrap32(q + offset), lo), hi)


def round_half(v, away):
    """v a Fraction: nearest integer, ties even or away from zero."""
    f = math.floor(v)
    d = v - f
    if d > Fraction(1, 2) or (d == Fraction(1, 2) and (away and v > 0 or not away and f % 2)):
        return f + 1
    if d == Fraction(1, 2) and away and v < 0:
        return f
    return f


def ref_fp(a, scale, zp, lo, hi, precision, ties):
    with np.errstate(over="ignore"):
        f = (float(np.float32(a) * np.float32(scale)) if precision == "float32"
             else float(a) * float(scale))
    if math.isinf(f):  # past every bound
        return (hi if f > 0 else lo)
    v = min(max(Fraction(f), lo - zp), hi - zp)
    return round_half(v, ties == "away") + zp


# each fixed-point family of rounding= beyond the default, with its shift range (C's list)
REFS = {"single": ref_single, "double_ties_up": ref_ties_up, "single_away": ref_single_away}
SHIFTS = {name: (lo, hi) for name, _code, lo, hi, _api in simdops._core.roundings()}
INTEGER_FAMILIES = [name for name, code, _lo, _hi, array_api in simdops._core.roundings()
                    if array_api and name != "double"]  # "double": tests/test_requant.py


def isas():
    return simdops.available_isas()


def inputs(n):
    x = RNG.integers(-2**31, 2**31, n, dtype=np.int64)
    x[: n // 4] = RNG.integers(-3000, 3000, n // 4)
    x[:8] = [-2**31, 2**31 - 1, 0, 1, -1, 2**30, -2**30, 2**31 - 2]
    return x.astype(np.int32)


def bounds(dt, k):
    lo, hi = OUT[dt]
    return [(None, None), (lo + 3, hi - 5), (lo + 10, lo + 10)][k % 3]


@pytest.mark.parametrize("isa", isas())
@pytest.mark.parametrize("dt", list(OUT))
@pytest.mark.parametrize("rounding", INTEGER_FAMILIES)
def test_integer_families_per_tensor(isa, dt, rounding):
    ref = REFS[rounding]
    shifts = range(SHIFTS[rounding][0], SHIFTS[rounding][1] + 1)
    for k, shift in enumerate(shifts):
        m = int(RNG.choice([2**31 - 1, -2**31, 2**30, 1 << 23, 12345677,
                            int(RNG.integers(-2**31, 2**31))]))
        offset = 0 if dt == "int16" else int(RNG.choice([0, 128, -128, 2**31 - 1, -2**31, 7]))
        mn, mx = bounds(dt, k)
        x = inputs(97)
        bias = RNG.integers(-2**31, 2**31, 97, dtype=np.int64).astype(np.int32) if k % 2 else None
        with simdops.use_isa(isa):
            got = simdops.quantize_down_int32(x, m, shift, offset, bias=bias, min=mn, max=mx,
                                              out_dtype=dt, rounding=rounding)
        lo, hi = OUT[dt]
        if mn is not None and mn != mx:
            lo, hi = mn, mx
        a = [wrap32(int(v) + (int(bias[i]) if bias is not None else 0)) for i, v in enumerate(x)]
        want = [ref(v, m, shift, offset, lo, hi) for v in a]
        assert got.tolist() == want, (rounding, shift, m, offset)


@pytest.mark.parametrize("isa", isas())
@pytest.mark.parametrize("dt", list(OUT))
def test_single_per_channel(isa, dt):
    x = inputs(64 * 37).reshape(64, 37)
    m = RNG.integers(-2**31, 2**31, 37, dtype=np.int64)
    m[:10] = RNG.integers(1 << 23, 1 << 24, 10)
    s = RNG.integers(SHIFTS["single"][0], SHIFTS["single"][1] + 1, 37).astype(np.int64)
    # (int64 arrays are accepted)
    bias = RNG.integers(-5000, 5000, 37).astype(np.int32)
    offset = 0 if dt == "int16" else 3
    with simdops.use_isa(isa):
        got = simdops.quantize_down_int32(x, m, s, offset, bias=bias, out_dtype=dt,
                                          rounding="single")
    lo, hi = OUT[dt]
    want = [[ref_single(wrap32(int(x[r, c]) + int(bias[c])), int(m[c]), int(s[c]), offset, lo,
                        hi) for c in range(37)] for r in range(64)]
    assert got.tolist() == want


@pytest.mark.parametrize("isa", isas())
@pytest.mark.parametrize("dt", list(OUT))
@pytest.mark.parametrize("general", [False, True])
def test_ties_up_per_channel(isa, dt, general):
    """Enough rows for the driver's derived arrays (the SIMD kernels' fast form), with and
    without a left shift and an INT32_MIN multiplier (whose product with INT32_MIN is 2^31)."""
    x = inputs(64 * 37).reshape(64, 37)
    x[:4, :] = -2**31
    m = RNG.integers(1 << 30, 1 << 31, 37, dtype=np.int64)
    s = RNG.integers(0, 32, 37).astype(np.int64)
    s[:3] = [0, 1, 31]
    if general:
        m[:6] = [-2**31, -2**31, -2**31, -1, 0, 1 << 30]
        s[3:9] = [0, -1, -31, -5, 1, 2]
    bias = RNG.integers(-5000, 5000, 37).astype(np.int32)
    bias[:3] = 0
    offset = 0 if dt == "int16" else 3
    with simdops.use_isa(isa):
        got = simdops.quantize_down_int32(x, m, s, offset, bias=bias, out_dtype=dt,
                                          rounding="double_ties_up")
    lo, hi = OUT[dt]
    want = [[ref_ties_up(wrap32(int(x[r, c]) + int(bias[c])), int(m[c]), int(s[c]), offset, lo,
                         hi) for c in range(37)] for r in range(64)]
    assert got.tolist() == want


@pytest.mark.parametrize("isa", isas())
@pytest.mark.parametrize("dt", list(OUT))
@pytest.mark.parametrize("precision,ties", [("float32", "even"), ("float32", "away"),
                                            ("float64", "even"), ("float64", "away")])
def test_fp_per_tensor_and_channel(isa, dt, precision, ties):
    lo, hi = OUT[dt]
    for k, scale in enumerate([0.1, 1.0, 0.5, 2.0**-32, 255.5, 1e-3, 1.0 / 3, 3e38, 0.0]):
        x = inputs(101)
        # values whose product sits on a tie
        x[10:40] = (np.arange(30) * 2 + 1) * 5  # *0.1 -> k + 0.5
        zp = int(RNG.integers(lo, hi + 1))
        mn, mx = [(None, None), (lo + 1, hi - 1), (lo + 9, lo + 9)][k % 3]
        bias = RNG.integers(-100, 100, 101).astype(np.int32) if k % 2 else None
        with simdops.use_isa(isa):
            got = simdops.requantize_fp32(x, scale, zp, bias=bias, min=mn, max=mx, out_dtype=dt,
                                          precision=precision, ties=ties)
        blo = lo if mn is None else mn
        bhi = hi if mx is None else mx
        a = [wrap32(int(v) + (int(bias[i]) if bias is not None else 0)) for i, v in enumerate(x)]
        sc = np.float32(scale) if precision == "float32" else scale
        want = [ref_fp(v, sc, zp, blo, bhi, precision, ties) for v in a]
        assert got.tolist() == want, (scale, zp, mn, mx)
    # per channel: float32 scales along the last axis
    x = inputs(33 * 40).reshape(33, 40)
    sc = (RNG.random(40) * 0.05).astype(np.float32)
    sc[0] = 0.1
    with simdops.use_isa(isa):
        got = simdops.requantize_fp32(x, sc, 0 if lo < 0 else 100, out_dtype=dt,
                                      precision=precision, ties=ties)
    zp = 0 if lo < 0 else 100
    want = [[ref_fp(int(x[r, c]), sc[c], zp, lo, hi, precision, ties) for c in range(40)]
            for r in range(33)]
    assert got.tolist() == want


def test_fp_default_matches_numpy_float32():
    """The default is float32(a) * float32(scale), rounded half to even: numpy's order."""
    x = RNG.integers(-2**31, 2**31, 100000, dtype=np.int64).astype(np.int32)
    x[:5000] = RNG.integers(-3000, 3000, 5000)
    scale = np.float32(0.0123)
    want = np.clip(np.rint(x.astype(np.float32) * scale), -128 - 5, 127 - 5) + 5
    got = simdops.requantize_fp32(x, float(scale), 5, out_dtype="int8")
    np.testing.assert_array_equal(got, want.astype(np.int8))


def test_ties_up_rounds_twice():
    """LiteRT's x86 form rounds at bit 31, then again by the shift: 0.375 = 3 * 2**29 / 2**31
    / 2 gives 0.75 -> 1, then 0.5 -> 1 (ties up); one rounding of 0.375 would give 0, and
    double rounding gives 1 too; at -1.5 (x = -4): -3 -> -1.5 -> -1 (ties up) vs -2 (away)."""
    x = np.array([1, -4], np.int32)
    got = simdops.quantize_down_int32(x, 3 << 29, 1, 0, out_dtype="int8",
                                      rounding="double_ties_up")
    assert got.tolist() == [1, -1]
    assert simdops.quantize_down_int32(x, 3 << 29, 1, 0, out_dtype="int8").tolist() == [1, -2]
    assert simdops.quantize_down_int32(x, 3 << 29, 1, 0, out_dtype="int8",
                                       rounding="single").tolist() == [0, -1]


def test_ties_counterexamples():
    """Minimal inputs where the families part ways."""
    x = np.array([5, 15, -5], np.int32)
    # 0.5, 1.5, -0.5 after scaling: even vs away
    assert simdops.requantize_fp32(x, 0.1, 0, out_dtype="int8").tolist() == [0, 2, 0]
    assert simdops.requantize_fp32(x, 0.1, 0, out_dtype="int8", precision="float64",
                                   ties="away").tolist() == [1, 2, -1]
    # -1 * (2**31 - 1) / 2**32 ~ -0.5: single rounding gives 0; double rounding's
    # first stage gives -1, whose RDBPOT by 1 (-0.5) rounds away to -1
    x = np.array([-1], np.int32)
    assert simdops.quantize_down_int32(x, 2**31 - 1, 1, 0, out_dtype="int8",
                                       rounding="single").tolist() == [0]
    assert simdops.quantize_down_int32(x, 2**31 - 1, 1, 0, out_dtype="int8").tolist() == [-1]


def test_errors():
    x = np.zeros(4, np.int32)
    with pytest.raises(ValueError, match=r"shift must be in \[-30, 31\]"):
        simdops.quantize_down_int32(x, 1 << 30, -31, rounding="single")
    with pytest.raises(ValueError, match="rounding"):
        simdops.quantize_down_int32(x, 1 << 30, 1, rounding="nearest")
    with pytest.raises(ValueError, match="scale must be finite"):
        simdops.requantize_fp32(x, float("nan"))
    with pytest.raises(ValueError, match="scale must be finite"):
        simdops.requantize_fp32(x, 1e39)  # not finite as a float32
    with pytest.raises(ValueError, match="zero_point"):
        simdops.requantize_fp32(x, 0.5, 300)
    with pytest.raises(ValueError, match="scale must be finite"):
        simdops.requantize_fp32(x.reshape(2, 2), np.array([1, np.inf], np.float32))
    with pytest.raises(ValueError, match=r"scale must be finite, got inf at index 1"):
        simdops.requantize_fp32(x.reshape(2, 2), np.array([1.0, np.inf]), precision="float64")
    # float64 scales under precision="float64" are used as doubles (no float32 refusal)
    got = simdops.requantize_fp32(np.array([[5, 5]], np.int32), np.array([0.1, 0.3]),
                                  precision="float64", ties="away", out_dtype="int8")
    assert got.tolist() == [[1, 2]]
    with pytest.raises(TypeError, match="scale"):
        simdops.requantize_fp32(x.reshape(2, 2), np.array([1.0, 2.0j]))
    with pytest.raises(ValueError, match="precision"):
        simdops.requantize_fp32(x, 0.5, precision="float16")
    with pytest.raises(ValueError, match="int32 range"):
        simdops.quantize_down_int32(x.reshape(2, 2), np.array([2**31, 1]), 1)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("at", [0, 15, 16, 36])
def test_per_channel_scale_not_finite_named_with_its_index(bad, at):
    """The scale check runs over every channel in one pass: the first non-finite scale is
    reported wherever it sits, with the value and the index."""
    x = np.zeros((3, 37), np.int32)
    sc = np.full(37, 0.5, np.float32)
    sc[at] = bad
    if at < 36:
        sc[36] = np.nan  # a later offender is not the one named
    with pytest.raises(ValueError, match=rf"scale must be finite, got {sc[at]} at index {at}$"):
        simdops.requantize_fp32(x, sc)


@pytest.mark.parametrize("isa", isas())
def test_fp_per_channel_scales_at_one(isa):
    """Scales of magnitude exactly 1 (or one ulp either side) decide whether the 8-bit
    kernels may skip the clamp before narrowing: every such set against the exact reference."""
    one_below = float(np.nextafter(np.float32(1), np.float32(0)))
    one_above = float(np.nextafter(np.float32(1), np.float32(2)))
    x = inputs(40 * 67).reshape(40, 67)
    # in every channel: values float32 rounds up to 2**31, which no int32 holds
    x[0], x[1], x[2] = 2**31 - 1, 2**31 - 64, -2**31
    for scales in ([one_below] * 67, [1.0] + [0.25] * 66, [0.25] * 66 + [-1.0],
                   [0.5] * 33 + [one_above] + [0.5] * 33, [-one_below] * 67):
        sc = np.array(scales, np.float32)
        for dt, zp in (("uint8", 100), ("int8", -3)):
            lo, hi = OUT[dt]
            with simdops.use_isa(isa):
                got = simdops.requantize_fp32(x, sc, zp, out_dtype=dt)
            want = [[ref_fp(int(x[r, c]), sc[c], zp, lo, hi, "float32", "even")
                     for c in range(67)] for r in range(40)]
            assert got.tolist() == want, (dt, scales[:2])


def test_threads_match_single_thread():
    x = inputs(1 << 20).reshape(-1, 64)
    sc = (RNG.random(64) * 0.01).astype(np.float32)
    one = simdops.requantize_fp32(x, sc, 3)
    m = RNG.integers(1 << 30, 2**31, 64).astype(np.int64)
    s = RNG.integers(1, 20, 64)
    one_s = simdops.quantize_down_int32(x, m, s, 3, rounding="single")
    old = simdops.get_num_threads()
    try:
        simdops.set_num_threads(4)
        assert np.array_equal(simdops.requantize_fp32(x, sc, 3), one)
        assert np.array_equal(simdops.quantize_down_int32(x, m, s, 3, rounding="single"), one_s)
    finally:
        simdops.set_num_threads(old)


# ---- ACL's other output stage types, against ACL's reference (GEMMLowp.cpp) in Python ----

def acl_quantize_down(x, bias, offset, mult, shift, lo, hi):
    a = wrap32(wrap32(x + offset) + bias)
    return min(max(wrap32(a * mult) >> shift, lo), hi)


def acl_quantize_down_float(x, bias, offset, scale, lo, hi):
    prod = np.float32(np.float32(wrap32(x + bias)) * np.float32(scale))
    f = float(np.float32(prod + np.float32(offset)))
    if f >= 2**31:
        r = 2**31 - 1
    elif f < -2**31:
        r = -2**31
    else:
        r = int(math.floor(abs(f) + 0.5)) * (1 if f >= 0 else -1)  # round half away
    return min(max(r, lo), hi)


@pytest.mark.parametrize("isa", isas())
@pytest.mark.parametrize("dt", ["QASYMM8", "QASYMM8_SIGNED"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_acl_quantize_down(isa, dt, per_channel):
    from simdops import acl
    x = inputs(24 * 19).reshape(24, 19)
    bias = RNG.integers(-2**31, 2**31, 19, dtype=np.int64).astype(np.int32)
    out = np.zeros(x.shape, np.uint8 if dt == "QASYMM8" else np.int8)
    lo, hi = (0, 255) if dt == "QASYMM8" else (-128, 127)
    for shift in (0, 1, 13, 31):
        mult = int(RNG.integers(-2**31, 2**31))
        mults = RNG.integers(-2**31, 2**31, 19).tolist()
        shifts = RNG.integers(SHIFTS["floor"][0], SHIFTS["floor"][1] + 1, 19).tolist()
        info = acl.GEMMLowpOutputStageInfo(
            type=acl.GEMMLowpOutputStageType.QUANTIZE_DOWN, gemmlowp_offset=-77,
            gemmlowp_multiplier=mult, gemmlowp_shift=shift, gemmlowp_min_bound=lo + 2,
            gemmlowp_max_bound=hi - 3, gemmlowp_multipliers=mults if per_channel else (),
            gemmlowp_shifts=shifts if per_channel else (), is_quantized_per_channel=per_channel)
        stage = acl.GEMMLowpOutputStage()
        stage.configure(x, bias, out, info)
        with simdops.use_isa(isa):
            stage.run()
        want = [[acl_quantize_down(int(x[r, c]), int(bias[c]), -77,
                                   mults[c] if per_channel else mult,
                                   shifts[c] if per_channel else shift, lo + 2, hi - 3)
                 for c in range(19)] for r in range(24)]
        assert out.tolist() == want


@pytest.mark.parametrize("isa", isas())
@pytest.mark.parametrize("dt", ["QASYMM8", "QASYMM8_SIGNED"])
def test_acl_quantize_down_float(isa, dt):
    from simdops import acl
    x = inputs(24 * 19).reshape(24, 19)
    x[0, :10] = [5, 15, -5, -15, 25, 35, 45, -25, 105, -105]  # *0.1: halves
    bias = RNG.integers(-100, 100, 19).astype(np.int32)
    bias[:10] = 0
    out = np.zeros(x.shape, np.uint8 if dt == "QASYMM8" else np.int8)
    lo, hi = (0, 255) if dt == "QASYMM8" else (-128, 127)
    for scale, offset in ((0.1, 0), (0.1, 3), (1e-3, -2**31), (3.7e-7, 2**31 - 1), (2.5, 1)):
        info = acl.GEMMLowpOutputStageInfo(
            type=acl.GEMMLowpOutputStageType.QUANTIZE_DOWN_FLOAT, gemmlowp_offset=offset,
            gemmlowp_real_multiplier=scale)
        stage = acl.GEMMLowpOutputStage()
        stage.configure(x, bias, out, info)
        with simdops.use_isa(isa):
            stage.run()
        want = [[acl_quantize_down_float(int(x[r, c]), int(bias[c]), offset, scale, lo, hi)
                 for c in range(19)] for r in range(24)]
        assert out.tolist() == want, (scale, offset)


def test_acl_other_stage_validation():
    from simdops import acl
    x = np.zeros((2, 3), np.int32)
    T = acl.GEMMLowpOutputStageType
    v = acl.GEMMLowpOutputStage.validate
    assert not v(x, None, np.zeros((2, 3), np.int16),
                 acl.GEMMLowpOutputStageInfo(type=T.QUANTIZE_DOWN))  # no QSYMM16
    assert "[0, 31]" in v(x, None, np.zeros((2, 3), np.uint8), acl.GEMMLowpOutputStageInfo(
        type=T.QUANTIZE_DOWN, gemmlowp_shift=32)).error_description()
    assert not v(x, None, np.zeros((2, 3), np.uint8), acl.GEMMLowpOutputStageInfo(
        type=T.QUANTIZE_DOWN_FLOAT, gemmlowp_real_multiplier=float("inf")))
    assert not v(x, None, np.zeros((2, 3), np.uint8), acl.GEMMLowpOutputStageInfo(
        type=T.QUANTIZE_DOWN_FLOAT, gemmlowp_real_multiplier=0.5,
        is_quantized_per_channel=True))
    assert v(x, None, np.zeros((2, 3), np.int8), acl.GEMMLowpOutputStageInfo(
        type=T.QUANTIZE_DOWN_FLOAT, gemmlowp_real_multiplier=0.5))


def test_dask_families_match_eager():
    da = pytest.importorskip("dask.array")
    import simdops.dask as sd
    x = inputs(40 * 24).reshape(40, 24)
    dx = da.from_array(x, chunks=(7, 10))
    sc = (RNG.random(24) * 0.02).astype(np.float32)
    bias = RNG.integers(-1000, 1000, 24).astype(np.int32)
    m = RNG.integers(1 << 30, 2**31, 24)
    s = RNG.integers(SHIFTS["single"][0], SHIFTS["single"][1] + 1, 24)
    for precision, ties in (("float32", "even"), ("float64", "away")):
        np.testing.assert_array_equal(
            sd.requantize_fp32(dx, sc, 3, bias=bias, out_dtype="int8", precision=precision,
                               ties=ties).compute(),
            simdops.requantize_fp32(x, sc, 3, bias=bias, out_dtype="int8", precision=precision,
                                    ties=ties))
        np.testing.assert_array_equal(sd.requantize_fp32(dx, 0.01, 200).compute(),
                                      simdops.requantize_fp32(x, 0.01, 200))
    for rounding in INTEGER_FAMILIES:
        np.testing.assert_array_equal(
            sd.quantize_down_int32(dx, m, s, 5, bias=da.from_array(bias, chunks=5),
                                   rounding=rounding).compute(),
            simdops.quantize_down_int32(x, m, s, 5, bias=bias, rounding=rounding))
    with pytest.raises(ValueError, match=r"\[-30, 31\]"):
        sd.quantize_down_int32(dx, 1, -31, rounding="single")
    with pytest.raises(ValueError, match="zero_point"):
        sd.requantize_fp32(dx, 0.5, 999)
