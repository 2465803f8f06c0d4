"""The parameters of each runtime's requantization, derived from a model's own numbers
the way the runtime derives them, and the runtimes' float-to-float and float-to-int
steps that are not requantizations of int32 accumulators.

Each ``*_params`` function returns the keyword arguments of ``simdops.requantize_fp32``
(``simdops.requantize_fp32(acc, **params)``); docs/requantization.md has the table of
which runtime takes which call. float32 arithmetic here is numpy's on float32 scalars
and arrays: one IEEE rounding per operation, never fused, as the runtimes' C++ (each
function says which operations, in which order).

``fake_quantize``, ``onednn_float_output`` and ``executorch_quantize_per_tensor`` are
elementwise numpy float32 arithmetic (exact, not simdops C kernels).
"""
import numbers

import numpy as np

__all__ = [
    "openvino_fq_requant_params", "onednn_requant_params", "fbgemm_float_bias_params",
    "litert_fc_params", "onednn_float_output", "fake_quantize",
    "openvino_quantize_linear_params", "openvino_quantize_linear",
    "executorch_quantize_per_tensor",
]

_INT_TYPES = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
              "uint16": (0, 65535)}


def _f32_scalar(v, name):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.floating,
                                                              np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(v).__name__}")
    f = np.float32(v)
    if not np.isfinite(f):
        raise ValueError(f"{name} = {v!r} is not finite as a float32")
    return f


def _f32_vector(v, name):
    """A scale given per tensor (a number) or per channel (1-D): float32, and whether
    it was per channel."""
    if isinstance(v, (numbers.Real, np.floating, np.integer)) and not isinstance(
            v, (bool, np.bool_)):
        return np.array([_f32_scalar(v, name)], np.float32), False
    a = np.asarray(v)
    if a.ndim != 1 or a.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be a real number or a 1-D array of them")
    a = a.astype(np.float32)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} has values that are not finite as float32")
    return a, True


def _per(vec, per_channel):
    """The scale keyword: a float32 array per channel, else the one value as a float
    (a Python float holding a float32 value: C rounds it to itself)."""
    return vec if per_channel else float(vec[0])


def _int_range(out_dtype):
    name = np.dtype(out_dtype).name
    if name not in ("uint8", "int8", "int16"):
        raise TypeError(f"out_dtype must be uint8, int8 or int16, got {name}")
    return name, _INT_TYPES[name]


def openvino_fq_requant_params(input_scale, weight_scale, input_low, input_high, output_low,
                               output_high, levels=256, *, bias=None):
    """OpenVINO's CPU plugin (int8 FullyConnected / Convolution, its low-precision
    transformations, then the FakeQuantize of the output fused into the kernel):
    ``sat(RNE(f32(f32(acc) * m[n]) + shift[n])) + output_low``.

    From the layer's dequantization scales and the output FakeQuantize's ranges, in
    float32: ``S[n] = s_a * s_w[n]``, ``il' = il / S[n]``, ``ih' = ih / S[n]``,
    ``m[n] = (levels - 1) / (ih' - il')``, ``b[n] = -il' * (levels - 1) / (ih' - il')``
    (left to right, each operation rounded, as fake_quantize.cpp's input scale and
    shift). Each channel keeps its own shift. A float bias of the layer (the ``Add``
    between the MatMul / Convolution and the FakeQuantize) is folded into the shift:
    ``shift[n] = b[n] + f32(f32(bias[n] / S[n]) * m[n])``.

    Returns the keywords of ``requantize_fp32``: ``scale`` (m, float32 per channel, or a
    float per tensor); the shift as ``bias`` (float32 per channel) with
    ``bias_at="scaled"`` (the float32 add right after the multiply by ``scale``: the
    same arithmetic), or as ``offset`` (a float) for a per-tensor layer without bias;
    ``zero_point`` / ``min`` (output_low), ``max`` (output_high) and ``out_dtype``.
    output_high - output_low must be levels - 1 (an integer output grid). bias: 1-D,
    one value per output channel (its length gives the channel count of a per-tensor
    layer).
    """
    s_a = _f32_scalar(input_scale, "input_scale")
    s_w, per_channel = _f32_vector(weight_scale, "weight_scale")
    il = _f32_scalar(input_low, "input_low")
    ih = _f32_scalar(input_high, "input_high")
    ol = _f32_scalar(output_low, "output_low")
    oh = _f32_scalar(output_high, "output_high")
    if not isinstance(levels, (int, np.integer)) or levels < 2:
        raise ValueError(f"levels must be an integer >= 2, got {levels!r}")
    if ol != np.round(ol) or oh - ol != levels - 1:
        raise ValueError(f"output_low = {ol}, output_high = {oh}: the output grid must be "
                         f"the integers from output_low, levels - 1 = {levels - 1} wide")
    fb = None
    if bias is not None:
        if np.ndim(bias) != 1:
            raise ValueError("bias must be a 1-D array of real numbers (one per channel)")
        fb, _ = _f32_vector(np.asarray(bias), "bias")
        if per_channel and fb.shape != s_w.shape:
            raise ValueError(f"bias has {fb.shape[0]} values, weight_scale {s_w.shape[0]}")
    lv = np.float32(levels - 1)
    with np.errstate(all="raise"):
        S = s_a * s_w
        il_n = il / S
        ih_n = ih / S
        span = ih_n - il_n
        m = lv / span
        b = (-il_n * lv) / span
        if fb is not None:  # per tensor, S, m and b broadcast to the bias's channels
            b = b + (fb / S) * m
    lo, hi = int(ol), int(oh)
    out_dtype = "uint8" if lo >= 0 and hi <= 255 else "int8" if -128 <= lo and hi <= 127 \
        else "int16"
    params = {"scale": _per(m, per_channel), "zero_point": lo, "min": lo, "max": hi,
              "out_dtype": out_dtype}
    if per_channel or fb is not None:
        params.update(bias=np.ascontiguousarray(b, np.float32), bias_at="scaled")
    else:
        params["offset"] = float(b[0])
    return params


