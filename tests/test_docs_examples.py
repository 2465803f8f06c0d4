"""Every code block of the docs site is run or visibly marked as not run (the convention is in
docs/design.md, "Code blocks in the docs"):

- a ```python block runs here, the page's blocks in order in one namespace (a page reads
  top to bottom like a session), unless its first line says ``not run: <reason>``;
- a block in another language (sh, toml, c, ...) carries that ``not run:`` first line too,
  or is one that another test cuts out and runs (RUN_ELSEWHERE, looked up by first line);
- output, diagrams and pseudo-code are ```text blocks: not code;
- every fence names its language, so an unmarked block cannot slip through as "plain".

Pages whose blocks need a package that is not installed (torch, dask, ...) skip, naming it."""
import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")

MARKER = "not run:"
NOT_CODE = {"text"}
# blocks another test cuts out of the page and runs: (page, first line) -> that test
RUN_ELSEWHERE = {
    ("c-api.md", "/* mini.c */"): "test_capi_docs.py",
    ("c-api.md", "# setup.py (mini)"): "test_capi_docs.py",
    ("c-api.md", "# mini_cy.pyx"): "test_capi_docs.py",
    ("dask.md", "# local_cluster.py"): "test_readme.py",
}
# pages whose python blocks another test runs, all of them, with its own checks
PAGES_RUN_ELSEWHERE = {
    "torch.md": "test_torch_ops.py",     # compiles and exports: one torch._dynamo reset
    "recipes.md": "test_recipes.py",     # each recipe against its runtime
}
OPTIONAL_MODULES = ("torch", "dask", "distributed", "onnx", "onnxruntime", "ai_edge_litert",
                    "tensorflow", "openvino", "xarray")

needs_docs = pytest.mark.skipif(not os.path.isdir(DOCS), reason="docs/ is not beside tests/")


def pages():
    if not os.path.isdir(DOCS):
        return []
    found = glob.glob(os.path.join(DOCS, "*.md")) + glob.glob(os.path.join(DOCS, "*", "*.md"))
    return sorted(os.path.relpath(p, DOCS) for p in found)


# fences may be indented (a block inside a list item)
FENCE = re.compile(r"^[ \t]*```([^\n`]*)\n(.*?)^[ \t]*```[ \t]*$", flags=re.S | re.M)


def blocks(page):
    """(language, first line, code, line number) of each fenced block of a page."""
    with open(os.path.join(DOCS, page), encoding="utf-8") as f:
        text = f.read()
    found = []
    for m in FENCE.finditer(text):
        code = m.group(2)
        first = code.splitlines()[0].strip() if code.strip() else ""
        found.append((m.group(1).strip(), first, code, text.count("\n", 0, m.start()) + 1))
    return found


def is_directive(language):
    return language.startswith("{")          # a MyST directive (index.md's toctrees)


def runnable_python(page):
    return [(code, line) for language, first, code, line in blocks(page)
            if language == "python" and MARKER not in first
            and (page, first) not in RUN_ELSEWHERE]


def missing_modules(code):
    missing = []
    for name in OPTIONAL_MODULES:
        if re.search(rf"^\s*(import|from) {name}\b", code, flags=re.M):
            try:
                __import__(name)
            except ImportError:
                missing.append(name)
    return missing


def test_marker_detection():
    assert blocks.__doc__ and MARKER in "# my_job.py (not run: needs a scheduler)"
    assert not is_directive("python") and is_directive("{toctree}")
    found = FENCE.findall("- item:\n\n  ```c\n  int x;\n  ```\n```python\nx = 1\n```\n")
    assert [lang for lang, _ in found] == ["c", "python"]


@needs_docs
def test_the_docs_have_code_blocks():
    assert "semantics.md" in pages() and "design.md" in pages()
    assert sum(len(runnable_python(p)) for p in pages()
               if p not in PAGES_RUN_ELSEWHERE) >= 10


@needs_docs
@pytest.mark.parametrize("page", pages())
def test_every_block_is_run_or_marked(page):
    for language, first, code, line in blocks(page):
        where = f"docs/{page}:{line}"
        assert language, f"{where}: a fence without a language (text for output and diagrams)"
        if language in NOT_CODE or is_directive(language):
            continue
        if MARKER in first:
            assert first.split(MARKER, 1)[1].strip(), f"{where}: 'not run:' without a reason"
            continue
        if (page, first) in RUN_ELSEWHERE:
            assert os.path.exists(os.path.join(ROOT, "tests", RUN_ELSEWHERE[page, first]))
            continue
        assert language == "python", (
            f"{where}: a {language} block neither run nor marked '{MARKER} <reason>'")


@needs_docs
def test_run_elsewhere_blocks_exist():
    # a renamed block would leave its entry here pointing at nothing
    for page, first in RUN_ELSEWHERE:
        assert any(b[1] == first for b in blocks(page)), (page, first)
    for page, test in PAGES_RUN_ELSEWHERE.items():
        assert os.path.exists(os.path.join(ROOT, "tests", test)), test


@pytest.fixture
def restore_threads():
    import simdops
    threads = simdops.get_num_threads()
    yield
    simdops.set_num_threads(threads)         # threads.md sets a thread count, process-wide


@needs_docs
@pytest.mark.thread_unsafe(reason="the pages set process-wide state (thread counts)")
@pytest.mark.parametrize("page", [p for p in pages() if runnable_python(p)
                                  and p not in PAGES_RUN_ELSEWHERE])
def test_page_python_blocks_run(page, capsys, restore_threads):
    runnable = runnable_python(page)
    missing = sorted({m for code, _ in runnable for m in missing_modules(code)})
    if missing:
        pytest.skip(f"docs/{page} needs {', '.join(missing)}")
    namespace = {"__name__": "docs"}
    for code, line in runnable:
        exec(compile(code, f"docs/{page}, the python block at line {line}", "exec"), namespace)
