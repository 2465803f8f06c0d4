"""simdops.ufunc: every ufunc gives the bits of the simdops function with the same
parameters, for scalars (per tensor), per-channel arrays on any axis and per-element
arrays; out=, where=, dtype=, axis= (hardmax), simdops' type resolution and errors."""
import warnings

import numpy as np
import pytest

import simdops

ufunc = pytest.importorskip("simdops.ufunc")  # numpy >= 2

RNG = np.random.default_rng(34)
FLOATS = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-45, 3.4e38, 0.49999997],
                  np.float32)


def bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def assert_bits(a, b):
    assert np.asarray(a).dtype == np.asarray(b).dtype
    np.testing.assert_array_equal(bits(a), bits(b))


def test_all_are_numpy_ufuncs():
    for name in ufunc.__all__:
        assert isinstance(getattr(ufunc, name), np.ufunc), name
    assert ufunc.hardmax.signature == "(n)->(n)"
    assert {"clip", "shrink", "hardmax", "quantize_down_int32", "requantize_fp32"} <= set(
        ufunc.__all__)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint8", "int16",
                                   "uint16", "int32", "uint32", "int64", "uint64"])
def test_clip_scalars_match_simdops(dtype):
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    x = (RNG.integers(info.min, info.max, 1000, dtype=dtype, endpoint=True) if info
         else np.concatenate([FLOATS, RNG.normal(0, 3, 990)]).astype(dtype))
    for lo, hi in [(-1, 1), (-300, 300), (2.7, 1), (-1.5, 2.5), (1 << 62, -(1 << 62)),
                   (0, np.uint64((1 << 64) - 1)), (np.float32(-0.5), np.float32(0.25))]:
        assert_bits(ufunc.clip(x, lo, hi), simdops.clip(x, lo, hi))


def test_clip_int8_python_int_bounds_saturate_not_promote():
    x = np.array([-128, -5, 0, 5, 127], np.int8)
    r = ufunc.clip(x, -300, 300)
    assert r.dtype == np.int8  # numpy's promotion would refuse 300 for int8 or give int64
    assert_bits(r, x)
    assert_bits(ufunc.clip(x, 2.7, 1), np.full(5, 2, np.int8))  # min > max: min (DirectML)


def test_shrink_matches_simdops():
    for dtype in ["float32", "float64", "float16", "int8", "int16", "int32", "uint8"]:
        x = (np.concatenate([FLOATS, RNG.normal(0, 3, 90)]).astype(dtype)
             if np.dtype(dtype).kind == "f" else RNG.integers(-100, 100, 100).astype(dtype))
        for b, t in [(0.5, 0.5), (0.0, 1.0), (2, 3), (1.25, 0.0)]:
            assert_bits(ufunc.shrink(x, b, t), simdops.shrink(x, b, t))


FAMILIES = {"quantize_down_int32": "double",
            "quantize_down_int32_double_ties_up": "double_ties_up",
            "quantize_down_int32_single": "single"}
ACC = np.concatenate([np.array([0, 1, -1, 2**31 - 1, -2**31, 1000, -300], np.int32),
                      RNG.integers(-2**31, 2**31, 2000, dtype=np.int64).astype(np.int32),
                      RNG.integers(-5000, 5000, 2000).astype(np.int32)])


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("out_dtype", ["uint8", "int8", "int16"])
def test_requant_families_match_simdops(name, out_dtype):
    f = getattr(ufunc, name)
    for s in [0.05, 0.0007, 3.5]:
        m, sh = simdops.quantize_multiplier(s)
        off = 0 if out_dtype == "int16" else 7
        want = simdops.quantize_down_int32(ACC, m, sh, off, out_dtype=out_dtype,
                                           rounding=FAMILIES[name])
        assert_bits(f(ACC, m, sh, off, dtype=out_dtype), want)
        assert_bits(f(ACC, m, sh, np.array(off, out_dtype)), want)  # the offset's type


