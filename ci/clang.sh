#!/usr/bin/env bash
# The macOS wheels are built by clang: build the C harness with clang for
# x86-64 (run natively) and for aarch64 (run under qemu-aarch64), so a
# clang-only miscompile of a kernel (e.g. an FP fold that quiets a signaling
# NaN) shows up here. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v clang >/dev/null || need+=(clang)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
[ -d /usr/aarch64-linux-gnu/lib ] || need+=(libc6-dev-arm64-cross gcc-aarch64-linux-gnu)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
run() { # label, command...
    local label=$1 line
    shift
    line=$("$@" 2>&1 | tail -n 1) || status=1
    echo "clang.sh: $label: $line"
    [[ $line =~ ^[0-9]+\ passed,\ 0\ failed$ ]] || status=1
}

CC=clang bash csrc/tests/build.sh "$out/x86" >"$out/x86.log" 2>&1 || { cat "$out/x86.log"; exit 1; }
run "x86-64 native" "$out/x86/harness"

if [ "$(uname -m)" = x86_64 ]; then
    # shellcheck source=ci/neon_inherits.sh
    . "$(dirname "$0")/neon_inherits.sh"
    # clang 14 ignores the strict-FP flag for aarch64 (a warning, kept in the log)
    CC="clang --target=aarch64-linux-gnu" bash csrc/tests/build.sh "$out/arm" >"$out/arm.log" 2>&1 || { cat "$out/arm.log"; exit 1; }
    # no fork test under qemu-user (see ci/neon.sh)
    run "aarch64 under qemu" env SIMDOPS_HARNESS_NO_FORK=1 qemu-aarch64 -L /usr/aarch64-linux-gnu \
        "$out/arm/harness" --require-native neon --inherit-ok "$NEON_INHERITS"
fi
[ $status -eq 0 ] && echo "clang.sh: OK" || echo "clang.sh: FAILED"
exit $status
