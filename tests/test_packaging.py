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


def test_typing_usage_dask_runs():
    pytest.importorskip("dask.array")
    import typing_usage_dask
    typing_usage_dask.main()


def _dask_module():
    try:
        import simdops.dask
    except ImportError:
        return None
    return simdops.dask


def _stub_all(module_file):
    """The `__all__ = [...]` a .pyi assigns, or None."""
    tree = ast.parse(open(module_file, encoding="utf-8").read())
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "__all__"):
            return ast.literal_eval(node.value)
    return None


def _stub_names(module_file):
    """Top-level names a .pyi defines (functions, classes, annotated names, re-exports;
    `from simdops.x import *`: the __all__ of simdops/x.pyi)."""
    tree = ast.parse(open(module_file, encoding="utf-8").read())
    names = set()
    for node in tree.body:
        if (isinstance(node, ast.ImportFrom) and node.names[0].name == "*"
                and node.module.startswith("simdops.")):
            star = os.path.join(PACKAGE, *node.module.split(".")[1:]) + ".pyi"
            names.update(_stub_all(star) or ())
            continue
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):  # explicit re-exports: `import x as x`
            names.update(a.asname for a in node.names if a.asname == a.name)
    return names


@pytest.mark.parametrize("module", [simdops, dml, acl, "simdops.dask", "simdops.torch",
                                    "simdops.ufunc"],
                         ids=lambda m: m if isinstance(m, str) else m.__name__)
# pytest-run-parallel: ast.parse from two threads at once raises SystemError
# ("AST constructor recursion depth mismatch") on CPython 3.11
@pytest.mark.thread_unsafe(reason="ast.parse is not thread-safe on CPython 3.11")
def test_stubs_ship_and_cover_the_public_api(module):
    if module == "simdops.dask":
        module = _dask_module()
        if module is None:
            pytest.skip("dask not installed")
    elif module == "simdops.torch":
        module = pytest.importorskip("simdops.torch", reason="torch is not installed",
                                     exc_type=ImportError)
    elif module == "simdops.ufunc":
        module = pytest.importorskip("simdops.ufunc", reason="needs numpy >= 2")
    assert os.path.exists(os.path.join(PACKAGE, "py.typed"))
    stub = os.path.splitext(module.__file__)[0] + ".pyi"  # a package's is its __init__.pyi
    assert os.path.exists(stub), f"{module.__name__} has no stub next to it"
    missing = set(module.__all__) - _stub_names(stub)
    assert not missing, f"{os.path.basename(stub)} lacks {sorted(missing)}"


@pytest.mark.thread_unsafe(reason="ast.parse is not thread-safe on CPython 3.11")
def test_core_stub_lists_what_core_exports():
    # simdops re-exports _core.__all__ (its stub: `from simdops._core import *`, which
    # mypy reads through _core.pyi's __all__): the two lists and the stub's defs agree
    from simdops import _core
    stub = os.path.join(PACKAGE, "_core.pyi")
    listed = _stub_all(stub)
    assert listed is not None, "_core.pyi has no __all__"
    assert sorted(listed) == sorted(_core.__all__), (
        f"_core.pyi's __all__ lacks {sorted(set(_core.__all__) - set(listed))}, "
        f"has extra {sorted(set(listed) - set(_core.__all__))}")
    tree = ast.parse(open(stub, encoding="utf-8").read())
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    undefined = sorted(set(listed) - defined)
    assert not undefined, f"_core.pyi lacks the stubs of {undefined}"
    assert set(_core.__all__) <= set(simdops.__all__)


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
    # the program as users type it (argparse's default would be "__main__.py")
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


def test_cli_usage_names_the_console_script():
    from simdops.__main__ import build_parser, program_name
    assert program_name("/usr/bin/simdops") == "simdops"
    assert program_name("C:\\venv\\Scripts\\simdops.exe") == "simdops"
    assert program_name("/x/site-packages/simdops/__main__.py") == "python -m simdops"
    usage = build_parser("simdops").format_usage()
    assert usage.startswith("usage: simdops "), usage
    script = os.path.join(os.path.dirname(sys.executable), "simdops")
    if os.path.exists(script):               # the installed console script itself
        r = subprocess.run([script, "bench", "--help"], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0 and r.stdout.startswith("usage: simdops bench"), r.stdout


def test_import_does_not_import_importlib_metadata():
    # importlib.metadata costs more to import than simdops itself
    code = ("import sys, simdops; assert simdops.__version__; "
            "print('importlib.metadata' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, cwd=HERE)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def _installed_metadata():
    """simdops' distribution metadata; skips for an in-place build run from the source tree
    (ci/asan.sh), which has none."""
    from importlib import metadata
    try:
        return metadata.metadata("simdops")
    except metadata.PackageNotFoundError:
        pytest.skip("simdops is not installed (an in-place build): no metadata to read")


def test_version_without_importlib_metadata_is_the_metadata_version():
    assert simdops.__version__ == _installed_metadata()["Version"]


def test_metadata_classifiers_urls_and_extras():
    md = _installed_metadata()
    classifiers = md.get_all("Classifier") or []
    versions = {c.rsplit(" :: ", 1)[1] for c in classifiers
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)}
    pyproject = os.path.join(os.path.dirname(HERE), "pyproject.toml")
    if os.path.exists(pyproject):        # the Python versions are the ones wheels are built for
        text = open(pyproject, encoding="utf-8").read()
        build = re.search(r'^build\s*=\s*"([^"]+)"', text, re.M).group(1)
        built = {f"3.{m}" for m in re.findall(r"cp3(\d+)-\*", build)}
        assert versions == built, (versions, built)
    assert {"3.10", "3.14"} <= versions
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    assert {"Operating System :: POSIX :: Linux", "Operating System :: MacOS",
            "Operating System :: Microsoft :: Windows"} <= set(classifiers)
    urls = dict(u.split(", ", 1) for u in md.get_all("Project-URL") or [])
    assert {"Homepage", "Source", "Issues", "Changelog"} <= set(urls)
    # an unpinned torch in an extra resolves to the multi-GB CUDA build: none may pull it
    requires = md.get_all("Requires-Dist") or []
    assert not [r for r in requires if re.match(r"torch\b", r)], requires


def test_version_reads_the_dist_info_beside_an_installed_package(tmp_path):
    # the path an installed wheel takes (this checkout, an editable install, reads pyproject)
    import runpy
    package = tmp_path / "site-packages" / "simdops"
    package.mkdir(parents=True)
    source = os.path.join(PACKAGE, "_version.py")
    (package / "_version.py").write_text(open(source, encoding="utf-8").read())
    info = tmp_path / "site-packages" / "simdops-9.8.7.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.4\nName: simdops\nVersion: 9.8.7\n\n"
                                   "Version: 0.0.0 (the body, not a header)\n")
    assert runpy.run_path(str(package / "_version.py"))["__version__"] == "9.8.7"
