"""QuantizeLinear float32 -> uint8 at n=1,048,576 (the bench's row, its data and parameters)
against ONNX Runtime and against the bytes it moves: ORT (one thread, I/O binding, as the
bench makes it), simdops.onnx.quantize_linear, the converting np.copyto, and tools/ql_bound.c's
traffic loops (the same 4 MB read and 1 MB written with no arithmetic; compiled here as a
shared library, x86-64 with AVX-512), timed in thread CPU time, interleaved, medians of rounds.

The best traffic loop is what no QuantizeLinear can beat (every one reads x and writes y), so
ORT's time over it is the most any kernel can be ahead of ORT on this machine.
    PYTHONPATH=src python tools/ql_ort_bound.py [rounds] [n]"""
import ctypes
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from simdops.bench import ops, ort

HERE = os.path.dirname(os.path.abspath(__file__))
LOOPS = {"traffic": 0, "traffic NT": 1, "traffic pf": 2, "traffic pf NT": 3, "read pf": 4}


def build():
    out = os.path.join(tempfile.mkdtemp(prefix="ql_bound"), "ql_bound.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-DQL_BOUND_SHARED", "-Wno-unused-function",
                    "-ffp-contract=off", "-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl",
                    os.path.join(HERE, "ql_bound.c"), "-o", out], check=True)
    lib = ctypes.CDLL(out)
    lib.ql_bound_loop.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    return lib


def aligned(n, dtype, skew):
    """n elements of dtype at skew bytes past a 64-byte boundary."""
    raw = np.empty(n * np.dtype(dtype).itemsize + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + skew
    return raw[start:start + n * np.dtype(dtype).itemsize].view(dtype)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 31
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_048_576
    lib = build()
    op = ops.QUANTIZE_LINEAR
    rng = np.random.default_rng(0)
    x = op.make_input("float32", (n,), rng)         # numpy's own alignment, as the bench's
    out, p = np.empty(n, np.uint8), op.params("float32")
    ty = aligned(n, np.uint8, 0)                     # the NT loops' lines
    cp = np.empty(n, np.uint8)
    fns = {"ORT": ort.make(op, x, out, p), "simdops": op.simdops(x, out, p),
           "np.copyto": lambda: np.copyto(cp, x, casting="unsafe")}
    for name, k in LOOPS.items():
        fns[name] = (lambda k=k: lib.ql_bound_loop(k, x.ctypes.data, ty.ctypes.data, n))
    if fns["ORT"] is None:
        sys.exit("ONNX Runtime (and onnx) needed")
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
    print(f"n={n:,}: {n * 4:,} bytes read, {n:,} written; x at {x.ctypes.data % 64} past a "
          f"64-byte line; median of {rounds} interleaved rounds (thread time), {os.getloadavg()[0]:.1f} load")
    for k, t in med.items():
        print(f"  {k:14s} {t:8.1f} us  {n * 5 / t / 1e3:6.1f} GB/s  ORT / this {med['ORT'] / t:5.2f}")


if __name__ == "__main__":
    main()
