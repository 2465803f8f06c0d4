# The requantization families' wrappers (included by _core.pyx): the rounding
# names, the float families' requantize_fp32, and integer vectors of other
# widths. Every rule is C's (csrc/rules/requant_families.c); here only translation.


def roundings():
    """The requantization families of C's SIMDOPS_ROUNDINGS, by code: (name, code,
    shift_lo, shift_hi, array_api), where [shift_lo, shift_hi] is the shift range the
    family accepts and array_api tells whether quantize_down_int32's rounding= takes
    the name ("floor", ACL's QUANTIZE_DOWN, is reached through simdops.acl)."""
    cdef int32_t lo, hi
    out = []
    for code in range(SIMDOPS_ROUNDING_COUNT):
        simdops_requant_shift_range(code, &lo, &hi)
        out.append(((<bytes>simdops_py_rounding_name(code)).decode(), code, lo, hi,
                    bool(simdops_py_rounding_array_api(code))))
    return out


def rounding_entries():
    """{family name: its per-tensor kernel-table entry} (the per-channel one adds "_pc"),
    from C's SIMDOPS_ROUNDINGS."""
    return {(<bytes>simdops_py_rounding_name(code)).decode():
            (<bytes>simdops_py_rounding_entry(code)).decode()
            for code in range(SIMDOPS_ROUNDING_COUNT)}


def _rounding_members():
    """The simdops_rounding members by code ("SIMDOPS_ROUNDING_DOUBLE", ...)."""
    return [(<bytes>simdops_py_rounding_member(code)).decode()
            for code in range(SIMDOPS_ROUNDING_COUNT)]


_ROUNDINGS = {name: code for name, code, _lo, _hi, array_api in roundings() if array_api}
_FP_PRECISIONS = {"float32": 0, "float64": 1}  # SIMDOPS_FP_FLOAT64
_FP_TIES = {"even": 0, "away": 2, "add_half": 8}  # SIMDOPS_FP_TIES_AWAY, _TIES_ADD_HALF
FP_MODE_ACL = 4  # SIMDOPS_FP_ACL: ACL's QUANTIZE_DOWN_FLOAT order (simdops.acl)
ROUNDING_FLOOR = SIMDOPS_ROUNDING_FLOOR  # ACL's QUANTIZE_DOWN (simdops.acl)


cdef dict _rounding_codes = _ROUNDINGS


cdef int _rounding_value(object rounding, str func) except -1:
    if rounding is "double":  # the default (an interned constant): no dict probe
        return SIMDOPS_ROUNDING_DOUBLE
    code = _rounding_codes.get(rounding) if type(rounding) is str else None
    if code is not None:
        return code
    raise ValueError(f"{func}: rounding must be one of {', '.join(map(repr, _ROUNDINGS))}, "
                     f"got {rounding!r}")


cdef dict _fp_precision_codes = _FP_PRECISIONS, _fp_ties_codes = _FP_TIES


cdef int _fp_mode_value(object precision, object ties, str func) except -1:
    if precision is "float32" and ties is "even":  # the defaults (interned): no dict probes
        return 0
    if type(precision) is not str or precision not in _fp_precision_codes:
        raise ValueError(f"{func}: precision must be 'float32' or 'float64', got {precision!r}")
    if type(ties) is not str or ties not in _fp_ties_codes:
        raise ValueError(f"{func}: ties must be 'even', 'away' or 'add_half', got {ties!r}")
    return _fp_precision_codes[precision] | _fp_ties_codes[ties]


cdef object _int_array_to_int32(object v, str name):
    """An integer numpy array of another width as int32, when every value fits."""
    if v.size and (int(v.min()) < -(1 << 31) or int(v.max()) >= (1 << 31)):
        raise ValueError(f"{name} has values outside the int32 range")
    return v.astype(np.int32)


def _requant_family(x, multiplier, shift, offset=0, *, int rounding, bias=None, min=None,
                    max=None, out_dtype="uint8", out=None):
    """quantize_down_int32 with a family by number (SIMDOPS_ROUNDING_*), for the
    descriptor layers (ACL's QUANTIZE_DOWN is family 3)."""
    return _requant(x, multiplier, shift, offset, bias, min, max, _requant_out_dtype(out_dtype),
                    out, rounding)


