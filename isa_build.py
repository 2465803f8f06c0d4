"""Build-time decisions for setup.py: the target architecture and the ISA flags.

The target is what the compiler produces, not the machine running the build:
cibuildwheel builds macOS x86_64 wheels on arm64 runners (ARCHFLAGS,
_PYTHON_HOST_PLATFORM), and crossenv builds aarch64 wheels on x86-64 hosts.
Flags come from csrc/isa_flags.txt, the table csrc/tests/build.sh reads too.
Pure functions of their inputs, so tests/test_build_flags.py checks them
without a cross compiler.
"""
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
FLAG_TABLE = os.path.join(HERE, "csrc", "isa_flags.txt")
# the kernel registry: its SIMDOPS_FILES_<tier> lines say which tiers build which op
REGISTRY = os.path.join(HERE, "csrc", "kernels", "registry.h")
# a kernel source written once for several tiers: csrc/kernels/<dir>/<op>.tiers.c
TIERED_SUFFIX = ".tiers.c"

# architecture names as spelled by platform tags, -arch, -dumpmachine
_ARCH_ALIASES = {
    "x86_64": "x86_64", "amd64": "x86_64", "x64": "x86_64", "x86_64h": "x86_64",
    "i386": "x86", "i486": "x86", "i586": "x86", "i686": "x86", "x86": "x86", "win32": "x86",
    "aarch64": "arm64", "arm64": "arm64", "arm64e": "arm64",
}
# predefined macros that name the target (gcc/clang `cc -dM -E`)
_ARCH_MACROS = (("__x86_64__", "x86_64"), ("__i386__", "x86"),
                ("__aarch64__", "arm64"), ("__arm64__", "arm64"))


def read_flag_table(path=FLAG_TABLE):
    """{(target, isa): [flags]} from csrc/isa_flags.txt."""
    table = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words:
                if len(words) < 2:
                    raise ValueError(f"{path}: a line needs a target and an ISA: {line!r}")
                table[(words[0], words[1])] = words[2:]
    return table


def arch_from_macros(macros):
    """Target arch from the compiler's predefined macros (text of `cc -dM -E`), or None."""
    defined = set(re.findall(r"^#define (\w+)", macros or "", re.M))
    found = {arch for macro, arch in _ARCH_MACROS if macro in defined}
    return found.pop() if len(found) == 1 else None


def arch_from_archflags(archflags):
    """Target arch from ARCHFLAGS ("-arch x86_64"), or None. Several -arch
    values (a universal2 build) cannot share one set of ISA flags."""
    archs = re.findall(r"-arch\s+(\S+)", archflags or "")
    names = {_ARCH_ALIASES.get(a.lower(), a.lower()) for a in archs}
    if len(names) > 1:
        raise RuntimeError(f"ARCHFLAGS={archflags!r} targets several architectures; build one "
                           "wheel per architecture (x86_64 and arm64), not universal2")
    return names.pop() if names else None


def arch_from_platform(platform_tag):
    """Target arch from a platform string: 'linux-aarch64', 'macosx-11.0-x86_64', 'win-amd64'."""
    if not platform_tag:
        return None
    last = platform_tag.lower().rsplit("-", 1)[-1]
    if last == "universal2":
        raise RuntimeError(f"platform {platform_tag!r} is universal2; build one wheel per "
                           "architecture (x86_64 and arm64)")
    return _ARCH_ALIASES.get(last, last)


def target_arch(compiler_macros=None, environ=None, default_platform=None):
    """The architecture the build produces, from (first that answers): the
    compiler's predefined macros, ARCHFLAGS, _PYTHON_HOST_PLATFORM, then
    sysconfig's platform (`default_platform`). The build host's own machine
    type is never consulted."""
    environ = os.environ if environ is None else environ
    return (arch_from_macros(compiler_macros)
            or arch_from_archflags(environ.get("ARCHFLAGS"))
            or arch_from_platform(environ.get("_PYTHON_HOST_PLATFORM"))
            or arch_from_platform(default_platform)
            or "unknown")


def table_target(arch, msvc):
    """The row family of csrc/isa_flags.txt for an architecture and compiler."""
    family = "x86" if arch in ("x86_64", "x86") else arch
    return f"msvc-{family}" if msvc else family


def isa_flags(isa, arch, msvc, table=None):
    """Flags for the kernel files of one ISA, for this target and compiler."""
    table = read_flag_table() if table is None else table
    return list(table.get((table_target(arch, msvc), isa), []))


def kernel_isa(path):
    """The ISA of a kernel file, from its name: clip_sse41.c -> 'sse41'; None for a
    tiered source (<op>.tiers.c, compiled once per tier: kernel_units)."""
    if path.endswith(TIERED_SUFFIX):
        return None
    return os.path.splitext(os.path.basename(path))[0].rsplit("_", 1)[-1]


def tier_files(path=REGISTRY):
    """{tier: [op, ...]} from the registry's `#define SIMDOPS_FILES_<tier>(X, t) X(op, t) ...`
    lines, in the registry's order (csrc/tests/build.sh reads them the same way)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return {tier: re.findall(r"X\((\w+), t\)", ops) for tier, ops in
            re.findall(r"^#define SIMDOPS_FILES_(\w+)\(X, t\)(.*)$", text, re.M)}


def kernel_units(path, files=None):
    """[(tier, defines)] a kernel source is compiled as: a per-tier file once, for its own
    ISA, with no defines; a tiered source <op>.tiers.c once per tier whose SIMDOPS_FILES
    line names <op>, with SIMDOPS_TIER=<tier> and SIMDOPS_TIER_IS_<tier>=1 (and that tier's
    ISA flags). A tiered source no tier names is an error: it would build nothing."""
    isa = kernel_isa(path)
    if isa is not None:
        return [(isa, [])]
    files = tier_files() if files is None else files
    op = os.path.basename(path)[:-len(TIERED_SUFFIX)]
    tiers = [tier for tier, ops in files.items() if op in ops]
    if not tiers:
        raise RuntimeError(f"{path}: no SIMDOPS_FILES_<tier> line of csrc/kernels/registry.h "
                           f"names X({op}, t), so no tier would build it")
    return [(tier, [("SIMDOPS_TIER", tier), (f"SIMDOPS_TIER_IS_{tier}", "1")]) for tier in tiers]


def compiler_macros(command):
    """`command -dM -E -` on an empty input: the predefined macros, or None."""
    if not command:
        return None
    try:
        out = subprocess.run(list(command) + ["-dM", "-E", "-x", "c", os.devnull],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def check_header_version(pyproject, header):
    """Raise unless the header's SIMDOPS_VERSION_MAJOR/MINOR are pyproject's
    version's first two numbers (the one version lives in pyproject.toml)."""
    with open(pyproject, encoding="utf-8") as f:
        version = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M).group(1)
    with open(header, encoding="utf-8") as f:
        text = f.read()
    macros = {k: int(v) for k, v in
              re.findall(r"^#define SIMDOPS_VERSION_(MAJOR|MINOR) (\d+)", text, re.M)}
    want = tuple(int(p) for p in version.split(".")[:2])
    if (macros.get("MAJOR"), macros.get("MINOR")) != want:
        raise RuntimeError(f"{header}: SIMDOPS_VERSION_MAJOR/MINOR {macros} disagree with "
                           f"version {version} in {pyproject}: update the header")
    return version
