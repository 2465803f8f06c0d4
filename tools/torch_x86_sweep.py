"""The full sweep of PyTorch's x86 int8 path (X86InductorQuantizer + torch.compile with
freezing -> onednn.qlinear_pointwise) against simdops, run by hand (CI runs a sample in
tests/test_runtime_torch_x86.py):

    PYTHONPATH=src python tools/torch_x86_sweep.py [--groups 20] [--per-group 12]
        [--direct 2000] [--seed 0]

--groups modules of --per-group layers each are compiled (u8 output and float32 output
alternate); --direct layers go through the oneDNN op the compiled code calls. Prints the
layers and outputs compared and the differences from simdops (and from the neighbouring
formulas: one combined scale for the u8 output, one combined scale for the float
output), and exits 1 on any difference from simdops. Under ONEDNN_MAX_CPU_ISA=AVX2 the
accumulators are simdops' pair-saturation model (--pair-saturation).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import runtime_models_torch_x86 as tx  # noqa: E402


def differ(got, want):
    if got.dtype == np.float32:  # bits: -0.0 and NaN payloads count
        return int(np.count_nonzero(got.view(np.int32) != want.view(np.int32)))
    return int(np.count_nonzero(got != want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", type=int, default=20)
    ap.add_argument("--per-group", type=int, default=12)
    ap.add_argument("--direct", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--convs", type=int, default=400, help="Conv2d layers through "
                    "onednn.qconv_pointwise (exact accumulators only)")
    ap.add_argument("--pair-saturation", action="store_true")
    ap.add_argument("--kernel", default="brgemm", choices=("brgemm", "gemm"),
                    help="oneDNN's matmul: brgemm (AVX-512), gemm (AVX2 caps)")
    args = ap.parse_args()
    ps = args.pair_saturation
    rng = np.random.default_rng(args.seed)
    tally = {}

    def add(kind, layer, got):
        t = tally.setdefault(kind, [0, 0, 0, 0])
        want = tx.simdops_outputs(layer, ps, args.kernel)
        t[0] += 1
        t[1] += got.size
        t[2] += differ(got, want)
        t[3] += differ(got, tx.neighbour_outputs(layer, ps))

    t0 = time.time()
    for g in range(args.groups):
        float_out = bool(g % 2)
        layers = tx.random_group(rng, args.per_group, float_out)
        outs, code = tx.run_compiled(layers)
        assert code.count("qlinear_pointwise") >= len(layers), "not lowered to oneDNN"
        for layer, got in zip(layers, outs):
            add(("compiled", "float32" if float_out else "uint8"), layer, got)
    t1 = time.time()
    done = 0
    while done < args.direct:
        float_out = bool(rng.integers(2))
        for layer in tx.random_group(rng, 8, float_out):
            add(("direct", "float32" if float_out else "uint8"), layer, tx.run_direct(layer))
            done += 1
        for _ in range(4):  # random scales, rows built next to ties
            layer = tx.near_tie_layer(rng)
            add(("direct", "u8 ties"), layer, tx.run_direct(layer))
            done += 1
    for i in range(args.convs):
        conv = tx.random_conv(rng, tie=bool(i % 2), float_out=bool(i % 4 >= 2))
        t = tally.setdefault(("conv", "float32" if conv.so is None else "uint8"), [0, 0, 0, 0])
        got = tx.run_conv_direct(conv)
        t[0] += 1
        t[1] += got.size
        t[2] += differ(got, tx.conv_simdops_outputs(conv, args.kernel))
    t2 = time.time()
    bad = 0
    for (path, out), (layers, outputs, d, nb) in sorted(tally.items()):
        other = "" if path == "conv" else f", {nb} from the one-combined-scale neighbour"
        print(f"{path:8s} {out:7s}: {layers} layers, {outputs} outputs, {d} differ from "
              f"simdops{other}")
        bad += d
    print(f"compiled {t1 - t0:.0f} s, direct {t2 - t1:.0f} s, ISA cap "
          f"{os.environ.get('ONEDNN_MAX_CPU_ISA', 'none')}, pair_saturation={ps}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
