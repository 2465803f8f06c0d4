"""The machine a run was measured on: CPU, cores, load, library versions."""
import os
import platform

import numpy as np

import simdops
from simdops.bench import ort as onnx_baseline
from simdops.bench import timing as timing


def loadavg():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:            # not available on this platform
        return None


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "Model", "Hardware")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _kernel_origins(isas):
    """{isa: {"entry/dtype": tier}}; empty when this build has no kernel_origins."""
    try:
        return {isa: {f"{e}/{d}": t for (e, d), t in simdops._core.kernel_origins(isa).items()}
                for isa in isas}
    except Exception:          # an internal helper: its shape may change, the bench must not
        return {}


def machine_info(isas, torch, loadavg_start):
    threads = simdops.get_num_threads() if timing.threads_supported() else None
    return {
        "simdops_version": simdops.__version__,
        "active_isa": simdops.isa(),
        "isas_available": list(simdops.available_isas()),
        "isas_measured": list(isas),
        "cpu_model": cpu_model(),
        "cpu_features": simdops._core.cpu_features(),
        "cpu_count": os.cpu_count(),
        "kernel_origins": _kernel_origins(isas),
        "simdops_threads_supported": timing.threads_supported(),
        "simdops_default_threads": threads,
        "numpy_version": np.__version__,
        "torch_version": None if torch is None else torch.__version__,
        "torch_threads": None if torch is None else torch.get_num_threads(),
        "onnxruntime_version": onnx_baseline.version(),
        "onnxruntime_missing": onnx_baseline.missing_reason(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "loadavg_start": loadavg_start,
        "loadavg_end": loadavg(),
        "env": {k: os.environ.get(k) for k in ("SIMDOPS_ISA", "SIMDOPS_NUM_THREADS",
                                               "OMP_NUM_THREADS")},
    }


def describe(m):
    """One paragraph: CPU, cores, load, versions."""
    libs = [f"numpy {m['numpy_version']}",
            f"torch {m['torch_version']} ({m['torch_threads']} thread)" if m["torch_version"]
            else "torch not importable (column skipped)",
            f"ONNX Runtime {m['onnxruntime_version']} (1 thread)" if m["onnxruntime_version"]
            else f"{m.get('onnxruntime_missing') or 'ONNX Runtime not importable'} "
                 f"(column skipped)"]
    return (f"simdops {m['simdops_version']} (active ISA {m['active_isa']}) on "
            f"{m.get('cpu_model') or m['machine']}, {m['cpu_count']} cores "
            f"({m['cpu_features']}); Python {m['python']}, " + ", ".join(libs)
            + f"; load average {m['loadavg_start']} -> {m['loadavg_end']}")
