"""OpenVINO's CPU plugin: an int8 FullyConnected / Convolution with the FakeQuantize of
its output fused into the kernel, as its low-precision transformations (LPT) and graph
optimizer arrange it. The helpers are re-exported by ``simdops.runtimes``.

What OpenVINO does, step by step (each float32 operation rounded once; the sources are
named in docs/requantization.md):

1. The activation FakeQuantize becomes a quantizing FakeQuantize (uint8 or int8) and a
   dequantization ``(q - zp) * s_a`` (``openvino_activation_quantization``).
2. The MatMul / Convolution runs on the integers: ``acc = sum_k q * w``; the zero point
   becomes a constant ``C[n] = sum_k zp * w[n, k]`` (float32, folded in order of k) and
   the scales one ``S[n] = f32(s_a * s_w[n])``.
3. Without a bias, the output FakeQuantize absorbs both:
   ``il' = f32(f32(il / S[n]) + C[n])`` (same for ih), so the kernel computes
   ``f32(acc) * m[n] + b[n]`` with ``m``, ``b`` from ``il'``, ``ih'``.
   A bias with one value for every channel is folded the same way first
   (``il - bias``: measured; OpenVINO does not keep it as a bias).
4. With a bias per channel (LPT keeps it as a bias), the graph optimizer folds it into
   the FakeQuantize's input shift instead: ``ish[n] = f32(ish + f32(bias[n] * isc))``
   with ``isc``, ``ish`` from the unmodified ranges, and the kernel computes
   ``f32(f32(f32(acc) - C[n]) * f32(isc * S[n])) + ish[n]``.
5. A Convolution with a bias per channel runs as oneDNN's verbose prints it: weight
   scales ``S[n]``, an f32 bias, then the post-ops ``eltwise_linear:isc:ish+ol``, round,
   clip: ``fma(f32(f32(acc) * S[n]) + bias[n], isc, f32(ish + ol))`` (the shift 0 when
   below 1e-5 of the output range), its zero point compensated in integers first.
   A FullyConnected whose per-channel shifts (4.) are all one value runs the same
   post-ops without the bias: ``fma(f32(f32(acc) * S[n]), isc, shift)``.
"""
import numpy as np

from simdops._runtimes_common import f32_scalar, f32_vector, fma32

__all__ = ["openvino_activation_quantization", "openvino_fq_requant_params",
           "openvino_fq_requant"]

F = np.float32


def openvino_activation_quantization(output_low, output_high, levels=256):
    """How OpenVINO's low-precision transformations quantize a per-tensor activation
    FakeQuantize of 256 levels whose output range is [output_low, output_high]
    (layer_transformation.cpp ``getPrecisionDetails``, network_helper.cpp
    ``decomposeFakeQuantize``).

    The precision: int8 when the range straddles 0 and ``output_low / output_high``
    lies within 0.2 % of -256/254 (the zero point is then dropped, even when the range
    is not exactly symmetric), else uint8; with ``[qmin, qmax]`` that type's range,
    in float32: ``input_scale = (oh - ol) / (qmax - qmin)`` and, unless ``|ol| < 1e-6``
    (uint8) or the int8 case above, ``zero_point = (qmin * oh - qmax * ol) / (oh - ol)``
    (left to right: a float, not always an integer). The activations the integer
    kernel reads are the quantizing FakeQuantize's levels plus qmin.

    Returns ``{"dtype": "uint8" | "int8", "input_scale": float, "zero_point": float}``
    (zero_point 0.0 when OpenVINO uses none): ``input_scale`` and ``zero_point`` are
    the arguments of the same names of ``openvino_fq_requant_params``.
    """
    ol = f32_scalar(output_low, "output_low")
    oh = f32_scalar(output_high, "output_high")
    if levels != 256:
        raise ValueError(f"levels = {levels!r}: only 256 levels are reproduced")
    if not ol < oh:
        raise ValueError(f"need output_low < output_high, got {ol}, {oh}")
    with np.errstate(all="ignore"):
        signed = bool(np.signbit(ol) != np.signbit(oh)) and abs(ol) >= F(1e-6)
        has_zp = abs(ol) >= F(1e-6)
        if signed and oh != 0:
            ratio, expected = F(ol / oh), F(-F(256) / F(254))
            has_zp = abs(F(F(ratio - expected) / min(ratio, expected))) > F(0.002)
        dtype = "int8" if signed and not has_zp else "uint8"
        qmin, qmax = (F(-128), F(127)) if dtype == "int8" else (F(0), F(255))
        span = F(oh - ol)
        scale = F(span / F(qmax - qmin))
        zp = F(F(F(qmin * oh) - F(qmax * ol)) / span) if has_zp else F(0)
    return {"dtype": dtype, "input_scale": float(scale), "zero_point": float(zp)}


