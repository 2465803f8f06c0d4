"""QuantizeLinear / DequantizeLinear over every ONNX type (int4, uint4, int2, uint2,
the float8 kinds, float4e2m1, bfloat16 and float8e8m0 scales), blocked
quantization, precision and saturate: translation onto ``_core.qdq``
(``simdops_quantize_linear_ex`` / ``simdops_dequantize_linear_ex``), where every
rule lives. Arrays of the low-bit types are ``ml_dtypes`` arrays (one element a
byte), or packed uint8 buffers (``packed=``)."""
import numpy as np

from simdops import _core
from simdops._interop import as_dtype

_QTYPES = _core.qtypes()  # name -> (onnx code, bits, kind, lo, hi, q opset, dq opset)
_BY_CODE = {v[0]: k for k, v in _QTYPES.items()}
_PACKABLE = tuple(k for k, v in _QTYPES.items() if v[1] < 8)


def _ml_dtypes():
    import ml_dtypes

    return ml_dtypes


def _np_dtype(name):
    """The numpy dtype of a profile type name (ml_dtypes' for the types numpy lacks)."""
    try:
        return np.dtype(name)
    except TypeError:
        return np.dtype(getattr(_ml_dtypes(), name))


def type_name(t, arg):
    """A profile type name from a dtype-like, an ml_dtypes type, a name, or an ONNX
    TensorProto code; TypeError naming arg otherwise."""
    if isinstance(t, (int, np.integer)) and not isinstance(t, bool):
        if int(t) in _BY_CODE:
            return _BY_CODE[int(t)]
        raise TypeError(f"{arg}: ONNX type {int(t)} is not in the simdops ONNX profile")
    if isinstance(t, str) and t in _QTYPES:
        return t
    try:
        name = dtype_name(as_dtype(t, arg))
    except TypeError:  # a spelling numpy cannot read: _interop.as_dtype
        name = None
    if name in _QTYPES:
        return name
    raise TypeError(f"{arg}: {t!r} is not a type of the simdops ONNX profile "
                    f"({', '.join(_QTYPES)})")


def _code(name):
    return _QTYPES[name][0]


def _array(v, arg):
    """An array argument as a C-contiguous numpy array in native byte order (any strides
    and order in: the C call reads the bytes as native values)."""
    a = np.ascontiguousarray(v if isinstance(v, np.ndarray) else _core_as_array(v, arg))
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def _core_as_array(v, arg):
    try:
        return np.asarray(v)
    except Exception:
        raise TypeError(f"{arg} must be an array") from None


_DTYPE_NAMES = {}  # dtype -> its name (numpy computes dtype.name on every access: ~3 us)


def dtype_name(dt):
    """dt.name, cached."""
    try:
        return _DTYPE_NAMES[dt]
    except KeyError:
        return _DTYPE_NAMES.setdefault(dt, dt.name)


def _dtype_name(a, arg):
    name = dtype_name(a.dtype)
    if name not in _QTYPES:
        raise TypeError(f"{arg} has dtype {a.dtype}, which is no type of the simdops ONNX "
                        f"profile ({', '.join(_QTYPES)})")
    return name


def _scale(v, arg):
    if isinstance(v, (bool, np.bool_)) or v is None or isinstance(v, (str, complex)):
        raise TypeError(f"{arg} must be a float array or a real number, got {type(v).__name__}")
    if isinstance(v, (float, int)):
        return np.asarray(v, np.float32)
    a = _array(v, arg)
    if a.dtype.kind in "iu":
        a = a.astype(np.float32)
    elif a.dtype == np.float64:
        a = a.astype(np.float32)
    return a


def _zero_point(v, type_, arg, packed_type=None, shape=None):
    """(array, type name, packed flag) of a zero point: a Python int takes type_;
    a uint8 buffer with packed_type (a 4/2-bit type) is packed in `shape`."""
    if v is None:
        return None, None, 0
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) \
            and not isinstance(v, np.generic):
        if type_ is None:
            raise TypeError(f"{arg}: a Python int needs the output type (output_dtype)")
        info = _QTYPES[type_]
        if info[2] != 1:
            raise TypeError(f"{arg}: a Python int is no {type_} value; give an array")
        if not info[3] <= v <= info[4]:
            raise ValueError(f"{arg} = {v} is outside the {type_} range [{info[3]}, {info[4]}]")
        return np.asarray(v, _np_dtype(type_)), type_, 0
    a = _array(v, arg)
    if packed_type is not None and a.dtype == np.uint8 and packed_type in _PACKABLE:
        return a, packed_type, 1
    return a, _dtype_name(a, arg), 0


def _packed_bytes(n, name):
    bits = _QTYPES[name][1]
    return (n * bits + 7) // 8


def _out_or_new(out, shape, dtype, *inputs, zeros=False):
    """out itself when the kernels can write it directly (a C-contiguous, writable array of
    the result's shape and dtype sharing no memory with an input), else a new array (the
    caller copies it into out after)."""
    shape = tuple(shape)
    if (isinstance(out, np.ndarray) and out.shape == shape and out.dtype == dtype
            and out.flags.c_contiguous and out.flags.writeable
            and not any(a is not None and np.may_share_memory(out, a) for a in inputs)):
        if zeros and out.size:
            out.reshape(-1)[-1:] = 0   # a packed result's last byte may keep padding bits
        return out
    return (np.zeros if zeros else np.empty)(shape, dtype)


