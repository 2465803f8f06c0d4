"""The requantization families on drawn layouts and parameters: every tier and
thread count against plain-Python references (exact ints and floats)."""
import math
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzz.layouts import Case, expect_layout_error, run_every_tier, SEEDS
import reference as ref
import simdops

INT32 = st.integers(ref.INT32_MIN, ref.INT32_MAX)
# the fixed-point families of rounding= beyond the default (ops_requant covers it), with
# their shift ranges: C's list
SHIFTS = {name: (lo, hi) for name, _code, lo, hi, array_api in simdops._core.roundings()
          if array_api and name != "double"}


def _wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


def _single(a, m, shift, offset, lo, hi):
    t = 31 + shift
    return min(max(((a * m + (1 << (t - 1))) >> t) + offset, lo), hi)


def _ties_up(a, m, shift, offset, lo, hi):
    left, right = max(-shift, 0), max(shift, 0)
    q = (_wrap32(a << left) * m + (1 << 30)) >> 31
    if right:
        q = (q + (1 << (right - 1))) >> right
    return min(max(_wrap32(q + offset), lo), hi)


def _single_away(a, m, shift, offset, lo, hi):
    # TVM's TONEAREST: one rounding, ties away from zero (tests/reference.py's stage)
    return min(max(ref.single_rounding_away(a, m, shift) + offset, lo), hi)


INTEGER_REFERENCES = {"single": _single, "single_away": _single_away,
                      "double_ties_up": _ties_up}


def _float(a, scale, zp, lo, hi, precision, ties):
    with np.errstate(over="ignore"):
        f = (float(np.float32(a) * np.float32(scale)) if precision == "float32"
             else float(a) * float(scale))
    if math.isinf(f):
        return hi if f > 0 else lo
    v = min(max(Fraction(f), lo - zp), hi - zp)
    fl = math.floor(v)
    d = v - fl
    up = d > Fraction(1, 2) or (d == Fraction(1, 2) and (
        (ties == "away" and v > 0) or (ties == "even" and fl % 2)))
    return fl + 1 + zp if up else fl + zp


@given(data=st.data(), out_dtype=st.sampled_from(("uint8", "int8", "int16")),
       family=st.sampled_from((*SHIFTS, "fp32", "fp64away", "fp32away")),
       out_mode=st.sampled_from(("none", "fresh", "alias")), vs=SEEDS)
def prop_requant_families(data, out_dtype, family, out_mode, vs):
    case = Case(data, np.int32, out_dtype, out_mode, vs)
    if not case.shape:
        return
    channels = case.shape[-1]
    tlo, thi = ref.REQUANT_OUT[out_dtype]
    per_channel = data.draw(st.booleans(), "per_channel")
    bias = None
    if data.draw(st.booleans(), "has_bias"):
        bias = np.array(data.draw(st.lists(INT32, min_size=channels, max_size=channels)), np.int32)
    lo = data.draw(st.integers(tlo, thi), "min")
    hi = data.draw(st.integers(lo, thi), "max")
    if family in SHIFTS:
        srange = st.integers(*SHIFTS[family])
        if per_channel:
            mult = np.array(data.draw(st.lists(INT32, min_size=channels, max_size=channels)),
                            np.int64)  # int64 vectors are taken when the values fit
            shift = np.array(data.draw(st.lists(srange, min_size=channels, max_size=channels)),
                             np.int32)
        else:
            mult, shift = data.draw(INT32, "multiplier"), data.draw(srange, "shift")
        offset = 0 if out_dtype == "int16" else data.draw(INT32, "offset")
        m_of = (lambda k: int(mult[k])) if per_channel else (lambda k: mult)
        s_of = (lambda k: int(shift[k])) if per_channel else (lambda k: shift)

        def call(x, out):
            return simdops.quantize_down_int32(x, mult, shift, offset, bias=bias, min=lo, max=hi,
                                               out_dtype=out_dtype, rounding=family, out=out)

        def one(a, k):
            # min == max: ACL's "no clamp" of quantize_down_int32
            blo, bhi = (tlo, thi) if lo == hi else (lo, hi)
            return INTEGER_REFERENCES[family](a, m_of(k), s_of(k), offset, blo, bhi)
    else:
        precision = "float64" if family == "fp64away" else "float32"
        ties = "away" if family.endswith("away") else "even"
        f32 = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, width=32)
        if per_channel:
            scale = np.array(data.draw(st.lists(f32, min_size=channels, max_size=channels)),
                             np.float32)
        else:
            scale = data.draw(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), "scale")
        zp = data.draw(st.integers(tlo, thi), "zero_point")
        sc_of = (lambda k: scale[k]) if per_channel else (
            lambda k: np.float32(scale) if precision == "float32" else scale)

        def call(x, out):
            return simdops.requantize_fp32(x, scale, zp, bias=bias, min=lo, max=hi,
                                           out_dtype=out_dtype, precision=precision, ties=ties,
                                           out=out)

        def one(a, k):
            return _float(a, sc_of(k), zp, lo, hi, precision, ties)

    def expected(x):
        if np.size(x) == 0:
            return np.zeros(np.shape(x), out_dtype)
        flat = np.asarray(x, np.int64).reshape(-1, channels)
        res = [[one(_wrap32(int(v) + (int(bias[k]) if bias is not None else 0)), k)
                for k, v in enumerate(row)] for row in flat.tolist()]
        return np.array(res, dtype=out_dtype).reshape(np.shape(x))

    error = run_every_tier(case, call, expected)
    if error is not None:
        expect_layout_error(case, error)
