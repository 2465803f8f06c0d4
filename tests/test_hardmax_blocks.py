"""hardmax layouts that exercise the driver's block strategy: vertical scans wider than one
16 KiB column block (heap scratch, several blocks), rows zeroed right after they are read
(in place), and outputs past the non-temporal threshold (12 MiB), on every tier."""
import numpy as np
import pytest

import simdops
from simdops import _core

from reference import HARDMAX_DTYPES
from reference import hardmax as ref_hardmax


def _tiers():
    return simdops.available_isas()


def _data(shape, dtype, rng, nan_at=None):
    x = rng.standard_normal(shape).astype(dtype)
    # repeated values: ties must resolve to the first maximum
    x[..., ::7] = np.round(x[..., ::7])
    if nan_at is not None:
        x[nan_at] = np.nan
    return x


def _reference_axis0(x):
    """Reference for axis 0 of a 2-D array, by columns (the Python reference is per group)."""
    return ref_hardmax(x, axis=0)


@pytest.mark.parametrize("isa", _tiers())
@pytest.mark.parametrize("dtype", HARDMAX_DTYPES)
@pytest.mark.parametrize("cols", [513, 4096 + 904, 8192 + 3])
def test_vertical_wide_blocks(isa, dtype, cols):
    rng = np.random.default_rng(cols)
    x = _data((37, cols), dtype, rng, nan_at=(20, cols - 1))
    expected = _reference_axis0(x)
    with simdops.use_isa(isa):
        y = simdops.hardmax(x, axis=0)
        inplace = x.copy()
        simdops.hardmax(inplace, axis=0, out=inplace)
    assert np.array_equal(y.view(np.uint8), expected.view(np.uint8))
    assert np.array_equal(inplace.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("isa", _tiers())
def test_vertical_strided_output(isa):
    rng = np.random.default_rng(5)
    x = _data((9, 5000), np.float32, rng)
    big = np.full((9, 10000), 7.0, np.float32)
    out = big[:, ::2]
    with simdops.use_isa(isa):
        simdops.hardmax(x, axis=0, out=out)
    assert np.array_equal(out, _reference_axis0(x))
    assert np.all(big[:, 1::2] == 7.0)


@pytest.mark.parametrize("isa", _tiers())
@pytest.mark.parametrize("axis", [0, -1])
def test_past_stream_threshold(isa, axis):
    """4096 x 1024 float32 is 16 MiB: the zeros are written with streaming stores."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4096, 1024)).astype(np.float32)
    x[100, 3] = np.nan
    idx = np.argmax(x, axis=axis)   # numpy: first maximum, NaN first
    expected = np.zeros_like(x)
    if axis == 0:
        expected[idx, np.arange(x.shape[1])] = 1
    else:
        expected[np.arange(x.shape[0]), idx] = 1
    with simdops.use_isa(isa):
        y = simdops.hardmax(x, axis=axis)
        simdops.hardmax(x, axis=axis, out=x)
    assert np.array_equal(y, expected)
    assert np.array_equal(x, expected)


@pytest.mark.parametrize("isa", _tiers())
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shift", [0, 1, 15])
def test_streamed_rows_out_offsets(isa, threads, shift):
    """Past the streaming threshold with rows not a whole number of lines: y `shift`
    elements past numpy's buffer start (the partial first and last lines hold ones), the
    rows split over threads (slices meet inside a line)."""
    if threads > 1 and not _core.threads_supported():
        pytest.skip("no threads")
    rng = np.random.default_rng(12 + shift)
    x = rng.standard_normal((4100, 1027)).astype(np.float32)
    x[0, :4] = 50.0      # the first row's one at 0 (in y's first, partial line)
    x[-1, -1] = 60.0     # the last row's one at its end (in the last, partial line)
    x[7, 1000] = np.nan
    buf = np.full(x.size + shift, 7.0, np.float32)
    out = buf[shift:].reshape(x.shape)
    saved = simdops.get_num_threads()
    simdops.set_num_threads(threads)
    try:
        with simdops.use_isa(isa):
            simdops.hardmax(x, axis=-1, out=out)
    finally:
        simdops.set_num_threads(saved)
    assert np.array_equal(out, _expected_last_axis(x))
    assert np.all(buf[:shift] == 7.0)


def _expected_last_axis(x):
    """numpy's argmax (first maximum, NaN first) as a one-hot over the last axis."""
    idx = np.argmax(x, axis=-1)
    expected = np.zeros_like(x)
    np.put_along_axis(expected, idx[..., None], 1, axis=-1)
    return expected


# Rows of y that follow each other are zeroed together once read (the driver's zero
# runs: at most 256 rows and 64 KiB): runs that fill up by rows (3-element rows), by
# bytes (5000 float32: 3 rows a run) and single rows past 64 KiB (20000 float32).
@pytest.mark.parametrize("isa", _tiers())
@pytest.mark.parametrize("shape", [(1000, 3), (3, 300, 3), (41, 5000), (5, 20000), (600, 128)])
def test_zero_runs(isa, shape):
    rng = np.random.default_rng(sum(shape))
    x = _data(shape, np.float32, rng, nan_at=(shape[0] - 1,) + (0,) * (len(shape) - 1))
    expected = _expected_last_axis(x)
    with simdops.use_isa(isa):
        y = simdops.hardmax(x)
        inplace = x.copy()
        simdops.hardmax(inplace, out=inplace)
    assert np.array_equal(y.view(np.uint8), expected.view(np.uint8))
    assert np.array_equal(inplace.view(np.uint8), expected.view(np.uint8))


# y rows that are not adjacent in memory (every other row of a larger array, rows
# reversed, a transposed kept axis) break the runs; what lies between must stay.
@pytest.mark.parametrize("isa", _tiers())
@pytest.mark.parametrize("layout", ["every_other_row", "reversed_rows", "transposed_kept"])
def test_zero_runs_broken_by_layout(isa, layout):
    rng = np.random.default_rng(3)
    if layout == "transposed_kept":
        x = _data((6, 70, 40), np.float32, rng)
        big = np.full((70, 6, 40), 7.0, np.float32)
        out = big.transpose(1, 0, 2)       # y rows step 6 rows apart
        guard = None
    else:
        x = _data((300, 40), np.float32, rng)
        big = np.full((600, 40), 7.0, np.float32)
        out = big[::2] if layout == "every_other_row" else big[::2][::-1]
        guard = big[1::2]
    expected = _expected_last_axis(x)
    with simdops.use_isa(isa):
        simdops.hardmax(x, out=out)
    assert np.array_equal(out, expected)
    if guard is not None:
        assert np.all(guard == 7.0)
