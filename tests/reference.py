"""Independent references for simdops' array API (docs/semantics.md).

Written from the contract, not from the C code: floats use numpy's float
arithmetic (correctly rounded, no FMA), integers and the fixed-point requant
stage use Python ints (exact), rounding rules are stated as what they are
(round half up, round half away from zero) rather than as bit tricks.
"""
import math
from fractions import Fraction

import numpy as np

from simdops import _core


def _numpy_types(names):
    """numpy scalar types of dtype names of the C dtype table. The lists are the library's
    (which dtypes each op takes); what the references compute is not. A dtype numpy has no
    type for, or one of another kind or size than the table's row (ml_dtypes' bfloat16 is
    kind V), stops the suite here, naming it, instead of going untested."""
    codes = {name: code for code, name in _core.DTYPE_NAMES.items()}
    types = []
    for name in names:
        _, size, is_float, is_signed, _, _ = _core.dtype_info(codes[name])
        kind = "f" if is_float else "i" if is_signed else "u"
        try:
            dt = np.dtype(name)
        except TypeError:
            dt = None
        if dt is None or (dt.kind, dt.itemsize) != (kind, size):
            raise ImportError(f"tests/reference.py: the dtype table lists {name!r} "
                              f"({kind}{size}), which numpy has no such type for; the "
                              f"references cannot test it")
        types.append(dt.type)
    return tuple(types)


ALL_DTYPES = _numpy_types(_core.DTYPE_NAMES.values())
FLOAT_DTYPES = tuple(d for d in ALL_DTYPES if np.dtype(d).kind == "f")
INT_DTYPES = tuple(d for d in ALL_DTYPES if np.dtype(d).kind in "iu")
CLIP_DTYPES = _numpy_types(_core.op_dtypes("clip"))
SHRINK_DTYPES = _numpy_types(_core.op_dtypes("shrink"))
HARDMAX_DTYPES = _numpy_types(_core.op_dtypes("hardmax"))
QLINEAR_DTYPES = _numpy_types(_core.op_dtypes("quantize_linear"))  # the integer side
DEQUANTIZE_DTYPES = _numpy_types(_core.op_dtypes("dequantize_linear"))  # its input
REQUANT_OUT = {name: (int(np.iinfo(name).min), int(np.iinfo(name).max))
               for name in _core.op_dtypes("requant_out")}

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def _float_format(dtype):
    """(mantissa bits incl. the implicit one, minimum normal exponent, maximum exponent)"""
    fi = np.finfo(dtype)
    return fi.nmant + 1, fi.minexp, fi.maxexp - 1


def is_float(dtype):
    return np.dtype(dtype).kind == "f"


def int_range(dtype):
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def saturate(v, dtype):
    lo, hi = int_range(dtype)
    return lo if v < lo else hi if v > hi else v


# ---------------------------------------------------------------- parameters

def round_int_to_float(n, dtype):
    """The exact integer n rounded to nearest even in a float format (inf on overflow)."""
    dtype = np.dtype(dtype)
    p, emin, emax = _float_format(dtype)
    if n == 0:
        return dtype.type(0.0)
    sign = -1 if n < 0 else 1
    m = abs(n)
    drop = m.bit_length() - p
    if drop > 0:
        q, r = divmod(m, 1 << drop)
        half = 1 << (drop - 1)
        if r > half or (r == half and q & 1):
            q += 1
        m = q << drop
    # m is now representable with p bits; overflow when above the largest finite value
    largest = ((1 << p) - 1) << (emax - p + 1)
    if m > largest:
        return dtype.type(sign * math.inf)
    return dtype.type(sign * float(m))  # exact: m has <= p significant bits


def float_param(v, dtype):
    """A Python/numpy number as a parameter of a float tensor (docs/semantics.md)."""
    dtype = np.dtype(dtype)
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return round_int_to_float(int(v), dtype)
    v = float(v)
    with np.errstate(over="ignore"):
        return dtype.type(np.float64(v))  # round to nearest even, straight from the double


