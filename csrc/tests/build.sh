#!/usr/bin/env bash
# Builds the C kernel harness: build.sh OUTDIR [extra CFLAGS...]
#
# Compiles like setup.py: every csrc/<layer>/*.c and every kernel file with
# -ffp-contract=off -fno-fast-math, ISA flags only on that ISA's kernel files
# (a tiered source, kernels/<dir>/<op>.tiers.c, once per tier registry.h builds it for),
# from the table setup.py reads too (csrc/isa_flags.txt), for the target
# $CC's predefined macros name (x86: sse2 -msse2, sse41 -msse4.1, avx2 -mavx2
# -mf16c; aarch64: none).
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

TARGET=$($CC -dumpmachine 2>/dev/null || echo unknown)
# the row family of csrc/isa_flags.txt, from what the compiler targets
# (isa_build.py decides the same way for setup.py)
MACROS=$($CC -dM -E -x c /dev/null)
if grep -qE '^#define (__x86_64__|__i386__) ' <<<"$MACROS"; then
    FAMILY=x86
elif grep -qE '^#define (__aarch64__|__arm64__) ' <<<"$MACROS"; then
    FAMILY=arm64
else
    FAMILY=unknown
fi

isa_flags() { # isa -> its flags for $FAMILY (none if the table has no line)
    [ -n "$1" ] || return 0
    awk -v t="$FAMILY" -v i="$1" '{ sub(/#.*/, "") } $1 == t && $2 == i {
        for (k = 3; k <= NF; k++) printf "%s ", $k }' "$CSRC/isa_flags.txt"
}

BASE=(-O2 -g -Wall -ffp-contract=off -fno-fast-math -fvisibility=hidden -pthread
      -I"$CSRC/include" -I"$CSRC")
# clang (as setup.py): keep FP ops exact for signaling NaNs (see setup.py)
if $CC --version 2>/dev/null | grep -q clang; then
    BASE+=(-ffp-exception-behavior=strict)
fi
mkdir -p "$OUT/obj"
rm -f "$OUT"/obj/*.o "$OUT/harness"

tiers_of() { # op -> the tiers whose SIMDOPS_FILES_<tier> line (kernels/registry.h) names X(op, t)
    sed -n 's/^#define SIMDOPS_FILES_\([a-z0-9_]*\)(X, t)\(.*\)$/\1 \2/p' "$CSRC/kernels/registry.h" |
        awk -v op="X($1, t)" 'index($0, op) { print $1 }'
}

# (source, isa, object, defines) rows; "" = no ISA flags / no defines
SRCS=()
ISAS=()
OBJS=()
DEFS=()
add() { # source isa [object] [defines]
    local rel=${1#"$CSRC"/}
    local obj="$OUT/obj/${rel//\//__}"  # api/api.c -> api__api.c: one object per source path
    SRCS+=("$1")
    ISAS+=("$2")
    OBJS+=("${3:-${obj%.c}.o}")
    DEFS+=("${4:-}")
}
for f in "$CSRC"/{api,rules,driver,dispatch,core}/*.c; do  # the layers (setup.py's LAYERS)
    add "$f" ""
done
for f in "$CSRC"/kernels/*/*.c; do
    [ -e "$f" ] || continue
    if [[ $f == *.tiers.c ]]; then
        # written once, compiled once per tier that builds its op (isa_build.kernel_units),
        # each object named as that tier's own file would be: kernels__<dir>__<op>_<tier>.o
        op=$(basename "$f" .tiers.c)
        rel=${f#"$CSRC"/}
        tiers=$(tiers_of "$op")
        if [ -z "$tiers" ]; then
            echo "build.sh: $rel: no SIMDOPS_FILES_<tier> line of kernels/registry.h names X($op, t)" >&2
            exit 1
        fi
        for tier in $tiers; do
            obj="$OUT/obj/${rel//\//__}"
            add "$f" "$tier" "${obj%.tiers.c}_$tier.o" "-DSIMDOPS_TIER=$tier -DSIMDOPS_TIER_IS_$tier=1"
        done
        continue
    fi
    isa=$(basename "${f%.c}")
    add "$f" "${isa##*_}"
done
for f in "$HERE"/harness*.c "$HERE"/test_*.c; do  # the harness: shared parts, kernels, public C API, thread pool
    add "$f" ""
done

pids=()
objs=()
for i in "${!SRCS[@]}"; do
    src=${SRCS[$i]}
    obj=${OBJS[$i]}
    objs+=("$obj")
    # shellcheck disable=SC2046,SC2086  # isa_flags and the defines are word lists on purpose
    $CC "${BASE[@]}" ${DEFS[$i]} $(isa_flags "${ISAS[$i]}") ${EXTRA[@]+"${EXTRA[@]}"} -c "$src" -o "$obj" &
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
$CC "${BASE[@]}" ${EXTRA[@]+"${EXTRA[@]}"} "${objs[@]}" -o "$OUT/harness" -lm -pthread
echo "build.sh: built $OUT/harness (CC=$CC, target $TARGET, ISA flags for $FAMILY${EXTRA[*]:+, extra: ${EXTRA[*]}})"
