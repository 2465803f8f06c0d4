"""requantize_fp32's chain (float32 bias at the input or after the scale, pre_scale,
post_scale / post_divide, offset), its three ties and two precisions, float64 per-channel
scales, on drawn layouts and parameters: every tier and thread count against a reference
that performs each step as one IEEE operation on numpy scalars (float32 or float64) and
rounds the clamped value exactly (Fractions)."""
import math
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzz.layouts import Case, expect_layout_error, run_every_tier, SEEDS
import reference as ref
import simdops

INT32 = st.integers(ref.INT32_MIN, ref.INT32_MAX)
# step values: a few of the runtimes' shapes (powers of two, 1/s), and any in a range; 2^100
# and 2^-100: powers of two whose products overflow on the way (the kernels fold pre_scale and
# post_scale powers of two into one multiplier only while every step stays normal)
STEP = st.one_of(st.sampled_from((0.5, 2.0, 0.25, 1 / 0.0173, 0.0173, 57.9, -3.0, 2.0**100,
                                  2.0**-100)),
                 st.floats(min_value=-1e3, max_value=1e3, allow_nan=False).filter(
                     lambda v: v == 0 or abs(v) > 1e-30))


def _wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


def _round(v, ties, F):
    """v (a float of the working type F, already clamped): the rounded integer."""
    if ties == "add_half":
        t = F(F(v) + F(math.copysign(0.5, v)))
        return int(math.trunc(float(t)))
    x = Fraction(float(v))
    fl = math.floor(x)
    d = x - fl
    up = d > Fraction(1, 2) or (d == Fraction(1, 2) and (
        (ties == "away" and x > 0) or (ties == "even" and fl % 2)))
    return fl + 1 if up else fl


def _chain(a, fb, s, kw, zp, lo, hi, F):
    """One output: the steps of kw in the chain's order, each one IEEE operation in F."""
    with np.errstate(all="ignore"):
        v = F(a)
        if fb is not None and kw.get("bias_at", "input") == "input":
            v = F(v + F(fb))
        if "pre_scale" in kw:
            v = F(v * F(kw["pre_scale"]))
        v = F(v * s)
        if fb is not None and kw.get("bias_at") == "scaled":
            v = F(v + F(fb))
        if "post_scale" in kw:
            v = F(v * F(kw["post_scale"]))
        elif "post_divide" in kw:
            v = F(v / F(kw["post_divide"]))
        if "offset" in kw:
            v = F(v + F(kw["offset"]))
    if math.isnan(float(v)):
        return lo
    v = F(min(max(float(v), lo - zp), hi - zp))
    return _round(v, kw.get("ties", "even"), F) + zp


@given(data=st.data(), out_dtype=st.sampled_from(("uint8", "int8", "int16")),
       precision=st.sampled_from(("float32", "float64")),
       ties=st.sampled_from(("even", "away", "add_half")),
       out_mode=st.sampled_from(("none", "fresh", "alias")), vs=SEEDS)
def prop_requant_chain(data, out_dtype, precision, ties, out_mode, vs):
    case = Case(data, np.int32, out_dtype, out_mode, vs)
    if not case.shape:
        return
    channels = case.shape[-1]
    tlo, thi = ref.REQUANT_OUT[out_dtype]
    F = np.float32 if precision == "float32" else np.float64
    kw = {"precision": precision, "ties": ties}
    for name in ("pre_scale", "offset"):
        if data.draw(st.booleans(), name):
            kw[name] = data.draw(STEP, name)
    post = data.draw(st.sampled_from(("none", "post_scale", "post_divide")), "post")
    if post != "none":
        kw[post] = data.draw(STEP.filter(lambda v: v != 0), post)
    bias_kind = data.draw(st.sampled_from(("none", "int32", "float32")), "bias")
    bias = fbias = None
    if bias_kind == "int32":
        bias = np.array(data.draw(st.lists(INT32, min_size=channels, max_size=channels)),
                        np.int32)
    elif bias_kind == "float32":
        f32 = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, width=32)
        fbias = np.array(data.draw(st.lists(f32, min_size=channels, max_size=channels)),
                         np.float32)
        kw["bias_at"] = data.draw(st.sampled_from(("input", "scaled")), "bias_at")
    per_channel = data.draw(st.booleans(), "per_channel")
    if per_channel:
        wide = precision == "float64" and data.draw(st.booleans(), "float64 scales")
        fl = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, width=64 if wide else 32)
        scale = np.array(data.draw(st.lists(fl, min_size=channels, max_size=channels)),
                         np.float64 if wide else np.float32)
        s_of = lambda k: F(scale[k])  # noqa: E731  (float32 widened exactly under float64)
    else:
        scale = data.draw(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), "scale")
        s_of = lambda k: F(scale)  # noqa: E731
    zp = data.draw(st.integers(tlo, thi), "zero_point")
    lo = data.draw(st.integers(tlo, thi), "min")
    hi = data.draw(st.integers(lo, thi), "max")

    def call(x, out):
        return simdops.requantize_fp32(x, scale, zp, bias=fbias if fbias is not None else bias,
                                       min=lo, max=hi, out_dtype=out_dtype, out=out, **kw)

    def expected(x):
        if np.size(x) == 0:
            return np.zeros(np.shape(x), out_dtype)
        flat = np.asarray(x, np.int64).reshape(-1, channels)
        res = [[_chain(_wrap32(int(v) + (int(bias[k]) if bias is not None else 0)),
                       None if fbias is None else fbias[k], s_of(k), kw, zp, lo, hi, F)
                for k, v in enumerate(row)] for row in flat.tolist()]
        return np.array(res, dtype=out_dtype).reshape(np.shape(x))

    error = run_every_tier(case, call, expected)
    if error is not None:
        expect_layout_error(case, error)
