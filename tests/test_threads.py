"""Intra-op threads (docs/semantics.md): results are bit-identical for any thread count.

Every op and dtype family is run with 1 thread and with 2-3 threads at sizes
around the grain (where the split starts and where chunk borders move) and
compared byte for byte; `_core._pool_jobs()` proves the threaded call really
was split. With a tiny grain (`_core._set_grain_bytes`) small arrays split into
many chunks, so layouts (reversed, strided, transposed, partial rows) and
per-channel requant chunk borders mid-row are covered cheaply. Also: several
Python threads at once, fork, SIMDOPS_NUM_THREADS, threadpoolctl.
"""
import contextlib
import multiprocessing
import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import simdops

# pytest-run-parallel: these tests set the process-wide thread count and grain
# and count the pool's jobs, so copies of them running at once disturb each other
pytestmark = pytest.mark.thread_unsafe(
    reason="sets the process-wide thread count and grain and counts pool jobs")
from simdops import _core
from reference import CLIP_DTYPES, FLOAT_DTYPES, SHRINK_DTYPES, int_range

DEFAULT_GRAIN = _core._set_grain_bytes(1 << 18)
_core._set_grain_bytes(DEFAULT_GRAIN)
THREADED = pytest.mark.skipif(not _core.threads_supported(),
                              reason="single-thread build (no POSIX threads)")


@contextlib.contextmanager
def threads(n, grain=None):
    """n threads (and optionally a grain in bytes) inside the block."""
    old_n = simdops.get_num_threads()
    old_grain = _core._set_grain_bytes(grain if grain is not None else DEFAULT_GRAIN)
    simdops.set_num_threads(n)
    try:
        yield
    finally:
        simdops.set_num_threads(old_n)
        _core._set_grain_bytes(old_grain)


