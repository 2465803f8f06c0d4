#!/usr/bin/env bash
# Builds the C kernel harness: build.sh OUTDIR [extra CFLAGS...]
#
# Compiles like setup.py: every file with -ffp-contract=off -fno-fast-math,
# ISA flags only on that ISA's kernel files (x86 targets: sse2 -msse2,
# sse41 -msse4.1, avx2 -mavx2 -mf16c; other targets, e.g. aarch64: none).
# $CC (default cc) picks the compiler, so CC=aarch64-linux-gnu-gcc
# cross-compiles. Extra CFLAGS go last on every compile and on the link
# (e.g. -O0, or -fsanitize=address,undefined). Result: OUTDIR/harness.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 OUTDIR [extra CFLAGS...]" >&2
    exit 2
fi
OUT=$1
shift
EXTRA=("$@")
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
CSRC=$(dirname "$HERE")

TARGET=$($CC -dumpmachine)
case "$TARGET" in
x86_64* | amd64* | i?86*) X86=1 ;;
*) X86=0 ;;
esac

isa_flags() {
    [ "$X86" = 1 ] || return 0
    case "$1" in
    sse2) echo "-msse2" ;;
    sse41) echo "-msse4.1" ;;
    avx2) echo "-mavx2 -mf16c" ;;
    esac
}

BASE=(-O2 -g -Wall -ffp-contract=off -fno-fast-math -fvisibility=hidden
      -I"$CSRC/include" -I"$CSRC")
# clang (as setup.py): keep FP ops exact for signaling NaNs (see setup.py)
if $CC --version 2>/dev/null | grep -q clang; then
    BASE+=(-ffp-exception-behavior=strict)
fi
mkdir -p "$OUT/obj"
rm -f "$OUT"/obj/*.o "$OUT/harness"

# (source, isa) pairs; "" = no ISA flags
SRCS=()
ISAS=()
for f in api.c api_requant.c api_1d.c checks.c params.c dtype.c error.c strided.c hardmax_driver.c \
    dispatch.c cpu.c; do
    SRCS+=("$CSRC/$f")
    ISAS+=("")
done
for isa in scalar sse2 sse41 avx2 neon; do
    for f in "$CSRC"/kernels/*/*_"$isa".c; do
        [ -e "$f" ] || continue
        SRCS+=("$f")
        ISAS+=("$isa")
    done
done
SRCS+=("$HERE/test_kernels.c" "$HERE/test_api.c")
ISAS+=("" "")

pids=()
objs=()
for i in "${!SRCS[@]}"; do
    src=${SRCS[$i]}
    obj="$OUT/obj/$(basename "${src%.c}").o"
    objs+=("$obj")
    # shellcheck disable=SC2046  # isa_flags is a word list on purpose
    $CC "${BASE[@]}" $(isa_flags "${ISAS[$i]}") ${EXTRA[@]+"${EXTRA[@]}"} -c "$src" -o "$obj" &
    pids+=($!)
done
status=0
for p in "${pids[@]}"; do
    wait "$p" || status=1
done
if [ "$status" != 0 ]; then
    echo "build.sh: compilation failed" >&2
    exit 1
fi
$CC "${BASE[@]}" ${EXTRA[@]+"${EXTRA[@]}"} "${objs[@]}" -o "$OUT/harness" -lm
echo "build.sh: built $OUT/harness (CC=$CC, target $TARGET${EXTRA[*]:+, extra: ${EXTRA[*]}})"
