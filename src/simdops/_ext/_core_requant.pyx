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
_FP_TIES = {"even": 0, "away": 2}  # SIMDOPS_FP_TIES_AWAY
FP_MODE_ACL = 4  # SIMDOPS_FP_ACL: ACL's QUANTIZE_DOWN_FLOAT order (simdops.acl)
ROUNDING_FLOOR = SIMDOPS_ROUNDING_FLOOR  # ACL's QUANTIZE_DOWN (simdops.acl)


cdef dict _rounding_codes = _ROUNDINGS


cdef int _rounding_value(object rounding) except -1:
    if rounding is "double":  # the default (an interned constant): no dict probe
        return SIMDOPS_ROUNDING_DOUBLE
    code = _rounding_codes.get(rounding) if type(rounding) is str else None
    if code is not None:
        return code
    raise ValueError(f"quantize: rounding must be one of {', '.join(map(repr, _ROUNDINGS))}, "
                     f"got {rounding!r}")


cdef dict _fp_precision_codes = _FP_PRECISIONS, _fp_ties_codes = _FP_TIES


cdef int _fp_mode_value(object precision, object ties) except -1:
    if precision is "float32" and ties is "even":  # the defaults (interned): no dict probes
        return 0
    if type(precision) is not str or precision not in _fp_precision_codes:
        raise ValueError(f"quantize: precision must be 'float32' or 'float64', got {precision!r}")
    if type(ties) is not str or ties not in _fp_ties_codes:
        raise ValueError(f"quantize: ties must be 'even' or 'away', got {ties!r}")
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


def requantize_fp32(x, scale, zero_point=0, *, bias=None, min=None, max=None, out_dtype="uint8",
                    precision="float32", ties="even", out=None):
    """Float requantization of int32 accumulators (ONNX Runtime, XNNPACK, PyTorch fbgemm).

    Per element, with ``k`` the index along the last axis::

        a = wrap32(x + bias[k])
        v = float32(a) * float32(scale[k])          # one rounding, never fused
        v = min(max(v, min - zero_point), max - zero_point)
        y = round_half_even(v) + zero_point

    which is ONNX Runtime MLAS's ``MlasRequantizeOutput`` (QLinearMatMul, QLinearConv),
    XNNPACK's fp32 requantization and fbgemm's (for accumulators whose scaled value
    stays within int32). ``precision="float64"`` forms ``double(a) * scale`` in double
    (a Python float scale keeps all its bits; float32 per-channel scales are widened
    exactly); ``ties="away"`` rounds half away from zero. ``precision="float64",
    ties="away"`` is LiteRT's reference FULLY_CONNECTED. Every combination is allowed.
    Clamping before or after rounding gives the same result (the bounds are integers).

    Parameters
    ----------
    x : array-like of int32
        The accumulators.
    scale : float or float32 1-D array
        Finite; a float is rounded once to float32 (under precision="float32"); an
        array gives one scale per channel (length = x's last dimension).
    zero_point : int, default 0
        The output zero point, within out_dtype's range.
    bias : int32 1-D array-like, optional
        Added per channel before the multiply (wrapping int32 add, as MLAS's vector code).
    min, max : int or None
        Bounds inside out_dtype's range, both inclusive; None is the type's bound.
        ``min == max`` clamps every output to that value.
    out_dtype : {"uint8", "int8", "int16"} or numpy dtype, default "uint8"
    precision : {"float32", "float64"}, default "float32"
    ties : {"even", "away"}, default "even"
    out : writable buffer or DLPack tensor, optional

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``

    Raises
    ------
    TypeError
        x is not int32, a per-channel scale array is not float32, out_dtype is not one
        of the three.
    ValueError
        A scale that is not finite (as float32 under precision="float32"), zero_point
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
    cdef simdops_dtype od = _requant_out_dtype(out_dtype)
    cdef int status
    mode = _fp_mode_value(precision, ties)
    if type(scale) is float:  # the common per-tensor call: no isinstance walk
        s = <double>scale
    elif type(scale) is np.ndarray:  # per channel
        if _array_view(scale, False, &scale_view):  # scale, an argument, outlives the call
            scales = &scale_view
        else:
            sb = _buf(scale, "scale")
        s = 1.0
    elif isinstance(scale, (float, int, np.floating, np.integer)) and not isinstance(scale, bool):
        try:
            s = float(scale)
        except OverflowError:
            raise ValueError(f"quantize: scale = {scale} is not finite as a double") from None
    else:
        sb = _buf(scale if PyObject_CheckBuffer(scale) else np.asarray(scale), "scale")
        s = 1.0
    cdef int64_t zp = _int64(zero_point, "zero_point")
    if min is not None:
        lo = _int64(min, "min")
    if max is not None:
        hi = _int64(max, "max")
    if simdops_prepare_requant_fp(od, s, zp, NULL if min is None else &lo,
                                  NULL if max is None else &hi, mode, &prep, &err):
        _raise(&err)
    if bias is not None:
        bb = _channel_array(bias, "bias")
    if sb is not None:
        scales = &sb.t
    cdef _Buf ob = _out_buf(out, xb, od)
    _run_requant_fp(&prep, xb, ob, bb, scales)
    return _result(ob, out)


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
                            const simdops_tensor *scales):
    cdef simdops_error err
    cdef int status
    with nogil:
        status = simdops_requant_fp_prepared(prep, &xb.t, &ob.t,
                                             NULL if bb is None else &bb.t, scales, &err)
    if status:
        _raise(&err)
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
