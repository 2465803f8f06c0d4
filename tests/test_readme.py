"""The README as a newcomer meets it: every Python block runs as printed, the first one with
nothing but what the first command installs (numpy and simdops), the quantized-inference
example computes what its text says (checked against independent references), and the two
clone commands that CI and developers use stay the page's first lines, unchanged. Also the
LocalCluster snippet of docs/dask.md, run as the script it claims to be."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import reference

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
DASK_DOC = os.path.join(ROOT, "docs", "dask.md")

# .ci/run runs the second command; changing them here means changing CI too
CLONE_COMMANDS = [
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && "
    "python -m simdops bench --quick",
    'python3 -m venv .venv && . .venv/bin/activate && pip install ".[test,runtimes]" && '
    "python -m pytest",
]
# a block whose first line is this runs after the block before it, in its namespace
CONTINUES = "# needs torch; continues the example above"


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _blocks(text, language):
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def _readme_python_blocks():
    return _blocks(_read(README), "python") if os.path.exists(README) else []


# the wheel tests run a copy of tests/ with docs/ and examples/ beside it, maybe no README
needs_readme = pytest.mark.skipif(not os.path.exists(README),
                                  reason="README.md is not beside tests/ in this copy")


def _section(text, heading):
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def _needs(block):
    """The optional modules a block imports that are not installed."""
    missing = []
    for name in ("torch", "onnxruntime", "dask"):
        if re.search(rf"^\s*(import|from) {name}\b", block, flags=re.M):
            try:
                __import__(name)
            except ImportError:
                missing.append(name)
    return missing


@needs_readme
def test_readme_has_python_blocks():
    assert len(_readme_python_blocks()) >= 2       # the example and the API tour


@pytest.fixture
def restore_threads():
    import simdops
    threads = simdops.get_num_threads()
    yield
    simdops.set_num_threads(threads)         # the API tour sets 2 threads, process-wide


def _run_block(blocks, index, namespace):
    if blocks[index].startswith(CONTINUES):
        assert index > 0, "the first block cannot continue another"
        _run_block(blocks, index - 1, namespace)
    exec(compile(blocks[index], f"README.md python block {index}", "exec"), namespace)


@pytest.mark.parametrize("index", range(len(_readme_python_blocks())))
def test_readme_python_block_runs(index, capsys, restore_threads):
    blocks = _readme_python_blocks()
    missing = _needs(blocks[index])
    if missing:
        pytest.skip(f"the block needs {', '.join(missing)}")
    _run_block(blocks, index, {"__name__": "readme"})


def _imported_top_modules(block):
    return set(re.findall(r"^\s*(?:import|from)\s+(\w+)", block, flags=re.M))


@needs_readme
def test_readme_first_example_needs_only_the_first_command():
    # the first command installs simdops and its dependencies (numpy), nothing else
    first = _readme_python_blocks()[0]
    assert _imported_top_modules(first) == {"numpy", "simdops"}
    assert not first.startswith(CONTINUES)
    # every block that imports torch says so on its first line (neither command installs it)
    for block in _readme_python_blocks():
        if "torch" in _imported_top_modules(block):
            assert block.startswith(CONTINUES) or block.startswith("# needs torch"), block


def test_imported_top_modules_sees_imports():
    assert _imported_top_modules("import numpy as np\n  from torch import x\nx = 1\n") == {
        "numpy", "torch"}


def _quantized_examples():
    """The section's numpy example and its torch variant."""
    text = _section(_read(README), "## Quantized inference: what simdops does after the matmul")
    blocks = _blocks(text, "python")
    assert len(blocks) == 2, "the quantized-inference section: the example and its torch variant"
    assert blocks[1].startswith(CONTINUES)
    return blocks


def _run_quantized_example():
    namespace = {"__name__": "readme"}
    exec(compile(_quantized_examples()[0], "README quantized example", "exec"), namespace)
    return namespace


