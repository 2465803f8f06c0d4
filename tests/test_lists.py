"""The restatements of C's lists that no preprocessor can reach against the lists
themselves, as _core reports them: the Cython enum declarations and the stubs'
Literal, which setup.py writes from simdops.h (list_decls.py: capi_types_lists.pxi,
capi_lists.pxi, _typing_lists.pyi), and the tests' references. A member missing
from either side fails here, named; so does a generated file that is missing or
(in a source tree) older than the header's lists."""
import ast
import os
import re

import numpy as np
import pytest

import reference
import simdops
from simdops import _core

# pytest-run-parallel: ast.parse from two threads at once raises SystemError on CPython 3.11
pytestmark = pytest.mark.thread_unsafe(reason="ast.parse is not thread-safe on CPython 3.11")

PACKAGE = os.path.dirname(simdops.__file__)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED = ("capi_types_lists.pxi", "capi_lists.pxi", "_typing_lists.pyi")


def _read(name):
    path = os.path.join(PACKAGE, name)
    if name in GENERATED and not os.path.exists(path):
        raise AssertionError(f"{path} is missing: setup.py writes it from simdops.h's lists "
                             "(list_decls.py); rebuild (python setup.py build_ext --inplace)")
    with open(path, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("name", GENERATED)
def test_generated_declarations_ship(name):
    _read(name)


@pytest.mark.parametrize("name", ["capi_types.pxd", "capi.pxd", "_typing.pyi"])
def test_declarations_include_the_generated_lists(name):
    wanted = {"capi_types.pxd": 'include "capi_types_lists.pxi"',
              "capi.pxd": 'include "capi_lists.pxi"',
              "_typing.pyi": "from simdops._typing_lists import Rounding as Rounding"}[name]
    assert re.search(rf"^{re.escape(wanted)}$", _read(name), re.M), f"{name} lacks `{wanted}`"


def _list_decls():
    """list_decls.py of the source tree the tested package was built in, or None
    (an installed wheel: no header to compare with)."""
    if os.path.abspath(PACKAGE) != os.path.join(ROOT, "src", "simdops"):
        return None
    import importlib.util
    spec = importlib.util.spec_from_file_location("list_decls", os.path.join(ROOT, "list_decls.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", GENERATED)
def test_generated_declarations_are_the_headers_lists(name):
    decls = _list_decls()
    if decls is None:
        pytest.skip("not the source tree's package: no header to compare with")
    assert _read(name) == decls.expected()[name], (
        f"src/simdops/{name} is stale: simdops.h's lists changed since setup.py wrote it; "
        "rebuild (python setup.py build_ext --inplace)")


def _pxd_enum(text, enum):
    """The members of `ctypedef enum <enum>:` in a .pxd, in order."""
    block = re.search(rf"^( *)ctypedef enum {enum}:\n((?:\1 +\w+.*\n)+)", text, re.M)
    assert block, f"no `ctypedef enum {enum}:` block"
    return re.findall(r"^\s+(\w+)", block.group(2), re.M)


def _compare(declared, listed, where):
    missing = [m for m in listed if m not in declared]
    extra = [m for m in declared if m not in listed]
    assert not missing, f"{where} lacks {missing} (in the C list)"
    assert not extra, f"{where} declares {extra}, which the C list does not have"
    assert declared == listed, f"{where} lists the members out of the C list's order"


def test_op_members_are_the_enum_by_code():
    members = _core.op_members()
    assert len(members) == len(_core.op_names())
    assert members[0] == "SIMDOPS_OP_NONE"
    assert all(m.startswith("SIMDOPS_OP_") and m != "SIMDOPS_OP_" for m in members), members


def test_op_message_names():
    # what error messages have always started with; clip's scale/bias form and
    # requant's output role share their op's name. A released line keeps its name; a
    # new op's line is appended (its name is its own test's business)
    released = ["", "clip", "clip", "shrink", "hardmax", "quantize", "quantize",
                "quantize_linear", "dequantize_linear", "quantized_add", "quantized_subtract",
                "quantized_multiply", "quantized_binary", "int8_matmul_accumulators"]
    assert _core.op_names()[:len(released)] == released


def test_capi_types_op_enum_is_the_op_list():
    _compare(_pxd_enum(_read("capi_types_lists.pxi"), "simdops_op"),
             _core.op_members() + ["SIMDOPS_OP_COUNT"], "capi_types_lists.pxi's simdops_op")


def test_capi_op_constants_are_the_op_list():
    declared = re.findall(r'^\s+const op_t (\w+) "(\w+)"', _read("capi_lists.pxi"), re.M)
    for short, c_name in declared:
        assert "SIMDOPS_" + short == c_name, f"capi_lists.pxi names {c_name} {short}"
    _compare([c for _, c in declared], _core.op_members(), "capi_lists.pxi's op_t constants")


def test_every_op_accepts_some_dtype():
    # op_dtypes takes an op by its member's name; an op the dtype table never
    # lists would be a line no kernel can serve
    names = [m[len("SIMDOPS_OP_"):].lower() for m in _core.op_members()[1:]]
    assert "clip_scale_bias" in names and "dequantize_linear" in names, names
    empty = [op for op in names if not _core.op_dtypes(op)]
    assert not empty, f"ops no dtype supports: {empty}"


def _array_roundings():
    return [name for name, _code, _lo, _hi, array_api in _core.roundings() if array_api]


def test_rounding_codes_run_from_zero():
    rows = _core.roundings()
    assert [code for _, code, _, _, _ in rows] == list(range(len(rows)))
    names = [name for name, *_ in rows]
    assert len(set(names)) == len(names), names
    assert names[0] == "double"  # the default of rounding=
    assert all(lo <= hi for _, _, lo, hi, _ in rows), rows


def test_capi_types_rounding_enum_is_the_family_list():
    _compare(_pxd_enum(_read("capi_types_lists.pxi"), "simdops_rounding"),
             _core._rounding_members() + ["SIMDOPS_ROUNDING_COUNT"],
             "capi_types_lists.pxi's simdops_rounding")


def test_capi_rounding_constants_are_the_family_list():
    declared = re.findall(r'^\s+enum: (ROUNDING_\w+) "(\w+)"', _read("capi_lists.pxi"), re.M)
    for short, c_name in declared:
        assert "SIMDOPS_" + short == c_name, f"capi_lists.pxi names {c_name} {short}"
    _compare([c for _, c in declared], _core._rounding_members(),
             "capi_lists.pxi's ROUNDING_ enums")


def _stub_literal(name, alias):
    tree = ast.parse(_read(name))
    for node in tree.body:
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        if ([getattr(t, "id", None) for t in targets] == [alias]
                and isinstance(node.value, ast.Subscript)):
            elts = node.value.slice.elts if isinstance(node.value.slice, ast.Tuple) \
                else [node.value.slice]
            return [e.value for e in elts]
    raise AssertionError(f"{name} has no {alias} = Literal[...]")


def test_stub_rounding_literal_is_the_array_families():
    _compare(_stub_literal("_typing_lists.pyi", "Rounding"), _array_roundings(),
             "_typing_lists.pyi's Rounding")


@pytest.mark.parametrize("stub", ["_core.pyi", "dask.pyi"])
def test_stubs_take_the_rounding_literal_from_typing(stub):
    assert "from simdops._typing import" in _read(stub) and "Rounding as _Rounding" in _read(stub)
    assert not re.search(r"^_Rounding\b.*=", _read(stub), re.M), f"{stub} restates the rounding names"


def test_every_family_entry_is_a_kernel_entry():
    entries = {e for e, _ in _core.kernel_entries()}
    for name, entry in _core.rounding_entries().items():
        assert {entry, entry + "_pc"} <= entries, (name, entry)


def test_every_array_family_has_a_reference():
    # tests/reference.py reads each family from the runtimes' sources; a family the
    # C list gains must gain its reference too
    x = np.array([-2**31, -7, 0, 5, 2**31 - 1], np.int32)
    for name in _array_roundings():
        try:
            want = reference.requant_family(x, 1 << 30, 3, 1, rounding=name)
        except KeyError:
            raise AssertionError(f"tests/reference.py has no family {name!r}") from None
        got = simdops.quantize_down_int32(x, 1 << 30, 3, 1, rounding=name)
        assert got.tolist() == want.tolist(), name


@pytest.mark.parametrize("row", _core.roundings(), ids=lambda r: r[0])
def test_shift_range_is_what_the_family_accepts(row):
    name, code, lo, hi, _ = row
    x = np.arange(-8, 8, dtype=np.int32)
    for shift in (lo, hi):
        _core._requant_family(x, 1 << 30, shift, 0, rounding=code)
    for shift in (lo - 1, hi + 1):
        with pytest.raises(ValueError, match="shift must be in"):
            _core._requant_family(x, 1 << 30, shift, 0, rounding=code)
