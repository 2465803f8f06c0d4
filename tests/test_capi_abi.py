"""The C API capsule's layout is frozen: every field a released abi_version has keeps its
offset, its signature and its version, as csrc/include/simdops/capi_versions.txt records
them (64-bit offsets). The layout comes from the header itself: a small C program built
with the system compiler expands SIMDOPS_CAPI_ENTRIES (simdops/simdops_capi.h) and prints
each entry's offsetof, its stringified signature and simdops_capi_size_of_version().
capi.pxd's hand-written Cython declarations are checked against the same list.

When fields are appended (a new version), append that version's block, printed from the
current header by

    python tests/test_capi_abi.py --print-version N >> csrc/include/simdops/capi_versions.txt

Needs the source tree and a C compiler (skipped otherwise).
"""
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "csrc", "include")
FROZEN = os.path.join(INCLUDE, "simdops", "capi_versions.txt")
FROZEN_NAME = "csrc/include/simdops/capi_versions.txt"
PXD = os.path.join(ROOT, "src", "simdops", "capi.pxd")
PRINT_COMMAND = f"python tests/test_capi_abi.py --print-version {{v}} >> {FROZEN_NAME}"

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

# Everything an extension may use, so that the header is compiled in full.
USE_ALL = r"""
#include "simdops/simdops_capi.h"
int use_simdops(void)
{
    simdops_error err;
    if (simdops_import() < 0)
        return -1;
    return simdops_capi_set_thread_isa("", &err) + (int)simdops_capi_size_of_version(1);
}
"""


class Entry:
    """One X(...) of SIMDOPS_CAPI_ENTRIES, as the probe printed it."""

    def __init__(self, version, offset, size, name, ret, params, args):
        self.version, self.offset, self.size, self.name = version, offset, size, name
        self.ret = " ".join(_type_tokens(ret))
        self.params = _split_params(params)
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


def _type_tokens(text):
    return re.findall(r"\w+|\*", text)


def _split_params(params):
    """'(const simdops_error *err, size_t cap)' -> [('const simdops_error *', 'err'), ...]"""
    inner = params.strip()
    assert inner.startswith("(") and inner.endswith(")"), params
    inner = inner[1:-1].strip()
    if inner in ("", "void"):
        return []
    out = []
    for param in inner.split(","):
        tokens = _type_tokens(param)
        out.append((" ".join(tokens[:-1]), tokens[-1]))
    return out


def _compilers():
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    cxx = shlex.split(os.environ.get("CXX") or sysconfig.get_config_var("CXX") or "c++")
    return cc, cxx


def _python_include():
    return sysconfig.get_paths()["include"]


def skip_reason():
    if not os.path.exists(os.path.join(INCLUDE, "simdops", "simdops_capi.h")):
        return "csrc/include (source tree) not here"
    cc, _ = _compilers()
    if shutil.which(cc[0]) is None:
        return f"no C compiler ({cc[0]!r} not found)"
    if not os.path.exists(os.path.join(_python_include(), "Python.h")):
        return "Python.h not found"
    return None


def _run(command, cwd):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def probe_layout(directory):
    """Builds and runs PROBE against csrc/include; the Layout it prints."""
    cc, _ = _compilers()
    with open(os.path.join(directory, "probe.c"), "w") as f:
        f.write(PROBE)
    # -O1: drops simdops_import_version (never called here), so nothing links to libpython
    rc, out = _run(cc + ["-O1", "-I", INCLUDE, "-I", _python_include(), "probe.c", "-o",
                         "probe"], directory)
    assert rc == 0, f"the layout probe did not compile against {INCLUDE}:\n{out}"
    rc, out = _run([os.path.join(directory, "probe")], directory)
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


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    return probe_layout(str(tmp_path_factory.mktemp("capi_abi")))


def _problems_text(problems, shown=3):
    """The first problems (one removal moves every later field: the first is the cause)."""
    more = f"\n  ... and {len(problems) - shown} more" if len(problems) > shown else ""
    return (f"the C API table differs from {FROZEN_NAME}:\n  " + "\n  ".join(problems[:shown])
            + more)


# ---- the frozen file ----

