#!/usr/bin/env bash
# NEON tier check on an x86 host: cross-compile the C kernel harness for
# aarch64 at -O2 and at -O0, run both under qemu-aarch64, require every
# kernel-table entry of the neon tier to be native, and check the aarch64
# kernel objects: the NEON files contain Advanced SIMD code (sqrdmulh, fmaxv,
# fcvtl/fcvtn, ...) and no kernel file contains a fused multiply-add.
# Exit status non-zero on any failure.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRIPLE=aarch64-linux-gnu
SYSROOT=/usr/$TRIPLE
BUILD=${BUILD_DIR:-$ROOT/csrc/tests/build}
start=$SECONDS

if ! command -v "$TRIPLE-gcc" >/dev/null || ! command -v qemu-aarch64 >/dev/null ||
    [ ! -e "$SYSROOT/include/stdio.h" ] || ! command -v "$TRIPLE-objdump" >/dev/null; then
    echo "neon.sh: installing the cross toolchain and qemu-user"
    SUDO=
    if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
    $SUDO apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y \
        gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
fi

fail=0
summary=()

# One build + run. $1: label, rest: extra CFLAGS.
# shellcheck source=ci/neon_inherits.sh
. "$(dirname "$0")/neon_inherits.sh"

run() {
    local label=$1
    shift
    local out=$BUILD/neon$label log
    log=$out.log
    echo "== neon $label: build"
    CC=$TRIPLE-gcc "$ROOT/csrc/tests/build.sh" "$out" "$@"
    echo "== neon $label: run under qemu-aarch64"
    local rc=0
    # qemu-user aborts (plugins/core.c assertion) when a forked child of a
    # threaded process starts a thread: the pool's fork test runs natively only
    SIMDOPS_HARNESS_NO_FORK=1 qemu-aarch64 -L "$SYSROOT" "$out/harness" --require-native neon \
        --inherit-ok "$NEON_INHERITS" >"$log" 2>&1 || rc=$?
    cat "$log"
    local last
    last=$(tail -n 1 "$log")
    if ! [[ $last =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
        last="no closing line (the harness aborted)"
    fi
    if [ "$rc" != 0 ] || ! [[ $last =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
        echo "neon.sh: harness FAILED at $label (exit $rc): $last"
        fail=1
    fi
    summary+=("$label: $last")
}

# Object checks on the -O2 build. $1: object, $2: instructions that must appear.
check_obj() {
    local obj=$1 dis
    shift
    dis=$("$TRIPLE-objdump" -d --no-show-raw-insn "$obj")
    local nvec
    nvec=$(grep -cE '\bv[0-9]+\.(16b|8h|4s|2d)\b' <<<"$dis" || true)
    if [ "$nvec" -lt 20 ]; then
        echo "neon.sh: $(basename "$obj"): only $nvec Advanced SIMD instructions"
        fail=1
    fi
    for insn in "$@"; do
        if ! grep -qE "[[:space:]]$insn[[:space:]]" <<<"$dis"; then
            echo "neon.sh: $(basename "$obj"): no $insn instruction"
            fail=1
        fi
    done
    echo "   $(basename "$obj"): $nvec vector instructions, has: $*"
}

run -O2 -O2
run -O0 -O0

echo "== neon: lowbit_sweep codes (every float8 code, every int4 byte; the NEON tier vs its own reference)"
"$TRIPLE-gcc" -O2 -I"$ROOT/csrc/include" -I"$ROOT/csrc" "$ROOT/tools/lowbit_sweep.c" \
    $(ls "$BUILD"/neon-O2/obj/*.o | grep -v '/tests__test_') -o "$BUILD/neon-O2/lowbit_sweep" -lm -lpthread
if ! qemu-aarch64 -L "$SYSROOT" "$BUILD/neon-O2/lowbit_sweep" codes; then
    echo "neon.sh: lowbit_sweep codes FAILED"
    fail=1
fi

echo "== neon: object checks (-O2 build)"
OBJ=$BUILD/neon-O2/obj
check_obj "$OBJ/kernels__requant__requant_neon.o" sqrdmulh srshl sshl sqadd
check_obj "$OBJ/kernels__clip__clip_neon.o" fcmgt bsl fcvtl fcvtn fcvtzs fcvtzu sqxtn
check_obj "$OBJ/kernels__shrink__shrink_neon.o" fcvtl fcvtn cmgt
check_obj "$OBJ/kernels__hardmax__hardmax_neon.o" fmaxv fmax fcmeq
check_obj "$OBJ/kernels__qlow__qlow_neon.o" scvtf fmul bsl
check_obj "$OBJ/kernels__qbinary__qbinary_neon.o" sqrdmulh sshl fcvtns fmla sqxtn
# objects are named by source path (build.sh): kernels__<op>__<op>_<tier>.o
# except the quantized binary ops' files: ONNX Runtime's QLinearAdd is defined by
# fmaf (MLAS's AVX2 kernel fuses; qbinary_element.h calls fmaf, which aarch64 compiles to
# fmadd; the NEON kernel's vfmaq is fmla), and the build's -ffp-contract=off keeps every
# other product unfused there too
FMA_BY_DEFINITION=" kernels__qbinary__qbinary_scalar.o kernels__qbinary__qbinary_neon.o "
for o in "$OBJ"/*_neon.o "$OBJ"/*_scalar.o; do
    [[ $FMA_BY_DEFINITION == *" $(basename "$o") "* ]] && continue
    fused=$("$TRIPLE-objdump" -d --no-show-raw-insn "$o" |
        grep -E '[[:space:]](fmla|fmls|fmadd|fmsub|fnmadd|fnmsub)[[:space:]]' || true)
    if [ -n "$fused" ]; then
        echo "neon.sh: $(basename "$o") contains fused multiply-add:"
        echo "$fused" | head -5
        fail=1
    fi
done

echo "== neon.sh summary ($((SECONDS - start)) s)"
for s in "${summary[@]}"; do
    echo "   $s"
done
if [ "$fail" != 0 ]; then
    echo "neon.sh: FAILED"
    exit 1
fi
echo "neon.sh: OK"
