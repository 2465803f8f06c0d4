"""Hostile calls to the C API's ONNX quantize/dequantize entries and the requantizing
1-D kernels through the capsule (simdops._C_API), the way an outside extension makes
them: NULL pointers, views with ndim = 1,000,000 or INT_MAX, a per-axis scale or zero
point inside out, out sharing memory with an input. Each must come back as a status
with a message naming the argument (ONNX's names: y_scale, x_zero_point, ...) or as
the right answer -- never a crash (a NULL scale was read before it was checked).

The structs and the version-1 table come from test_capi_hostile.py; the version-2
fields used here are appended below in the table's order (simdops_capi.h).
"""
import ctypes

import numpy as np
import pytest

import simdops.onnx as so
from test_capi_hostile import (E, E_DTYPE, E_PARAM, E_SHAPE, FLOAT32, INT32, OK, P, TABLE,
                               UINT8, CApi, Prepared, T, c_int, c_int64, c_void_p, call,
                               expect, tensor, view)

E_OVERLAP = 4
FLOAT16, INT8 = 2, 8
TABLE_V2 = [
    ("prepare_requant_rounding", c_int, [c_int, c_int, c_int64, c_int64, c_int64, P(c_int64),
                                         P(c_int64), P(Prepared), E]),
    ("prepare_requant_fp", c_int, [c_int, ctypes.c_double, c_int64, P(c_int64), P(c_int64),
                                   c_int, P(Prepared), E]),
    ("requant_fp_prepared", c_int, [P(Prepared), T, T, T, T, E]),
    ("requant_fp_pc_1d", c_int, [P(Prepared), c_void_p, c_void_p, c_int64, c_void_p, c_void_p,
                                 E]),
    ("quantize_linear", c_int, [T, T, T, c_int64, T, E]),
    ("dequantize_linear", c_int, [T, T, T, c_int64, T, E]),
]


class CApiV2(CApi):
    def __init__(self):
        super().__init__()
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        import simdops
        address = get_pointer(simdops._C_API, b"simdops._C_API")
        version, size = (ctypes.c_uint32 * 2).from_address(address)
        pointer = ctypes.sizeof(c_void_p)
        assert version >= 2 and size >= 8 + (len(TABLE) + len(TABLE_V2)) * pointer
        for k, (name, restype, argtypes) in enumerate(TABLE_V2, start=len(TABLE)):
            fn = c_void_p.from_address(address + 8 + k * pointer).value
            setattr(self, name, ctypes.CFUNCTYPE(restype, *argtypes)(fn))


@pytest.fixture(scope="module")
def capi():
    return CApiV2()


OPS = [("quantize_linear", "y_scale", "y_zero_point", np.float32, np.uint8),
       ("dequantize_linear", "x_scale", "x_zero_point", np.uint8, np.float32)]
CODE = {np.float32: FLOAT32, np.uint8: UINT8}


def _views(xdt, ydt, n=4):
    x, y = np.ones(n, xdt), np.zeros(n, ydt)
    s, z = np.full(1, 0.5, np.float32), np.zeros(1, np.uint8)
    keep = (x, y, s, z)
    return keep, view(x, CODE[xdt]), view(y, CODE[ydt]), view(s, FLOAT32), view(z, UINT8)


@pytest.mark.parametrize("op, scale_name, zp_name, xdt, ydt", OPS, ids=[o[0] for o in OPS])
def test_null_pointers_are_a_status_naming_the_argument(capi, op, scale_name, zp_name, xdt,
                                                        ydt):
    fn = getattr(capi, op)
    keep, x, y, s, z = _views(xdt, ydt)
    # the reproducer: quantize_linear(&x, NULL, NULL, 1, &y, &err) was a SIGSEGV
    expect(capi, call(fn, x, None, None, 1, y), E_PARAM, f"{op}: {scale_name} is NULL")
    expect(capi, call(fn, x, None, z, 0, y), E_PARAM, f"{op}: {scale_name} is NULL")
    assert fn(x, None, None, 1, y, None) == E_PARAM  # err NULL too
    expect(capi, call(fn, None, s, None, 0, y), E_PARAM, f"{op}: x is NULL")
    expect(capi, call(fn, x, s, None, 0, None), E_PARAM, f"{op}: out is NULL")
    assert fn(None, None, None, 0, None, None) == E_PARAM


@pytest.mark.parametrize("ndim", [1_000_000, 2**31 - 1, 65, -1, -(2**31)])
@pytest.mark.parametrize("op, scale_name, zp_name, xdt, ydt", OPS, ids=[o[0] for o in OPS])
def test_scale_and_zero_point_of_impossible_ndim(capi, op, scale_name, zp_name, xdt, ydt, ndim):
    fn = getattr(capi, op)
    keep, x, y, s, z = _views(xdt, ydt)
    s.ndim = ndim
    words = [f"{op}: {scale_name} has", f"{ndim}"]
    expect(capi, call(fn, x, s, None, 0, y), E_SHAPE, *words)
    s.ndim = 1
    z.ndim = ndim
    expect(capi, call(fn, x, s, z, 0, y), E_SHAPE, f"{op}: {zp_name} has", f"{ndim}")