@pytest.mark.parametrize("name,precision,ties", [
    ("requantize_fp32", "float32", "even"), ("requantize_fp32_away", "float32", "away"),
    ("requantize_fp32_float64", "float64", "even"),
    ("requantize_fp32_float64_away", "float64", "away")])
def test_requantize_fp32_modes_match_simdops(name, precision, ties):
    f = getattr(ufunc, name)
    for s in [0.1, 0.0037, np.float32(0.02)]:
        for out_dtype, zp in [("uint8", 128), ("int8", -3), ("int16", 0)]:
            want = simdops.requantize_fp32(ACC, s, zp, out_dtype=out_dtype, precision=precision,
                                           ties=ties)
            assert_bits(f(ACC, s, zp, dtype=out_dtype), want)
            assert_bits(f(ACC, s, np.array(zp, out_dtype)), want)  # the zero point's type


def test_per_channel_nchw_axis1_matches_moveaxis():
    x = RNG.integers(-20000, 20000, (2, 5, 7, 9)).astype(np.int32)
    scale = RNG.uniform(0.001, 0.05, 5).astype(np.float32)
    zp = 3
    got = ufunc.requantize_fp32(x, scale[:, None, None], zp, dtype=np.int8)
    want = np.moveaxis(simdops.requantize_fp32(np.ascontiguousarray(np.moveaxis(x, 1, -1)),
                                               scale, zp, out_dtype="int8"), -1, 1)
    assert_bits(got, want)
    got4 = ufunc.requantize_fp32(x, scale.reshape(1, 5, 1, 1), zp, dtype=np.int8)
    assert_bits(got4, want)
    # integer family, multiplier and shift per channel on axis 1
    pairs = [simdops.quantize_multiplier(float(s)) for s in scale]
    m = np.array([p[0] for p in pairs], np.int32)
    sh = np.array([p[1] for p in pairs], np.int32)
    got = ufunc.quantize_down_int32(x, m[:, None, None], sh[:, None, None], 5)
    want = np.moveaxis(simdops.quantize_down_int32(np.ascontiguousarray(np.moveaxis(x, 1, -1)),
                                                   m, sh, 5), -1, 1)
    assert_bits(got, want)


def test_per_element_parameters_match_elementwise_calls():
    x = np.concatenate([FLOATS, RNG.normal(0, 2, 22)]).astype(np.float32)
    lo = RNG.normal(-1, 1, x.size)
    hi = np.where(RNG.random(x.size) < 0.3, lo - 1, lo + 2)  # some min > max
    want = np.array([simdops.clip(x[i:i + 1], lo[i], hi[i])[0] for i in range(x.size)])
    assert_bits(ufunc.clip(x, lo, hi), want)
    # the last axis per channel (parameters change every element)
    acc = RNG.integers(-9000, 9000, (4, 6)).astype(np.int32)
    scale = RNG.uniform(0.001, 0.1, 6).astype(np.float32)
    assert_bits(ufunc.requantize_fp32(acc, scale, 1), simdops.requantize_fp32(acc, scale, 1))


def _runs(rng, n, values):
    """n parameter values in runs of 1..40 equal elements, drawn from values."""
    out = []
    while len(out) < n:
        out += [rng.choice(values)] * int(rng.integers(1, 41))
    return out[:n]


@pytest.mark.parametrize("ptype", ["float64", "float32", "int32", "int64"])
def test_runs_of_equal_parameters_match_runwise_calls(ptype):
    """A parameter that moves in runs (numpy's buffer of a per-channel parameter over small
    planes): a run ends at every position of the loop's block compare, for element sizes 8, 4
    and 1 (int8 / uint8 offsets; an int16 output has no offset but 0)."""
    rng = np.random.default_rng(341)
    x = rng.normal(0, 3, 999).astype(np.float32)
    lo = np.array(_runs(rng, x.size, [-2, -1, 0, 1]), ptype)
    want = np.concatenate([simdops.clip(x[i:i + 1], lo[i].item(), 2) for i in range(x.size)])
    assert_bits(ufunc.clip(x, lo, 2), want)
    acc = rng.integers(-90000, 90000, 999).astype(np.int32)
    for otype in ("int8", "uint8"):
        off = np.array(_runs(rng, acc.size, [3, 0, 7, 100]), otype)
        want = np.concatenate([simdops.quantize_down_int32(acc[i:i + 1], 1 << 30, 5,
                                                           int(off[i]), out_dtype=otype)
                               for i in range(acc.size)])
        assert_bits(ufunc.quantize_down_int32(acc, 1 << 30, 5, off), want)