def onednn_requant_params(input_scale, weight_scale, output_scale, zero_point=0, *,
                          reference=False, out_dtype="int8"):
    """oneDNN's int8 matmul / convolution with float scales (PyTorch's x86 int8 path:
    ``X86InductorQuantizer`` + ``torch.compile`` -> ``onednn.qlinear_pointwise``):
    ``RNE(f32(f32(f32(acc) * s_a) * s_w[n]) * f32(1 / s_o)) + zp``; its JIT kernels
    multiply by the output scale's float32 reciprocal, ``reference=True`` gives
    ``ref_matmul_int8``'s division by it instead.

    Returns ``pre_scale`` (s_a), ``scale`` (s_w), ``post_scale`` (f32(1/s_o)) or
    ``post_divide`` (s_o), ``zero_point`` and ``out_dtype``. A float32 bias (oneDNN adds
    it to the dequantized accumulator) goes in as ``bias=`` with ``bias_at="scaled"``.
    """
    s_a = _f32_scalar(input_scale, "input_scale")
    s_w, per_channel = _f32_vector(weight_scale, "weight_scale")
    s_o = _f32_scalar(output_scale, "output_scale")
    if s_o == 0:
        raise ValueError("output_scale must be nonzero")
    name, _ = _int_range(out_dtype)
    params = {"pre_scale": float(s_a), "scale": _per(s_w, per_channel),
              "zero_point": int(zero_point), "out_dtype": name}
    if reference:
        params["post_divide"] = float(s_o)
    else:
        with np.errstate(all="raise"):
            params["post_scale"] = float(np.float32(1) / s_o)
    return params


def fbgemm_float_bias_params(bias, input_scale, weight_scale, output_scale, zero_point=0, *,
                             out_dtype="uint8"):
    """fbgemm with a float bias (PyTorch's eager ``quantized.Linear``, whose bias is
    float): ``RNE(f32(f32(acc) + f32(bias[n] / S[n])) * M[n]) + zp``, with
    ``S[n] = f32(s_a * s_w[n])`` and ``M[n] = f32(S[n] / s_o)`` (QuantUtils.h's
    requantizeOutputProcessing: the bias divided by act_times_w_scale, added to the
    float accumulator unrounded).

    Returns ``bias`` (float32, the divided bias), ``scale`` (M), ``zero_point`` and
    ``out_dtype``.
    """
    s_a = _f32_scalar(input_scale, "input_scale")
    s_w, per_channel = _f32_vector(weight_scale, "weight_scale")
    s_o = _f32_scalar(output_scale, "output_scale")
    b = np.asarray(bias)
    if b.ndim != 1 or b.dtype.kind not in "fiu":
        raise ValueError("bias must be a 1-D array of real numbers")
    b = b.astype(np.float32)
    name, _ = _int_range(out_dtype)
    with np.errstate(all="raise"):
        S = s_a * s_w
        M = S / s_o
        fb = b / S  # per tensor: S broadcasts
    return {"bias": fb.astype(np.float32), "scale": _per(M, per_channel),
            "zero_point": int(zero_point), "out_dtype": name}


