"""simdops.dask: lazy graphs whose results equal the numpy path bit for bit,
with the threaded scheduler and on a local multi-process distributed cluster.
Skipped when dask (or, for the cluster tests, distributed) is not installed."""
import itertools
import os
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import simdops  # noqa: E402
import simdops.dask as sd  # noqa: E402
from reference import CLIP_DTYPES, HARDMAX_DTYPES, SHRINK_DTYPES, mismatch_report  # noqa: E402
from conftest import random_bits  # noqa: E402


def assert_bits_equal(actual, expected, what=""):
    msg = mismatch_report(actual, expected)
    assert msg is None, f"{what}: {msg}"


def threaded(arr):
    return arr.compute(scheduler="threads")


def int32_acc(rng, shape):
    return rng.integers(-(1 << 31), 1 << 31, size=shape, dtype=np.int64).astype(np.int32)


CHUNKINGS = [(5, 7), (2, 3), ((1, 4, 2, 6, 3), (7, 1, 1, 4, 2, 1)), (16, 16)]


# ---------------------------------------------------------------- elementwise

@pytest.mark.parametrize("dtype", CLIP_DTYPES)
@pytest.mark.parametrize("chunks", CHUNKINGS[:3])
def test_clip_equals_numpy_path(rng, dtype, chunks):
    x = random_bits(rng, 16 * 16, dtype).reshape(16, 16)
    dx = da.from_array(x, chunks=chunks)
    y = sd.clip(dx, -3, 100.5)
    assert y.dtype == x.dtype and y.chunks == dx.chunks
    assert_bits_equal(threaded(y), simdops.clip(x, -3, 100.5), f"clip {np.dtype(dtype)}")


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int16, np.uint8])
def test_clip_scale_bias_equals_numpy_path(rng, dtype):
    x = random_bits(rng, 300, dtype)
    dx = da.from_array(x, chunks=37)
    got = threaded(sd.clip(dx, -50, 60, scale=0.37, bias=-2.5))
    assert_bits_equal(got, simdops.clip(x, -50, 60, scale=0.37, bias=-2.5), "clip scale/bias")


@pytest.mark.parametrize("dtype", SHRINK_DTYPES)
def test_shrink_equals_numpy_path(rng, dtype):
    x = random_bits(rng, 12 * 10, dtype).reshape(12, 10)
    dx = da.from_array(x, chunks=(5, 3))
    y = sd.shrink(dx, bias=2.25, threshold=3)
    assert y.dtype == x.dtype and y.chunks == dx.chunks
    assert_bits_equal(threaded(y), simdops.shrink(x, 2.25, 3), f"shrink {np.dtype(dtype)}")


def test_one_sided_clip_passes_none_through(rng):
    x = rng.standard_normal(50).astype(np.float32)
    # one-sided clip is part of the API: an error here is a failure, never a skip
    expected_lo = simdops.clip(x, None, 0.5)
    expected_hi = simdops.clip(x, -0.5, None)
    assert_bits_equal(expected_lo, np.minimum(x, np.float32(0.5)), "numpy clip(None, 0.5)")
    assert_bits_equal(expected_hi, np.maximum(x, np.float32(-0.5)), "numpy clip(-0.5, None)")
    dx = da.from_array(x, chunks=7)
    assert_bits_equal(threaded(sd.clip(dx, None, 0.5)), expected_lo, "clip(None, 0.5)")
    assert_bits_equal(threaded(sd.clip(dx, -0.5, None)), expected_hi, "clip(-0.5, None)")


@settings(max_examples=25)
@given(shape=st.lists(st.integers(0, 6), min_size=0, max_size=3), chunk=st.integers(1, 4),
       dtype=st.sampled_from(CLIP_DTYPES), seed=st.integers(0, 2**32 - 1))
def test_clip_any_shape_and_chunking(shape, chunk, dtype, seed):
    x = random_bits(np.random.default_rng(seed), int(np.prod(shape)), dtype).reshape(shape)
    dx = da.from_array(x, chunks=chunk)
    assert_bits_equal(threaded(sd.clip(dx, 1, 9)), simdops.clip(x, 1, 9), f"shape {shape}")


def test_input_need_not_be_a_dask_array():
    x = np.array([-2.0, 0.0, 2.0], np.float32)
    y = sd.clip(x, -1, 1)
    assert isinstance(y, da.Array)
    assert_bits_equal(threaded(y), simdops.clip(x, -1, 1), "numpy input")


# -------------------------------------------------------------------- hardmax