def test_repeated_and_alternating_parameters():
    """The loops keep the last prepared parameters per thread: a repeat, an alternation, the
    same bytes under another type or op, and an invalid parameter after a valid one."""
    x = np.concatenate([FLOATS, RNG.normal(0, 3, 22)]).astype(np.float32)
    for lo, hi in [(-1.0, 1.0), (-1.0, 1.0), (-2.0, 0.5), (-1.0, 1.0), (np.float32(-1.0), 1.0),
                   (-1, 1), (np.int32(-1), np.float32(1.0))]:
        assert_bits(ufunc.clip(x, lo, hi), simdops.clip(x, lo, hi))
        assert_bits(ufunc.shrink(x, abs(lo), hi), simdops.shrink(x, abs(lo), hi))
    for f, name in ((ufunc.clip, "clip"), (ufunc.shrink, "shrink"), (ufunc.clip, "clip")):
        assert_bits(f(x, 0.5, 1.0), getattr(simdops, name)(x, 0.5, 1.0))  # same bytes, ops
    with pytest.raises(ValueError, match="clip: min is NaN"):
        ufunc.clip(x, np.nan, 1.0)
    with pytest.raises(ValueError, match="clip: min is NaN"):
        ufunc.clip(x, np.nan, 1.0)  # an invalid parameter is never kept
    acc = RNG.integers(-90000, 90000, 40).astype(np.int32)
    for scale, zp in [(0.001, 3), (0.001, 3), (0.002, 3), (0.001, 4), (0.001, 3)]:
        assert_bits(ufunc.requantize_fp32(acc, scale, zp), simdops.requantize_fp32(acc, scale, zp))
        assert_bits(ufunc.requantize_fp32_away(acc, scale, zp),
                    simdops.requantize_fp32(acc, scale, zp, ties="away"))


def test_per_plane_parameters_beyond_the_memo_and_repeated():
    """numpy calls the loop once per H*W plane with that channel's scale; the loops keep a few
    hundred prepared parameter sets per thread: more channels than that, the same call again
    (hits), a scale shared by two ops and zero points, and an invalid plane between valid
    ones still give the function's bits or its error."""
    x = RNG.integers(-90000, 90000, (1, 300, 3, 5)).astype(np.int32)
    scale = RNG.uniform(0.0005, 0.05, 300).astype(np.float32)
    scale[7] = scale[200]  # equal parameter bytes in two planes
    want = np.moveaxis(simdops.requantize_fp32(np.ascontiguousarray(np.moveaxis(x, 1, -1)),
                                               scale, 2), -1, 1)
    for _ in range(3):
        assert_bits(ufunc.requantize_fp32(x, scale[:, None, None], 2), want)
    away = np.moveaxis(simdops.requantize_fp32(np.ascontiguousarray(np.moveaxis(x, 1, -1)),
                                               scale, 2, ties="away"), -1, 1)
    assert_bits(ufunc.requantize_fp32_away(x, scale[:, None, None], 2), away)
    first = x[:, :64]
    want3 = np.moveaxis(simdops.requantize_fp32(np.ascontiguousarray(np.moveaxis(first, 1, -1)),
                                                scale[:64], 3), -1, 1)
    assert_bits(ufunc.requantize_fp32(first, scale[:64, None, None], 3), want3)
    acc = x.ravel()[:40]
    for zp in range(0, 256, 3):  # one scale, many zero points: keys that share memo sets
        assert_bits(ufunc.requantize_fp32(acc, scale[0], zp),
                    simdops.requantize_fp32(acc, scale[0], zp))
    bad = scale.copy()
    bad[150] = np.inf
    for _ in range(2):
        with pytest.raises(ValueError, match="requantize_fp32: .*scale"):
            ufunc.requantize_fp32(x, bad[:, None, None], 2)
    assert_bits(ufunc.requantize_fp32(x, scale[:, None, None], 2), want)


