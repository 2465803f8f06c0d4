#!/usr/bin/env bash
# The kernels and the CPU detection on musl libc (Alpine, musllinux wheels):
# builds the C kernel harness with musl-gcc (Debian's musl-tools: gcc with
# musl's headers, start files and libc), checks that the binary really is a
# musl one (its program interpreter is ld-musl, it needs no glibc library),
# and runs it: every tier this CPU supports against the scalar reference,
# the public C API and the thread pool (pthreads from musl). No musl Python is
# installable here, so the extension itself is not imported on musl; the
# musllinux wheels are built and tested by the release workflow.
# Usage: ci/musl.sh [ignored]   (.ci/run passes its venv's python)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
start=$SECONDS

if ! command -v musl-gcc >/dev/null; then
    echo "musl.sh: installing musl-tools"
    SUDO=
    if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== musl: build the harness with musl-gcc"
CC=musl-gcc "$ROOT/csrc/tests/build.sh" "$out"

echo "== musl: the binary is linked against musl"
interp=$(readelf -l "$out/harness" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
needed=$(readelf -d "$out/harness" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "   interpreter: ${interp:-(none: static)}; needed: ${needed:-(none)}"
case "$interp" in
"" | *ld-musl*) ;;
*) echo "musl.sh: FAILED: the harness's interpreter is $interp, not musl's"; exit 1 ;;
esac
if grep -qE 'libc\.so\.6|libpthread\.so|libm\.so\.6' <<<"$needed"; then
    echo "musl.sh: FAILED: the harness needs glibc libraries: $needed"
    exit 1
fi

echo "== musl: run"
log=$out/harness.log
rc=0
"$out/harness" >"$log" 2>&1 || rc=$?
# the tier lines and the totals; the full log only on failure
grep -E '^(simdops kernel harness|tier |skipped tier|FAIL)' "$log" | head -40 || true
if [ "$rc" != 0 ]; then
    tail -60 "$log"
    echo "musl.sh: FAILED: the harness exited $rc"
    exit 1
fi
# CPU detection under musl: the same features and usable tiers as the
# extension (glibc) detects on this machine
PY=${1:-python3}
musl_features=$(sed -n '1s/.*cpu features "\([^"]*\)".*/\1/p' "$log")
musl_tiers=$(sed -n 's/^tier \([a-z0-9]*\) *ran:.*/\1/p' "$log" | tr '\n' ' ' | sed 's/ $//')
echo "   musl harness: cpu features \"$musl_features\"; tiers run: $musl_tiers"
if glibc=$("$PY" -c 'import simdops, simdops._core as c
print(c.cpu_features()); print(" ".join(simdops.available_isas()))' 2>/dev/null); then
    glibc_features=$(sed -n 1p <<<"$glibc")
    glibc_tiers=$(sed -n 2p <<<"$glibc")
    echo "   extension:    cpu features \"$glibc_features\"; available ISAs: $glibc_tiers"
    if [ "$musl_features" != "$glibc_features" ] || [ "$musl_tiers" != "$glibc_tiers" ]; then
        echo "musl.sh: FAILED: the musl build detects other CPU features or tiers than the extension"
        exit 1
    fi
else
    echo "   (no simdops importable with $PY: detection not compared)"
fi
echo "musl: $(tail -n 1 "$log") ($((SECONDS - start)) s)"
