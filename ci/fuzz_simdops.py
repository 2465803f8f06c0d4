"""Time-boxed property fuzzing of simdops (run by ci/fuzz.sh, not by pytest).

Properties, each run under every available ISA tier (simdops.use_isa) and, where
simdops has them, several thread counts:

- array ops (clip, shrink, hardmax, requant) on drawn dtypes, shapes (0-size
  included), byte strides (negative, zero, not a multiple of the item size),
  misaligned buffers, axes and extreme parameters, with `out` absent, a fresh
  strided view, x itself (in place) or a view overlapping x: the first tier
  must equal tests/reference.py (NaN-ness only for NaNs), every other tier
  must equal the first bit for bit;
- garbage: wrong types and values for every argument of the array API and of
  the dml / acl descriptors: only TypeError / ValueError (dml's
  InvalidArgumentError is one) may come out, never another exception, a
  crash or a hang (a watchdog kills a stuck example and prints its stack).

Usage: python ci/fuzz_simdops.py [--minutes M] [--seed S] [--only NAME]
Prints one line per round and a closing 'fuzz: N passed, N failed' line.
"""
import argparse
import collections
import faulthandler
import itertools
import os
import resource
import signal
import sys
import time
import traceback

import numpy as np
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import reference as ref  # noqa: E402
import simdops  # noqa: E402
from simdops import acl, dml  # noqa: E402

ISAS = simdops.available_isas()
THREADS = (1, 3) if hasattr(simdops, "set_num_threads") else (None,)
DOCUMENTED = (TypeError, ValueError)  # dml.InvalidArgumentError subclasses ValueError
WATCHDOG_SECONDS = 120
OUTCOMES = collections.Counter()  # how often examples got checked results vs errors


def call_name(call):
    return call.__code__.co_names[1] if len(call.__code__.co_names) > 1 else "op"


# ------------------------------------------------------------------- layouts

def element_pool(dtype, rng):
    """Values worth drawing for a dtype: its edge values, small ints (ties), random bits."""
    dtype = np.dtype(dtype)
    edges = ref.edge_values(dtype)
    small = np.arange(-4, 5).astype(dtype) if dtype.kind != "u" else np.arange(0, 9).astype(dtype)
    noise = np.frombuffer(rng.bytes(64 * dtype.itemsize), dtype=dtype)
    return np.concatenate([edges, small, noise])


def addresses_overlap(view):
    """True when two elements of view share a byte (independent of simdops' own check)."""
    if view.size < 2:
        return False
    offsets = np.zeros(1, np.int64)
    for n, s in zip(view.shape, view.strides):
        offsets = (offsets[:, None] + np.arange(n, dtype=np.int64)[None, :] * s).reshape(-1)
    offsets.sort()
    return bool(np.any(np.diff(offsets) < view.itemsize))


@st.composite
def raw_layout(draw, itemsize, max_ndim=4, big=False):
    """(shape, byte strides, misalignment): any strides, the input side of the
    contract. Extents reach past a few SIMD vectors (tails, main loops) while
    the element count stays small enough for the Python references."""
    ndim = draw(st.integers(0, max_ndim))
    side = ({0: 0, 1: 200_000, 2: 700, 3: 80, 4: 25} if big else
            {0: 0, 1: 300, 2: 40, 3: 12, 4: 7})[ndim]
    shape = tuple(draw(st.lists(st.integers(0, side), min_size=ndim, max_size=ndim)))
    strides = []
    for _ in shape:
        kind = draw(st.integers(0, 7))
        if kind == 0:  # any byte stride, even a partial element
            strides.append(draw(st.integers(-3 * itemsize - 1, 3 * itemsize + 1)))
        elif kind <= 3:  # packed along this axis: the SIMD paths
            strides.append(None)
        else:
            strides.append(draw(st.integers(-3, 3)) * itemsize)
    # None: the C-contiguous stride of this axis given the extents inside it
    step = itemsize
    for d in reversed(range(ndim)):
        if strides[d] is None:
            strides[d] = step
        step *= max(1, shape[d])
    misalign = draw(st.integers(0, 2 * itemsize + 3))
    return shape, tuple(strides), misalign


