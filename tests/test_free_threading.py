"""Every public function called from 8 threads at once on shared read-only
inputs: each result must be the bits the same call gives on one thread.

On a GIL build this exercises the nogil kernel calls, the thread pool under
concurrent callers, the thread-local ISA selection and the shared objects
(compiled DirectML operators, Prepared parameters, a shared use_isa); on a
free-threaded build (3.14t) the same calls race without any GIL, and the last
test checks that importing simdops leaves the GIL off there.
"""
import os
import subprocess
import sys
import sysconfig
import threading

import numpy as np
import pytest

import simdops
from simdops import _core, acl, dml

N_THREADS = 8
ROUNDS = 6

pytestmark = pytest.mark.thread_unsafe(
    reason="starts its own 8 threads and sets the process-wide thread count and grain")


def _inputs():
    rng = np.random.default_rng(21)
    f32 = rng.standard_normal(40_000).astype(np.float32) * 8
    f32[:8] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -1e-45, 3.4e38]
    f64 = rng.standard_normal(5_000) * 100
    i8 = rng.integers(-128, 128, 30_000, dtype=np.int8)
    u16 = rng.integers(0, 1 << 16, 30_000, dtype=np.uint16)
    f16 = rng.standard_normal(30_000).astype(np.float16)
    rows = rng.standard_normal((300, 96)).astype(np.float32)
    rows[::7, 5] = rows[::7, 9] = 50.0  # ties: the first maximum wins
    acc = rng.integers(-(1 << 24), 1 << 24, (400, 64), dtype=np.int32)
    acc[0, :4] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0, -1]
    bias = rng.integers(-(1 << 14), 1 << 14, 64, dtype=np.int32)
    mults = rng.integers(1 << 30, (1 << 31) - 1, 64).astype(np.int32)
    shifts = rng.integers(0, 12, 64).astype(np.int32)
    for a in (f32, f64, i8, u16, f16, rows, acc, bias, mults, shifts):
        a.flags.writeable = False  # shared and read-only: a write would raise
    return dict(f32=f32, f64=f64, i8=i8, u16=u16, f16=f16, rows=rows, acc=acc, bias=bias,
                mults=mults, shifts=shifts)


def _calls(d):
    """name -> a call returning something comparable with ==."""
    T = dml.BufferTensorDesc
    DT = dml.TensorDataType
    clip_op = dml.compile_operator(dml.ElementWiseClipOperatorDesc(
        T(DT.FLOAT32, (1, 1, 200, 200)), T(DT.FLOAT32, (1, 1, 200, 200)), -1.5, 2.5, None))
    shrink_op = dml.compile_operator(dml.ActivationShrinkOperatorDesc(
        T(DT.FLOAT32, (1, 1, 200, 200)), T(DT.FLOAT32, (1, 1, 200, 200)), 0.5, 1.0))
    hardmax_op = dml.compile_operator(dml.ActivationHardmaxOperatorDesc(
        T(DT.FLOAT32, (1, 1, 300, 96)), T(DT.FLOAT32, (1, 1, 300, 96))))
    src = d["f32"]
    rows = d["rows"]

    def dml_run(op, x):
        out = np.empty(x.size, np.float32)  # each call its own output
        op.execute(x, out)
        return out.tobytes()

    def acl_fixed():
        out = np.empty(d["acc"].shape, np.uint8)
        f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint()
        f.configure(d["acc"], d["bias"], out, 254601602, 3, 5, 2, 250)
        f.run()
        return out.tobytes()

    def clip_out():
        out = np.empty_like(src)
        simdops.clip(src, -2.0, 2.0, out=out)
        return out.tobytes()

    def under_each_isa():
        # use_isa is per thread: other threads' blocks never leak into this one
        got = []
        for name in simdops.available_isas():
            with simdops.use_isa(name):
                assert simdops.isa() == name
                got.append(simdops.shrink(src, 0.25, 0.5).tobytes())
        return tuple(got)

    return {
        "clip f32": lambda: simdops.clip(src, -1.0, 1.0).tobytes(),
        "clip f32 scale bias": lambda: simdops.clip(src, -3, 3, scale=0.5, bias=0.25).tobytes(),
        "clip f64": lambda: simdops.clip(d["f64"], -50, 50).tobytes(),
        "clip i8": lambda: simdops.clip(d["i8"], -100, 90).tobytes(),
        "clip u16": lambda: simdops.clip(d["u16"], 100, 60_000).tobytes(),
        "clip f16": lambda: simdops.clip(d["f16"], -1, 1).tobytes(),
        "clip out=": clip_out,
        "clip strided view": lambda: simdops.clip(rows[::-2, ::3], 0, 1).tobytes(),
        "shrink f32": lambda: simdops.shrink(src, 0.5, 1.0).tobytes(),
        "shrink f16": lambda: simdops.shrink(d["f16"], 0.0, 0.5).tobytes(),
        "shrink i8": lambda: simdops.shrink(d["i8"], 3, 10).tobytes(),
        "hardmax rows": lambda: simdops.hardmax(rows).tobytes(),
        "hardmax axis 0": lambda: simdops.hardmax(rows, axis=0).tobytes(),
        "hardmax both axes": lambda: simdops.hardmax(rows, axis=(0, 1)).tobytes(),
        "requant uint8": lambda: simdops.quantize_down_int32_to_uint8(
            d["acc"], 254601602, 3, 5, bias=d["bias"], min=2, max=250).tobytes(),
        "requant int8 per channel": lambda: simdops.quantize_down_int32(
            d["acc"], d["mults"], d["shifts"], -3, bias=d["bias"], out_dtype="int8").tobytes(),
        "requant int16": lambda: simdops.quantize_down_int32(
            d["acc"], 1 << 30, 1, out_dtype="int16").tobytes(),
        "quantize_multiplier": lambda: tuple(simdops.quantize_multiplier(r)
                                             for r in (0.0003, 0.5, 0.999, 1.5)),
        "isa": simdops.isa,
        "available_isas": simdops.available_isas,
        "get_include": simdops.get_include,
        "get_num_threads": simdops.get_num_threads,
        "cpu_features": _core.cpu_features,
        "use_isa each": under_each_isa,
        "dml clip": lambda: dml_run(clip_op, src),
        "dml shrink": lambda: dml_run(shrink_op, src),
        "dml hardmax": lambda: dml_run(hardmax_op, rows),
        "acl fixed point": acl_fixed,
        "acl validate": lambda: bool(acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint
                                     .validate(acl.TensorInfo(d["acc"].shape, "S32"), None,
                                               acl.TensorInfo(d["acc"].shape, "QASYMM8"))),
    }