def int_param(v, dtype):
    """A Python/numpy number as a parameter of an integer tensor: truncate, saturate."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return saturate(int(v), dtype)
    v = float(v)
    if math.isinf(v):
        return int_range(dtype)[0 if v < 0 else 1]
    return saturate(math.trunc(v), dtype)


def f32_param(v):
    """clip's Scale/Bias: rounded to float32."""
    return float_param(v, np.float32)


# ---------------------------------------------------------------------- clip

def _minmax_select(x, lo, hi):
    """y = max(lo, min(x, hi)) with the operand order t = hi < x ? hi : x; y = lo > t ? lo : t.
    NaN x passes through (np.where copies its bits); -0.0 stays -0.0 against +0.0."""
    with np.errstate(invalid="ignore"):
        t = np.where(hi < x, hi, x)
        return np.where(lo > t, lo, t)


def clip(x, lo_param, hi_param, scale=None, bias=None):
    x = np.asarray(x)
    dtype = x.dtype
    has_sb = scale is not None or bias is not None
    s = f32_param(1.0 if scale is None else scale)
    b = f32_param(0.0 if bias is None else bias)
    if is_float(dtype):
        lo = float_param(lo_param, dtype)
        hi = float_param(hi_param, dtype)
        if not has_sb:
            return _minmax_select(x, lo, hi).astype(dtype)
        with np.errstate(all="ignore"):
            if dtype == np.float64:
                g = x * np.float64(s) + np.float64(b)
            else:
                x32 = x.astype(np.float32)  # exact for float16
                g = (x32 * s).astype(np.float32) + b
                g = g.astype(np.float32)
                if dtype == np.float16:
                    # clip(round16(g)) == round16(clip(g)): rounding is monotone and
                    # the bounds are float16 values
                    g = g.astype(np.float16)
        return _minmax_select(g.astype(dtype), lo, hi).astype(dtype)
    lo = int_param(lo_param, dtype)
    hi = int_param(hi_param, dtype)
    tlo, thi = int_range(dtype)
    out = []
    for v in x.reshape(-1).tolist():
        if has_sb:
            g = float(np.float64(np.float64(v) * np.float64(s)) + np.float64(b))
            g = tlo if g <= tlo else thi if g >= thi else math.trunc(g)
        else:
            g = int(v)
        t = hi if hi < g else g
        out.append(lo if lo > t else t)
    return np.array(out, dtype=dtype).reshape(x.shape)


# -------------------------------------------------------------------- shrink

def shrink(x, bias=0.0, threshold=0.5):
    x = np.asarray(x)
    dtype = x.dtype
    if is_float(dtype):
        t = float_param(threshold, dtype)
        b = float_param(bias, dtype)
        with np.errstate(all="ignore"):
            sub = (x - b).astype(dtype)
            add = (x + b).astype(dtype)
            y = np.where(x > t, sub, np.where(x < -t, add, dtype.type(0.0)))
            y = np.where(np.isnan(x), x, y)  # NaN passes through with its bits
        return y.astype(dtype)
    # integers: compare with the real threshold exactly; x > T <=> x > floor(T) for int x
    if isinstance(threshold, (int, np.integer)):
        floor_t = int(threshold)
    else:
        tf = float(threshold)
        floor_t = None if math.isinf(tf) else math.floor(tf)
    if isinstance(bias, (int, np.integer)):
        big_b = int(bias)
    else:
        bf = float(bias)
        big_b = (1 << 200) * (1 if bf > 0 else -1) if math.isinf(bf) else math.trunc(bf)
    out = []
    for v in x.reshape(-1).tolist():
        if floor_t is not None and v > floor_t:
            out.append(saturate(v - big_b, dtype))
        elif floor_t is not None and v < -floor_t:
            out.append(saturate(v + big_b, dtype))
        else:
            out.append(0)
    return np.array(out, dtype=dtype).reshape(x.shape)