def span(shape, strides, itemsize):
    """(lowest byte offset, bytes needed) of a layout relative to element 0."""
    if any(n == 0 for n in shape):
        return 0, itemsize
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides))
    return lo, hi - lo + itemsize


def view_on(raw, dtype, shape, strides, start):
    """A view of bytearray raw: element 0 at byte `start`."""
    flat = np.frombuffer(raw, dtype=np.uint8)[start:start + np.dtype(dtype).itemsize]
    base = flat.view(dtype) if flat.size else np.empty(0, dtype)
    return np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides)


@st.composite
def packed_layout(draw, shape, itemsize):
    """Byte strides with no two elements at one address: permuted axes, steps of +-1/+-2."""
    ndim = len(shape)
    perm = draw(st.permutations(range(ndim)))
    steps = [draw(st.sampled_from((1, 2, -1, -2))) for _ in range(ndim)]
    strides = [0] * ndim
    acc = itemsize
    for axis in reversed(perm):
        strides[axis] = steps[axis] * acc
        acc *= max(1, shape[axis] * abs(steps[axis]))
    return tuple(strides)


class Case:
    """A drawn input (and out) laid out in one bytearray, rebuildable per tier."""

    def __init__(self, data, dtype, out_dtype, out_mode, values_seed, big=False):
        dtype, out_dtype = np.dtype(dtype), np.dtype(out_dtype)
        shape, strides, mis = data.draw(raw_layout(dtype.itemsize, big=big), "x layout")
        lo, need = span(shape, strides, dtype.itemsize)
        self.x_start = mis - lo
        self.shape, self.x_strides = shape, strides
        self.dtype, self.out_dtype, self.out_mode = dtype, out_dtype, out_mode
        size = self.x_start + need
        if out_mode in ("fresh", "alias"):
            self.out_strides = data.draw(packed_layout(shape, out_dtype.itemsize), "out layout")
            olo, oneed = span(shape, self.out_strides, out_dtype.itemsize)
            omis = data.draw(st.integers(0, size if out_mode == "alias" else 7), "out offset")
            self.out_start = omis - olo
            size = max(size, self.out_start + oneed)
        self.size = size + 8
        rng = np.random.default_rng(values_seed)
        pool = element_pool(dtype, rng)
        raw = bytearray(rng.bytes(self.size))
        x = view_on(raw, dtype, shape, strides, self.x_start)
        if x.size:
            x[...] = pool[rng.integers(0, pool.size, size=x.shape)]  # last write wins on overlaps
        self.snapshot = bytes(raw)
        # without an out into x's memory, x may as well be read-only (bytes)
        self.readonly_x = out_mode in ("none", "fresh") and data.draw(st.booleans(), "read-only x")

    def build(self):
        """Fresh (x, out) from the snapshot; out None, a view, or x itself."""
        raw = self.snapshot if self.readonly_x else bytearray(self.snapshot)
        x = view_on(raw, self.dtype, self.shape, self.x_strides, self.x_start)
        if self.out_mode == "none":
            return x, None
        if self.out_mode == "inplace":
            return x, x
        if self.out_mode == "alias":
            return x, view_on(raw, self.out_dtype, self.shape, self.out_strides, self.out_start)
        fresh = bytearray(self.size)
        return x, view_on(fresh, self.out_dtype, self.shape, self.out_strides, self.out_start)


