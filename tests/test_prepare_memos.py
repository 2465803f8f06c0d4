"""The per-thread memos of prepared parameters never hand back a stale handle.

The ufunc loops' memo: each parameter moved by one ulp (floats) or one unit (ints) between two
calls, and the same parameters under another rounding mode, give the bits of a fresh call (the
simdops function, and numpy where numpy computes the same thing) every time. The quantized
binary ops' memo (this thread's last handle): the same under another rounding mode, against a
call whose handle was derived afresh in that mode. Both key on the one floating-point
environment value of src/simdops/_ext/_memo_common.h."""

import numpy as np
import pytest

import simdops
from fp_rounding import FE, GLIBC_X86, rounding_mode

ufunc = pytest.importorskip("simdops.ufunc")  # numpy >= 2

RNG = np.random.default_rng(3401)


def assert_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype
    if a.dtype.kind == "f":
        a, b = a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}")
    np.testing.assert_array_equal(a, b)


def ulp_steps(v, dtype=np.float64):
    """v, one ulp above, one ulp below and v again (each a value of dtype)."""
    v = dtype(v)
    return [v, np.nextafter(v, dtype(np.inf)), np.nextafter(v, dtype(-np.inf)), v]


def test_clip_bounds_one_ulp_apart():
    x = RNG.normal(0, 1, 64).astype(np.float32)
    # the bounds as float32 values next to elements of x: one ulp decides each output
    x[:4] = [np.float32(0.25), np.nextafter(np.float32(0.25), np.float32(1)),
             np.float32(-0.5), np.nextafter(np.float32(-0.5), np.float32(-1))]
    for lo in ulp_steps(-0.5, np.float32):
        for hi in ulp_steps(0.25, np.float32):
            want = np.clip(x, lo, hi)  # numpy: float32 bounds, min <= max
            assert_bits(ufunc.clip(x, lo, hi), want)
            assert_bits(simdops.clip(x, float(lo), float(hi)), want)


def test_shrink_parameters_one_ulp_apart():
    x = RNG.normal(0, 1, 64).astype(np.float32)
    x[:2] = [np.float32(0.5), np.float32(-0.5)]
    for bias in ulp_steps(0.125, np.float32):
        for lambd in ulp_steps(0.5, np.float32):
            assert_bits(ufunc.shrink(x, bias, lambd), simdops.shrink(x, float(bias),
                                                                      float(lambd)))


def test_requantize_fp32_scale_one_ulp_and_zero_point_one_unit_apart():
    acc = RNG.integers(-2**20, 2**20, 64).astype(np.int32)
    for scale in ulp_steps(1 / 1000) + ulp_steps(1 / 1000, np.float32):
        for zp in (7, 8, 6, 7):
            got = ufunc.requantize_fp32(acc, scale, zp)
            assert_bits(got, simdops.requantize_fp32(acc, scale, zp))
            # numpy: float32 scale (float64 rounded to nearest), x * scale in float32,
            # ties to even, then + zero point, saturated to uint8
            s32 = np.float32(scale)
            ref = np.clip(np.rint(acc.astype(np.float32) * s32) + zp, 0, 255).astype(np.uint8)
            assert_bits(got, ref)


def test_quantize_down_int32_each_parameter_one_unit_apart():
    acc = RNG.integers(-2**24, 2**24, 64).astype(np.int32)
    base = (1 << 30) + 12345, 9, 3
    for k in range(3):
        for d in (0, 1, -1, 0):
            p = list(base)
            p[k] += d
            m, s, off = p
            got = ufunc.quantize_down_int32(acc, m, s, off)
            assert_bits(got, simdops.quantize_down_int32_to_uint8(acc, m, s, off))




@pytest.mark.skipif(not GLIBC_X86, reason="FE_* values are glibc x86's")
@pytest.mark.parametrize("mode", sorted(FE))
def test_rounding_mode_changed_between_calls(mode):
    """A parameter's conversion to x's type rounds in the current mode: the same Python
    floats memoized at round-to-nearest and used again under another mode give that mode's
    handle (the function's bits there), and nearest's again after it."""
    x = np.linspace(-2, 2, 64).astype(np.float32)
    acc = RNG.integers(-2**20, 2**20, 64).astype(np.int32)
    lo, hi = 0.1, 0.3  # neither a float32: nearest, down and up differ by an ulp
    calls = [(lambda: ufunc.clip(x, lo, hi), lambda: simdops.clip(x, lo, hi)),
             (lambda: ufunc.shrink(x, lo, hi), lambda: simdops.shrink(x, lo, hi)),
             (lambda: ufunc.requantize_fp32(acc, 0.1, 3),
              lambda: simdops.requantize_fp32(acc, 0.1, 3))]
    nearest = [f() for _, f in calls]
    for (u, _), want in zip(calls, nearest):
        assert_bits(u(), want)  # memoized at nearest
    with rounding_mode(FE[mode]):
        there = [f() for _, f in calls]
        got = [u() for u, _ in calls]
    for g, want in zip(got, there):
        assert_bits(g, want)
    with rounding_mode(FE[mode]):  # the mode's handle memoized, used again
        for (u, _), want in zip(calls, there):
            assert_bits(u(), want)
    for (u, _), want in zip(calls, nearest):
        assert_bits(u(), want)
    # the mode matters to clip's bounds (0.1 is not a float32): the test tests something
    if mode in ("down", "zero"):
        assert nearest[0].tobytes() != there[0].tobytes()


QB_SCALES = (0.0417, 0.0388, 0.0712)  # float32 roundings and ratios that move with the mode
QB_ALL_PAIRS = (np.repeat(np.arange(-128, 128, dtype=np.int8), 256),
                np.tile(np.arange(-128, 128, dtype=np.int8), 256))


def _qb_call(arithmetic, scales=QB_SCALES):
    a, b = QB_ALL_PAIRS
    return simdops.quantized_add(a, scales[0], 3, b, scales[1], -5, scales[2], 1,
                                 arithmetic=arithmetic)


def _qb_fresh(arithmetic):
    """The call with its handle derived afresh: another parameter set first (the memo holds
    one handle a thread), so this call cannot hit."""
    _qb_call(arithmetic, (1.0, 1.0, 1.0))
    return _qb_call(arithmetic)


@pytest.mark.skipif(not GLIBC_X86, reason="FE_* values are glibc x86's")
@pytest.mark.parametrize("arithmetic", ["tflite", "onnxruntime"])
def test_quantized_binary_memo_rounding_mode(arithmetic):
    """All 65,536 int8 pairs: a handle memoized at round-to-nearest is not used under
    FE_DOWNWARD (the scales' float32 rounding and the ratios move there), and the one
    memoized there is not used back at nearest."""
    nearest = _qb_fresh(arithmetic)
    with rounding_mode(FE["down"]):
        down = _qb_fresh(arithmetic)
    # the mode changes these parameters' bits: the test tests something
    assert nearest.tobytes() != down.tobytes()
    _qb_call(arithmetic)  # memoized at nearest
    with rounding_mode(FE["down"]):
        assert_bits(_qb_call(arithmetic), down)
        assert_bits(_qb_call(arithmetic), down)  # the down handle, memoized
    assert_bits(_qb_call(arithmetic), nearest)