# ------------------------------------------------------------------- hardmax

def _first_max(row):
    best = None
    for i, v in enumerate(row):
        if v != v:  # the first NaN wins
            return i
        if best is None or v > row[best]:
            best = i
    return best


def hardmax(x, axis=-1):
    x = np.asarray(x)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = sorted(a % x.ndim for a in axes)
    keep = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, keep + axes)
    rsize = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    y = np.zeros(moved.shape, dtype=x.dtype)
    if rsize == 0 or y.size == 0:
        return np.zeros(x.shape, dtype=x.dtype)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        flat_x = moved.reshape(-1, rsize).astype(np.float64)  # exact widening
    flat_y = y.reshape(-1, rsize)
    for r in range(flat_x.shape[0]):
        flat_y[r, _first_max(flat_x[r].tolist())] = 1
    y = flat_y.reshape(moved.shape)
    inverse = np.argsort(keep + axes)
    return np.ascontiguousarray(np.transpose(y, inverse))


# ------------------------------------------------------------------- requant

def wrap32(v):
    return ((v + (1 << 31)) % (1 << 32)) - (1 << 31)


def srdhm(a, b):
    """Saturating rounding doubling high mul: a*b*2/2**32 rounded half up,
    INT32_MAX for the one overflowing case."""
    if a == INT32_MIN and b == INT32_MIN:
        return INT32_MAX
    return (a * b + (1 << 30)) // (1 << 31)  # Python's // is floor division: exact


def rdbpot(x, e):
    """x / 2**e rounded to nearest, ties away from zero."""
    if e == 0:
        return x
    q = (abs(x) + (1 << (e - 1))) >> e
    return q if x >= 0 else -q


def requant_scalar(v, m, shift, offset, lo, hi, tlo, thi, bias=0):
    a = wrap32(v + bias)
    if shift >= 0:
        q = rdbpot(srdhm(a, m), shift)
    else:
        q = srdhm(wrap32(a * (1 << -shift)), m)
    r = wrap32(q + offset)
    if lo != hi:
        r = min(max(r, lo), hi)
    return min(max(r, tlo), thi)


def _requant_elementwise(x, multiplier, shift, bias, min, max, out_dtype, element):
    """The ACL stage's shape rules for every fixed-point family: x as int32, per-tensor or
    per-channel (last axis) multiplier / shift / bias, min / max as ACL takes them (None:
    the type's bound when the other is given; equal: no clamp). element(v, m, s, b, lo, hi,
    tlo, thi) gives one output value."""
    x = np.asarray(x, dtype=np.int32)
    out_dtype = np.dtype(out_dtype).name
    tlo, thi = REQUANT_OUT[out_dtype]
    lo = 0 if min is None else int(min)
    hi = 0 if max is None else int(max)
    if min is None and max is not None:
        lo = tlo
    if max is None and min is not None:
        hi = thi
    channels = x.shape[-1] if x.ndim else 1
    ms = np.broadcast_to(np.asarray(multiplier, dtype=np.int64), (channels,)).tolist()
    ss = np.broadcast_to(np.asarray(shift, dtype=np.int64), (channels,)).tolist()
    bs = [0] * channels if bias is None else np.asarray(bias, dtype=np.int64).tolist()
    flat = x.reshape(-1, channels) if x.size else np.zeros((0, channels), np.int32)
    out = [[element(v, ms[k], ss[k], bs[k], lo, hi, tlo, thi) for k, v in enumerate(row)]
           for row in flat.tolist()]
    return np.array(out, dtype=out_dtype).reshape(x.shape)


def requant(x, multiplier, shift, offset=0, bias=None, min=None, max=None, out_dtype="uint8"):
    return _requant_elementwise(
        x, multiplier, shift, bias, min, max, out_dtype,
        lambda v, m, s, b, lo, hi, tlo, thi: requant_scalar(v, m, s, int(offset), lo, hi,
                                                            tlo, thi, b))


