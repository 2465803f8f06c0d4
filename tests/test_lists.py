"""The hand-written restatements of C's lists that no preprocessor can reach
(the Cython enum declarations) against the lists themselves, as _core reports
them: a member missing from either side fails here, named."""
import os
import re

import simdops
from simdops import _core

PACKAGE = os.path.dirname(simdops.__file__)


def _read(name):
    with open(os.path.join(PACKAGE, name), encoding="utf-8") as f:
        return f.read()


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
    # requant's output role share their op's name
    assert _core.op_names() == ["", "clip", "clip", "shrink", "hardmax", "quantize", "quantize",
                                "quantize_linear", "dequantize_linear"]


def test_capi_types_op_enum_is_the_op_list():
    _compare(_pxd_enum(_read("capi_types.pxd"), "simdops_op"),
             _core.op_members() + ["SIMDOPS_OP_COUNT"], "capi_types.pxd's simdops_op")


def test_capi_op_constants_are_the_op_list():
    declared = re.findall(r'^\s+const op_t (\w+) "(\w+)"', _read("capi.pxd"), re.M)
    for short, c_name in declared:
        assert "SIMDOPS_" + short == c_name, f"capi.pxd names {c_name} {short}"
    _compare([c for _, c in declared], _core.op_members(), "capi.pxd's op_t constants")


def test_every_op_accepts_some_dtype():
    # op_dtypes takes an op by its member's name; an op the dtype table never
    # lists would be a line no kernel can serve
    names = [m[len("SIMDOPS_OP_"):].lower() for m in _core.op_members()[1:]]
    assert "clip_scale_bias" in names and "dequantize_linear" in names, names
    empty = [op for op in names if not _core.op_dtypes(op)]
    assert not empty, f"ops no dtype supports: {empty}"
