# Quantized add / subtract / multiply (included by _core.pyx). Translation only:
# inputs become buffers (a Python number or list takes the other input's dtype),
# the output array gets the broadcast shape, the model's numbers become
# simdops_qbinary_args, C checks, derives and runs.

cdef extern from *:
    """
    /* the arithmetic names in code order, from the one list */
    static const char *const simdops_py_arith_names[] = {
    #define SIMDOPS_X_PY_ARITH(name, code, text) text,
        SIMDOPS_QBINARY_ARITHMETICS(SIMDOPS_X_PY_ARITH)
    #undef SIMDOPS_X_PY_ARITH
    };
    """
    const char *const simdops_py_arith_names[]

cdef extern from *:
    """
    /* This thread's last prepared quantized binary handle and what it was prepared
     * from: a model calls an op with the same numbers again and again, and the
     * derivation (validation, QuantizeMultiplier, the ratios) was ~5% of a small
     * call. The key is the args' bytes (_qb_args zeroes them first), the dtype and
     * the floating-point environment the derivation rounds in (_memo_common.h: MXCSR
     * without its sticky flags on x86, elsewhere the rounding mode),
     * so a hit is exactly what simdops_prepare_qbinary would return. A refused
     * call is not remembered (it prepares again and raises the same error). */
    #include <string.h>
    #include "_memo_common.h"
    typedef struct simdops_py_qb_memo {
        int valid;
        simdops_dtype dtype;
        unsigned fpenv;
        simdops_qbinary_args args;
        simdops_prepared prep;
    } simdops_py_qb_memo;
    static SIMDOPS_PY_TLS simdops_py_qb_memo simdops_py_qb_last;

    static int simdops_py_prepare_qbinary(simdops_dtype dtype, const simdops_qbinary_args *q,
                                          simdops_prepared *p, simdops_error *err)
    {
        simdops_py_qb_memo *m = &simdops_py_qb_last;
        const unsigned fpenv = simdops_py_fp_env();
        int s;
        if (m->valid && m->dtype == dtype && m->fpenv == fpenv &&
            !memcmp(&m->args, q, sizeof(*q))) {
            *p = m->prep;
            return 0;
        }
        s = simdops_prepare_qbinary(dtype, q, p, err);
        if (s == 0) {
            m->dtype = dtype;
            m->fpenv = fpenv;
            m->args = *q;
            m->prep = *p;
            m->valid = 1;
        }
        return s;
    }
    """
    int simdops_py_prepare_qbinary(simdops_dtype dtype, const simdops_qbinary_args *q,
                                   simdops_prepared *p, simdops_error *err) nogil

cdef dict _ARITHMETICS = {(<bytes>simdops_py_arith_names[k]).decode(): k
                          for k in range(<int>SIMDOPS_ARITH_COUNT)}
cdef dict _QB_OPS = {"add": SIMDOPS_OP_QUANTIZED_ADD, "subtract": SIMDOPS_OP_QUANTIZED_SUBTRACT,
                     "multiply": SIMDOPS_OP_QUANTIZED_MULTIPLY}
# the derived parameters that are float32 values (the rest are integers)
cdef frozenset _QB_FLOAT_PARAMS = frozenset({"scale", "scale_ratio_a", "scale_ratio_b",
                                             "fixed_part"})


def arithmetics():
    """The arithmetic names, in code order (simdops.h's SIMDOPS_QBINARY_ARITHMETICS)."""
    return tuple(_ARITHMETICS)


cdef int _arithmetic_code(object arithmetic, str func) except -1:
    code = _ARITHMETICS.get(arithmetic) if type(arithmetic) is str else None
    if code is None:
        raise ValueError(f"{func}: arithmetic must be one of {', '.join(map(repr, _ARITHMETICS))}, "
                         f"got {arithmetic!r}")
    return code


