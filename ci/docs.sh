#!/usr/bin/env bash
# The docs site (docs/conf.py): Sphinx with MyST, numpydoc and the PyData theme, built
# with warnings as errors, so a dead link inside the site (a missing page, a heading
# anchor that no longer exists), a docstring numpydoc cannot render, or a docs/*.md page
# left out of the toctree fails CI. Then Sphinx's linkcheck on the internal links only
# (every http(s) link is ignored: CI has no network beyond the package registries).
# The code blocks of the pages are run by the test suite (tests/test_docs_examples.py,
# tests/test_recipes.py), not here. Usage: ci/docs.sh [python]
# (a python with simdops installed, or the source tree built in place; default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
# the docs extra of pyproject.toml, without reinstalling simdops itself
deps=$("$PY" - <<'PYEOF'
import re
text = open("pyproject.toml", encoding="utf-8").read()
block = re.search(r"^docs = \[(.*?)\]", text, flags=re.M | re.S).group(1)
print(" ".join(re.findall(r'"([^"]+)"', block)))
PYEOF
)
# shellcheck disable=SC2086
"$PY" -m pip install -q $deps
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$PY" -m sphinx -E -W --keep-going -q -b html docs "$out/html"
"$PY" -m sphinx -E -W --keep-going -q -b linkcheck docs "$out/linkcheck"
pages=$(find "$out/html" -name '*.html' -not -path '*/_static/*' -not -name 'genindex.html' \
    -not -name 'search.html' -not -name 'py-modindex.html' | wc -l)
echo "docs.sh: OK ($pages pages, 0 warnings)"
