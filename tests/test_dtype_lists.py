"""The consumers of the C dtype table (_core.DTYPE_NAMES, _core.op_dtypes) in Python: a dtype
the table gains reaches each of them, and one a consumer cannot handle is named, not
skipped and not a crash (bfloat16 below: numpy has no such type, DirectML no such enum)."""
import subprocess
import sys

import numpy as np
import pytest

import reference
from simdops import _core, selftest

NEW_VALUE = max(_core.DTYPE_NAMES) + 1


@pytest.fixture
def table_with_bfloat16(monkeypatch):
    """The dtype table as it would be with a 2-byte float type numpy does not know."""
    real_info = _core.dtype_info
    monkeypatch.setattr(_core, "DTYPE_NAMES", {**_core.DTYPE_NAMES, NEW_VALUE: "bfloat16"})
    monkeypatch.setattr(_core, "dtype_info", lambda d: ("bfloat16", 2, True, True, None, None)
                        if d == NEW_VALUE else real_info(d))


def test_dml_enum_is_the_tables_directml_types():
    from simdops import dml
    T = dml.TensorDataType
    for member in T:
        if member is not T.UNKNOWN:
            assert _core.DTYPE_NAMES[member.value].upper() == member.name
    # directml.h's values
    assert (T.UNKNOWN, T.FLOAT32, T.FLOAT16, T.UINT8, T.INT8, T.FLOAT64, T.INT64) == \
        (0, 1, 2, 5, 8, 9, 11)


def test_dml_imports_with_a_dtype_directml_does_not_name():
    code = (f"from simdops import _core\n"
            f"_core.DTYPE_NAMES = {{**_core.DTYPE_NAMES, {NEW_VALUE}: 'bfloat16'}}\n"
            f"from simdops import dml\n"
            f"print(sorted(m.name for m in dml.TensorDataType))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    names = eval(r.stdout)
    assert "FLOAT32" in names and not any("BFLOAT" in n for n in names)


def test_selftest_accepts_the_real_table():
    assert selftest.dtype_problems() == {}


def test_selftest_names_a_dtype_it_cannot_make(table_with_bfloat16, capsys):
    # numpy has no bfloat16, or (once ml_dtypes is imported, as torch or onnx may do) a
    # kind V one: neither makes float inputs
    assert list(selftest.dtype_problems()) == ["bfloat16"]
    assert selftest.main(["--quick"]) == 1
    assert "FAIL dtype bfloat16" in capsys.readouterr().out


def test_selftest_names_a_row_numpy_disagrees_with(monkeypatch):
    # the table calling uint16 a float type: its inputs would be integer patterns
    real_info = _core.dtype_info
    code = next(v for v, n in _core.DTYPE_NAMES.items() if n == "uint16")
    monkeypatch.setattr(_core, "dtype_info", lambda d: ("uint16", 2, True, True, None, None)
                        if d == code else real_info(d))
    assert selftest.dtype_problems() == {
        "uint16": "numpy's uint16 is u2; the dtype table's row is f2"}


def test_reference_stops_on_a_dtype_numpy_lacks(table_with_bfloat16):
    with pytest.raises(ImportError, match="'bfloat16'"):
        reference._numpy_types(["float32", "bfloat16"])


def test_reference_stops_on_a_row_numpy_disagrees_with(monkeypatch):
    real_info = _core.dtype_info
    code = next(v for v, n in _core.DTYPE_NAMES.items() if n == "int16")
    monkeypatch.setattr(_core, "dtype_info", lambda d: ("int16", 2, False, False, 0, 65535)
                        if d == code else real_info(d))
    with pytest.raises(ImportError, match="'int16' \\(u2\\)"):
        reference._numpy_types(["int16"])


def test_reference_lists_are_the_tables():
    assert [np.dtype(d).name for d in reference.CLIP_DTYPES] == list(_core.op_dtypes("clip"))
    assert set(reference.FLOAT_DTYPES) | set(reference.INT_DTYPES) == \
        {np.dtype(n).type for n in _core.DTYPE_NAMES.values()}
    assert reference.REQUANT_OUT["int8"] == (-128, 127)