@pytest.mark.parametrize("dtype", HARDMAX_DTYPES)
@pytest.mark.parametrize("axis", [-1, 0, 1, (0, 2), (2, 0), (0, 1, 2)])
def test_hardmax_equals_numpy_path(rng, dtype, axis):
    x = rng.integers(-3, 4, size=(6, 5, 4)).astype(dtype)  # many ties: first max wins
    x.reshape(-1)[rng.choice(x.size, 5, replace=False)] = np.nan
    dx = da.from_array(x, chunks=(4, 2, 3))
    y = sd.hardmax(dx, axis=axis)
    assert y.dtype == x.dtype and y.shape == x.shape
    assert_bits_equal(threaded(y), simdops.hardmax(x, axis=axis), f"hardmax axis={axis}")


def test_hardmax_rechunks_only_the_reduced_axes():
    dx = da.zeros((8, 9, 10), dtype=np.float32, chunks=(3, 4, 5))
    y = sd.hardmax(dx, axis=(0, 2))
    assert y.chunks == ((8,), dx.chunks[1], (10,))
    assert sd.hardmax(dx, axis=-2).chunks == (dx.chunks[0], (9,), dx.chunks[2])


def test_hardmax_reads_an_endless_axis_generator_only_so_far():
    dx = da.zeros((3, 4), dtype=np.float32, chunks=2)
    with pytest.raises(ValueError):
        sd.hardmax(dx, axis=itertools.count())


# -------------------------------------------------------------------- requant

REQUANT_CASES = [
    dict(multiplier=1 << 30, shift=3, offset=7),
    dict(multiplier=1518500250, shift=-2, offset=-20, min=5, max=200),
    dict(multiplier=1073741824, shift=5, offset=0, out_dtype="int8", min=-100, max=90),
    dict(multiplier=2 ** 31 - 1, shift=31, offset=0, out_dtype="int16"),
]


@pytest.mark.parametrize("case", REQUANT_CASES)
def test_requant_per_tensor_equals_numpy_path(rng, case):
    x = int32_acc(rng, (9, 11))
    y = sd.quantize_down_int32(da.from_array(x, chunks=(4, 5)), **case)
    expected = simdops.quantize_down_int32(x, **case)
    assert y.dtype == expected.dtype
    assert_bits_equal(threaded(y), expected, f"requant {case}")


def per_channel_params(rng, channels):
    return dict(multiplier=rng.integers(1 << 30, 1 << 31, channels).astype(np.int32),
                shift=rng.integers(-4, 12, channels).astype(np.int32),
                bias=int32_acc(rng, channels))


@pytest.mark.parametrize("kind", ["numpy", "list", "dask-other-chunks", "mixed"])
def test_requant_per_channel_aligns_vectors_with_last_axis(rng, kind):
    x = int32_acc(rng, (5, 13))
    p = per_channel_params(rng, 13)
    expected = simdops.quantize_down_int32(x, p["multiplier"], p["shift"], 3, bias=p["bias"])
    if kind == "list":
        p = {k: v.tolist() for k, v in p.items()}
    elif kind == "dask-other-chunks":
        p = {k: da.from_array(v, chunks=4) for k, v in p.items()}
    elif kind == "mixed":
        p = dict(multiplier=1 << 30, shift=p["shift"].tolist(), bias=da.from_array(p["bias"], chunks=6))
        expected = simdops.quantize_down_int32(x, p["multiplier"], p["shift"], 3,
                                               bias=p["bias"].compute())
    dx = da.from_array(x, chunks=(2, (1, 5, 3, 4)))
    y = sd.quantize_down_int32(dx, p["multiplier"], p["shift"], 3, bias=p["bias"])
    assert y.chunks == dx.chunks and y.dtype == np.uint8
    assert_bits_equal(threaded(y), expected, f"per-channel {kind}")


def test_quantize_down_int32_to_uint8_equals_numpy_path(rng):
    x = int32_acc(rng, (4, 6, 10))
    p = per_channel_params(rng, 10)
    expected = simdops.quantize_down_int32_to_uint8(x, p["multiplier"], p["shift"], 9,
                                                    bias=p["bias"], min=3, max=250)
    y = sd.quantize_down_int32_to_uint8(da.from_array(x, chunks=3), p["multiplier"], p["shift"],
                                        9, bias=p["bias"], min=3, max=250)
    assert_bits_equal(threaded(y), expected, "to_uint8")


# ------------------------------------------------- laziness and eager checks

def test_graph_building_runs_no_kernel_on_blocks(monkeypatch):
    seen = []
    real = simdops.clip

    def spy(x, *args, **kwargs):
        seen.append(np.asarray(x).size)
        return real(x, *args, **kwargs)

    monkeypatch.setattr(simdops, "clip", spy)
    big = da.zeros((10 ** 6, 10 ** 6), dtype=np.float32, chunks=(1000, 1000))  # 4 TB if computed
    y = sd.clip(big, 0, 1)
    assert seen == [1]  # the one-element parameter check only
    assert y.shape == big.shape and y.chunks == big.chunks and y.dtype == np.float32
    small = sd.clip(da.ones(10, dtype=np.float32, chunks=4), 0, 0.5)
    assert_bits_equal(threaded(small), np.full(10, 0.5, np.float32), "spied clip")
    assert sorted(seen[2:]) == [2, 4, 4]


