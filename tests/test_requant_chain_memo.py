"""requantize_fp32's memo of this thread's last prepared chain: a call whose chain, scale,
zero point, bounds, output type, precision, ties or floating-point environment differs from
the last one's in any bit prepares again; a repeated one reuses the handle. Every call
checked against numpy float32 arithmetic rounded at every step, whatever the call before."""
import concurrent.futures

import numpy as np
import pytest

import simdops
from fp_rounding import FE, GLIBC_X86, rounding_mode

F = np.float32
OUT = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}
RNG = np.random.default_rng(4099)
# |x| up to 2^26: int16 outputs up to ~34000 in BASE, where a chain value one ulp off moves
# dozens of them
X = RNG.integers(-2**26, 2**26, (8, 512)).astype(np.int32)


def ref(x, scale, zp, out, pre=None, post=None, offset=None, lo=None, hi=None):
    """The documented chain in float32, each step one IEEE operation, clamped to [lo, hi]
    (the type's bounds where None), rounded half to even (no NaN arises here)."""
    tlo, thi = OUT[out]
    lo = tlo if lo is None else lo
    hi = thi if hi is None else hi
    v = x.astype(F)
    if pre is not None:
        v = v * F(pre)
    v = v * F(scale)
    if post is not None:
        v = v * F(post)
    if offset is not None:
        v = v + F(offset)
    v = v.astype(np.float64)
    return (np.rint(np.clip(v, lo - zp, hi - zp)) + zp).astype(np.int64)


def ulp_up(v):
    """The float32 after v's (as a Python float: the chain rounds it to itself)."""
    return float(np.nextafter(F(v), F(np.inf)))


# (scale, zero point, out type, chain keywords, min, max): each differs from BASE in one
# input of the prepare (a chain value by one float32 ulp, a step added or removed, the scale
# by an ulp, the zero point, a bound, the output type); oneDNN's folding 0.5, 2.0 among them
BASE = (0.001, 3, "int16", {"pre_scale": 0.3, "post_scale": 1.7}, None, None)
VARIANTS = [
    (0.001, 3, "int16", {"pre_scale": ulp_up(0.3), "post_scale": 1.7}, None, None),
    (0.001, 3, "int16", {"pre_scale": 0.3, "post_scale": ulp_up(1.7)}, None, None),
    (0.001, 3, "int16", {"pre_scale": 0.3}, None, None),
    (0.001, 3, "int16", {"post_scale": 1.7}, None, None),
    (0.001, 3, "int16", {"pre_scale": 0.3, "post_scale": 1.7, "offset": 0.25}, None, None),
    (ulp_up(0.001), 3, "int16", {"pre_scale": 0.3, "post_scale": 1.7}, None, None),
    (0.001, 4, "int16", {"pre_scale": 0.3, "post_scale": 1.7}, None, None),
    (0.001, 3, "int16", {"pre_scale": 0.3, "post_scale": 1.7}, -10000, None),
    (0.001, 3, "int16", {"pre_scale": 0.3, "post_scale": 1.7}, None, 10000),
    (0.001, 3, "int16", {"pre_scale": 0.3, "post_scale": 1.7}, -32768, None),  # the type's
    (0.001, 3, "int8", {"pre_scale": 0.3, "post_scale": 1.7}, None, None),
    (0.001, 3, "uint8", {"pre_scale": 0.3, "post_scale": 1.7}, None, None),
    (0.001, 3, "int16", {"pre_scale": 0.5, "post_scale": 2.0}, None, None),
]


def call(c, x=X):
    scale, zp, out, kw, lo, hi = c
    return simdops.requantize_fp32(x, scale, zp, out_dtype=out, min=lo, max=hi, **kw)


def want(c, x=X):
    scale, zp, out, kw, lo, hi = c
    return ref(x, scale, zp, out, kw.get("pre_scale"), kw.get("post_scale"), kw.get("offset"),
               lo, hi)


@pytest.mark.thread_unsafe
def test_each_input_of_the_prepare_changes_the_handle():
    """BASE, then each variant twice (a miss, then a hit), then BASE again: each call
    gives its own chain's bits, on every tier."""
    for isa in simdops.available_isas():
        with simdops.use_isa(isa):
            for c in VARIANTS:
                if c[4] != -32768:  # the one variant of BASE's bits (bounds given or not)
                    assert (want(c) != want(BASE)).any(), c  # a stale handle would show
                for d in (BASE, c, c, BASE):
                    np.testing.assert_array_equal(call(d), want(d), err_msg=f"{isa} {d}")


