"""Hostile calls through the C API capsule (simdops._C_API), the way an outside
extension makes them: views whose element count or byte extent overflows 64
bits, simdops_number values of no known kind, a NUM_BIG that is not
normalised, NULL and negative arguments. Each must come back as a status with
a message that says what is wrong -- never a crash, a wrapped count or OK
having done nothing.

The table is called through ctypes: the structs below mirror simdops.h (their
sizes are checked against the table's own entry points where they can be).
The example extensions (tests/capi_build.py) cover calls that work; these
cover calls that must not.
"""
import ctypes

import numpy as np
import pytest

import simdops

c_int, c_int32, c_int64, c_uint64 = ctypes.c_int, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64
c_void_p, c_char_p, c_size_t, c_double = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.c_double)

OK, E_DTYPE, E_SHAPE, E_PARAM = 0, 1, 2, 3
FLOAT32, UINT8, INT32, UINT64 = 1, 5, 6, 10
NUM_FLOAT, NUM_INT, NUM_UINT, NUM_BIG = 0, 1, 2, 3


class Tensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("dtype", c_int), ("ndim", c_int),
                ("shape", c_int64 * 64), ("strides", c_int64 * 64)]


class Number(ctypes.Structure):
    _fields_ = [("kind", c_int), ("negative", c_int32), ("f", c_double), ("i", c_int64),
                ("u", c_uint64)]


class Error(ctypes.Structure):
    _fields_ = [("status", c_int32), ("reason", c_int32), ("arg", c_int32), ("op", c_int32),
                ("dtype", c_int32), ("reserved", c_int32), ("index", c_int64),
                ("value", c_int64), ("expected", c_int64), ("fvalue", c_double)]


class RequantArgs(ctypes.Structure):
    _fields_ = [("multiplier", c_int64), ("shift", c_int64),
                ("multipliers", ctypes.POINTER(Tensor)), ("shifts", ctypes.POINTER(Tensor)),
                ("bias", ctypes.POINTER(Tensor)), ("offset", c_int64), ("min", c_int64),
                ("max", c_int64), ("has_min", c_int32), ("has_max", c_int32)]


Prepared = c_uint64 * 16
P = ctypes.POINTER
T, E = P(Tensor), P(Error)

# The version-1 fields of simdops_capi in order, with their C signatures.
TABLE = [
    ("status_message", c_char_p, [c_int]),
    ("error_format", c_size_t, [E, c_char_p, c_size_t]),
    ("dtype_size", c_size_t, [c_int]),
    ("dtype_name", c_char_p, [c_int]),
    ("op_supports", c_int, [c_int, c_int]),
    ("isa", c_char_p, []),
    ("set_thread_isa", c_int, [c_char_p, E]),
    ("clip", c_int, [T, T, Number, Number, P(Number), P(Number), E]),
    ("shrink", c_int, [T, T, Number, Number, E]),
    ("hardmax", c_int, [T, T, c_int, P(c_int64), E]),
    ("requant", c_int, [T, T, P(RequantArgs), E]),
    ("prepare_clip", c_int, [c_int, Number, Number, P(Number), P(Number), P(Prepared), E]),
    ("prepare_shrink", c_int, [c_int, Number, Number, P(Prepared), E]),
    ("prepare_requant", c_int, [c_int, c_int64, c_int64, c_int64, P(c_int64), P(c_int64),
                                P(Prepared), E]),
    ("clip_prepared", c_int, [P(Prepared), T, T, E]),
    ("shrink_prepared", c_int, [P(Prepared), T, T, E]),
    ("requant_prepared", c_int, [P(Prepared), T, T, T, T, T, E]),
    ("clip_1d", c_int, [P(Prepared), c_void_p, c_void_p, c_int64, E]),
    ("shrink_1d", c_int, [P(Prepared), c_void_p, c_void_p, c_int64, E]),
    ("hardmax_rows", c_int, [c_int, c_void_p, c_void_p, c_int64, c_int64, E]),
    ("requant_1d", c_int, [P(Prepared), c_void_p, c_void_p, c_int64, c_void_p, E]),
    ("requant_pc_1d", c_int, [P(Prepared), c_void_p, c_void_p, c_int64, c_void_p, c_void_p,
                              c_void_p, E]),
]


class CApi:
    """The capsule's table as Python callables (same names as the fields)."""

    def __init__(self):
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype = c_void_p
        get_pointer.argtypes = [ctypes.py_object, c_char_p]
        address = get_pointer(simdops._C_API, b"simdops._C_API")
        _version, size = (ctypes.c_uint32 * 2).from_address(address)
        pointer = ctypes.sizeof(c_void_p)
        assert size >= 8 + len(TABLE) * pointer
        for k, (name, restype, argtypes) in enumerate(TABLE):
            fn = c_void_p.from_address(address + 8 + k * pointer).value
            setattr(self, name, ctypes.CFUNCTYPE(restype, *argtypes)(fn))

    def message(self, err):
        buf = ctypes.create_string_buffer(512)
        self.error_format(ctypes.byref(err), buf, len(buf))
        return buf.value.decode()