cdef double _real_scale(object v, bint f32, str func) except? -1.0:
    """A real number (int, float, numpy scalar, Fraction, any numbers.Real) as the
    double C takes. float() rounds it once to double; for float32 (f32) C rounds
    that double again, which can differ from rounding the number once only when
    the double lands exactly halfway between two float32s: then it is moved one
    double toward the number itself, to the side the number lies on."""
    cdef double d
    try:
        d = float(v)
    except OverflowError:
        text = _int_text(v) if _is_int(v) else type(v).__name__
        raise ValueError(f"{func}: scale = {text} is not finite as a double") from None
    if not f32 or not (_is_int(v) or isinstance(v, Fraction)) or not (
            fabs(d) < 3.4028234663852886e38):  # beyond FLT_MAX: C refuses it
        return d
    if _is_int(v) and -(1 << 53) <= v <= (1 << 53):  # the double is the int itself
        return d
    exact = int(v) if _is_int(v) else v
    if Fraction(d) == exact:
        return d
    above = exact > Fraction(d)
    lo = float(np.float32(d))
    hi = float(np.nextafter(np.float32(d), np.float32(np.inf if d > lo else -np.inf)))
    if d != lo and lo + (hi - lo) / 2 == d:  # halfway between the float32s lo and hi
        return nextafter(d, INFINITY if above else -INFINITY)
    return d


cdef _Buf _scale_vector(object v, int mode, str func):
    """Per-channel scales: what x accepts (_interop for objects without the buffer
    protocol); float64, float16 or integer arrays become float32 through C's
    conversion (simdops_requant_scales_from_f64), which rounds once or refuses; under
    float64 precision (mode & 1) they become float64, which C uses as doubles."""
    cdef simdops_error err
    cdef const double[::1] src
    cdef float[::1] dst
    cdef int status = 0
    if not PyObject_CheckBuffer(v):
        v = _intake_input(v, "scale")
    if (isinstance(v, np.ndarray) and v.dtype != np.float32 and v.dtype.kind in "fiu"
            and v.dtype.isnative):
        d = np.ascontiguousarray(v, dtype=np.float64)
        if v.dtype.kind in "iu" and v.size:
            # a double at or above 2**63 (2**64 unsigned) rounded its integer up; casting it
            # back is platform-defined (x86 gives INT64_MIN, aarch64 saturates), so it is
            # refused before the cast is looked at
            hi = 2.0 ** (v.dtype.itemsize * 8 - (v.dtype.kind == "i"))
            with np.errstate(invalid="ignore"):
                inexact = ((d >= hi) | (d.astype(v.dtype) != v)).any()
            if inexact:
                raise ValueError(f"{func}: scale holds integers a double does not hold "
                                 f"exactly")
        if mode & 1:  # float64 precision: C takes the doubles as they are
            return _buf(d, "scale")
        f = np.empty(d.shape, np.float32)
        src = d.reshape(-1)
        dst = f.reshape(-1)
        if src.shape[0]:
            with nogil:
                status = simdops_requant_scales_from_f64(&src[0], src.shape[0], mode, &dst[0],
                                                         &err)
        if status:
            err.op = SIMDOPS_OP_REQUANT
            _raise(&err, func)
        v = f
    return _buf(v, "scale")


cdef extern from "_core_requant_memo.h":
    # this thread's last prepared chain, prepared again only when an input differs
    int simdops_py_prepare_requant_fp_chain(simdops_dtype out_dtype, double scale,
                                            int64_t zero_point, const int64_t *min,
                                            const int64_t *max, int mode,
                                            const simdops_requant_fp_chain *chain,
                                            simdops_prepared *p, simdops_error *err) nogil