def run_every_tier(case, call, expected_fn, nan_bits_vs_ref=False):
    """call(x, out) under every tier and thread count: reference on the first
    (unless expected_fn is None), bitwise equality with the first on the rest. A documented error must be
    raised by every tier alike (or by none)."""
    first = None
    first_error = None
    for isa, threads in itertools.product(ISAS, THREADS):
        x, out = case.build()
        x_before = np.array(x, copy=True)
        if threads is not None:
            previous_threads = simdops.get_num_threads()
            simdops.set_num_threads(threads)
        try:
            with simdops.use_isa(isa):
                got = call(x, out)
            error = None
        except DOCUMENTED as e:
            error = e
        finally:
            if threads is not None:
                simdops.set_num_threads(previous_threads)
        where = f"isa={isa} threads={threads} shape={case.shape} strides={case.x_strides} " \
                f"x_start={case.x_start} out={case.out_mode}"
        if first is None and first_error is None:
            OUTCOMES[f"{call_name(call)}: " + ("documented error" if error else "result checked")] += 1
            if error is not None:
                first_error = error
                continue
            if out is not None:
                assert got is out, f"{where}: the call did not return out"
            if expected_fn is not None:
                expected = expected_fn(x_before)
                msg = ref.mismatch_report(got, expected, x_before, nan_bits=nan_bits_vs_ref)
                assert msg is None, f"{where} vs reference: {msg}"
            first = np.array(got, copy=True)
            continue
        if first_error is not None:
            assert error is not None and str(error) == str(first_error), \
                f"{where}: tiers disagree on the error: {first_error!r} vs {error!r}"
            continue
        assert error is None, f"{where}: raised {error!r} where the first tier succeeded"
        msg = ref.mismatch_report(got, first)
        assert msg is None, f"{where} vs tier {ISAS[0]}: {msg}"
    return first_error


def expect_layout_error(case, error):
    """A documented error on valid parameters is only right for an out that
    has two elements at one address."""
    x, out = case.build()
    if out is not None and addresses_overlap(out):
        assert isinstance(error, ValueError), error
        return
    raise AssertionError(f"valid call raised {error!r} (shape={case.shape}, "
                         f"strides={case.x_strides}, out={case.out_mode})")


OUT_MODES = st.sampled_from(("none", "fresh", "inplace", "alias"))
SEEDS = st.integers(0, 2 ** 32 - 1)


def float_param(dtype):
    dtype = np.dtype(dtype)
    pool = [v for v in ref.float_params(dtype)]
    extra = st.floats(allow_nan=False) if dtype.kind == "f" else st.one_of(
        st.integers(-(2 ** 70), 2 ** 70), st.floats(allow_nan=False))
    return st.one_of(st.sampled_from(pool), extra)


# ---------------------------------------------------------------- array ops

@given(data=st.data(), dtype=st.sampled_from(ref.CLIP_DTYPES), out_mode=OUT_MODES, vs=SEEDS)
def prop_clip(data, dtype, out_mode, vs):
    case = Case(data, dtype, dtype, out_mode, vs)
    lo = data.draw(float_param(dtype), "min")
    hi = data.draw(float_param(dtype), "max")
    kw = {}
    if np.dtype(dtype).itemsize < 8 or np.dtype(dtype).kind == "f":
        if data.draw(st.booleans(), "scale_bias"):
            finite = np.dtype(dtype).kind != "f"
            f32 = st.floats(allow_nan=False, allow_infinity=not finite, width=32)
            kw = dict(scale=data.draw(f32, "scale"), bias=data.draw(f32, "bias"))
    error = run_every_tier(
        case, lambda x, out: simdops.clip(x, lo, hi, out=out, **kw),
        lambda x: ref.clip(x, lo, hi, kw.get("scale"), kw.get("bias")))
    if error is not None:
        expect_layout_error(case, error)


@given(data=st.data(), dtype=st.sampled_from(ref.SHRINK_DTYPES), out_mode=OUT_MODES, vs=SEEDS)
def prop_shrink(data, dtype, out_mode, vs):
    case = Case(data, dtype, dtype, out_mode, vs)
    bias = data.draw(float_param(dtype), "bias")
    threshold = abs(data.draw(float_param(dtype), "threshold"))
    error = run_every_tier(case, lambda x, out: simdops.shrink(x, bias, threshold, out=out),
                           lambda x: ref.shrink(x, bias, threshold))
    if error is not None:
        expect_layout_error(case, error)