def test_precision_and_ties_change_the_handle():
    """The same chain under float64 precision or ties away is another handle: 0.3 kept as
    a double (float64) is not float32's 0.3, and a tie rounds away."""
    x = np.array([[5, -5, 15, -15, 1000001, -999999]], np.int32)
    kw = {"pre_scale": 0.3, "post_scale": 1.0}
    f32 = simdops.requantize_fp32(x, 1.0, 0, out_dtype="int16", **kw)
    f64 = simdops.requantize_fp32(x, 1.0, 0, out_dtype="int16", precision="float64", **kw)
    away = simdops.requantize_fp32(x, 1.0, 0, out_dtype="int16", ties="away", **kw)
    v32 = x.astype(F) * F(0.3)
    np.testing.assert_array_equal(f32, np.clip(np.rint(v32), -32768, 32767))
    v64 = x.astype(np.float64) * 0.3
    np.testing.assert_array_equal(f64, np.clip(np.rint(v64), -32768, 32767))
    a = v32.astype(np.float64)
    np.testing.assert_array_equal(away, np.clip(np.sign(a) * np.floor(np.abs(a) + 0.5),
                                                -32768, 32767))
    np.testing.assert_array_equal(simdops.requantize_fp32(x, 1.0, 0, out_dtype="int16", **kw),
                                  f32)


def test_a_refused_chain_after_a_remembered_one_still_raises():
    """A refused chain is not remembered and a remembered one does not hide an error: the
    same errors as ever, then the remembered chain's bits again."""
    np.testing.assert_array_equal(call(BASE), want(BASE))
    for _ in range(2):
        with pytest.raises(ValueError, match="post_divide"):
            simdops.requantize_fp32(X, 0.001, 3, out_dtype="int8", pre_scale=0.3,
                                    post_divide=0.0)
        with pytest.raises(ValueError, match="post_scale"):
            simdops.requantize_fp32(X, 0.001, 3, out_dtype="int8", pre_scale=0.3,
                                    post_scale=1.7, post_divide=2.0)
        with pytest.raises(ValueError):
            simdops.requantize_fp32(X, 0.001, 3, out_dtype="int8", pre_scale=float("inf"))
        np.testing.assert_array_equal(call(BASE), want(BASE))


def test_threads_keep_their_own_chains():
    """Two threads alternating two chains (each thread's memo its own)."""
    a, b = BASE, VARIANTS[0]

    def run(c):
        for _ in range(200):
            np.testing.assert_array_equal(call(c), want(c))
        return True

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert all(pool.map(run, [a, b, a, b]))




@pytest.mark.thread_unsafe
@pytest.mark.skipif(not GLIBC_X86, reason="FE_* values are glibc x86's")
@pytest.mark.parametrize("mode", sorted(FE))
def test_rounding_mode_changed_between_calls(mode):
    """The chain's values round to float32 in the current mode (0.3 under FE_DOWNWARD is
    one ulp below nearest's): a chain remembered at round-to-nearest and called again under
    another mode gives what a fresh prepare under that mode gives, not nearest's handle.
    (What the kernels' own arithmetic does under the mode is beside the point: the three
    calls under it run the same kernels.)"""
    # outputs up to ~26000: a chain value one ulp off moves ~20 of them
    x = np.random.default_rng(8191).integers(-2**26, 2**26, (16, 1024)).astype(np.int32)
    # 0.3 rounds up to float32 at nearest, 1.3 down: every other mode moves one of them
    kw = {"pre_scale": 0.3, "post_scale": 1.3}
    # nearest's float32 values, given exactly (converted here, at nearest): what a stale
    # handle would run
    nearest = {"pre_scale": float(F(0.3)), "post_scale": float(F(1.3))}
    other = {"pre_scale": 0.7, "post_scale": 1.1}

    def run(k):
        return simdops.requantize_fp32(x, 1e-3, 0, out_dtype="int16", **k)

    run(kw)  # remembered at nearest
    with rounding_mode(FE[mode]):
        memo = run(kw)
        run(other)  # evicts kw
        fresh = run(kw)
        stale = run(nearest)
    np.testing.assert_array_equal(memo, fresh)
    assert (fresh != stale).any()  # the test can tell the handles apart