def quantize_multiplier(real):
    """(M, shift): real = M * 2**-31 * 2**-shift with M in [2**30, 2**31)."""
    real = float(real)
    if not math.isfinite(real) or real <= 0:
        raise ValueError("real must be a positive finite number")
    exact = Fraction(real)
    e = 0  # find e with 1/2 <= real / 2**e < 1
    while exact / Fraction(2) ** e >= 1:
        e += 1
    while exact / Fraction(2) ** e < Fraction(1, 2):
        e -= 1
    scaled = exact / Fraction(2) ** e * (1 << 31)
    m = math.floor(scaled + Fraction(1, 2))  # half away from zero (scaled > 0)
    if m == 1 << 31:
        m //= 2
        e += 1
    shift = -e
    if not -31 <= shift <= 31:
        raise ValueError("shift out of range")
    return m, shift


# ---------------------------------------------------------------- edge values

def edge_values(dtype):
    """Interesting values of a dtype: NaN, ±inf, ±0, denormals, min/max, ..."""
    dtype = np.dtype(dtype)
    if is_float(dtype):
        fi = np.finfo(dtype)
        tiny_sub = fi.smallest_subnormal
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, np.inf, -np.inf,
                float(fi.max), -float(fi.max), float(fi.tiny), -float(fi.tiny),
                float(tiny_sub), -float(tiny_sub), float(fi.tiny) - float(tiny_sub),
                float(fi.eps), 3.0, -3.0, 100.0, -100.0]
        arr = np.array(vals, dtype=np.float64).astype(dtype)
        bits = np.dtype(f"u{dtype.itemsize}")
        nbits = dtype.itemsize * 8
        mant = dtype_mantissa_bits(dtype)
        exp_all = ((1 << (nbits - 1 - mant)) - 1) << mant
        nans = [exp_all | (1 << (mant - 1)),              # quiet NaN
                exp_all | 1,                              # signalling NaN, payload 1
                exp_all | (1 << (mant - 1)) | 0x5,         # quiet NaN with payload
                (1 << (nbits - 1)) | exp_all | (1 << (mant - 1))]  # negative quiet NaN
        nan_arr = np.array(nans, dtype=bits).view(dtype)
        return np.concatenate([arr, nan_arr])
    lo, hi = int_range(dtype)
    vals = {lo, lo + 1, hi, hi - 1, 0, 1, 2, 3, 5, 100}
    if lo < 0:
        vals |= {-1, -2, -3, -5, -100}
    vals |= {v for v in (127, 128, 255, 256, 32767, 32768, 65535, 65536, (1 << 31) - 1, 1 << 31,
                         (1 << 32) - 1, -128, -129, -32768, -32769, -(1 << 31))
             if lo <= v <= hi}
    return np.array(sorted(vals), dtype=dtype)


def dtype_mantissa_bits(dtype):
    return _float_format(dtype)[0] - 1


