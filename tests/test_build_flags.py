"""setup.py's target and ISA-flag decisions (isa_build.py): the target is what
the compiler builds for, never the build host, and the flags come from
csrc/isa_flags.txt. Needs the source tree (skipped against an installed wheel
without it)."""
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if not os.path.exists(os.path.join(ROOT, "isa_build.py")):
    pytest.skip("isa_build.py (source tree) not here", allow_module_level=True)
sys.path.insert(0, ROOT)
import isa_build  # noqa: E402

X86_64_MACROS = "#define __x86_64__ 1\n#define __SSE2__ 1\n#define __GNUC__ 12\n"
ARM64_MACROS = "#define __aarch64__ 1\n#define __ARM_NEON 1\n"
TABLE = isa_build.read_flag_table()
# the tiers with kernel files (csrc/kernels/<op>/<op>_<tier>.c): every one but the
# baselines needs flags on x86
KERNEL_TIERS = sorted({isa_build.kernel_isa(f) for d in os.listdir(os.path.join(ROOT, "csrc", "kernels"))
                       if os.path.isdir(os.path.join(ROOT, "csrc", "kernels", d))
                       for f in os.listdir(os.path.join(ROOT, "csrc", "kernels", d))
                       if f.endswith(".c") and isa_build.kernel_isa(f) is not None})
ALL_X86 = tuple(t for t in KERNEL_TIERS if t not in ("scalar", "neon"))


def flags_for(arch, msvc=False):
    return {isa: isa_build.isa_flags(isa, arch, msvc) for isa in ALL_X86 + ("scalar", "neon")}


def test_flag_table_covers_every_x86_tier():
    assert ALL_X86, KERNEL_TIERS
    x86, msvc = flags_for("x86_64"), flags_for("x86_64", msvc=True)
    for isa in ALL_X86:
        # every x86 tier has gcc/clang flags (a missing line would compile it to a stub)
        assert x86[isa] and all(f.startswith("-m") for f in x86[isa]), isa
        assert all(f.startswith("/arch:") for f in msvc[isa]), isa
        assert x86[isa] == TABLE[("x86", isa)]
    assert x86["scalar"] == x86["neon"] == msvc["scalar"] == []
    assert all(f == [] for f in flags_for("arm64").values())
    assert not any("-march" in f for flags in TABLE.values() for f in flags)


def test_macos_x86_64_cross_build_on_an_arm64_host_gets_the_x86_flags():
    env = {"ARCHFLAGS": "-arch x86_64", "_PYTHON_HOST_PLATFORM": "macosx-10.9-x86_64"}
    host = "macosx-11.0-arm64"
    # the compiler (with -arch x86_64) says x86_64
    assert isa_build.target_arch(X86_64_MACROS, env, host) == "x86_64"
    # no compiler answer: ARCHFLAGS, then _PYTHON_HOST_PLATFORM decide, not the host
    assert isa_build.target_arch(None, env, host) == "x86_64"
    assert isa_build.target_arch(None, {"_PYTHON_HOST_PLATFORM": "macosx-10.9-x86_64"},
                                 host) == "x86_64"
    arch = isa_build.target_arch(None, env, host)
    for isa in ALL_X86:
        assert isa_build.isa_flags(isa, arch, False) == TABLE[("x86", isa)] != []


def test_arm64_target_on_an_x86_64_host_gets_no_x86_flags():
    host = "linux-x86_64"
    assert isa_build.target_arch(ARM64_MACROS, {}, host) == "arm64"  # crossenv + aarch64 gcc
    assert isa_build.target_arch(None, {"ARCHFLAGS": "-arch arm64"}, "macosx-11.0-x86_64") == "arm64"
    assert isa_build.target_arch(None, {"_PYTHON_HOST_PLATFORM": "linux-aarch64"}, host) == "arm64"
    arch = isa_build.target_arch(ARM64_MACROS, {}, host)
    assert all(isa_build.isa_flags(isa, arch, False) == [] for isa in ALL_X86)


def test_compiler_macros_outrank_the_environment():
    # what the compiler emits decides, even if a stale variable says otherwise
    env = {"_PYTHON_HOST_PLATFORM": "linux-x86_64"}
    assert isa_build.target_arch(ARM64_MACROS, env, "linux-x86_64") == "arm64"


def test_platform_spellings():
    for tag, arch in [("linux-x86_64", "x86_64"), ("win-amd64", "x86_64"), ("win32", "x86"),
                      ("linux-aarch64", "arm64"), ("win-arm64", "arm64"),
                      ("macosx-11.0-arm64", "arm64"), ("linux-i686", "x86")]:
        assert isa_build.arch_from_platform(tag) == arch, tag


def test_universal2_is_refused():
    with pytest.raises(RuntimeError, match="universal2"):
        isa_build.target_arch(None, {"ARCHFLAGS": "-arch arm64 -arch x86_64"}, "macosx-11.0-arm64")
    with pytest.raises(RuntimeError, match="universal2"):
        isa_build.target_arch(None, {}, "macosx-10.9-universal2")


def test_kernel_isa_from_file_name():
    assert isa_build.kernel_isa("csrc/kernels/clip/clip_sse41.c") == "sse41"
    assert isa_build.kernel_isa("csrc/kernels/hardmax/hardmax_neon.c") == "neon"


