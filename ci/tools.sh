#!/usr/bin/env bash
# The micro-benchmarks under tools/ still build and run against the current
# code: the C ones (cbench, rqbench: built like the harness, -Wall -Wextra
# -Werror) for one round of every case, and tools/kernel_bench.py for one
# round against the installed simdops. They measure nothing here (one round
# on a shared machine); this only keeps them working.
# Usage: ci/tools.sh [python]  (a python with simdops installed; default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CFLAGS_EXTRA=-Werror bash tools/cbench.sh "$out"
"$out/cbench" "" 1
for isa in $("$PY" -c 'import simdops; print(" ".join(simdops.available_isas()))'); do
    "$out/rqbench" 1 "$isa"
done
"$PY" tools/kernel_bench.py --rounds 1
echo "tools.sh: OK"