cdef int _qb_args(simdops_qbinary_args *q, int op, object arithmetic, object a_scale,
                  object a_zero_point, object b_scale, object b_zero_point, object y_scale,
                  object y_zero_point, object min, object max, str func) except -1:
    memset(q, 0, sizeof(q[0]))
    q.op = op
    q.arithmetic = _arithmetic_code(arithmetic, func)
    q.a_scale = _number(a_scale, "a_scale")
    q.b_scale = _number(b_scale, "b_scale")
    q.y_scale = _number(y_scale, "y_scale")
    q.a_zero_point = _int64(a_zero_point, "a_zero_point")
    q.b_zero_point = _int64(b_zero_point, "b_zero_point")
    q.y_zero_point = _int64(y_zero_point, "y_zero_point")
    if min is not None:
        q.min = _int64(min, "min")
        q.has_min = 1
    if max is not None:
        q.max = _int64(max, "max")
        q.has_max = 1
    return 0


cdef _Buf _qb_input(object v, str name, object other):
    """An input buffer; a value without a dtype (Python ints, lists) takes the other
    input's dtype when it has one, range-checked (a value the type cannot hold is a
    ValueError, not a wrap)."""
    if PyObject_CheckBuffer(v) or hasattr(v, "__dlpack__") or hasattr(v, "__array__"):
        return _buf(v, name)
    dt = getattr(other, "dtype", None)
    if dt is None or not isinstance(dt, np.dtype) or dt.kind not in "iu":
        raise TypeError(f"{name} has no dtype and the other input gives none: pass a and b as "
                        f"uint8, int8 or int16 arrays (or one of them as one)")
    try:
        arr = np.asarray(v)
    except Exception:
        raise TypeError(f"{name} must be an integer array or an int") from None
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got {arr.dtype}")
    info = np.iinfo(dt)
    if arr.size and (arr.min() < info.min or arr.max() > info.max):
        raise ValueError(f"{name} has values outside the {dt.name} range "
                         f"[{info.min}, {info.max}]")
    return _buf(arr.astype(dt), name)


cdef _Buf _qb_new_out(_Buf ab, _Buf bb):
    """A new output of numpy's broadcast shape of a and b, a's dtype; where they do not
    broadcast, of the longer shape, which C then refuses naming the input that does
    not fit."""
    cdef simdops_tensor o  # only its shape: room for SIMDOPS_MAX_DIMS
    cdef int n = ab.t.ndim if ab.t.ndim > bb.t.ndim else bb.t.ndim
    cdef int d
    cdef int64_t x, y
    for d in range(n):
        x = ab.t.shape[d - (n - ab.t.ndim)] if d >= n - ab.t.ndim else 1
        y = bb.t.shape[d - (n - bb.t.ndim)] if d >= n - bb.t.ndim else 1
        o.shape[d] = x if x != 1 else y
    return _new_out(o.shape, n, ab.t.dtype if ab.t.dtype in _NP_DTYPES else SIMDOPS_INT8)


cdef inline int _qb_run(const simdops_qbinary_args *q, const simdops_tensor *a,
                        const simdops_tensor *b, const simdops_tensor *y, str func) except -1:
    """Prepares q for a's dtype (this thread's memo) and runs it on the views a, b into y,
    the GIL released for both; a refusal of either raises, named by func. Both of
    _qbinary's paths (stack views, _Buf views) end here. Inline: a 64-element call
    measured as fast as with the block written out twice; called, 4-7 ns slower."""
    cdef simdops_prepared prep
    cdef simdops_error err
    cdef int status
    with nogil:
        status = simdops_py_prepare_qbinary(a.dtype, q, &prep, &err)
        if status == 0:
            status = simdops_qbinary_prepared(&prep, a, b, y, &err)
    if status:
        _raise(&err, func)
    return 0