def float_params(dtype):
    """Parameter values worth trying as clip bounds / shrink bias for a dtype."""
    dtype = np.dtype(dtype)
    if is_float(dtype):
        fi = np.finfo(dtype)
        return [0.0, -0.0, 1.0, -1.0, 0.5, 2.75, -3.25, np.inf, -np.inf, float(fi.max),
                -float(fi.max), float(fi.smallest_subnormal), 1e-30, 1e30, 0.1, 65519.0, 65520.0]
    lo, hi = int_range(dtype)
    return [0, 1, -1, 2.7, -2.7, 0.5, -0.5, lo, hi, lo - 1, hi + 1, 1e30, -1e30, np.inf,
            -np.inf, 3, -7, hi // 2, float(hi), float(lo), 2 ** 70, -(2 ** 70)]


def mismatch_report(actual, expected, x=None, nan_bits=True):
    """None when equal (bitwise, or NaN-ness only when nan_bits is False), else a
    message naming the first differing element."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != expected {expected.shape}"
    a = np.ascontiguousarray(actual).reshape(-1)
    e = np.ascontiguousarray(expected).reshape(-1)
    ua = a.view(f"u{a.itemsize}") if a.size else a
    ue = e.view(f"u{e.itemsize}") if e.size else e
    diff = ua != ue
    if is_float(a.dtype) and not nan_bits:
        diff &= ~(np.isnan(a) & np.isnan(e))
    if not diff.any():
        return None
    i = int(np.argmax(diff))
    xi = ""
    if x is not None:
        xf = np.ascontiguousarray(np.asarray(x)).reshape(-1)
        if i < xf.size:
            xi = f" for x={xf[i]!r} (bits {hex(int(xf[i:i + 1].view(f'u{xf.itemsize}')[0]))})"
    return (f"{int(diff.sum())} of {a.size} elements differ; first at flat index {i}{xi}: "
            f"got {a[i]!r} (bits {hex(int(ua[i]))}), expected {e[i]!r} (bits {hex(int(ue[i]))})")


def assert_matches(actual, expected, x=None, nan_bits=True):
    msg = mismatch_report(actual, expected, x, nan_bits)
    assert msg is None, msg


# ------------------------------------------------ requantization families (the runtimes')
#
# Each function below restates one runtime's arithmetic as exact integer or correctly
# rounded float operations, read from that runtime's source (named in each docstring);
# docs/requantization.md compares them. None calls simdops.

def _out_bounds(out_dtype, min, max):
    """(lo, hi) of the fp32 family: the out dtype's range narrowed by min/max."""
    tlo, thi = REQUANT_OUT[np.dtype(out_dtype).name]
    lo = tlo if min is None else builtins_max(int(min), tlo)
    hi = thi if max is None else builtins_min(int(max), thi)
    return lo, hi


builtins_min, builtins_max = min, max


def round_half_away(value):
    """An exact rational (or float) to the nearest int, ties away from zero."""
    exact = Fraction(value)
    magnitude = math.floor(abs(exact) + Fraction(1, 2))
    return magnitude if exact >= 0 else -magnitude


def round_half_even(value):
    """An exact rational (or float) to the nearest int, ties to even."""
    exact = Fraction(value)
    low = math.floor(exact)
    rest = exact - low
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and low % 2 == 1):
        return low + 1
    return low


def single_rounding(a, m, shift):
    """TFLite TFLITE_SINGLE_ROUNDING MultiplyByQuantizedMultiplier (common.cc), ruy's
    reference, CMSIS-NN, XNNPACK rndnu (requantization.h / the scalar rndnu kernels):
    (a*M + 2**(t-1)) >> t in 64 bits with t = 31 + shift (shift > 0: right, t >= 1), one
    rounding half up, exact (a Python int: the caller decides what happens past int32)."""
    t = 31 + shift
    assert t >= 1
    return (a * m + (1 << (t - 1))) >> t


def single_rounding_away(a, m, shift):
    """TVM QNN FixedPointMultiply with rounding="TONEAREST" (src/relay/qnn/utils.cc): the
    int64 product (a << left) * M, plus 2**30 where it is >= 0 and 2**30 - 1 where it is
    negative, >> (31 + right). Here in the single family's form, t = 31 + shift: the
    round half away from zero of a*M / 2**t, exact."""
    t = 31 + shift
    assert t >= 1
    p = a * m
    return (p + (1 << (t - 1)) - (1 if p < 0 else 0)) >> t


def double_ties_up(a, m, shift):
    """ruy's x86 kernels (kernel_avx2_fma.cc / kernel_avx512.cc apply_multiplier), which
    LiteRT's optimized int8 kernels run on x86: the left part of the shift on the int32
    (wrapping), (a*M + 2**30) >> 31 in 64 bits (floor: ties toward +inf, where gemmlowp's
    SRDHM rounds negative ties away from zero), then a rounding right shift with ties
    toward +inf (where gemmlowp's RDBPOT rounds ties away from zero)."""
    if shift < 0:
        a = wrap32(a * (1 << -shift))
    q = (a * m + (1 << 30)) >> 31
    if shift > 0:
        q = (q + (1 << (shift - 1))) >> shift
    return q


