#!/usr/bin/env bash
# Builds tools/cbench.c against the C harness objects: bash tools/cbench.sh [OUTDIR=/tmp/kb]
set -euo pipefail
OUT=${1:-/tmp/kb}
HERE=$(cd "$(dirname "$0")/.." && pwd)
bash "$HERE/csrc/tests/build.sh" "$OUT" >/dev/null
objs=$(ls "$OUT"/obj/*.o | grep -v test_kernels.o)
cc -O2 -g -I"$HERE/csrc/include" -I"$HERE/csrc" "$HERE/tools/cbench.c" $objs -o "$OUT/cbench" -lm
echo "built $OUT/cbench"
