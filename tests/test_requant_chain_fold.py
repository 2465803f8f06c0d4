"""oneDNN's chain with power-of-two pre_scale and post_scale (or post_divide): where
every step stays a normal float32, the kernels run it as requantize_fp32's default
with the scale times c = pre * post (per channel: c = 1 only), else step by step.
Both sides of that boundary, per tensor and per channel (several rows: the driver's
repeated vectors, whose one period the kernels scan for the scales' range), every
available tier, against numpy float32 arithmetic rounded at every step."""
import numpy as np
import pytest

import simdops

F = np.float32
OUT = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}
RNG = np.random.default_rng(2047)


def ref_chain(x, scale, zp, lo, hi, pre, post=None, div=None):
    """The documented chain in float32, each step one IEEE operation (numpy's float32
    arrays round every product), clamped, rounded half to even; NaN gives lo."""
    with np.errstate(all="ignore"):
        v = x.astype(F) * F(pre)
        v = v * np.asarray(scale, F)
        v = v * F(post) if post is not None else v / F(div)
    v = v.astype(np.float64)
    r = np.rint(np.clip(v, lo - zp, hi - zp)) + zp
    return np.where(np.isnan(v), lo, r).astype(np.int64)


def inputs(rows, ch):
    x = RNG.integers(-300000, 300000, (rows, ch)).astype(np.int64)
    x[:, ::5] = RNG.integers(-2**31, 2**31, x[:, ::5].shape)
    x[0, :4] = [2**31 - 1, -2**31, 0, 1]
    return x.astype(np.int32)


def kwargs(pre, post, div):
    kw = {"pre_scale": pre}
    kw.update({"post_scale": post} if post is not None else {"post_divide": div})
    return kw


def check(x, scale, zp, out, pre, post=None, div=None):
    lo, hi = OUT[out]
    want = ref_chain(x, scale, zp, lo, hi, pre, post, div)
    for isa in simdops.available_isas():
        with simdops.use_isa(isa):
            got = simdops.requantize_fp32(x, scale, zp, out_dtype=out,
                                          **kwargs(pre, post, div))
        np.testing.assert_array_equal(got, want, err_msg=f"{isa} pre={pre} post={post} "
                                      f"div={div} scale={np.ndim(scale) and 'per channel'}")


# (pre, post, div): c = 1, 1/8, 2, 1 with far steps
FOLDING = [(0.5, 2.0, None), (0.25, 0.5, None), (4.0, None, 2.0), (2.0**-20, 2.0**20, None)]


@pytest.mark.thread_unsafe
@pytest.mark.parametrize("pre,post,div", FOLDING)
@pytest.mark.parametrize("shape", [(5, 256), (7, 80), (3, 7)])
def test_power_of_two_chain_matches_the_steps(pre, post, div, shape):
    # distinct per-channel scales (some above one: the clamping kernels), powers of two
    # among them so that products land on halves
    x = inputs(*shape)
    ch = shape[1]
    pc = np.linspace(1 / 1200, 3.0, ch).astype(F)
    pc[::3] = 2.0 ** -RNG.integers(1, 12, pc[::3].shape)
    for out in ("int8", "uint8", "int16"):
        check(x, pc, 3 if out != "uint8" else 130, out, pre, post, div)
        check(x, 1 / 1000, 3, out, pre, post, div)
        check(x, 2.0**-9, -7 if out != "uint8" else 0, out, pre, post, div)


