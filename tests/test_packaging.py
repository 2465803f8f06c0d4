"""The installed package as a user meets it: typed API, one version, CLI help."""
import ast
import os
import re
import subprocess
import sys

import pytest

import simdops
from simdops import acl, dml

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(simdops.__file__)


def test_typing_usage_runs():
    # the script mypy --strict checks (ci/typecheck.sh) must also be right at run time
    import typing_usage
    typing_usage.main()


def _stub_names(module_file):
    """Top-level names a .pyi defines (functions, classes, annotated names, re-exports)."""
    tree = ast.parse(open(module_file, encoding="utf-8").read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):  # explicit re-exports: `import x as x`
            names.update(a.asname for a in node.names if a.asname == a.name)
    return names


@pytest.mark.parametrize("module", [simdops, dml, acl], ids=lambda m: m.__name__)
# pytest-run-parallel: ast.parse from two threads at once raises SystemError
# ("AST constructor recursion depth mismatch") on CPython 3.11
@pytest.mark.thread_unsafe(reason="ast.parse is not thread-safe on CPython 3.11")
def test_stubs_ship_and_cover_the_public_api(module):
    assert os.path.exists(os.path.join(PACKAGE, "py.typed"))
    stub = os.path.splitext(module.__file__)[0] + ".pyi"  # a package's is its __init__.pyi
    assert os.path.exists(stub), f"{module.__name__} has no stub next to it"
    missing = set(module.__all__) - _stub_names(stub)
    assert not missing, f"{os.path.basename(stub)} lacks {sorted(missing)}"


def test_version_is_the_headers():
    header = os.path.join(simdops.get_include(), "simdops", "simdops.h")
    text = open(header, encoding="utf-8").read()
    major = int(re.search(r"#define SIMDOPS_VERSION_MAJOR (\d+)", text).group(1))
    minor = int(re.search(r"#define SIMDOPS_VERSION_MINOR (\d+)", text).group(1))
    assert re.match(r"^\d+\.\d+", simdops.__version__), simdops.__version__
    assert tuple(int(p) for p in simdops.__version__.split(".")[:2]) == (major, minor)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "simdops", *args], capture_output=True,
                          text=True, timeout=300, cwd=HERE)


@pytest.mark.parametrize("command, option", [("info", None), ("selftest", "--quick"),
                                             ("bench", "--quick")])
def test_cli_subcommand_help(command, option):
    r = _cli(command, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: python -m simdops {command}"), r.stdout
    assert "passed" not in r.stdout  # help only: selftest did not run
    if option:
        assert option in r.stdout


def test_cli_top_level():
    r = _cli("--help")
    assert r.returncode == 0 and all(c in r.stdout for c in ("info", "selftest", "bench"))
    r = _cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"simdops {simdops.__version__}"
    r = _cli("no-such-command")
    assert r.returncode == 2 and "invalid choice" in r.stderr
