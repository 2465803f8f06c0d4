"""Builds simdops._core from csrc/ and src/simdops/_core.pyx.

ISA flags go on the ISA translation units only (csrc/kernels/*/<op>_<isa>.c):
build_ext below compiles each ISA group with its own flags and links the
objects into the one extension, so the wheel runs on any x86-64 / aarch64 CPU
and runtime dispatch picks the tier.
"""
import glob
import os
import platform
import shutil
import subprocess
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
CSRC = "csrc"
MSVC = sys.platform == "win32"
MACHINE = platform.machine().lower()
X86 = MACHINE in ("x86_64", "amd64", "i386", "i686", "x86")

COMMON_C = [os.path.join(CSRC, f) for f in
            ("api.c", "api_requant.c", "api_1d.c", "checks.c", "params.c", "dtype.c", "error.c",
             "strided.c", "hardmax_driver.c", "dispatch.c", "cpu.c")]
ISAS = ("scalar", "sse2", "sse41", "avx2", "neon")


def isa_flags(isa):
    """Flags for one ISA group (only ever applied to that group's files)."""
    if MSVC:
        return {"avx2": ["/arch:AVX2"]}.get(isa, [])
    if not X86:
        return []  # NEON is baseline on aarch64; x86 files compile to "not compiled" stubs
    return {"sse2": ["-msse2"], "sse41": ["-msse4.1"], "avx2": ["-mavx2", "-mf16c"]}.get(isa, [])


def kernel_sources(isa):
    return sorted(glob.glob(os.path.join(CSRC, "kernels", "*", f"*_{isa}.c")))


BASE_FLAGS = ["/fp:strict"] if MSVC else ["-ffp-contract=off", "-fno-fast-math", "-fvisibility=hidden"]
# LLVM treats a signaling NaN's quieting as unobservable and folds e.g.
# select(nan, x, x - b) into x - select(nan, 0, b), which quiets it; strict
# FP exception semantics forbid that, keeping every tier bit-exact.
CLANG_FLAGS = ["-ffp-exception-behavior=strict"]
INCLUDE = [os.path.join(CSRC, "include"), CSRC]


def is_clang(compiler):
    cmd = getattr(compiler, "compiler_so", None)
    if not cmd:
        return False
    try:
        out = subprocess.run([cmd[0], "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return "clang" in out.stdout.lower()


class BuildExt(build_ext):
    def build_extension(self, ext):
        flags = BASE_FLAGS + (CLANG_FLAGS if not MSVC and is_clang(self.compiler) else [])
        ext.extra_compile_args = flags
        objects = []
        for isa in ISAS:
            srcs = kernel_sources(isa)
            if srcs:
                objects += self.compiler.compile(
                    srcs, output_dir=self.build_temp, include_dirs=INCLUDE,
                    extra_postargs=flags + isa_flags(isa), debug=self.debug)
        ext.extra_objects = objects + list(ext.extra_objects or [])
        super().build_extension(ext)
        # Ship the public headers inside the package (simdops.get_include()).
        if not self.inplace:
            dst = os.path.join(self.build_lib, "simdops", "include", "simdops")
        else:
            dst = os.path.join(HERE, "src", "simdops", "include", "simdops")
        os.makedirs(dst, exist_ok=True)
        for h in glob.glob(os.path.join(CSRC, "include", "simdops", "*.h")):
            shutil.copy(h, dst)


ext = Extension(
    "simdops._core",
    sources=["src/simdops/_core.pyx"] + COMMON_C,
    include_dirs=INCLUDE,
    # the kernel objects are linked as extra_objects, which setuptools does not
    # watch: list every C file so a changed kernel triggers a rebuild
    depends=sorted(glob.glob(os.path.join(CSRC, "**", "*.[ch]"), recursive=True)),
)

setup(
    ext_modules=cythonize([ext], language_level=3,
                          compiler_directives={"boundscheck": False, "wraparound": False}),
    cmdclass={"build_ext": BuildExt},
)