@pytest.mark.parametrize("op, scale_name, zp_name, xdt, ydt", OPS, ids=[o[0] for o in OPS])
def test_scale_views_that_overflow_or_lie(capi, op, scale_name, zp_name, xdt, ydt):
    fn = getattr(capi, op)
    keep, x, y, s, z = _views(xdt, ydt)
    buf = keep[2]
    bad = tensor(buf.ctypes.data, FLOAT32, (4, 2**62), (0, 0))
    expect(capi, call(fn, x, bad, None, 0, y), E_SHAPE, f"{scale_name} has too many elements")
    bad = tensor(buf.ctypes.data, FLOAT32, (3,), (2**62,))
    expect(capi, call(fn, x, bad, None, 0, y), E_SHAPE, f"{scale_name} spans too many bytes")
    bad = tensor(None, FLOAT32, (4,), (4,))
    expect(capi, call(fn, x, bad, None, 0, y), E_PARAM,
           f"{scale_name} has elements but a NULL data pointer")
    bad = tensor(buf.ctypes.data, 77, (1,), (4,))
    expect(capi, call(fn, x, bad, None, 0, y), E_DTYPE, f"{scale_name} has an unknown dtype")
    bad = tensor(buf.ctypes.data, FLOAT32, (4,), (4,))
    for axis in (2**63 - 1, -(2**63), 1, -2):
        expect(capi, call(fn, x, bad, None, axis, y), E_PARAM, "axis", "out of range")
    # an empty scale with an empty axis: nothing to read, nothing to write
    e = tensor(None, CODE[xdt], (0, 3), (12, 4))
    eo = tensor(None, CODE[ydt], (0, 3), (12, 4))
    assert call(fn, e, tensor(None, FLOAT32, (0,), (4,)), None, 0, eo)[0] == OK


def test_scale_inside_out_through_the_capsule(capi):
    buf = np.zeros(16, np.float32)
    buf[1:4] = [0.5, 2.0, 4.0]
    x = np.ones((3, 4), np.uint8)
    out = buf[:12].reshape(3, 4)
    assert call(capi.dequantize_linear, view(x, UINT8), view(buf[1:4], FLOAT32), None, 0,
                view(out, FLOAT32))[0] == OK
    assert out.tolist() == [[0.5] * 4, [2.0] * 4, [4.0] * 4]


def test_x_overlapping_out_of_another_type(capi):
    # float32 x read from the bytes a uint8 out writes: as if x were copied first
    buf = np.zeros(64, np.uint8)
    x = buf[16:48].view(np.float32)
    x[:] = np.arange(8, dtype=np.float32) * 3
    want = so.quantize_linear(x.copy(), np.float32(0.5), np.uint8(1))
    out = buf[20:28]
    assert call(capi.quantize_linear, view(x, FLOAT32), view(np.full(1, 0.5, np.float32),
                FLOAT32), view(np.ones(1, np.uint8), UINT8), 1, view(out, UINT8))[0] == OK
    np.testing.assert_array_equal(out, want)


def test_requant_1d_out_sharing_an_input(capi):
    p, pf = Prepared(), Prepared()
    assert capi.prepare_requant(UINT8, 1 << 30, 1, 0, None, None, p, None) == OK
    assert capi.prepare_requant_fp(UINT8, 0.25, 0, None, None, 0, pf, None) == OK
    x = np.arange(64, dtype=np.int32) * 1000
    vec = np.arange(64, dtype=np.int32)
    scales = np.full(64, 0.25, np.float32)
    inside = vec.ctypes.data + 8
    expect(capi, call(capi.requant_1d, p, x.ctypes.data, inside, 16, vec.ctypes.data),
           E_OVERLAP, "out shares memory with bias")
    expect(capi, call(capi.requant_fp_pc_1d, pf, x.ctypes.data, scales.ctypes.data + 4, 16,
                      None, scales.ctypes.data), E_OVERLAP, "out shares memory with scale")
    message = expect(capi, call(capi.requant_fp_pc_1d, pf, x.ctypes.data, x.ctypes.data, 16,
                                None, scales.ctypes.data), E_OVERLAP,
                     "out shares memory with x")
    assert "without being x" not in message
    y = np.zeros(16, np.uint8)
    assert call(capi.requant_fp_pc_1d, pf, x.ctypes.data, y.ctypes.data, 16, vec.ctypes.data,
                scales.ctypes.data)[0] == OK
    assert y.tolist() == [min(255, round((x[i] + vec[i]) * 0.25)) for i in range(16)]
