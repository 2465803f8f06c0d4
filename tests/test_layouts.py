"""Buffers and layouts (docs/semantics.md): strides (negative, zero), in-place, overlapping out,
0-size arrays, non-numpy buffers (memoryview, array.array, bytearray, ctypes)."""
import array
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import simdops
import reference as ref
from conftest import ISAS

PC_M = np.array([254601600, 1 << 30, -(1 << 30), 2 ** 31 - 1, 7, -(2 ** 31), 1518500250], np.int64)
PC_S = np.array([1, 0, 31, -1, -31, 3, -4], np.int64)


def _pc(n, table):
    return np.resize(table, n).astype(np.int32)


def _bias(n):
    return (np.arange(n, dtype=np.int64) * 977 - 3000).astype(np.int32)


# name -> (x dtype, out dtype, call(x, **kw), reference(x))
OPS = {
    "clip_f32": (np.float32, np.float32, lambda x, **kw: simdops.clip(x, -0.5, 0.5, **kw),
                 lambda x: ref.clip(x, -0.5, 0.5)),
    "clip_sb_f16": (np.float16, np.float16,
                    lambda x, **kw: simdops.clip(x, -2.0, 2.0, scale=1.5, bias=0.25, **kw),
                    lambda x: ref.clip(x, -2.0, 2.0, 1.5, 0.25)),
    "clip_i16": (np.int16, np.int16, lambda x, **kw: simdops.clip(x, -100, 1000, **kw),
                 lambda x: ref.clip(x, -100, 1000)),
    "clip_sb_u8": (np.uint8, np.uint8, lambda x, **kw: simdops.clip(x, 3, 250, scale=1.5, bias=-7.0,
                                                                    **kw),
                   lambda x: ref.clip(x, 3, 250, 1.5, -7.0)),
    "clip_u64": (np.uint64, np.uint64, lambda x, **kw: simdops.clip(x, 10, 2 ** 63, **kw),
                 lambda x: ref.clip(x, 10, 2 ** 63)),
    "clip_i64": (np.int64, np.int64, lambda x, **kw: simdops.clip(x, -5, 2 ** 40, **kw),
                 lambda x: ref.clip(x, -5, 2 ** 40)),
    "shrink_f64": (np.float64, np.float64, lambda x, **kw: simdops.shrink(x, 0.25, 0.5, **kw),
                   lambda x: ref.shrink(x, 0.25, 0.5)),
    "shrink_i8": (np.int8, np.int8, lambda x, **kw: simdops.shrink(x, 3, 10, **kw),
                  lambda x: ref.shrink(x, 3, 10)),
    "shrink_u32": (np.uint32, np.uint32, lambda x, **kw: simdops.shrink(x, -7, 2.5, **kw),
                   lambda x: ref.shrink(x, -7, 2.5)),
    "hardmax_f32_last": (np.float32, np.float32, lambda x, **kw: simdops.hardmax(x, **kw),
                         lambda x: ref.hardmax(x, -1)),
    "hardmax_f16_axis0": (np.float16, np.float16, lambda x, **kw: simdops.hardmax(x, 0, **kw),
                          lambda x: ref.hardmax(x, 0)),
    "hardmax_f64_all": (np.float64, np.float64,
                        lambda x, **kw: simdops.hardmax(x, tuple(range(np.ndim(x))), **kw),
                        lambda x: ref.hardmax(x, tuple(range(x.ndim)))),
    "requant_u8": (np.int32, np.uint8,
                   lambda x, **kw: simdops.quantize_down_int32_to_uint8(x, 254601600, 1, 2, **kw),
                   lambda x: ref.requant(x, 254601600, 1, 2)),
    "requant_i8_bias": (np.int32, np.int8,
                        lambda x, **kw: simdops.quantize_down_int32(
                            x, 1 << 30, 2, -3, bias=_bias(np.shape(x)[-1]), min=-100, max=90,
                            out_dtype="int8", **kw),
                        lambda x: ref.requant(x, 1 << 30, 2, -3, _bias(x.shape[-1]), -100, 90, "int8")),
    "requant_i16_pc": (np.int32, np.int16,
                       lambda x, **kw: simdops.quantize_down_int32(
                           x, _pc(np.shape(x)[-1], PC_M), _pc(np.shape(x)[-1], PC_S),
                           out_dtype="int16", **kw),
                       lambda x: ref.requant(x, _pc(x.shape[-1], PC_M), _pc(x.shape[-1], PC_S), 0,
                                             None, None, None, "int16")),
}
ops = pytest.mark.parametrize("op", list(OPS))


