# The shared rules of csrc/rules/rules.h (and simdops_check_tensor) for the layers
# above the array API: a fragment of _core.pyx (included by it, not a module of
# its own). Each check_* returns None or the CoreError C reported (reason,
# arg, value, expected, index); the caller words it in its own terms and keeps
# its own check order, so no layer re-implements a rule C owns.

from libc.string cimport memset as _rules_memset

# C's argument names ("x", "out", "bias", "multiplier", ...) -> simdops_arg codes
_REASON_CODES = {(<bytes>simdops_reason_name(r)).decode(): r for r in range(SIMDOPS_R_COUNT)}
cdef int _REASON_DTYPE_UNKNOWN = _REASON_CODES["DTYPE_UNKNOWN"]
cdef int _REASON_NDIM = _REASON_CODES["NDIM"]
_ARG_CODES = {(<bytes>simdops_arg_name(a)).decode(): a for a in range(SIMDOPS_ARG_COUNT)}


cdef int _arg_code(str arg) except -1:
    try:
        return _ARG_CODES[arg]
    except KeyError:
        raise ValueError(f"unknown argument name {arg!r}; C names: "
                         f"{', '.join(n for n in _ARG_CODES if n)}") from None


cdef int _fill_shape(simdops_tensor *t, int dtype, object shape, str name) except -1:
    """t's dtype and shape (strides 0, data a non-NULL placeholder: only the
    shape rules read it). More than 64 entries set ndim alone, which C refuses
    before it reads the shape."""
    cdef Py_ssize_t n = len(shape), d
    _rules_memset(t, 0, sizeof(simdops_tensor))
    t.data = <void *>1
    t.dtype = <simdops_dtype>dtype
    t.ndim = <int>(n if n <= SIMDOPS_MAX_DIMS else SIMDOPS_MAX_DIMS + 1)
    if n > SIMDOPS_MAX_DIMS:
        return 0
    for d in range(n):
        v = shape[d]
        if not _is_int(v):
            raise TypeError(f"{name}: shape entries must be ints, got {type(v).__name__}")
        # an extent beyond int64 is clamped: C reports the rule with that value
        t.shape[d] = v if -(1 << 63) <= v < (1 << 63) else (INT64_MAX if v > 0 else INT64_MIN)
    return 0


cdef inline object _checked(int status, simdops_error *err):
    return _core_error(err) if status else None


def check_view(int dtype, shape, str arg="x"):
    """None when a view of `dtype` and `shape` is one C accepts (known dtype,
    at most 64 dimensions, extents >= 0: simdops_check_tensor), else the
    CoreError (DTYPE_UNKNOWN, NDIM, NEGATIVE_EXTENT with index = dimension)."""
    cdef simdops_tensor t
    cdef simdops_error err
    cdef int a = _arg_code(arg)
    _rules_memset(&err, 0, sizeof(err))
    _fill_shape(&t, dtype, shape, arg)
    return _checked(simdops_check_tensor(&t, a, &err), &err)


def check_same_shape(x_shape, int out_dtype, out_shape, int expected_dtype):
    """None when out (out_dtype, out_shape) has expected_dtype and x's shape
    (simdops_check_same_shape), else the CoreError (DTYPE_MISMATCH,
    NDIM_MISMATCH, SHAPE_MISMATCH with index = the dimension)."""
    cdef simdops_tensor x, y
    cdef simdops_error err
    _rules_memset(&err, 0, sizeof(err))
    _fill_shape(&x, expected_dtype, x_shape, "x")
    _fill_shape(&y, out_dtype, out_shape, "out")
    return _checked(simdops_check_same_shape(&x, &y, <simdops_dtype>expected_dtype, &err), &err)


def check_disjoint(size_t x_address, uint64_t x_len, size_t y_address, uint64_t y_len,
                   bint same_address_ok):
    """None when the byte ranges are disjoint (or start at one address and
    same_address_ok): simdops_check_disjoint; else the PARTIAL_OVERLAP CoreError."""
    cdef simdops_error err
    _rules_memset(&err, 0, sizeof(err))
    return _checked(simdops_check_disjoint(<void *>x_address, x_len, <void *>y_address, y_len,
                                           same_address_ok, &err), &err)