def requantize_fp32(x, scale, zero_point=0, *, bias=None, min=None, max=None, out_dtype="uint8",
                    precision="float32", ties="even", out=None, pre_scale=None, post_scale=None,
                    post_divide=None, offset=None, bias_at="input"):
    """Float requantization of int32 accumulators (ONNX Runtime, XNNPACK, PyTorch fbgemm,
    oneDNN, OpenVINO, LiteRT's reference FULLY_CONNECTED, ncnn).

    Per element, with ``k`` the index along the last axis::

        a = wrap32(x + bias[k])
        v = float32(a) * float32(scale[k])          # one rounding, never fused
        v = min(max(v, min - zero_point), max - zero_point)
        y = round_half_even(v) + zero_point

    The chain (each step given runs, in this order, each rounded to the working
    precision, never fused)::

        v = float32(x) + bias[k]        # bias given as a float32 array (fbgemm's float bias)
        v = v * pre_scale               # oneDNN: the source scale first
        v = v * scale[k]
        v = v + bias[k]                 # bias_at="scaled": oneDNN's float32 bias
        v = v * post_scale              # oneDNN's JIT: float32(1 / output_scale)
          or v / post_divide            # oneDNN's reference: divides
        v = v + offset                  # OpenVINO's FakeQuantize shift

    ``simdops.runtimes`` derives these numbers from a model's own as each runtime
    does (docs/requantization.md has the table of which call gives which runtime).

    which is ONNX Runtime MLAS's ``MlasRequantizeOutput`` (QLinearMatMul, QLinearConv),
    XNNPACK's fp32 requantization and fbgemm's (for accumulators whose scaled value
    stays within int32). ``precision="float64"`` forms ``double(a) * scale`` in double
    (a Python float scale keeps all its bits; float32 per-channel scales are widened
    exactly); ``ties="away"`` rounds half away from zero. ``precision="float64",
    ties="away"`` is LiteRT's reference FULLY_CONNECTED (per channel: pass the float64
    scales; they are used as doubles). ``ties="add_half"`` adds ``copysign(0.5, v)`` in
    the working precision and truncates (ncnn's x86 SIMD). Every combination is allowed.
    Clamping before or after rounding gives the same result (the bounds are integers).

    Parameters
    ----------
    x : array-like of int32
        The accumulators.
    scale : real number or 1-D array-like of floats
        Finite. A real number (int, float, numpy scalar, Fraction) is rounded once to
        float32 (to float64 under precision="float64"). An array-like (buffer, DLPack
        tensor, list) gives one float32 scale per channel (length = x's last
        dimension); other float or integer types are rounded once to float32, or under
        precision="float64" used as doubles (LiteRT's per-channel reference
        FULLY_CONNECTED computes its scales in double).
    zero_point : int, default 0
        The output zero point, within out_dtype's range.
    bias : int32 or float32 1-D array-like, optional
        int32: added per channel before the multiply (wrapping int32 add, as MLAS's
        vector code). A float32 array: added to float32(x) in the working precision,
        unrounded, before every multiply (finite values).
    min, max : int or None
        Bounds inside out_dtype's range, both inclusive; None is the type's bound.
        ``min == max`` clamps every output to that value.
    out_dtype : {"uint8", "int8", "int16"} or numpy dtype, default "uint8"
    precision : {"float32", "float64"}, default "float32"
    ties : {"even", "away", "add_half"}, default "even"
    out : writable buffer or DLPack tensor, optional
    bias_at : {"input", "scaled"}, default "input"
        Where a float32 bias is added: to float32(x) first (fbgemm), or after the
        multiply by scale (oneDNN).
    pre_scale, post_scale, post_divide, offset : real number, optional
        The chain's per-tensor steps (finite; post_divide nonzero; not both post_scale
        and post_divide), rounded once to float32 (kept as doubles under
        precision="float64").

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``

    Raises
    ------
    TypeError
        x is not int32, scale is not a real number or an array of them, out_dtype is not
        one of the three.
    ValueError
        A scale or chain value that is not finite (as float32 under precision="float32"),
        a zero post_divide, both post_scale and post_divide, zero_point
        or bounds outside out_dtype's range, min > max, an unknown precision or ties,
        per-channel lengths that differ from the last dimension.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> simdops.requantize_fp32(np.array([-300, 5, 25, 1000], np.int32), 0.1, 128)
    array([ 98, 128, 130, 228], dtype=uint8)
    """
    cdef _Buf xb = _buf(x, "x", False, True)
    cdef _Buf bb = None, sb = None
    cdef simdops_tensor scale_view  # a per-channel ndarray's, with no _Buf made
    cdef const simdops_tensor *scales = NULL
    cdef simdops_prepared prep
    cdef simdops_error err
    cdef int64_t lo = 0, hi = 0
    cdef double s = 0.0
    cdef int mode
    cdef simdops_dtype od = _requant_out_dtype(out_dtype, "requantize_fp32")
    cdef int status
    mode = _fp_mode_value(precision, ties, "requantize_fp32")
    scale = _scalar_of(scale)
    if bias_at is not "input":
        if bias_at == "scaled":
            mode |= 512  # SIMDOPS_FP_BIAS_SCALED
        elif bias_at != "input":
            raise ValueError(f"requantize_fp32: bias_at must be 'input' or 'scaled', got "
                             f"{bias_at!r}")
    if type(scale) is float:  # the common per-tensor call: no isinstance walk
        s = <double>scale
    elif type(scale) is np.ndarray:  # per channel
        # scale, an argument, outlives the call
        if _array_view(scale, False, &scale_view) and scale_view.dtype == SIMDOPS_FLOAT32:
            scales = &scale_view
        else:
            sb = _scale_vector(scale, mode, "requantize_fp32")
        s = 1.0
    elif isinstance(scale, numbers.Real) and not isinstance(scale, (bool, np.bool_)):
        s = _real_scale(scale, not (mode & 1), "requantize_fp32")  # 1: SIMDOPS_FP_FLOAT64
    elif not isinstance(scale, (str, bytes, bytearray, bool, np.bool_)) and (
            PyObject_CheckBuffer(scale) or hasattr(scale, "__dlpack__") or
            hasattr(scale, "__len__")):
        sb = _scale_vector(scale, mode, "requantize_fp32")
        s = 1.0
    else:
        raise TypeError(f"requantize_fp32: scale must be a real number (int, float, Fraction, "
                        f"numpy scalar) or one float32 per channel (a 1-D array or a sequence "
                        f"of floats), got {type(scale).__name__}")
    cdef int64_t zp = _int64(zero_point, "zero_point")
    if min is not None:
        lo = _int64(min, "min")
    if max is not None:
        hi = _int64(max, "max")
    cdef simdops_requant_fp_chain chain
    cdef bint f32 = not (mode & 1)
    if pre_scale is None and post_scale is None and post_divide is None and offset is None:
        status = simdops_prepare_requant_fp_chain(od, s, zp, NULL if min is None else &lo,
                                                  NULL if max is None else &hi, mode, NULL,
                                                  &prep, &err)
    else:
        memset(&chain, 0, sizeof(chain))  # zeroed: its bytes are the memo's key
        if pre_scale is not None:
            chain.has_pre_scale = 1
            chain.pre_scale = _chain_value(pre_scale, f32, "pre_scale")
        if post_scale is not None:
            chain.has_post_scale = 1
            chain.post_scale = _chain_value(post_scale, f32, "post_scale")
        if post_divide is not None:
            chain.has_post_divisor = 1
            chain.post_divisor = _chain_value(post_divide, f32, "post_divide")
        if offset is not None:
            chain.has_offset = 1
            chain.offset = _chain_value(offset, f32, "offset")
        # this thread's last chain, prepared again only when an input differs
        status = simdops_py_prepare_requant_fp_chain(od, s, zp, NULL if min is None else &lo,
                                                     NULL if max is None else &hi, mode,
                                                     &chain, &prep, &err)
    if status:
        _raise(&err, "requantize_fp32")
    if bias is not None:
        bb = _channel_array(bias, "bias")
    if sb is not None:
        scales = &sb.t
    cdef _Buf ob = _out_buf(out, xb, od)
    _run_requant_fp(&prep, xb, ob, bb, scales, "requantize_fp32")
    return _result(ob, out)


