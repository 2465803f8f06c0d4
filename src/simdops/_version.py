"""simdops.__version__: the one version is pyproject.toml's [project] version,
read from the installed package's metadata (a source checkout used through
PYTHONPATH=src, with no metadata, reads pyproject.toml itself)."""
import os
import re
from importlib import metadata


def _from_pyproject() -> str:
    path = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "pyproject.toml")
    try:
        with open(path, encoding="utf-8") as f:
            match = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M)
    except OSError:
        match = None
    return match.group(1) if match else "0+unknown"


try:
    __version__ = metadata.version("simdops")
except metadata.PackageNotFoundError:
    __version__ = _from_pyproject()
