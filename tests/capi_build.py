"""Builds the example extensions of examples/ against the *installed* simdops.

Each example directory is copied to a temporary directory and built there
with `python setup.py build_ext --inplace` in a subprocess of this
interpreter; only simdops.get_include() and the installed .pxd files are
used, never a path into this source tree. The built module is then loaded
from the temporary directory.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


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


def build_example(name, tmp_dir):
    """Copies examples/<name> to tmp_dir/<name>, builds it in place, returns the directory."""
    src = os.path.join(EXAMPLES, name)
    if not os.path.isdir(src):
        pytest.fail(f"{src} not found: the C API tests need examples/ beside tests/ "
                    "(cibuildwheel: list examples and docs in test-sources)")
    dst = os.path.join(tmp_dir, name)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("build", "*.so", "*.pyd", "*.c.bak"))
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the installed simdops, as a user would have it
    proc = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace",
         "--build-temp", os.path.join(dst, "build")],
        cwd=dst, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"building examples/{name} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return dst


def load_module(module_name, directory):
    """Imports the extension module_name built in directory (not via sys.path)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    path = os.path.join(directory, module_name + suffix)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
