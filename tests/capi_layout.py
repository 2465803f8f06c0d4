"""The C API table's layout as simdops/simdops_capi.h declares it, and the frozen file of
released layouts (csrc/include/simdops/capi_versions.txt) that tests/test_capi_abi.py checks
it against. The layout comes from the header itself: a small C program built with the system
compiler expands SIMDOPS_CAPI_ENTRIES and prints each entry's offsetof, size and stringified
signature, and simdops_capi_size_of_version().

When fields are appended (a new version N), append that version's block, printed from the
current header:

    python tests/capi_layout.py --print-version N >> csrc/include/simdops/capi_versions.txt
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "csrc", "include")
FROZEN = os.path.join(INCLUDE, "simdops", "capi_versions.txt")
FROZEN_NAME = "csrc/include/simdops/capi_versions.txt"
PRINT_COMMAND = f"python tests/capi_layout.py --print-version {{v}} >> {FROZEN_NAME}"

# Prints the table's layout as the header declares it: one line per entry of the list.
PROBE = r"""
#include <stdio.h>
#include "simdops/simdops_capi.h"

#define PROBE_ENTRY(version, ret, name, params, args)                                          \
    printf("entry %u %u %u %s | %s | %s | %s\n", (unsigned)(version),                          \
           (unsigned)offsetof(simdops_capi, name),                                              \
           (unsigned)sizeof(((const simdops_capi *)0)->name), #name, #ret, #params, #args);

int main(void)
{
    uint32_t v;
    printf("pointer %u\n", (unsigned)sizeof(void *));
    printf("version %u\n", (unsigned)SIMDOPS_CAPI_VERSION);
    printf("sizeof %u\n", (unsigned)sizeof(simdops_capi));
    printf("head abi_version %u %u\n", (unsigned)offsetof(simdops_capi, abi_version),
           (unsigned)sizeof(((const simdops_capi *)0)->abi_version));
    printf("head size %u %u\n", (unsigned)offsetof(simdops_capi, size),
           (unsigned)sizeof(((const simdops_capi *)0)->size));
    SIMDOPS_CAPI_ENTRIES(PROBE_ENTRY)
    for (v = 0; v <= SIMDOPS_CAPI_VERSION + 1; v++)
        printf("size_of_version %u %u\n", (unsigned)v, (unsigned)simdops_capi_size_of_version(v));
    printf("size_macro 1 %u\n", (unsigned)SIMDOPS_CAPI_SIZE_V1);
    printf("size_macro 2 %u\n", (unsigned)SIMDOPS_CAPI_SIZE_V2);
    return 0;
}
"""
class Entry:
    """One X(...) of SIMDOPS_CAPI_ENTRIES, as the probe printed it."""

    def __init__(self, version, offset, size, name, ret, params, args):
        self.version, self.offset, self.size, self.name = version, offset, size, name
        self.ret = " ".join(type_tokens(ret))
        self.params = split_params(params)
        self.args = [a.strip() for a in args.strip()[1:-1].split(",") if a.strip()]
        self.param_types = [t for t, _ in self.params]
        self.signature = f"{self.ret} ({', '.join(self.param_types) or 'void'})"


class Layout:
    """The layout the header declares (what PROBE printed)."""

    def __init__(self, text):
        self.entries, self.head, self.size_of_version, self.size_macro = [], {}, {}, {}
        for line in text.splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "entry":
                where, ret, params, args = rest.split(" | ")
                version, offset, size, name = where.split()
                self.entries.append(Entry(int(version), int(offset), int(size), name, ret,
                                          params, args))
            elif kind == "head":
                name, offset, size = rest.split()
                self.head[name] = (int(offset), int(size))
            elif kind in ("size_of_version", "size_macro"):
                v, size = map(int, rest.split())
                getattr(self, kind)[v] = size
            else:
                setattr(self, kind, int(rest))
        self.by_name = {e.name: e for e in self.entries}


def type_tokens(text):
    return re.findall(r"\w+|\*", text)


def split_params(params):
    """'(const simdops_error *err, size_t cap)' -> [('const simdops_error *', 'err'), ...]"""
    inner = params.strip()
    assert inner.startswith("(") and inner.endswith(")"), params
    inner = inner[1:-1].strip()
    if inner in ("", "void"):
        return []
    out = []
    for param in inner.split(","):
        tokens = type_tokens(param)
        out.append((" ".join(tokens[:-1]), tokens[-1]))
    return out


def compilers():
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    cxx = shlex.split(os.environ.get("CXX") or sysconfig.get_config_var("CXX") or "c++")
    return cc, cxx


def python_include():
    return sysconfig.get_paths()["include"]


def skip_reason():
    if not os.path.exists(os.path.join(INCLUDE, "simdops", "simdops_capi.h")):
        return "csrc/include (source tree) not here"
    cc, _ = compilers()
    if shutil.which(cc[0]) is None:
        return f"no C compiler ({cc[0]!r} not found)"
    if not os.path.exists(os.path.join(python_include(), "Python.h")):
        return "Python.h not found"
    return None


def run(command, cwd):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def probe_layout(directory):
    """Builds and runs PROBE against csrc/include; the Layout it prints."""
    cc, _ = compilers()
    with open(os.path.join(directory, "probe.c"), "w") as f:
        f.write(PROBE)
    # -O1: drops simdops_import_version (never called here), so nothing links to libpython
    rc, out = run(cc + ["-O1", "-I", INCLUDE, "-I", python_include(), "probe.c", "-o",
                         "probe"], directory)
    assert rc == 0, f"the layout probe did not compile against {INCLUDE}:\n{out}"
    rc, out = run([os.path.join(directory, "probe")], directory)
    assert rc == 0, out
    return Layout(out)


def read_frozen(path=FROZEN):
    """{version: (size, [(offset, name, signature), ...])} of the frozen file."""
    versions, current = {}, None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].rstrip()
            if not line:
                continue
            m = re.fullmatch(r"version (\d+) size (\d+)", line)
            if m:
                current = int(m.group(1))
                versions[current] = (int(m.group(2)), [])
                continue
            m = re.fullmatch(r"\s*(\d+) (\w+): (.+)", line)
            assert m and current is not None, f"{FROZEN_NAME}:{number}: cannot read {line!r}"
            versions[current][1].append((int(m.group(1)), m.group(2), m.group(3)))
    return versions


def version_block(layout, version):
    """The frozen file's block of `version`, from the current header (64-bit only)."""
    assert layout.pointer == 8, "the frozen offsets are those of 64-bit platforms"
    rows = []
    if version == 1:
        rows += [(layout.head[n][0], n, "uint32_t") for n in ("abi_version", "size")]
    rows += [(e.offset, e.name, e.signature) for e in layout.entries if e.version == version]
    assert rows, f"no entry of SIMDOPS_CAPI_ENTRIES has version {version}"
    lines = [f"version {version} size {layout.size_of_version[version]}"]
    lines += [f"{offset:4d} {name}: {signature}" for offset, name, signature in rows]
    return "\n".join(lines) + "\n"



def main(argv):
    if len(argv) != 3 or argv[1] != "--print-version" or not argv[2].isdigit():
        print(f"usage: {argv[0]} --print-version N   (the frozen block of version N)",
              file=sys.stderr)
        return 2
    reason = skip_reason()
    if reason:
        print(reason, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as directory:
        sys.stdout.write(version_block(probe_layout(directory), int(argv[2])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
