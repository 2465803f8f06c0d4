"""hardmax layouts that exercise the driver's block strategy: vertical scans wider than one
16 KiB column block (heap scratch, several blocks), rows zeroed right after they are read
(in place), and outputs past the non-temporal threshold (12 MiB), on every tier."""
import numpy as np
import pytest

import simdops

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
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
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
