"""dequantize_linear(x, scale, out=y) of a float8 array with a 0-d float32 scale: the fast
path (reads the arrays' fields) and the forms it hands to the general path (an out that
overlaps x, a non-native scale, a non-contiguous or read-only out, other shapes) give
ml_dtypes' value times the scale, and bad input still raises."""
import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")

import simdops.onnx as so  # noqa: E402

F8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]


def expected(x, scale):
    """ml_dtypes' float32 value of each code times the scale, in numpy float32"""
    with np.errstate(all="ignore"):
        return x.astype(np.float32) * np.float32(scale)


def same(got, want):
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


@pytest.mark.parametrize("name", F8)
@pytest.mark.parametrize("shape", [(0,), (1,), (16,), (37,), (3, 5, 7), (65,)])
def test_float8_into_out(name, shape):
    dt = getattr(ml_dtypes, name)
    codes = np.arange(int(np.prod(shape)), dtype=np.uint64) * 37 % 256
    x = codes.astype(np.uint8).view(dt).reshape(shape)
    for s in (0.37, -2.0, 3e38):
        scale = np.array(s, np.float32)
        y = np.full(shape, 7.0, np.float32)
        got = so.dequantize_linear(x, scale, out=y)
        assert got is y
        same(y, expected(x, scale))


def test_float8_into_forms_the_general_path_takes():
    x = (np.arange(64) * 5 % 256).astype(np.uint8).view(ml_dtypes.float8_e4m3fn)
    scale = np.array(0.5, np.float32)
    want = expected(x, scale)
    big = np.zeros(128, np.float32)
    same(so.dequantize_linear(x, scale, out=big[::2]), want)          # not contiguous
    same(big[::2], want)
    with pytest.raises(ValueError, match="dtype"):                    # non-native order
        so.dequantize_linear(x, scale, out=np.zeros(64, ">f4"))
    same(so.dequantize_linear(x, np.array(0.5, ">f4"), out=np.empty(64, np.float32)), want)
    buf = np.zeros(64 * 4, np.uint8)                                  # out overlaps x
    xs = buf[:64].view(ml_dtypes.float8_e4m3fn)
    xs[...] = x
    out = buf.view(np.float32)
    so.dequantize_linear(xs, scale, out=out)
    same(out, want)
    ro = np.zeros(64, np.float32)
    ro.flags.writeable = False
    with pytest.raises((ValueError, TypeError)):
        so.dequantize_linear(x, scale, out=ro)


def test_float8_into_bad_input_raises():
    x = np.zeros(8, ml_dtypes.float8_e4m3fn)
    with pytest.raises(ValueError):
        so.dequantize_linear(x, np.array(0.5, np.float32), out=np.zeros(9, np.float32))
    with pytest.raises(ValueError, match="dtype"):
        so.dequantize_linear(x, np.array(0.5, np.float32), out=np.zeros(8, np.float64))
    with pytest.raises(ValueError):                                   # scale of 2 for 8
        so.dequantize_linear(x, np.array([0.5, 1.0], np.float32), out=np.zeros(8, np.float32))
