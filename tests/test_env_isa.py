"""SIMDOPS_ISA selects the ISA at import (docs/semantics.md), checked in fresh interpreters."""
import os
import platform
import subprocess
import sys

import pytest

import simdops

from simdops import _core

ISAS = simdops.available_isas()
KNOWN = _core.known_isas()
X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")
ARM = platform.machine().lower() in ("aarch64", "arm64")


def _env(value):
    env = dict(os.environ)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(simdops.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    if value is None:
        env.pop("SIMDOPS_ISA", None)
    else:
        env["SIMDOPS_ISA"] = value
    return env


def _run(value, code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(value), timeout=120)


_REPORT = ("import simdops, numpy as np; "
           "y = simdops.clip(np.arange(5, dtype=np.float32), 1.0, 3.0); "
           "assert y.tolist() == [1, 1, 2, 3, 3]; "
           "print(simdops.isa()); print(','.join(simdops.available_isas()))")


def test_available_isas_list():
    assert ISAS[0] == "scalar"
    assert len(set(ISAS)) == len(ISAS)
    assert set(ISAS) <= set(KNOWN)
    # every tier this CPU supports was built (a missing flags line would drop one silently)
    assert set(_core.cpu_supported_isas()) == set(ISAS)
    assert len(ISAS) > 1 or not (X86 or ARM)  # some SIMD tier on x86 and aarch64


@pytest.mark.parametrize("name", ISAS)
def test_env_selects_isa(name):
    r = _run(name, _REPORT)
    assert r.returncode == 0, r.stderr
    active, available = r.stdout.split()
    assert active == name
    assert tuple(available.split(",")) == ISAS  # selection does not change what is available


def test_env_unset_or_empty_uses_best():
    for value in (None, ""):
        r = _run(value, _REPORT)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split()[0] == ISAS[-1]


@pytest.mark.parametrize("name", ["avx1024", "bogus", "SSE2x", "scalar2"])
def test_env_unknown_isa_is_import_error(name):
    r = _run(name, "import simdops")
    assert r.returncode != 0
    assert "ImportError" in r.stderr, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert name in last
    for isa in ISAS:  # the message lists what is available
        assert isa in last, last


# tiers of this architecture the CPU lacks, and the other architecture's
@pytest.mark.parametrize("name", [i for i in KNOWN if i not in ISAS] + (["neon"] if X86 else []))
def test_env_isa_this_cpu_lacks_is_import_error(name):
    r = _run(name, "import simdops")
    assert r.returncode != 0
    assert "ImportError" in r.stderr, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    for isa in ISAS:
        assert isa in last, last


def test_env_isa_then_use_isa_switches(tmp_path):
    code = ("import simdops\n"
            "assert simdops.isa() == 'scalar'\n"
            f"with simdops.use_isa({ISAS[-1]!r}):\n"
            f"    assert simdops.isa() == {ISAS[-1]!r}\n"
            "assert simdops.isa() == 'scalar'\n"
            "print('ok')\n")
    r = _run("scalar", code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