def test_released_fields_never_move_change_or_go(layout):
    frozen = read_frozen()
    head = {"abi_version": layout.head["abi_version"], "size": layout.head["size"]}
    problems = []
    for version, (_size, rows) in sorted(frozen.items()):
        for offset, name, signature in rows:
            if name in head:
                # the probe cannot spell a field's type: the 4 bytes are checked below
                now = (head[name][0], "uint32_t")
                entry_version = 1
            elif name in layout.by_name:
                e = layout.by_name[name]
                now, entry_version = (e.offset, e.signature), e.version
            else:
                problems.append(f"{name} (version {version}, offset {offset}) is gone from "
                                "SIMDOPS_CAPI_ENTRIES: a released field is never removed")
                continue
            if entry_version != version:
                problems.append(f"{name} was released in version {version}; the list now says "
                                f"version {entry_version}")
            elif now[1] != signature:
                problems.append(f"{name} (version {version}) changed signature: released "
                                f"`{signature}`, now `{now[1]}` (a released field never changes "
                                "type; append a new field instead)")
            elif layout.pointer == 8 and now[0] != offset:
                problems.append(f"{name} (version {version}) moved from offset {offset} to "
                                f"{now[0]}: released fields never move (new ones go at the end)")
    if problems:
        pytest.fail(_problems_text(problems))


def test_released_version_sizes_are_unchanged(layout):
    if layout.pointer != 8:
        pytest.skip("the frozen sizes are those of 64-bit platforms")
    for version, (size, _rows) in sorted(read_frozen().items()):
        assert layout.size_of_version[version] == size, (
            f"simdops_capi_size_of_version({version}) is {layout.size_of_version[version]}, "
            f"{FROZEN_NAME} froze {size}")


def test_every_field_is_in_a_frozen_version(layout):
    frozen = read_frozen()
    released = {name for _size, rows in frozen.values() for _o, name, _s in rows}
    last = max(frozen)
    problems = []
    for e in layout.entries:
        if e.name in released:
            continue
        if e.version <= last:
            problems.append(f"{e.name} (version {e.version}) is not in version {e.version}'s "
                            "frozen block: a new field takes the next version (bump "
                            "SIMDOPS_CAPI_VERSION), and a frozen block is never edited")
        else:
            problems.append(f"{e.name} (version {e.version}) is not frozen yet: append version "
                            f"{e.version}'s block: {PRINT_COMMAND.format(v=e.version)}")
    if problems:
        pytest.fail(_problems_text(problems))


def test_frozen_blocks_are_what_the_header_prints(layout):
    """Each block reads back as --print-version writes it from the header: a hand edit
    (a lost or reordered line, a typo) shows here."""
    if layout.pointer != 8:
        pytest.skip("the frozen offsets are those of 64-bit platforms")
    for version, (size, rows) in sorted(read_frozen().items()):
        frozen = [f"version {version} size {size}"]
        frozen += [f"{offset:4d} {name}: {signature}" for offset, name, signature in rows]
        printed = version_block(layout, version).splitlines()
        for line, (was, now) in enumerate(itertools.zip_longest(frozen, printed), 1):
            assert was == now, (f"line {line} of version {version}'s block: frozen {was!r}, the "
                                f"header gives {now!r}")


# ---- the list itself ----

def test_versions_are_appended_in_order(layout):
    versions = [e.version for e in layout.entries]
    for before, e in zip(layout.entries, layout.entries[1:]):
        assert e.version >= before.version, (
            f"{e.name} (version {e.version}) comes after {before.name} (version "
            f"{before.version}): fields are appended, so versions never decrease")
    assert versions[0] == 1, f"{layout.entries[0].name} has version {versions[0]}, not 1"
    assert versions[-1] == layout.version, (
        f"SIMDOPS_CAPI_VERSION is {layout.version}, the last entry ({layout.entries[-1].name}) "
        f"has version {versions[-1]}: the version counts the appends")
    missing = sorted(set(range(1, layout.version + 1)) - set(versions))
    assert not missing, f"no entry has version {missing}: each version appends fields"


def test_fields_are_pointers_packed_after_the_head(layout):
    pointer = layout.pointer
    assert layout.head == {"abi_version": (0, 4), "size": (4, 4)}
    for index, e in enumerate(layout.entries):
        assert (e.offset, e.size) == (8 + index * pointer, pointer), e.name
    assert layout.sizeof == 8 + len(layout.entries) * pointer


def test_argument_names_are_the_parameter_names(layout):
    """The list spells each parameter twice (the wrapper passes (argument names) on): the
    names must be the parameters', in order, or a wrapper would swap two arguments."""
    for e in layout.entries:
        names = [n for _t, n in e.params]
        assert all(t for t, _n in e.params), f"{e.name}: a parameter without a name"
        assert e.args == names, f"{e.name}: arguments {e.args}, parameters {names}"


