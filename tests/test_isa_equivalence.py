"""Every SIMD tier gives the scalar tier's bits (NaN payloads included), for every op and dtype.

Passes trivially while a tier inherits the scalar kernels; keeps passing only if real SIMD
kernels match scalar exactly: random bit patterns, every length 0..130, input and output
misaligned by 0..63 bytes, in-place, edge values at every lane position.
"""
import numpy as np
import pytest

import simdops
from conftest import SIMD_ISAS, random_bits, sprinkle
from reference import (CLIP_DTYPES, FLOAT_DTYPES, HARDMAX_DTYPES, INT32_MAX, INT32_MIN,
                       SHRINK_DTYPES, edge_values, int_range, is_float)

MAX_LEN = 130
OFFSET_LENGTHS = (1, 5, 16, 33, 67, 130)


def _f(dtype):
    return is_float(dtype)


class Case:
    """One op x dtype: shape(n), parameter sets, call(x, p, out), moderate data."""

    def __init__(self, name, xdtype, odtype, shape, params, call):
        self.name, self.xdtype, self.odtype = name, np.dtype(xdtype), np.dtype(odtype)
        self.shape, self.params, self.call = shape, params, call

    def __repr__(self):
        return self.name


def _clip_params(dtype, n, rng):
    if _f(dtype):
        fi = np.finfo(dtype)
        return [(-1.5, 2.5), (0.0, np.inf), (-np.inf, -0.0), (5.0, -5.0), (-0.0, 0.0),
                (float(fi.smallest_subnormal), float(fi.max)), (-float(fi.tiny), 1e-3)]
    lo, hi = int_range(dtype)
    return [(lo, hi), (-3, 77), (9, 2), (0, 0), (lo + 1, hi - 1), (hi // 3, hi // 2)]


def _clip_sb_params(dtype, n, rng):
    ps = [(2.0, 1.0, -10.0, 10.0), (-0.5, 3.25, -100.0, 50.0), (0.0, -1.0, -5.0, 5.0),
          (1e-3, 1e4, 0.0, 1e9), (1.0, 0.0, -np.inf, np.inf), (3.5, -0.75, 8.0, -8.0)]
    if _f(dtype):
        ps += [(np.inf, 0.0, -1.0, 1.0), (1e30, -1e30, -np.inf, np.inf), (-1.0, 0.0, -2.0, 2.0)]
    else:
        lo, hi = int_range(dtype)
        ps = [(s, b, max(mn, lo) if np.isfinite(mn) else lo, min(mx, hi) if np.isfinite(mx) else hi)
              for s, b, mn, mx in ps]
        ps += [(1.0, 0.5, lo, hi), (-1.0, -0.5, lo, hi), (0.37, 1e6, lo, hi)]
    return ps


def _shrink_params(dtype, n, rng):
    if _f(dtype):
        return [(0.5, 0.5), (1.0, 0.0), (-2.0, 3.0), (np.inf, 0.0), (0.0, 0.0), (0.25, 1e-3)]
    lo, hi = int_range(dtype)
    return [(1, 2), (-3, 0), (50, 7.5), (hi, 0), (lo, 1), (0, 0.5), (7, hi // 2)]


def _requant_pt_params(out_name):
    off = (lambda v: 0) if out_name == "int16" else (lambda v: v)
    return lambda dtype, n, rng: [
        (254601600, 1, off(2), 0, 0), (254601601, 1, off(2), 1, 172) if out_name == "uint8"
        else (254601601, 1, off(2), -100, 100),
        (INT32_MIN, 0, off(0), None, None), (INT32_MAX, 31, off(-5), None, None),
        (1 << 30, -1, off(INT32_MAX), None, None), (1518500250, -31, off(INT32_MIN), None, None),
        (-(1 << 30) - 7, 5, off(128), None, None), (12345, 30, off(0), 7, 7),
    ]


def _requant_pc_params(out_name):
    def params(dtype, n, rng):
        ms = rng.integers(INT32_MIN, INT32_MAX, n, endpoint=True, dtype=np.int32)
        ms[:: 5] = INT32_MIN
        sh = rng.integers(-31, 31, n, endpoint=True, dtype=np.int32)
        sh[1:: 7] = 0
        bias = rng.integers(INT32_MIN, INT32_MAX, n, endpoint=True, dtype=np.int32)
        small_bias = rng.integers(-6000, 6000, n, dtype=np.int32)
        off = 0 if out_name == "int16" else 3
        return [(ms, sh, off, None, None, None), (ms, sh, off, bias, None, None),
                (np.full(n, 254601600, np.int32), np.full(n, 1, np.int32), off, small_bias,
                 -10 if out_name != "uint8" else 0, 100)]
    return params


def _requant_call(out_name, per_channel):
    def call(x, p, out=None):
        if per_channel:
            m, s, off, bias, lo, hi = p
        else:
            m, s, off, lo, hi = p
            bias = None
        return simdops.quantize_down_int32(x, m, s, off, bias=bias, min=lo, max=hi,
                                           out_dtype=out_name, out=out)
    return call


def _build_cases():
    cases = []
    for d in CLIP_DTYPES:
        n = np.dtype(d).name
        cases.append(Case(f"clip-{n}", d, d, lambda k: (k,), _clip_params,
                          lambda x, p, out=None: simdops.clip(x, p[0], p[1], out=out)))
    for d in CLIP_DTYPES:
        if np.dtype(d).itemsize == 8 and not _f(d):
            continue
        n = np.dtype(d).name
        cases.append(Case(f"clip_scale_bias-{n}", d, d, lambda k: (k,), _clip_sb_params,
                          lambda x, p, out=None: simdops.clip(x, p[2], p[3], scale=p[0],
                                                              bias=p[1], out=out)))
    for d in SHRINK_DTYPES:
        n = np.dtype(d).name
        cases.append(Case(f"shrink-{n}", d, d, lambda k: (k,), _shrink_params,
                          lambda x, p, out=None: simdops.shrink(x, p[0], p[1], out=out)))
    for d in HARDMAX_DTYPES:
        n = np.dtype(d).name
        cases.append(Case(f"hardmax_last-{n}", d, d, lambda k: (2, k), lambda *a: [None],
                          lambda x, p, out=None: simdops.hardmax(x, -1, out=out)))
        cases.append(Case(f"hardmax_axis0-{n}", d, d, lambda k: (3, k), lambda *a: [None],
                          lambda x, p, out=None: simdops.hardmax(x, 0, out=out)))
    for o in ("uint8", "int8", "int16"):
        cases.append(Case(f"requant-{o}", np.int32, o, lambda k: (k,), _requant_pt_params(o),
                          _requant_call(o, False)))
        cases.append(Case(f"requant_pc-{o}", np.int32, o, lambda k: (2, k), _requant_pc_params(o),
                          _requant_call(o, True)))
    return cases


CASES = _build_cases()


def _moderate(rng, case, size):
    """Values in the interesting range of the op's parameters (random bits are mostly huge)."""
    d = case.xdtype
    if case.name.startswith("hardmax"):
        return rng.integers(-3, 4, size).astype(d)  # many ties
    if _f(d):
        v = (rng.standard_normal(size) * 4).astype(d)
        v[rng.random(size) < 0.1] = -0.0
        return v
    if d == np.int32 and case.name.startswith("requant"):
        return rng.integers(-6000, 6000, size, endpoint=True, dtype=np.int32)
    lo, hi = int_range(d)
    return rng.integers(max(lo, -200), min(hi, 200), size, endpoint=True).astype(d)


def _data(rng, case, n, variant):
    shape = case.shape(n)
    size = int(np.prod(shape))
    if variant == 0:
        x = sprinkle(rng, random_bits(rng, size, case.xdtype), edge_values(case.xdtype))
    else:
        x = sprinkle(rng, _moderate(rng, case, size), edge_values(case.xdtype)[: max(1, size // 8)])
    return x.reshape(shape)


def _at_offset(arr, k):
    """A copy of arr whose data starts k bytes past a fresh buffer's start."""
    nbytes = arr.size * arr.dtype.itemsize
    buf = np.zeros(nbytes + k + 64, np.uint8)
    v = buf[k:k + nbytes].view(arr.dtype).reshape(arr.shape)
    v[...] = arr
    return v


def _empty_at_offset(shape, dtype, k):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    buf = np.full(n * dtype.itemsize + k + 64, 0xA5, np.uint8)  # garbage, not zeros
    return buf[k:k + n * dtype.itemsize].view(dtype).reshape(shape)


def _run(isa, case, x, p, out=None):
    with simdops.use_isa(isa):
        return case.call(x, p, out=out)


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and \
        np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def _explain(isa, case, x, p, got, want, what):
    g = np.ascontiguousarray(got).reshape(-1)
    w = np.ascontiguousarray(want).reshape(-1)
    if g.size != w.size or g.dtype != w.dtype:
        return f"{isa} {case.name} {what}: shape/dtype {got.shape}/{got.dtype} vs {want.shape}/{want.dtype}"
    ug, uw = g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}")
    bad = np.flatnonzero(ug != uw)
    i = int(bad[0])
    xf = np.ascontiguousarray(x).reshape(-1)
    xi = f"x[{i}]={xf[i]!r} bits {int(xf[i:i + 1].view(f'u{xf.itemsize}')[0]):#x}; " if i < xf.size else ""
    ptxt = p if not isinstance(p, tuple) or not any(isinstance(v, np.ndarray) for v in p) else \
        tuple(v[: 8] if isinstance(v, np.ndarray) else v for v in p)
    return (f"{isa} != scalar for {case.name}, {what}, params {ptxt}: {len(bad)} elements differ; "
            f"first at flat {i}: {xi}{isa} bits {int(ug[i]):#x}, scalar bits {int(uw[i]):#x}")


pairs = pytest.mark.parametrize("isa,case", [(i, c) for i in SIMD_ISAS for c in CASES],
                                ids=lambda v: v if isinstance(v, str) else repr(v))


@pairs
def test_every_length(isa, case, rng):
    same_dtype = case.xdtype == case.odtype
    for n in range(MAX_LEN + 1):
        params = case.params(case.xdtype, n, rng)
        for variant in (0, 1):
            x = _data(rng, case, n, variant)
            for p in params:
                want = _run("scalar", case, x, p)
                got = _run(isa, case, x, p)
                assert _same(got, want), _explain(isa, case, x, p, got, want, f"n={n}")
                if same_dtype:
                    xc = x.copy()
                    _run(isa, case, xc, p, out=xc)
                    assert _same(xc, want), _explain(isa, case, x, p, xc, want, f"in-place n={n}")


@pairs
def test_misaligned_input_and_output(isa, case, rng):
    same_dtype = case.xdtype == case.odtype
    for n in OFFSET_LENGTHS:
        params = case.params(case.xdtype, n, rng)
        for k in range(64):
            x = _data(rng, case, n, k & 1)
            p = params[k % len(params)]
            want = _run("scalar", case, x, p)
            xk = _at_offset(x, k)
            if case.name.startswith("requant_pc"):  # per-channel vectors misaligned too
                p = tuple(_at_offset(v, (k * 5) % 64) if isinstance(v, np.ndarray) else v
                          for v in p)
            out = _empty_at_offset(want.shape, case.odtype, (k * 29 + 13) % 64)
            got = _run(isa, case, xk, p, out=out)
            assert got is out
            assert _same(out, want), _explain(isa, case, x, p, out, want,
                                              f"n={n}, x at +{k}, out at +{(k * 29 + 13) % 64}")
            assert _same(xk, x), f"{isa} {case.name}: input modified"
            got = _run(isa, case, xk, p)
            assert _same(got, want), _explain(isa, case, x, p, got, want, f"n={n}, x at +{k}")
            if same_dtype:
                _run(isa, case, xk, p, out=xk)
                assert _same(xk, want), _explain(isa, case, x, p, xk, want,
                                                 f"in-place n={n} at +{k}")


@pairs
def test_edge_values_at_every_lane(isa, case, rng):
    e = edge_values(case.xdtype)
    base = np.concatenate([e, e[::-1], e])
    shape1 = case.shape(1)
    for r in range(0, len(base), 1 if len(base) < 80 else 2):
        x = np.roll(base, r)
        if len(shape1) == 2:
            x = np.stack([x, np.roll(x, 3), np.roll(x, 7)][: shape1[0]])
        for p in case.params(case.xdtype, x.shape[-1], rng):
            want = _run("scalar", case, x, p)
            got = _run(isa, case, x, p)
            assert _same(got, want), _explain(isa, case, x, p, got, want, f"edge rotation {r}")


@pytest.mark.parametrize("isa", SIMD_ISAS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_nan_payloads_pass_through_every_tier(isa, dtype):
    nans = edge_values(dtype)[-4:]
    x = np.resize(nans, 67)
    for fn in (lambda v: simdops.clip(v, -1.0, 1.0), lambda v: simdops.clip(v, 3.0, -3.0),
               lambda v: simdops.shrink(v, 1.0, 0.5)):
        with simdops.use_isa(isa):
            y = fn(x)
        assert y.tobytes() == x.tobytes()


@pytest.mark.parametrize("isa", SIMD_ISAS)
def test_hardmax_wide_and_tall(isa, rng):
    """Reduced extents beyond MAX_LEN and many columns for the column kernel."""
    for d in HARDMAX_DTYPES:
        for shape, axis in [((1, 1000), -1), ((1000, 3), 0), ((257, 129), 0), ((4, 513), -1),
                            ((2, 3, 70), (0, 1)), ((5, 300), 0)]:
            for variant in (0, 1):
                x = (random_bits(rng, int(np.prod(shape)), d) if variant == 0 else
                     rng.integers(-3, 4, int(np.prod(shape))).astype(d)).reshape(shape)
                with simdops.use_isa("scalar"):
                    want = simdops.hardmax(x, axis)
                with simdops.use_isa(isa):
                    got = simdops.hardmax(x, axis)
                assert got.tobytes() == want.tobytes(), (isa, np.dtype(d).name, shape, axis)
