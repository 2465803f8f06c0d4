#!/usr/bin/env bash
# The C kernel harness built natively with AddressSanitizer and
# UndefinedBehaviorSanitizer (-O1 -g, no recovery) and run: every kernel of
# every tier this CPU has, against the scalar reference. Fails on any harness
# failure or any sanitizer report.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BUILD_DIR:-$ROOT/csrc/tests/build}/sanitize
LOG=$OUT.log

"$ROOT/csrc/tests/build.sh" "$OUT" -O1 -g -fno-omit-frame-pointer \
    -fsanitize=address,undefined -fno-sanitize-recover=all

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rc=0
"$OUT/harness" >"$LOG" 2>&1 || rc=$?
cat "$LOG"

fail=0
if grep -qE 'runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer' "$LOG"; then
    echo "sanitize.sh: sanitizer reports:"
    grep -E -A 12 'runtime error:|ERROR: (AddressSanitizer|LeakSanitizer)' "$LOG" | head -60
    fail=1
fi
last=$(tail -n 1 "$LOG")
if [ "$rc" != 0 ] || ! [[ $last =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
    echo "sanitize.sh: harness failed (exit $rc)"
    fail=1
fi
if [[ $last =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
    echo "sanitize.sh: $last"
else
    echo "sanitize.sh: no closing line (the harness aborted)"
fi
if [ "$fail" != 0 ]; then
    echo "sanitize.sh: FAILED"
    exit 1
fi
echo "sanitize.sh: OK"
