"""C-level reuse (SPEC §7): the example extensions of examples/ are built in a
temporary directory against the installed simdops, then must give the
Python API's bits on every dtype, work from 4 threads at once, and refuse
a C API table that is older than they need.

`pytest -k "capi or cython"` selects these tests; they skip only when no C
compiler exists (building needs setuptools, and Cython for the Cython one).
"""
import ctypes
import threading

import numpy as np
import pytest

import simdops
from capi_build import build_example, c_compiler_missing, load_module
from conftest import random_bits, sprinkle

pytestmark = pytest.mark.skipif(c_compiler_missing() is not None,
                                reason=str(c_compiler_missing()))

DTYPE_CODES = {  # numpy dtype name -> DirectML value (SPEC §2)
    "float32": 1, "float16": 2, "uint32": 3, "uint16": 4, "uint8": 5, "int32": 6,
    "int16": 7, "int8": 8, "float64": 9, "uint64": 10, "int64": 11,
}
CLIP_DTYPES = list(DTYPE_CODES)
SHRINK_DTYPES = [d for d in DTYPE_CODES if d not in ("uint64", "int64")]
HARDMAX_DTYPES = ["float32", "float16", "float64"]
REQUANT_OUT = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}
SPECIAL_FLOATS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 65504.0, 1e30]


@pytest.fixture(scope="module")
def capi_c(tmp_path_factory):
    """examples/c_extension built against the installed simdops."""
    directory = build_example("c_extension", str(tmp_path_factory.mktemp("capi_c")))
    return load_module("simdops_c_example", directory)


@pytest.fixture(scope="module")
def cython_ext(tmp_path_factory):
    """examples/cython_extension built against the installed simdops."""
    pytest.importorskip("Cython", reason="the Cython example needs Cython to build")
    directory = build_example("cython_extension", str(tmp_path_factory.mktemp("capi_cython")))
    return load_module("simdops_cython_example", directory)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def sample(rng, dtype, n=1037):
    """Random bit patterns of dtype with the special values of floats sprinkled in."""
    x = random_bits(rng, n, dtype)
    if np.dtype(dtype).kind == "f":
        with np.errstate(over="ignore"):
            x = sprinkle(rng, x, SPECIAL_FLOATS)
    return x


def clip_bounds(rng, dtype):
    """A (min, max) pair of Python numbers inside dtype's range."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        lo, hi = sorted(rng.standard_normal(2) * 100)
        return float(lo), float(hi)
    info = np.iinfo(dt)
    lo, hi = sorted(int(v) for v in rng.integers(info.min, info.max, size=2, endpoint=True,
                                                  dtype=dt))
    return lo, hi


# ---- the C example (simdops_import(), plain C) ----

@pytest.mark.parametrize("dtype", CLIP_DTYPES)
def test_capi_c_clip_1d_matches_python(capi_c, rng, dtype):
    x = sample(rng, dtype)
    lo, hi = clip_bounds(rng, dtype)
    y = np.empty_like(x)
    capi_c.clip(DTYPE_CODES[dtype], x, y, lo, hi)
    assert same_bits(y, simdops.clip(x, lo, hi))


@pytest.mark.parametrize("dtype", CLIP_DTYPES)
def test_capi_c_clip_strided_matches_python(capi_c, rng, dtype):
    x = sample(rng, dtype, 6 * 35).reshape(6, 35)[::-2, 1::3]
    lo, hi = clip_bounds(rng, dtype)
    y = np.empty((6, 35), dtype)[::2, ::3]
    capi_c.clip_strided(DTYPE_CODES[dtype], x, y, lo, hi)
    assert same_bits(y, simdops.clip(x, lo, hi))


def test_capi_c_reports_status_as_exception(capi_c):
    x = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="simdops"):
        capi_c.clip(DTYPE_CODES["float32"], x, x, float("nan"), 1.0)


def test_capi_c_isa_is_the_threads_isa(capi_c):
    for name in simdops.available_isas():
        with simdops.use_isa(name):
            assert capi_c.isa() == name


# ---- refusing a table the caller cannot use ----

def test_capi_refuses_newer_required_version(capi_c):
    abi_version, _size = capi_c.version()
    with pytest.raises(ImportError) as e:
        capi_c.require_version(abi_version + 1)
    msg = str(e.value)
    assert f"version {abi_version}" in msg and f"version {abi_version + 1}" in msg
    capi_c.require_version(abi_version)  # its own version is accepted again


def _fake_capsule(name, abi_version, size):
    """A capsule over a table that starts with (abi_version, size), then zeros."""
    table = (ctypes.c_uint32 * 64)(abi_version, size)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    name_bytes = name.encode()
    capsule = new(ctypes.addressof(table), name_bytes, None)
    return capsule, (table, name_bytes)  # keep both alive as long as the capsule


@pytest.mark.parametrize("name, abi_version, size, message", [
    ("simdops._C_API", 0, 512, "version 0 is older"),
    ("simdops._C_API", 1, 8, "has 8 bytes"),
    ("other._C_API", 1, 512, "not a capsule named"),
])
def test_capi_refuses_a_bad_capsule(capi_c, monkeypatch, name, abi_version, size, message):
    capsule, keep = _fake_capsule(name, abi_version, size)
    monkeypatch.setattr(simdops, "_C_API", capsule)
    abi, _ = capi_c.version()
    with pytest.raises(ImportError, match=message):
        capi_c.require_version(1)
    monkeypatch.undo()
    capi_c.require_version(abi)  # the real table is taken again
    del keep


def test_capi_refuses_a_missing_capsule(capi_c, monkeypatch):
    monkeypatch.delattr(simdops, "_C_API")
    with pytest.raises(ImportError, match="no C API capsule"):
        capi_c.require_version(1)
