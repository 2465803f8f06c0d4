"""Bench rows for simdops.ufunc (a plug-in: cases.PLUGIN_MODULES). Each ufunc call is a path
of the case whose simdops call computes the same bits, so the two alternate in the same
rounds (timing.py) and the goal rows compare like with like:

- per call, 16 elements: the ufunc's time <= 1.5x the function's (clip, shrink, hardmax,
  quantize_down_int32, requantize_fp32), the function called with the ufunc's arguments
  (the path FUNCTION, not the case's own call: see _CALLS);
- 1M elements: within 5% (time <= 1.05x);
- per-channel requant over axis 1 of NCHW (the ufunc, scale of shape (C, 1, 1), no copy)
  against the function's per-channel requant over the last axis, same element count:
  >= 0.9 of its elements/s.

make() runs both once and refuses a path whose bits differ from the case's call."""
import numpy as np

import simdops
from simdops.bench import ops, ops_requant_families as fam
from simdops.bench.cases import GOALS, Case, Path, register_case, register_path
from simdops.bench.goals import Goal, register_goal

ufunc = __import__("simdops.ufunc", fromlist=["clip"])  # ImportError on numpy < 2: skipped

M = 1_048_576
NCHW = (1, 64, 128, 128)  # 1M int32 elements, H*W = 16384 per channel plane


def _checked(case_call, ufunc_call, out):
    """ufunc_call, after checking that it writes the bits case_call writes into out."""
    case_call()
    want = out.copy()
    out[...] = 0
    ufunc_call()
    if want.tobytes() != out.tobytes():
        raise AssertionError("simdops.ufunc bench path: bits differ from the function's")
    return ufunc_call


# Each op's two calls with the same arguments, both lambdas over closure variables: (the
# function, the ufunc), or None where the case's parameters have no ufunc form. The goal rows
# at 16 elements compare these two (the FUNCTION path against the ufunc path), not the case's
# own simdops call: that one reads its parameters from a dict on every call and passes the
# requantizations' bias=None, min=, max= keywords the ufunc has no use for, ~20 ns and up to
# ~80 ns (requantize_fp32: 0.83 of its time without them) that only the function paid.
def _clip_calls(x, out, p):
    f, u, lo, hi = simdops.clip, ufunc.clip, p["min"], p["max"]
    return (lambda: f(x, lo, hi, out=out)), (lambda: u(x, lo, hi, out=out))


def _shrink_calls(x, out, p):
    f, u, b, t = simdops.shrink, ufunc.shrink, p["bias"], p["threshold"]
    return (lambda: f(x, b, t, out=out)), (lambda: u(x, b, t, out=out))


def _hardmax_calls(x, out, p):
    f, u = simdops.hardmax, ufunc.hardmax   # both over the last axis, their default
    return (lambda: f(x, out=out)), (lambda: u(x, out=out))


def _requant_calls(x, out, p):
    if p["bias"] is not None or p["min"] != p["max"]:
        return None  # the ufunc has no clamp or bias: only the unclamped calls compare
    f, u = simdops.quantize_down_int32_to_uint8, ufunc.quantize_down_int32
    m, s, off = p["multiplier"], p["shift"], p["offset"]
    return (lambda: f(x, m, s, off, out=out)), (lambda: u(x, m, s, off, out=out))


def _requant_fp32_calls(x, out, p):
    q = fam.REQUANT_FP32.fit(p, x)
    if q["bias"] is not None or (q["min"], q["max"]) != (0, 255):
        return None
    f, u, scale, off = simdops.requantize_fp32, ufunc.requantize_fp32, q["scale"], q["offset"]
    return (lambda: f(x, scale, off, out=out)), (lambda: u(x, scale, off, out=out))


def _calls_path(calls, case_call, which):
    """A path maker: call `which` (0 the function, 1 the ufunc) of calls, checked against the
    bits of the case's own call (case_call(x, out, p))."""
    def make(x, out, p):
        c = calls(x, out, p)
        return None if c is None else _checked(case_call(x, out, p), c[which], out)
    return make


