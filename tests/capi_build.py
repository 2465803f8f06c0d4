"""Builds the example extensions (examples/ and the ones cut out of docs/c-api.md) against the
*installed* simdops, once per test session, all at once in the background.

Building is most of the C API tests' time, and a build is a compiler running while the
interpreter waits. So every extension is registered when its test module is imported
(`register_example`, `register_files`); right after collection, if any registered extension's
tests were collected, conftest.py calls `start_builds()`, which launches every
`python setup.py build_ext --inplace` at once, in its own directory of one session directory,
while the other test files run. A test asks for its module with `built(name)`, which waits for
that build only. Each build is a subprocess of this interpreter with PYTHONPATH removed: only
simdops.get_include() and the installed .pxd files are used, never a path into this source
tree. The session directory is removed at the end of the session.

A successful build is also kept in a cache directory (SIMDOPS_TEST_BUILD_CACHE, default
<tmp>/simdops-test-extensions-cache-<uid>; "0" turns it off), under a hash of everything the
build reads: the extension's files, the installed simdops headers and .pxd files, the Python
and its extension suffix, the Cython and setuptools versions. A later session with the same
inputs loads the cached module instead of compiling again.
"""
import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


class _Build:
    def __init__(self, name, prepare, module, needs_cython, test_file):
        self.name, self.prepare, self.module = name, prepare, module
        self.needs_cython, self.test_file = needs_cython, test_file
        self.directory = self.process = self.log = None
        self.failure = self.loaded = self.cache_key = None
        self.cached = False


_BUILDS = {}
_SESSION = {"root": None}


def c_compiler_missing():
    """A reason to skip when no C compiler can be found, else None."""
    try:
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler
    except ImportError:
        return "setuptools is not installed (needed to build the example extensions)"
    compiler = new_compiler()
    if compiler.compiler_type == "msvc":
        try:
            compiler.initialize()
        except Exception as e:  # distutils raises its own error types here
            return f"no MSVC compiler: {e}"
        return None
    customize_compiler(compiler)
    cc = compiler.compiler_so[0] if compiler.compiler_so else sysconfig.get_config_var("CC")
    if not cc or shutil.which(cc) is None:
        return f"no C compiler ({cc!r} not found)"
    return None


def _cython_missing():
    return importlib.util.find_spec("Cython") is None


def _caller_file():
    return os.path.abspath(sys._getframe(2).f_globals.get("__file__", ""))


def register_example(name, module, needs_cython=False):
    """examples/<name> (built with its own setup.py), providing extension `module`."""
    def prepare(directory):
        src = os.path.join(EXAMPLES, name)
        if not os.path.isdir(src):
            raise FileNotFoundError(
                f"{src} not found: the C API tests need examples/ beside tests/ "
                "(cibuildwheel: list examples and docs in test-sources)")
        shutil.copytree(src, directory,
                        ignore=shutil.ignore_patterns("build", "*.so", "*.pyd", "*.c.bak"))
    _BUILDS[name] = _Build(name, prepare, module, needs_cython, _caller_file())


def register_files(name, files, module, needs_cython=False):
    """An extension made of `files` ({file name: text, or a function returning it})."""
    def prepare(directory):
        os.makedirs(directory)
        for file_name, text in files.items():
            with open(os.path.join(directory, file_name), "w", encoding="utf-8") as f:
                f.write(text() if callable(text) else text)
    _BUILDS[name] = _Build(name, prepare, module, needs_cython, _caller_file())


def _cache_root():
    setting = os.environ.get("SIMDOPS_TEST_BUILD_CACHE", "")
    if setting == "0":
        return None
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return setting or os.path.join(tempfile.gettempdir(), f"simdops-test-extensions-cache-{uid}")


