"""Rules that live in C: thread-local ISA selection, exact rounding
of integers of any size, and the defects found when tried as a new user would."""
import itertools
import threading

import numpy as np
import pytest

import simdops
from simdops import _core

ISAS = simdops.available_isas()


def _round_to_bits(v, bits):
    """Reference: the int v rounded to `bits` significant bits, nearest even."""
    a = abs(v)
    e = a.bit_length() - bits
    if e <= 0:
        return v
    q, r = divmod(a, 1 << e)
    half = 1 << (e - 1)
    if r > half or (r == half and q % 2):
        q += 1
    return (q << e) * (1 if v >= 0 else -1)


@pytest.mark.skipif(len(ISAS) < 2, reason="needs two ISAs")
def test_use_isa_is_per_thread():
    first, second = ISAS[0], ISAS[-1]
    process_tier = simdops.isa()
    inside = threading.Barrier(2)
    seen = {}
    errors = []

    def worker(name):
        try:
            x = np.arange(100, dtype=np.float32)
            with simdops.use_isa(name):
                inside.wait(timeout=30)  # both threads are inside their blocks now
                for _ in range(50):
                    y = simdops.clip(x, 10.0, 20.0)
                    assert _core.last_call_isa() == name
                    assert simdops.isa() == name
                    assert y[0] == 10.0 and y[-1] == 20.0
                inside.wait(timeout=30)  # neither leaves before the other checked
            seen[name] = simdops.isa()
        except Exception as e:  # reported below, in the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    # after the blocks each thread is back on the process tier, which did not move
    assert seen == {first: process_tier, second: process_tier}
    assert simdops.isa() == process_tier
    assert _core.thread_isa() is None


def test_use_isa_nests_and_restores():
    before = simdops.isa()
    with simdops.use_isa(ISAS[0]):
        with simdops.use_isa(ISAS[-1]):
            simdops.shrink(np.ones(3, np.float32))
            assert _core.last_call_isa() == ISAS[-1]
        assert simdops.isa() == ISAS[0]
        simdops.hardmax(np.ones(3, np.float32))
        assert _core.last_call_isa() == ISAS[0]
    assert simdops.isa() == before


@pytest.mark.parametrize("v", [2**100 + 2**76 + 1, 2**100 + 2**76, 2**100 + 2**77 - 1,
                               -(2**100 + 2**76 + 1), 2**127 * 3 + 1, 2**128 - 2**103,
                               2**128 - 2**103 - 1, 2**200 + 1])
def test_big_ints_round_once_to_float32(v):
    # 2**100 + 2**76 + 1: double rounding (to double, then float32) would give 2**100
    x = np.zeros(4, np.float32)
    got = simdops.clip(x, v, v)
    r = _round_to_bits(v, 24)
    want = np.float32(r) if abs(r) < 2**128 else np.float32(np.inf if v > 0 else -np.inf)
    assert got[0] == want, (v, got[0], want)


@pytest.mark.parametrize("v", [2**100 + 2**47 + 1, -(2**70 + 2**17 + 3), 2**1100, -(2**1100)])
def test_big_ints_round_once_to_float64(v):
    try:
        want = float(v)  # Python rounds ints to double correctly
    except OverflowError:
        want = np.inf if v > 0 else -np.inf
    got = simdops.clip(np.zeros(2, np.float64), v, v)
    assert got[0] == want


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_big_ints_saturate(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, 0, info.max], dtype)
    assert simdops.clip(x, -(2**100), 2**100).tolist() == x.tolist()
    assert simdops.clip(x, 2**100, 2**200).tolist() == [info.max] * 3
    assert simdops.clip(x, -(2**200), -(2**100)).tolist() == [info.min] * 3


def test_requant_empty_per_channel_lists():
    y = simdops.quantize_down_int32(np.zeros((3, 0), np.int32), [], [])
    assert y.shape == (3, 0) and y.dtype == np.uint8


def test_quantize_multiplier_huge_int_is_value_error():
    with pytest.raises(ValueError, match="scale"):
        simdops.quantize_multiplier(2**2000)


class _CountingAxes:
    """An endless iterable of axes that counts what was read."""

    def __init__(self, start=0):
        self.read = 0
        self.start = start

    def __iter__(self):
        for a in itertools.count(self.start):
            self.read += 1
            yield a % 2 if self.start < 0 else a


@pytest.mark.parametrize("start", [0, -1])
def test_hardmax_endless_axes_fail_fast(start):
    x = np.zeros((3, 4), np.float32)
    axes = _CountingAxes(start)
    with pytest.raises(ValueError, match="axis"):
        simdops.hardmax(x, axis=axes)
    assert axes.read <= x.ndim + 1


def test_hardmax_itertools_count():
    with pytest.raises(ValueError, match="axis"):
        simdops.hardmax(np.zeros((2, 3, 4), np.float32), axis=itertools.count())


def test_kernel_entries_cover_the_dtype_table():
    entries = dict(_core.kernel_entries())
    assert set(entries["clip"]) == set(_core.op_dtypes("clip"))
    assert set(entries["requant"]) == {"uint8", "int8", "int16"}
    origins = _core.kernel_origins(simdops.isa())
    for entry, dtypes in entries.items():
        for dt in dtypes:
            assert origins[(entry, dt)] in ISAS