def make(rng, dtype, shape):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "f":
        x = (rng.standard_normal(n) * 3).astype(dtype)
        x[rng.random(n) < 0.05] = np.nan
        x[rng.random(n) < 0.05] = -0.0
    elif dtype == np.int32:
        x = rng.integers(-60000, 60000, n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
    return x.reshape(shape)


def expect(op, x):
    return OPS[op][3](np.array(x, copy=True))


# ------------------------------------------------------------------ input layouts

def _layouts(rng, dtype):
    """(name, x) pairs: views of every kind, each at least 1-D."""
    big = make(rng, dtype, (9, 14))
    row = make(rng, dtype, (14,))
    col = make(rng, dtype, (9, 1))
    yield "contiguous_2d", big
    yield "contiguous_1d", row
    yield "contiguous_3d", make(rng, dtype, (2, 3, 5))
    yield "step2", row[::2]
    yield "step3_2d", big[:, ::3]
    yield "rows_step2", big[::2]
    yield "negative_1d", row[::-1]
    yield "negative_2d", big[::-1, ::-2]
    yield "negative_rows", big[::-1]
    yield "transposed", big.T
    yield "zero_stride_rows", np.broadcast_to(row, (5, 14))
    yield "zero_stride_cols", np.broadcast_to(col, (9, 6))
    yield "zero_stride_all", np.broadcast_to(row[:1], (3, 4))
    yield "zero_stride_1d", np.broadcast_to(row[3:4], (17,))
    yield "sliced_both", big[2:7, 3:11]
    yield "fortran_3d", np.asfortranarray(make(rng, dtype, (3, 4, 5)))
    yield "swapped_3d", make(rng, dtype, (3, 4, 5)).transpose(1, 2, 0)
    buf = np.zeros(14 * np.dtype(dtype).itemsize + 1, np.uint8)
    mis = buf[1:].view(dtype)
    mis[:] = row
    yield "misaligned", mis


@ops
def test_input_layouts(op, rng):
    xd = OPS[op][0]
    fn = OPS[op][2]
    for name, x in _layouts(rng, xd):
        expected = expect(op, x)
        for isa in ISAS:
            with simdops.use_isa(isa):
                y = fn(x)
            assert isinstance(y, np.ndarray) and y.flags.c_contiguous, name
            msg = ref.mismatch_report(y, expected, x)
            assert msg is None, f"[{isa}] layout {name}: {msg}"


# ------------------------------------------------------------------ out layouts

@ops
def test_out_layouts(op, rng):
    xd, od, fn, _ = OPS[op]
    x = make(rng, xd, (6, 10))
    expected = expect(op, x)
    outs = {
        "c": np.zeros((6, 10), od),
        "fortran": np.zeros((6, 10), od, order="F"),
        "step2": np.zeros((6, 20), od)[:, ::2],
        "negative": np.zeros((6, 10), od)[::-1, ::-1],
        "rows_step3": np.zeros((18, 10), od)[::3],
        "transposed_view": np.zeros((10, 6), od).T,
        "misaligned": np.zeros(60 * np.dtype(od).itemsize + 3, np.uint8)[3:].view(od).reshape(6, 10),
    }
    for name, out in outs.items():
        for isa in ISAS:
            out[...] = 0
            with simdops.use_isa(isa):
                y = fn(x, out=out)
            assert y is out, name
            msg = ref.mismatch_report(out, expected, x)
            assert msg is None, f"[{isa}] out layout {name}: {msg}"


# --------------------------------------------------------------------- in-place

@ops
def test_in_place(op, rng):
    xd, od, fn, _ = OPS[op]
    if np.dtype(xd) != np.dtype(od):
        pytest.skip("requant changes the dtype; see test_requant_out_inside_x")
    for shape in [(0,), (1,), (7,), (33,), (4, 17), (2, 3, 9)]:
        for isa in ISAS:
            x = make(rng, xd, shape)
            expected = expect(op, x)
            with simdops.use_isa(isa):
                y = fn(x, out=x)
            assert y is x
            msg = ref.mismatch_report(x, expected)
            assert msg is None, f"[{isa}] in-place {shape}: {msg}"
        # strided in place: same memory, same layout
        big = make(rng, xd, (8, 12))
        for view in (big[::2, 1::3], big[::-1], big.T):
            expected = expect(op, view)
            fn(view, out=view)
            ref.assert_matches(view, expected)


# ------------------------------------------------------------------ overlapping out

def _overlap_cases(rng, xd, n=40):
    """(name, x, out) with out overlapping x in some other way than in-place."""
    buf = make(rng, xd, (n + 3,))
    yield "out=x shifted right by 1", buf[:-1], buf[1:]
    buf = make(rng, xd, (n + 3,))
    yield "out=x shifted left by 1", buf[1:], buf[:-1]
    buf = make(rng, xd, (n + 3,))
    yield "out shifted by 3", buf[:-3], buf[3:]
    buf = make(rng, xd, (n,))
    yield "out reversed", buf, buf[::-1]
    buf = make(rng, xd, (2 * n,))
    yield "x strided, out contiguous prefix", buf[::2], buf[:n]
    buf = make(rng, xd, (2 * n,))
    yield "x contiguous, out strided", buf[:n], buf[::2]
    sq = make(rng, xd, (8, 8))
    yield "out transposed", sq, sq.T
    grid = make(rng, xd, (6, 11))
    yield "2-D, rows shifted", grid[1:, :], grid[:-1, :]
    grid = make(rng, xd, (6, 11))
    yield "2-D, columns shifted", grid[:, 1:], grid[:, :-1]
    flat = make(rng, xd, (3 * 8 + 1,))
    yield "reshaped shifted", flat[1:].reshape(3, 8), flat[:-1].reshape(3, 8)


@ops
def test_overlapping_out(op, rng):
    xd, od, fn, _ = OPS[op]
    if np.dtype(xd) != np.dtype(od):
        pytest.skip("requant: see test_requant_out_inside_x")
    for name, x, out in _overlap_cases(rng, xd):
        for isa in ISAS:
            xs, outs = x.copy(), out.copy()
            expected = expect(op, x)
            with simdops.use_isa(isa):
                y = fn(x, out=out)
            assert y is out
            msg = ref.mismatch_report(out, expected, xs)
            assert msg is None, f"[{isa}] {name}: {msg}"
            # restore the shared memory for the next ISA
            out[...] = outs
            x[...] = xs


@pytest.mark.parametrize("op", ["requant_u8", "requant_i8_bias", "requant_i16_pc"])
def test_requant_out_inside_x(op, rng):
    """The narrow output written over the int32 input's bytes: as if x were copied first."""
    _, od, fn, _ = OPS[op]
    isz = np.dtype(od).itemsize
    for n in (1, 5, 16, 40, 67):
        for k in sorted({0, 1, 3, 4 * n - n * isz}):  # byte offset of out inside x's memory
            if k + n * isz > 4 * n:
                continue
            for isa in ISAS:
                x = make(rng, np.int32, (n,))
                expected = expect(op, x)
                raw = x.view(np.uint8)
                out = raw[k:k + n * isz].view(od)
                with simdops.use_isa(isa):
                    fn(x, out=out)
                msg = ref.mismatch_report(out, expected)
                assert msg is None, f"[{isa}] n={n}, out at byte {k}: {msg}"
        # output strided backwards over the input
        x = make(rng, np.int32, (n,))
        expected = expect(op, x)
        if isz == 1:
            out = x.view(np.uint8)[::-1][: n * 2: 2].view(od)
            fn(x, out=out)
            ref.assert_matches(out, expected)


def test_requant_bias_and_channels_overlapping_out(rng):
    n = 24
    x = make(rng, np.int32, (3, n))
    bias = make(rng, np.int32, (n,))
    ms = _pc(n, PC_M)
    sh = _pc(n, PC_S)
    expected = ref.requant(x, ms, sh, 5, bias.copy(), None, None, "uint8")
    block = np.concatenate([bias, ms, np.zeros(3 * n // 4 + 1, np.int32)])
    bias_v = block[:n]
    ms_v = block[n:2 * n]
    out = block.view(np.uint8)[2:2 + 3 * n].reshape(3, n)  # written over bias and multipliers
    simdops.quantize_down_int32(x, ms_v, sh, 5, bias=bias_v, out=out)
    ref.assert_matches(out, expected)


# -------------------------------------------------------------------- 0-size

@ops
@pytest.mark.parametrize("shape", [(0,), (0, 5), (5, 0), (2, 0, 3), (0, 0)])
def test_zero_size(op, shape, rng):
    xd, od, fn, _ = OPS[op]
    x = np.zeros(shape, xd)
    y = fn(x)
    assert y.shape == shape and y.dtype == np.dtype(od)
    out = np.zeros(shape, od)
    assert fn(x, out=out) is out
    x2 = np.zeros((shape[0], 4) + shape[1:], xd)[:, ::-2]
    assert fn(x2).shape == x2.shape


# ---------------------------------------------------------- non-numpy buffers

ARRAY_CODES = {"b": np.int8, "B": np.uint8, "h": np.int16, "H": np.uint16, "i": np.int32,
               "I": np.uint32, "l": np.dtype("l"), "L": np.dtype("L"), "q": np.int64,
               "Q": np.uint64, "f": np.float32, "d": np.float64}


@pytest.mark.parametrize("code", list(ARRAY_CODES))
def test_array_array_input_and_out(code, rng):
    dt = np.dtype(ARRAY_CODES[code])
    vals = make(rng, dt, (37,))
    a = array.array(code, vals.tolist() if dt.kind != "f" else np.nan_to_num(vals).tolist())
    x = np.frombuffer(a, dtype=dt)
    y = simdops.clip(a, 2, 100)
    assert isinstance(y, np.ndarray) and y.dtype == dt and y.shape == (37,)
    ref.assert_matches(y, ref.clip(x, 2, 100))
    if dt.itemsize < 8 or dt.kind == "f":
        ref.assert_matches(simdops.shrink(a, 1, 3), ref.shrink(x, 1, 3))
    out = array.array(code, [0] * 37)
    assert simdops.clip(a, 2, 100, out=out) is out
    ref.assert_matches(np.frombuffer(out, dtype=dt), ref.clip(x, 2, 100))
    assert simdops.clip(a, 2, 100, out=a) is a  # in place
    ref.assert_matches(np.frombuffer(a, dtype=dt), ref.clip(x, 2, 100))


def test_array_array_requant_and_hardmax(rng):
    x = make(rng, np.int32, (40,))
    a = array.array("i", x.tolist())
    ref.assert_matches(simdops.quantize_down_int32_to_uint8(a, 254601600, 1, 2),
                       ref.requant(x, 254601600, 1, 2))
    out = bytearray(40)
    assert simdops.quantize_down_int32_to_uint8(a, 254601600, 1, 2, out=out) is out
    ref.assert_matches(np.frombuffer(out, np.uint8), ref.requant(x, 254601600, 1, 2))
    f = make(rng, np.float64, (23,))
    ref.assert_matches(simdops.hardmax(array.array("d", f.tolist())), ref.hardmax(f))


def test_bytearray(rng):
    x = make(rng, np.uint8, (50,))
    b = bytearray(x.tobytes())
    y = simdops.clip(b, 20, 200)
    assert isinstance(y, np.ndarray) and y.dtype == np.uint8
    ref.assert_matches(y, ref.clip(x, 20, 200))
    ref.assert_matches(simdops.shrink(b, 5, 100), ref.shrink(x, 5, 100))
    assert simdops.clip(b, 20, 200, out=b) is b
    ref.assert_matches(np.frombuffer(b, np.uint8), ref.clip(x, 20, 200))
    # read-only bytes are fine as input
    ref.assert_matches(simdops.clip(bytes(x), 20, 200), ref.clip(x, 20, 200))


def test_memoryview(rng):
    x = make(rng, np.float32, (4, 9))
    mv = memoryview(x)
    y = simdops.clip(mv, -1.0, 1.0)
    assert isinstance(y, np.ndarray) and y.shape == (4, 9)
    ref.assert_matches(y, ref.clip(x, -1.0, 1.0), x)
    ref.assert_matches(simdops.hardmax(mv[::-1], 0), ref.hardmax(x[::-1], 0))
    raw = memoryview(bytearray(x.tobytes())).cast("f", (4, 9))
    out = memoryview(bytearray(4 * 36)).cast("f", (4, 9))
    assert simdops.shrink(raw, 0.5, 0.5, out=out) is out
    ref.assert_matches(np.frombuffer(out, np.float32).reshape(4, 9), ref.shrink(x, 0.5, 0.5), x)
    # a memoryview of a non-contiguous numpy view keeps its strides
    ref.assert_matches(simdops.clip(memoryview(x[:, ::-3]), 0.0, 2.0), ref.clip(x[:, ::-3], 0.0, 2.0))
    # 'l' and 'q' are the same type by meaning; 'e' is float16
    i64 = make(rng, np.int64, (10,))
    for code in ("l", "q"):
        v = memoryview(i64.tobytes()).cast(code)
        if v.itemsize == 8:
            ref.assert_matches(simdops.clip(v, -5, 5), ref.clip(i64, -5, 5))
    h = make(rng, np.float16, (10,))
    assert memoryview(h).format == "e"
    ref.assert_matches(simdops.clip(memoryview(h), -1.0, 1.0),
                       ref.clip(h, -1.0, 1.0), h)


_CTYPES_SCRIPT = r"""
import ctypes, sys
import numpy as np
import simdops
fa = (ctypes.c_float * 8)(*[0.25 * k - 1 for k in range(8)])
assert memoryview(fa).format == "<f"
y = simdops.clip(fa, 0.0, 0.5)
assert y.tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.5], y
ia = (ctypes.c_int32 * 6)(-(2 ** 31), -5, 0, 7, 300, 2 ** 31 - 1)
y = simdops.quantize_down_int32_to_uint8(ia, 1 << 30, 0, 1)
assert y.tolist() == [0, 0, 1, 5, 151, 255], y
out = (ctypes.c_float * 8)()
assert simdops.clip(np.ones(8, np.float32), 0.0, 0.5, out=out) is out
assert list(out) == [0.5] * 8
grid = ((ctypes.c_double * 3) * 2)((1.0, 5.0, 2.0), (7.0, 0.0, 7.0))
assert simdops.hardmax(grid).tolist() == [[0, 1, 0], [1, 0, 0]]
be = (ctypes.c_float.__ctype_be__ * 4)()
try:
    simdops.clip(be, 0.0, 1.0)
except TypeError as e:
    assert "x" in str(e)
else:
    raise AssertionError("big-endian ctypes array accepted")
print("ok")
"""


@pytest.mark.skipif(not np.little_endian, reason="ctypes' '<' formats are native here only")
def test_ctypes_buffers_with_explicit_little_endian_format():
    # ctypes exports '<f', '<i', ...: an explicit byte order equal to the native one
    r = subprocess.run([sys.executable, "-c", _CTYPES_SCRIPT], capture_output=True, text=True,
                       env=_subprocess_env(), timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-2000:])


def _subprocess_env():
    env = dict(os.environ)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(simdops.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    env.pop("SIMDOPS_ISA", None)
    return env


# ------------------------------------------------------------------- threads

def test_concurrent_calls_from_threads(rng):
    xs = [make(rng, np.float32, (20000,)) for _ in range(6)]
    ys = [ref.clip(x, -0.5, 0.5) for x in xs]
    hs = [make(rng, np.float32, (300, 40)) for _ in range(6)]
    hy = [ref.hardmax(h, 0) for h in hs]
    errors = []

    def work(i):
        try:
            for _ in range(20):
                assert simdops.clip(xs[i], -0.5, 0.5).tobytes() == ys[i].tobytes()
                assert simdops.hardmax(hs[i], 0).tobytes() == hy[i].tobytes()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


# ------------------------------------------------------------ random views

@st.composite
def _random_view(draw):
    op = draw(st.sampled_from(sorted(OPS)))
    nd = draw(st.integers(1, 3))
    base_shape = tuple(draw(st.integers(1, 9)) for _ in range(nd))
    index = []
    for size in base_shape:
        step = draw(st.sampled_from([1, 2, 3, -1, -2, -3]))
        start = draw(st.integers(0, size - 1))
        index.append(slice(start, None, step))
    order = draw(st.permutations(range(nd)))
    out_kind = draw(st.sampled_from(["new", "strided", "negative"]))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return op, base_shape, tuple(index), tuple(order), out_kind, seed


@given(_random_view())
def test_random_views_property(case):
    op, base_shape, index, order, out_kind, seed = case
    xd, od, fn, _ = OPS[op]
    rng = np.random.default_rng(seed)
    x = make(rng, xd, base_shape)[index].transpose(order)
    if op.startswith("requant") and x.shape[-1] == 0:
        return
    expected = expect(op, x)
    if out_kind == "new":
        y = fn(x)
    else:
        big = np.zeros(tuple(2 * s + 1 for s in x.shape), od)
        sl = tuple(slice(None, None, 2) if out_kind == "strided" else slice(None, None, -2)
                   for _ in x.shape)
        out = big[sl][tuple(slice(0, s) for s in x.shape)]
        y = fn(x, out=out)
        assert y is out
    ref.assert_matches(y, expected, x)
