"""The full sweep of ExecuTorch's XNNPACK delegate (XNNPACKQuantizer, to_edge_transform_
and_lower with XnnpackPartitioner, the runtime's pybindings) against simdops, run by hand
(CI runs a sample in tests/test_runtime_executorch.py):

    PYTHONPATH=src python tools/executorch_sweep.py [--programs 10] [--per-program 24]

Prints layers and outputs compared and the differences from simdops; exits 1 on any.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import runtime_models_executorch as em  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", type=int, default=10)
    ap.add_argument("--per-program", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0 = time.time()
    layers = outputs = d = ties = 0
    for p in range(args.programs):
        part = em.layers(args.seed * 1000 + p, args.per_program)
        for layer, got in zip(part, em.run_executorch(part)):
            layers += 1
            outputs += got.size
            d += int(np.count_nonzero(got != em.simdops_outputs(layer)))
    print(f"ExecuTorch XNNPACK: {layers} layers, {outputs} outputs, {d} differ from simdops "
          f"({time.time() - t0:.0f} s)")
    return 1 if d else 0


if __name__ == "__main__":
    sys.exit(main())