def test_a_tiered_source_builds_once_per_tier_naming_it():
    files = {"scalar": ["clip", "leaky_relu"], "sse2": ["clip"], "avx2": ["leaky_relu"]}
    assert isa_build.kernel_units("csrc/kernels/clip/clip_sse2.c", files) == [("sse2", [])]
    assert isa_build.kernel_units("csrc/kernels/leaky_relu/leaky_relu.tiers.c", files) == [
        ("scalar", [("SIMDOPS_TIER", "scalar"), ("SIMDOPS_TIER_IS_scalar", "1")]),
        ("avx2", [("SIMDOPS_TIER", "avx2"), ("SIMDOPS_TIER_IS_avx2", "1")])]
    with pytest.raises(RuntimeError, match=r"names X\(gelu, t\)"):
        isa_build.kernel_units("csrc/kernels/gelu/gelu.tiers.c", files)


def test_every_kernel_file_is_on_its_tiers_files_line():
    # SIMDOPS_FILES_<tier> (registry.h) decides what each tier registers and, for a tiered
    # source, what is compiled: a per-tier file its tier's line does not name would be
    # compiled and never registered; a named op needs its file (or a tiered source)
    import simdops
    files = isa_build.tier_files()
    # known_isas: this architecture's tiers (the lines of the others are there too)
    unread = sorted(set(simdops._core.known_isas()) - set(files))
    assert not unread, f"no one-line SIMDOPS_FILES_<tier> for tier(s) {unread} (registry.h)"
    kernels = os.path.join(ROOT, "csrc", "kernels")
    on_disk = {(f[:-2].rsplit("_", 1)[0], isa_build.kernel_isa(f))
               for d in os.listdir(kernels) if os.path.isdir(os.path.join(kernels, d))
               for f in os.listdir(os.path.join(kernels, d))
               if f.endswith(".c") and isa_build.kernel_isa(f) is not None}
    tiered = {f[:-len(isa_build.TIERED_SUFFIX)]
              for d in os.listdir(kernels) if os.path.isdir(os.path.join(kernels, d))
              for f in os.listdir(os.path.join(kernels, d)) if f.endswith(isa_build.TIERED_SUFFIX)}
    named = {(op, tier) for tier, ops in files.items() for op in ops}
    # registered elsewhere: the families' files through their tier's requant register
    # function, the low-bit kernels' by the low-bit table (dispatch/qlow_dispatch.c)
    unnamed = sorted(p for p in on_disk - named if p[0] not in ("requant_families", "qlow"))
    assert not unnamed, f"kernel files no SIMDOPS_FILES_<tier> line names: {unnamed}"
    fileless = sorted(p for p in named - on_disk if p[0] not in tiered)
    assert not fileless, f"SIMDOPS_FILES_<tier> names ops without a kernel file: {fileless}"


def test_the_build_host_compiler_is_probed():
    # the real compiler answers for itself (x86-64 or aarch64 here)
    macros = isa_build.compiler_macros(["cc"])
    if macros is None:
        pytest.skip("no cc")
    assert isa_build.arch_from_macros(macros) in ("x86_64", "arm64", "x86")


def test_header_version_check(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    header = tmp_path / "simdops.h"
    pyproject.write_text('[project]\nversion = "1.4.2"\n')
    header.write_text("#define SIMDOPS_VERSION_MAJOR 1\n#define SIMDOPS_VERSION_MINOR 4\n")
    assert isa_build.check_header_version(str(pyproject), str(header)) == "1.4.2"
    header.write_text("#define SIMDOPS_VERSION_MAJOR 1\n#define SIMDOPS_VERSION_MINOR 3\n")
    with pytest.raises(RuntimeError, match="disagree"):
        isa_build.check_header_version(str(pyproject), str(header))


def test_every_kernel_file_tier_is_a_listed_tier():
    # A kernel file whose tier has no line in SIMDOPS_TIERS compiles and registers nothing:
    # its tier silently vanishes (available_isas() just ends lower). Every suffix of a kernel
    # file built for this architecture must name a tier simdops knows here.
    import platform

    import simdops
    x86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")
    arm = platform.machine().lower() in ("aarch64", "arm64")
    if not (x86 or arm):
        pytest.skip("neither x86 nor arm64")
    here = [t for t in KERNEL_TIERS if (t == "neon") == arm or t == "scalar"]
    known = set(simdops._core.known_isas())
    missing = [t for t in here if t not in known]
    assert not missing, (f"kernel files for tier(s) {missing} (csrc/kernels/<op>/<op>_<tier>.c) "
                         f"but no such line in SIMDOPS_TIERS (csrc/kernels/registry.h); known: "
                         f"{sorted(known)}")


def test_every_tier_section_of_a_tiered_source_is_built():
    # a tiered source's `SIMDOPS_TIER_IS_<tier>` section is compiled only when that tier's
    # SIMDOPS_FILES line names the op: a section no line names would silently never run
    # (its tier inheriting the parent's kernels)
    files = isa_build.tier_files()
    kernels = os.path.join(ROOT, "csrc", "kernels")
    unbuilt = []
    for d in sorted(os.listdir(kernels)):
        if not os.path.isdir(os.path.join(kernels, d)):
            continue
        for f in sorted(os.listdir(os.path.join(kernels, d))):
            if f.endswith(isa_build.TIERED_SUFFIX):
                op = f[:-len(isa_build.TIERED_SUFFIX)]
                text = open(os.path.join(kernels, d, f), encoding="utf-8").read()
                unbuilt += [(op, tier) for tier in sorted(set(re.findall(
                    r"SIMDOPS_TIER_IS_(\w+)", text))) if op not in files.get(tier, ())]
    assert not unbuilt, (f"tiered sources' sections no SIMDOPS_FILES_<tier> line builds: "
                         f"{unbuilt} (add X(op, t) to the tier's line in registry.h)")
