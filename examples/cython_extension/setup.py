"""Builds simdops_cython_example against the installed simdops.

`from simdops cimport capi` finds simdops/capi.pxd in the installed package;
the C compiler needs the header directory from simdops.get_include().
Nothing is linked: the kernels are reached through the simdops._C_API capsule.
"""
import simdops
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [
            Extension(
                "simdops_cython_example",
                sources=["simdops_cython_example.pyx"],
                include_dirs=[simdops.get_include()],
            )
        ],
        language_level=3,
    ),
)