def requant_family(x, multiplier, shift, offset=0, bias=None, min=None, max=None,
                   out_dtype="uint8", rounding="double"):
    """quantize_down_int32 for every fixed-point family: the ACL stage of ``requant``
    (min/max and saturation exactly as there) with the multiply-and-shift of
    ``rounding``: "double" (gemmlowp/ACL), "double_ties_up" (ruy x86) or "single".
    The double families add the offset in int32, wrapping (ACL's rule); "single" keeps
    the rounded value and the offset sum exact before the clamp, which is XNNPACK
    rndnu's clamp-then-add-zero-point (TFLite's int32 adds would wrap: see
    requant_tflite_single)."""
    if rounding == "double":
        return requant(x, multiplier, shift, offset, bias, min, max, out_dtype)
    stage = {"single": single_rounding, "single_away": single_rounding_away,
             "double_ties_up": double_ties_up}[rounding]

    def element(v, m, s, b, lo, hi, tlo, thi):
        r = stage(wrap32(v + b), m, s) + int(offset)
        if rounding not in ("single", "single_away"):
            r = wrap32(r)
        if lo != hi:
            r = builtins_min(builtins_max(r, lo), hi)
        return builtins_min(builtins_max(r, tlo), thi)

    return _requant_elementwise(x, multiplier, shift, bias, min, max, out_dtype, element)


def requant_tflite_single(x, multiplier, shift, offset, lo, hi):
    """TFLite with TFLITE_SINGLE_ROUNDING as compiled: MultiplyByQuantizedMultiplier
    returns the rounded value as an int32 (a DCHECK, off in release builds, guards the
    range; the cast wraps), + output_offset in int32 (wraps), then the clamp."""
    out = []
    for v in np.asarray(x, dtype=np.int64).reshape(-1).tolist():
        q = wrap32(wrap32(single_rounding(v, multiplier, shift)) + offset)
        out.append(builtins_min(builtins_max(q, lo), hi))
    return np.array(out, dtype=np.int64).reshape(np.shape(x))


def requant_xnnpack_rndnu(x, multiplier, shift, zero_point, lo, hi):
    """XNNPACK's scalar rndnu kernels: single rounding, then clamp to
    [lo - zero_point, hi - zero_point] BEFORE adding the zero point (no int32 wrap)."""
    out = []
    for v in np.asarray(x, dtype=np.int64).reshape(-1).tolist():
        q = single_rounding(v, multiplier, shift)
        q = builtins_min(builtins_max(q, lo - zero_point), hi - zero_point)
        out.append(q + zero_point)
    return np.array(out, dtype=np.int64).reshape(np.shape(x))


def requantize_fp32(x, scale, zero_point=0, bias=None, min=None, max=None, out_dtype="uint8",
                    precision="float32", ties="even"):
    """The float family, exactly:
    - precision="float32", ties="even": ONNX Runtime MLAS MlasRequantizeOutput
      (quantize.cpp: float(acc + bias) * scale, clamp in float to [min - zp, max - zp],
      round to nearest even, + zp) and XNNPACK's fp32 kernels (requantization.h: the same
      with the clamp split around the rounding); the clamp bounds are integers and the
      rounding is monotone, so both equal clamp(round_even(f) + zp, lo, hi) computed
      exactly, which is what this returns.
    - precision="float64", ties="away": LiteRT's reference FULLY_CONNECTED: the product
      in double (scale a double), rounded half away from zero.
    ``acc + bias`` wraps in int32 as the runtimes' int32 adds do. min/max narrow the out
    dtype's range (None: the dtype's bound)."""
    x = np.asarray(x, dtype=np.int32)
    lo, hi = _out_bounds(out_dtype, min, max)
    channels = x.shape[-1] if x.ndim else 1
    ftype = np.float32 if precision == "float32" else np.float64
    scales = np.broadcast_to(np.asarray(scale, dtype=ftype), (channels,))
    rounder = round_half_even if ties == "even" else round_half_away
    bs = [0] * channels if bias is None else np.asarray(bias, dtype=np.int64).tolist()
    flat = x.reshape(-1, channels) if x.size else np.zeros((0, channels), np.int32)
    out = []
    for row in flat.tolist():
        line = []
        for k, v in enumerate(row):
            product = ftype(wrap32(v + bs[k])) * scales[k]   # one correctly rounded multiply
            r = rounder(float(product)) + int(zero_point)
            line.append(builtins_min(builtins_max(r, lo), hi))
        out.append(line)
    return np.array(out, dtype=np.dtype(out_dtype).name).reshape(x.shape)


