"""A plain ndarray is read from numpy's struct fields (_core_buffers.pyx), any
other buffer through the buffer protocol: both must see the same dtype, shape,
strides and data, and everything the fast path declines must reach the buffer
path's errors."""
import warnings

import numpy as np
import pytest

import simdops

# every numpy type character the fast path maps, with the type it must become
CHARS = ["e", "f", "d", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q"]


def views(a):
    """a itself (the field path) and the same memory through memoryview and a
    subclass (the buffer path)."""
    return [a, memoryview(a), a.view(type("Sub", (np.ndarray,), {}))]


@pytest.mark.parametrize("char", CHARS)
def test_every_type_character_matches_the_buffer_path(char):
    base = np.arange(-20, 40, dtype=char) if np.dtype(char).kind != "u" else np.arange(60,
                                                                                       dtype=char)
    a = base.reshape(3, 4, 5)[::-1, 1::2, ::2]
    want = np.clip(a, 3, 9)
    for v in views(a):
        got = np.asarray(simdops.clip(v, 3, 9))
        assert got.dtype == a.dtype and got.shape == a.shape
        assert got.tobytes() == want.tobytes(), type(v)


def test_out_views_are_written_through_their_strides():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = np.full((4, 12), -1, np.float32)
    simdops.clip(x, 2, 20, out=out[::-1, ::2])
    assert out[::-1, ::2].tolist() == np.clip(x, 2, 20).tolist()
    assert (out[:, 1::2] == -1).all()


def test_zero_d_and_empty():
    assert simdops.clip(np.array(5.0, np.float32), 0, 1) == 1.0
    assert simdops.clip(np.zeros((0, 3), np.int16), 1, 2).shape == (0, 3)


@pytest.mark.parametrize("dtype", [">f4", "?", "c8", "M8[s]", "U3", "g"])
def test_declined_dtypes_get_the_buffer_paths_errors(dtype):
    a = np.zeros(3, dtype)
    sub = a.view(type("Sub", (np.ndarray,), {}))  # a subclass always takes the buffer path
    with pytest.raises((TypeError, ValueError)) as fast:
        simdops.clip(a, 0, 1)
    with pytest.raises((TypeError, ValueError)) as slow:
        simdops.clip(sub, 0, 1)
    assert type(fast.value) is type(slow.value)
    assert str(fast.value) == str(slow.value)


def test_read_only_out_is_refused():
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        simdops.clip(np.ones(4, np.float32), 0, 1, out=ro)


def test_warn_on_write_out_goes_through_numpy():
    a, _ = np.broadcast_arrays(np.zeros((3, 1), np.float32), np.zeros((1, 4), np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="two elements at one address"):
            simdops.clip(np.ones((3, 4), np.float32), 0, 1, out=a)


def test_input_stays_alive_and_unchanged():
    x = np.arange(10, dtype=np.float32)
    before = x.copy()
    y = simdops.shrink(x, 1.0, 2.0)
    assert x.tobytes() == before.tobytes()
    assert y.tolist() == [0, 0, 0, 2, 3, 4, 5, 6, 7, 8]
