"""The C API capsule's layout is frozen: every field a released abi_version has keeps its
offset, its signature and its version, as csrc/include/simdops/capi_versions.txt records
them (64-bit offsets); the layout is read from the header by a small C program
(tests/capi_layout.py, which also prints a new version's block to append). The list
SIMDOPS_CAPI_ENTRIES itself is checked, the header is compiled as C99 and C++, and
capi.pxd's hand-written Cython declarations are compared with the list.

Needs the source tree and a C compiler (skipped otherwise).
"""
import itertools
import os
import re
import shutil

import pytest

from capi_layout import (FROZEN_NAME, INCLUDE, PRINT_COMMAND, ROOT, compilers, probe_layout,
                         python_include, read_frozen, run, skip_reason, split_params,
                         type_tokens, version_block)

PXD = os.path.join(ROOT, "src", "simdops", "capi.pxd")

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
    cc, cxx = compilers()
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
    rc, out = run(command + flags + ["-I", INCLUDE, "-I", python_include(), source],
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
        params = split_params(text[m.end() - 1:i])
        out.append((m.group(3), m.group(2), _in_c(m.group(1), c_names),
                    [_in_c(t, c_names) for t, _ in params]))
    return out


def _in_c(pxd_type, c_names):
    """'const error_t *' -> 'const simdops_error *' (capi.pxd's ctypedefs)."""
    return " ".join(c_names.get(token, token) for token in type_tokens(pxd_type))


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