def litert_fc_params(input_scale, weight_scale, output_scale, zero_point=0, *,
                     out_dtype="int8"):
    """LiteRT's builtin reference FULLY_CONNECTED, per tensor or per channel (TF's
    converter emits per-channel Dense layers): ``round_half_away(double(acc) *
    scale[n]) + zp`` with ``scale[n] = double(s_in) * double(s_w[n]) / double(s_out)``
    in double (the float32 scales of the model widened first).

    Returns ``scale`` (float64 per channel, or a float), ``precision="float64"``,
    ``ties="away"``, ``zero_point`` and ``out_dtype``.
    """
    s_in = float(_f32_scalar(input_scale, "input_scale"))
    s_w, per_channel = _f32_vector(weight_scale, "weight_scale")
    s_out = float(_f32_scalar(output_scale, "output_scale"))
    name, _ = _int_range(out_dtype)
    scale = s_in * s_w.astype(np.float64) / s_out
    return {"scale": scale if per_channel else float(scale[0]), "precision": "float64",
            "ties": "away", "zero_point": int(zero_point), "out_dtype": name}


def onednn_float_output(acc, input_scale, weight_scale, bias=None):
    """oneDNN's int8 matmul with a float32 output (PyTorch's x86 int8 path, float out):
    ``f32(f32(acc) * s_a) * s_w[n]`` (+ ``bias[n]``, float32), two multiplies where one
    combined scale differs in a third of outputs. acc: int32 array, channels last."""
    a = np.asarray(acc)
    if a.dtype != np.int32:
        raise TypeError(f"acc must be int32, got {a.dtype}")
    s_a = _f32_scalar(input_scale, "input_scale")
    s_w, _ = _f32_vector(weight_scale, "weight_scale")
    v = (a.astype(np.float32) * s_a) * s_w
    if bias is not None:
        v = v + np.asarray(bias, np.float32)
    return v.astype(np.float32)


