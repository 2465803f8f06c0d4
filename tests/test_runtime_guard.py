"""SIMDOPS_REQUIRE_RUNTIMES=1 (set by CI) turns a skip for a module that does not import into
a failure (tests/conftest.py): run one test file in a child pytest with xarray made
unimportable, once without the variable (a skip: exit 0, or 5 when the skip leaves no test)
and once with it (a collection error naming the module: exit 2)."""
import os
import subprocess
import sys

import pytest

# the child's file imports these before xarray: without them its skip would name another
pytest.importorskip("simdops.ufunc")
pytest.importorskip("dask.array")

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = """
import sys
sys.modules["xarray"] = None  # its import raises ImportError, as a broken install's would
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-rs",
                      sys.argv[1]]))
"""


def _child(require):
    env = {k: v for k, v in os.environ.items() if k != "SIMDOPS_REQUIRE_RUNTIMES"}
    if require:
        env["SIMDOPS_REQUIRE_RUNTIMES"] = "1"
    return subprocess.run([sys.executable, "-c", CHILD,
                           os.path.join(HERE, "test_ufunc_ecosystem.py")],
                          capture_output=True, text=True, env=env, cwd=os.path.dirname(HERE),
                          timeout=600)


@pytest.mark.thread_unsafe(reason="runs a child pytest")
def test_missing_module_skips_without_the_variable():
    r = _child(False)
    assert r.returncode in (0, 5), r.stdout[-2000:] + r.stderr[-2000:]
    assert "could not import 'xarray'" in r.stdout


@pytest.mark.thread_unsafe(reason="runs a child pytest")
def test_missing_module_fails_with_the_variable():
    r = _child(True)
    assert r.returncode in (1, 2), r.stdout[-2000:] + r.stderr[-2000:]
    assert "SIMDOPS_REQUIRE_RUNTIMES=1" in r.stdout and "xarray" in r.stdout