def _compensation(zero_point, weights, n_out):
    """C[n] = sum_k f32(zp * w[n, k]), float32, accumulated in order of k (OpenVINO's
    constant folding of the zero point through the weights)."""
    if weights is None:
        raise ValueError("a nonzero zero_point needs weights= (the int8 weights, "
                         "[out_channels, in_features])")
    w = np.asarray(weights)
    if w.ndim != 2 or w.dtype.kind not in "iu":
        raise ValueError("weights must be a 2-D integer array [out_channels, in_features]")
    if n_out not in (1, w.shape[0]):
        raise ValueError(f"weights has {w.shape[0]} output channels, weight_scale {n_out}")
    wf = w.astype(F)
    c = np.zeros(w.shape[0], F)
    for k in range(w.shape[1]):
        c = (c + (zero_point * wf[:, k]).astype(F)).astype(F)
    return c


def _integer_compensation(zero_point, weights, n_out):
    """A Convolution's input zero point (graph_optimizer.cpp FuseConvolutionAndZeroPoints):
    rounded to uint8, times the weights summed exactly (int64 here, int32 there)."""
    _compensation(F(0), weights, n_out)  # the same checks
    zp = int(np.floor(abs(float(zero_point)) + 0.5)) * (1 if zero_point > 0 else -1)
    if not 0 <= zp <= 255:
        raise ValueError(f"zero_point = {zero_point}: a Convolution's zero point is uint8")
    return zp * np.asarray(weights).astype(np.int64).sum(1)


def _shift_per_tensor(b):
    """fake_quantize's workaround: shifts within 5e-5 of channel 0's are channel 0's."""
    return np.full_like(b, b[0]) if (np.abs(b - b[0]) < F(5e-5)).all() else b