@pytest.mark.thread_unsafe
def test_fold_boundary_per_channel():
    # pre = 2^-126, post = 2^126 (c = 1): every |pre * s| >= 2^-126 folds (the steps are
    # exact); one channel with s = 1/2 + 2^-24 makes A * pre * s subnormal for A = 1
    # (2^-127 + 2^-150 ties to 2^-127 on the subnormal grid, times 2^126: 0.5 -> 0, where
    # the one product gives 0.500000059 -> 1), so that call must run the steps
    x = np.ones((4, 256), np.int32)
    x[:, 1::2] = RNG.integers(-2**31, 2**31, x[:, 1::2].shape)
    s = np.ones(256, F)
    check(x, s, 0, "int8", 2.0**-126, 2.0**126)              # at the boundary: folds
    s[16] = 0.5 + 2.0**-24
    want = ref_chain(x, s, 0, -128, 127, 2.0**-126, 2.0**126)
    assert want[0, 16] == 0 and int(np.rint(F(1) * s[16])) == 1  # the cases differ
    check(x, s, 0, "int8", 2.0**-126, 2.0**126)              # one step below: no fold
    # overflow: A * pre = 2^131 is +inf in float32 (-> max), where A * s is 2
    big = np.full((4, 256), 2**31 - 1, np.int32)
    check(big, np.full(256, 2.0**-30, F), 0, "int8", 2.0**100, 2.0**-100)
    check(big, np.full(256, 2.0**-30, F), 0, "int8", 2.0**64, 2.0**-64)  # 2^95: folds


@pytest.mark.thread_unsafe
@pytest.mark.parametrize("shape", [(65536,), (4, 300), (37,)])
def test_fold_boundary_per_tensor(shape):
    # the call's fold per tensor (before the kernel is chosen), on both sides of its
    # bounds: pre = 2^-126 with s = 1 folds (A * pre is normal for every A != 0); with
    # s = 1/2 + 2^-24 the product A * pre * s is subnormal for A = 1 (2^-127 + 2^-150
    # ties to 2^-127, times 2^126: 0.5 -> 0, where A * s is 0.500000059 -> 1), which
    # must run the steps; A * pre = 2^131 overflows (-> max) where A * s is 2
    x = np.ones(shape, np.int32)
    flat = x.reshape(-1)
    flat[1::2] = RNG.integers(-2**31, 2**31, flat[1::2].shape)
    flat[2::7] = RNG.integers(-3, 4, flat[2::7].shape)
    check(x, 1.0, 0, "int8", 2.0**-126, 2.0**126)
    s = float(F(0.5 + 2.0**-24))
    want = ref_chain(x, s, 0, -128, 127, 2.0**-126, 2.0**126)
    assert want.reshape(-1)[0] == 0 and int(np.rint(F(1) * F(s))) == 1  # the cases differ
    check(x, s, 0, "int8", 2.0**-126, 2.0**126)
    check(x, s, 0, "uint8", 2.0**-126, None, 2.0**-126)
    big = np.full(shape, 2**31 - 1, np.int32)
    check(big, 2.0**-30, 0, "int8", 2.0**100, 2.0**-100)
    check(big, 2.0**-30, 0, "int16", 2.0**64, 2.0**-64)  # 2^95: folds
    check(big, 2.0**-30, 0, "int16", 2.0**-3, 2.0**5)     # c = 4: folds, 8 -> 8


@pytest.mark.thread_unsafe
@pytest.mark.parametrize("shape", [(6, 256), (3, 40), (4, 2048), (1, 50)])
def test_per_channel_fold_to_scaled_scales(shape):
    # c = pre * post != 1 per channel runs the default on the scales times c: scales
    # below one whose products by c = 2 reach 1.8 (the kernels that clamp before
    # narrowing, not those that rely on every |scale| < 1), c = 1/4 the other way; 2048
    # channels (more scales than the call's copy on the stack holds: one in memory); a single
    # row of 50 (no period: the call's own 50 scales scanned); big accumulators saturate
    # every third scale 2^-k with accumulators that put A * c * s on a half (a tie): one
    # ulp off in a scaled copy moves it off the tie
    x = inputs(*shape)
    x[:, 1::7] = RNG.choice([2**31 - 1, -2**31, 40000, -40000], x[:, 1::7].shape)
    s = np.linspace(0.05, 0.9, shape[1]).astype(F)
    k = RNG.integers(3, 12, s[::3].shape)
    s[::3] = 2.0 ** -k
    for pre, post, div in ((0.5, 4.0, None), (0.5, 0.5, None), (2.0, None, 8.0)):
        c = pre * post if post is not None else pre / div
        # A * c * 2^-k = m + 1/2: A = (2m + 1) 2^(k-1) / c
        m = RNG.integers(-40, 40, x[::2, ::3].shape)
        x[::2, ::3] = ((2 * m + 1) * 2.0 ** (k - 1) / c).astype(np.int32)
        for out in ("int8", "uint8", "int16"):
            check(x, s, 5 if out != "uint8" else 120, out, pre, post, div)