def test_planes_after_a_learned_order():
    """The loop compares first the parameters that followed the last ones last time (per
    channel on NCHW, the next channel's): one channel changed, the channels reversed, a
    shorter run of them and the same scales under another ufunc all give the function's
    bits."""
    x = RNG.integers(-90000, 90000, (2, 12, 3, 4)).astype(np.int32)
    scale = RNG.uniform(0.0005, 0.05, 12).astype(np.float32)

    def want(s, zp=2, xx=x, **kw):
        moved = np.ascontiguousarray(np.moveaxis(xx, 1, -1))
        return np.moveaxis(simdops.requantize_fp32(moved, s, zp, **kw), -1, 1)

    for _ in range(2):  # the order is learned
        assert_bits(ufunc.requantize_fp32(x, scale[:, None, None], 2), want(scale))
    changed = scale.copy()
    changed[5] *= 2
    assert_bits(ufunc.requantize_fp32(x, changed[:, None, None], 2), want(changed))
    assert_bits(ufunc.requantize_fp32(x, scale[:, None, None], 2), want(scale))
    rev = scale[::-1].copy()
    assert_bits(ufunc.requantize_fp32(x, rev[:, None, None], 2), want(rev))
    assert_bits(ufunc.requantize_fp32(x[:, 3:7], scale[3:7, None, None], 2),
                want(scale[3:7], xx=x[:, 3:7]))
    assert_bits(ufunc.requantize_fp32(x, scale[:, None, None], 4), want(scale, 4))
    assert_bits(ufunc.requantize_fp32_away(x, scale[:, None, None], 2),
                want(scale, ties="away"))
    assert_bits(ufunc.requantize_fp32(x, scale[:, None, None], 2), want(scale))


def test_zero_d_parameter_changed_in_place_between_calls():
    """The memo keys on a parameter's bytes, not its array: a layer's stored 0-d scale or
    bound written in place between two calls gives the new value's bits."""
    acc = RNG.integers(-90000, 90000, 40).astype(np.int32)
    x = RNG.normal(0, 3, 40).astype(np.float32)
    scale, zp, lo = np.array(0.001), np.array(3), np.array(-1.0)
    for s_, z_, l_ in [(0.001, 3, -1.0), (0.002, 3, -0.5), (0.002, 4, -0.5), (0.001, 3, -1.0)]:
        scale[()], zp[()], lo[()] = s_, z_, l_
        assert_bits(ufunc.requantize_fp32(acc, scale, zp), simdops.requantize_fp32(acc, s_, z_))
        assert_bits(ufunc.clip(x, lo, 1.0), simdops.clip(x, l_, 1.0))


def test_threads_with_their_own_parameters():
    """Each thread keeps its own prepared parameters: threads running the per-plane NCHW call
    and 16-element calls at once, each with its own scales, get their own bits."""
    from concurrent.futures import ThreadPoolExecutor
    x = RNG.integers(-90000, 90000, (1, 24, 4, 8)).astype(np.int32)
    scales = [RNG.uniform(0.0005, 0.05, 24).astype(np.float32) for _ in range(4)]
    wants = [np.moveaxis(simdops.requantize_fp32(np.ascontiguousarray(np.moveaxis(x, 1, -1)),
                                                 s, 2), -1, 1) for s in scales]
    small = x.ravel()[:16]
    small_wants = [simdops.requantize_fp32(small, float(s[0]), 5) for s in scales]

    def work(k):
        for _ in range(20):
            assert_bits(ufunc.requantize_fp32(x, scales[k][:, None, None], 2), wants[k])
            assert_bits(ufunc.requantize_fp32(small, scales[k][0], 5), small_wants[k])
        return k

    with ThreadPoolExecutor(4) as pool:  # a thread's AssertionError is raised here
        assert list(pool.map(work, range(4))) == [0, 1, 2, 3]


