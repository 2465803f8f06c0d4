"""The parameters of each runtime's requantization, derived from a model's own numbers
the way the runtime derives them, and the runtimes' float-to-float and float-to-int
steps that are not requantizations of int32 accumulators.

Each ``*_params`` function returns the keyword arguments of ``simdops.requantize_fp32``
(``simdops.requantize_fp32(acc, **params)``); docs/requantization.md has the table of
which runtime takes which call. float32 arithmetic here is numpy's on float32 scalars
and arrays: one IEEE rounding per operation, never fused, as the runtimes' C++ (each
function says which operations, in which order).

``fake_quantize``, ``onednn_float_output`` and ``executorch_quantize_per_tensor`` are
elementwise numpy float32 arithmetic (exact, not simdops C kernels). OpenVINO's fused
int8 layer (``openvino_*`` but the FakeQuantize and QuantizeLinear helpers) lives in
``simdops.runtimes_openvino``, the standalone FakeQuantize as the default configuration
rewrites it (``openvino_fake_quantize*``) in ``simdops.runtimes_openvino_fq``; both are
re-exported here.
"""
import numpy as np

from simdops._runtimes_common import dtype_name as _dtype_name
from simdops._runtimes_common import f32_scalar as _f32_scalar
from simdops._runtimes_common import f32_vector as _f32_vector
from simdops._runtimes_common import fma32 as _fma32
from simdops.runtimes_openvino import (openvino_activation_quantization,
                                       openvino_fq_requant, openvino_fq_requant_params)
from simdops.runtimes_openvino_fq import openvino_fake_quantize_params

__all__ = [
    "openvino_activation_quantization", "openvino_fq_requant_params", "openvino_fq_requant",
    "onednn_requant_params",
    "fbgemm_float_bias_params",
    "litert_fc_params", "onednn_float_output", "fake_quantize",
    "openvino_fake_quantize_params", "openvino_fake_quantize",
    "openvino_quantize_linear_params", "openvino_quantize_linear",
    "executorch_quantize_per_tensor",
]

_INT_TYPES = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
              "uint16": (0, 65535)}


def _per(vec, per_channel):
    """The scale keyword: a float32 array per channel, else the one value as a float
    (a Python float holding a float32 value: C rounds it to itself)."""
    return vec if per_channel else float(vec[0])


def _int_range(out_dtype):
    name = _dtype_name(out_dtype, "out_dtype")
    if name not in ("uint8", "int8", "int16"):
        raise TypeError(f"out_dtype must be uint8, int8 or int16, got {name}")
    return name, _INT_TYPES[name]


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
    test_runtime_openvino_fq.py). With its low-precision transformations on (the
    default), OpenVINO first rewrites the ranges of a FakeQuantize of 15, 16, 255 or 256
    levels: ``openvino_fake_quantize`` (``LP_TRANSFORMS_MODE=False`` keeps the ranges
    as written)."""
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


def openvino_fake_quantize(x, input_low, input_high, output_low, output_high, levels):
    """A standalone per-tensor FakeQuantize as OpenVINO's x86 CPU plugin runs it in the
    default configuration: ``fake_quantize`` (the snippets Subgraph) of the ranges
    ``openvino_fake_quantize_params`` derives (the low-precision transformations'
    rewrite for 15, 16, 255 and 256 levels). float32; numpy; exact."""
    p = openvino_fake_quantize_params(input_low, input_high, output_low, output_high, levels)
    return fake_quantize(x, p["input_low"], p["input_high"], p["output_low"],
                         p["output_high"], p["levels"])


def openvino_quantize_linear_params(scale, zero_point=0, dtype="uint8"):
    """The FakeQuantize that OpenVINO's ONNX frontend writes for a per-tensor
    ``QuantizeLinear`` (quantize_linear.cpp): ``input_low = f32(scale * f32(qmin -
    zp))``, ``input_high = f32(scale * f32(qmax - zp))``, ``output_low = qmin``,
    ``output_high = qmax``, ``levels = 256``, then a Convert to the integer type.
    Returns those five as a dict (the keywords of ``fake_quantize``)."""
    name = _dtype_name(dtype, "dtype")
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
    name = _dtype_name(dtype, "dtype")
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
    name = _dtype_name(dtype, "dtype")
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
