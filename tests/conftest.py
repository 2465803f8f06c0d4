"""Shared fixtures and helpers for the simdops test suite.

SIMDOPS_HYPOTHESIS_PROFILE=thorough runs 1000 examples per property test."""
import os
import re
import sys
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# CPython 3.11's ast.parse is not thread-safe ("SystemError: AST constructor recursion depth
# mismatch" when two threads parse at once): hypothesis parses lambda sources with it, and
# pytest-run-parallel (.ci/run) runs each test on two threads. One lock around it.
if sys.version_info < (3, 12):
    import ast
    import threading

    _AST_LOCK = threading.RLock()
    _ast_parse = ast.parse

    def _parse_one_at_a_time(*args, **kwargs):
        with _AST_LOCK:
            return _ast_parse(*args, **kwargs)

    ast.parse = _parse_one_at_a_time

import simdops  # noqa: E402
from reference import mismatch_report  # noqa: E402

settings.register_profile(
    "default", deadline=None, max_examples=100,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile(
    "thorough", deadline=None, max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("SIMDOPS_HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config):
    # float32(huge scale) overflowing to inf inside simdops is intended
    config.addinivalue_line("filterwarnings", "ignore:overflow encountered in cast:RuntimeWarning")


@pytest.hookimpl(trylast=True)      # after -k / -m deselection
def pytest_collection_modifyitems(session, config, items):
    # the example extensions the collected C API tests need: built once per session, in the
    # background while other test files run (capi_build.py)
    import capi_build
    capi_build.start_builds({str(item.path) for item in items})


# CI sets SIMDOPS_REQUIRE_RUNTIMES=1: there a test that skips because a module it runs (a
# runtime, torch, dask, xarray...) does not import is a failure, not a skip. Without it a
# broken install, a wheel pulled from the index without its native library, or an import
# that fails under memory pressure would turn a runtime-exactness proof into one line of
# "skipped" that nobody reads, and CI would still pass. The reasons are the tests' own
# (pytest.importorskip's "could not import", the suites' "X is not installed", the docs
# blocks' "needs torch"); structural skips (an opset, an ISA, numpy's version) stay skips.
_REQUIRE_RUNTIMES = os.environ.get("SIMDOPS_REQUIRE_RUNTIMES") == "1"
_MISSING_MODULE = re.compile(r"could not import '|is not importable|not installed|"
                             r"^(Skipped: )?(docs/\S+|the block) needs ")


def _missing_required(report):
    """The skip reason when report is a skip for a module that does not import, else None."""
    if not (_REQUIRE_RUNTIMES and report.skipped):
        return None
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    return reason if _MISSING_MODULE.search(reason) else None


def _fail_missing(report):
    reason = _missing_required(report)
    if reason is not None:
        report.outcome = "failed"
        report.longrepr = ("SIMDOPS_REQUIRE_RUNTIMES=1 and a module this proof runs does not "
                           f"import, so it would have skipped: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):  # a module-level importorskip
    outcome = yield
    _fail_missing(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # a test's own importorskip
    outcome = yield
    _fail_missing(outcome.get_result())


def pytest_sessionfinish(session, exitstatus):
    import capi_build
    capi_build.finish()


ISAS = simdops.available_isas()
SIMD_ISAS = tuple(i for i in ISAS if i != "scalar")


def check_all_isas(fn, expected, x=None, nan_bits=True, context=""):
    """Run fn() under every available ISA; each result must match expected
    (bitwise; NaN-ness only for computed NaNs when nan_bits is False)."""
    for isa in ISAS:
        with simdops.use_isa(isa):
            got = fn()
        msg = mismatch_report(got, expected, x, nan_bits)
        assert msg is None, f"[isa={isa}] {context}: {msg}"


@pytest.fixture
def rng(request):
    # a stable seed per test, so failures reproduce
    seed = zlib.crc32(request.node.nodeid.encode())
    return np.random.default_rng(seed)


def random_bits(rng, n, dtype):
    """n values of dtype with uniformly random bit patterns."""
    dtype = np.dtype(dtype)
    return np.frombuffer(rng.bytes(n * dtype.itemsize), dtype=dtype).copy()


def sprinkle(rng, arr, values):
    """arr with some entries replaced by the given values at random places."""
    arr = arr.copy()
    if arr.size and len(values):
        k = min(arr.size, len(values))
        idx = rng.choice(arr.size, size=k, replace=False)
        values = np.asarray(values).astype(arr.dtype)
        arr.reshape(-1)[idx] = values[rng.permutation(len(values))[:k]]
    return arr
