"""docs/c-api.md is enough to write a working extension: its complete C and
Cython examples are cut out of the page, built against the installed simdops
(once per session, in the background: capi_build.py), and must give
simdops.clip's bits."""
import os
import re

import numpy as np
import pytest

import simdops
from capi_build import built, register_files
from conftest import random_bits, sprinkle

# pytest-run-parallel: copies would import one module name at once
pytestmark = pytest.mark.thread_unsafe(reason="builds and imports extension modules by name")

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


register_files("docs_c", {"mini.c": lambda: doc_block("/* mini.c */"),
                           "setup.py": lambda: doc_block("# setup.py (mini)")}, "mini")
register_files("docs_cython", {"mini_cy.pyx": lambda: doc_block("# mini_cy.pyx"),
                               "setup.py": CYTHON_SETUP}, "mini_cy", needs_cython=True)


def float32_sample(seed):
    rng = np.random.default_rng(seed)
    x = random_bits(rng, 4099, np.float32)
    return sprinkle(rng, x, [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45])


def test_capi_docs_c_example_gives_simdops_bits():
    mini = built("docs_c")
    x = float32_sample(1)
    y = x.copy()
    mini.clip(y, -1.5, 2.25)
    assert y.tobytes() == simdops.clip(x, -1.5, 2.25).tobytes()
    with pytest.raises(ValueError, match="NaN"):
        mini.clip(y, float("nan"), 1.0)


def test_capi_docs_cython_example_gives_simdops_bits():
    mini_cy = built("docs_cython")
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


register_files("two_tu", {"main.c": TWO_TU_MAIN, "other.c": TWO_TU_OTHER,
                          "setup.py": TWO_TU_SETUP}, "two_tu")


def test_capi_docs_several_translation_units_share_one_import():
    two_tu = built("two_tu")
    for name in simdops.available_isas():
        with simdops.use_isa(name):
            assert two_tu.isa() == name