def test_strided_x_out_and_where():
    x = RNG.normal(0, 3, (6, 8)).astype(np.float32)
    xs = x[:, ::2]
    assert_bits(ufunc.clip(xs, -1.0, 1.0), simdops.clip(xs, -1.0, 1.0))
    out = np.full_like(x, 7.0)
    r = ufunc.clip(x, -1.0, 1.0, out=out)
    assert r is out
    assert_bits(out, simdops.clip(x, -1.0, 1.0))
    out = np.full_like(x, 7.0)
    where = x > 0
    ufunc.clip(x, -1.0, 1.0, out=out, where=where)
    assert_bits(out, np.where(where, simdops.clip(x, -1.0, 1.0), np.float32(7.0)))
    y = x.copy()
    ufunc.clip(y, -1.0, 1.0, out=y)  # in place
    assert_bits(y, simdops.clip(x, -1.0, 1.0))


def test_zero_d_and_numpy_scalar_parameters():
    x = RNG.normal(0, 3, 50).astype(np.float32)
    assert_bits(ufunc.clip(x, np.array(-1.0), np.float32(1)), simdops.clip(x, -1.0, 1.0))
    r = ufunc.clip(np.float32(3), 0, 1)
    assert r == np.float32(1) and np.asarray(r).dtype == np.float32


def test_hardmax_gufunc_axis():
    x = RNG.integers(0, 3, (4, 5, 6)).astype(np.float32)
    for axis in (-1, 0, 1):
        assert_bits(ufunc.hardmax(x, axis=axis), simdops.hardmax(x, axis=axis))
    for dtype in ("float16", "float64"):
        xx = x.astype(dtype)
        assert_bits(ufunc.hardmax(xx), simdops.hardmax(xx))
    # rows contiguous in x but padded in out (and the reverse): the N-d entry, not the row one
    rows = np.concatenate([FLOATS, FLOATS[::-1]])[:18].reshape(3, 6)
    padded = np.full((3, 9), 7.0, np.float32)
    ufunc.hardmax(rows, out=padded[:, :6])
    assert_bits(padded[:, :6], simdops.hardmax(rows))
    assert_bits(padded[:, 6:], np.full((3, 3), 7.0, np.float32))
    assert_bits(ufunc.hardmax(padded[:, :6]), simdops.hardmax(np.ascontiguousarray(padded[:, :6])))
    with pytest.raises(TypeError):
        ufunc.hardmax(np.arange(4, dtype=np.int32))


@pytest.mark.thread_unsafe  # the warnings filter is process-wide
@pytest.mark.parametrize("isa", simdops.available_isas())
def test_hardmax_nan_is_not_an_fp_warning(isa):
    # every tier: the scalar tier's C compares raise the FP "invalid" flag on NaN, the
    # vector tiers' quiet compares do not
    rows = np.concatenate([FLOATS, FLOATS[::-1]])[:18].reshape(3, 6)
    with warnings.catch_warnings(), simdops.use_isa(isa):
        warnings.simplefilter("error")  # NaN is a value hardmax takes (it wins), not an error
        for x in (rows, rows[:1], rows.T):  # the row entry and the N-d one
            assert_bits(ufunc.hardmax(x), simdops.hardmax(x))


