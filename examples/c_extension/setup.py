"""Builds simdops_c_example from one C file against the installed simdops.

The only thing taken from simdops at build time is its header directory;
nothing is linked: the kernels are reached at run time through the
simdops._C_API capsule (see simdops_import() in simdops/simdops_capi.h).
"""
import simdops
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "simdops_c_example",
            sources=["simdops_c_example.c"],
            include_dirs=[simdops.get_include()],
        )
    ],
)