_CALLS = {"clip": (_clip_calls, ops.CLIP.simdops),
          "shrink": (_shrink_calls, ops.SHRINK.simdops),
          "hardmax": (_hardmax_calls, ops.HARDMAX.simdops),
          "requant": (_requant_calls, ops.REQUANT.simdops),
          "requant_fp32": (_requant_fp32_calls, fam.REQUANT_FP32.simdops)}
_clip, _shrink, _hardmax, _requant, _requant_fp32 = (
    _calls_path(*_CALLS[k], 1) for k in ("clip", "shrink", "hardmax", "requant", "requant_fp32"))


def _requant_fp32_nchw(x, out, p):
    """The per-channel case's x and out seen as NCHW, the scale per channel on axis 1."""
    q = fam.REQUANT_FP32_PC_NOBIAS.fit(p, x)
    if q["bias"] is not None or x.size != int(np.prod(NCHW)):
        return None
    x4, out4 = x.reshape(NCHW), out.reshape(NCHW)
    scale = np.linspace(1 / 1200, 1 / 800, NCHW[1]).astype(np.float32)[:, None, None]
    off = q["offset"]
    want = np.moveaxis(simdops.requantize_fp32(np.ascontiguousarray(np.moveaxis(x4, 1, -1)),
                                               scale.ravel(), off), -1, 1)
    ufunc.requantize_fp32(x4, scale, off, out=out4)
    if want.tobytes() != out4.tobytes():
        raise AssertionError("simdops.ufunc bench path: NCHW bits differ from the function's")
    return lambda: ufunc.requantize_fp32(x4, scale, off, out=out4)


def _floor(name, args, instrument="_floor_"):
    """The path of numpy's own cost of the call: simdops._ufunc._floor_<name>, registered as
    the ufunc <name> (loops, promoter, signature), with a loop that does nothing. It leaves out
    as it is: a floor, not a result. instrument="_kernel_floor_": its loop runs the kernel over
    each run with one handle prepared once (requantize_fp32 only; not the op's bits)."""
    floor = getattr(__import__("simdops._ufunc", fromlist=["_"]), f"{instrument}{name}")

    def make(x, out, p):
        a = args(x, out, p)
        if a is None:
            return None
        x, out, params = a
        # one call per arity, as the ufunc paths are written (a *args call with out= is
        # CPython's slower tp_call, not numpy's vectorcall: it would raise the floor)
        if len(params) == 0:
            return lambda: floor(x, out=out)
        if len(params) == 2:
            p1, p2 = params
            return lambda: floor(x, p1, p2, out=out)
        p1, p2, p3 = params
        return lambda: floor(x, p1, p2, p3, out=out)
    return make


def _requant_args(x, out, p):
    if p["bias"] is not None or p["min"] != p["max"]:
        return None
    return x, out, (p["multiplier"], p["shift"], p["offset"])


def _requant_fp32_args(x, out, p):
    q = fam.REQUANT_FP32.fit(p, x)
    if q["bias"] is not None or (q["min"], q["max"]) != (0, 255):
        return None
    return x, out, (q["scale"], q["offset"])


def _nchw_args(x, out, p):
    q = fam.REQUANT_FP32_PC_NOBIAS.fit(p, x)
    if q["bias"] is not None or x.size != int(np.prod(NCHW)):
        return None
    scale = np.linspace(1 / 1200, 1 / 800, NCHW[1]).astype(np.float32)[:, None, None]
    return x.reshape(NCHW), out.reshape(NCHW), (scale, q["offset"])


UFUNC = "ufunc"
FUNCTION = "function (the ufunc's arguments)"
NCHW_PATH = "ufunc NCHW axis 1"
FLOOR = "ufunc floor (do-nothing loop)"
NCHW_FLOOR = "ufunc NCHW axis 1 floor (do-nothing loop)"
NCHW_KERNEL_FLOOR = "ufunc NCHW axis 1 floor (kernel per plane, no parameter work)"

register_case(Case(ops.SHRINK, "float32", (16,), tags=GOALS))
register_case(Case(fam.REQUANT_FP32, "int32", (16,), tags=GOALS))
for case_id, make in (("clip/float32/16", _clip), (f"clip/float32/{M}", _clip),
                      ("shrink/float32/16", _shrink), (f"shrink/float32/{M}", _shrink),
                      ("hardmax/float32/1x16", _hardmax), ("hardmax/float32/1024x1024", _hardmax),
                      ("requant/int32/16", _requant), (f"requant/int32/{M}", _requant),
                      ("requant_fp32/int32/16", _requant_fp32),
                      (f"requant_fp32/int32/{M}", _requant_fp32)):
    register_path(case_id, Path(UFUNC, make))