def _openvino_plan(input_scale, weight_scale, input_low, input_high, output_low,
                   output_high, levels, zero_point, weights, bias, layer):
    """The kernel's arithmetic: a dict with "kind" ("chain": ``f32(f32(f32(acc) - sub) *
    scale) + shift``; "fma": ``fma(f32(acc), scale, shift)``, one value each;
    "bias_fma": ``fma(f32(f32(f32(acc) - sub) * scale) + bias, fq_scale, shift)``, one
    fq_scale and shift), "scale", "shift", "sub" (the float compensation C or None), "int_sub" (a
    Convolution's integer compensation, subtracted from acc first, or None),
    "out_dtype"."""
    s_a = f32_scalar(input_scale, "input_scale")
    s_w, _ = f32_vector(weight_scale, "weight_scale")
    il = f32_scalar(input_low, "input_low")
    ih = f32_scalar(input_high, "input_high")
    ol = f32_scalar(output_low, "output_low")
    oh = f32_scalar(output_high, "output_high")
    zp = f32_scalar(zero_point, "zero_point")
    if layer not in ("fully_connected", "convolution"):
        raise ValueError(f"layer must be 'fully_connected' or 'convolution', got {layer!r}")
    if levels != 256 or (ol, oh) not in ((0, 255), (-128, 127)):
        raise ValueError(f"output_low, output_high, levels = {ol}, {oh}, {levels}: only a "
                         "256-level FakeQuantize onto [0, 255] or [-128, 127] is reproduced")
    b_in = None
    if bias is not None:
        b_in = np.asarray(bias)
        if b_in.ndim != 1 or b_in.dtype.kind not in "fiu":
            raise ValueError("bias must be a 1-D array of real numbers (one per output "
                             "channel)")
        b_in = b_in.astype(F)
        if not np.isfinite(b_in).all():
            raise ValueError("bias has values that are not finite as float32")
    n_out = max(s_w.size, 1 if b_in is None else b_in.size)
    if s_w.size not in (1, n_out) or (b_in is not None and b_in.size not in (1, n_out)):
        raise ValueError("weight_scale and bias must have one value per output channel")
    s_w = np.broadcast_to(s_w, (n_out,)).astype(F)
    out_dtype = "uint8" if ol == 0 else "int8"
    conv_zp = None
    if layer == "convolution":
        if zp != 0:  # the convolution's own input zero point: an integer, compensated
            # exactly in int32 before the kernel's float steps
            conv_zp = _integer_compensation(zp, weights, n_out)
            zp = F(0)
    with np.errstate(all="raise"):
        S = s_a * s_w
        C = _compensation(zp, weights, n_out) if zp != 0 else None
        if C is not None and C.size != n_out:
            S = np.broadcast_to(S, C.shape).astype(F)
            n_out = C.size
        lv = F(255)
        if b_in is None or (b_in == b_in[0]).all():
            # no bias, or one value for every channel: it joins the ranges
            lo, hi = (il, ih) if b_in is None else (il - b_in[0], ih - b_in[0])
            il_n, ih_n = lo / S, hi / S
            if C is not None:
                il_n, ih_n = il_n + C, ih_n + C
            span = ih_n - il_n
            m = lv / span
            b = _shift_per_tensor((-il_n * lv) / span)
            sh = b + ol
            if (m == m[0]).all() and (sh == sh[0]).all():
                # one linear post-op, a fused multiply-add; a shift below 1e-5 of the
                # clamp range is dropped
                clo = np.rint(il_n[0] * m[0] + b[0]) + ol
                chi = np.rint(ih_n[0] * m[0] + b[0]) + ol
                s0 = F(0) if abs(sh[0]) < F(chi - clo) * F(1e-5) else sh[0]
                return {"kind": "fma", "scale": m[:1], "shift": np.array([s0], F),
                        "sub": None, "int_sub": conv_zp, "out_dtype": out_dtype}
            return {"kind": "chain", "scale": m, "shift": sh, "sub": None,
                    "int_sub": conv_zp, "out_dtype": out_dtype}
        if b_in.size != n_out:
            raise ValueError(f"bias has {b_in.size} values, the layer {n_out} channels")
        isc = lv / (ih - il)
        ish = (-il * lv) / (ih - il)
        if layer == "convolution":
            # oneDNN's convolution: the weight scales S, then the bias (each rounded),
            # then the FakeQuantize as one linear post-op, a fused multiply-add whose
            # shift below 1e-5 of the output range is dropped
            sh = ish + ol
            sh = F(0) if abs(sh) < F(oh - ol) * F(1e-5) else sh
            return {"kind": "bias_fma", "scale": S.astype(F), "bias": b_in,
                    "fq_scale": isc, "shift": np.array([sh], F), "sub": None,
                    "int_sub": conv_zp, "out_dtype": out_dtype}
        shifts = _shift_per_tensor(ish + b_in * isc) + ol
        if (shifts == shifts[0]).all():
            sh = F(0) if abs(shifts[0]) < F(oh - ol) * F(1e-5) else shifts[0]
            if C is not None and not (S == S[0]).all():
                # a zero point: its compensation C[n] is a post-op of its own, so the
                # weight scales cannot be the kernel's; per channel they join the
                # FakeQuantize's input scale (one multiply by isc * S[n]), then its one
                # shift is added (ONEDNN_VERBOSE: eltwise_linear:1:-C, binary_mul,
                # eltwise_linear:1:shift)
                return {"kind": "chain", "scale": (isc * S).astype(F),
                        "shift": np.full(n_out, sh, F), "sub": C, "int_sub": None,
                        "out_dtype": out_dtype}
            # one shift: the weight scales S (a zero point's compensation C[n] subtracted
            # first, a post-op; one S then is a multiply of its own), then the
            # FakeQuantize as one linear post-op (a fused multiply-add), as the
            # Convolution's bias form without a bias
            return {"kind": "bias_fma", "scale": S.astype(F), "bias": np.zeros(n_out, F),
                    "fq_scale": isc, "shift": np.array([sh], F), "sub": C,
                    "int_sub": None, "out_dtype": out_dtype}
    return {"kind": "chain", "scale": (isc * S).astype(F), "shift": shifts.astype(F),
            "sub": C, "int_sub": None, "out_dtype": out_dtype}