@pytest.fixture(scope="module")
def capi():
    return CApi()


def number(value, kind=None):
    n = Number()
    if kind is None:
        kind = NUM_FLOAT if isinstance(value, float) else NUM_INT
    n.kind = kind
    if kind == NUM_INT:
        n.i = value
    else:
        n.f = value
    return n


def tensor(data, dtype, shape, strides):
    t = Tensor()
    t.data = data
    t.dtype = dtype
    t.ndim = len(shape)
    for d, (n, s) in enumerate(zip(shape, strides)):
        t.shape[d], t.strides[d] = n, s
    return t


def view(a, dtype):
    """A simdops_tensor over the numpy array a (kept alive by the caller)."""
    return tensor(a.ctypes.data, dtype, a.shape, a.strides)


def call(fn, *args):
    """fn(*args, &err) -> (status, err)."""
    err = Error()
    status = fn(*args, ctypes.byref(err))
    return status, err


def expect(capi, result, status, *words):
    got, err = result
    message = capi.message(err)
    assert (got, err.status) == (status, status), f"status {got}, message {message!r}"
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    return message


# ---- views whose element count or byte extent overflows -------------------

BUF = np.zeros(64, np.float32)  # what every hostile view points at
IBUF = np.zeros(64, np.int32)
UBUF = np.zeros(64, np.uint8)

HUGE = [
    ((4, 2**62), (0, 0)),            # count 2^64 (wrapped to 0 before)
    ((4, 2**62), (0, 4)),            # count 2^64, extent overflows too
    ((2**32, 2**32), (0, 0)),        # count 2^64
    ((3, 2**61, 5), (0, 0, 0)),      # count past 2^62 bytes without wrapping
]


