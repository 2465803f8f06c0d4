#!/usr/bin/env bash
# mypy --strict on tests/typing_usage.py and tests/typing_usage_dask.py (user
# scripts calling every public function of simdops, simdops.dml, simdops.acl
# and simdops.dask) against the *installed* simdops, so the shipped py.typed
# and .pyi stubs are what is checked (the dask script needs dask installed). Usage: ci/typecheck.sh [python]
# (a python with simdops installed; default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
"$PY" -m mypy --version >/dev/null 2>&1 || "$PY" -m pip install -q "mypy>=1.10"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp tests/typing_usage.py tests/typing_usage_dask.py tests/typing_usage_ufunc.py "$work/"
# outside the tree: mypy must find simdops through the installed package
(cd "$work" && "$PY" -m mypy --strict --python-version 3.10 --no-incremental \
    typing_usage.py typing_usage_dask.py typing_usage_ufunc.py)
echo "typecheck.sh: OK"