@needs_readme
def test_readme_quantized_example_is_right():
    namespace = _run_quantized_example()
    a, w, acc, y = (namespace[k] for k in ("a", "w", "acc", "y"))
    assert type(acc) is np.ndarray and acc.dtype == np.int32    # numpy only
    # the accumulators are the exact integer product (numpy in int64, an independent path)
    exact = a.astype(np.int64) @ w.astype(np.int64)
    assert np.array_equal(acc, exact)
    # the multiplier and the requantization follow the Python-int reference of the contract
    real = namespace["scale_a"] * namespace["scale_w"] / namespace["scale_out"]
    m, shift = reference.quantize_multiplier(real)
    assert (namespace["multiplier"], namespace["shift"]) == (m, shift)
    zp = namespace["zero_point_out"]
    expected = reference.requant(exact.astype(np.int32), m, shift, zp, bias=namespace["bias"],
                                 min=zp, max=127, out_dtype="int8")
    assert y.dtype == np.int8 and y.shape == (32, 16)
    assert np.array_equal(y, expected)
    # and it means what the text says: close to round(real * (acc + bias)) + zp, ReLU'd
    approx = np.clip(np.round(real * (exact + namespace["bias"])) + zp, zp, 127)
    assert np.abs(y.astype(np.int64) - approx).max() <= 1
    assert len(np.unique(y)) > 10            # not a degenerate example (all clamped)
    # the other runtimes' families, against the references read from their sources
    acc32 = exact.astype(np.int32)
    assert np.array_equal(namespace["y_ort"], reference.requantize_fp32(
        acc32, real, zp, bias=namespace["bias"], min=zp, out_dtype="int8"))
    m1, s1 = reference.quantize_multiplier_tflite(real)
    assert (namespace["m1"], namespace["s1"]) == (m1, s1)
    assert np.array_equal(namespace["y_tfl"], reference.requant_family(
        acc32, m1, s1, zp, bias=namespace["bias"], min=zp, max=127, out_dtype="int8",
        rounding="single"))


@needs_readme
def test_readme_starts_with_the_clone_commands():
    text = _read(README)
    lines = text.splitlines()
    assert lines[0] == "# simdops"
    # the first lines after the title: the sh block of the two commands
    assert lines[1] == "" and lines[2] == "```sh"
    assert lines[3:5] == CLONE_COMMANDS and lines[5] == "```"
    ci = _read(os.path.join(ROOT, ".ci", "run")) if os.path.exists(
        os.path.join(ROOT, ".ci", "run")) else None
    if ci is not None:                       # not in the sdist: it needs a git clone
        assert 'pip install -q ".[test,runtimes]" && python -m pytest' in ci


@needs_readme
def test_readme_first_screen_order():
    text = _read(README)
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[:3] == ["Install", "Quantized inference: what simdops does after the matmul",
                            "API tour"], headings
    install = _section(text, "## Install")
    assert "pip install simdops" in install and "pip install ." in install
    assert "docs/platforms.md" in install


def _dask_script():
    blocks = [b for b in _blocks(_read(DASK_DOC), "python") if "LocalCluster(" in b]
    assert len(blocks) == 1, "docs/dask.md has one LocalCluster example"
    return blocks[0]


@pytest.mark.slow
def test_dask_doc_local_cluster_snippet_runs_as_a_script(tmp_path):
    pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    script = _dask_script()
    assert 'if __name__ == "__main__":' in script   # worker processes re-import the script
    path = tmp_path / "local_cluster.py"
    path.write_text(script)
    proc = subprocess.run([sys.executable, str(path)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "True", proc.stdout


@needs_readme
def test_readme_quantized_example_torch_variant():
    torch = pytest.importorskip("torch")
    namespace = _run_quantized_example()
    y = namespace["y"].copy()
    exec(compile(_quantized_examples()[1], "README quantized example, torch", "exec"), namespace)
    acc_t, y_t = namespace["acc_t"], namespace["y_t"]
    assert isinstance(acc_t, torch.Tensor) and acc_t.dtype == torch.int32
    exact = namespace["a"].astype(np.int64) @ namespace["w"].astype(np.int64)
    assert np.array_equal(acc_t.numpy(), exact)
    # written into the torch tensor given as out=, the same bits as the numpy route
    assert y_t.dtype == torch.int8 and np.array_equal(y_t.numpy(), y)
