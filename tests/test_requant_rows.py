"""Per-channel requant and bias over many rows, against the Python-int reference.

Bias and per-channel vectors of a [rows, C] tensor are prepared once per call:
repeated to rows of at least 512 elements when C is small, and (from 4 rows on)
with the per-channel shifts derived in advance, or (long spans without derived arrays)
repeated to two whole-line periods so that calls can start on x's 64-byte lines at any
channel phase (csrc/api/api_requant.c). These
tests walk the shapes, views and thread splits where that bookkeeping could
put an element on the wrong channel.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdops
from conftest import check_all_isas
import reference
from reference import INT32_MIN, requant
from test_threads import threads

ROWS = [1, 2, 3, 4, 5, 33]
CHANNELS = [1, 3, 16, 17, 100, 600]


def channel_params(rng, c, kind):
    """Per-channel multipliers/shifts: 'fast' ones (right shifts >= 1, no
    INT32_MIN: the kernels' cheapest variant), 'right' (shifts >= 0) or
    'general' (left shifts and INT32_MIN too)."""
    m = rng.integers(1 << 30, 1 << 31, c, dtype=np.int64).astype(np.int32)
    if kind == "fast":
        s = rng.integers(1, 32, c).astype(np.int32)
    elif kind == "right":
        s = rng.integers(0, 32, c).astype(np.int32)
    else:
        s = rng.integers(-31, 32, c).astype(np.int32)
        m[rng.random(c) < 0.2] = INT32_MIN
    return m, s


def data(rng, shape):
    x = rng.integers(-(1 << 31), 1 << 31, shape, dtype=np.int64).astype(np.int32)
    small = rng.random(shape) < 0.5
    x[small] = rng.integers(-5000, 5000, int(small.sum()))
    return x


@pytest.mark.parametrize("rows", ROWS)
@pytest.mark.parametrize("c", CHANNELS)
@pytest.mark.parametrize("kind", ["fast", "right", "general"])
def test_rows_and_channels(rows, c, kind, rng):
    x = data(rng, (rows, c))
    m, s = channel_params(rng, c, kind)
    bias = rng.integers(-100000, 100000, c, dtype=np.int32)
    for b in (None, bias):
        exp = requant(x, m, s, 7, b, 3, 250, "uint8")
        check_all_isas(lambda: simdops.quantize_down_int32(x, m, s, 7, bias=b, min=3, max=250),
                       exp, x, context=f"{rows}x{c} {kind} bias={b is not None}")
    # bias alone: the per-tensor kernel on repeated bias
    exp = requant(x, int(m[0]), int(s[0]), -3, bias, None, None, "int8")
    check_all_isas(lambda: simdops.quantize_down_int32(x, int(m[0]), int(s[0]), -3, bias=bias,
                                                       out_dtype="int8"),
                   exp, x, context=f"{rows}x{c} bias only")


@pytest.mark.parametrize("view", ["reversed channels", "reversed rows", "both reversed",
                                  "strided rows", "strided channels", "3-d", "transposed"])
@pytest.mark.parametrize("c", [3, 16, 600])
def test_views_keep_channels(view, c, rng):
    base = data(rng, (12, 2 * c))
    x = {"reversed channels": base[:, c - 1::-1] if c > 1 else base[:, :1],
         "reversed rows": base[::-1, :c],
         "both reversed": base[::-1, c - 1::-1] if c > 1 else base[::-1, :1],
         "strided rows": base[::3, :c],
         "strided channels": base[:, ::2],
         "3-d": base[:, :c].reshape(3, 4, c),
         "transposed": np.ascontiguousarray(base[:, :c].T).T}[view]
    m, s = channel_params(rng, c, "fast")
    bias = rng.integers(-100000, 100000, c, dtype=np.int32)
    exp = requant(x, m, s, 1, bias, None, None, "uint8")
    check_all_isas(lambda: simdops.quantize_down_int32(x, m, s, 1, bias=bias), exp, x,
                   context=view)
    # and into a reversed output view
    out = np.zeros(x.shape[:-1] + (2 * c,), np.uint8)[..., ::-2][..., :c]
    simdops.quantize_down_int32(x, m, s, 1, bias=bias, out=out)
    assert out.tolist() == exp.tolist()


@pytest.mark.parametrize("c", [1, 5, 16, 600])
def test_thread_splits(c, rng):
    rows = 4096 // c + 3
    x = data(rng, (rows, c))
    m, s = channel_params(rng, c, "right")
    bias = rng.integers(-100000, 100000, c, dtype=np.int32)
    exp = requant(x, m, s, 0, bias, None, None, "int16")
    for grain in (64, 1000, 4096):
        with threads(2, grain):
            got = simdops.quantize_down_int32(x, m, s, 0, bias=bias, out_dtype="int16")
        assert got.tobytes() == exp.tobytes(), f"grain={grain}"


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(0, 40), c=st.integers(1, 70), kind=st.sampled_from(["fast", "general"]),
       seed=st.integers(0, 2**32 - 1), with_bias=st.booleans())
def test_property_rows(rows, c, kind, seed, with_bias):
    rng = np.random.default_rng(seed)
    x = data(rng, (rows, c))
    m, s = channel_params(rng, c, kind)
    bias = rng.integers(-(1 << 31), 1 << 31, c, dtype=np.int64).astype(np.int32) \
        if with_bias else None
    exp = requant(x, m, s, 100, bias, 10, 245, "uint8")
    check_all_isas(lambda: simdops.quantize_down_int32(x, m, s, 100, bias=bias, min=10, max=245),
                   exp, x, context=f"{rows}x{c} {kind}")


def _line_rows(c):
    """Rows enough that the driver starts its calls on x's lines (csrc/api/api_requant.c:
    vectors repeated to a whole-line period of at least 512, two periods of rows, and at
    least 1,024 elements), plus a few."""
    def ceil_div(a, b):
        return -(-a // b)
    step = 16 // min(c & -c, 16)      # 4 * period a multiple of 64 bytes
    reps = ceil_div(ceil_div(512, c), step) * step
    return max(2 * reps, ceil_div(1024, c)) + 3


# fp32 per channel: scales repeating every lcm(c, 16) elements of 16 to 256 (c = 1, 3, 16,
# 24, 64, 128, 192, 256) run with one repetition held in AVX-512 registers; 37, 100 and
# 300 do not
@pytest.mark.parametrize("c", [1, 3, 16, 24, 37, 64, 100, 128, 192, 256, 300])
@pytest.mark.parametrize("family", ["double", "single", "fp32"])
def test_calls_from_x_lines(c, family, rng):
    """Long spans start their kernel calls on x's 64-byte lines (a head call of 0-15
    elements first) and read the repeated vectors from any channel phase: every offset of
    x within a line, per channel with and without bias, bias alone, no vectors, and two
    threads splitting the rows anywhere."""
    rows = _line_rows(c)
    base = data(rng, (rows * c + 16,))
    m, s = channel_params(rng, c, "right")
    if family == "single":
        s = np.maximum(s, 1)
    bias = rng.integers(-100000, 100000, c, dtype=np.int32)
    scale = (rng.random(c) * 0.01).astype(np.float32)

    def run_and_expect(x, b, per_channel):
        if family == "fp32":
            sc = scale if per_channel else float(scale[0])
            return (lambda: simdops.requantize_fp32(x, sc, 9, bias=b, min=2, max=251),
                    reference.requantize_fp32(x, sc, 9, b, 2, 251))
        mm, ss = (m, s) if per_channel else (int(m[0]), int(s[0]))
        return (lambda: simdops.quantize_down_int32(x, mm, ss, 9, bias=b, min=2, max=251,
                                                    rounding=family),
                reference.requant_family(x, mm, ss, 9, b, 2, 251, rounding=family))

    for off in (0, 1, 4, 7, 12, 15):
        x = base[off:off + rows * c].reshape(rows, c)
        for b, per_channel in ((bias, True), (None, True), (bias, False), (None, False)):
            fn, exp = run_and_expect(x, b, per_channel)
            context = f"{rows}x{c} off={off} bias={b is not None} per_channel={per_channel}"
            check_all_isas(fn, exp, x, context=context)
            with threads(2, 1000):
                assert fn().tobytes() == exp.tobytes(), context


@pytest.mark.parametrize("c", [4, 8, 9, 256])
@pytest.mark.parametrize("sign", [-1, 0])
def test_nonpositive_multiplier_leaves_the_float_path(c, sign, rng):
    """The per-channel float32 path covers M > 0 only: it adds the rounding half with
    the input's sign, which is the product's only then. One channel with M = -2**30
    (or 0), shift 1, among covered ones (4+ rows: the driver derives the arrays four
    channels at a time, then the rest one by one), on y = 4j + 2, where the product's
    sign gives -j - 1 and the input's would give -j a quarter away from any rounding
    boundary: the call must run the integer rule."""
    rows = 64
    m, s = channel_params(rng, c, "fast")
    s = np.minimum(s, 23)
    bad = c - 1 if c % 4 else c // 2          # in the scalar rest, or in a group of four
    m[bad] = sign * (1 << 30)
    s[bad] = 1
    j = rng.integers(-200, 200, (rows, c))
    x = (4 * j + 2).astype(np.int32)
    exp = requant(x, m, s, 100, None, 0, 255, "uint8")
    check_all_isas(lambda: simdops.quantize_down_int32(x, m, s, 100, min=0, max=255), exp, x,
                   context=f"{rows}x{c} M[{bad}]={int(m[bad])}")
