"""C-level reuse (docs/c-api.md): the example extensions of examples/ are built
against the installed simdops (once per session, in the background: capi_build.py),
then must give the Python API's bits on every dtype, work from 4 threads at once,
and refuse a C API table that is older than they need.

`pytest -k "capi or cython"` selects these tests; they skip only when no C
compiler exists (building needs setuptools, and Cython for the Cython one).
"""
import ctypes
import threading

import numpy as np
import pytest

import simdops
from simdops import _core
from capi_build import built, register_example
from conftest import random_bits, sprinkle
from reference import REQUANT_OUT

register_example("c_extension", "simdops_c_example")
register_example("cython_extension", "simdops_cython_example", needs_cython=True)

# numpy dtype name -> simdops_dtype value (DirectML's DML_TENSOR_DATA_TYPE), from the C table
DTYPE_CODES = {name: code for code, name in _core.DTYPE_NAMES.items()}
CLIP_DTYPES = list(_core.op_dtypes("clip"))
SHRINK_DTYPES = list(_core.op_dtypes("shrink"))
HARDMAX_DTYPES = list(_core.op_dtypes("hardmax"))
SPECIAL_FLOATS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 65504.0, 1e30]


@pytest.fixture(scope="session")
def capi_c():
    """examples/c_extension built against the installed simdops."""
    return built("c_extension")


@pytest.fixture(scope="session")
def cython_ext():
    """examples/cython_extension built against the installed simdops."""
    return built("cython_extension")


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
    with pytest.raises(ValueError, match="min is NaN"):
        capi_c.clip(DTYPE_CODES["float32"], x, x, float("nan"), 1.0)
    with pytest.raises(TypeError, match="int64"):
        capi_c.shrink(DTYPE_CODES["int64"], x, x, 0, 1)
    with pytest.raises(ValueError, match="overlaps"):
        capi_c.clip(DTYPE_CODES["float32"], x[1:], x[:-1], 0.0, 1.0)


def test_capi_c_isa_is_the_threads_isa(capi_c):
    for name in simdops.available_isas():
        with simdops.use_isa(name):
            assert capi_c.isa() == name


# ---- the table itself ----

def capsule_table_address():
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(simdops._C_API, b"simdops._C_API")


