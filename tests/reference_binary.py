"""Independent references of the quantized two-input ops (ADD, SUB, MUL) as each runtime
computes them, written from reading the runtimes' sources (never from simdops):

- "tflite": LiteRT's builtin kernels (kernels/add.cc, sub.cc, mul.cc Prepare;
  reference/integer_ops/add.h, mul.h): gemmlowp double rounding with the parameters
  derived in double (MUL's real multiplier in float, as the C++ expression is);
- "xnnpack": XNNPACK's qs8-vadd (one fixed-point sum of both inputs, one floor shift with
  the rounding term folded in the bias) and qs8-vmul (fp32 requantization of the product),
  parameters from the add/mul microparams initialisers, float32 arithmetic;
- "onnxruntime": ONNX Runtime's com.microsoft QLinearAdd on x86-64 with AVX2 (MLAS's
  float32 kernel: two fused multiply-adds on the raw integers, the zero points folded in
  a float32 constant, ties to even) and QLinearMul (the float32 product of the offsets
  times the float32 ratio, ties to even).

Parameter derivations return plain ints; element functions work on numpy int64 arrays
(exact: every intermediate is checked to stay far inside int64) so a sweep of millions
of elements stays fast. Python floats are doubles; np.float32 gives float32 steps.
"""
import math

import numpy as np

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}


def f32(v):
    """v rounded to float32 (a C float), returned as a Python float."""
    return float(np.float32(v))