def test_size_of_version(layout):
    """The bytes a table of each version has at least: the end of its last field."""
    for version in range(1, layout.version + 1):
        last = [e for e in layout.entries if e.version <= version][-1]
        assert layout.size_of_version[version] == last.offset + last.size, version
    assert layout.size_of_version[layout.version] == layout.sizeof
    assert layout.size_of_version[0] == layout.size_of_version[layout.version + 1] == 0
    for version, size in layout.size_macro.items():
        assert size == layout.size_of_version[version], (
            f"SIMDOPS_CAPI_SIZE_V{version} is {size}, simdops_capi_size_of_version({version}) "
            f"{layout.size_of_version[version]}")


# ---- the header compiles as C99 and as C++ ----

@pytest.mark.parametrize("language", ["c99", "c99-pedantic-table-only", "c++"])
def test_header_compiles_cleanly(layout, tmp_path, language):
    """As C99 and C++ with everything an extension uses; the list and the struct alone
    (SIMDOPS_CAPI_TABLE_ONLY: no Python.h, whose own headers need not be pedantic C99)
    with -pedantic-errors."""
    cc, cxx = _compilers()
    source, text, command = "use.c", USE_ALL, cc + ["-std=c99"]
    if language == "c++":
        if shutil.which(cxx[0]) is None:
            pytest.skip(f"no C++ compiler ({cxx[0]!r} not found)")
        source, command = "use.cpp", cxx
    elif language == "c99-pedantic-table-only":
        text = ("#define SIMDOPS_CAPI_TABLE_ONLY\n#include \"simdops/simdops_capi.h\"\n"
                "size_t table_size(void) { return sizeof(simdops_capi); }\n")
        command = command + ["-pedantic-errors"]
    (tmp_path / source).write_text(text)
    flags = ["-fsyntax-only", "-Wall", "-Wextra", "-Werror"]
    rc, out = _run(command + flags + ["-I", INCLUDE, "-I", _python_include(), source],
                   str(tmp_path))
    assert rc == 0, out


# ---- capi.pxd against the list ----

def pxd_declarations():
    """[(name, short name, return type, [parameter types])] of capi.pxd's simdops_capi_*
    functions, in file order, with its short type names (error_t) spelled as in C."""
    with open(PXD, encoding="utf-8") as f:
        text = f.read()
    c_names = dict(re.findall(r'ctypedef\s+\w+\s+(\w+)\s+"(\w+)"', text))
    out = []
    for m in re.finditer(r'^[ \t]*([\w \t*]+?)\s*\b(\w+)\s+"simdops_capi_(\w+)"\s*\(', text,
                         flags=re.M):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        params = _split_params(text[m.end() - 1:i])
        out.append((m.group(3), m.group(2), _in_c(m.group(1), c_names),
                    [_in_c(t, c_names) for t, _ in params]))
    return out


def _in_c(pxd_type, c_names):
    """'const error_t *' -> 'const simdops_error *' (capi.pxd's ctypedefs)."""
    return " ".join(c_names.get(token, token) for token in _type_tokens(pxd_type))


def test_pxd_declares_the_list_in_order(layout):
    declared = pxd_declarations()
    for index, e in enumerate(layout.entries):
        where = f"capi.pxd's function {index + 1}"
        assert index < len(declared), (
            f"capi.pxd lacks {e.name} (version {e.version}, `{e.signature}`): declare it after "
            f"{layout.entries[index - 1].name} as simdops_capi_{e.name}")
        name, short, ret, types = declared[index]
        if name != e.name:
            listed = {x.name for x in layout.entries}
            pytest.fail(
                f"capi.pxd declares simdops_capi_{name}, which SIMDOPS_CAPI_ENTRIES lacks"
                if name not in listed else
                f"capi.pxd lacks {e.name} (version {e.version}, `{e.signature}`)"
                if e.name not in {d[0] for d in declared} else
                f"{where} is simdops_capi_{name}; SIMDOPS_CAPI_ENTRIES has {e.name} there "
                "(same names, same order)")
        assert short == name, f"{where}: simdops_capi_{name} is declared as {short}"
        assert ret == e.ret, f"{name}: capi.pxd returns {ret}, the list {e.ret}"
        assert types == e.param_types, (
            f"{name}: capi.pxd takes ({', '.join(types)}), the list ({', '.join(e.param_types)})")
    extra = [d[0] for d in declared[len(layout.entries):]]
    assert not extra, f"capi.pxd declares simdops_capi_ functions the list lacks: {extra}"


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