cdef inline double _chain_value(object v, bint f32, str name) except? -1.0:
    """One of the chain's real numbers as the double C takes (rounded once to float32
    there under float32 precision: _real_scale keeps that one rounding). Inline, a
    Python float read in place (oneDNN's two scales): a call was ~25 instructions each,
    a few ns of a folded chain's call; the rest is _chain_value_other's."""
    if type(v) is float:
        return <double>v
    return _chain_value_other(v, f32, name)


cdef double _chain_value_other(object v, bint f32, str name) except? -1.0:
    """_chain_value of anything but a Python float."""
    if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)):
        return _real_scale(v, f32, "requantize_fp32")
    raise TypeError(f"requantize_fp32: {name} must be a real number (int, float, Fraction, "
                    f"numpy scalar), got {type(v).__name__}")


def _requant_fp_mode(x, scale, zero_point, *, int mode, bias=None, min=None, max=None,
                     out_dtype="uint8", out=None):
    """requantize_fp32 with a mode by number (SIMDOPS_FP_*), for the descriptor layers
    (ACL's QUANTIZE_DOWN_FLOAT is FP_MODE_ACL)."""
    cdef _Buf xb = _buf(x, "x", False, True)
    cdef _Buf bb = None, sb = None
    cdef simdops_prepared prep
    cdef simdops_error err
    cdef int64_t lo = 0, hi = 0
    cdef double s = 1.0
    cdef simdops_dtype od = _requant_out_dtype(out_dtype)
    if isinstance(scale, (float, int, np.floating, np.integer)):
        s = float(scale)
    else:
        sb = _buf(scale if PyObject_CheckBuffer(scale) else np.asarray(scale), "scale")
    if min is not None:
        lo = _int64(min, "min")
    if max is not None:
        hi = _int64(max, "max")
    if simdops_prepare_requant_fp(od, s, _int64(zero_point, "zero_point"),
                                  NULL if min is None else &lo, NULL if max is None else &hi,
                                  mode, &prep, &err):
        _raise(&err)
    if bias is not None:
        bb = _channel_array(bias, "bias")
    cdef _Buf ob = _out_buf(out, xb, od)
    _run_requant_fp(&prep, xb, ob, bb, NULL if sb is None else &sb.t)
    return _result(ob, out)


