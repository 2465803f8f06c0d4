"""docs/c-api.md is enough to write a working extension: its complete C and
Cython examples are cut out of the page, built in a temporary directory
against the installed simdops, and must give simdops.clip's bits."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import simdops
from capi_build import c_compiler_missing, load_module
from conftest import random_bits, sprinkle

pytestmark = [pytest.mark.skipif(c_compiler_missing() is not None,
                                reason=str(c_compiler_missing())),
              # pytest-run-parallel: copies would import one module name at once
              pytest.mark.thread_unsafe(reason="builds and imports extension modules by name")]

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs",
                   "c-api.md")

CYTHON_SETUP = """
import simdops
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(name="mini_cy", ext_modules=cythonize(
    [Extension("mini_cy", ["mini_cy.pyx"], include_dirs=[simdops.get_include()])],
    language_level=3))
"""


def doc_block(first_line):
    """The fenced code block of docs/c-api.md whose first line is first_line."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        if block.splitlines()[0].strip() == first_line:
            return block
    raise AssertionError(f"docs/c-api.md has no code block starting {first_line!r}")


def build(directory, files):
    for name, text in files.items():
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            f.write(text)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=directory,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


def float32_sample(seed):
    rng = np.random.default_rng(seed)
    x = random_bits(rng, 4099, np.float32)
    return sprinkle(rng, x, [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45])


def test_capi_docs_c_example_gives_simdops_bits(tmp_path):
    build(str(tmp_path), {"mini.c": doc_block("/* mini.c */"),
                          "setup.py": doc_block("# setup.py (mini)")})
    mini = load_module("mini", str(tmp_path))
    x = float32_sample(1)
    y = x.copy()
    mini.clip(y, -1.5, 2.25)
    assert y.tobytes() == simdops.clip(x, -1.5, 2.25).tobytes()
    with pytest.raises(ValueError, match="NaN"):
        mini.clip(y, float("nan"), 1.0)


def test_capi_docs_cython_example_gives_simdops_bits(tmp_path):
    pytest.importorskip("Cython", reason="the Cython example needs Cython to build")
    build(str(tmp_path), {"mini_cy.pyx": doc_block("# mini_cy.pyx"), "setup.py": CYTHON_SETUP})
    mini_cy = load_module("mini_cy", str(tmp_path))
    x = float32_sample(2)
    y = x.copy()
    mini_cy.clip(y, -3.0, 0.5)
    assert y.tobytes() == simdops.clip(x, -3.0, 0.5).tobytes()


# Several translation units sharing one import, as docs/c-api.md describes:
# SIMDOPS_CAPI_UNIQUE_SYMBOL everywhere, SIMDOPS_CAPI_NO_IMPORT in all files
# but the one that calls simdops_import().
TWO_TU_MAIN = r"""
#define SIMDOPS_CAPI_UNIQUE_SYMBOL two_tu_simdops_api
#include <simdops/simdops_capi.h>

PyObject *isa_from_other_file(PyObject *self, PyObject *args);

static PyMethodDef methods[] = {{"isa", isa_from_other_file, METH_NOARGS, NULL},
                                {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "two_tu", NULL, -1, methods};

PyMODINIT_FUNC PyInit_two_tu(void)
{
    if (simdops_import() < 0)
        return NULL;
    return PyModule_Create(&module);
}
"""
TWO_TU_OTHER = r"""
#define SIMDOPS_CAPI_UNIQUE_SYMBOL two_tu_simdops_api
#define SIMDOPS_CAPI_NO_IMPORT
#include <simdops/simdops_capi.h>

PyObject *isa_from_other_file(PyObject *self, PyObject *args)
{
    return PyUnicode_FromString(simdops_capi_isa());
}
"""
TWO_TU_SETUP = """
import simdops
from setuptools import Extension, setup

setup(name="two_tu", ext_modules=[Extension("two_tu", ["main.c", "other.c"],
                                            include_dirs=[simdops.get_include()])])
"""


def test_capi_docs_several_translation_units_share_one_import(tmp_path):
    build(str(tmp_path), {"main.c": TWO_TU_MAIN, "other.c": TWO_TU_OTHER,
                          "setup.py": TWO_TU_SETUP})
    two_tu = load_module("two_tu", str(tmp_path))
    for name in simdops.available_isas():
        with simdops.use_isa(name):
            assert two_tu.isa() == name
