"""Builds simdops._core from csrc/ and src/simdops/_ext/_core.pyx.

ISA flags go on the ISA translation units only (csrc/kernels/*/<op>_<isa>.c, and
csrc/kernels/*/<op>.tiers.c once per tier csrc/kernels/registry.h builds it for):
build_ext below compiles each kernel file with its ISA's flags from
csrc/isa_flags.txt and links the objects into the one extension, so the wheel
runs on any x86-64 / aarch64 CPU and runtime dispatch picks the tier. The
target architecture is the compiler's (see isa_build.py), never the build
host's, so cross builds (macOS arm64 -> x86_64, crossenv -> aarch64) get the
right tiers. Every C file of the layers (csrc/<layer>/*.c: api, rules, driver,
dispatch, core) is part of the extension; csrc/kernels/<op>/*.c are the ISA units.
"""
import glob
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import isa_build  # noqa: E402  (next to this file; shipped in the sdist)
import list_decls  # noqa: E402  (likewise)

CSRC = "csrc"
isa_build.check_header_version(os.path.join(HERE, "pyproject.toml"),
                               os.path.join(HERE, CSRC, "include", "simdops", "simdops.h"))
# The public .pxd/.pyi parts that restate simdops.h's lists (the op and rounding
# enums, capi's OP_/ROUNDING_ constants, the Rounding Literal), written from the
# lists before cythonize() and build_py read them: src/simdops/*_lists.pxi/.pyi.
for _name in list_decls.write_all():
    print(f"simdops: wrote src/simdops/{_name} from simdops.h's lists")
MSVC = sys.platform == "win32"
LAYERS = ("api", "rules", "driver", "dispatch", "core")  # docs/design.md, "Where things live"
COMMON_C = sorted(f for layer in LAYERS for f in glob.glob(os.path.join(CSRC, layer, "*.c")))
KERNEL_C = sorted(glob.glob(os.path.join(CSRC, "kernels", "*", "*.c")))
INCLUDE = [os.path.join(CSRC, "include"), CSRC]

BASE_FLAGS = (["/fp:strict"] if MSVC else
              ["-ffp-contract=off", "-fno-fast-math", "-fvisibility=hidden", "-pthread"])
# LLVM treats a signaling NaN's quieting as unobservable and folds e.g.
# select(nan, x, x - b) into x - select(nan, 0, b), which quiets it; strict
# FP exception semantics forbid that, keeping every tier bit-exact.
CLANG_FLAGS = ["-ffp-exception-behavior=strict"]
LINK_FLAGS = [] if MSVC else ["-pthread"]  # the thread pool
if sys.platform.startswith("linux"):
    # csrc/driver/glibc_compat.h binds the pool's pthread calls to their glibc 2.17-era
    # versions; on a glibc older than 2.34 they live in libpthread.so.0, so a
    # build there names it as a dependency even where the linker drops unused
    # ones (a newer glibc has only an empty libpthread.a to link; at run time on
    # an old glibc, CPython itself has loaded libpthread.so.0)
    LINK_FLAGS += ["-Wl,--push-state,--no-as-needed", "-lpthread", "-Wl,--pop-state"]