cdef object _qbinary(int op, object a, object a_scale, object a_zero_point, object b,
                     object b_scale, object b_zero_point, object y_scale, object y_zero_point,
                     object arithmetic, object min, object max, object out, str func):
    cdef simdops_qbinary_args q
    cdef _Buf ab, bb, ob
    # plain ndarrays in and out (a model's loop): their views on the stack, no _Buf
    # objects (three of them were ~15% of a 64-element call); _buf takes the same
    # views for these, so anything the views refuse goes the general way below
    cdef simdops_tensor ta, tb, to
    _qb_args(&q, op, arithmetic, a_scale, a_zero_point, b_scale, b_zero_point, y_scale,
             y_zero_point, min, max, func)
    if (type(out) is _NDARRAY and type(a) is _NDARRAY and type(b) is _NDARRAY and
            _array_view(a, False, &ta) and _array_view(b, False, &tb) and
            _array_view(out, True, &to)):
        _qb_run(&q, &ta, &tb, &to, func)
        return out
    if PyObject_CheckBuffer(a) or hasattr(a, "__dlpack__") or hasattr(a, "__array__"):
        ab = _buf(a, "a")
        bb = _qb_input(b, "b", ab.obj)
    else:
        bb = _qb_input(b, "b", a)
        ab = _qb_input(a, "a", bb.obj)
    if out is None:
        ob = _qb_new_out(ab, bb)
    else:
        ob = _buf(out, "out", True)
    _qb_run(&q, &ab.t, &bb.t, &ob.t, func)
    return _result(ob, out)


_QB_DOC = """Quantized {what} of two quantized tensors, with one runtime's exact arithmetic.

    ``y = quantize(dequantize(a) {sym} dequantize(b))`` as the runtime named by
    ``arithmetic`` computes it, bit for bit (docs/quantized-elementwise.md).

    Parameters
    ----------
    a, b : array-like
        uint8, int8 or int16 (the same dtype; ``"xnnpack"`` and ``"onnxruntime"``
        take uint8 / int8), broadcast against each other as numpy does (scalars and
        0-d arrays too). A Python int or list takes the other input's dtype.
    a_scale, a_zero_point, b_scale, b_zero_point, y_scale, y_zero_point
        The model's quantization parameters: scales are rounded to float32 (as a
        model stores them) and must be positive and finite; zero points are ints in
        the dtype's range.
    arithmetic : {{"tflite", "xnnpack", "onnxruntime"}}
        ``"tflite"``: LiteRT/TFLite's builtin {tfl} kernel (reference integer
        arithmetic); ``"xnnpack"``: XNNPACK's {xnn} (LiteRT's default delegate on
        x86); ``"onnxruntime"``: com.microsoft.{ort} (MLAS, x86).
    min, max : int, optional
        The fused activation's bounds in y's quantized domain (RELU, RELU6, ...);
        default the dtype's range.
    out : writable buffer, optional
        The output: a's dtype, the broadcast shape. It may be ``a`` or ``b`` itself
        (in place); any other overlap reads the inputs as if copied first.

    Returns
    -------
    numpy.ndarray, numpy scalar, or ``out``

    Raises
    ------
    TypeError
        An unsupported dtype (the argument is named), a and b of different dtypes.
    ValueError
        Shapes that do not broadcast, a scale that is not positive and finite, a zero
        point or bound outside the dtype, min > max, scales whose ratio the runtime
        does not accept (it would not run the op), an unknown arithmetic.

    See Also
    --------
    quantized_binary_params : the integer parameters the runtime derives.

    Notes
    -----
    Every ISA tier and thread count gives identical bits; the GIL is released.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> a = np.array([-128, 0, 127], np.int8)
    >>> simdops.{name}(a, 0.05, 0, np.int8(10), 0.05, 0, 0.1, 0)
    {example}
    """


def quantized_add(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *,
                  arithmetic="tflite", min=None, max=None, out=None):
    return _qbinary(SIMDOPS_OP_QUANTIZED_ADD, a, a_scale, a_zero_point, b, b_scale,
                    b_zero_point, y_scale, y_zero_point, arithmetic, min, max, out,
                    "quantized_add")


def quantized_subtract(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                       y_zero_point, *, arithmetic="tflite", min=None, max=None, out=None):
    return _qbinary(SIMDOPS_OP_QUANTIZED_SUBTRACT, a, a_scale, a_zero_point, b, b_scale,
                    b_zero_point, y_scale, y_zero_point, arithmetic, min, max, out,
                    "quantized_subtract")


def quantized_multiply(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                       y_zero_point, *, arithmetic="tflite", min=None, max=None, out=None):
    return _qbinary(SIMDOPS_OP_QUANTIZED_MULTIPLY, a, a_scale, a_zero_point, b, b_scale,
                    b_zero_point, y_scale, y_zero_point, arithmetic, min, max, out,
                    "quantized_multiply")