@given(data=st.data(), dtype=st.sampled_from(ref.HARDMAX_DTYPES),
       out_mode=st.sampled_from(("none", "fresh")), vs=SEEDS)
def prop_hardmax(data, dtype, out_mode, vs):
    case = Case(data, dtype, dtype, out_mode, vs)
    ndim = len(case.shape)
    if ndim == 0:
        return
    axes = data.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True),
                     "axes")
    axes = [a - ndim if data.draw(st.booleans()) else a for a in axes]
    axis = axes[0] if len(axes) == 1 and data.draw(st.booleans()) else tuple(axes)
    error = run_every_tier(case, lambda x, out: simdops.hardmax(x, axis=axis, out=out),
                           lambda x: ref.hardmax(x, axis), nan_bits_vs_ref=True)
    if error is not None:
        expect_layout_error(case, error)


INT32 = st.integers(ref.INT32_MIN, ref.INT32_MAX)


@given(data=st.data(), out_dtype=st.sampled_from(("uint8", "int8", "int16")),
       out_mode=st.sampled_from(("none", "fresh", "alias")), vs=SEEDS)
def prop_requant(data, out_dtype, out_mode, vs):
    case = Case(data, np.int32, out_dtype, out_mode, vs)
    if not case.shape:
        return
    channels = case.shape[-1]
    tlo, thi = ref.REQUANT_OUT[out_dtype]
    per_channel = data.draw(st.booleans(), "per_channel")
    if per_channel:
        mult = np.array(data.draw(st.lists(INT32, min_size=channels, max_size=channels)), np.int32)
        shift = np.array(data.draw(st.lists(st.integers(-31, 31), min_size=channels,
                                            max_size=channels)), np.int32)
        mult = mult[::-1].copy()[::-1] if data.draw(st.booleans()) else mult  # strided-free copy
    else:
        mult, shift = data.draw(INT32, "multiplier"), data.draw(st.integers(-31, 31), "shift")
    offset = 0 if out_dtype == "int16" else data.draw(INT32, "offset")
    bias = None
    if data.draw(st.booleans(), "has_bias"):
        bias = np.array(data.draw(st.lists(INT32, min_size=channels, max_size=channels)), np.int32)
    bounds = data.draw(st.sampled_from(("none", "both", "min", "max")), "bounds")
    lo = data.draw(st.integers(tlo, thi), "min")
    hi = data.draw(st.integers(lo, thi), "max")
    kw = dict(min=lo if bounds in ("both", "min") else None,
              max=hi if bounds in ("both", "max") else None)
    error = run_every_tier(
        case, lambda x, out: simdops.quantize_down_int32(
            x, mult, shift, offset, bias=bias, out_dtype=out_dtype, out=out, **kw),
        lambda x: ref.requant(x, mult, shift, offset, bias, kw["min"], kw["max"], out_dtype),
        nan_bits_vs_ref=True)
    if error is not None:
        expect_layout_error(case, error)


@given(data=st.data(), op=st.sampled_from(("clip", "shrink", "hardmax", "requant")),
       out_mode=st.sampled_from(("none", "fresh", "inplace")), vs=SEEDS)
