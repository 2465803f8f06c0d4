"""How one case is timed, and the progress line with its ETA.

Method: every implementation of a case is warmed up, then timed in interleaved rounds (each
round times every implementation once, in a shuffled order, so drift on a noisy machine hits
all of them alike). The order is shuffled rather than rotated: a rotation keeps each
implementation behind the same predecessor in every round, and an implementation that always
runs right after a slow baseline (numpy's and ONNX Runtime's AVX-512 code, whose caches and
clock it inherits) measured float32 shrink at 1M 0.55-0.60 of np.copyto where it measures
0.94 after anything else. The orders come from the run's own seed (`--seed`; a fresh one
each run unless given, recorded in the JSON settings), so a position bias that survives the
shuffle does not repeat from run to run; the same seed repeats a run's orders. A sample loops the call until it lasts at least the sample time, with
time.perf_counter and the garbage collector off; a result keeps the per-call time of every
round, and the report uses the minimum (the median is kept too)."""
import contextlib
import gc
import math
import random
import sys
import time
from dataclasses import dataclass, field

import simdops


def threads_supported():
    """True when this simdops build has intra-op threads (simdops.set_num_threads)."""
    return hasattr(simdops, "set_num_threads") and hasattr(simdops, "get_num_threads")


@contextlib.contextmanager
def simdops_threads(n):
    """Run the block with n intra-op threads, restoring the previous count."""
    if n is None or not threads_supported():
        yield
        return
    previous = simdops.get_num_threads()
    simdops.set_num_threads(n)
    try:
        yield
    finally:
        simdops.set_num_threads(previous)


@dataclass
class Impl:
    """One implementation of a case: a zero-argument callable and how to run it."""
    name: str                  # column / row key: "avx2", "avx2 2t", "np.copyto", "dml.execute"
    fn: object
    kind: str = "baseline"     # "simdops" (a kernel tier), "path" (another simdops entry
                               # point, e.g. dml.execute) or "baseline" (copy, numpy, ...)
    isa: str = None            # simdops ISA forced while it runs
    threads: int = None        # simdops intra-op threads while it runs (None: leave as is)
    extra: dict = field(default_factory=dict)

    @contextlib.contextmanager
    def context(self):
        with (simdops.use_isa(self.isa) if self.isa else contextlib.nullcontext()):
            with simdops_threads(self.threads):
                yield


def _loop(fn, number):
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return time.perf_counter() - start


def time_impls(impls, repeat, sample_time, order_rng=None):
    """({name: [seconds per call, one per round]}, {name: calls per sample}). order_rng: the
    random.Random whose shuffles order the rounds (the run's, seeded by --seed; None: a fresh
    one)."""
    numbers = {}
    for imp in impls:
        with imp.context():
            fn_time = min(_loop(imp.fn, 1) for _ in range(2))       # min skips first-call costs
            numbers[imp.name] = max(1, math.ceil(sample_time / max(fn_time, 1e-9)))
            if numbers[imp.name] > 1:
                _loop(imp.fn, numbers[imp.name])                    # warm-up at full length
    samples = {imp.name: [] for imp in impls}
    order = list(impls)
    shuffle = (order_rng or random.Random()).shuffle
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            shuffle(order)
            for imp in order:
                with imp.context():
                    samples[imp.name].append(_loop(imp.fn, numbers[imp.name]) / numbers[imp.name])
    finally:
        if gc_enabled:
            gc.enable()
    return samples, numbers


def estimated_seconds(nbytes, impl_count, repeat, sample_time):
    """Rough cost of a case before it runs: a sample lasts at least one call, and a call
    moves its bytes at ~10 GB/s (slow baselines make this an underestimate: the ETA learns
    the real ratio as cases finish)."""
    sample = max(sample_time, nbytes / 10e9)
    return impl_count * (repeat + 4) * sample


def _clock(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """"[k/N] label ... 1.2s  (elapsed 0:14, ETA 0:40)" on stderr, one line per case (or
    rewritten in place on a terminal)."""

    def __init__(self, estimates, stream=None):
        self.estimates = list(estimates)
        self.stream = stream or sys.stderr
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.started = time.perf_counter()
        self.done = 0

    def eta(self):
        elapsed = time.perf_counter() - self.started
        predicted_done = sum(self.estimates[:self.done])
        scale = elapsed / predicted_done if predicted_done > 0 else 1.0
        return scale * sum(self.estimates[self.done:])

    def start(self, label):
        self._case_started = time.perf_counter()
        prefix = "\r\033[K" if self.tty else ""
        print(f"{prefix}[{self.done + 1}/{len(self.estimates)}] {label} ... "
              f"(ETA {_clock(self.eta())})", end="" if self.tty else "\n",
              file=self.stream, flush=True)

    def finish(self):
        self.done += 1
        if self.done == len(self.estimates):
            total = time.perf_counter() - self.started
            prefix = "\r\033[K" if self.tty else ""
            cases = "case" if self.done == 1 else "cases"
            print(f"{prefix}bench: {self.done} {cases} in {_clock(total)}", file=self.stream,
                  flush=True)
