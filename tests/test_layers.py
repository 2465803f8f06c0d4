"""The include graph of csrc/ and the import graph of src/simdops point one way: no cycle,
and no arrow from a layer to one above it.

C layers, highest first: api > rules > driver > dispatch > kernels > core. A file may
include headers of its own layer and of lower ones; the public headers (simdops/...) may be
included from anywhere. Python: no cycle among simdops's modules (function-local imports
included), and the extension _core imports nothing that imports it back."""
import ast
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
PKG = os.path.join(ROOT, "src", "simdops")
if not (os.path.isdir(os.path.join(CSRC, "core")) and os.path.isdir(os.path.join(PKG, "_ext"))):
    # the wheel's tests run from a copy of tests/ beside an installed package
    pytest.skip("the source tree (csrc/, src/simdops/_ext) is not here", allow_module_level=True)

# pytest-run-parallel: ast.parse from two threads at once raises SystemError on CPython 3.11
pytestmark = pytest.mark.thread_unsafe(reason="ast.parse is not thread-safe on CPython 3.11")

C_LAYERS = ("core", "kernels", "dispatch", "driver", "rules", "api")  # lowest first

# (source, included) edges allowed to point up, each with its reason: none. A kernel that
# needs a lower tier's arithmetic compiles it in (requant_families.h's row loops) rather
# than reading the table through dispatch/.
C_EXEMPT = set()

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def _c_files():
    for layer in C_LAYERS:
        for folder, _, names in os.walk(os.path.join(CSRC, layer)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(folder, name), CSRC).replace(os.sep, "/")


def _c_graph():
    """{file: [included file]} over csrc's layers, paths relative to csrc/; includes
    resolve from csrc/ (the include root) first, then from the including file's folder."""
    graph, unresolved = {}, []
    for rel in _c_files():
        with open(os.path.join(CSRC, rel), encoding="utf-8") as f:
            text = f.read()
        edges = []
        for inc in _INCLUDE.findall(text):
            if inc.startswith("simdops/"):
                continue  # a public header: allowed from anywhere
            for cand in (inc, os.path.join(os.path.dirname(rel), inc).replace(os.sep, "/")):
                if os.path.isfile(os.path.join(CSRC, cand)):
                    edges.append(os.path.normpath(cand).replace(os.sep, "/"))
                    break
            else:
                unresolved.append(f"{rel} -> {inc}")
        graph[rel] = edges
    return graph, unresolved


def _layer(rel):
    return C_LAYERS.index(rel.split("/")[0])


def _find_cycle(graph):
    """One cycle of the graph as a list of nodes (first == last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_c_includes_resolve():
    graph, unresolved = _c_graph()
    assert len(graph) > 50, "the walk found too few files: csrc/'s layout changed"
    assert not unresolved, "includes that name no file under csrc/: " + ", ".join(unresolved)


def test_c_includes_have_no_cycle():
    graph, _ = _c_graph()
    cycle = _find_cycle(graph)
    assert cycle is None, "include cycle: " + " -> ".join(cycle)


def test_c_includes_point_down():
    graph, _ = _c_graph()
    up = [f"{src} -> {dst} ({src.split('/')[0]} below {dst.split('/')[0]})"
          for src, dsts in graph.items() for dst in dsts
          if _layer(dst) > _layer(src) and (src, dst) not in C_EXEMPT]
    assert not up, "includes that point up (" + " > ".join(reversed(C_LAYERS)) + "): " + \
        "; ".join(up)


def test_c_exemptions_are_still_needed():
    # an exemption whose edge is gone must go too, or it would hide a new one
    graph, _ = _c_graph()
    stale = sorted(f"{src} -> {dst}" for src, dst in C_EXEMPT if dst not in graph.get(src, ()))
    assert not stale, "C_EXEMPT lists edges that no longer exist: " + ", ".join(stale)


def test_layer_check_catches_an_upward_edge():
    # the check itself: a core header that includes a rules header is reported
    graph = {"core/a.h": ["rules/b.h"], "rules/b.h": []}
    assert [(s, d) for s, ds in graph.items() for d in ds if _layer(d) > _layer(s)] == \
        [("core/a.h", "rules/b.h")]
    assert _find_cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": ["b"], "b": [], "c": ["a"]}) is None


# ----------------------------------------------------------------------------- Python

def _py_modules():
    """{module name: source path} of the simdops package (.py files)."""
    mods = {}
    for folder, _, names in os.walk(PKG):
        for name in names:
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(folder, name), os.path.dirname(PKG))
            parts = rel[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = os.path.join(folder, name)
    return mods


def _imported(tree, module, is_package, known):
    """The simdops modules a module's source imports, at any depth (function-local
    imports included): `from a import b` counts as a.b when that is a module."""
    package = module if is_package else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                     for a in node.names]
        else:
            continue
        for name in names:
            # `import a.b.c` binds and runs a.b.c: the deepest known module is the edge
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                out.add(name)
    return out


_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(simdops[\w.]*)\s+import\s+([\w, ]+)|"
                         r"import\s+(simdops[\w.]*))", re.M)


def _core_imports(known):
    """What the extension simdops._core imports from simdops (its .pyx sources; cimports
    are compile time and do not count)."""
    out = set()
    ext = os.path.join(PKG, "_ext")
    for name in sorted(os.listdir(ext)):
        if not name.endswith(".pyx"):
            continue
        with open(os.path.join(ext, name), encoding="utf-8") as f:
            for m in _PYX_IMPORT.finditer(f.read()):
                if m.group(3):
                    out.add(m.group(3))
                    continue
                for item in m.group(2).split(","):
                    full = f"{m.group(1)}.{item.strip()}"
                    out.add(full if full in known else m.group(1))
    return out


def _py_graph():
    mods = _py_modules()
    known = set(mods) | {"simdops._core"}
    graph = {}
    for module, path in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        graph[module] = sorted(_imported(tree, module, path.endswith("__init__.py"), known))
    graph["simdops._core"] = sorted(_core_imports(known))
    return graph


def test_python_imports_have_no_cycle():
    graph = _py_graph()
    assert "simdops.bench.ops" in graph and "simdops.acl" in graph
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_core_imports_nothing_that_imports_it():
    graph = _py_graph()

    def reaches_core(module, seen):
        if module == "simdops._core":
            return True
        seen.add(module)
        return any(reaches_core(m, seen) for m in graph.get(module, ()) if m not in seen)

    back = [m for m in graph["simdops._core"] if reaches_core(m, set())]
    assert not back, f"simdops._core imports modules that import it: {back}"


@pytest.mark.parametrize("layer", ["simdops", "simdops.dml", "simdops.acl", "simdops.onnx",
                                   "simdops.dask", "simdops.selftest"])
def test_public_layers_reach_core(layer):
    graph = _py_graph()
    seen, todo = set(), [layer]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph.get(module, ()))
    assert "simdops._core" in seen, f"{layer} does not import simdops._core at all"


def test_import_parser_sees_function_local_and_relative_imports():
    src = "def f():\n    from simdops.acl import _types\n    from . import _checks\n"
    known = {"simdops.acl", "simdops.acl._types", "simdops.acl._checks", "simdops.acl.x"}
    assert _imported(ast.parse(src), "simdops.acl.x", False, known) == \
        {"simdops.acl._types", "simdops.acl._checks"}