def test_capi_table_is_versioned_and_complete():
    address = capsule_table_address()
    abi_version, size = (ctypes.c_uint32 * 2).from_address(address)
    pointer = ctypes.sizeof(ctypes.c_void_p)
    assert abi_version >= 1
    assert size > 8 and (size - 8) % pointer == 0
    fields = (ctypes.c_void_p * ((size - 8) // pointer)).from_address(address + 8)
    assert all(fields), f"NULL entries at {[i for i, f in enumerate(fields) if not f]}"


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


# ---- 1-D kernels of every op through the C example ----

@pytest.mark.parametrize("dtype", SHRINK_DTYPES)
def test_capi_c_shrink_1d_matches_python(capi_c, rng, dtype):
    x = sample(rng, dtype)
    bias, threshold = (1.5, 2.25) if np.dtype(dtype).kind == "f" else (3, 7)
    y = np.empty_like(x)
    capi_c.shrink(DTYPE_CODES[dtype], x, y, bias, threshold)
    assert same_bits(y, simdops.shrink(x, bias, threshold))


@pytest.mark.parametrize("dtype", HARDMAX_DTYPES)
def test_capi_c_hardmax_rows_matches_python(capi_c, rng, dtype):
    x = sample(rng, dtype, 37 * 29).reshape(37, 29)
    y = np.empty_like(x)
    capi_c.hardmax_rows(DTYPE_CODES[dtype], x, y, 29)
    assert same_bits(y, simdops.hardmax(x, axis=-1))


def requant_case(rng, out_dtype, per_channel, with_bias, channels=19, rows=23):
    """x, bias, (multiplier, shift), offset, min, max for one requant call."""
    x = random_bits(rng, rows * channels, np.int32).reshape(rows, channels)
    bias = random_bits(rng, channels, np.int32) if with_bias else None
    if per_channel:
        multiplier = rng.integers(-2**31, 2**31, channels, dtype=np.int64).astype(np.int32)
        shift = rng.integers(-31, 32, channels).astype(np.int32)
    else:
        multiplier = int(rng.integers(-2**31, 2**31))
        shift = int(rng.integers(-31, 32))
    lo_t, hi_t = REQUANT_OUT[out_dtype]
    lo, hi = sorted(int(v) for v in rng.integers(lo_t, hi_t + 1, 2))
    offset = 0 if out_dtype == "int16" else int(rng.integers(-2**31, 2**31))
    return x, bias, multiplier, shift, offset, lo, hi


@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("with_bias", [False, True], ids=["no_bias", "bias"])
@pytest.mark.parametrize("out_dtype", list(REQUANT_OUT))
def test_capi_c_requant_matches_python(capi_c, rng, out_dtype, per_channel, with_bias):
    x, bias, multiplier, shift, offset, lo, hi = requant_case(rng, out_dtype, per_channel,
                                                              with_bias)
    y = np.empty(x.shape, out_dtype)
    capi_c.requant(DTYPE_CODES[out_dtype], x, y, multiplier, shift, offset, lo, hi, bias)
    expected = simdops.quantize_down_int32(x, multiplier, shift, offset, bias=bias, min=lo,
                                           max=hi, out_dtype=out_dtype)
    assert same_bits(y, expected)


# ---- 4 threads at once, each with its own ISA ----

def run_in_threads(jobs):
    """Runs every job in its own thread, all started together; re-raises failures."""
    barrier = threading.Barrier(len(jobs))
    errors = []

    def run(job):
        try:
            barrier.wait()
            job()
        except BaseException as e:  # reported to the main thread below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def check_from_four_threads(call, rng):
    """call(x, y, lo, hi) from 4 threads at once (each forcing one ISA, in turn)
    on its own float32 data, 20 rounds each; every result must be clip's."""
    isas = simdops.available_isas()
    cases = []
    for k in range(4):
        x = sample(rng, np.float32, 200_003)
        lo, hi = sorted(float(v) for v in rng.standard_normal(2))
        cases.append((isas[k % len(isas)], x, lo, hi, simdops.clip(x, lo, hi)))

    def job(isa, x, lo, hi, expected):
        def work():
            y = np.empty_like(x)
            with simdops.use_isa(isa):
                for _ in range(20):
                    y[:] = 0
                    call(x, y, lo, hi)
                    assert same_bits(y, expected), f"thread with ISA {isa}: wrong bits"
        return work

    run_in_threads([job(*case) for case in cases])


def test_capi_c_threads(capi_c, rng):
    code = DTYPE_CODES["float32"]
    check_from_four_threads(lambda x, y, lo, hi: capi_c.clip(code, x, y, lo, hi), rng)


# ---- the figure: the capsule's hot path against the Python API ----

def best_time(fn, repeats, rounds=15):
    """Minimum over rounds of the mean time of one fn() call, in seconds."""
    import time
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeats)
    return best


def test_capi_clip_1d_speed_figure(capi_c):
    """Prints (no assertion on time) the 1-D clip kernel through the capsule on
    65,536 float32 elements vs simdops.clip(out=) minus its call overhead,
    measured at 16 elements. Run with -s to see it."""
    n = 65_536
    x = np.linspace(-2, 2, n, dtype=np.float32)
    y = np.empty_like(x)
    small_x, small_y = x[:16].copy(), y[:16].copy()
    code = DTYPE_CODES["float32"]
    times = {"capsule": [], "python": [], "overhead": []}
    for _ in range(3):  # interleaved, so machine noise hits all three alike
        times["capsule"].append(best_time(lambda: capi_c.clip_repeat(code, x, y, -1.0, 1.0, 50), 2) / 50)
        times["python"].append(best_time(lambda: simdops.clip(x, -1.0, 1.0, out=y), 100))
        times["overhead"].append(best_time(lambda: simdops.clip(small_x, -1.0, 1.0, out=small_y), 1000))
    capsule, python, overhead = (min(v) for v in times.values())
    kernel_via_python = max(python - overhead, 1e-12)
    print(f"\n[capi figure] clip float32 n={n} isa={simdops.isa()}: capsule clip_1d "
          f"{capsule * 1e6:.2f} us; simdops.clip {python * 1e6:.2f} us - call overhead "
          f"{overhead * 1e6:.2f} us = {kernel_via_python * 1e6:.2f} us; "
          f"ratio capsule/python-kernel = {capsule / kernel_via_python:.2f}")
    assert same_bits(y, simdops.clip(x, -1.0, 1.0))


# ---- the Cython example (from simdops cimport capi; typed memoryviews, nogil) ----

def cython_view(a):
    """float16 travels as its uint16 bits through a typed memoryview."""
    return a.view(np.uint16) if a.dtype == np.float16 else a


@pytest.mark.parametrize("dtype", CLIP_DTYPES)
def test_cython_clip_matches_python(cython_ext, rng, dtype):
    x = sample(rng, dtype)
    lo, hi = clip_bounds(rng, dtype)
    y = np.empty_like(x)
    cython_ext.clip(cython_view(x), cython_view(y), lo, hi, float16=(dtype == "float16"))
    assert same_bits(y, simdops.clip(x, lo, hi))


@pytest.mark.parametrize("dtype", SHRINK_DTYPES)
def test_cython_shrink_matches_python(cython_ext, rng, dtype):
    x = sample(rng, dtype)
    bias, threshold = (0.75, 1.5) if np.dtype(dtype).kind == "f" else (5, 2)
    y = np.empty_like(x)
    cython_ext.shrink(cython_view(x), cython_view(y), bias, threshold,
                      float16=(dtype == "float16"))
    assert same_bits(y, simdops.shrink(x, bias, threshold))


@pytest.mark.parametrize("dtype", HARDMAX_DTYPES)
def test_cython_hardmax_matches_python(cython_ext, rng, dtype):
    x = sample(rng, dtype, 31 * 17).reshape(31, 17)
    y = np.empty_like(x)
    cython_ext.hardmax(cython_view(x), cython_view(y))
    assert same_bits(y, simdops.hardmax(x, axis=-1))


@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("with_bias", [False, True], ids=["no_bias", "bias"])
@pytest.mark.parametrize("out_dtype", list(REQUANT_OUT))
def test_cython_requant_matches_python(cython_ext, rng, out_dtype, per_channel, with_bias):
    x, bias, multiplier, shift, offset, lo, hi = requant_case(rng, out_dtype, per_channel,
                                                              with_bias)
    y = np.empty(x.shape, out_dtype)
    cython_ext.requant(x, y, multiplier, shift, offset, lo, hi, bias)
    expected = simdops.quantize_down_int32(x, multiplier, shift, offset, bias=bias, min=lo,
                                           max=hi, out_dtype=out_dtype)
    assert same_bits(y, expected)


def test_cython_reports_errors(cython_ext):
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="NaN"):
        cython_ext.clip(x, x, float("nan"), 1.0)
    with pytest.raises(ValueError, match="threshold"):
        cython_ext.shrink(x, x, 0.0, -1.0)
    with pytest.raises(TypeError):
        cython_ext.shrink(x.view(np.int64)[:2], x.view(np.int64)[:2].copy(), 0, 1)


def test_cython_threads(cython_ext, rng):
    check_from_four_threads(lambda x, y, lo, hi: cython_ext.clip(x, y, lo, hi), rng)


def test_cython_isa_is_the_threads_isa(cython_ext):
    for name in simdops.available_isas():
        with simdops.use_isa(name):
            assert cython_ext.isa() == name
