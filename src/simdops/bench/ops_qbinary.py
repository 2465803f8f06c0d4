"""Benchmarked quantized add / multiply (int8): same-shape inputs, and a per-channel
vector broadcast along the last axis of an (n / 256, 256) input. The numpy column is
numpy's wrapping np.add(a, b, out=c) on the same int8 arrays (the bytes a binary op
must move), so a row's ratio reads as "fraction of a plain add's speed"."""
import numpy as np

import simdops
from simdops.bench.ops_base import Op

# the model numbers of every row (a typical int8 residual add / gating multiply)
_PARAMS = dict(a_scale=0.0417, a_zero_point=-3, b_scale=0.0388, b_zero_point=5,
               y_scale=0.0712, y_zero_point=-1)


def _other(x):
    """b: x reversed (same shape), or one row of x (a per-channel vector) for 2-D x."""
    if x.ndim == 2:
        return np.ascontiguousarray(x[0])
    return np.ascontiguousarray(x[::-1])


class QBinary(Op):
    numpy_desc = "np.add(a, b, out=c) (wrapping int8 add, same arrays)"

    def __init__(self, op, arithmetic, entry):
        self.op = op
        self.arithmetic = arithmetic
        self.name = f"quantized_{op} {arithmetic}"
        self.kernel_entry = entry

    def simdops(self, x, out, p):
        b = _other(x)
        f = getattr(simdops, "quantized_" + self.op)
        # the numbers bound here, as a model holds them: the timed call is the call
        # (np.add's side looks nothing up either)
        sa, za, sb, zb, sy, zy = (_PARAMS[k] for k in ("a_scale", "a_zero_point", "b_scale",
                                                       "b_zero_point", "y_scale", "y_zero_point"))
        arithmetic = self.arithmetic
        return lambda: f(x, sa, za, b, sb, zb, sy, zy, arithmetic=arithmetic, out=out)

    def numpy(self, x, out, p):
        b = _other(x)
        return lambda: np.add(x, b, out=out)


QADD_TFLITE = QBinary("add", "tflite", "qadd_tflite")
QMUL_TFLITE = QBinary("multiply", "tflite", "qmul_tflite")
QADD_XNNPACK = QBinary("add", "xnnpack", "qadd_xnnpack")
QMUL_XNNPACK = QBinary("multiply", "xnnpack", "qmul_fp")
QADD_ORT = QBinary("add", "onnxruntime", "qadd_ort")
ALL = (QADD_TFLITE, QMUL_TFLITE, QADD_XNNPACK, QMUL_XNNPACK, QADD_ORT)