def reduced_axes(int ndim, axes):
    """The axes (an int or ints, negative from the end) as sorted non-negative
    ints, normalised by C (simdops_reduced_axes); ValueError with C's reason
    for an empty, out-of-range or repeated axis."""
    cdef int64_t caxes[65]
    cdef int reduced[64]
    cdef simdops_error err
    cdef int naxes, d
    if not 0 <= ndim <= SIMDOPS_MAX_DIMS:
        raise ValueError(f"ndim = {ndim}; must be in 0..{SIMDOPS_MAX_DIMS}")
    naxes = _read_axes(axes, ndim, caxes)
    _rules_memset(&err, 0, sizeof(err))
    _rules_memset(reduced, 0, sizeof(reduced))
    if simdops_reduced_axes(ndim, naxes, caxes, reduced, &err):
        _raise(&err)
    return tuple(d for d in range(ndim) if reduced[d])


def check_channels(str arg, int dtype, shape, x_shape):
    """None when a per-channel vector (bias, multiplier, shift) of `dtype` and
    `shape` fits x's shape (int32, 1-D, x's last dimension:
    simdops_check_channels), else the CoreError (DTYPE_MISMATCH, NEEDS_AXIS,
    CHANNELS with value = the vector's ndim, expected = the channels)."""
    cdef simdops_tensor v, x
    cdef simdops_error err
    cdef int a = _arg_code(arg)
    _rules_memset(&err, 0, sizeof(err))
    _fill_shape(&v, dtype, shape, arg)
    _fill_shape(&x, SIMDOPS_INT32, x_shape, "x")
    return _checked(simdops_check_channels(&v, a, SIMDOPS_INT32, &x, &err), &err)


cdef int64_t _clamped_int64(object v, str name) except? -1:
    if not _is_int(v):
        raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    return v if -(1 << 63) <= v < (1 << 63) else (INT64_MAX if v > 0 else INT64_MIN)


def check_int32(str arg, v):
    """None when v fits int32 (simdops_check_int32), else the INT32_RANGE
    CoreError (ints beyond 64 bits are reported as the nearest int64)."""
    cdef simdops_error err
    _rules_memset(&err, 0, sizeof(err))
    return _checked(simdops_check_int32(_arg_code(arg), _clamped_int64(v, arg), &err), &err)


def check_bound(int out_dtype, str arg, v):
    """None when v lies in out_dtype's integer range (simdops_check_bound),
    else the BOUND_RANGE CoreError."""
    cdef simdops_error err
    _rules_memset(&err, 0, sizeof(err))
    return _checked(simdops_check_bound(<simdops_dtype>out_dtype, _arg_code(arg),
                                        _clamped_int64(v, arg), &err), &err)


def check_min_max(lo, hi):
    """None when lo <= hi (simdops_check_min_max), else the MIN_ABOVE_MAX CoreError."""
    cdef simdops_error err
    _rules_memset(&err, 0, sizeof(err))
    return _checked(simdops_check_min_max(_clamped_int64(lo, "min"), _clamped_int64(hi, "max"),
                                          &err), &err)


def dtype_info(int dtype):
    """A dtype's row of the C dtype table: (name, element size, is_float,
    is_signed, lo, hi), lo/hi the integer range (64-bit types included) or
    None for float types. ValueError for an unknown dtype value."""
    cdef int64_t lo
    cdef uint64_t hi
    if not 0 < dtype < SIMDOPS_DTYPE_COUNT:
        raise ValueError(f"unknown dtype value {dtype}")
    row = &simdops_dtype_rows[dtype]
    if simdops_dtype_int_range(<simdops_dtype>dtype, &lo, &hi):
        rng = (lo, hi)
    else:
        rng = (None, None)
    return ((<bytes>row.name).decode(), row.size, bool(row.is_float), bool(row.is_signed)) + rng