def quantize_linear(x, y_scale, y_zero_point=None, *, axis=1, block_size=0, saturate=1,
                    output_dtype=None, precision=None, packed=False, opset=0, out=None):
    """QuantizeLinear of every ONNX type (see simdops.onnx.quantize_linear)."""
    xa = _array(x, "x")
    xt = _dtype_name(xa, "x")
    sa = _scale(y_scale, "y_scale")
    st = _dtype_name(sa, "y_scale")
    yt = type_name(output_dtype, "output_dtype") if output_dtype is not None else None
    za, zt, zpacked = _zero_point(y_zero_point, yt or "uint8", "y_zero_point",
                                  packed_type=yt if packed else None)
    if yt is None:
        yt = zt or "uint8"
    prec = 0 if precision is None else _code(type_name(precision, "precision"))
    n = xa.size
    if packed and yt in _PACKABLE:
        y = _out_or_new(out, (_packed_bytes(n, yt),), np.uint8, xa, sa, za, zeros=True)
    else:
        packed = False
        y = _out_or_new(out, xa.shape, np.dtype(_np_dtype(yt)), xa, sa, za)
    _core.qdq(True, xa, sa, za, y, xa.shape, sa.shape, () if za is None else za.shape,
              _code(xt), _code(st), 0 if zt is None else _code(zt), _code(yt),
              (1 if packed else 0) | (2 * zpacked), _flag(saturate, "saturate"), prec,
              opset, axis, block_size)
    return y


def dequantize_linear(x, x_scale, x_zero_point=None, *, axis=1, block_size=0,
                      output_dtype=None, packed=None, shape=None, opset=0, out=None):
    """DequantizeLinear of every ONNX type (see simdops.onnx.dequantize_linear)."""
    xa = _array(x, "x")
    if packed is not None:
        xt = type_name(packed, "packed")
        if xt not in _PACKABLE:
            raise TypeError(f"packed: {xt} is not a 4-bit or 2-bit type ({', '.join(_PACKABLE)})")
        if xa.dtype != np.uint8:
            raise TypeError(f"x: a packed {xt} tensor is a uint8 buffer, got {xa.dtype}")
        if shape is None:
            raise TypeError("shape: a packed x needs its element shape")
        shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"shape: extents must be >= 0, got {shape}")
        need = _packed_bytes(int(np.prod(shape, dtype=np.int64)), xt)
        if xa.size != need:
            raise ValueError(f"x: a packed {xt} tensor of shape {shape} has {need} bytes, "
                             f"got {xa.size}")
    else:
        xt = _dtype_name(xa, "x")
        shape = xa.shape
    sa = _scale(x_scale, "x_scale")
    st = _dtype_name(sa, "x_scale")
    za, zt, zpacked = _zero_point(x_zero_point, xt, "x_zero_point",
                                  packed_type=xt if packed is not None else None)
    if zpacked and za.size != _packed_bytes(sa.size, xt):
        raise ValueError(f"x_zero_point: a packed {xt} zero point of the scale's shape "
                         f"{sa.shape} has {_packed_bytes(sa.size, xt)} bytes, got {za.size}")
    yt = type_name(output_dtype, "output_dtype") if output_dtype is not None else st
    zshape = () if za is None else (sa.shape if zpacked else za.shape)
    y = _out_or_new(out, shape, np.dtype(_np_dtype(yt) if _QTYPES[yt][2] == 0 else np.float32),
                    xa, sa, za)
    _core.qdq(False, xa, sa, za, y, tuple(shape), sa.shape, zshape, _code(xt), _code(st),
              0 if zt is None else _code(zt), _code(yt),
              (1 if packed is not None else 0) | (2 * zpacked), 1, 0, opset, axis, block_size)
    return y


def _flag(v, arg):
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v) if -2**31 <= int(v) < 2**31 else 2
    raise TypeError(f"{arg} must be an int, got {type(v).__name__}")


_F32_CODE = _QTYPES["float32"][0]
_ONE_BYTE_FLOATS = {k: _QTYPES[k][0] for k in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                                                "float8_e5m2fnuz")}


def dequantize_into(x, scale, axis, out):
    """The per-call cost of a common form made small: a C-contiguous float8 ndarray x, a
    0-d float32 ndarray scale, no zero point, a float32 out of x's shape that shares no
    memory with x: straight to _core.qdq_into, which reads the arrays' fields (C checks
    every rule, as for any call). None: not this form (the caller takes the general
    path)."""
    if type(x) is not np.ndarray:
        return None
    code = _ONE_BYTE_FLOATS.get(dtype_name(x.dtype))
    if code is None:
        return None
    return _core.qdq_into(False, x, scale, out, code, _F32_CODE, 1, axis)


def quantize_into(x, scale, output_dtype, saturate, axis, out):
    """quantize_linear's form of dequantize_into: a C-contiguous float32 ndarray x, a 0-d
    float32 ndarray scale, no zero point, a float8 out of x's shape (output_dtype None or
    naming out's type), saturate a plain 0 / 1. None: not this form."""
    if type(out) is not np.ndarray or (saturate is not True and saturate is not False
                                       and not (type(saturate) is int and saturate in (0, 1))):
        return None
    name = dtype_name(out.dtype)
    code = _ONE_BYTE_FLOATS.get(name)
    if code is None or not (output_dtype is None or output_dtype is out.dtype.type
                            or (type(output_dtype) is str and output_dtype == name)
                            or (isinstance(output_dtype, np.dtype) and output_dtype == out.dtype)):
        return None
    return _core.qdq_into(True, x, scale, out, code, _F32_CODE, int(saturate), axis)