register_path("requant_fp32_pc/int32/4096x256", Path(NCHW_PATH, _requant_fp32_nchw))
# the baseline of the 16-element rows: the function called as the ufunc path calls the ufunc
SMALL = (("clip/float32/16", "clip"), ("shrink/float32/16", "shrink"),
         ("hardmax/float32/1x16", "hardmax"), ("requant/int32/16", "requant"),
         ("requant_fp32/int32/16", "requant_fp32"))
for case_id, key in SMALL:
    register_path(case_id, Path(FUNCTION, _calls_path(*_CALLS[key], 0)))
# shrink's floor is clip's: the same registration (three inputs, real parameters, x's types)
for case_id, name, args in (
        ("clip/float32/16", "clip", lambda x, out, p: (x, out, (p["min"], p["max"]))),
        ("shrink/float32/16", "clip", lambda x, out, p: (x, out, (p["bias"], p["threshold"]))),
        ("hardmax/float32/1x16", "hardmax", lambda x, out, p: (x, out, ())),
        ("requant/int32/16", "quantize_down_int32", _requant_args),
        ("requant_fp32/int32/16", "requantize_fp32", _requant_fp32_args)):
    register_path(case_id, Path(FLOOR, _floor(name, args)))
register_path("requant_fp32_pc/int32/4096x256",
              Path(NCHW_FLOOR, _floor("requantize_fp32", _nchw_args)))
# numpy's call plus C's validated 1-D call over the 16 elements, with no parameter read, looked
# up or prepared: what the loop's own work (the memo of prepared parameters) adds is the ufunc
# row less this one
KERNEL_FLOOR = "ufunc floor (1-D kernel call, no parameter work)"
register_path("requant_fp32/int32/16",
              Path(KERNEL_FLOOR, _floor("requantize_fp32", _requant_fp32_args, "_kernel_floor_")))
register_path("requant_fp32_pc/int32/4096x256",
              Path(NCHW_KERNEL_FLOOR, _floor("requantize_fp32", _nchw_args, "_kernel_floor_")))

for case_id, what in (("clip/float32/16", "clip float32 n=16"),
                      ("shrink/float32/16", "shrink float32 n=16"),
                      ("hardmax/float32/1x16", "hardmax float32 1x16"),
                      ("requant/int32/16", "quantize_down_int32 n=16"),
                      ("requant_fp32/int32/16", "requantize_fp32 n=16")):
    register_goal(Goal(f"ufunc {what} with out=, time vs the function's",
                       (case_id, UFUNC), (case_id, FUNCTION), 1.5, "time",
                       "the function called with the ufunc's arguments; floor: numpy's call of "
                       "the same registration with a do-nothing loop",
                       floor=(case_id, FLOOR)))
for case_id, what in ((f"clip/float32/{M}", "clip float32"),
                      (f"shrink/float32/{M}", "shrink float32"),
                      ("hardmax/float32/1024x1024", "hardmax float32 1024x1024"),
                      (f"requant/int32/{M}", "quantize_down_int32"),
                      (f"requant_fp32/int32/{M}", "requantize_fp32")):
    register_goal(Goal(f"ufunc {what} 1M elements, time vs the function's",
                       (case_id, UFUNC), (case_id, "simdops"), 1.05, "time"))
register_goal(Goal("ufunc requantize_fp32 n=16: numpy's call of the same registration running "
                   "the 1-D kernel with no parameter work, time vs the function's",
                   ("requant_fp32/int32/16", KERNEL_FLOOR), ("requant_fp32/int32/16", FUNCTION),
                   None, "time", "a report: the n=16 row less its loop's own work"))