def is_clang(command):
    if not command:
        return False
    try:
        out = subprocess.run([command[0], "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return "clang" in out.stdout.lower()


def no_debug_info(debug):
    """Release builds carry no debug info (the wheel's _core is ~10x smaller):
    -g0 last, unless this is a debug build or CFLAGS asks for -g."""
    wants_g = any(f.startswith("-g") and f != "-g0" for f in os.environ.get("CFLAGS", "").split())
    return [] if (MSVC or debug or wants_g) else ["-g0"]


class BuildExt(build_ext):
    def target(self):
        """(architecture, compiler command) this build produces code for."""
        command = getattr(self.compiler, "compiler_so", None)
        probe = list(command or [])
        archflags = os.environ.get("ARCHFLAGS", "")
        if probe and sys.platform == "darwin" and "-arch" not in probe:
            probe += archflags.split()  # what distutils adds to each macOS compile
        macros = None if MSVC else isa_build.compiler_macros(probe)
        default = getattr(self.compiler, "plat_name", None) or sysconfig.get_platform()
        return isa_build.target_arch(macros, os.environ, default), command

    def build_extension(self, ext):
        if ext.name != "simdops._core":  # the ufunc module: a C-API client, no kernels
            ext.extra_compile_args = ([] if MSVC else ["-fvisibility=hidden"]) + no_debug_info(
                self.debug)
            ext.extra_link_args = no_debug_info(self.debug)
            return super().build_extension(ext)
        arch, command = self.target()
        flags = BASE_FLAGS + (CLANG_FLAGS if not MSVC and is_clang(command) else [])
        flags += no_debug_info(self.debug)
        ext.extra_compile_args = flags
        ext.extra_link_args = LINK_FLAGS + no_debug_info(self.debug)
        table = isa_build.read_flag_table()
        print(f"simdops: target architecture {arch}"
              f"{' (MSVC)' if MSVC else ''}; ISA flags from {isa_build.FLAG_TABLE}")
        objects = []
        files = isa_build.tier_files()
        for src in KERNEL_C:
            # a tiered source is compiled once per tier, each into its own directory
            for tier, macros in isa_build.kernel_units(src, files):
                isa_flags = isa_build.isa_flags(tier, arch, MSVC, table)
                out = os.path.join(self.build_temp, "tier_" + tier) if macros else self.build_temp
                objects += self.compiler.compile(
                    [src], output_dir=out, include_dirs=INCLUDE, macros=macros,
                    extra_postargs=flags + isa_flags, debug=self.debug)
        ext.extra_objects = objects + list(ext.extra_objects or [])
        super().build_extension(ext)
        # Ship the public headers inside the package (simdops.get_include()), and
        # beside the sources for in-place / editable builds, whose extension
        # setuptools copies there after building it with inplace switched off.
        packages = [self.build_lib] + ([os.path.join(HERE, "src")] if self._to_source else [])
        for package in packages:
            dst = os.path.join(package, "simdops", "include", "simdops")
            os.makedirs(dst, exist_ok=True)
            for h in glob.glob(os.path.join(CSRC, "include", "simdops", "*.h")):
                shutil.copy(h, dst)

    def run(self):
        self._to_source = bool(self.inplace or getattr(self, "editable_mode", False))
        super().run()


ext = Extension(
    "simdops._core",
    sources=["src/simdops/_ext/_core.pyx"] + COMMON_C,
    include_dirs=INCLUDE,
    # the kernel objects are linked as extra_objects, which setuptools does not
    # watch: list every C file (and the flag table) so a change triggers a rebuild
    depends=sorted(glob.glob(os.path.join(CSRC, "**", "*.[ch]"), recursive=True))
    + sorted(glob.glob("src/simdops/_ext/_core_*.h"))
    + [os.path.join(CSRC, "isa_flags.txt"), "src/simdops/_ext/_memo_common.h"],
)

# simdops._ufunc: the numpy ufuncs (simdops.ufunc), a client of the C API capsule like any
# other extension, built against numpy >= 2 (its ArrayMethod API: loops that raise, promoters).
ufunc_ext = Extension(
    "simdops._ufunc",
    sources=["src/simdops/_ext/_ufunc_module.c", "src/simdops/_ext/_ufunc_loops.c"],
    include_dirs=[np.get_include(), os.path.join(CSRC, "include")],
    depends=sorted(glob.glob("src/simdops/_ext/_ufunc*.h")) + ["src/simdops/_ext/_memo_common.h"] + sorted(glob.glob(os.path.join(CSRC, "include", "simdops", "*.h"))),
)

# freethreading_compatible: the module declares Py_mod_gil = Py_MOD_GIL_NOT_USED,
# so a free-threaded CPython (3.14t) keeps the GIL off when it imports simdops
# (docs/threads.md, "What is safe to share", says why that holds). Cython >= 3.1.
setup(
    ext_modules=cythonize([ext], language_level=3,
                          compiler_directives={"boundscheck": False, "wraparound": False,
                                               "freethreading_compatible": True}) + [ufunc_ext],
    cmdclass={"build_ext": BuildExt},
)
