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
    "openvino_fq_requant_params", "openvino_fq_requant", "onednn_requant_params",
    "fbgemm_float_bias_params",
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


def _openvino_fq_formula(input_scale, weight_scale, input_low, input_high, output_low,
                         output_high, levels):
    """OpenVINO's fused FakeQuantize after an int8 FullyConnected / Convolution: m[n],
    the shift with output_low folded in, whether it runs as one fused multiply-add (per
    tensor), and the output type."""
    s_a = _f32_scalar(input_scale, "input_scale")
    s_w, _ = _f32_vector(weight_scale, "weight_scale")
    il = _f32_scalar(input_low, "input_low")
    ih = _f32_scalar(input_high, "input_high")
    ol = _f32_scalar(output_low, "output_low")
    oh = _f32_scalar(output_high, "output_high")
    if levels != 256 or (ol, oh) not in ((0, 255), (-128, 127)):
        raise ValueError(f"output_low, output_high, levels = {ol}, {oh}, {levels}: only a "
                         "256-level FakeQuantize onto [0, 255] or [-128, 127] is reproduced")
    lv = np.float32(255)
    with np.errstate(all="raise"):
        S = s_a * s_w
        il_n = il / S
        ih_n = ih / S
        span = ih_n - il_n
        m = lv / span
        b = (-il_n * lv) / span
        # fake_quantize.cpp, updateOptimizedFormula: shifts within 5e-5 of channel 0's
        # are taken as one per-tensor shift; then output_low is added to it
        if (np.abs(b - b[0]) < np.float32(5e-5)).all():
            b = np.full_like(b, b[0])
        sh = b + ol
    fused = bool((m == m[0]).all() and (sh == sh[0]).all())
    if fused:  # the negligible per-tensor shift is dropped (1e-5 of the clamp range)
        clo = np.rint(il_n[0] * m[0] + b[0]) + ol
        chi = np.rint(ih_n[0] * m[0] + b[0]) + ol
        if abs(sh[0]) < np.float32(chi - clo) * np.float32(1e-5):
            sh = np.zeros_like(sh)
        m, sh = m[:1], sh[:1]
    return m, sh, fused, ("uint8" if ol == 0 else "int8")


def openvino_fq_requant_params(input_scale, weight_scale, input_low, input_high, output_low,
                               output_high, levels=256):
    """OpenVINO's CPU plugin (int8 FullyConnected / Convolution, its low-precision
    transformations, then the FakeQuantize of the output fused into the kernel), per
    channel: ``sat(RNE(f32(f32(acc) * m[n]) + shift[n]))``.

    From the layer's dequantization scales and the output FakeQuantize's ranges, in
    float32: ``S[n] = s_a * s_w[n]``, ``il' = il / S[n]``, ``ih' = ih / S[n]``,
    ``m[n] = 255 / (ih' - il')``, ``b[n] = -il' * 255 / (ih' - il')`` (left to right,
    each operation rounded, as fake_quantize.cpp); channel 0's b for every channel when
    all lie within 5e-5 of it; ``shift[n] = f32(b[n] + output_low)`` (output_low joins
    the shift before the rounding).

    Returns the keywords of ``requantize_fp32``: ``scale`` (m, float32 per channel),
    ``bias`` (the shifts, float32) with ``bias_at="scaled"`` (the float32 add right
    after the multiply), ``zero_point=0``, ``min``, ``max``, ``out_dtype``. A layer
    OpenVINO sees as per tensor (every m[n] and every shift equal) runs the multiply
    and the add as one fused multiply-add, which requantize_fp32 does not have:
    ValueError, use ``openvino_fq_requant`` for it. Only a 256-level FakeQuantize onto
    [0, 255] or [-128, 127]. Measured: exact for accumulators of activations with zero
    point 0 and no bias between the layer and the FakeQuantize; with a nonzero
    activation zero point or a float bias OpenVINO's arithmetic is not reproduced yet
    (docs/requantization.md gives the counts).
    """
    m, sh, fused, out_dtype = _openvino_fq_formula(input_scale, weight_scale, input_low,
                                                   input_high, output_low, output_high,
                                                   levels)
    if fused:
        raise ValueError("OpenVINO runs a per-tensor layer's requantization as one fused "
                         "multiply-add, which requantize_fp32 has no form of: use "
                         "simdops.runtimes.openvino_fq_requant(acc, ...)")
    lo, hi = (0, 255) if out_dtype == "uint8" else (-128, 127)
    return {"scale": m, "bias": np.ascontiguousarray(sh, np.float32), "bias_at": "scaled",
            "zero_point": 0, "min": lo, "max": hi, "out_dtype": out_dtype}


def openvino_fq_requant(acc, input_scale, weight_scale, input_low, input_high, output_low,
                        output_high, levels=256):
    """The output of ``openvino_fq_requant_params``' layer from its int32 accumulators
    (channels last), per tensor too: ``sat(RNE(fma(f32(acc), m, shift)))`` where
    OpenVINO sees one scale and one shift (its post-op is then a single linear step,
    a fused multiply-add), else ``requantize_fp32(acc, **openvino_fq_requant_params(...))``.
    numpy; exact."""
    a = np.asarray(acc)
    if a.dtype != np.int32:
        raise TypeError(f"acc must be int32, got {a.dtype}")
    m, sh, fused, out_dtype = _openvino_fq_formula(input_scale, weight_scale, input_low,
                                                   input_high, output_low, output_high,
                                                   levels)
    lo, hi = (0, 255) if out_dtype == "uint8" else (-128, 127)
    v = a.astype(np.float32)
    if fused:
        v = _fma32(v, np.full(v.shape, m[0], np.float32), np.full(v.shape, sh[0], np.float32))
    else:
        v = (v * m).astype(np.float32) + sh
    return np.clip(np.rint(v), lo, hi).astype(out_dtype)


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
