"""Sphinx configuration of the simdops docs site (built by ci/docs.sh, warnings as errors).

The pages are the Markdown files of docs/, read by MyST so they stay readable on GitHub;
index.md's glob toctree picks up every docs/*.md and docs/maintainers/*.md page, so a new
page joins the site without an edit here. The API reference (api/*.rst) is generated from
the docstrings by autosummary and rendered by numpydoc."""
import os
import sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import simdops
except ImportError:         # not installed: the source tree's package, built in place
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
    import simdops

project = "simdops"
author = "the simdops authors"
copyright = "the simdops authors"
release = simdops.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# GitHub's own anchors for "[text](page.md#a-heading)" links, up to ###
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

autosummary_generate = True
autodoc_typehints = "none"          # the numpydoc sections say the types
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# every public docstring must parse into numpydoc sections; the check runs with -W
numpydoc_validation_checks = {"GL08"}   # a public object without a docstring
numpydoc_validation_exclude = {r"\.__init__$"}   # the class docstring documents the call

html_theme = "pydata_sphinx_theme"
html_title = "simdops"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = []

# the site links only to itself; linkcheck (ci/docs.sh) checks the internal links offline
linkcheck_ignore = [r"https?://.*"]


# ------------------------------------------------------------------ the API pages
# One page per public module, listing its __all__: a function added to __all__ (or a new
# public module) is in the reference without an edit here. Written into api/_modules/ and
# api/_generated/ (autosummary's stubs), both ignored by git.
# bench and selftest are command-line tools (python -m simdops bench|selftest), not API
NOT_API = {"simdops.bench", "simdops.selftest"}


def public_modules():
    import importlib
    import pkgutil
    names = ["simdops"]
    for info in pkgutil.iter_modules(simdops.__path__):
        name = f"simdops.{info.name}"
        if not info.name.startswith("_") and name not in NOT_API:
            names.append(name)
    found = []
    for name in sorted(names):
        try:
            found.append(importlib.import_module(name))
        except ImportError as exc:       # e.g. simdops.torch without torch: fail loudly
            raise RuntimeError(f"the docs need {name} importable: {exc}") from exc
    return found


def _is_torch_op(obj):
    # a torch.library.custom_op object is not a function: autodoc would show its class
    return type(obj).__name__ == "CustomOpDef" and hasattr(obj, "_init_fn")


def _torch_op_directive(module, name, op):
    import inspect
    fn = op._init_fn
    plain = inspect.signature(fn)
    plain = plain.replace(parameters=[p.replace(annotation=p.empty)
                                      for p in plain.parameters.values()],
                          return_annotation=plain.empty)
    signature = str(plain)
    lines = [f".. py:function:: {name}{signature}", f"   :module: {module}", ""]
    doc = inspect.getdoc(fn) or ""
    lines += [("   " + line).rstrip() for line in doc.splitlines()]
    lines += ["", f"   Registered as ``torch.ops.simdops.{name}``.", ""]
    return lines


def _ufunc_directive(module, name, uf):
    # a numpy ufunc: autodoc cannot format its signature; numpy's doc starts with the
    # call line (x1, x2, ... and its "[, signature]" tail), then the ufunc's own text
    import re
    head, _, body = (uf.__doc__ or "").partition("\n\n")
    own = re.match(r"\w+\((.*)\):", body)       # "clip(x, min, max): ..." names the inputs
    inputs = own.group(1) if own else ", ".join(f"x{i + 1}" for i in range(uf.nin))
    lines = [f".. py:function:: {name}({inputs}, /, out=None, *, where=True, **kwargs)",
             f"   :module: {module}", ""]
    lines += [("   " + line).rstrip() for line in body.splitlines()]
    lines += ["", "   A numpy ufunc (``" + head.split("(")[0] + "``): numpy's keyword arguments "
              "apply.", ""]
    return lines


def write_api_pages():
    out = os.path.join(HERE, "api", "_modules")
    os.makedirs(out, exist_ok=True)
    for module in public_modules():
        name = module.__name__
        members = sorted(getattr(module, "__all__", []))
        lines = [name, "=" * len(name), "", f".. automodule:: {name}", "   :no-members:", ""]
        ops = [m for m in members if _is_torch_op(getattr(module, m))]
        ufuncs = [m for m in members if isinstance(getattr(module, m), np.ufunc)]
        plain = [m for m in members if m not in ops and m not in ufuncs]
        if plain:
            lines += [".. currentmodule:: " + name, "", ".. autosummary::",
                      "   :toctree: ../_generated", "   :nosignatures:", ""]
            lines += [f"   {member}" for member in plain] + [""]
        for member in ops:              # torch.library custom ops: their Python function
            lines += _torch_op_directive(name, member, getattr(module, member))
        for member in ufuncs:           # numpy ufuncs: their documented call
            lines += _ufunc_directive(name, member, getattr(module, member))
        text = "\n".join(lines) + "\n"
        path = os.path.join(out, name + ".rst")
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:                  # unchanged pages keep their mtime (no rebuild)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


write_api_pages()