cdef object _run_requant_fp(const simdops_prepared *prep, _Buf xb, _Buf ob, _Buf bb,
                            const simdops_tensor *scales, str func=None):
    cdef simdops_error err
    cdef int status
    with nogil:
        status = simdops_requant_fp_prepared(prep, &xb.t, &ob.t,
                                             NULL if bb is None else &bb.t, scales, &err)
    if status:
        _raise(&err, func)
    return ob.obj


def prepare_requant_family_clamped(int out_dtype, int rounding, multiplier, shift, offset, min,
                                   max):
    """prepare_requant_clamped with a rounding family (SIMDOPS_ROUNDING_*): the acl
    layer's QUANTIZE_DOWN (ROUNDING_FLOOR). Raises like the array API."""
    cdef simdops_error err
    cdef Prepared p = _new_prepared("requant", out_dtype)
    if simdops_prepare_requant_rounding_clamped(<simdops_dtype>out_dtype, rounding,
                                                _int64(multiplier, "multiplier"),
                                                _int64(shift, "shift"), _int64(offset, "offset"),
                                                _int64(min, "min"), _int64(max, "max"), &p.p,
                                                &err):
        _raise(&err)
    return p


def check_requant_fp(int out_dtype, int mode, scale, zero_point, min, max):
    """None when simdops_prepare_requant_fp accepts these (a per-tensor scale), else
    the CoreError: the acl layer's QUANTIZE_DOWN_FLOAT validation."""
    cdef simdops_error err
    cdef simdops_prepared prep
    cdef int64_t lo = _int64(min, "min"), hi = _int64(max, "max")
    if simdops_prepare_requant_fp(<simdops_dtype>out_dtype, float(scale),
                                  _int64(zero_point, "zero_point"), &lo, &hi, mode, &prep, &err):
        return _core_error(&err)
    return None


def check_requant_family(int out_dtype, int rounding, multiplier, shift, offset, min, max):
    """None when prepare_requant_family_clamped accepts these, else the CoreError."""
    cdef simdops_error err
    cdef Prepared p = _new_prepared("requant", out_dtype)
    if simdops_prepare_requant_rounding_clamped(<simdops_dtype>out_dtype, rounding,
                                                _int64(multiplier, "multiplier"),
                                                _int64(shift, "shift"), _int64(offset, "offset"),
                                                _int64(min, "min"), _int64(max, "max"), &p.p,
                                                &err):
        return _core_error(&err)
    return None