def requantize_fp32_fbgemm_avx2(x, scale, zero_point=0, out_dtype="uint8"):
    """fbgemm's AVX2 requantization (QuantUtilsAvx2.cc requantizeOutputProcessingAvx2, as
    PyTorch's quantized::linear runs it): float32(acc) * scale, _mm256_cvtps_epi32 (ties
    even; a product with |p| >= 2**31 or NaN becomes INT32_MIN), + zp wrapping in int32,
    then saturating packs to the out dtype. Differs from requantize_fp32 only there."""
    x = np.asarray(x, dtype=np.int32)
    tlo, thi = REQUANT_OUT[np.dtype(out_dtype).name]
    channels = x.shape[-1] if x.ndim else 1
    scales = np.broadcast_to(np.asarray(scale, dtype=np.float32), (channels,))
    flat = x.reshape(-1, channels) if x.size else np.zeros((0, channels), np.int32)
    out = []
    for row in flat.tolist():
        line = []
        for k, v in enumerate(row):
            product = float(np.float32(v) * scales[k])
            r = round_half_even(product) if abs(product) < 2.0 ** 31 else INT32_MIN
            line.append(builtins_min(builtins_max(wrap32(r + int(zero_point)), tlo), thi))
        out.append(line)
    return np.array(out, dtype=np.dtype(out_dtype).name).reshape(x.shape)


def acl_quantize_down(x, offset, multiplier, shift, bias=None, min=0, max=0, out_dtype="uint8"):
    """ACL QUANTIZE_DOWN (tests/validation/reference/GEMMLowp.cpp
    quantize_down_scale): ((acc + bias + offset) * multiplier) >> shift in int32 (wraps),
    floor shift, then the bounded ReLU (min != max) and saturation."""
    tlo, thi = REQUANT_OUT[np.dtype(out_dtype).name]
    x = np.asarray(x, dtype=np.int32)
    channels = x.shape[-1] if x.ndim else 1
    bs = [0] * channels if bias is None else np.asarray(bias, dtype=np.int64).tolist()
    flat = x.reshape(-1, channels) if x.size else np.zeros((0, channels), np.int32)
    out = []
    for row in flat.tolist():
        line = []
        for k, v in enumerate(row):
            r = wrap32(wrap32(wrap32(v + int(offset)) + bs[k]) * int(multiplier)) >> int(shift)
            if min != max:
                r = builtins_min(builtins_max(r, int(min)), int(max))
            line.append(builtins_min(builtins_max(r, tlo), thi))
        out.append(line)
    return np.array(out, dtype=np.dtype(out_dtype).name).reshape(x.shape)