# The NCHW row's floor is numpy's iteration with the kernel run per plane (64 calls of 16,384
# elements through the 1-D entry, one handle prepared once, no parameter read): numpy calls a
# loop once per plane, so no loop makes fewer kernel calls, and this one does no parameter work.
# numpy's iteration alone plus the function's time (the report row after it) left out what 64
# kernel calls between numpy's steps cost over one call of 1M (docs/performance.md).
register_goal(Goal("ufunc requantize_fp32 per channel on axis 1 of NCHW 1x64x128x128 vs the "
                   "function per channel on the last axis, 4096x256 (elements/s)",
                   ("requant_fp32_pc/int32/4096x256", NCHW_PATH),
                   ("requant_fp32_pc/int32/4096x256", "simdops"), 0.9,
                   source="floor: numpy's iteration of the 64 planes with the kernel run per "
                          "plane and no parameter work (_kernel_floor_requantize_fp32)",
                   floor=("requant_fp32_pc/int32/4096x256", NCHW_KERNEL_FLOOR),
                   floor_works=True))
register_goal(Goal("ufunc NCHW axis 1: numpy's iteration alone (do-nothing loop) plus the "
                   "function's time, as a floor (elements/s)",
                   ("requant_fp32_pc/int32/4096x256", NCHW_PATH),
                   ("requant_fp32_pc/int32/4096x256", "simdops"), None,
                   source="a report: the floor without the per-plane kernel calls",
                   floor=("requant_fp32_pc/int32/4096x256", NCHW_FLOOR)))

# The same 16-element calls with the parameters as 0-d arrays (a layer's stored scale and
# zero point): numpy converts each Python-scalar parameter into a 0-d array on every call
# (~150 ns each, most of the floor); an array parameter is used as it is. A report: the goal
# rows above keep the Python scalars the function is called with.
ZERO_D = "ufunc (0-d array parameters)"


def _zero_d(make_args, call):
    """A path calling the ufunc with make_args' parameters as 0-d arrays of their own
    type (numpy's: float64, int64), checked against the function's bits."""
    def make(x, out, p):
        a = make_args(x, out, p)
        if a is None:
            return None
        x, out, params, case_call = a
        params = tuple(np.asarray(v) for v in params)
        if len(params) == 2:
            p1, p2 = params
            return _checked(case_call, lambda: call(x, p1, p2, out=out), out)
        p1, p2, p3 = params
        return _checked(case_call, lambda: call(x, p1, p2, p3, out=out), out)
    return make


def _fp32_zero_d_args(x, out, p):
    a = _requant_fp32_args(x, out, p)
    return None if a is None else (*a, fam.REQUANT_FP32.simdops(x, out, p))


def _requant_zero_d_args(x, out, p):
    a = _requant_args(x, out, p)
    return None if a is None else (*a, ops.REQUANT.simdops(x, out, p))


for case_id, what, make in (
        ("clip/float32/16", "clip float32 n=16",
         _zero_d(lambda x, out, p: (x, out, (p["min"], p["max"]), ops.CLIP.simdops(x, out, p)),
                 ufunc.clip)),
        ("shrink/float32/16", "shrink float32 n=16",
         _zero_d(lambda x, out, p: (x, out, (p["bias"], p["threshold"]),
                                    ops.SHRINK.simdops(x, out, p)), ufunc.shrink)),
        ("requant/int32/16", "quantize_down_int32 n=16",
         _zero_d(_requant_zero_d_args, ufunc.quantize_down_int32)),
        ("requant_fp32/int32/16", "requantize_fp32 n=16",
         _zero_d(_fp32_zero_d_args, ufunc.requantize_fp32))):
    register_path(case_id, Path(ZERO_D, make))
    register_goal(Goal(f"ufunc {what} with out= and 0-d array parameters, time vs the "
                       "function's", (case_id, ZERO_D), (case_id, FUNCTION), None, "time",
                       "a report: numpy converts Python-scalar parameters on every call"))

# numpy's own per-call floor: a numpy ufunc (np.add with a Python float and out=) on the same
# 16 elements, timed in the same rounds; no simdops ufunc can cost less than numpy's call
NP_ADD = "np.add (numpy's ufunc call)"


def _np_add(x, out, p):
    add = np.add
    return lambda: add(x, 0.5, out=out)


register_path("clip/float32/16", Path(NP_ADD, _np_add))
register_goal(Goal("np.add float32 n=16 with out= (numpy's per-call floor), time vs simdops.clip",
                   ("clip/float32/16", NP_ADD), ("clip/float32/16", FUNCTION), None, "time"))