def _hammer(calls, expected, extra=None):
    """Runs every call ROUNDS times on each of N_THREADS threads started
    together, each thread in its own order; returns the mismatches."""
    names = sorted(calls)
    barrier = threading.Barrier(N_THREADS)
    failures = []
    lock = threading.Lock()

    def worker(k):
        try:
            barrier.wait()
            for r in range(ROUNDS):
                order = names[(k + r) % len(names):] + names[:(k + r) % len(names)]
                for name in order:
                    got = calls[name]()
                    if got != expected[name]:
                        with lock:
                            failures.append(f"thread {k} round {r}: {name} differs")
                if extra is not None:
                    extra(k)
        except Exception as e:  # noqa: BLE001 (reported below, with the thread)
            with lock:
                failures.append(f"thread {k}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failures


@pytest.fixture
def pool_settings():
    """Two pool threads and a tiny grain, so that concurrent calls split over
    the pool and contend for it; restored afterwards."""
    before = simdops.get_num_threads()
    grain = _core._set_grain_bytes(4096)
    yield
    _core._set_grain_bytes(grain)
    simdops.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 2])
def test_every_public_function_from_8_threads(pool_settings, threads):
    simdops.set_num_threads(threads)
    d = _inputs()
    calls = _calls(d)
    expected = {name: call() for name, call in calls.items()}
    # the expected values are right, not only repeatable: spot checks
    # against numpy on the same shared inputs
    got = np.frombuffer(expected["clip f32"], np.float32)
    number = ~np.isnan(d["f32"])
    np.testing.assert_array_equal(got[number], np.clip(d["f32"], -1.0, 1.0)[number])
    np.testing.assert_array_equal(np.frombuffer(expected["clip i8"], np.int8),
                                  np.clip(d["i8"], -100, 90))
    rows = np.frombuffer(expected["hardmax rows"], np.float32).reshape(d["rows"].shape)
    assert (rows.argmax(axis=1) == d["rows"].argmax(axis=1)).all() and (rows.sum(axis=1) == 1).all()
    failures = _hammer(calls, expected)
    assert not failures, "\n".join(failures[:20])
    for a in d.values():
        assert not a.flags.writeable


def test_one_use_isa_object_shared_by_threads():
    """One use_isa object entered by 8 threads at once: each thread gets back
    its own tier on exit (the saved tier is per thread, not per object)."""
    lowest = simdops.available_isas()[0]
    highest = simdops.available_isas()[-1]
    shared = simdops.use_isa(lowest)
    barrier = threading.Barrier(N_THREADS)
    failures = []

    def worker(k):
        own = highest if k % 2 else lowest
        with simdops.use_isa(own):
            for _ in range(20):
                with shared:
                    # every thread is inside the shared block before any leaves
                    barrier.wait(30)
                    if simdops.isa() != lowest:
                        failures.append(f"thread {k}: inside, {simdops.isa()}")
                if simdops.isa() != own:
                    failures.append(f"thread {k}: after exit, {simdops.isa()} not {own}")
        if _core.thread_isa() is not None:
            failures.append(f"thread {k}: a forced tier left behind")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, "\n".join(failures[:20])


def test_use_isa_in_one_thread_leaves_the_others():
    lowest = simdops.available_isas()[0]
    before = simdops.isa()
    if before == lowest:
        pytest.skip("this thread already runs the lowest ISA")
    inside = threading.Event()
    release = threading.Event()

    def forcing():
        with simdops.use_isa(lowest):
            inside.set()
            release.wait(10)

    t = threading.Thread(target=forcing)
    t.start()
    try:
        assert inside.wait(10)
        assert simdops.isa() == before
        assert _core.thread_isa() is None
    finally:
        release.set()
        t.join()


@pytest.mark.skipif(not sysconfig.get_config_var("Py_GIL_DISABLED"),
                    reason="a free-threaded CPython (3.14t) only")
def test_import_keeps_the_gil_disabled():
    # a fresh interpreter: extensions the other tests build and import may
    # re-enable the GIL in this one
    code = ("import sys, simdops, simdops.dml, simdops.acl; "
            "simdops.clip(__import__('numpy').zeros(4, 'f4'), 0, 1); "
            "print(sys._is_gil_enabled())")
    # without PYTHON_GIL, which would force the GIL off whatever the module declares
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    proc = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False", proc.stdout + proc.stderr
