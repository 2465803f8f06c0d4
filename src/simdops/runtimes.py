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

# OpenVINO's CPU plugin uses channel 0's shift for every channel when the channels'
# shifts agree within this (its FakeQuantize-into-convolution fusing)
OPENVINO_SHIFT_TOLERANCE = 5e-5

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
                               output_high, levels=256):
    """OpenVINO's CPU plugin (int8 FullyConnected / Convolution, its low-precision
    transformations, then the FakeQuantize of the output fused into the kernel):
    ``sat(RNE(f32(f32(acc) * m[n]) + b)) + output_low``.

    From the layer's dequantization scales and the output FakeQuantize's ranges, in
    float32: ``S[n] = s_a * s_w[n]``, ``il' = il / S[n]``, ``ih' = ih / S[n]``,
    ``m[n] = (levels - 1) / (ih' - il')``, ``b[n] = -il' * (levels - 1) / (ih' - il')``
    (left to right, each operation rounded, as fake_quantize.cpp's input scale and
    shift). The kernel adds one shift for every channel: channel 0's, when every
    channel's lies within ``OPENVINO_SHIFT_TOLERANCE`` of it; otherwise ValueError
    (OpenVINO keeps a per-channel shift then, which this call does not take).

    Returns the keywords of ``requantize_fp32``: ``scale`` (m, float32 per channel, or a
    float per tensor), ``offset`` (b), ``zero_point`` / ``min`` (output_low), ``max``
    (output_high) and ``out_dtype``; output_high - output_low must be levels - 1 (an
    integer output grid).
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
    lv = np.float32(levels - 1)
    with np.errstate(all="raise"):
        S = s_a * s_w
        il_n = il / S
        ih_n = ih / S
        span = ih_n - il_n
        m = lv / span
        b = (-il_n * lv) / span
    if (np.abs(b - b[0]) > OPENVINO_SHIFT_TOLERANCE).any():
        raise ValueError("the channels' shifts differ by more than "
                         f"{OPENVINO_SHIFT_TOLERANCE}: OpenVINO keeps them per channel")
    lo, hi = int(ol), int(oh)
    out_dtype = "uint8" if lo >= 0 and hi <= 255 else "int8" if -128 <= lo and hi <= 127 \
        else "int16"
    return {"scale": _per(m, per_channel), "offset": float(b[0]), "zero_point": lo,
            "min": lo, "max": hi, "out_dtype": out_dtype}


_ONEDNN_KERNELS = ("brgemm", "gemm")


def _onednn_kernel(kernel):
    if kernel not in _ONEDNN_KERNELS:
        raise ValueError(f"kernel must be 'brgemm' or 'gemm', got {kernel!r}")
    return kernel


def onednn_requant_params(input_scale, weight_scale, output_scale, zero_point=0, *,
                          reference=False, out_dtype="int8", kernel="brgemm"):
    """oneDNN's int8 matmul / convolution with float scales (PyTorch's x86 int8 path:
    ``X86InductorQuantizer`` + ``torch.compile`` -> ``onednn.qlinear_pointwise``):
    ``sat(RNE(f32(f32(f32(f32(acc) * s_a) * s_w[n]) * f32(1 / s_o)) + zp))``; its JIT
    kernels multiply by the output scale's float32 reciprocal, ``reference=True`` gives
    ``ref_matmul_int8``'s division by it instead. The output zero point is added in
    float32 **before** rounding (measured against torch: adding it after rounding
    differs on a tie with an odd zero point, ``-51.5 + 115`` rounds to 64, not 63), so
    it comes back as ``offset`` with ``zero_point = 0``.

    ``kernel`` is the oneDNN matmul that runs (``ONEDNN_VERBOSE=1`` names it):
    ``"brgemm"`` (``brg_matmul``, CPUs with AVX-512: two multiplies, s_a then s_w[n])
    or ``"gemm"`` (``gemm:jit``, AVX2 CPUs, with or without AVX-VNNI: one combined
    scale ``f32(s_a * s_w[n])``, then the same bias, reciprocal and zero point steps).

    Returns ``pre_scale`` (s_a; absent for ``"gemm"``), ``scale`` (s_w, or the combined
    scale), ``post_scale`` (f32(1/s_o)) or ``post_divide`` (s_o), ``offset`` (zp,
    float), ``zero_point`` (0) and ``out_dtype``. A float32 bias (oneDNN adds it to the
    dequantized accumulator, unfused) goes in as ``bias=`` with ``bias_at="scaled"``.
    """
    s_a = _f32_scalar(input_scale, "input_scale")
    s_w, per_channel = _f32_vector(weight_scale, "weight_scale")
    s_o = _f32_scalar(output_scale, "output_scale")
    if s_o == 0:
        raise ValueError("output_scale must be nonzero")
    name, _ = _int_range(out_dtype)
    _, (lo, hi) = _int_range(out_dtype)
    if isinstance(zero_point, (bool, np.bool_)) or not isinstance(zero_point, (
            int, np.integer)) or not lo <= zero_point <= hi:
        raise ValueError(f"zero_point must be an integer in [{lo}, {hi}], got {zero_point!r}")
    if _onednn_kernel(kernel) == "gemm":
        with np.errstate(all="raise"):
            params = {"scale": _per(s_a * s_w, per_channel)}
    else:
        params = {"pre_scale": float(s_a), "scale": _per(s_w, per_channel)}
    params.update(offset=float(zero_point), zero_point=0, out_dtype=name)
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


def onednn_float_output(acc, input_scale, weight_scale, bias=None, *, kernel="brgemm"):
    """oneDNN's int8 matmul with a float32 output (PyTorch's x86 int8 path, float out):
    ``f32(f32(acc) * s_a) * s_w[n]`` (+ ``bias[n]``, float32), two multiplies where one
    combined scale differs in a third of outputs; ``kernel="gemm"`` (AVX2 CPUs, see
    ``onednn_requant_params``) multiplies by the combined ``f32(s_a * s_w[n])``.
    acc: int32 array, channels last."""
    a = np.asarray(acc)
    if a.dtype != np.int32:
        raise TypeError(f"acc must be int32, got {a.dtype}")
    s_a = _f32_scalar(input_scale, "input_scale")
    s_w, _ = _f32_vector(weight_scale, "weight_scale")
    if _onednn_kernel(kernel) == "gemm":
        v = a.astype(np.float32) * (s_a * s_w)
    else:
        v = (a.astype(np.float32) * s_a) * s_w
    if bias is not None:
        v = v + np.asarray(bias, np.float32)
    return v.astype(np.float32)


def fake_quantize(x, input_low, input_high, output_low, output_high, levels, *, ties="even"):
    """OpenVINO's FakeQuantize as its CPU plugin runs it (fake_quantize.cpp's JIT
    kernel), float32 in and out, the ranges broadcast against x as numpy does::

        isc = (levels - 1) / (ih - il);  ish = -il * (levels - 1) / (ih - il)
        osc = (oh - ol) / (levels - 1);  osh = ol
        y = RNE(f32(clamp(x, il, ih) * isc) + ish) * osc + osh

    each operation rounded to float32, left to right, never fused; a NaN x clamps to il
    (the kernel's max(x, il) keeps il), so it gives output_low. ``ties="away"`` is the
    plugin's reference path (``roundf``: the non-x86 / non-JIT one)."""
    if ties not in ("even", "away"):
        raise ValueError(f"ties must be 'even' or 'away', got {ties!r}")
    xf = np.asarray(x, np.float32)
    il, ih, ol, oh = (np.asarray(v, np.float32) for v in
                      (input_low, input_high, output_low, output_high))
    if not isinstance(levels, (int, np.integer)) or levels < 2:
        raise ValueError(f"levels must be an integer >= 2, got {levels!r}")
    lv = np.float32(levels - 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        isc = lv / (ih - il)
        ish = (-il * lv) / (ih - il)
        osc = (oh - ol) / lv
        v = np.where(np.isnan(xf), il, np.minimum(np.maximum(xf, il), ih))
        v = (v * isc).astype(np.float32) + ish
        if ties == "even":
            r = np.rint(v)
        else:  # roundf: half away from zero, exact in double (|v| + 0.5 is)
            v64 = v.astype(np.float64)
            r = np.copysign(np.floor(np.abs(v64) + 0.5), v64)
        y = (r.astype(np.float32) * osc).astype(np.float32) + ol
    return np.asarray(y, np.float32)


def openvino_quantize_linear_params(scale, zero_point=0, dtype="uint8"):
    """The FakeQuantize that OpenVINO's ONNX frontend writes for a per-tensor
    ``QuantizeLinear`` (quantize_linear.cpp): ``input_low = f32(scale * f32(qmin -
    zp))``, ``input_high = f32(scale * f32(qmax - zp))``, ``output_low = qmin``,
    ``output_high = qmax``, ``levels = 2**bits``, then a Convert to the integer type.
    Returns those five as a dict (the keywords of ``fake_quantize``)."""
    name = np.dtype(dtype).name
    if name not in ("uint8", "int8", "uint16", "int16"):
        raise TypeError(f"dtype must be uint8, int8, uint16 or int16, got {name}")
    qmin, qmax = _INT_TYPES[name]
    s = _f32_scalar(scale, "scale")
    zp = np.float32(int(zero_point))
    if not qmin <= int(zero_point) <= qmax:
        raise ValueError(f"zero_point = {zero_point} is outside [{qmin}, {qmax}]")
    return {"input_low": s * (np.float32(qmin) - zp), "input_high": s * (np.float32(qmax) - zp),
            "output_low": np.float32(qmin), "output_high": np.float32(qmax),
            "levels": 1 << (8 * np.dtype(name).itemsize)}


def openvino_quantize_linear(x, scale, zero_point=0, dtype="uint8"):
    """An ONNX QuantizeLinear as OpenVINO runs it (``core.read_model`` of the ONNX
    model): ``fake_quantize`` with ``openvino_quantize_linear_params``, converted to
    the integer type. Differs from ONNX's ``saturate(round(x / scale) + zp)`` near
    ties: it multiplies by ``(levels - 1) / (ih - il)`` instead of dividing."""
    p = openvino_quantize_linear_params(scale, zero_point, dtype)
    return fake_quantize(x, **p).astype(np.dtype(dtype))


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
