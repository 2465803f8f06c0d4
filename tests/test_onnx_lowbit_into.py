"""dequantize_linear(x, scale, out=y) of a float8 array with a 0-d float32 scale (and
quantize_linear(float32 x, scale, out=float8 y)): the fast
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


def edge_floats(n):
    """n float32s cycling through the edges of the float8 conversion: +-0, +-inf, NaN
    payloads of both signs, float32 subnormals, float8 subnormals and ties, the
    largest finite values and just past them, then spread values"""
    edges = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-40, 2.0 ** -10, 2.0 ** -9 * 1.5,
                      448.0, 464.0, 465.0, -480.0, 57344.0, 61440.0, 1e30, 0.1, 1.0625],
                     np.float32)
    nans = np.array([0x7fc00000, 0xffc00001, 0x7f800001, 0xff812345], np.uint32).view(np.float32)
    spread = np.linspace(-600, 600, 97, dtype=np.float32)
    return np.resize(np.concatenate([edges, nans, spread]), n)


@pytest.mark.parametrize("name", F8)
@pytest.mark.parametrize("shape", [(0,), (1,), (16,), (37,), (3, 5, 7), (129,)])
def test_float8_quantize_into_out(name, shape):
    """quantize_linear(float32 x, 0-d float32 scale, out=float8): the short path
    (_lowbit.quantize_into) writes out and gives the general path's bits (which the
    reference tests check), for both saturate values, output_dtype given or not"""
    from simdops.onnx import _lowbit
    dt = getattr(ml_dtypes, name)
    x = edge_floats(int(np.prod(shape))).reshape(shape)
    for s in (0.37, -2.0, 1e-30, 3e38):
        scale = np.array(s, np.float32)
        for sat in (1, 0, True):
            want = so.quantize_linear(x, scale, output_dtype=dt, saturate=sat)
            for od in (None, name, dt, np.dtype(dt)):
                y = np.full(shape, 7, np.uint8).view(dt)
                assert _lowbit.quantize_into(x, scale, od, sat, 1, y) is y
                assert y.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()
                y[...] = 0
                got = so.quantize_linear(x, scale, output_dtype=od, saturate=sat, out=y)
                assert got is y
                assert y.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()


def test_float8_quantize_into_matches_ml_dtypes():
    """finite quotients within range, saturate=0: ml_dtypes' own rounding of x / scale"""
    x = edge_floats(4096)
    x = x[np.isfinite(x) & (np.abs(x) < 100)]
    scale = np.array(0.37, np.float32)
    for name in F8:
        dt = getattr(ml_dtypes, name)
        y = np.empty(x.shape, dt)
        so.quantize_linear(x, scale, output_dtype=dt, saturate=0, out=y)
        assert y.view(np.uint8).tobytes() == (x / scale).astype(dt).view(np.uint8).tobytes()


def test_float8_quantize_into_forms_the_general_path_takes():
    from simdops.onnx import _lowbit
    x = edge_floats(64)
    scale = np.array(0.5, np.float32)
    want = so.quantize_linear(x, scale, output_dtype=ml_dtypes.float8_e4m3fn)
    e4 = ml_dtypes.float8_e4m3fn

    def same8(got):
        assert got.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()
    big = np.zeros(128, e4)
    assert _lowbit.quantize_into(x, scale, None, 1, 1, big[::2]) is None     # not contiguous
    so.quantize_linear(x, scale, output_dtype=e4, out=big[::2])
    same8(big[::2])
    assert _lowbit.quantize_into(x[::-1], scale, None, 1, 1, np.zeros(64, e4)) is None
    assert _lowbit.quantize_into(x.astype(">f4"), scale, None, 1, 1, np.zeros(64, e4)) is None
    same8(so.quantize_linear(x.astype(">f4"), scale, output_dtype=e4, out=np.zeros(64, e4)))
    assert _lowbit.quantize_into(x, np.array(0.5, ">f4"), None, 1, 1, np.zeros(64, e4)) is None
    same8(so.quantize_linear(x, np.array(0.5, ">f4"), output_dtype=e4, out=np.zeros(64, e4)))
    assert _lowbit.quantize_into(x, scale, None, 1, 1, np.zeros(64, np.uint8)) is None
    assert _lowbit.quantize_into(x, scale, "float8_e5m2", 1, 1, np.zeros(64, e4)) is None
    assert _lowbit.quantize_into(x, scale, None, 2, 1, np.zeros(64, e4)) is None
    assert _lowbit.quantize_into(x, 0.5, None, 1, 1, np.zeros(64, e4)) is None
    buf = np.zeros(64 * 4, np.uint8)                                  # out overlaps x
    xs = buf.view(np.float32)
    xs[...] = x
    out = buf[64:128].view(e4)
    assert _lowbit.quantize_into(xs, scale, None, 1, 1, out) is None
    so.quantize_linear(xs, scale, output_dtype=e4, out=out)
    same8(out)
    ro = np.zeros(64, e4)
    ro.flags.writeable = False
    assert _lowbit.quantize_into(x, scale, None, 1, 1, ro) is None
    with pytest.raises((ValueError, TypeError)):
        so.quantize_linear(x, scale, output_dtype=e4, out=ro)


def test_float8_quantize_into_bad_input_raises():
    e4 = ml_dtypes.float8_e4m3fn
    x = np.zeros(8, np.float32)
    with pytest.raises(ValueError):
        so.quantize_linear(x, np.array(0.5, np.float32), output_dtype=e4, out=np.zeros(9, e4))
    with pytest.raises(ValueError):                                   # scale of 2 for 8
        so.quantize_linear(x, np.array([0.5, 1.0], np.float32), output_dtype=e4,
                           out=np.zeros(8, e4))
    with pytest.raises((ValueError, TypeError)):                      # out's type is not e5m2
        so.quantize_linear(x, np.array(0.5, np.float32), output_dtype="float8_e5m2",
                           out=np.zeros(8, e4))
    with pytest.raises(ValueError, match="saturate"):
        so.quantize_linear(x, np.array(0.5, np.float32), output_dtype=e4, saturate=2,
                           out=np.zeros(8, e4))
