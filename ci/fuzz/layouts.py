"""Drawn memory layouts (any byte strides, misalignment, out modes) and the
check that runs one call under every tier and thread count."""
import itertools

import numpy as np
from hypothesis import strategies as st

from fuzz.common import DOCUMENTED, ISAS, OUTCOMES, THREADS, call_name
import reference as ref
import simdops


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
