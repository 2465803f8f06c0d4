"""requant single rounding against double rounding at n=1,048,576 (the bench's goal row: its
case's data and parameters) and both against the bytes they move: simdops single rounding, the
case's double-rounding path, the converting np.copyto and tools/ql_bound.c's traffic loops (the
same 4 MB read and 1 MB written with no arithmetic, built as a shared library as
tools/ql_ort_bound.py does; x86-64 with AVX-512), timed in thread CPU time, interleaved, medians
of rounds. Where both calls run at the traffic loop's speed, their ratio is the bytes' tie.
    PYTHONPATH=src python tools/rq_single_bound.py [rounds] [n]"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ql_ort_bound import LOOPS, aligned, build  # noqa: E402

from simdops.bench import ops, ops_requant_families  # noqa: E402


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 31
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_048_576
    lib = build()
    op = ops_requant_families.REQUANT_SINGLE
    rng = np.random.default_rng(0)
    x = op.make_input("int32", (n,), rng)
    out, p = np.empty(n, np.dtype(op.out_dtype("int32"))), op.params("int32")
    ty = aligned(n, np.uint8, 0)
    cp = np.empty(n, np.uint8)
    fns = {"single": op.simdops(x, out, p), "double": ops.REQUANT.simdops(x, out, p),
           "np.copyto": lambda: np.copyto(cp, x, casting="unsafe")}
    for name in ("traffic", "traffic NT", "traffic pf", "traffic pf NT"):
        fns[name] = (lambda k=LOOPS[name]: lib.ql_bound_loop(k, x.ctypes.data, ty.ctypes.data, n))
    reps = max(1, int(4e-3 / (n * 5 / 60e9)))
    times = {k: [] for k in fns}
    order = list(fns)
    for r in range(rounds):
        for k in (order if r % 2 else order[::-1]):
            f = fns[k]
            t0 = time.thread_time_ns()
            for _ in range(reps):
                f()
            times[k].append((time.thread_time_ns() - t0) / reps / 1e3)
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(f"n={n:,}: {n * 4:,} bytes read, {n:,} written; median of {rounds} interleaved rounds "
          f"(thread time), load {os.getloadavg()[0]:.1f}; single / double (elements/s) "
          f"{med['double'] / med['single']:.3f}")
    for k, t in med.items():
        print(f"  {k:12s} {t:8.1f} us  {n * 5 / t / 1e3:6.1f} GB/s  traffic / this "
              f"{med['traffic'] / t:5.2f}")


if __name__ == "__main__":
    main()
