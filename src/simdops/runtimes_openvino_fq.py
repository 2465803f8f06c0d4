"""OpenVINO's standalone FakeQuantize in its default configuration, where the
low-precision transformations (LPT) rewrite a FakeQuantize of 15, 16, 255 or 256
levels before the CPU plugin runs it. Re-exported by ``simdops.runtimes``, whose
``openvino_fake_quantize`` runs ``fake_quantize`` on these ranges.

The rewrite, step by step (float32, each operation rounded once, as the C++ does):

1. The precision (layer_transformation.cpp ``getPrecisionDetails``, then
   fake_quantize_decomposition.cpp ``getDataPrecisionByOutputPort``): a range whose
   ends have opposite signs with ``|ol| >= 1e-6`` is signed; it has no zero point when
   ``ol / oh`` lies within 0.2 % of ``-levels / (levels - 2)`` (16 and 256 levels) or
   of -1 (15 and 255), and is then int8; an unsigned range has a zero point unless
   ``|ol| < 1e-6`` and is uint8. 15 levels have no precision of their own: uint8 with
   a zero point. A range with a zero point is uint8.
2. The integer range (``DataPrecision::getMinValue`` / ``getMaxValue``): uint8
   [0, 15] for 16 levels, else [0, 255]; int8 [-8, 7] (16), [-128, 127] (256),
   [-127, 127] (255).
3. ``NetworkHelper::decomposeFakeQuantize``: ``scale = (oh - ol) / (max - min)``
   (clamped to 1e-32 .. 1e32 in magnitude), ``shift = (min * oh - max * ol) /
   (oh - ol)`` with a zero point (else none), a FakeQuantize onto [min, max] and the
   dequantization ``(q - shift) * scale``.
4. The cleanup passes fuse the dequantization back into the FakeQuantize's output
   range: ``output_low' = (min - shift) * scale``, ``output_high' = (max - shift) *
   scale``; the plugin then runs the FakeQuantize of those ranges (snippets,
   ``runtimes.fake_quantize``).

Other level counts (LPT does not take them) and ``LP_TRANSFORMS_MODE=False`` run the
FakeQuantize as written.
"""
import numpy as np

from simdops._runtimes_common import f32_scalar

__all__ = ["openvino_fake_quantize_params"]

F = np.float32
LPT_LEVELS = (15, 16, 255, 256)


def _precision(levels, ol, oh):
    """(signed, has_zero_point) as getPrecisionDetails / getDataPrecisionByOutputPort
    decide for one per-tensor range."""
    zero = F(1e-6)
    if abs(ol) < zero and abs(oh) < zero:  # no normal value: the sign of ol decides
        signed, has_zp = bool(ol < 0), False
    elif np.signbit(ol) != np.signbit(oh) and abs(ol) >= zero:
        if oh == 0:
            has_zp = True
        else:
            want = F(-F(levels) / F(levels - 2)) if levels in (16, 256) else F(-1)
            ratio = F(ol / oh)
            has_zp = bool(abs(F(F(ratio - want) / min(ratio, want))) > F(0.002))
        signed = True
    else:
        signed, has_zp = False, bool(abs(ol) >= zero)
    if has_zp or levels == 15:  # no precision of its own: the first default one, u8
        return False, True
    return signed, False


def openvino_fake_quantize_params(input_low, input_high, output_low, output_high, levels):
    """The FakeQuantize OpenVINO's CPU plugin runs for a standalone per-tensor
    FakeQuantize (its output a model output) in the default configuration: for 15,
    16, 255 and 256 levels, the low-precision transformations' rewrite (module
    docstring): ``output_low' = f32(f32(min - shift) * scale)``, ``output_high' =
    f32(f32(max - shift) * scale)`` with the integer range ``[min, max]``, ``scale =
    f32(f32(oh - ol) / f32(max - min))`` and ``shift = f32(f32(f32(min * oh) - f32(max *
    ol)) / f32(oh - ol))`` (0 without a zero point); other level counts unchanged.

    Returns ``{"input_low", "input_high", "output_low", "output_high", "levels"}``
    (float32 values), the arguments of ``runtimes.fake_quantize``, and ``"dtype"``
    ("uint8" / "int8" as LPT quantizes, None where it does not rewrite)."""
    il = f32_scalar(input_low, "input_low")
    ih = f32_scalar(input_high, "input_high")
    ol = f32_scalar(output_low, "output_low")
    oh = f32_scalar(output_high, "output_high")
    if isinstance(levels, (bool, np.bool_)) or not isinstance(levels, (int, np.integer)) \
            or levels < 3:
        raise ValueError(f"levels must be an integer >= 3, got {levels!r}")
    out = {"input_low": il, "input_high": ih, "output_low": ol, "output_high": oh,
           "levels": int(levels), "dtype": None}
    if levels not in LPT_LEVELS or ol == oh:  # oh == ol: LPT's scale oh, range [1, 1]:
        return out  # the same constant output
    signed, has_zp = _precision(levels, ol, oh)
    if signed:
        lo = {16: -8, 256: -128, 255: -127}[levels]
        lo, hi = F(lo), F(7 if levels == 16 else 127)
    else:
        lo, hi = F(0), F(15 if levels == 16 else 255)
    with np.errstate(all="ignore"):
        scale = F(F(oh - ol) / F(hi - lo))
        if abs(scale) < F(1e-32):
            scale = F(1e-32)
        elif abs(scale) > F(1e32):
            scale = F(1e32) if scale > 0 else F(-1e32)
        shift = F(F(F(lo * oh) - F(hi * ol)) / F(oh - ol)) if has_zp else F(0)
        out["output_low"] = F(F(lo - shift) * scale)
        out["output_high"] = F(F(hi - shift) * scale)
    out["dtype"] = "int8" if signed else "uint8"
    return out