def ref_steps(x, scale, zp, lo, hi, pre=None, post=None, div=None):
    """ref_chain with each multiplier optional: a step not given does not run."""
    with np.errstate(all="ignore"):
        v = x.astype(F)
        if pre is not None:
            v = v * F(pre)
        v = v * np.asarray(scale, F)
        if post is not None:
            v = v * F(post)
        if div is not None:
            v = v / F(div)
    v = v.astype(np.float64)
    r = np.rint(np.clip(v, lo - zp, hi - zp)) + zp
    return np.where(np.isnan(v), lo, r).astype(np.int64)


# one step alone: pre_scale, post_scale or post_divide (folded as the other one = 1)
ONE_STEP = [(1.0, None, None), (0.5, None, None), (2.0**-20, None, None), (None, 2.0, None),
            (None, None, 4.0), (None, 2.0**40, None), (-0.25, None, None)]


@pytest.mark.thread_unsafe
@pytest.mark.parametrize("pre,post,div", ONE_STEP)
@pytest.mark.parametrize("per_channel", [False, True])
def test_one_step_chain_matches_the_steps(pre, post, div, per_channel):
    x = inputs(6, 256)
    scale = (np.linspace(1 / 1200, 1 / 800, 256).astype(F) if per_channel else 1 / 1000)
    kw = {k: v for k, v in (("pre_scale", pre), ("post_scale", post), ("post_divide", div))
          if v is not None}
    want = ref_steps(x, scale, 3, -128, 127, pre, post, div)
    for isa in simdops.available_isas():
        with simdops.use_isa(isa):
            got = simdops.requantize_fp32(x, scale, 3, out_dtype="int8", **kw)
        np.testing.assert_array_equal(got, want, err_msg=f"{isa} {kw} pc={per_channel}")


@pytest.mark.thread_unsafe
def test_fold_floor_boundary_per_channel():
    """pre = 2^-63, post = 2^126 (c = 2^63): scales in [2^-64, 2^-63) lie above the scale
    check's floor 2^-64 but below the fold's window (2^-126 / 2^-63), so the call must
    scan them and keep the steps: at x = 1, s = 2^-64 (1 + 2^-23) the steps give 1/2 -> 0
    (a subnormal product), one multiplier 1/2 + 2^-24 -> 1. Scales of 2^-62 and up fold."""
    x = np.ones((3, 64), np.int32)
    x[1] = np.arange(64) - 32
    for base in (2.0**-64, 2.0**-62):
        s = (F(base) * (F(1) + np.arange(64, dtype=F) % 4 * F(2.0**-23))).astype(F)
        want = ref_steps(x, s, 0, -128, 127, 2.0**-63, 2.0**126)
        for isa in simdops.available_isas():
            with simdops.use_isa(isa):
                got = simdops.requantize_fp32(x, s, 0, out_dtype="int8", pre_scale=2.0**-63,
                                              post_scale=2.0**126)
            np.testing.assert_array_equal(got, want, err_msg=f"{isa} base={base}")
    assert ref_steps(np.ones(1, np.int32), np.array([F(2.0**-64) * F(1 + 2.0**-23)]), 0,
                     -128, 127, 2.0**-63, 2.0**126)[0] == 0  # the case that tells them apart