def test_errors_are_simdops_errors():
    x = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="^clip: min is NaN"):
        ufunc.clip(x, np.nan, 1.0)
    with pytest.raises(ValueError, match="clip: max is NaN"):
        ufunc.clip(x, 0.0, np.array([1.0, np.nan, 2.0]))
    with pytest.raises(ValueError, match="shrink"):
        ufunc.shrink(x, 0.5, -1.0)
    acc = np.zeros(3, np.int32)
    with pytest.raises(ValueError, match="quantize_down_int32: multiplier .* int32 range"):
        ufunc.quantize_down_int32(acc, 1 << 40, 0, 0)
    with pytest.raises(ValueError, match="shift"):
        ufunc.quantize_down_int32(acc, 1 << 30, np.array([0, 40, 0]), 0)
    with pytest.raises(TypeError, match="multiplier must be an int"):
        ufunc.quantize_down_int32(acc, 1.5, 0, 0)
    with pytest.raises(TypeError, match="bool"):
        ufunc.clip(x, True, 1.0)
    with pytest.raises(ValueError, match="requantize_fp32: .*scale"):
        ufunc.requantize_fp32(acc, np.inf, 0)
    with pytest.raises(ValueError):
        ufunc.requantize_fp32(acc, 0.5, 300)  # zero point outside uint8
    with pytest.raises(TypeError):
        ufunc.clip(np.zeros(2, bool), 0, 1)  # no loop: numpy's TypeError
    with pytest.raises(OverflowError):  # a Python int parameter travels as int64
        ufunc.clip(np.zeros(2, np.uint64), 0, 1 << 64)


def test_requant_output_type_default_and_out_cast():
    acc = np.array([2000, -2000, 5], np.int32)
    assert ufunc.requantize_fp32(acc, 0.1, 0).dtype == np.uint8  # Python int zero point
    assert ufunc.requantize_fp32(acc, 0.1, np.int32(0)).dtype == np.uint8
    assert ufunc.quantize_down_int32(acc, 1 << 30, 0, np.int16(0)).dtype == np.int16
    # out= does not choose the output type (numpy casts into it, as for any ufunc)
    out = np.zeros(3, np.int16)
    ufunc.requantize_fp32(acc, 0.1, 0, out=out)
    np.testing.assert_array_equal(out, simdops.requantize_fp32(acc, 0.1, 0).astype(np.int16))


def test_bench_instruments_and_the_kernel_floor_row():
    """The bench's instruments: _floor_requantize_fp32 leaves out= as it is, and
    _kernel_floor_requantize_fp32 runs the kernel over each contiguous plane with its one
    handle (scale 1/1000, zero point 0) whatever the parameters; the NCHW goal row takes the
    latter's time as its best possible (floor_works), not added to the function's."""
    from simdops import _ufunc
    from simdops.bench import goals as goal_rows
    x = RNG.integers(-90000, 90000, (1, 3, 4, 5)).astype(np.int32)
    out = np.full(x.shape, 7, np.uint8)
    _ufunc._floor_requantize_fp32(x, np.ones((3, 1, 1), np.float32), 3, out=out)
    assert (out == 7).all()
    want = simdops.requantize_fp32(x, 1 / 1000, 0)
    _ufunc._kernel_floor_requantize_fp32(x, np.ones((3, 1, 1), np.float32), 3, out=out)
    assert_bits(out, want)
    out8 = np.zeros(x.shape, np.int8)
    _ufunc._kernel_floor_requantize_fp32(x, np.float32(2.0), np.int8(1), out=out8)
    assert_bits(out8, simdops.requantize_fp32(x, 1 / 1000, 0, out_dtype="int8"))

    def case(cid, **seconds):
        return {"id": cid, "results": {k: {"seconds": v, "elements_per_s": 16 / v}
                                       for k, v in seconds.items()}}
    cases = [case("a", fn=56.0, uf=70.0, kf=68.0, fl=3.5)]
    rows = goal_rows.evaluate(cases, "avx512", [
        goal_rows.Goal("k", ("a", "uf"), ("a", "fn"), 0.9, floor=("a", "kf"), floor_works=True),
        goal_rows.Goal("n", ("a", "uf"), ("a", "fn"), 0.9, floor=("a", "fl"))])
    assert rows[0]["status"] == "BLOCKED (floor 0.824)" and rows[0]["floor"] == 56 / 68
    assert rows[1]["status"] == "MISS" and rows[1]["floor"] == 56 / 59.5
