#!/usr/bin/env bash
# The micro-benchmarks under tools/ still build and run against the current
# code: the C ones (cbench, rqbench, qlinear_sweep: built like the harness, -Wall
# -Wextra -Werror; portbench: the issue rates of the instructions that bound the
# kernels, printed) for one round of every case, and tools/kernel_bench.py for one
# round against the installed simdops. They measure nothing here (one round
# on a shared machine); this only keeps them working. Two checks are asserted (exit
# status 1 on a mismatch): qlinear_sweep's, lowbit_sweep's and rq_exhaustive's reduced exhaustive checks.
# Usage: ci/tools.sh [python]  (a python with simdops installed; default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CFLAGS_EXTRA=-Werror bash tools/cbench.sh "$out"
"$out/cbench" "" 1
# hardmax axis 0's whole algorithms (x86): each that writes y checked against the driver
# (asserted: exit status 1), one round
if [ -x "$out/hm_axis0" ]; then "$out/hm_axis0" 1; fi
# QuantizeLinear float32 -> 8 bits without the divider: every input of a few 2^24-pattern
# slices per parameter set against the scalar kernel (asserted; the full 2^32 sweep is
# `qlinear_sweep all`, minutes)
"$out/qlinear_sweep" ci
# the low-bit SIMD kernels (kernels/qlow/qlow_<tier>.c) and scalar against the tool's own
# reference: every float8 code, every int4 byte by zero point (run and row, odd first),
# and 8 slices of 2^24 float32 inputs through the float8 and int4 quantize (asserted; the
# full 2^32 float8 sweep is `lowbit_sweep all`)
"$out/lowbit_sweep" ci
for isa in $("$PY" -c 'import simdops; print(" ".join(simdops.available_isas()))'); do
    "$out/rqbench" 1 "$isa"
done
# the exact requant fast path (rq_fast_x86.h) against the scalar formula: every input of 3
# slices of 2^24 (around 0, where the unclamped values are, and INT32_MIN's) for each
# parameter set, double rounding and (five sets) ties-up, AVX-512 and AVX2 (said NOT TESTED
# where the CPU lacks one); asserted
RQ_EXHAUSTIVE_FAMILY=double,ties "$out/rq_exhaustive" 3 avx512 avx2
# single rounding (ties up, ties away) through the same path: one slice (2^24 inputs just
# below 0) of four sets (the bench's scale, 2^-17 exact ties with M > 0 and M < 0, e = 1)
RQ_EXHAUSTIVE_FAMILY=single,away RQ_EXHAUSTIVE_SETS=0,4,6,9 "$out/rq_exhaustive" 1 avx512 avx2
"$PY" tools/kernel_bench.py --rounds 1
# the 64K quantized add / multiply rows over array placements (two offsets, a few calls:
# that it runs; the numbers are docs/performance.md's, from the full 64 placements)
"$PY" tools/qb_placement.py --offsets 0,16 --calls 5
# the bench's tier check (each tier's own kernels against its parent's, every available ISA,
# one quick round): reported, not asserted, like the table below
"$PY" -m simdops bench --tiers --quick --repeat 1 --sample-time 0.001 | sed -n '/^tier check/,$p'
# the instruction issue rates behind docs/performance.md's bounds (a few seconds; reported)
"$out/portbench" 5000000
# the 64K shrink / clip rows' steps against the copy, L1 and the bench's size (reported)
if [ -x "$out/ew_cache_bound" ]; then "$out/ew_cache_bound" 0.25; fi
# Per tier: each tier that has kernels of its own against its parent, in cache (64K,
# 1M) and beyond it (16M), with cbench's interleaved ratio to memcpy. Reported, not a
# pass/fail test (shared machines are noisy). A tier this machine lacks is said so.
"$PY" - "$out/cbench" <<'PYEOF'
import subprocess, sys
import simdops
from simdops import _core
cbench = sys.argv[1]
available = simdops.available_isas()
known = _core.known_isas()
for i, isa in enumerate(known):
    if isa == "scalar":
        continue
    if isa not in available:
        print(f"per-tier bench: {isa} NOT TESTED (this CPU lacks it)")
        continue
    native = sorted({k for k, t in _core.kernel_origins(isa).items() if t == isa})
    parent = known[i - 1] if known[i - 1] in available else "scalar"
    print(f"per-tier bench: {isa} ({len(native)} native entries) against {parent}")
    for t in (isa, parent):
        for label in ("f32 1M", "f32 16M", "f16 b=.5 64K"):
            r = subprocess.run([cbench, label, "3", t], capture_output=True, text=True)
            for line in r.stdout.splitlines()[1:]:
                if "ratio" in line:
                    print(f"  {t:7s} {line}")
PYEOF
echo "tools.sh: OK"