def same_error(call_numpy, call_dask):
    """The dask call raises at graph-build time, with simdops' type and message."""
    with pytest.raises((TypeError, ValueError)) as numpy_err:
        call_numpy()
    with pytest.raises(type(numpy_err.value), match=re.escape(str(numpy_err.value))):
        call_dask()


BAD_CALLS = [
    ("clip NaN bound", lambda m, x: m.clip(x, float("nan"), 1.0), np.float32),
    ("clip scale on int64", lambda m, x: m.clip(x, 0, 1, scale=2.0), np.int64),
    ("clip bool bound", lambda m, x: m.clip(x, True, 1.0), np.float32),
    ("shrink negative threshold", lambda m, x: m.shrink(x, 0.0, -1.0), np.float32),
    ("shrink on uint64", lambda m, x: m.shrink(x), np.uint64),
    ("hardmax on int32", lambda m, x: m.hardmax(x), np.int32),
    ("hardmax axis out of range", lambda m, x: m.hardmax(x, axis=5), np.float32),
    ("hardmax repeated axis", lambda m, x: m.hardmax(x, axis=(1, -1)), np.float32),
    ("hardmax float axis", lambda m, x: m.hardmax(x, axis=1.5), np.float32),
    ("requant shift", lambda m, x: m.quantize_down_int32(x, 1 << 30, 40), np.int32),
    ("requant min > max", lambda m, x: m.quantize_down_int32_to_uint8(x, 1, 1, 0, min=9, max=3),
     np.int32),
    ("requant on float", lambda m, x: m.quantize_down_int32(x, 1, 1), np.float32),
    ("requant out_dtype", lambda m, x: m.quantize_down_int32(x, 1, 1, out_dtype="int32"), np.int32),
    ("requant vector length", lambda m, x: m.quantize_down_int32(x, [1, 2], 1), np.int32),
    ("requant vector dtype", lambda m, x: m.quantize_down_int32(x, np.ones(4, np.float64), 1),
     np.int32),
    ("requant vector shift range", lambda m, x: m.quantize_down_int32(x, 1, [0, 1, 2, 99]),
     np.int32),
    ("requant int16 offset", lambda m, x: m.quantize_down_int32(x, 1, 1, 5, out_dtype="int16"),
     np.int32),
]


@pytest.mark.parametrize("name, call, dtype", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_parameters_raise_at_graph_build_with_simdops_message(name, call, dtype):
    x = np.zeros((3, 4), dtype)
    same_error(lambda: call(simdops, x), lambda: call(sd, da.from_array(x, chunks=2)))


def test_dask_vector_dtype_is_checked_at_graph_build():
    dx = da.zeros((3, 4), dtype=np.int32, chunks=2)
    with pytest.raises(TypeError):
        sd.quantize_down_int32(dx, da.ones(4, dtype=np.float64, chunks=2), 1)


# ----------------------------------------------------- distributed (processes)

@pytest.fixture(scope="module")
def cluster_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                       dashboard_address=None, host="127.0.0.1",
                                       silence_logs=40)
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.mark.slow
def test_distributed_runs_in_separate_worker_processes(cluster_client):
    pids = set(cluster_client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids
    addresses = list(cluster_client.scheduler_info()["workers"])
    assert all(a.startswith("tcp://127.0.0.1:") for a in addresses), addresses


@pytest.mark.slow
def test_distributed_equals_numpy_path(cluster_client, rng):
    f = random_bits(rng, 40 * 30, np.float32).reshape(40, 30)
    h = rng.integers(-2, 3, size=(40, 30)).astype(np.float16)
    acc = int32_acc(rng, (40, 30))
    p = per_channel_params(rng, 30)
    # (function name, array, positional parameters, keyword parameters)
    calls = [
        ("clip", f, (-1e3, 1e3), dict(scale=0.5, bias=1.0)),
        ("shrink", f, (0.5, 2.0), {}),
        ("hardmax", h, (), dict(axis=(0, 1))),
        ("hardmax", h, (), dict(axis=0)),
        ("quantize_down_int32", acc, (p["multiplier"], p["shift"], -4),
         dict(bias=p["bias"], out_dtype="int8")),
        ("quantize_down_int32_to_uint8", acc, (1 << 30, 4, 100), dict(min=2, max=240)),
    ]
    lazy = [getattr(sd, name)(da.from_array(a, chunks=(16, 7)), *args, **kw)
            for name, a, args, kw in calls]
    expected = [getattr(simdops, name)(a, *args, **kw) for name, a, args, kw in calls]
    got = cluster_client.compute(lazy, sync=True)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert_bits_equal(g, e, f"distributed result {i}")
