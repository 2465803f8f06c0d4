#!/usr/bin/env bash
# Time-boxed property fuzzing of simdops (ci/fuzz_simdops.py): drawn dtypes,
# shapes, strides (negative, zero, partial elements), misaligned buffers, axes
# and extreme parameters against tests/reference.py under every ISA tier, and
# garbage for every argument of the array API and the dml / acl descriptors.
#
#   ci/fuzz.sh [--minutes M] [--seed S] [--only PROPERTY]... [python]
#
# python: an interpreter with simdops and hypothesis installed (default python3).
# Default 2 minutes (CI); e.g. --minutes 30 for a longer hunt. A failure prints
# the shrunk example and the --only/--seed that replay it. Exits non-zero on
# any failure, crash (the stack is printed) or hang. The rounds listed in
# ci/fuzz_regressions.txt (each once found a defect) are replayed first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=python3
ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
    --minutes | --seed | --only | --examples | --memory-gb)
        ARGS+=("$1" "$2")
        shift 2
        ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        PY=$1
        shift
        ;;
    esac
done

PY=$("$PY" -c "import sys; print(sys.executable)")
# run outside the source tree, so the installed simdops is the one tested
cd "$(mktemp -d -t simdops-fuzz.XXXXXX)"
"$PY" -c 'import simdops, hypothesis; print("fuzz.sh: simdops", simdops.__version__, "from", simdops.__file__)'
rc=0
# the rounds that once found a defect (ci/fuzz_regressions.txt), one round each, first
while read -r prop seed _; do
    case "$prop" in '' | '#'*) continue ;; esac
    echo "fuzz.sh: replaying $prop round seed $seed (ci/fuzz_regressions.txt)"
    "$PY" -X faulthandler "$ROOT/ci/fuzz_simdops.py" --only "$prop" --seed "$seed" \
        --minutes 0 || rc=$?
done <"$ROOT/ci/fuzz_regressions.txt"
if [ "$rc" != 0 ]; then
    echo "fuzz.sh: FAILED a replayed round (ci/fuzz_regressions.txt), exit $rc"
    exit 1
fi
"$PY" -X faulthandler "$ROOT/ci/fuzz_simdops.py" "${ARGS[@]}" || rc=$?
if [ "$rc" != 0 ]; then
    echo "fuzz.sh: FAILED (exit $rc)"
    exit 1
fi
echo "fuzz.sh: OK"
