"""simdops.__version__: the one version is pyproject.toml's [project] version.

It is read without importlib.metadata, which costs more to import than the rest of
simdops (about 30-170 ms): an installed package reads the `Version:` header of the
simdops-*.dist-info/METADATA file next to it; a source checkout (an editable install,
or PYTHONPATH=src) reads pyproject.toml itself. Only an install laid out some other
way (several dist-info folders, a zip) falls back to importlib.metadata.
"""
import glob
import os
import re

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _from_dist_info():
    found = glob.glob(os.path.join(os.path.dirname(_PACKAGE), "simdops-*.dist-info", "METADATA"))
    if len(found) != 1:
        return None
    try:
        with open(found[0], encoding="utf-8") as f:
            for line in f:
                if not line.strip():                # end of the headers
                    break
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _from_pyproject():
    path = os.path.join(_PACKAGE, os.pardir, os.pardir, "pyproject.toml")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    if not re.search(r'^name\s*=\s*"simdops"', text, re.M):
        return None
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    return match.group(1) if match else None


def _from_metadata():
    from importlib import metadata
    try:
        return metadata.version("simdops")
    except metadata.PackageNotFoundError:
        return "0+unknown"


__version__ = _from_dist_info() or _from_pyproject() or _from_metadata()
