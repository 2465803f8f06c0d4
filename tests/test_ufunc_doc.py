"""docs/ufuncs.md's python blocks run (each asserts what the text says)."""
import os
import re

import pytest

pytest.importorskip("simdops.ufunc")
pytest.importorskip("dask.array")
pytest.importorskip("xarray")

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "ufuncs.md")
pytestmark = pytest.mark.skipif(not os.path.exists(DOC), reason="docs/ not beside tests/")


def _blocks():
    if not os.path.exists(DOC):
        return []
    return re.findall(r"```python\n(.*?)```", open(DOC, encoding="utf-8").read(), re.S)


def test_doc_has_blocks():
    assert len(_blocks()) >= 4


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_doc_block_runs(index):
    exec(compile(_blocks()[index], f"docs/ufuncs.md python block {index}", "exec"), {})