quantized_add.__doc__ = _QB_DOC.format(
    what="addition", sym="+", tfl="ADD", xnn="qs8/qu8-vadd", ort="QLinearAdd",
    name="quantized_add", example="array([-59,   5,  69], dtype=int8)")
quantized_subtract.__doc__ = _QB_DOC.format(
    what="subtraction", sym="-", tfl="SUB", xnn="qs8/qu8-vadd with b's scale negated",
    ort="QLinearAdd (no subtract: arithmetic='onnxruntime' is refused)",
    name="quantized_subtract", example="array([-69,  -5,  59], dtype=int8)")
quantized_multiply.__doc__ = _QB_DOC.format(
    what="multiplication", sym="*", tfl="MUL", xnn="qs8/qu8-vmul (fp32 requantization)",
    ort="QLinearMul", name="quantized_multiply", example="array([-32,   0,  32], dtype=int8)")


def quantized_binary_params(op, a_scale, a_zero_point, b_scale, b_zero_point, y_scale,
                            y_zero_point, *, arithmetic="tflite", dtype="int8", min=None,
                            max=None):
    """The parameters a runtime derives for a quantized add / subtract / multiply.

    Computed by the same C code simdops runs with, from the model's numbers, exactly
    as the runtime's prepare step does (TFLite's ``QuantizeMultiplier`` on doubles,
    XNNPACK's ``xnn_init_qs8_add_minmax_scalar_params``, MLAS's float ratios).

    Parameters
    ----------
    op : {"add", "subtract", "multiply"}
    a_scale, a_zero_point, b_scale, b_zero_point, y_scale, y_zero_point
        As for :func:`quantized_add`.
    arithmetic : {"tflite", "xnnpack", "onnxruntime"}
    dtype : str or numpy dtype
        The inputs' dtype (uint8, int8, int16).
    min, max : int, optional
        The fused activation's bounds (``output_min`` / ``output_max`` in the result).

    Returns
    -------
    dict
        The runtime's names: TFLite ADD/SUB ``left_shift``, ``input1_offset``,
        ``input1_multiplier``, ``input1_shift``, ... (shifts <= 0 are right shifts,
        TFLite's convention; SUB's ``input2_multiplier`` is negated); TFLite MUL
        ``output_multiplier``, ``output_shift``; XNNPACK add ``bias``,
        ``a_multiplier``, ``b_multiplier``, ``shift``; XNNPACK / ONNX Runtime
        multiply ``scale`` (float32); ONNX Runtime add ``scale_ratio_a``,
        ``scale_ratio_b``, ``fixed_part`` (float32); always ``output_min``,
        ``output_max``.

    Examples
    --------
    >>> import simdops
    >>> p = simdops.quantized_binary_params("add", 0.05, 0, 0.05, 0, 0.1, 0)
    >>> p["left_shift"], p["input1_multiplier"], p["input1_shift"]
    (20, 1073741824, 0)
    """
    cdef simdops_qbinary_args q
    cdef simdops_prepared prep
    cdef simdops_error err
    cdef const char *names[32]
    cdef double values[32]
    cdef int n, status
    code = _QB_OPS.get(op) if type(op) is str else None
    if code is None:
        raise ValueError(f"quantized_binary_params: op must be 'add', 'subtract' or "
                         f"'multiply', got {op!r}")
    dname = (dtype if type(dtype) is str and dtype in _dtype_by_name
             else _dtype_name_of(dtype, "quantized_binary_params: dtype"))
    dt = _dtype_by_name.get(dname)
    if dt is None:
        raise TypeError(f"quantized_binary_params: dtype must be uint8, int8 or int16, got {dname}")
    _qb_args(&q, code, arithmetic, a_scale, a_zero_point, b_scale, b_zero_point, y_scale,
             y_zero_point, min, max, "quantized_binary_params")
    status = simdops_prepare_qbinary(<simdops_dtype><int>dt, &q, &prep, &err)
    if status:
        _raise(&err)
    n = simdops_qbinary_describe(&prep, names, values, 32)
    result = {}
    for k in range(n if n < 32 else 32):
        name = (<bytes>names[k]).decode()
        result[name] = float(values[k]) if name in _QB_FLOAT_PARAMS else int(values[k])
    return result