def openvino_fq_requant_params(input_scale, weight_scale, input_low, input_high,
                               output_low, output_high, levels=256, *, zero_point=0.0,
                               weights=None, bias=None, layer="fully_connected"):
    """OpenVINO's CPU plugin (int8 FullyConnected / Convolution, its low-precision
    transformations, then the FakeQuantize of the output fused into the kernel) as
    keywords of ``requantize_fp32``: ``sat(RNE(f32(f32(acc) * scale[n]) + bias[n]))``
    (``bias_at="scaled"``), acc the int32 accumulators of the integer activations
    (uint8 or int8, as ``openvino_activation_quantization`` says) and int8 weights,
    with no zero point subtracted.

    input_scale, zero_point: the activations' scale and zero point as OpenVINO derives
    them (``openvino_activation_quantization`` of the activation FakeQuantize's output
    range). weight_scale: per tensor or per output channel. input_low .. output_high,
    levels: the output FakeQuantize (256 levels onto [0, 255] or [-128, 127]).
    weights: the int8 weights [out_channels, in_features], needed with a nonzero
    zero_point. bias: a float bias per output channel added between the layer and the
    FakeQuantize (one value, or the same value for every channel, is folded into the
    ranges instead). layer: "fully_connected" (a MatMul) or "convolution", whose zero
    point OpenVINO rounds to uint8 and subtracts exactly (``round(zp) * sum_k w[n, k]``)
    from the accumulators (``openvino_fq_requant`` only).

    In float32, ``S[n] = s_a * s_w[n]``; without a bias of distinct values per
    channel: ``il' = (il - bias) / S[n] + C[n]``, ``ih'`` alike (each step rounded;
    no bias: ``il``), ``C[n]`` the zero point times the weights summed in order of k;
    ``m[n] = 255 / (ih' - il')``, ``b[n] = -il' * 255 / (ih' - il')``, channel 0's
    ``b`` when all lie within 5e-5 of it, ``shift = b + output_low``. With a bias per
    channel: ``isc = 255 / (ih - il)``, ``ish = -il * 255 / (ih - il)``,
    ``scale[n] = isc * S[n]``, ``shift[n] = ish + bias[n] * isc`` (the 5e-5 rule),
    ``+ output_low``; where those shifts are all one value:
    ``fma(f32(f32(acc) * S[n]), isc, shift)``, with a zero point
    ``fma(f32(f32(f32(acc) - C[n]) * S), isc, shift)`` for one S and
    ``f32(f32(f32(acc) - C[n]) * f32(isc * S[n])) + shift`` per channel (the 1e-5 rule
    in all three); a Convolution with a bias per channel:
    ``fma(f32(f32(acc) * S[n]) + bias[n], isc, ish + output_low)``, the shift 0 when
    below 1e-5 of the output range (``openvino_fq_requant`` only).

    Returns ``scale``, ``bias`` (the shifts, float32), ``bias_at="scaled"``,
    ``zero_point=0``, ``min``, ``max``, ``out_dtype``. ValueError where the kernel
    runs a form requantize_fp32 has not: one scale and one shift (a fused
    multiply-add), a nonzero zero point with a bias (the compensation subtracted
    first), a Convolution with a bias per channel and a bias whose shifts are one value
    (with or without a zero point);
    ``openvino_fq_requant`` computes them.
    """
    plan = _openvino_plan(input_scale, weight_scale, input_low, input_high, output_low,
                          output_high, levels, zero_point, weights, bias, layer)
    if plan["kind"] == "fma":
        raise ValueError("OpenVINO runs a per-tensor layer's requantization as one fused "
                         "multiply-add, which requantize_fp32 has no form of: use "
                         "simdops.runtimes.openvino_fq_requant(acc, ...)")
    if plan["kind"] == "bias_fma":
        raise ValueError("OpenVINO runs this layer (a Convolution with a bias per channel, "
                         "or a bias whose shifts are one value) as the weight scale, the bias, "
                         "then a fused multiply-add, which requantize_fp32 has no form of: "
                         "use simdops.runtimes.openvino_fq_requant(acc, ...)")
    if plan["int_sub"] is not None:
        raise ValueError("a Convolution's zero point is compensated in int32 first: pass "
                         "acc - round(zero_point) * weights.sum(1) with zero_point=0, or use "
                         "simdops.runtimes.openvino_fq_requant(acc, ..., layer=\"convolution\")")
    if plan["sub"] is not None:
        raise ValueError("with a zero point and a bias OpenVINO subtracts the zero point's "
                         "compensation before the scale, which requantize_fp32 has no form "
                         "of: use simdops.runtimes.openvino_fq_requant(acc, ...)")
    lo, hi = (0, 255) if plan["out_dtype"] == "uint8" else (-128, 127)
    return {"scale": np.ascontiguousarray(plan["scale"], F),
            "bias": np.ascontiguousarray(plan["shift"], F), "bias_at": "scaled",
            "zero_point": 0, "min": lo, "max": hi, "out_dtype": plan["out_dtype"]}


