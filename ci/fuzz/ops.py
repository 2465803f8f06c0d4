"""Array-op properties: each op against tests/reference.py on drawn layouts
and parameters, and big arrays where every tier and thread count agree."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzz.layouts import Case, expect_layout_error, float_param, run_every_tier, OUT_MODES, SEEDS
import reference as ref
import simdops


@given(data=st.data(), dtype=st.sampled_from(ref.CLIP_DTYPES), out_mode=OUT_MODES, vs=SEEDS)
def prop_clip(data, dtype, out_mode, vs):
    case = Case(data, dtype, dtype, out_mode, vs)
    lo = data.draw(float_param(dtype), "min")
    hi = data.draw(float_param(dtype), "max")
    kw = {}
    if np.dtype(dtype).itemsize < 8 or np.dtype(dtype).kind == "f":
        if data.draw(st.booleans(), "scale_bias"):
            finite = np.dtype(dtype).kind != "f"
            f32 = st.floats(allow_nan=False, allow_infinity=not finite, width=32)
            kw = dict(scale=data.draw(f32, "scale"), bias=data.draw(f32, "bias"))
    error = run_every_tier(
        case, lambda x, out: simdops.clip(x, lo, hi, out=out, **kw),
        lambda x: ref.clip(x, lo, hi, kw.get("scale"), kw.get("bias")))
    if error is not None:
        expect_layout_error(case, error)


@given(data=st.data(), dtype=st.sampled_from(ref.SHRINK_DTYPES), out_mode=OUT_MODES, vs=SEEDS)
def prop_shrink(data, dtype, out_mode, vs):
    case = Case(data, dtype, dtype, out_mode, vs)
    bias = data.draw(float_param(dtype), "bias")
    threshold = abs(data.draw(float_param(dtype), "threshold"))
    error = run_every_tier(case, lambda x, out: simdops.shrink(x, bias, threshold, out=out),
                           lambda x: ref.shrink(x, bias, threshold))
    if error is not None:
        expect_layout_error(case, error)


@given(data=st.data(), dtype=st.sampled_from(ref.HARDMAX_DTYPES),
       out_mode=st.sampled_from(("none", "fresh")), vs=SEEDS)
def prop_hardmax(data, dtype, out_mode, vs):
    case = Case(data, dtype, dtype, out_mode, vs)
    ndim = len(case.shape)
    if ndim == 0:
        return
    axes = data.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True),
                     "axes")
    axes = [a - ndim if data.draw(st.booleans()) else a for a in axes]
    axis = axes[0] if len(axes) == 1 and data.draw(st.booleans()) else tuple(axes)
    error = run_every_tier(case, lambda x, out: simdops.hardmax(x, axis=axis, out=out),
                           lambda x: ref.hardmax(x, axis), nan_bits_vs_ref=True)
    if error is not None:
        expect_layout_error(case, error)


INT32 = st.integers(ref.INT32_MIN, ref.INT32_MAX)


@given(data=st.data(), out_dtype=st.sampled_from(("uint8", "int8", "int16")),
       out_mode=st.sampled_from(("none", "fresh", "alias")), vs=SEEDS)
def prop_requant(data, out_dtype, out_mode, vs):
    case = Case(data, np.int32, out_dtype, out_mode, vs)
    if not case.shape:
        return
    channels = case.shape[-1]
    tlo, thi = ref.REQUANT_OUT[out_dtype]
    per_channel = data.draw(st.booleans(), "per_channel")
    if per_channel:
        mult = np.array(data.draw(st.lists(INT32, min_size=channels, max_size=channels)), np.int32)
        shift = np.array(data.draw(st.lists(st.integers(-31, 31), min_size=channels,
                                            max_size=channels)), np.int32)
        mult = mult[::-1].copy()[::-1] if data.draw(st.booleans()) else mult  # strided-free copy
    else:
        mult, shift = data.draw(INT32, "multiplier"), data.draw(st.integers(-31, 31), "shift")
    offset = 0 if out_dtype == "int16" else data.draw(INT32, "offset")
    bias = None
    if data.draw(st.booleans(), "has_bias"):
        bias = np.array(data.draw(st.lists(INT32, min_size=channels, max_size=channels)), np.int32)
    bounds = data.draw(st.sampled_from(("none", "both", "min", "max")), "bounds")
    lo = data.draw(st.integers(tlo, thi), "min")
    hi = data.draw(st.integers(lo, thi), "max")
    kw = dict(min=lo if bounds in ("both", "min") else None,
              max=hi if bounds in ("both", "max") else None)
    error = run_every_tier(
        case, lambda x, out: simdops.quantize_down_int32(
            x, mult, shift, offset, bias=bias, out_dtype=out_dtype, out=out, **kw),
        lambda x: ref.requant(x, mult, shift, offset, bias, kw["min"], kw["max"], out_dtype),
        nan_bits_vs_ref=True)
    if error is not None:
        expect_layout_error(case, error)


@given(data=st.data(), op=st.sampled_from(("clip", "shrink", "hardmax", "requant")),
       out_mode=st.sampled_from(("none", "fresh", "inplace")), vs=SEEDS)
def prop_big_tiers_agree(data, op, out_mode, vs):
    """Arrays past the intra-op threading grain and many SIMD blocks: too big
    for the Python references, so every tier and thread count must agree with
    the scalar tier on one thread, bit for bit."""
    dtypes = {"clip": ref.CLIP_DTYPES, "shrink": ref.SHRINK_DTYPES,
              "hardmax": ref.HARDMAX_DTYPES, "requant": (np.int32,)}[op]
    dtype = data.draw(st.sampled_from(dtypes), "dtype")
    out_dtype = np.uint8 if op == "requant" else dtype
    if op != "clip" and op != "shrink":  # hardmax/requant: no in-place (hardmax) or other dtype
        out_mode = "none" if out_mode == "inplace" else out_mode
    case = Case(data, dtype, out_dtype, out_mode, vs, big=True)
    if op == "clip":
        lo, hi = data.draw(float_param(dtype), "min"), data.draw(float_param(dtype), "max")
        call = lambda x, out: simdops.clip(x, lo, hi, out=out)  # noqa: E731
    elif op == "shrink":
        b, t = data.draw(float_param(dtype), "bias"), abs(data.draw(float_param(dtype), "t"))
        call = lambda x, out: simdops.shrink(x, b, t, out=out)  # noqa: E731
    elif op == "hardmax":
        if not case.shape:
            return
        axis = data.draw(st.integers(-len(case.shape), len(case.shape) - 1), "axis")
        call = lambda x, out: simdops.hardmax(x, axis=axis, out=out)  # noqa: E731
    else:
        m, sh = data.draw(INT32, "multiplier"), data.draw(st.integers(-31, 31), "shift")
        call = lambda x, out: simdops.quantize_down_int32(x, m, sh, 3, out=out)  # noqa: E731
    error = run_every_tier(case, call, None)
    if error is not None:
        expect_layout_error(case, error)


def _quantize_reference(x, scale, zp, qdtype):
    """ONNX QuantizeLinear in float64 from the float32 / float16 quotient, with
    simdops' saturation of NaN (the type's minimum) and +-inf."""
    info = np.iinfo(qdtype)
    with np.errstate(all="ignore"):
        q = (x / scale).astype(np.float64)  # numpy divides float16 by float16 in float16
    r = np.where(np.isnan(q), -np.inf, np.rint(q)) + int(zp)
    return np.clip(r, info.min, info.max).astype(qdtype)


@given(data=st.data(), xdtype=st.sampled_from((np.float32, np.float16)),
       qdtype=st.sampled_from((np.uint8, np.int8, np.uint16, np.int16)),
       out_mode=st.sampled_from(("none", "fresh")), vs=SEEDS)
def prop_quantize_linear(data, xdtype, qdtype, out_mode, vs):
    import simdops.onnx as so

    case = Case(data, xdtype, qdtype, out_mode, vs)
    scale = np.array(data.draw(st.sampled_from((0.5, 0.1, 3.0, 1e-3, -0.25, 65504.0))), xdtype)
    info = np.iinfo(qdtype)
    zp = np.array(data.draw(st.integers(int(info.min), int(info.max)), "zero_point"), qdtype)
    error = run_every_tier(case, lambda x, out: so.quantize_linear(x, scale, zp, out=out),
                           lambda x: _quantize_reference(x, scale, zp, qdtype))
    if error is not None:
        expect_layout_error(case, error)


@given(data=st.data(), qdtype=st.sampled_from((np.uint8, np.int8, np.uint16, np.int16, np.int32)),
       ydtype=st.sampled_from((np.float32, np.float16)),
       out_mode=st.sampled_from(("none", "fresh")), vs=SEEDS)
def prop_dequantize_linear(data, qdtype, ydtype, out_mode, vs):
    import simdops.onnx as so

    case = Case(data, qdtype, ydtype, out_mode, vs)
    # the scale's dtype is the output type when out is not given
    scale = np.array(data.draw(st.sampled_from((0.5, 0.1, 3.0, 1e-3, -0.25, 60000.0))), ydtype)
    zp = None if qdtype == np.int32 else np.array(
        data.draw(st.integers(int(np.iinfo(qdtype).min), int(np.iinfo(qdtype).max))), qdtype)
    z = 0 if zp is None else int(zp)
    error = run_every_tier(
        case, lambda x, out: so.dequantize_linear(x, scale, zp, out=out),
        lambda x: (((x.astype(np.int64) - z).astype(np.float32) * np.float32(scale))
                   .astype(ydtype)))
    if error is not None:
        expect_layout_error(case, error)
