"""`python -m simdops bench`: the throughput of every op, dtype and size on every available ISA,
side by side with a same-size np.copyto, numpy's own implementation and PyTorch (when
importable), all measured in one run; ends with the performance goals, PASS or MISS.

Method: preallocated outputs (out=), warm-up, then interleaved rounds (each round times every
implementation of a case once, in rotating order, so drift on a noisy machine hits all of them
alike); the figure used is the minimum per-call time over the rounds (the median is in --json).
Each sample loops the call enough times to last at least the sample time, with time.perf_counter
and the garbage collector off. Everything runs on one thread (torch.set_num_threads(1)).

GB/s counts bytes read + bytes written (x and out; per-channel vectors are not counted).
A ratio is baseline time / simdops time, i.e. the elements/s ratio: > 1 means simdops is faster.
"""
import argparse
import contextlib
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np

import simdops

QUICK_SIZES = (65_536,)
FULL_SIZES = (65_536, 1_048_576)
HARDMAX_COLS = 1024          # hardmax rows x 1024, reduced over the last axis
REQUANT_CHANNELS = 256       # per-channel requant: (n / 256) x 256
ELEMENTWISE = ("float32", "float16", "uint8", "int8", "int16", "int32")
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

COPY = "np.copyto"
COPY_I32 = "copyto(u8,i32)"
NUMPY = "numpy"
TORCH = "torch"


# --------------------------------------------------------------------------- ops
class Op:
    """One benchmarked operation: its inputs, parameters and implementations.

    Each implementation factory returns a zero-argument callable that writes `out` (or, for
    torch's allocating functions, returns a new tensor) and returns the result, or None when
    that implementation does not exist for the dtype."""
    name = ""
    kernel_entry = ""                 # field of the kernel table (simdops._core.kernel_origins)
    numpy_desc = torch_desc = ""

    def out_dtype(self, dtype):
        return dtype

    def shape(self, n):
        return (n,)

    def make_input(self, dtype, shape, rng):
        if np.dtype(dtype).kind == "f":
            return rng.standard_normal(shape).astype(dtype)
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)

    def params(self, dtype):
        return {}

    def simdops(self, x, out, p):
        raise NotImplementedError

    def numpy(self, x, out, p):
        return None

    def torch(self, tx, tout, p):
        return None


def _int_window(dtype):
    """Bounds a quarter of the type's span in from each end."""
    info = np.iinfo(dtype)
    quarter = (int(info.max) - int(info.min)) // 4
    return int(info.min) + quarter, int(info.max) - quarter


class Clip(Op):
    name = kernel_entry = "clip"
    numpy_desc = "np.clip(x, lo, hi, out=)"
    torch_desc = "torch.clamp(x, lo, hi, out=)"

    def params(self, dtype):
        lo, hi = (-1.0, 1.0) if np.dtype(dtype).kind == "f" else _int_window(dtype)
        return {"min": lo, "max": hi}

    def simdops(self, x, out, p):
        return lambda: simdops.clip(x, p["min"], p["max"], out=out)

    def numpy(self, x, out, p):
        return lambda: np.clip(x, p["min"], p["max"], out=out)

    def torch(self, tx, tout, p):
        import torch
        return lambda: torch.clamp(tx, p["min"], p["max"], out=tout)


class ClipScaleBias(Clip):
    name = "clip+scale_bias"
    kernel_entry = "clip_scale_bias"
    numpy_desc = "np.multiply, np.add, np.clip, all out="
    torch_desc = "torch.mul(out=), add_, clamp_"

    def params(self, dtype):
        return {"min": -1.0, "max": 1.0, "scale": 0.75, "bias": 0.125}

    def simdops(self, x, out, p):
        return lambda: simdops.clip(x, p["min"], p["max"], scale=p["scale"], bias=p["bias"],
                                    out=out)

    def numpy(self, x, out, p):
        scale, bias = np.asarray(p["scale"], x.dtype), np.asarray(p["bias"], x.dtype)

        def run():
            np.multiply(x, scale, out=out)
            np.add(out, bias, out=out)
            return np.clip(out, p["min"], p["max"], out=out)
        return run

    def torch(self, tx, tout, p):
        import torch
        return lambda: (torch.mul(tx, p["scale"], out=tout).add_(p["bias"])
                        .clamp_(p["min"], p["max"]))