def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cache_key(directory):
    """A hash of everything building `directory` reads."""
    import simdops
    digest = hashlib.sha256()
    package = os.path.dirname(simdops.__file__)
    roots = [directory, simdops.get_include(), package]
    for root in roots:
        names = [os.path.join(dirpath, f) for dirpath, _, files in os.walk(root) for f in files
                 if f.endswith((".h", ".pxd", ".c", ".pyx", ".py", ".toml", ".cfg"))
                 and "build" not in os.path.relpath(dirpath, root).split(os.sep)]
        if root != directory:                # only the headers and .pxd of the package
            names = [n for n in names if n.endswith((".h", ".pxd"))]
        for name in sorted(names):
            digest.update(os.path.relpath(name, root).encode())
            with open(name, "rb") as f:
                digest.update(hashlib.sha256(f.read()).digest())
    for part in (sys.executable, sys.version, sysconfig.get_config_var("EXT_SUFFIX"),
                 _version("Cython"), _version("setuptools")):
        digest.update(repr(part).encode())
    return digest.hexdigest()[:32]


def _store_in_cache(build):
    root = _cache_root()
    if root is None or build.cache_key is None:
        return
    final = os.path.join(root, f"{build.name}-{build.cache_key}")
    if os.path.exists(final):
        return
    try:
        os.makedirs(root, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=build.name + "-", dir=root)
        shutil.copytree(build.directory, os.path.join(staging, "ext"),
                        ignore=shutil.ignore_patterns("build"))
        os.rename(os.path.join(staging, "ext"), final)   # atomic: complete or absent
        shutil.rmtree(staging, ignore_errors=True)
    except OSError:
        pass                                 # a cache that cannot be written only costs time


def _start(build):
    if build.process is not None or build.failure is not None or build.cached:
        return
    if _SESSION["root"] is None:
        _SESSION["root"] = tempfile.mkdtemp(prefix="simdops-test-extensions-")
    build.directory = os.path.join(_SESSION["root"], build.name)
    try:
        build.prepare(build.directory)
    except Exception as e:                 # a missing example or doc block: the tests fail
        build.failure = f"preparing {build.name} failed: {type(e).__name__}: {e}"
        return
    if _cache_root() is not None:
        build.cache_key = _cache_key(build.directory)
        cached = os.path.join(_cache_root(), f"{build.name}-{build.cache_key}")
        if os.path.isdir(cached):
            build.directory, build.cached = cached, True
            return
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the installed simdops, as a user would have it
    build.log = open(os.path.join(_SESSION["root"], build.name + ".log"), "w+")
    build.process = subprocess.Popen(
        [sys.executable, "setup.py", "build_ext", "--inplace",
         "--build-temp", os.path.join(build.directory, "build")],
        cwd=build.directory, env=env, stdout=build.log, stderr=subprocess.STDOUT, text=True)


def start_builds(test_files):
    """Start, in the background, every registered build whose tests were collected."""
    if c_compiler_missing():
        return
    wanted = {os.path.abspath(f) for f in test_files}
    for build in _BUILDS.values():
        if build.test_file in wanted and not (build.needs_cython and _cython_missing()):
            _start(build)


def built(name, timeout=900):
    """The module of the registered extension `name`, built (waiting for it) and loaded.
    Skips when no C compiler (or Cython, for a Cython extension) exists; fails with the
    build's output when it does not build."""
    reason = c_compiler_missing()
    if reason:
        pytest.skip(reason)
    build = _BUILDS[name]
    if build.needs_cython and _cython_missing():
        pytest.skip("the Cython examples need Cython to build")
    if build.loaded is not None:
        return build.loaded
    _start(build)                          # not started yet (e.g. run by a plugin-less path)
    if build.failure is None and not build.cached:
        try:
            returncode = build.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            build.process.kill()
            build.process.wait()
            returncode = "timeout"
        if returncode != 0:
            build.log.seek(0)
            build.failure = f"building {name} failed ({returncode}):\n{build.log.read()[-6000:]}"
        elif build.failure is None:
            _store_in_cache(build)
    if build.failure is not None:
        pytest.fail(build.failure)
    build.loaded = load_module(build.module, build.directory)
    return build.loaded


def finish():
    """End of the session: stop unfinished builds, remove the session directory."""
    for build in _BUILDS.values():
        if build.process is not None and build.process.poll() is None:
            build.process.kill()
            build.process.wait()
        if build.log is not None:
            build.log.close()
    if _SESSION["root"] is not None:
        shutil.rmtree(_SESSION["root"], ignore_errors=True)
        _SESSION["root"] = None


def load_module(module_name, directory):
    """Imports the extension module_name built in directory (not via sys.path)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    path = os.path.join(directory, module_name + suffix)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