def prop_big_tiers_agree(data, op, out_mode, vs):
    """Arrays past the intra-op threading grain and many SIMD blocks: too big
    for the Python references, so every tier and thread count must agree with
    the scalar tier on one thread, bit for bit."""
    dtypes = {"clip": ref.CLIP_DTYPES, "shrink": ref.SHRINK_DTYPES,
              "hardmax": ref.HARDMAX_DTYPES, "requant": (np.int32,)}[op]
    dtype = data.draw(st.sampled_from(dtypes), "dtype")
    out_dtype = np.uint8 if op == "requant" else dtype
    if op != "clip" and op != "shrink":  # hardmax/requant: no in-place (hardmax) or other dtype
        out_mode = "none" if out_mode == "inplace" else out_mode
    case = Case(data, dtype, out_dtype, out_mode, vs, big=True)
    if op == "clip":
        lo, hi = data.draw(float_param(dtype), "min"), data.draw(float_param(dtype), "max")
        call = lambda x, out: simdops.clip(x, lo, hi, out=out)  # noqa: E731
    elif op == "shrink":
        b, t = data.draw(float_param(dtype), "bias"), abs(data.draw(float_param(dtype), "t"))
        call = lambda x, out: simdops.shrink(x, b, t, out=out)  # noqa: E731
    elif op == "hardmax":
        if not case.shape:
            return
        axis = data.draw(st.integers(-len(case.shape), len(case.shape) - 1), "axis")
        call = lambda x, out: simdops.hardmax(x, axis=axis, out=out)  # noqa: E731
    else:
        m, sh = data.draw(INT32, "multiplier"), data.draw(st.integers(-31, 31), "shift")
        call = lambda x, out: simdops.quantize_down_int32(x, m, sh, 3, out=out)  # noqa: E731
    error = run_every_tier(case, call, None)
    if error is not None:
        expect_layout_error(case, error)


# ------------------------------------------------------------------ garbage

def garbage():
    """Values of every wrong kind a caller might pass."""
    return st.one_of(
        st.none(), st.booleans(), st.integers(-(2 ** 80), 2 ** 80), st.floats(),
        st.complex_numbers(), st.text(max_size=5), st.binary(max_size=9),
        st.lists(st.one_of(st.integers(-(2 ** 40), 2 ** 40), st.floats(), st.none()),
                 max_size=5).map(lambda v: tuple(v) if len(v) % 2 else v),
        st.sampled_from([object(), {}, {1: 2}, set(), itertools.count(), iter([1, 2, 3]),
                         (i for i in range(10 ** 9)), np.float32("nan"), np.int64(-1), np.bool_(True),
                         np.zeros(3, np.complex64), np.zeros(3, bool), np.zeros(3, ">f4"),
                         np.zeros(3, object), np.zeros((2, 2), np.int32), slice(1), Ellipsis,
                         float("inf"), -float("inf"), 2 ** 64, -(2 ** 63) - 1, 2 ** 2000]))


def maybe(strategy):
    """Mostly the given strategy, a quarter of the time garbage (one_of would
    weigh each of garbage's many branches like the one valid strategy)."""
    return st.integers(0, 3).flatmap(lambda i: strategy if i else garbage())


class Hang(Exception):
    """A call ran past CALL_SECONDS (e.g. reading an endless iterator)."""


CALL_SECONDS = 2.0


def _on_alarm(signum, frame):
    raise Hang(f"call did not return within {CALL_SECONDS} s")