class Shrink(Op):
    name = kernel_entry = "shrink"
    numpy_desc = "masks by np.greater/np.less, then np.subtract/np.add with where= and out="
    torch_desc = "torch.nn.functional.softshrink (allocates; float dtypes only)"

    def params(self, dtype):
        if np.dtype(dtype).kind == "f":
            return {"bias": 0.5, "threshold": 0.5}      # = softshrink(lambd=0.5)
        span = int(np.iinfo(dtype).max) - int(np.iinfo(dtype).min)
        return {"bias": span // 16, "threshold": span // 8}

    def simdops(self, x, out, p):
        return lambda: simdops.shrink(x, p["bias"], p["threshold"], out=out)

    def numpy(self, x, out, p):
        above = np.empty(x.shape, bool)
        below = np.empty(x.shape, bool)
        b, t = p["bias"], p["threshold"]

        def run():
            np.greater(x, t, out=above)
            np.less(x, -t, out=below)
            out.fill(0)
            np.subtract(x, b, out=out, where=above)
            np.add(x, b, out=out, where=below)
            return out
        return run

    def torch(self, tx, tout, p):
        import torch
        if not tx.is_floating_point() or p["bias"] != p["threshold"]:
            return None
        return lambda: torch.nn.functional.softshrink(tx, p["threshold"])


class Hardmax(Op):
    name = "hardmax"
    kernel_entry = "argmax_row"
    numpy_desc = "zero out, np.argmax(keepdims, out=), np.put_along_axis"
    torch_desc = "torch.argmax(out=), zero_, scatter_"

    def shape(self, n):
        return (max(1, n // HARDMAX_COLS), HARDMAX_COLS)

    def simdops(self, x, out, p):
        return lambda: simdops.hardmax(x, axis=-1, out=out)

    def numpy(self, x, out, p):
        idx = np.empty(x.shape[:-1] + (1,), np.intp)

        def run():
            out[...] = 0
            np.argmax(x, axis=-1, keepdims=True, out=idx)
            np.put_along_axis(out, idx, 1, axis=-1)
            return out
        return run

    def torch(self, tx, tout, p):
        import torch
        idx = torch.empty(tx.shape[:-1] + (1,), dtype=torch.long)

        def run():
            torch.argmax(tx, dim=-1, keepdim=True, out=idx)
            return tout.zero_().scatter_(-1, idx, 1.0)
        return run


class Requant(Op):
    """int32 -> uint8, ACL's ScaleByFixedPoint; per tensor, or per channel with bias."""
    numpy_desc = "the SPEC section 3 formula in int64 numpy"

    def __init__(self, per_channel):
        self.per_channel = per_channel
        self.name = "requant_pc+bias" if per_channel else "requant"
        self.kernel_entry = "requant_pc" if per_channel else "requant"

    def out_dtype(self, dtype):
        return "uint8"

    def shape(self, n):
        if not self.per_channel:
            return (n,)
        channels = min(REQUANT_CHANNELS, n)
        return (max(1, n // channels), channels)

    def make_input(self, dtype, shape, rng):
        return rng.integers(-150_000, 150_000, shape, dtype=np.int32)

    def params(self, dtype):
        if not self.per_channel:
            m, s = simdops.quantize_multiplier(1 / 1000)
            return {"multiplier": m, "shift": s, "offset": 100, "min": 0, "max": 0, "bias": None}
        scales = np.linspace(1 / 1200, 1 / 800, REQUANT_CHANNELS)
        ms = [simdops.quantize_multiplier(float(v)) for v in scales]
        return {"multiplier": np.array([m for m, _ in ms], np.int32),
                "shift": np.array([s for _, s in ms], np.int32),
                "offset": 100, "min": 10, "max": 245,
                "bias": 40 * np.arange(-REQUANT_CHANNELS // 2, REQUANT_CHANNELS // 2,
                                       dtype=np.int32)}

    def _channel(self, p, x):
        """The parameters, per-channel vectors cut to x's last dimension."""
        q = dict(p)
        for key in ("multiplier", "shift", "bias"):
            if isinstance(q[key], np.ndarray):
                q[key] = np.ascontiguousarray(q[key][:x.shape[-1]])
        return q

    def simdops(self, x, out, p):
        q = self._channel(p, x)
        return lambda: simdops.quantize_down_int32_to_uint8(
            x, q["multiplier"], q["shift"], q["offset"], bias=q["bias"], min=q["min"],
            max=q["max"], out=out)

    def numpy(self, x, out, p):
        q = self._channel(p, x)
        m = np.asarray(q["multiplier"], np.int64)
        shift = np.asarray(q["shift"], np.int64)
        left, right = np.maximum(-shift, 0), np.maximum(shift, 0)
        mask = (np.int64(1) << right) - 1
        bias = None if q["bias"] is None else np.asarray(q["bias"], np.int64)
        # Only the branches these parameters can reach are computed, to be fair to numpy.
        needs_left = bool(np.any(left))
        needs_saturation = bool(np.any(m == INT32_MIN))

        def wrap32(v):
            return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)

        def run():
            a = x.astype(np.int64)
            if bias is not None:
                a = wrap32(a + bias)
            if needs_left:
                a = wrap32(a << left)
            v = (a * m + (1 << 30)) >> 31                             # SRDHM
            if needs_saturation:
                v = np.where((a == INT32_MIN) & (m == INT32_MIN), INT32_MAX, v)
            v = (v >> right) + ((v & mask) > ((mask >> 1) + (v < 0)))    # RDBPOT
            v = wrap32(v + q["offset"])
            if q["min"] != q["max"]:
                v = np.clip(v, q["min"], q["max"])
            np.copyto(out, np.clip(v, 0, 255), casting="unsafe")
            return out
        return run


OPS = {op.name: op for op in (Clip(), ClipScaleBias(), Shrink(), Hardmax(),
                              Requant(False), Requant(True))}

# The one table of cases: (op, dtypes in --quick, dtypes added in the full run).
CASE_TABLE = (
    ("clip", ELEMENTWISE, ("float64",)),
    ("shrink", ELEMENTWISE, ("float64",)),
    ("clip+scale_bias", ("float32",), ()),
    ("hardmax", ("float32",), ()),
    ("requant", ("int32",), ()),
    ("requant_pc+bias", (), ("int32",)),
)

# Goals of the x86 SIMD issue: (op, dtypes, n, baseline measured in which op's case,
# baseline, goal ratio, what the baseline is).
SMALL_INTS_F16 = ("uint8", "int8", "int16", "float16")
GOALS = (
    ("clip", ("float32",), FULL_SIZES, "clip", COPY, 0.9, "np.copyto"),
    ("shrink", ("float32",), FULL_SIZES, "shrink", COPY, 0.9, "np.copyto"),
    ("clip", ("float32",), FULL_SIZES, "clip", TORCH, 1.2, "torch.clamp(out=)"),
    ("shrink", ("float32",), FULL_SIZES, "clip", TORCH, 1.2, "torch.clamp(out=)"),
    ("clip", SMALL_INTS_F16, FULL_SIZES, "clip", COPY, 0.8, "np.copyto"),
    ("shrink", SMALL_INTS_F16, FULL_SIZES, "shrink", COPY, 0.8, "np.copyto"),
    ("requant", ("int32",), (65_536,), "requant", NUMPY, 50.0, "numpy int64 formula"),
    ("requant", ("int32",), (65_536,), "requant", COPY_I32, 0.35, "np.copyto(u8,i32,unsafe)"),
    ("hardmax", ("float32",), (1_048_576,), "hardmax", NUMPY, 2.0,
     "numpy argmax+put_along_axis"),
)


# --------------------------------------------------------------------------- timing
@dataclass
class Impl:
    name: str
    fn: object                 # zero-argument callable
    isa: str = None            # simdops ISA forced while it runs; None for baselines

    def context(self):
        return simdops.use_isa(self.isa) if self.isa else contextlib.nullcontext()


def _loop(fn, number):
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return time.perf_counter() - start


def time_impls(impls, repeat, sample_time):
    """{name: [seconds per call, one per round]} for the implementations of one case."""
    numbers = {}
    for imp in impls:
        with imp.context():
            fn_time = min(_loop(imp.fn, 1) for _ in range(5))       # warm-up; min skips hiccups
            numbers[imp.name] = max(1, math.ceil(sample_time / max(fn_time, 1e-9)))
            _loop(imp.fn, numbers[imp.name])                        # warm-up at full length
    samples = {imp.name: [] for imp in impls}
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(repeat):
            for imp in impls[r % len(impls):] + impls[:r % len(impls)]:
                with imp.context():
                    samples[imp.name].append(_loop(imp.fn, numbers[imp.name]) / numbers[imp.name])
    finally:
        if gc_enabled:
            gc.enable()
    return samples, numbers


# --------------------------------------------------------------------------- running
def _import_torch():
    try:
        import torch
    except Exception:          # not installed, or a broken install: benchmark without it
        return None
    torch.set_num_threads(1)
    return torch


def _as_bytes(result):
    if result is None:
        return None
    if hasattr(result, "numpy"):
        result = result.numpy()
    return np.array(result, copy=True, order="C").view(np.uint8)


def build_cases(sizes, quick):
    cases = []
    for op_name, quick_dtypes, full_dtypes in CASE_TABLE:
        dtypes = quick_dtypes + (() if quick else full_dtypes)
        cases += [(OPS[op_name], dtype, n) for n in sizes for dtype in dtypes]
    return cases


def run_case(op, dtype, n, isas, torch, rng, repeat, sample_time):
    shape = op.shape(n)
    x = op.make_input(dtype, shape, rng)
    p = op.params(dtype)
    out_dtype = op.out_dtype(dtype)
    # One output array for every implementation: same addresses, same cache state.
    out = np.zeros(shape, out_dtype)
    copy_src = x.astype(out_dtype)

    impls = [Impl(isa, op.simdops(x, out, p), isa) for isa in isas]
    impls.append(Impl(COPY, lambda: np.copyto(out, copy_src)))
    if out_dtype != dtype:
        impls.append(Impl(COPY_I32, lambda: np.copyto(out, x, casting="unsafe")))
    fn = op.numpy(x, out, p)
    if fn is not None:
        impls.append(Impl(NUMPY, fn))
    if torch is not None:
        fn = op.torch(torch.from_numpy(x), torch.from_numpy(out), p)
        if fn is not None:
            impls.append(Impl(TORCH, fn))

    # Same bits from every ISA, and does the baseline compute the same thing?
    outputs = {}
    for imp in impls:
        with imp.context():
            outputs[imp.name] = _as_bytes(imp.fn())
    reference = outputs[isas[0]]
    agrees = {name: (None if got is None else bool(np.array_equal(got, reference)))
              for name, got in outputs.items()}

    samples, numbers = time_impls(impls, repeat, sample_time)
    nbytes = x.nbytes + int(np.prod(shape)) * np.dtype(out_dtype).itemsize
    elements = int(np.prod(shape))
    results = {}
    for imp in impls:
        best = min(samples[imp.name])
        results[imp.name] = {
            "kind": "simdops" if imp.isa else "baseline",
            "seconds": best,
            "median_seconds": statistics.median(samples[imp.name]),
            "samples": samples[imp.name],
            "calls_per_sample": numbers[imp.name],
            "gb_per_s": nbytes / best / 1e9,
            "elements_per_s": elements / best,
            "same_output_as_simdops": agrees[imp.name],
        }
    ratios = {isa: {name: r["seconds"] / results[isa]["seconds"]
                    for name, r in results.items() if r["kind"] == "baseline"}
              for isa in isas}
    params = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in p.items()}
    return {
        "id": case_id(op.name, dtype, n), "op": op.name, "dtype": dtype,
        "out_dtype": out_dtype, "shape": list(shape), "n": elements,
        "bytes_per_call": nbytes, "params": params,
        "kernel_entry": op.kernel_entry, "results": results, "ratios": ratios,
    }


def case_id(op_name, dtype, n):
    return f"{op_name}/{dtype}/{n}"


def size_label(shape):
    return "x".join(str(s) for s in shape) if len(shape) > 1 else f"n={shape[0]:,}"


def dtype_label(op, dtype):
    out_dtype = op.out_dtype(dtype)
    return dtype if out_dtype == dtype else f"{dtype}->{out_dtype}"


# --------------------------------------------------------------------------- reporting
def _si(value):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


def _ratio(r):
    return f"{r:.3g}"


def _case_label(case):
    return f"{case['op']} {dtype_label(OPS[case['op']], case['dtype'])} {size_label(case['shape'])}"


def _inherited(case, isa, origins):
    """True when the ISA runs a lower tier's kernel for this case."""
    dtype = case["out_dtype"] if case["op"].startswith("requant") else case["dtype"]
    key = f"{case['kernel_entry']}/{dtype}"
    origin = origins.get(isa, {}).get(key)
    return origin is not None and origin != isa


def format_report(report):
    isas = report["machine"]["isas_measured"]
    origins = report["machine"]["kernel_origins"]
    baselines = [COPY, COPY_I32, NUMPY, TORCH]
    m = report["machine"]
    lines = [f"simdops {m['simdops_version']} on {m.get('cpu_model') or m['machine']} "
             f"({m['cpu_features']}); numpy {m['numpy_version']}, "
             + (f"torch {m['torch_version']} ({m['torch_threads']} thread)"
                if m["torch_version"] else "torch not importable (skipped)")
             + f"; {report['settings']['elapsed_seconds']:.0f} s, load average "
             f"{m['loadavg_start']} -> {m['loadavg_end']} (other load makes numbers noisy)", ""]
    width = max(len(_case_label(c)) for c in report["cases"]) + 2

    lines.append("Throughput: GB/s (bytes read + written) and elements/s, per call, "
                 "best of %d rounds" % report["settings"]["repeat"])
    names = isas + [b for b in baselines if any(b in c["results"] for c in report["cases"])]
    lines.append(" " * width + "".join(f"{n:>15}" for n in names))
    lines.append(" " * width + f"{'GB/s elem/s':>15}" * len(names))
    for case in report["cases"]:
        cells = []
        for name in names:
            r = case["results"].get(name)
            cells.append(f"{'-':>15}" if r is None else
                         f"{r['gb_per_s']:8.2f} {_si(r['elements_per_s']):>6}")
        lines.append(f"{_case_label(case):<{width}}" + "".join(cells))

    lines.append("")
    lines.append("Ratios: baseline time / simdops time (> 1: simdops faster); "
                 "* = ISA runs a lower tier's kernel")
    lines.append(" " * width + f"{'vs':<16}" + "".join(f"{i:>9}" for i in isas))
    for case in report["cases"]:
        label = _case_label(case)
        for name in baselines:
            if name not in case["results"]:
                continue
            cells = "".join(f"{_ratio(case['ratios'][isa][name]):>8}"
                            f"{'*' if _inherited(case, isa, origins) else ' '}" for isa in isas)
            lines.append(f"{label:<{width}}{name:<16}{cells}")
            label = ""

    lines.append("")
    lines.append("Baselines (one thread, preallocated outputs where the API allows):")
    lines.append(f"  {COPY}: np.copyto(out, src), src and out of the op's output dtype and size")
    lines.append(f"  {COPY_I32}: np.copyto(out_u8, x_i32, casting='unsafe') (requant)")
    for op in OPS.values():
        lines.append(f"  {op.name}: numpy = {op.numpy_desc}"
                     + (f"; torch = {op.torch_desc}" if op.torch_desc else ""))
    if report["machine"]["torch_version"] is None:
        lines.append("  torch: not importable, skipped")
    differ = [f"{name} on {_case_label(c)}" for c in report["cases"]
              for name, r in c["results"].items() if r["same_output_as_simdops"] is False]
    if differ:
        lines.append("  outputs differing from simdops (scalar semantics): " + "; ".join(differ))

    lines.append("")
    lines.append("Goals (ratio of the fastest ISA; * = that ISA runs a lower tier's kernel; "
                 "a report, not a test):")
    width = max(len(g["label"]) for g in report["goals"]) + 2
    by_id = {c["id"]: c for c in report["cases"]}
    for g in report["goals"]:
        measured = "-"
        if g["ratio"] is not None:
            star = "*" if _inherited(by_id[case_id(g["op"], g["dtype"], g["n"])],
                                     g["best_isa"], origins) else ""
            measured = f"{_ratio(g['ratio'])}x {g['best_isa']}{star}"
        lines.append(f"  {g['label']:<{width}}>= {g['goal']:<5g} {measured:>16}  {g['status']}")
    return "\n".join(lines)


def evaluate_goals(cases):
    by_id = {c["id"]: c for c in cases}
    goals = []
    for op_name, dtypes, sizes, base_op, base, goal, base_desc in GOALS:
        for dtype in dtypes:
            for n in sizes:
                case = by_id.get(case_id(op_name, dtype, n))
                base_case = by_id.get(case_id(base_op, dtype, n))
                op = OPS[op_name]
                row = {"label": f"{op_name} {dtype_label(op, dtype)} {size_label(op.shape(n))} "
                                f"vs {base_desc}",
                       "op": op_name, "dtype": dtype, "n": n, "baseline": base_desc,
                       "goal": goal, "ratio": None, "best_isa": None, "status": "SKIP"}
                if not case or not base_case:
                    row["status"] = "SKIP (size not run)"
                elif base not in base_case["results"]:
                    row["status"] = f"SKIP (no {base})"
                else:
                    base_time = base_case["results"][base]["seconds"]
                    isa = min((r["seconds"], name) for name, r in case["results"].items()
                              if r["kind"] == "simdops")[1]
                    row["ratio"] = base_time / case["results"][isa]["seconds"]
                    row["best_isa"] = isa
                    row["status"] = "PASS" if row["ratio"] >= goal else "MISS"
                goals.append(row)
    return goals


def _loadavg():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:            # not available on this platform
        return None


def machine_info(isas, torch, loadavg_start):
    info = {
        "simdops_version": simdops.__version__,
        "isas_available": list(simdops.available_isas()),
        "isas_measured": list(isas),
        "cpu_features": simdops._core.cpu_features(),
        "kernel_origins": {isa: {f"{e}/{d}": t for (e, d), t in
                                 simdops._core.kernel_origins(isa).items()} for isa in isas},
        "numpy_version": np.__version__,
        "torch_version": None if torch is None else torch.__version__,
        "torch_threads": None if torch is None else torch.get_num_threads(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "loadavg_start": loadavg_start,
        "loadavg_end": _loadavg(),
        "env": {k: os.environ.get(k) for k in ("SIMDOPS_ISA", "OPENBLAS_CORETYPE",
                                               "OMP_NUM_THREADS")},
    }
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu_model"] = next((line.split(":", 1)[1].strip() for line in f
                                      if line.startswith("model name")), None)
    except OSError:
        info["cpu_model"] = platform.processor() or None
    return info


def write_plot(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = report["cases"]
    names = report["machine"]["isas_measured"] + [
        b for b in (COPY, COPY_I32, NUMPY, TORCH) if any(b in c["results"] for c in cases)]
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(cases)), 5))
    for k, name in enumerate(names):
        xs = [i + (k - (len(names) - 1) / 2) * width for i, c in enumerate(cases)
              if name in c["results"]]
        ys = [c["results"][name]["gb_per_s"] for c in cases if name in c["results"]]
        ax.bar(xs, ys, width, label=name)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([_case_label(c) for c in cases], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("GB/s (read + written)")
    ax.set_title(f"simdops {report['machine']['simdops_version']} - "
                 f"{report['machine'].get('cpu_model') or report['machine']['machine']}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --------------------------------------------------------------------------- CLI
def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m simdops bench",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="n = 65,536 only (hardmax 64 x 1024), fewer rounds; well under a minute")
    ap.add_argument("--json", metavar="FILE", help="write all raw numbers and machine info here")
    ap.add_argument("--plot", metavar="FILE.png", help="write a GB/s bar chart (needs matplotlib)")
    ap.add_argument("--isa", nargs="+", metavar="NAME",
                    help="measure only these ISAs (default: every available one)")
    ap.add_argument("--sizes", nargs="+", type=int, metavar="N",
                    help="element counts instead of the defaults (hardmax: N // 1024 rows of 1024)")
    ap.add_argument("--repeat", type=int, metavar="R", help="timed rounds per case "
                    "(default 25 with --quick, else 30)")
    ap.add_argument("--sample-time", type=float, default=None, metavar="SECONDS",
                    help="minimum length of one timed sample (default 0.002 quick, 0.004 full)")
    return ap.parse_args(argv)


def main(argv):
    try:
        args = parse_args(argv)
    except SystemExit as e:                   # --help or a usage error
        return e.code if isinstance(e.code, int) else 2
    available = simdops.available_isas()
    isas = list(dict.fromkeys(args.isa)) if args.isa else list(available)
    unknown = [i for i in isas if i not in available]
    if unknown:
        print(f"bench: ISA {', '.join(unknown)} not available here; available: "
              f"{', '.join(available)}", file=sys.stderr)
        return 2
    if any(n < 1 for n in args.sizes or ()) or (args.repeat is not None and args.repeat < 1):
        print("bench: --sizes and --repeat must be positive", file=sys.stderr)
        return 2
    plot_ok = True
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            plot_ok = False
            print("bench: matplotlib is not importable; --plot will be skipped "
                  "(pip install matplotlib)", file=sys.stderr)

    torch = _import_torch()
    sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)
    repeat = args.repeat or (25 if args.quick else 30)
    sample_time = args.sample_time or (0.002 if args.quick else 0.004)
    rng = np.random.default_rng(20240601)
    cases = build_cases(sizes, args.quick)
    started = time.perf_counter()
    load_start = _loadavg()
    results = []
    for k, (op, dtype, n) in enumerate(cases, 1):
        t0 = time.perf_counter()
        print(f"[{k}/{len(cases)}] {op.name} {dtype_label(op, dtype)} {size_label(op.shape(n))}: "
              f"{' '.join(isas)} + baselines ...", end="", file=sys.stderr, flush=True)
        results.append(run_case(op, dtype, n, isas, torch, rng, repeat, sample_time))
        print(f" {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)

    report = {
        "machine": machine_info(isas, torch, load_start),
        "settings": {"quick": args.quick, "sizes": list(sizes), "repeat": repeat,
                     "sample_time": sample_time, "statistic": "min",
                     "ratio": "baseline seconds / simdops seconds",
                     "elapsed_seconds": time.perf_counter() - started},
        "cases": results,
        "goals": evaluate_goals(results),
    }
    print(format_report(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"bench: wrote {args.json}", file=sys.stderr)
    if args.plot:
        if not plot_ok:
            print(f"bench: --plot {args.plot} not written: matplotlib is not importable",
                  file=sys.stderr)
            return 2
        write_plot(report, args.plot)
        print(f"bench: wrote {args.plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
