"""Running one case: build every implementation, check they compute the same bits, time
them interleaved (timing.py) and turn the samples into a result record."""
import statistics

import numpy as np

import simdops
from simdops.bench import ort as onnx_baseline
from simdops.bench.timing import Impl, threads_supported, time_impls

COPY = "np.copyto"
NUMPY = "numpy"
TORCH = "torch"
ORT = "onnxruntime"
BASELINES = (COPY, NUMPY, TORCH, ORT)


def import_torch():
    """torch on one thread, or None when it is not importable."""
    try:
        import torch
    except Exception:          # not installed, or a broken install: benchmark without it
        return None
    torch.set_num_threads(1)
    return torch


def simdops_name(isa, threads):
    return isa if threads is None else f"{isa} {threads}t"


def build_impls(case, x, out, p, isas, threads, torch):
    """Every implementation of the case: simdops per ISA (and thread count), its extra entry
    points, then the baselines that exist for it."""
    op = case.op
    counts = case.threads or threads or (None,)
    if not threads_supported():
        counts = (None,)               # no simdops.set_num_threads: one row, threads "n/a"
    impls = [Impl(simdops_name(isa, t), op.simdops(x, out, p), "simdops", isa, t)
             for isa in isas for t in counts]
    for path in case.paths:
        fn = path.make(x, out, p)
        if fn is not None:
            impls.append(Impl(path.name, fn, "path"))
    # np.copyto of the same bytes: the same source (view) and destination; for requant the
    # converting copy int32 -> uint8 reads and writes exactly the bytes the op does.
    impls.append(Impl(COPY, case.copy_baseline(x, out, p)))
    fn = op.numpy(x, out, p)
    if fn is not None:
        impls.append(Impl(NUMPY, fn))
    # torch has no negative strides, and no ml_dtypes types (numpy kind "V")
    if (torch is not None and all(s >= 0 for s in x.strides)
            and "V" not in (x.dtype.kind, out.dtype.kind)):
        fn = op.torch(torch.from_numpy(x), torch.from_numpy(out), p)
        if fn is not None:
            impls.append(Impl(TORCH, fn))
    fn = onnx_baseline.make(op, x, out, p)
    if fn is not None:
        impls.append(Impl(ORT, fn))
    return impls


def _as_bytes(result):
    if result is None:
        return None
    if hasattr(result, "numpy"):
        result = result.numpy()
    return np.array(result, copy=True, order="C").view(np.uint8)


def run_case(case, isas, threads, torch, rng, repeat, sample_time, order_rng=None):
    """The result record of one case (the JSON "cases" entries)."""
    x, out, p = case.arrays(rng)
    impls = build_impls(case, x, out, p, isas, threads, torch)

    # Same bits from every ISA and thread count; does each baseline compute the same thing?
    outputs = {}
    for imp in impls:
        with imp.context():
            got = imp.fn()
        outputs[imp.name] = _as_bytes(out if got is None else got)
    reference = outputs[impls[0].name]
    agrees = {name: (None if got is None or name == COPY else
                     bool(np.array_equal(got, reference)))
              for name, got in outputs.items()}

    samples, numbers = time_impls(impls, repeat, sample_time, order_rng)
    default_threads = simdops.get_num_threads() if threads_supported() else None
    results = {}
    for imp in impls:
        best = min(samples[imp.name])
        median = statistics.median(samples[imp.name])
        results[imp.name] = {
            "kind": imp.kind, "isa": imp.isa,
            "threads": (imp.threads or default_threads) if imp.kind == "simdops" else None,
            "seconds": best, "median_seconds": median, "spread": median / best - 1,
            "samples": samples[imp.name], "calls_per_sample": numbers[imp.name],
            "gb_per_s": case.nbytes / best / 1e9,
            "elements_per_s": case.n / best,
            "same_output_as_simdops": agrees[imp.name],
        }
    ratios = {imp.name: {name: r["seconds"] / results[imp.name]["seconds"]
                         for name, r in results.items() if r["kind"] == "baseline"}
              for imp in impls if imp.kind != "baseline"}
    params = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in p.items()
              if not k.startswith("_")}      # "_name": arrays a case keeps out of the JSON
    return {
        "id": case.id, "op": case.op.name, "dtype": case.dtype, "out_dtype": case.out_dtype,
        "dtype_label": case.dtype_label, "size_label": case.size_label, "label": case.label,
        "shape": list(case.shape), "view": case.view, "n": case.n,
        "bytes_per_call": case.nbytes, "params": params, "kernel_entry": case.op.kernel_entry,
        "results": results, "ratios": ratios,
    }
