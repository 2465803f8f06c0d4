"""simdops.ufunc through other libraries' __array_ufunc__: dask arrays stay lazy, masked
arrays keep their masks, xarray keeps coordinates; the bits are simdops' functions'.
Also the plain functions with 0-d parameters under xr.apply_ufunc(dask="parallelized")."""
import numpy as np
import pytest

import simdops

ufunc = pytest.importorskip("simdops.ufunc")
da = pytest.importorskip("dask.array")
xr = pytest.importorskip("xarray")

RNG = np.random.default_rng(7)


def bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def assert_bits(a, b):
    assert np.asarray(a).dtype == np.asarray(b).dtype
    np.testing.assert_array_equal(bits(a), bits(b))


X = RNG.normal(0, 3, (8, 6)).astype(np.float32)
ACC = RNG.integers(-20000, 20000, (2, 3, 4, 5)).astype(np.int32)
SCALE = np.array([0.01, 0.02, 0.037], np.float32)


def test_dask_stays_lazy_and_matches():
    dx = da.from_array(X, chunks=(4, 3))
    r = ufunc.clip(dx, -1.0, 1.0)
    assert isinstance(r, da.Array)
    assert_bits(r.compute(), simdops.clip(X, -1.0, 1.0))
    r = ufunc.shrink(dx, 0.5, 0.5)
    assert isinstance(r, da.Array)
    assert_bits(r.compute(), simdops.shrink(X, 0.5, 0.5))
    dacc = da.from_array(ACC, chunks=(1, 3, 2, 5))
    r = ufunc.requantize_fp32(dacc, SCALE[:, None, None], np.int8(2))  # int8 zero point: int8
    assert isinstance(r, da.Array) and r.dtype == np.int8
    want = np.moveaxis(simdops.requantize_fp32(np.ascontiguousarray(np.moveaxis(ACC, 1, -1)),
                                               SCALE, 2, out_dtype="int8"), -1, 1)
    assert_bits(r.compute(), want)
    m, s = simdops.quantize_multiplier(0.01)
    r = ufunc.quantize_down_int32(dacc, m, s, 3)
    assert isinstance(r, da.Array)
    assert_bits(r.compute(), simdops.quantize_down_int32(ACC, m, s, 3))


def test_dask_hardmax_gufunc():
    dx = da.from_array(X, chunks=(4, 6))  # the core axis in one chunk, as dask requires
    r = ufunc.hardmax(dx)
    assert isinstance(r, da.Array)
    assert_bits(r.compute(), simdops.hardmax(X))


def test_masked_arrays_keep_masks():
    mask = RNG.random(X.shape) < 0.3
    mx = np.ma.masked_array(X, mask=mask)
    r = ufunc.clip(mx, -1.0, 1.0)
    assert isinstance(r, np.ma.MaskedArray)
    np.testing.assert_array_equal(r.mask, mask)
    want = simdops.clip(X, -1.0, 1.0)
    assert_bits(r.data[~mask], want[~mask])
    macc = np.ma.masked_array(ACC, mask=ACC < 0)
    r = ufunc.requantize_fp32(macc, 0.01, 128)
    assert isinstance(r, np.ma.MaskedArray)
    np.testing.assert_array_equal(r.mask, ACC < 0)
    assert_bits(r.data[ACC >= 0], simdops.requantize_fp32(ACC, 0.01, 128)[ACC >= 0])


def test_xarray_keeps_coordinates():
    arr = xr.DataArray(X, dims=("t", "c"), coords={"t": np.arange(8), "c": list("abcdef")},
                       attrs={"units": "V"})
    r = ufunc.clip(arr, -1.0, 1.0)
    assert isinstance(r, xr.DataArray)
    assert list(r.coords["c"].values) == list("abcdef")
    assert_bits(r.values, simdops.clip(X, -1.0, 1.0))
    # per channel by name: xarray broadcasts the scale against the channel dimension
    acc = xr.DataArray(ACC, dims=("n", "c", "h", "w"), coords={"c": ["r", "g", "b"]})
    scale = xr.DataArray(SCALE, dims=("c",), coords={"c": ["r", "g", "b"]})
    r = ufunc.requantize_fp32(acc, scale, 2)
    assert r.dims == ("n", "c", "h", "w") and list(r.coords["c"].values) == ["r", "g", "b"]
    want = np.moveaxis(simdops.requantize_fp32(np.ascontiguousarray(np.moveaxis(ACC, 1, -1)),
                                               SCALE, 2), -1, 1)
    assert_bits(r.values, want)
    r = xr.apply_ufunc(ufunc.shrink, arr, 0.5, 0.5)
    assert list(r.coords["t"].values) == list(range(8))
    assert_bits(r.values, simdops.shrink(X, 0.5, 0.5))


def test_xarray_dask_parallelized_with_the_plain_functions():
    arr = xr.DataArray(da.from_array(X, chunks=(4, 3)), dims=("t", "c"),
                       coords={"c": list("abcdef")})
    r = xr.apply_ufunc(simdops.clip, arr, -1.0, 1.0, dask="parallelized",
                       output_dtypes=[np.float32])
    assert isinstance(r.data, da.Array)
    assert_bits(r.compute().values, simdops.clip(X, -1.0, 1.0))
    r = xr.apply_ufunc(ufunc.clip, arr, -1.0, 1.0, dask="allowed")
    assert isinstance(r.data, da.Array)
    assert_bits(r.compute().values, simdops.clip(X, -1.0, 1.0))