def huge(data, dtype, shape, strides, element_size):
    return tensor(data, dtype, shape, tuple(s // 4 * element_size for s in strides))


def prepared_for(capi, op):
    p = Prepared()
    if op == "clip":
        status = capi.prepare_clip(FLOAT32, number(0.0), number(1.0), None, None, p, None)
    elif op == "shrink":
        status = capi.prepare_shrink(FLOAT32, number(0.0), number(1.0), p, None)
    else:
        status = capi.prepare_requant(UINT8, 1 << 30, 1, 0, None, None, p, None)
    assert status == OK
    return p


def entry_calls(capi, x_bad, y_bad, x_ok, y_ok, xi_bad, yu_bad, xi_ok, yu_ok):
    """(label, which argument is bad, thunk) for every N-d entry point: x and
    out of the same oversized shape (clip used to return OK having done
    nothing, hardmax to crash), then one of them oversized, the other valid."""
    axis = (c_int64 * 1)(-1)
    args = RequantArgs(multiplier=1 << 30, shift=1)
    pc, ps, pr = (prepared_for(capi, op) for op in ("clip", "shrink", "requant"))
    return [
        ("clip", "x", lambda: call(capi.clip, x_bad, y_bad, number(0.0), number(1.0), None, None)),
        ("clip", "x", lambda: call(capi.clip_prepared, pc, x_bad, y_bad)),
        ("shrink", "x", lambda: call(capi.shrink, x_bad, y_bad, number(0.0), number(1.0))),
        ("shrink", "x", lambda: call(capi.shrink_prepared, ps, x_bad, y_bad)),
        ("hardmax", "x", lambda: call(capi.hardmax, x_bad, y_bad, 1, axis)),
        ("quantize", "out", lambda: call(capi.requant, xi_bad, yu_bad, args)),
        ("quantize", "x", lambda: call(capi.requant_prepared, pr, xi_bad, yu_bad, None, None,
                                       None)),
        ("clip", "x", lambda: call(capi.clip, x_bad, y_ok, number(0.0), number(1.0), None, None)),
        ("clip", "out", lambda: call(capi.clip, x_ok, y_bad, number(0.0), number(1.0), None, None)),
        ("clip", "x", lambda: call(capi.clip_prepared, pc, x_bad, y_ok)),
        ("clip", "out", lambda: call(capi.clip_prepared, pc, x_ok, y_bad)),
        ("shrink", "x", lambda: call(capi.shrink, x_bad, y_ok, number(0.0), number(1.0))),
        ("shrink", "out", lambda: call(capi.shrink, x_ok, y_bad, number(0.0), number(1.0))),
        ("shrink", "x", lambda: call(capi.shrink_prepared, ps, x_bad, y_ok)),
        ("hardmax", "x", lambda: call(capi.hardmax, x_bad, y_ok, 1, axis)),
        ("hardmax", "out", lambda: call(capi.hardmax, x_ok, y_bad, 1, axis)),
        ("quantize", "x", lambda: call(capi.requant, xi_bad, yu_ok, args)),
        ("quantize", "out", lambda: call(capi.requant, xi_ok, yu_bad, args)),
        ("quantize", "x", lambda: call(capi.requant_prepared, pr, xi_bad, yu_ok, None, None, None)),
        ("quantize", "out", lambda: call(capi.requant_prepared, pr, xi_ok, yu_bad, None, None,
                                         None)),
    ]


@pytest.mark.parametrize("shape, strides", HUGE, ids=[str(h[0]) for h in HUGE])
def test_every_nd_entry_point_refuses_an_overflowing_element_count(capi, shape, strides):
    x_bad = huge(BUF.ctypes.data, FLOAT32, shape, strides, 4)
    y_bad = huge(BUF[32:].ctypes.data, FLOAT32, shape, strides, 4)
    xi_bad = huge(IBUF.ctypes.data, INT32, shape, strides, 4)
    yu_bad = huge(UBUF.ctypes.data, UINT8, shape, strides, 1)
    # a valid view of the same rank, so only the element count is wrong
    small = tuple(1 for _ in shape)
    unit = tuple(0 for _ in shape)
    x_ok = tensor(BUF.ctypes.data, FLOAT32, small, unit)
    y_ok = tensor(BUF[8:].ctypes.data, FLOAT32, small, unit)
    xi_ok = tensor(IBUF.ctypes.data, INT32, small, unit)
    yu_ok = tensor(UBUF.ctypes.data, UINT8, small, unit)
    cases = entry_calls(capi, x_bad, y_bad, x_ok, y_ok, xi_bad, yu_bad, xi_ok, yu_ok)
    for op, arg, thunk in cases:
        expect(capi, thunk(), E_SHAPE, f"{op}: {arg} has too many elements")


def test_strides_whose_byte_extent_overflows_are_refused(capi):
    y = tensor(BUF[8:].ctypes.data, FLOAT32, (3,), (4,))
    for stride in (2**62, -(2**62), 2**63 - 1, -(2**63)):
        x = tensor(BUF.ctypes.data, FLOAT32, (3,), (stride,))
        expect(capi, call(capi.clip, x, y, number(0.0), number(1.0), None, None), E_SHAPE,
               "clip: x spans too many bytes")
        expect(capi, call(capi.hardmax, y, x, 1, (c_int64 * 1)(0)), E_SHAPE,
               "hardmax: out spans too many bytes")
    # a per-channel vector with such a stride
    x, out = np.zeros((2, 4), np.int32), np.zeros((2, 4), np.uint8)
    bias = tensor(IBUF.ctypes.data, INT32, (4,), (2**62,))
    args = RequantArgs(multiplier=1 << 30, shift=1, bias=ctypes.pointer(bias))
    expect(capi, call(capi.requant, view(x, INT32), view(out, UINT8), args), E_SHAPE,
           "quantize: bias spans too many bytes")


def test_large_but_representable_views_still_run(capi):
    # broadcast input of 2^40 elements is not refused for its size: it is
    # refused (if at all) for what its output is, here an overlapping one
    x = tensor(BUF.ctypes.data, FLOAT32, (2**20, 2**20), (0, 0))
    expect(capi, call(capi.clip, x, x, number(0.0), number(1.0), None, None),
           4, "clip: out has two elements at one address")
    # an empty view with a huge extent elsewhere is empty, and fine
    e = tensor(BUF.ctypes.data, FLOAT32, (0, 2**40), (4, 4))
    assert call(capi.clip, e, e, number(0.0), number(1.0), None, None)[0] == OK


def test_1d_kernels_refuse_a_count_whose_bytes_overflow(capi):
    p = prepared_for(capi, "clip")
    expect(capi, call(capi.clip_1d, p, BUF.ctypes.data, BUF[32:].ctypes.data, 2**62),
           E_PARAM, "clip: n = 4611686018427387904 is too many elements")
    expect(capi, call(capi.hardmax_rows, FLOAT32, BUF.ctypes.data, BUF.ctypes.data, 2**32,
                      2**32), E_PARAM, "rows * cols = 4294967296 * 4294967296 is too many")


# ---- numbers that are no simdops_number -----------------------------------

@pytest.mark.parametrize("kind", [7, 77, -1])
def test_a_number_of_unknown_kind_is_refused(capi, kind):
    x = np.linspace(-2, 2, 16, dtype=np.float32)
    y = np.empty_like(x)
    tx, ty = view(x, FLOAT32), view(y, FLOAT32)
    nan, negative = number(float("nan"), kind), number(-1.0, kind)
    p = Prepared()
    expect(capi, call(capi.clip, tx, ty, nan, number(1.0), None, None), E_PARAM,
           f"clip: min has kind {kind}")
    expect(capi, call(capi.clip, tx, ty, number(0.0), nan, None, None), E_PARAM,
           f"clip: max has kind {kind}")
    expect(capi, call(capi.prepare_clip, FLOAT32, number(0.0), number(1.0), ctypes.byref(nan),
                      None, p), E_PARAM, f"clip: scale has kind {kind}")
    expect(capi, call(capi.prepare_clip, FLOAT32, number(0.0), number(1.0), None,
                      ctypes.byref(nan), p), E_PARAM, f"clip: bias has kind {kind}")
    expect(capi, call(capi.shrink, tx, ty, number(0.0), negative), E_PARAM,
           f"shrink: threshold has kind {kind}")
    expect(capi, call(capi.prepare_shrink, FLOAT32, nan, number(1.0), p), E_PARAM,
           f"shrink: bias has kind {kind}")


def big(u, i, negative=0):
    n = Number()
    n.kind, n.u, n.i, n.negative = NUM_BIG, u, i, negative
    return n


def test_a_num_big_that_is_not_normalised_is_refused(capi):
    x = np.arange(4, dtype=np.uint64)
    y = np.empty_like(x)
    tx, ty = view(x, UINT64), view(y, UINT64)
    for bad in (big(5, 10), big(2**63 - 1, 1), big(2**63, -1)):
        expect(capi, call(capi.clip, tx, ty, bad, number(3), None, None), E_PARAM,
               "clip: min is a SIMDOPS_NUM_BIG that is not normalised")
        expect(capi, call(capi.shrink, view(x.view(np.int32)[:4], INT32),
                          view(y.view(np.int32)[:4], INT32), number(0), bad), E_PARAM,
               "shrink: threshold is a SIMDOPS_NUM_BIG")
    # normalised ones work, as the Python API builds them
    for value in (2**64 + 3, -(2**63) - 1, 2**200, -(2**70)):
        simdops_result = simdops.clip(x, min(value, 0), max(value, 0) if value > 0 else 3)
        a = -value if value < 0 else value
        e = max(a.bit_length() - 64, 0)
        n = big((a >> e) | (1 if a & ((1 << e) - 1) else 0), e, int(value < 0))
        lo, hi = (n, number(3)) if value < 0 else (number(0), n)
        assert call(capi.clip, tx, ty, lo, hi, None, None)[0] == OK
        assert y.tobytes() == simdops_result.tobytes(), value


# ---- messages that say what is wrong ------------------------------------

def test_messages_name_the_argument(capi):
    x, y = np.zeros(4, np.int32), np.zeros(4, np.uint8)
    expect(capi, call(capi.requant, view(x, INT32), view(y, UINT8), None), E_PARAM,
           "quantize: args is NULL")
    f = np.zeros(8, np.float32)
    expect(capi, call(capi.hardmax_rows, FLOAT32, f.ctypes.data, f.ctypes.data, -1, 4), E_PARAM,
           "hardmax: rows = -1 is negative")
    expect(capi, call(capi.hardmax_rows, FLOAT32, f.ctypes.data, f.ctypes.data, 2, -4), E_PARAM,
           "hardmax: cols = -4 is negative")
    t = view(f, FLOAT32)
    t.ndim = -1
    message = expect(capi, call(capi.clip, t, t, number(0.0), number(1.0), None, None), E_SHAPE,
                     "clip: x has ndim = -1; ndim must be >= 0")
    assert "at most" not in message
    t.ndim = 65
    expect(capi, call(capi.clip, t, t, number(0.0), number(1.0), None, None), E_SHAPE,
           "clip: x has 65 dimensions; at most 64")


# ---- the Cython example of docs/c-api.md on an empty array ------------------

def test_docs_cython_example_takes_an_empty_array():
    """&x[0] of an empty typed memoryview raises IndexError: the example must
    not take it, and must accept what simdops.clip accepts."""
    import test_capi_docs  # registers docs/c-api.md's examples (built once per session)
    mini_cy = test_capi_docs.built("docs_cython")
    empty = np.empty(0, np.float32)
    assert simdops.clip(empty, -1.0, 1.0).shape == (0,)
    mini_cy.clip(empty, -1.0, 1.0)  # raised IndexError
    with pytest.raises(ValueError, match="min is NaN"):  # the bounds are still checked
        mini_cy.clip(empty, float("nan"), 1.0)
    x = np.array([-3.0, 0.5, 7.0], np.float32)
    mini_cy.clip(x, -1.0, 1.0)
    assert x.tolist() == [-1.0, 0.5, 1.0]
