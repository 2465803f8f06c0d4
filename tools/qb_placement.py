"""The 64K quantized add / multiply rows against np.add over every array placement.

The bench draws its arrays once per process, so where a, b and out start within a 64-byte
line is whatever the allocator gave (glibc: 16-byte steps). np.add's 64K call moves with that
placement far more than the quantized kernels do (its loop is L2-bound, theirs compute-bound),
so one bench run reads a row's ratio at one placement. This tool times every combination of
the three arrays' offsets (0, 16, 32, 48 bytes past a line: 64 placements) with the bench's
data and numbers, and prints each row's ratio to np.add as a distribution: what a row is over
placements, not at one.

    PYTHONPATH=src python tools/qb_placement.py [--n 65536] [--calls 400] [--offsets 0,16,32,48]
"""
import argparse
import itertools
import statistics
import timeit

import numpy as np

import simdops
from simdops.bench.ops_qbinary import _PARAMS, _other

ROWS = (("add", "onnxruntime"), ("add", "tflite"), ("add", "xnnpack"),
        ("multiply", "tflite"), ("multiply", "xnnpack"))


def placed(n, offset):
    """n int8 starting `offset` bytes past a 64-byte line."""
    raw = np.empty(n + 128, np.int8)
    start = (-raw.ctypes.data) % 64 + offset
    return raw[start:start + n]


def best_us(call, calls):
    return min(timeit.repeat(call, number=calls, repeat=7)) / calls * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=65_536, help="elements (default 65,536)")
    ap.add_argument("--calls", type=int, default=400, help="calls a timing round (default 400)")
    ap.add_argument("--offsets", default="0,16,32,48",
                    help="byte offsets past a line to combine (default 0,16,32,48)")
    args = ap.parse_args()
    offsets = [int(v) for v in args.offsets.split(",")]
    x0 = np.random.default_rng(1).integers(-128, 128, args.n, dtype=np.int8)
    b0 = _other(x0)
    p = _PARAMS
    ratios = {row: [] for row in ROWS}
    numpy_us = []
    for oa, ob, oy in itertools.product(offsets, repeat=3):
        a, b, y = placed(args.n, oa), placed(args.n, ob), placed(args.n, oy)
        a[:], b[:] = x0, b0
        t_np = best_us(lambda: np.add(a, b, out=y), args.calls)
        numpy_us.append(t_np)
        for op, arith in ROWS:
            f = getattr(simdops, "quantized_" + op)
            call = lambda: f(a, p["a_scale"], p["a_zero_point"], b, p["b_scale"],  # noqa: E731
                             p["b_zero_point"], p["y_scale"], p["y_zero_point"],
                             arithmetic=arith, out=y)
            ratios[op, arith].append(t_np / best_us(call, args.calls))
    k = len(numpy_us)
    print(f"np.add n={args.n:,} over {k} placements: min {min(numpy_us):.3f} "
          f"median {statistics.median(numpy_us):.3f} max {max(numpy_us):.3f} us")
    for (op, arith), v in ratios.items():
        q = statistics.quantiles(v, n=4)
        print(f"{op:8s} {arith:11s} / np.add: min {min(v):.3f} q1 {q[0]:.3f} "
              f"median {q[1]:.3f} q3 {q[2]:.3f} max {max(v):.3f}   >= 0.5 in "
              f"{sum(r >= 0.5 for r in v)} of {k}")


if __name__ == "__main__":
    main()