def random_bits(shape, dtype, seed):
    """Arbitrary bit patterns: every NaN payload, inf, -0.0, denormal, int edge."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.random.default_rng(seed).integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def assert_same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    diff = np.flatnonzero(np.ascontiguousarray(a).view(np.uint8).ravel() !=
                          np.ascontiguousarray(b).view(np.uint8).ravel())
    assert diff.size == 0, (f"{diff.size} differing bytes, first in elements "
                            f"{np.unique(diff // a.itemsize)[:5]}")


def compare(fn, n_threads=2, grain=None, expect_split=None):
    """fn() with one thread and with n_threads; returns the single-thread result.
    expect_split True/False: the threaded call must / must not use the pool."""
    with threads(1):
        expected = fn()
    jobs = _core._pool_jobs()
    with threads(n_threads, grain):
        got = fn()
    assert_same_bits(got, expected)
    if expect_split is not None and _core.threads_supported():
        assert (_core._pool_jobs() > jobs) == expect_split
    return expected


def sizes_around_grain(bytes_per_element):
    """Element counts where the split starts (2 grains) and where chunk
    borders move, plus odd multiples."""
    g = DEFAULT_GRAIN // bytes_per_element
    first = -(-2 * DEFAULT_GRAIN // bytes_per_element)  # the smallest call that splits
    return [(g - 1, False), (g + 1, False), (first - 1, False), (first, True),
            (first + 1, True), (3 * g + 1, True), (5 * g + 63, True)]


# ---------------------------------------------------------------- settings

def test_default_is_one_thread():
    code = "import simdops; print(simdops.get_num_threads())"
    assert _run_python(code, {"SIMDOPS_NUM_THREADS": None}).stdout.strip() == "1"


@pytest.mark.parametrize("n", [1, 2, 3, 7, _core.MAX_THREADS])
def test_set_get_num_threads(n):
    with threads(1):
        simdops.set_num_threads(n)
        assert simdops.get_num_threads() == n


@pytest.mark.parametrize("bad", [0, -1, -2**31, _core.MAX_THREADS + 1, 2**31, 2**70])
def test_set_num_threads_rejects_out_of_range(bad):
    with threads(2):
        with pytest.raises(ValueError, match="between 1 and"):
            simdops.set_num_threads(bad)
        assert simdops.get_num_threads() == 2  # unchanged


@pytest.mark.parametrize("bad", [1.5, "2", None])
def test_set_num_threads_rejects_non_integers(bad):
    with pytest.raises(TypeError):
        simdops.set_num_threads(bad)


def test_numpy_integer_accepted():
    with threads(1):
        simdops.set_num_threads(np.int64(3))
        assert simdops.get_num_threads() == 3


def _run_python(code, env_update, timeout=120):
    env = dict(os.environ)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(simdops.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    for k, v in env_update.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_env_sets_threads_and_they_are_used():
    code = ("import simdops, numpy as np; from simdops import _core; "
            "x = np.linspace(-2, 2, 1 << 20, dtype=np.float32); "
            "y = simdops.clip(x, -1.0, 1.0); "
            "assert np.array_equal(y, np.clip(x, -1, 1)); "
            "print(simdops.get_num_threads(), _core._pool_jobs() > 0 or not _core.threads_supported())")
    r = _run_python(code, {"SIMDOPS_NUM_THREADS": " 3 "})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3", "True"]


@pytest.mark.parametrize("value", ["0", "-2", "many", "1.5", str(_core.MAX_THREADS + 1)])
def test_env_bad_value_is_import_error(value):
    r = _run_python("import simdops", {"SIMDOPS_NUM_THREADS": value})
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "SIMDOPS_NUM_THREADS" in r.stderr


def test_env_empty_means_default():
    r = _run_python("import simdops; print(simdops.get_num_threads())",
                    {"SIMDOPS_NUM_THREADS": ""})
    assert r.returncode == 0 and r.stdout.strip() == "1"


# ------------------------------------------------- elementwise ops, sizes

def _clip_params(dtype):
    if np.dtype(dtype).kind == "f":
        return -0.75, 0.5
    lo, hi = int_range(dtype)
    return lo // 3, hi // 2


@THREADED
@pytest.mark.parametrize("dtype", CLIP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_clip_sizes_around_grain(dtype):
    lo, hi = _clip_params(dtype)
    for n, split in sizes_around_grain(2 * np.dtype(dtype).itemsize):
        x = random_bits((n,), dtype, seed=n)
        compare(lambda: simdops.clip(x, lo, hi), expect_split=split)


@THREADED
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_clip_scale_bias_sizes_around_grain(dtype):
    for n, split in sizes_around_grain(2 * np.dtype(dtype).itemsize):
        x = random_bits((n,), dtype, seed=n + 1)
        compare(lambda: simdops.clip(x, -3.0, 2.0, scale=1.5, bias=-0.25), expect_split=split)


@THREADED
@pytest.mark.parametrize("dtype", SHRINK_DTYPES, ids=lambda d: np.dtype(d).name)
def test_shrink_sizes_around_grain(dtype):
    bias, threshold = (0.25, 0.5) if np.dtype(dtype).kind == "f" else (3, 7)
    for n, split in sizes_around_grain(2 * np.dtype(dtype).itemsize):
        x = random_bits((n,), dtype, seed=n + 2)
        compare(lambda: simdops.shrink(x, bias, threshold), expect_split=split)


@THREADED
@pytest.mark.parametrize("rows", [1, 2, 3, 7, 255, 257])
def test_clip_odd_row_counts(rows):
    g = DEFAULT_GRAIN // 8
    cols = max(1, (4 * g + 17) // rows)  # a few grains, rows that do not divide them
    x = random_bits((rows, cols), np.float32, seed=rows)
    compare(lambda: simdops.clip(x, -1.0, 1.0), expect_split=rows * cols * 8 >= 2 * DEFAULT_GRAIN)
    # strided views: transposed, reversed, every other column
    compare(lambda: simdops.clip(x.T, -1.0, 1.0), expect_split=rows * cols * 8 >= 2 * DEFAULT_GRAIN)
    compare(lambda: simdops.clip(x[::-1, ::-1], -1.0, 1.0),
            expect_split=rows * cols * 8 >= 2 * DEFAULT_GRAIN)


@THREADED
@pytest.mark.parametrize("n_threads", [2, 3, 5])
def test_thread_counts_above_cores(n_threads):
    x = random_bits((1 << 20,), np.float32, seed=n_threads)
    compare(lambda: simdops.clip(x, -1.0, 1.0), n_threads=n_threads)


@THREADED
def test_in_place_and_reversed_out():
    x = random_bits((1000, 333), np.float16, seed=5)
    expected = compare(lambda: simdops.shrink(x, 0.5, 1.0), grain=64)

    def in_place():
        y = x.copy()
        simdops.shrink(y, 0.5, 1.0, out=y)
        return y
    compare(in_place, grain=64)

    def reversed_out():
        y = np.empty_like(x)
        simdops.shrink(x[::-1, ::-1], 0.5, 1.0, out=y[::-1, ::-1])
        return y
    assert_same_bits(compare(reversed_out, grain=64), expected)


# ------------------------------------------------------------- layouts

layouts = st.sampled_from([
    lambda a: a, lambda a: a[::-1], lambda a: a[..., ::2], lambda a: a[..., ::-1],
    lambda a: a[..., ::-2], lambda a: a.T, lambda a: a[::-1].T, lambda a: a[..., 1:],
])


@THREADED
@given(shape=st.lists(st.integers(1, 37), min_size=1, max_size=3),
       layout=layouts, n_threads=st.integers(2, 4), grain=st.sampled_from([1, 64, 1000]),
       dtype=st.sampled_from([np.uint8, np.float16, np.float32, np.int64]),
       seed=st.integers(0, 2**32 - 1))
def test_layouts_many_chunks(shape, layout, n_threads, grain, dtype, seed):
    x = layout(random_bits(shape, dtype, seed))
    lo, hi = _clip_params(dtype)
    compare(lambda: simdops.clip(x, lo, hi), n_threads, grain)


@THREADED
def test_tiny_grain_splits_small_arrays():
    x = random_bits((3, 50), np.float32, seed=1)
    compare(lambda: simdops.clip(x, -1.0, 1.0), n_threads=2, grain=1, expect_split=True)
    compare(lambda: simdops.clip(x[:, :20], -1.0, 1.0), n_threads=2, grain=1,
            expect_split=False)  # 60 elements: less than two 64-element work items


# --------------------------------------------------------------- hardmax

def ties(shape, dtype, seed):
    """Few distinct values (many ties: the first maximum must win) plus NaNs."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, shape).astype(dtype)
    x.flat[rng.integers(0, x.size, max(1, x.size // 1000))] = np.nan
    return x


@THREADED
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(4097, 129), (129, 4097), (2, 300001), (3, 517, 131)])
@pytest.mark.parametrize("axis", [-1, 0, (0, -1)])
def test_hardmax(dtype, shape, axis):
    x = ties(shape, dtype, seed=sum(shape))
    compare(lambda: simdops.hardmax(x, axis=axis))


@THREADED
@pytest.mark.parametrize("shape, axis, split", [
    ((4097, 129), -1, True),   # rows
    ((129, 4097), 0, True),    # column blocks of the vertical scan
    ((4097, 129), 0, False),   # 129 columns: narrower than a useful column block
    ((700, 700), (0, 1), False),  # one group: never split inside a reduction
    ((1, 4096), -1, False),
])
def test_hardmax_split_or_not(shape, axis, split):
    x = ties(shape, np.float32, seed=3)
    compare(lambda: simdops.hardmax(x, axis=axis), expect_split=split)


@THREADED
@pytest.mark.parametrize("axis", [-1, 0, 1, (0, 2), (1, 2)])
@pytest.mark.parametrize("layout", [lambda a: a, lambda a: a[::-1, :, ::-1], lambda a: a.T])
def test_hardmax_many_chunks(axis, layout):
    x = layout(ties((33, 41, 29), np.float32, seed=7))
    compare(lambda: simdops.hardmax(x, axis=axis), n_threads=3, grain=1)


@THREADED
def test_hardmax_random_bits_vertical_and_rows():
    x = random_bits((1031, 1537), np.float16, seed=11)
    compare(lambda: simdops.hardmax(x, axis=0), grain=64)
    compare(lambda: simdops.hardmax(x, axis=-1), grain=64)


# --------------------------------------------------------------- requant

def _requant_inputs(shape, seed):
    rng = np.random.default_rng(seed)
    channels = shape[-1]
    x = rng.integers(-2**31, 2**31, shape, dtype=np.int64).astype(np.int32)
    x.flat[:: 97] = np.iinfo(np.int32).min
    mult = rng.integers(2**30, 2**31, channels, dtype=np.int64).astype(np.int32)
    shift = rng.integers(-31, 32, channels).astype(np.int32)
    bias = rng.integers(-2**31, 2**31, channels, dtype=np.int64).astype(np.int32)
    return x, mult, shift, bias


@THREADED
@pytest.mark.parametrize("out_dtype", _core.op_dtypes("requant_out"))
def test_requant_per_tensor_sizes_around_grain(out_dtype):
    esize = np.dtype(out_dtype).itemsize
    offset = 0 if out_dtype == "int16" else 10  # QSYMM16 has no offset
    for n, split in sizes_around_grain(4 + esize):
        x, _, _, _ = _requant_inputs((n,), seed=n)
        compare(lambda: simdops.quantize_down_int32(x, 1518500250, 3, offset, out_dtype=out_dtype),
                expect_split=split)


@THREADED
@pytest.mark.parametrize("out_dtype", _core.op_dtypes("requant_out"))
@pytest.mark.parametrize("shape", [(1023, 131), (7, 40009), (300001,), (5, 7, 4099)])
def test_requant_per_channel_sizes_around_grain(out_dtype, shape):
    x, mult, shift, bias = _requant_inputs(shape, seed=shape[-1])
    lo, hi = int_range(out_dtype)
    offset = 0 if out_dtype == "int16" else 5  # QSYMM16 has no offset
    compare(lambda: simdops.quantize_down_int32(x, mult, shift, offset, bias=bias,
                                                out_dtype=out_dtype, min=lo + 3, max=hi - 3),
            expect_split=True)
    compare(lambda: simdops.quantize_down_int32(x, 1 << 30, 1, -offset, bias=bias,
                                                out_dtype=out_dtype), expect_split=True)


@THREADED
@given(rows=st.integers(1, 9), channels=st.integers(1, 300), grain=st.sampled_from([1, 50, 333]),
       reverse=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_requant_per_channel_chunk_borders_mid_row(rows, channels, grain, reverse, seed):
    # chunk borders fall inside rows: each chunk must start at the right channel
    x, mult, shift, bias = _requant_inputs((rows, channels), seed)
    if reverse:
        x = x[::-1, ::-1]
    compare(lambda: simdops.quantize_down_int32(x, mult, shift, 1, bias=bias), n_threads=3,
            grain=grain)


# ----------------------------------------------------------- concurrency

@THREADED
def test_python_threads_calling_at_once():
    """Several Python threads share the pool: whoever finds it busy runs
    inline. Nothing deadlocks and every result is exact."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((512, 1024)).astype(np.float32)
    xi, mult, shift, bias = _requant_inputs((256, 1024), seed=4)
    calls = [
        lambda: simdops.clip(x, -0.5, 0.5),
        lambda: simdops.shrink(x, 0.1, 0.3),
        lambda: simdops.hardmax(x, axis=0),
        lambda: simdops.hardmax(x, axis=-1),
        lambda: simdops.quantize_down_int32(xi, mult, shift, 3, bias=bias),
    ]
    with threads(1):
        expected = [c() for c in calls]
    failures = []

    def worker(k):
        try:
            for i in range(40):
                j = (k + i) % len(calls)
                got = calls[j]()
                if not np.array_equal(got.view(np.uint8), expected[j].view(np.uint8)):
                    failures.append((k, i, j))
        except Exception as e:  # reported below, not swallowed
            failures.append(repr(e))

    jobs = _core._pool_jobs()
    with threads(2):
        ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=300)
        assert not any(t.is_alive() for t in ts), "deadlock: a caller never returned"
    assert failures == []
    assert _core._pool_jobs() > jobs


def _child_runs_threaded_op(conn):
    try:
        x = np.linspace(-3, 3, 1 << 21, dtype=np.float32).reshape(2048, 1024)
        jobs = _core._pool_jobs()
        y = simdops.clip(x, -1.0, 1.0)
        h = simdops.hardmax(x, axis=-1)  # rows increase: the last column wins
        conn.send((simdops.get_num_threads(), bool(np.array_equal(y, np.clip(x, -1, 1))),
                   bool(h[:, -1].all() and not h[:, :-1].any()), _core._pool_jobs() - jobs))
    except Exception as e:
        conn.send(repr(e))
    finally:
        conn.close()


@THREADED
@pytest.mark.skipif(sys.platform == "win32" or "fork" not in multiprocessing.get_all_start_methods(),
                    reason="no fork start method")
@pytest.mark.skipif(bool(os.environ.get("SIMDOPS_TEST_NO_FORK")),
                    reason="SIMDOPS_TEST_NO_FORK: under qemu-user a forked child of a threaded "
                           "process cannot start threads (ci/aarch64.sh)")
def test_fork_child_has_working_pool():
    with threads(2):
        x = np.ones(1 << 20, np.float32)
        simdops.clip(x, 0.0, 0.5)  # the parent's workers exist now
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        with warnings.catch_warnings():
            # Python 3.12+ warns that forking a process with threads may deadlock;
            # the pool's fork handlers are what makes it safe here
            warnings.simplefilter("ignore", DeprecationWarning)
            p = ctx.Process(target=_child_runs_threaded_op, args=(child,))
            p.start()
        assert parent.poll(120), "the child hung"
        result = parent.recv()
        p.join(60)
    assert result == (2, True, True, 2), result
    assert p.exitcode == 0


# -------------------------------------------------------- threadpoolctl

def test_threadpoolctl_sees_and_limits_simdops():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not hasattr(threadpoolctl, "register"):
        pytest.skip("threadpoolctl without custom controllers (< 3.2)")
    with threads(2):
        info = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "simdops"]
        assert len(info) == 1
        assert info[0]["num_threads"] == 2 and info[0]["version"] == simdops.__version__
        with threadpoolctl.threadpool_limits(limits=1):
            assert simdops.get_num_threads() == 1
        assert simdops.get_num_threads() == 2
        with threadpoolctl.threadpool_limits(limits=3, user_api="simdops"):
            assert simdops.get_num_threads() == 3
        assert simdops.get_num_threads() == 2
