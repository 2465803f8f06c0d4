"""Benchmarked modes of requantize_fp32 beyond its default (the runtimes' arithmetic: oneDNN's
two scales, OpenVINO's offset, fbgemm's float bias, ncnn's add-half rounding, LiteRT's
float64 per-channel scales with ties away), int32 -> int8 on [rows, 256], each with the
scale per tensor or per channel. Every case carries the plain requantize_fp32 call on the
same input, output type, scale kind and zero point (and an int32 bias where the mode has a
float32 one) as a path ("requantize_fp32"), timed in the same rounds, so a goal row reads the
mode's cost over the default's."""
import numpy as np

import simdops
from simdops.bench.ops_base import REQUANT_CHANNELS, Requant

# the scales of the plain rows: 1/1000 per tensor, 1/1200..1/800 per channel
SCALE = 1 / 1000
ZERO_POINT = 3
# mode -> (the keyword arguments added to the plain call, label)
MODES = {
    "onednn": ({"pre_scale": 0.5, "post_scale": 2.0}, "oneDNN pre_scale, post_scale"),
    "openvino": ({"offset": 0.25}, "OpenVINO offset"),
    "fbgemm": ({"bias": "float"}, "fbgemm float32 bias"),
    "add_half": ({"ties": "add_half"}, "ties add_half"),
    "litert": ({"precision": "float64", "ties": "away"}, "float64, ties away"),
}


def _scale(per_channel, float64):
    if not per_channel:
        return SCALE
    s = np.linspace(1 / 1200, 1 / 800, REQUANT_CHANNELS)
    return s if float64 else s.astype(np.float32)


def _fit(scale, x):
    """A per-channel scale vector cut to x's last dimension (a per-tensor one as it is)."""
    if isinstance(scale, np.ndarray):
        return np.ascontiguousarray(scale[:x.shape[-1]])
    return scale


def _call_with(kw):
    """make(x, scale, out, bias) -> a zero-argument requantize_fp32 call with kw's keywords
    written out in its source. The mode and the plain call are made here alike: a call
    through **kw builds a dict every call, 0.22-0.3 us in CPython (6-9% of a 64K-element
    call), which the plain call, written out, did not pay."""
    words = "".join(f", {k}={v!r}" for k, v in kw.items())
    return eval(f"lambda x, s, out, b: lambda: rf(x, s, zp, bias=b, out_dtype='int8', out=out"
                f"{words})", {"rf": simdops.requantize_fp32, "zp": ZERO_POINT})


class RequantChain(Requant):
    """int32 -> int8 through requantize_fp32 with one mode's keywords."""

    def __init__(self, mode, per_channel):
        super().__init__(per_channel)
        self.mode = mode
        self.label = MODES[mode][1]
        self.name = f"requant_fp32 {mode}" + (" pc" if per_channel else "")
        self.kernel_entry = "requant_fp_pc" if per_channel else "requant_fp"
        self.numpy_desc = ""

    def out_dtype(self, dtype):
        return "int8"

    def params(self, dtype):
        # arrays at the top level (the JSON report lists them); kw holds plain values
        kw = dict(MODES[self.mode][0])
        bias = None
        if kw.pop("bias", None) == "float":
            bias = ((np.arange(REQUANT_CHANNELS) - REQUANT_CHANNELS // 2) * 3.5).astype(
                np.float32)
        return {"kw": kw, "float_bias": bias,
                "scale": _scale(self.per_channel, self.mode == "litert"),
                "per_channel": self.per_channel}

    def simdops(self, x, out, p):
        bias = p["float_bias"]
        if bias is not None:
            bias = np.ascontiguousarray(bias[:x.shape[-1]])
        return _CALLS[self.mode](x, _fit(p["scale"], x), out, bias)

    def numpy(self, x, out, p):
        return None         # the row compares the two simdops calls


def plain(x, out, p):
    """requantize_fp32's default on a chain case's input, scale kind and zero point (float32
    scales), with an int32 bias vector where the mode has a float32 one (the same bytes
    read): the path each chain case times beside its mode."""
    bias = p["float_bias"]
    if bias is not None:
        bias = np.ascontiguousarray(np.rint(bias[:x.shape[-1]]).astype(np.int32))
    return _PLAIN(x, _fit(_scale(p["per_channel"], False), x), out, bias)


# modes whose bench parameters run requantize_fp32's default kernels after a fold of a few
# ns (oneDNN's 0.5 and 2.0 multiply to 1): their rows can only tie the default, so each case
# also times the default twice (an A/A pair) to measure what a tie looks like in that run
SAME_KERNEL_MODES = ("onednn",)

_CALLS = {mode: _call_with({k: v for k, v in kw.items() if k != "bias"})
          for mode, (kw, _) in MODES.items()}
_PLAIN = _call_with({})
CHAIN_OPS = tuple(RequantChain(mode, pc) for mode in MODES for pc in (False, True))