def _fma32(a, b, c):
    """float32 fma(a, b, c) of float32 arrays, rounded once (as VFMADD): the product is
    exact in float64, the sum rounded to odd in float64 (TwoSum's error decides the
    last bit), then rounded to float32 once (53 >= 24 + 2 bits: no double rounding)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    s = p + c64
    bb = s - p
    err = (p - (s - bb)) + (c64 - bb)
    odd = (s.view(np.int64) & 1) == 1
    fix = (err != 0) & ~odd & np.isfinite(s)
    s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)


def fake_quantize(x, input_low, input_high, output_low, output_high, levels, *,
                  path="subgraph"):
    """OpenVINO's FakeQuantize as its x86 CPU plugin runs it, float32 in and out, the
    ranges broadcast against x as numpy does. ``path="subgraph"`` (the default plugin
    configuration: the node becomes a snippets Subgraph, snippets' FakeQuantize
    decomposition)::

        isc = f32(levels - 1) / (ih - il)
        q = RNE(f32(clamp(x, il, ih) * isc) - f32(il * isc))
        y = fma(q, osc, ol),  osc = (oh - ol) / f32(levels - 1)

    each operation rounded to float32, the last one fused (one rounding). A NaN x
    clamps to il (output_low's value). ``path="node"`` (``SNIPPETS_MODE=DISABLE``: the
    FakeQuantize node's JIT kernel, fake_quantize.cpp)::

        ish = f32(-il * f32(levels - 1)) / (ih - il)
        q = RNE(fma(clamp(x, il, ih), isc, ish));  y = fma(q, osc, ol)

    and a NaN x clamps to ih. Both measured with 0 differences (tests/
    test_runtime_openvino_fq.py). Not modelled: with its low-precision transformations
    on (the default), OpenVINO splits a FakeQuantize of 15, 16, 255 or 256 levels into a
    quantizing FakeQuantize and a dequantization for some ranges
    (``LP_TRANSFORMS_MODE=False`` keeps the formula above; docs/requantization.md)."""
    if path not in ("subgraph", "node"):
        raise ValueError(f"path must be 'subgraph' or 'node', got {path!r}")
    xf = np.asarray(x, np.float32)
    il, ih, ol, oh = (np.asarray(v, np.float32) for v in
                      (input_low, input_high, output_low, output_high))
    if not isinstance(levels, (int, np.integer)) or levels < 3:
        raise ValueError(f"levels must be an integer >= 3, got {levels!r}")
    lv = np.float32(levels - 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        span = ih - il
        isc = lv / span
        c = np.minimum(np.maximum(xf, il), ih)  # numpy propagates NaN: replaced below
        if path == "subgraph":
            c = np.where(np.isnan(xf), il, c)
            q = np.rint((c * isc).astype(np.float32) - (il * isc).astype(np.float32))
        else:
            c = np.where(np.isnan(xf), ih, c)
            ish = (-il * lv).astype(np.float32) / span
            q = np.rint(_fma32(c, np.broadcast_to(isc, c.shape),
                               np.broadcast_to(ish, c.shape)))
        osc = (oh - ol) / lv
        q = q.astype(np.float32)
        y = _fma32(q, np.broadcast_to(osc, q.shape), np.broadcast_to(ol, q.shape))
    return np.asarray(y, np.float32)


def openvino_quantize_linear_params(scale, zero_point=0, dtype="uint8"):
    """The FakeQuantize that OpenVINO's ONNX frontend writes for a per-tensor
    ``QuantizeLinear`` (quantize_linear.cpp): ``input_low = f32(scale * f32(qmin -
    zp))``, ``input_high = f32(scale * f32(qmax - zp))``, ``output_low = qmin``,
    ``output_high = qmax``, ``levels = 256``, then a Convert to the integer type.
    Returns those five as a dict (the keywords of ``fake_quantize``)."""
    name = np.dtype(dtype).name
    if name not in ("uint8", "int8"):
        raise TypeError(f"dtype must be uint8 or int8, got {name}")
    qmin, qmax = _INT_TYPES[name]
    s = _f32_scalar(scale, "scale")
    zp = np.float32(int(zero_point))
    if not qmin <= int(zero_point) <= qmax:
        raise ValueError(f"zero_point = {zero_point} is outside [{qmin}, {qmax}]")
    return {"input_low": s * (np.float32(qmin) - zp), "input_high": s * (np.float32(qmax) - zp),
            "output_low": np.float32(qmin), "output_high": np.float32(qmax), "levels": 256}


def openvino_quantize_linear(x, scale, zero_point=0, dtype="uint8"):
    """An ONNX QuantizeLinear (per tensor, uint8 or int8) as OpenVINO's x86 CPU plugin
    runs it (``core.read_model`` of the ONNX model): the FakeQuantize of
    ``openvino_quantize_linear_params``, run by snippets with an integer output::

        isc = f32(255) / (ih - il)
        q = RNE(f32(clamp(x, il, ih) * isc) - f32(il * isc)) + qmin

    except where snippets' FakeQuantize decomposition sees a plain scale (int8 with
    ``|il * isc + 128|`` and ``|ih * isc - 127|`` within 1e-4: zero point 0; uint8
    with il = 0): ``q = RNE(f32(clamp(x, il, ih) * isc))``. NaN gives qmin. Differs
    from ONNX's ``saturate(round(x / scale) + zp)`` near ties: it multiplies by
    ``255 / (ih - il)`` instead of dividing by the scale (docs/requantization.md)."""
    p = openvino_quantize_linear_params(scale, zero_point, dtype)
    name = np.dtype(dtype).name
    il, ih = p["input_low"], p["input_high"]
    xf = np.asarray(x, np.float32)
    isc = np.float32(255) / (ih - il)
    c = np.where(np.isnan(xf), il, np.minimum(np.maximum(xf, il), ih))
    scaled = (c * isc).astype(np.float32)
    plain = (il == 0) if name == "uint8" else (
        abs(float(np.float32(il * isc)) + 128) < 1e-4 and
        abs(float(np.float32(ih * isc)) - 127) <= 1e-4)
    if plain:
        q = np.rint(scaled)
    else:
        q = np.rint(scaled - np.float32(il * isc)) + p["output_low"]
    return np.clip(q, p["output_low"], p["output_high"]).astype(np.dtype(name))


def executorch_quantize_per_tensor(x, scale, zero_point, quant_min, quant_max, dtype="uint8"):
    """ExecuTorch's portable ``quantized_decomposed::quantize_per_tensor``
    (kernels/quantized/cpu/op_quantize.cpp): ``clamp(zp + nearbyint(f32(x *
    f32(1 / f32(scale)))), quant_min, quant_max)``: the float32 reciprocal of the
    scale, a multiply where ONNX divides, rounded half to even. The sum converts to
    int64 as x86 does: a NaN or a value beyond int64 (inf included) becomes INT64_MIN,
    hence quant_min (whatever its sign)."""
    name = np.dtype(dtype).name
    if name not in _INT_TYPES:
        raise TypeError(f"dtype must be uint8, int8, uint16 or int16, got {name}")
    lo, hi = _INT_TYPES[name]
    if not lo <= quant_min <= quant_max <= hi:
        raise ValueError(f"need {lo} <= quant_min <= quant_max <= {hi}")
    s = _f32_scalar(scale, "scale")
    xf = np.asarray(x, np.float32)
    with np.errstate(divide="raise", over="ignore", invalid="ignore"):
        inv = np.float32(1) / s
        v = np.rint(xf * inv)
    v = v.astype(np.float64) + int(zero_point)  # exact: the float32 sum differs only past
    # 2**24, where both clamp
    v = np.where(np.isnan(v) | (v >= 2.0**63) | (v < -2.0**63), quant_min, v)
    q = np.clip(v, quant_min, quant_max)
    return q.astype(np.dtype(name))