def only_documented(fn, *args, **kwargs):
    """fn(...) or None when it raised a documented error; anything else
    (another exception, or running past CALL_SECONDS) propagates."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        result = fn(*args, **kwargs)
        OUTCOMES["garbage: returned"] += 1
        return result
    except DOCUMENTED:
        OUTCOMES["garbage: documented error"] += 1
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


ARRAYS = st.sampled_from([np.zeros((2, 3), t) for t in
                          ("f4", "f2", "f8", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8")]
                         + [np.zeros((0,), "f4"), np.zeros((), "f4"),
                            np.broadcast_to(np.float32(1), (3, 3))])


@given(x=maybe(ARRAYS), a=garbage(), b=maybe(st.floats()), c=maybe(st.floats()),
       out=st.one_of(st.none(), garbage(), ARRAYS), which=st.integers(0, 5))
def prop_garbage_array_api(x, a, b, c, out, which):
    if isinstance(out, np.ndarray) and not out.flags.writeable:
        pass  # read-only out is itself a documented ValueError
    calls = [
        lambda: simdops.clip(x, a, b, out=out),
        lambda: simdops.clip(x, b, c, scale=a, bias=b, out=out),
        lambda: simdops.shrink(x, a, b, out=out),
        lambda: simdops.hardmax(x, axis=a, out=out),
        lambda: simdops.quantize_down_int32(x, a, b, c, bias=a, min=b, max=c, out_dtype=a,
                                            out=out),
        lambda: simdops.quantize_multiplier(a),
    ]
    only_documented(calls[which])


DATA_TYPES = st.one_of(st.sampled_from(list(dml.TensorDataType)), st.integers(-3, 20))
WILD_SIZES = st.lists(st.integers(-2, 2 ** 33), max_size=9)
WILD_STRIDES = st.lists(st.integers(-3, 2 ** 33), max_size=9)


def mostly(valid, wild):
    """The valid strategy 80% of the time, otherwise a wild or garbage value."""
    return st.integers(0, 9).flatmap(
        lambda i: valid if i < 8 else wild if i == 8 else garbage())


@st.composite
def tensor_desc(draw):
    """A valid-looking BufferTensorDesc with at most one field corrupted (or
    None when the constructor rejected it, as documented)."""
    fields = ("data_type", "sizes", "strides", "total_tensor_size_in_bytes",
              "guaranteed_base_offset_alignment", "flags")
    corrupt = draw(st.sampled_from((None,) * 6 + fields))

    def field(name, valid, wild):
        return draw(st.one_of(wild, garbage()) if name == corrupt else valid)

    data_type = field("data_type", st.sampled_from([
        dml.TensorDataType.FLOAT32, dml.TensorDataType.FLOAT16, dml.TensorDataType.INT8,
        dml.TensorDataType.UINT32, dml.TensorDataType.INT64]), DATA_TYPES)
    sizes = field("sizes", st.lists(st.integers(1, 4), min_size=1, max_size=5), WILD_SIZES)
    ndim = len(sizes) if isinstance(sizes, list) else 1
    strides = field("strides", st.one_of(st.none(), st.lists(
        st.integers(0, 40), min_size=ndim, max_size=ndim)), WILD_STRIDES)
    kw = dict(data_type=data_type, sizes=sizes, strides=strides,
              total_tensor_size_in_bytes=field("total_tensor_size_in_bytes", st.none(),
                                               st.integers(-8, 4096)),
              guaranteed_base_offset_alignment=field("guaranteed_base_offset_alignment",
                                                     st.sampled_from((0, 4, 16)),
                                                     st.integers(-4, 64)),
              flags=field("flags", st.just(0), st.integers(-2, 4)))
    return only_documented(dml.BufferTensorDesc, **kw)


@given(data=st.data(), op=st.integers(0, 4),
       level=mostly(st.just(dml.NEWEST_FEATURE_LEVEL), st.sampled_from(list(dml.FeatureLevel))))
def prop_garbage_dml(data, op, level):
    tin = data.draw(mostly(tensor_desc(), st.none()), "input_tensor")
    tout = data.draw(st.integers(0, 3).flatmap(
        lambda i: st.just(tin) if i < 2 else tensor_desc() if i == 2 else garbage()),
        "output_tensor")
    number = mostly(st.floats(-10, 10), st.floats())
    sb = data.draw(maybe(st.one_of(st.none(), st.builds(
        lambda s, b: only_documented(dml.ScaleBias, s, b), number, number))), "scale_bias")
    makers = [
        lambda: dml.ElementWiseClipOperatorDesc(tin, tout, data.draw(number), data.draw(number),
                                                sb),
        lambda: dml.ElementWiseClip1OperatorDesc(
            tin, tout, data.draw(mostly(st.just(getattr(tin, "data_type", 1)), DATA_TYPES)),
            data.draw(number), data.draw(number), sb),
        lambda: dml.ActivationShrinkOperatorDesc(tin, tout, data.draw(number),
                                                 abs(data.draw(number))),
        lambda: dml.ActivationHardmaxOperatorDesc(tin, tout),
        lambda: dml.ActivationHardmax1OperatorDesc(tin, tout, data.draw(mostly(
            st.lists(st.integers(0, 4), min_size=1, max_size=3, unique=True),
            st.lists(st.integers(-3, 9), max_size=9)))),
    ]
    desc = only_documented(makers[op])
    if desc is None:
        return
    compiled = only_documented(dml.compile_operator, desc, level)
    if compiled is None:
        return
    need = max(compiled.desc.input_tensor.total_tensor_size_in_bytes,
               compiled.desc.output_tensor.total_tensor_size_in_bytes)
    if need > 1 << 20:  # valid but huge (large strides): not worth the memory here
        return
    nbytes = data.draw(st.integers(0, 3).flatmap(
        lambda i: st.integers(need, need + 16) if i else st.integers(0, need + 64)),
        "buffer bytes")
    offset = data.draw(st.integers(0, 7), "buffer offset")
    raw = bytearray(os.urandom(nbytes + offset))
    inputs = [memoryview(raw)[offset:], raw, np.frombuffer(raw, np.uint8)[offset:]]
    inp = data.draw(mostly(st.sampled_from(range(len(inputs))), garbage()), "input")
    inp = inputs[inp] if isinstance(inp, int) and 0 <= inp < len(inputs) else inp
    outputs = [lambda: memoryview(raw)[offset:], lambda: bytes(raw), lambda: bytearray(nbytes),
               lambda: np.zeros(nbytes // 8 + 1), lambda: np.zeros(nbytes + 1, np.uint8)[1:]]
    out = data.draw(mostly(st.sampled_from(range(len(outputs))), garbage()), "output")
    out = outputs[out]() if isinstance(out, int) and 0 <= out < len(outputs) else out
    OUTCOMES["dml: compiled"] += 1
    if only_documented(lambda: compiled.execute(inp, out) or True):
        OUTCOMES["dml: executed"] += 1



ACL_TYPES = st.sampled_from(list(acl.DataType) + ["S32", "QASYMM8", "BOGUS"])


@given(data=st.data(), which=st.integers(0, 2))
def prop_garbage_acl(data, which):
    def info():
        return st.one_of(garbage(), st.builds(
            lambda s, t: only_documented(acl.TensorInfo, s, t),
            maybe(st.lists(st.integers(-1, 4), max_size=4)), maybe(ACL_TYPES)),
            st.sampled_from([np.zeros((2, 3), np.int32), np.zeros(3, np.int32),
                             np.zeros((2, 3), np.uint8), np.zeros((2, 3), np.int8)]))
    tin, bias, tout = data.draw(info()), data.draw(st.one_of(st.none(), info())), data.draw(info())
    ints = maybe(st.integers(-(2 ** 33), 2 ** 33))
    if which == 0:
        status = only_documented(acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint.validate,
                                 tin, bias, tout, data.draw(ints), data.draw(ints))
        assert status is None or isinstance(status, acl.Status)
    elif which == 1:
        f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint()
        if only_documented(f.configure, tin, bias, tout, data.draw(ints), data.draw(ints),
                           data.draw(ints), data.draw(ints), data.draw(ints)) is None and \
                getattr(f, "_configured", True):
            try:
                f.run()
            except RuntimeError as e:  # documented: run() before a successful configure()
                assert "configure" in str(e)
            except DOCUMENTED:
                pass
    else:
        kw = {}
        vector = st.lists(st.integers(-(2 ** 32), 2 ** 32), max_size=4)
        fields = {"type": st.sampled_from(list(acl.GEMMLowpOutputStageType)),
                  "gemmlowp_offset": ints, "gemmlowp_multiplier": ints, "gemmlowp_shift": ints,
                  "gemmlowp_min_bound": ints, "gemmlowp_max_bound": ints,
                  "gemmlowp_multipliers": vector, "gemmlowp_shifts": vector,
                  "output_data_type": st.one_of(st.none(), ACL_TYPES),
                  "is_quantized_per_channel": st.booleans()}
        for field, valid in fields.items():
            if data.draw(st.booleans()):
                kw[field] = data.draw(maybe(valid), field)
        stage_info = only_documented(acl.GEMMLowpOutputStageInfo, **kw)
        if stage_info is not None:
            f = acl.GEMMLowpOutputStage()
            if only_documented(f.configure, tin, bias, tout, stage_info) is not None:
                only_documented(f.run)


def prop_endless_axes():
    """hardmax and dml axes given as endless generators must fail, not hang."""
    x = np.zeros((2, 3), np.float32)
    only_documented(simdops.hardmax, x, axis=itertools.count())
    t = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (2, 3))
    only_documented(dml.ActivationHardmax1OperatorDesc, t, t, itertools.count())


PROPERTIES = {
    "clip": prop_clip, "shrink": prop_shrink, "hardmax": prop_hardmax, "requant": prop_requant,
    "big_tiers_agree": prop_big_tiers_agree,
    "garbage_array_api": prop_garbage_array_api, "garbage_dml": prop_garbage_dml,
    "garbage_acl": prop_garbage_acl,
}
FIXED = {"endless_axes": prop_endless_axes}


# -------------------------------------------------------------------- driver

def run_once(fn, round_seed):
    seed(round_seed)(fn)()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=None, help="first round's seed (reproduce)")
    parser.add_argument("--only", action="append", choices=sorted(PROPERTIES) + sorted(FIXED))
    parser.add_argument("--examples", type=int, default=40, help="examples per property per round")
    parser.add_argument("--memory-gb", type=float, default=6.0,
                        help="address-space limit: a runaway allocation (an endless iterator "
                             "read into a tuple) becomes a MemoryError, a failure, not an OOM; "
                             "0: no limit")
    args = parser.parse_args(argv)
    if args.memory_gb > 0:  # 0: no limit (AddressSanitizer reserves terabytes of shadow)
        limit = int(args.memory_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    faulthandler.enable()
    configured = settings(max_examples=args.examples, deadline=None, database=None,
                          phases=(Phase.generate, Phase.target, Phase.shrink),
                          suppress_health_check=list(HealthCheck), print_blob=True)
    properties = {name: configured(fn) for name, fn in PROPERTIES.items()}
    names = args.only or list(PROPERTIES) + list(FIXED)
    deadline = time.monotonic() + args.minutes * 60
    base_seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print(f"fuzz: ISAs {', '.join(ISAS)}; threads {THREADS}; {args.minutes} min; "
          f"seed {base_seed} (rerun with --seed {base_seed})", flush=True)
    passed, failed, examples = {}, {}, {}
    round_no = 0
    while True:
        for name in names:
            if name in failed or (round_no and time.monotonic() >= deadline):
                continue
            round_seed = base_seed + round_no
            faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True)
            try:
                if name in FIXED:
                    FIXED[name]()
                else:
                    run_once(properties[name], round_seed)
            except Exception:  # a property failed: hypothesis printed the shrunk example
                failed[name] = (round_seed, traceback.format_exc())
                print(f"fuzz: FAIL {name} (round seed {round_seed}; rerun with "
                      f"--only {name} --seed {round_seed})\n{failed[name][1]}", flush=True)
            else:
                passed[name] = passed.get(name, 0) + 1
                examples[name] = examples.get(name, 0) + (1 if name in FIXED else args.examples)
            finally:
                faulthandler.cancel_dump_traceback_later()
        round_no += 1
        print(f"fuzz: round {round_no} done; " + ", ".join(
            f"{n}={examples.get(n, 0)}" for n in names if n not in failed), flush=True)
        if time.monotonic() >= deadline or len(failed) == len(names):
            break
    print("fuzz: outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(OUTCOMES.items())))
    ok = [n for n in names if n not in failed]
    print(f"fuzz: properties passing: {', '.join(ok) or '-'}; failing: {', '.join(failed) or '-'}")
    print(f"fuzz: {len(ok)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