def acl_quantize_down_float(x, real_multiplier, offset, bias=None, min=0, max=0,
                            out_dtype="uint8"):
    """ACL QUANTIZE_DOWN_FLOAT (GEMMLowp.cpp quantize_down_scale_by_float):
    float32(acc + bias) * float32 multiplier + float32(offset) (two float32 roundings:
    the offset is added in float, before the rounding), std::round (half away from
    zero), bounded ReLU, saturation."""
    tlo, thi = REQUANT_OUT[np.dtype(out_dtype).name]
    x = np.asarray(x, dtype=np.int32)
    channels = x.shape[-1] if x.ndim else 1
    scales = np.broadcast_to(np.asarray(real_multiplier, dtype=np.float32), (channels,))
    bs = [0] * channels if bias is None else np.asarray(bias, dtype=np.int64).tolist()
    flat = x.reshape(-1, channels) if x.size else np.zeros((0, channels), np.int32)
    out = []
    for row in flat.tolist():
        line = []
        for k, v in enumerate(row):
            f = np.float32(wrap32(v + bs[k])) * scales[k] + np.float32(int(offset))
            r = round_half_away(float(f))
            if min != max:
                r = builtins_min(builtins_max(r, int(min)), int(max))
            line.append(builtins_min(builtins_max(r, tlo), thi))
        out.append(line)
    return np.array(out, dtype=np.dtype(out_dtype).name).reshape(x.shape)


def quantize_multiplier_tflite(real):
    """TFLite QuantizeMultiplier (quantization_util.cc), default build, in simdops' sign
    (shift > 0 right; TFLite stores -shift): ACL's pair, but (0, 0) where the shift would
    exceed 31."""
    exact = Fraction(float(real))
    e = 0
    while exact / Fraction(2) ** e >= 1:
        e += 1
    while exact / Fraction(2) ** e < Fraction(1, 2):
        e -= 1
    m = math.floor(exact / Fraction(2) ** e * (1 << 31) + Fraction(1, 2))
    if m == 1 << 31:
        m //= 2
        e += 1
    if -e > 31:
        return 0, 0
    if -e < -31:
        raise ValueError("shift out of range")
    return m, -e


def quantize_multiplier_xnnpack(real):
    """XNNPACK rndnu (microparams-init.c): the scale rounded to float32 (C's double ->
    float, to nearest even), M24 its significand in [2**23, 2**24), t with
    scale = M24 * 2**-t; returned as (M24 << 7, t - 24) for simdops' single rounding."""
    real32 = float(np.float32(real))
    if not math.isfinite(real32) or not Fraction(2) ** -32 <= Fraction(real32) < 256:
        raise ValueError("outside XNNPACK's range")
    f = Fraction(real32)
    t = 0
    while f * Fraction(2) ** t < (1 << 23):
        t += 1
    while f * Fraction(2) ** t >= (1 << 24):
        t -= 1
    m24 = f * Fraction(2) ** t
    assert m24.denominator == 1
    return int(m24) << 7, t - 24


def requantize_fp64_litert_reference(x, scale, zero_point=0, bias=None, out_dtype="int8"):
    """LiteRT's reference FULLY_CONNECTED exactly as built for x86
    (tflite/kernels/internal/reference/integer_ops/fully_connected.h):
    static_cast<int32_t>(round(double(acc + bias) * scale)) — a rounded product outside
    int32 converts to INT32_MIN (cvttsd2si) — then + zero point in int32, then the clamp.
    Differs from requantize_fp32(precision="float64", ties="away") only there."""
    x = np.asarray(x, dtype=np.int32)
    tlo, thi = REQUANT_OUT[np.dtype(out_dtype).name]
    channels = x.shape[-1] if x.ndim else 1
    scales = np.broadcast_to(np.asarray(scale, dtype=np.float64), (channels,))
    bs = [0] * channels if bias is None else np.asarray(bias, dtype=np.int64).tolist()
    flat = x.reshape(-1, channels) if x.size else np.zeros((0, channels), np.int32)
    out = []
    for row in flat.tolist():
        line = []
        for k, v in enumerate(row):
            r = round_half_away(float(np.float64(wrap32(v + bs[k])) * scales[k]))
            if not INT32_MIN <= r <= INT32_MAX:
                r = INT32_MIN
            line.append(builtins_min(builtins_max(wrap32(r + int(zero_point)), tlo), thi))
        out.append(line)
    return np.array(out, dtype=np.dtype(out_dtype).name).reshape(x.shape)