def openvino_fq_requant(acc, input_scale, weight_scale, input_low, input_high, output_low,
                        output_high, levels=256, *, zero_point=0.0, weights=None,
                        bias=None, layer="fully_connected"):
    """The output of ``openvino_fq_requant_params``' layer from its int32 accumulators
    (channels last) in every form OpenVINO runs: ``sat(RNE(fma(f32(acc), m, shift)))``
    where it sees one scale and one shift, ``f32(f32(f32(f32(acc) - C[n]) * scale[n])
    + shift[n])`` with a zero point and a bias, ``fma(f32(f32(acc) * S[n]) + bias[n],
    isc, shift)`` for a Convolution with a bias per channel, the same with the bias 0
    and ``C[n]`` subtracted first for one weight scale, a zero point and a bias whose
    shifts are one value, else the chain of
    ``openvino_fq_requant_params``. numpy; exact."""
    a = np.asarray(acc)
    if a.dtype != np.int32:
        raise TypeError(f"acc must be int32, got {a.dtype}")
    plan = _openvino_plan(input_scale, weight_scale, input_low, input_high, output_low,
                          output_high, levels, zero_point, weights, bias, layer)
    lo, hi = (0, 255) if plan["out_dtype"] == "uint8" else (-128, 127)
    if plan["int_sub"] is not None:  # exact, as OpenVINO's int32 (which wraps)
        a = ((a.astype(np.int64) - plan["int_sub"] + 2**31) % 2**32 - 2**31).astype(np.int32)
    v = a.astype(F)
    if plan["sub"] is not None:      # the float compensation C, first in every form with one
        v = (v - plan["sub"]).astype(F)
    if plan["kind"] == "fma":
        v = fma32(v, np.full(v.shape, plan["scale"][0], F),
                  np.full(v.shape, plan["shift"][0], F))
    elif plan["kind"] == "bias_fma":
        v = ((v * plan["scale"]).astype(F) + plan["bias"]).astype(F)
        v = fma32(v, np.full(v.shape, plan["fq_scale"], F),
                  np.full(v.shape, plan["shift"][0], F))
    else:
        v = (v * plan["scale"]).astype(F) + plan["shift"]
    return np.clip(np.rint(v), lo, hi).astype(plan["out_dtype"])