def wrap32(x):
    """int64 array -> the int32 two's-complement wrap, as int64."""
    return ((np.asarray(x, np.int64) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


# ------------------------------------------------------------------ gemmlowp primitives

def srdhm(a, m):
    """SaturatingRoundingDoublingHighMul(a, m) for int32 a (array) and a multiplier
    m in [0, 2**31): round(a*m / 2**31), ties toward +inf (the nudge 2**30, floor)."""
    a = np.asarray(a, np.int64)
    return (a * int(m) + (1 << 30)) >> 31


def rdbpot(x, e):
    """RoundingDivideByPOT(x, e): x / 2**e, ties away from zero."""
    x = np.asarray(x, np.int64)
    if e == 0:
        return x
    q = (np.abs(x) + (1 << (e - 1))) >> e
    return np.where(x < 0, -q, q)


def quantize_multiplier(real):
    """TFLite QuantizeMultiplier (quantization_util.cc, default build): (m, shift) with
    real = m * 2**(shift - 31), m in [2**30, 2**31), shift a LEFT shift (TFLite's sign);
    frexp then round(q * 2**31) half away from zero; (0, 0) below 2**-31."""
    if real == 0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = math.floor(abs(q) * (1 << 31) + 0.5)  # exact: q*2**31 is a double < 2**31
    q_fixed = int(math.copysign(q_fixed, q))
    if q_fixed == 1 << 31:
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q_fixed, shift


def multiply_by_quantized_multiplier(x, m, shift):
    """TFLite MultiplyByQuantizedMultiplier (double rounding): the left part of the shift
    on the int32 (wrapping), SRDHM, then RDBPOT by the right part."""
    left, right = max(shift, 0), max(-shift, 0)
    x = np.asarray(x, np.int64)
    if left:
        x = wrap32(x << left)
    return rdbpot(srdhm(x, m), right)


# ------------------------------------------------------------------ TFLite parameters

def tflite_add_params(op, s1, zp1, s2, zp2, s_out, zp_out, dtype="int8", pot_scale_int16=True):
    """The integer parameters of LiteRT's ADD / SUB Prepare (op "add" or "subtract").

    Scales are float32 values (the flatbuffer's). int16 takes the power-of-two path when
    pot_scale_int16 (the options' flag, default true in the schema) and all three scales
    are powers of two; otherwise the general path with left_shift 15."""
    s1, s2, s_out = f32(s1), f32(s2), f32(s_out)
    if dtype == "int16":
        assert zp1 == zp2 == zp_out == 0, "LiteRT's int16 ADD/SUB require zero points 0"
        pot = [math.frexp(s)[0] == 0.5 for s in (s1, s2, s_out)]
        if pot_scale_int16 and all(pot):
            l1, l2, lo = (math.frexp(s)[1] - 1 for s in (s1, s2, s_out))
            sh1, sh2 = l1 - lo, l2 - lo
            assert (sh1 == 0 or sh2 == 0) and sh1 <= 0 and sh2 <= 0, "LiteRT refuses the model"
            return {"path": "pot16", "input1_shift": sh1, "input2_shift": sh2}
    left_shift = 15 if dtype == "int16" else 20
    twice_max = 2.0 * max(s1, s2)                  # float math, exact
    r1, r2 = s1 / twice_max, s2 / twice_max        # double
    r_out = twice_max / f32((1 << left_shift) * s_out)
    if r_out >= 1 and op == "add":
        raise ValueError("LiteRT's ADD Prepare aborts (TFLITE_CHECK) on an output "
                         "multiplier >= 1")
    m1, sh1 = quantize_multiplier(r1)
    m2, sh2 = quantize_multiplier(r2)
    mo, sho = quantize_multiplier(r_out)
    return {"path": "general", "left_shift": left_shift,
            "input1_offset": -zp1, "input1_multiplier": m1, "input1_shift": sh1,
            "input2_offset": -zp2, "input2_multiplier": m2, "input2_shift": sh2,
            "output_offset": zp_out, "output_multiplier": mo, "output_shift": sho}


def tflite_mul_params(s1, zp1, s2, zp2, s_out, zp_out, dtype="int8"):
    """LiteRT's MUL Prepare: real = s1 * s2 / s_out evaluated in FLOAT (the three are
    floats in C++: the product and the quotient are float operations), widened to double,
    then QuantizeMultiplier (a multiplier above 1 gives a positive shift)."""
    if dtype == "int16":
        assert zp1 == zp2 == zp_out == 0, "LiteRT's int16 MUL requires zero points 0"
    real = f32(f32(f32(s1) * f32(s2)) / f32(s_out))
    m, sh = quantize_multiplier(real)
    return {"input1_offset": -zp1, "input2_offset": -zp2, "output_offset": zp_out,
            "output_multiplier": m, "output_shift": sh}


def tflite_activation_bounds(activation, s_out, zp_out, dtype):
    """CalculateActivationRangeQuantized: zp + TfLiteRound(f / scale) (float division,
    round half away from zero), intersected with the dtype's range."""
    qmin, qmax = RANGES[dtype]

    def q(f):
        v = f32(np.float32(f) / np.float32(s_out))
        return zp_out + int(math.copysign(math.floor(abs(v) + 0.5), v))

    if activation == "relu":
        return max(qmin, q(0.0)), qmax
    if activation == "relu6":
        return max(qmin, q(0.0)), min(qmax, q(6.0))
    if activation == "relu_n1_to_1":
        return max(qmin, q(-1.0)), min(qmax, q(1.0))
    return qmin, qmax


# ------------------------------------------------------------------ TFLite elements

def tflite_add(op, a, b, p, lo, hi):
    """LiteRT ADD (op "add") or SUB ("subtract") per element with params p of
    tflite_add_params; a and b broadcast already; clamp [lo, hi]."""
    a = np.asarray(a, np.int64)
    b = np.asarray(b, np.int64)
    if p["path"] == "pot16":
        y1 = rdbpot(a, -p["input1_shift"])
        y2 = rdbpot(b, -p["input2_shift"])
        raw = y1 + y2 if op == "add" else y1 - y2
        if op == "add":  # gemmlowp SaturatingAdd on int16, then the clamp
            raw = np.clip(raw, -32768, 32767)
        return np.clip(raw, lo, hi)
    ls = p["left_shift"]
    x1 = (a + p["input1_offset"]) << ls
    x2 = (b + p["input2_offset"]) << ls
    y1 = multiply_by_quantized_multiplier(x1, p["input1_multiplier"], p["input1_shift"])
    y2 = multiply_by_quantized_multiplier(x2, p["input2_multiplier"], p["input2_shift"])
    raw = y1 + y2 if op == "add" else y1 - y2
    out = multiply_by_quantized_multiplier(raw, p["output_multiplier"], p["output_shift"])
    return np.clip(wrap32(out + p["output_offset"]), lo, hi)


def tflite_mul(a, b, p, lo, hi):
    """LiteRT MUL per element: (a + o1) * (b + o2) in int32, one
    MultiplyByQuantizedMultiplier, + output offset, clamp [lo, hi]."""
    prod = wrap32((np.asarray(a, np.int64) + p["input1_offset"])
                  * (np.asarray(b, np.int64) + p["input2_offset"]))
    out = multiply_by_quantized_multiplier(prod, p["output_multiplier"], p["output_shift"])
    return np.clip(wrap32(out + p["output_offset"]), lo, hi)


# ------------------------------------------------------------------ XNNPACK

def _float_exponent(v):
    """The unbiased exponent field of a normal float32 (bits >> 23) - 127."""
    return int((np.array(v, np.float32).view(np.uint32) >> 23) & 0xFF) - 127


def xnnpack_add_params(op, s1, zp1, s2, zp2, s_out, zp_out, dtype="int8"):
    """xnn_init_qs8_add_minmax_scalar_params (qu8 alike); SUB is ADD with b's scale
    negated (binary-elementwise-nd.c). Ratios in float32; shift = 20 - exponent of the
    larger |ratio|; multipliers lrintf(|ratio| * 2**shift) (ties to even), signed;
    bias = 2**(shift-1) - ma*zp1 - mb*zp2."""
    sb = -f32(s2) if op == "subtract" else f32(s2)
    ra = f32(np.float32(s1) / np.float32(s_out))
    rb = f32(np.float32(sb) / np.float32(s_out))
    big = max(abs(ra), abs(rb))
    if not (2.0 ** -10 <= abs(ra) < 256 and 2.0 ** -10 <= abs(rb) < 256):
        raise ValueError("outside XNNPACK's ratio range [2**-10, 2**8)")
    shift = 20 - _float_exponent(big)
    assert 12 <= shift <= 30
    ma = int(np.rint(np.float32(abs(ra) * 2.0 ** shift)))  # exact scaling; rint = half even
    mb = int(np.rint(np.float32(abs(rb) * 2.0 ** shift)))
    ma, mb = int(math.copysign(ma, ra)), int(math.copysign(mb, rb))
    bias = (1 << (shift - 1)) - ma * zp1 - mb * zp2
    return {"a_multiplier": ma, "b_multiplier": mb, "shift": shift, "bias": bias,
            "output_zero_point": zp_out}


def xnnpack_add(a, b, p, lo, hi):
    """qs8-vadd / qu8-vadd: (bias + a*ma + b*mb) >> shift (arithmetic: floor), + zero
    point, clamp [lo, hi] (absolute output values)."""
    acc = p["bias"] + np.asarray(a, np.int64) * p["a_multiplier"] \
        + np.asarray(b, np.int64) * p["b_multiplier"]
    assert np.abs(acc).max(initial=0) < 2 ** 31
    return np.clip((acc >> p["shift"]) + p["output_zero_point"], lo, hi)


def xnnpack_mul_params(s1, zp1, s2, zp2, s_out, zp_out, dtype="int8"):
    """xnn_init_qs8_mul_minmax_scalar_params: scale = (s1 * s2) / s_out in float32."""
    scale = f32(np.float32(np.float32(s1) * np.float32(s2)) / np.float32(s_out))
    if not 2.0 ** -16 <= scale < 256:
        raise ValueError("outside XNNPACK's product-scale range [2**-16, 2**8)")
    return {"a_zero_point": zp1, "b_zero_point": zp2, "scale": scale,
            "output_zero_point": zp_out}


def xnnpack_mul(a, b, p, lo, hi):
    """qs8-vmul fp32: float((a - za) * (b - zb)) * scale in float32, clamped to
    [lo - zp, hi - zp], rounded to nearest even, + zp."""
    prod = (np.asarray(a, np.int64) - p["a_zero_point"]) * (np.asarray(b, np.int64)
                                                           - p["b_zero_point"])
    f = prod.astype(np.float32) * np.float32(p["scale"])
    zp = p["output_zero_point"]
    f = np.clip(f, np.float32(lo - zp), np.float32(hi - zp))
    return np.rint(f).astype(np.int64) + zp


def xnnpack_activation_bounds(activation, s_out, zp_out, dtype):
    """The clamp node XNNPACK inserts after the op: xnn_qs8_quantize of the float bounds,
    lrintf(min(max(f / scale + zp, qmin), qmax)) in float32 (ties to even)."""
    qmin, qmax = RANGES[dtype]

    def q(f):
        v = np.float32(np.float32(f) / np.float32(s_out)) + np.float32(zp_out)
        return int(np.rint(np.clip(v, np.float32(qmin), np.float32(qmax))))

    if activation == "relu":
        return q(0.0), qmax
    if activation == "relu6":
        return q(0.0), q(6.0)
    if activation == "relu_n1_to_1":
        return q(-1.0), q(1.0)
    return qmin, qmax


# ------------------------------------------------------------------ ONNX Runtime (MLAS)

def fma32(x, y, z):
    """C's fmaf on float32 values: x*y + z rounded once to float32 (x*y is exact in
    float64; TwoSum keeps the sum's error so a float32 midpoint breaks the right way)."""
    x, y, z = (np.asarray(v, np.float32).astype(np.float64) for v in (x, y, z))
    p = x * y
    s = p + z
    bp = s - z
    e = (p - bp) + (z - (s - bp))          # s + e == p + z exactly
    r = s.astype(np.float32)
    d = s - r.astype(np.float64)
    half = np.spacing(np.abs(r)).astype(np.float64) / 2
    beyond = (np.abs(d) == half) & (e != 0) & (np.sign(e) == np.sign(d))
    return np.where(beyond, (r.astype(np.float64) + 2 * d).astype(np.float32), r)


def onnxruntime_add_params(s1, zp1, s2, zp2, s_out, zp_out, dtype="int8"):
    """MLAS's AVX2 QLinearAdd (qladd_avx2.cpp, what x86-64 with AVX2 runs): the ratios
    s1/s_out, s2/s_out in float32 and a float32 constant
    zp_out - (ra*zp1 + rb*zp2), which the shipped build contracts to
    zp_out - fmaf(ra, zp1, rb*zp2) (proven against the runtime)."""
    ra = np.float32(np.float32(s1) / np.float32(s_out))
    rb = np.float32(np.float32(s2) / np.float32(s_out))
    fixed = np.float32(np.float32(zp_out) - fma32(ra, np.float32(zp1),
                                                  np.float32(rb * np.float32(zp2))))
    return {"a_ratio": float(ra), "b_ratio": float(rb), "constant": float(fixed)}


def _sat(x, lo, hi):
    return np.clip(x, lo, hi)


def onnxruntime_add(a, b, p, dtype):
    """fmaf(a, ra, fmaf(b, rb, constant)) in float32 on the raw integers (zero points
    are in the constant), rounded half to even (cvtps2dq), saturated to int16 then to
    dtype (packs)."""
    v = fma32(np.asarray(a, np.float32), p["a_ratio"],
              fma32(np.asarray(b, np.float32), p["b_ratio"], p["constant"]))
    r = np.rint(v.astype(np.float64))
    r = np.where(np.abs(r) >= 2 ** 31, INT32_MIN, r).astype(np.int64)  # cvtps2dq
    return _sat(_sat(r, -32768, 32767), *RANGES[dtype])


def onnxruntime_mul_params(s1, zp1, s2, zp2, s_out, zp_out, dtype="int8"):
    """MLAS QLinearMul (x86): ratio = (s1 * s2) / s_out in float32."""
    return {"a_zero_point": zp1, "b_zero_point": zp2, "output_zero_point": zp_out,
            "scale": f32(np.float32(np.float32(s1) * np.float32(s2)) / np.float32(s_out))}


def onnxruntime_mul(a, b, p, dtype):
    """float32((a - za) * (b - zb)) * ratio rounded to float32, + float32(zero point) in
    float32, rounded half to even (cvtps2dq), saturated to int16 then to dtype. The zero
    point is added BEFORE the rounding (proven against the runtime: a tie of the product
    breaks to even on the sum with the zero point)."""
    prod = (np.asarray(a, np.int64) - p["a_zero_point"]) * (np.asarray(b, np.int64)
                                                           - p["b_zero_point"])
    f = prod.astype(np.float32) * np.float32(p["scale"]) + np.float32(p["output_zero_point"])
    r = np.rint(f.astype(np.float64))
    r = np.where(np.abs(r) >= 2 ** 31, INT32_MIN, r).astype(np.int64)  # cvtps2dq
    return _sat(_sat(r, -32768, 32767), *RANGES[dtype])


def onnx_unfused_add(op, a, b, s1, zp1, s2, zp2, s_out, zp_out, dtype):
    """The QDQ graph DequantizeLinear -> Add/Sub/Mul -> QuantizeLinear in float32: each
    input (x - zp) * scale, the float op, then round_half_even(y / s_out) + zp saturated."""
    xa = (np.asarray(a, np.int64) - zp1).astype(np.float32) * np.float32(s1)
    xb = (np.asarray(b, np.int64) - zp2).astype(np.float32) * np.float32(s2)
    y = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}[op](xa, xb)
    q = np.rint(y / np.float32(s_out)).astype(np.int64) + zp_out
    return _sat(q, *RANGES[dtype])


# ------------------------------------------------------------------ one entry point

def params(runtime, op, s1, zp1, s2, zp2, s_out, zp_out, dtype="int8", **kw):
    if runtime == "tflite":
        if op == "multiply":
            return tflite_mul_params(s1, zp1, s2, zp2, s_out, zp_out, dtype)
        return tflite_add_params(op, s1, zp1, s2, zp2, s_out, zp_out, dtype, **kw)
    if runtime == "xnnpack":
        if op == "multiply":
            return xnnpack_mul_params(s1, zp1, s2, zp2, s_out, zp_out, dtype)
        return xnnpack_add_params(op, s1, zp1, s2, zp2, s_out, zp_out, dtype)
    if op == "multiply":
        return onnxruntime_mul_params(s1, zp1, s2, zp2, s_out, zp_out, dtype)
    assert op == "add"
    return onnxruntime_add_params(s1, zp1, s2, zp2, s_out, zp_out, dtype)


def binary(runtime, op, a, b, s1, zp1, s2, zp2, s_out, zp_out, dtype="int8",
           activation=None, **kw):
    """The runtime's output for quantized a op b (numpy broadcasting), as int64."""
    a, b = np.broadcast_arrays(np.asarray(a, np.int64), np.asarray(b, np.int64))
    p = params(runtime, op, s1, zp1, s2, zp2, s_out, zp_out, dtype, **kw)
    if runtime == "onnxruntime":
        if op == "multiply":
            return onnxruntime_mul(a, b, p, dtype)
        return onnxruntime_add(a, b, p, dtype)
    if False:
        return (onnxruntime_mul if op == "multiply" else onnxruntime_add)(a, b, p, dtype)
    bounds = (tflite_activation_bounds if runtime == "tflite"
              else xnnpack_activation_bounds)(activation, s_out, zp_out, dtype)
    if runtime == "tflite":
        if op == "multiply":
            return tflite_mul(a, b, p, *bounds)
        return tflite_add(op, a, b, p, *bounds)
    if op == "multiply":
        return xnnpack_mul(a, b, p, *bounds)
    return xnnpack_add(a, b, p, *bounds)
