#!/usr/bin/env bash
# Builds the C micro-benchmarks tools/cbench.c, tools/rqbench.c, tools/rqcall.c and
# tools/rq_chain_call.c (and the exhaustive
# requant check tools/rq_exhaustive.c) against the
# C harness objects (the same flags as the package), and tools/portbench.c (the
# instruction issue rates; x86-64 with AVX-512 flags of its own, no package code):
# and tools/hmbench.c (hardmax's row-scan variants; it compiles the AVX2 kernel file in), tools/hm_l3.c
# (hardmax 1024x1024's AVX-512 scan designs and write orders; the AVX-512 kernel file compiled in),
# tools/hm_axis0.c (hardmax axis 0's whole algorithms and their parts), tools/hm_stream.c
# (hardmax along the last axis past the streaming threshold, x86), tools/qmul_bound.c
# (the fp32 quantized multiply's instruction mixes against np.add's; x86-64 AVX-512),
# tools/qmul_tflite_bench.c (the TFLite 8-bit multiply kernel against a vpaddb loop and the fp32 multiply),
# tools/qb_tflite_mix.c (the 8-bit quantized adds' instruction mixes, x86-64 with AVX512-VNNI),
# tools/qb_proof_count.c (TFLite add's exhaustive proof: how many parameter sets it proves, its cost, the
# proved rows against the window rows; ONNX Runtime's add: why no linear form can be proved for the benchmark's numbers),
# tools/ql_bound.c (QuantizeLinear past L2 against the bytes it moves, x86-64 AVX-512),
# tools/ew_cache_bound.c (the 64K shrink / clip rows' steps against the copy, x86-64 AVX-512):
#   bash tools/cbench.sh [OUTDIR=/tmp/kb]   -> OUTDIR/cbench, OUTDIR/rqbench, OUTDIR/rq_exhaustive, OUTDIR/portbench, OUTDIR/hmbench, OUTDIR/hm_axis0
set -euo pipefail
OUT=${1:-/tmp/kb}
HERE=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
bash "$HERE/csrc/tests/build.sh" "$OUT" >/dev/null
objs=$(ls "$OUT"/obj/*.o | grep -v '/tests__test_')  # the harness's objects but its tests (build.sh names objects by path)
for tool in cbench rqbench rqcall rq_chain_call qlinear_sweep rq_exhaustive lowbit_sweep qlow_stream_bench qmul_tflite_bench qb_bcast_calls qb_proof_count; do
    # shellcheck disable=SC2086
    $CC -O2 -g -Wall -Wextra ${CFLAGS_EXTRA:-} -I"$HERE/csrc/include" -I"$HERE/csrc" "$HERE/tools/$tool.c" \
        $objs -o "$OUT/$tool" -lm -lpthread
done
if [ "$(uname -m)" = x86_64 ]; then
    # hardmax axis 0's algorithms: the column kernels built again (their tiers' flags; the
    # register functions made local so the harness objects keep theirs)
    for tier in avx512 avx2; do
        flags="-mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx2 -mf16c"
        [ $tier = avx2 ] && flags="-DHM_TOOL_AVX2 -mavx2 -mf16c"
        # shellcheck disable=SC2086
        $CC -O2 -Wall -Wextra -ffp-contract=off ${CFLAGS_EXTRA:-} $flags -I"$HERE/csrc/include" \
            -I"$HERE/csrc" -c "$HERE/tools/hm_axis0_kern.c" -o "$OUT/hm_axis0_kern_$tier.o"
        objcopy --localize-symbol=simdops_hardmax_register__$tier \
            --localize-symbol=simdops_hm_stream_pair__$tier "$OUT/hm_axis0_kern_$tier.o"
    done
    # shellcheck disable=SC2086
    $CC -O2 -g -Wall -Wextra ${CFLAGS_EXTRA:-} -I"$HERE/csrc/include" -I"$HERE/csrc" "$HERE/tools/hm_axis0.c" \
        "$OUT"/hm_axis0_kern_*.o $objs -o "$OUT/hm_axis0" -lm -lpthread
    # hardmax along the last axis past the streaming threshold (its AVX-512 loops carry
    # target attributes; the library's own tier is chosen at run time)
    # shellcheck disable=SC2086
    $CC -O2 -g -Wall -Wextra ${CFLAGS_EXTRA:-} -I"$HERE/csrc/include" -I"$HERE/csrc" "$HERE/tools/hm_stream.c" \
        $objs -o "$OUT/hm_stream" -lm -lpthread
    # shellcheck disable=SC2086
    $CC -O2 -Wall -Wextra -ffp-contract=off ${CFLAGS_EXTRA:-} -mavx512f -mavx512bw -mavx512dq -mavx512vl -mf16c \
        "$HERE/tools/portbench.c" -o "$OUT/portbench"
    # the in-cache shrink / clip rows' steps against the copy (x86-64 AVX-512, no package code)
    # shellcheck disable=SC2086
    $CC -O2 -Wall -Wextra -ffp-contract=off ${CFLAGS_EXTRA:-} -mavx512f -mavx512bw -mavx512dq -mavx512vl \
        -mavx2 "$HERE/tools/ew_cache_bound.c" -o "$OUT/ew_cache_bound"
    # shellcheck disable=SC2086
    $CC -O2 -Wall -Wextra -ffp-contract=off ${CFLAGS_EXTRA:-} -mavx512f -mavx512bw -mavx512dq -mavx512vl \
        "$HERE/tools/qmul_bound.c" -o "$OUT/qmul_bound"
    # QuantizeLinear's time beyond L2 against the traffic alone (links the package's kernel)
    # shellcheck disable=SC2086
    $CC -O2 -g -Wall -Wextra -ffp-contract=off ${CFLAGS_EXTRA:-} -mavx512f -mavx512bw -mavx512dq -mavx512vl \
        -I"$HERE/csrc/include" -I"$HERE/csrc" "$HERE/tools/ql_bound.c" $objs -o "$OUT/ql_bound" -lm -lpthread
    # shellcheck disable=SC2086
    $CC -O2 -Wall -Wextra ${CFLAGS_EXTRA:-} -mavx512f -mavx512bw -mavx512dq -mavx512vl \
        "$HERE/tools/qb_tflite_mix.c" -o "$OUT/qb_tflite_mix"
    # shellcheck disable=SC2086
    $CC -O2 -Wall -Wextra -ffp-contract=off ${CFLAGS_EXTRA:-} -mavx2 -mf16c -I"$HERE/csrc/include" \
        -I"$HERE/csrc" "$HERE/tools/hmbench.c" -o "$OUT/hmbench"
    # hardmax 1024x1024 in L3 with the AVX-512 row scan's designs (compiles that kernel file in)
    # shellcheck disable=SC2086
    $CC -O2 -Wall -Wextra -ffp-contract=off ${CFLAGS_EXTRA:-} -mavx512f -mavx512bw -mavx512dq -mavx512vl \
        -mavx2 -mf16c -I"$HERE/csrc/include" -I"$HERE/csrc" "$HERE/tools/hm_l3.c" -o "$OUT/hm_l3"
else
    # shellcheck disable=SC2086
    $CC -O2 -Wall -Wextra ${CFLAGS_EXTRA:-} "$HERE/tools/portbench.c" -o "$OUT/portbench"
fi
echo "built $OUT/cbench $OUT/rqbench $OUT/qlinear_sweep $OUT/rq_exhaustive $OUT/portbench (x86: $OUT/hmbench $OUT/hm_l3 $OUT/hm_axis0 $OUT/hm_stream $OUT/qmul_bound $OUT/ql_bound $OUT/qb_tflite_mix $OUT/ew_cache_bound)"
