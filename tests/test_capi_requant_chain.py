"""The float families' chain through the capsule (simdops._C_API), as an outside extension
calls it: prepare_requant_fp_chain, then requant_fp_prepared. Each runtime's steps (oneDNN's
two scales or its divide, OpenVINO's offset, fbgemm's float bias, add-half rounding, float64
per-channel scales with ties away) give the bits of requantize_fp32 with the same keywords
and of a float32 / float64 numpy reference; a NULL chain is the plain family; bad chains and
NULL pointers come back as a status naming the argument.

The entry's place in the table is read from SIMDOPS_CAPI_ENTRIES (simdops_capi.h, shipped in
simdops.get_include()), so the test follows the list's order."""
import ctypes
import os
import re

import numpy as np
import pytest

import simdops
from test_capi_hostile import (E, E_PARAM, FLOAT32, INT32, OK, P, Prepared, T, c_int, c_int64,
                               call, expect, view)
from test_capi_hostile import CApi

INT8, FLOAT64 = 8, 9
FP_FLOAT64, FP_TIES_AWAY, FP_TIES_ADD_HALF, FP_BIAS_SCALED = 1, 2, 8, 512


class Chain(ctypes.Structure):
    _fields_ = [("has_pre_scale", c_int), ("has_post_scale", c_int),
                ("has_post_divisor", c_int), ("has_offset", c_int),
                ("pre_scale", ctypes.c_double), ("post_scale", ctypes.c_double),
                ("post_divisor", ctypes.c_double), ("offset", ctypes.c_double)]


def _entry_index(name):
    """The field's index in simdops_capi (after abi_version and size): its X line's place."""
    header = os.path.join(simdops.get_include(), "simdops", "simdops_capi.h")
    with open(header, encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("#define SIMDOPS_CAPI_ENTRIES"):text.index("typedef struct simdops_capi")]
    names = re.findall(r"X\(\d+,\s*[^,()]+,\s*(\w+),", body)
    return names.index(name)


def _make_capi():
    """The version-1 table (test_capi_hostile) plus the two entries used here."""
    api = CApi()
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    address = get_pointer(simdops._C_API, b"simdops._C_API")
    _version, size = (ctypes.c_uint32 * 2).from_address(address)
    for name, restype, argtypes in (
            ("prepare_requant_fp_chain", c_int,
             [c_int, ctypes.c_double, c_int64, P(c_int64), P(c_int64), c_int, P(Chain),
              P(Prepared), E]),
            ("requant_fp_prepared", c_int, [P(Prepared), T, T, T, T, E])):
        k = _entry_index(name)
        assert size >= 8 + (k + 1) * 8, f"{name}: the table has {size} bytes"
        fn = ctypes.c_void_p.from_address(address + 8 + k * ctypes.sizeof(ctypes.c_void_p)).value
        setattr(api, name, ctypes.CFUNCTYPE(restype, *argtypes)(fn))
    return api


@pytest.fixture(scope="module")
def capi():
    return _make_capi()


def _run(capi, x, scale, zp, mode, chain, bias=None, scales=None):
    prep = Prepared()
    status, err = call(capi.prepare_requant_fp_chain, INT8, scale, zp, None, None, mode,
                       None if chain is None else ctypes.byref(chain), ctypes.byref(prep))
    assert status == OK, capi.message(err)
    y = np.empty(x.shape, np.int8)
    keep = [view(x, INT32), view(y, INT8)]
    tb = None
    if bias is not None:
        tb = view(bias, FLOAT32 if bias.dtype == np.float32 else INT32)
    ts = None
    if scales is not None:
        ts = view(scales, FLOAT64 if scales.dtype == np.float64 else FLOAT32)
    status, err = call(capi.requant_fp_prepared, ctypes.byref(prep), ctypes.byref(keep[0]),
                       ctypes.byref(keep[1]), None if tb is None else ctypes.byref(tb),
                       None if ts is None else ctypes.byref(ts))
    assert status == OK, capi.message(err)
    return y


def _away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _inputs(rng, rows=7, ch=67):
    """Accumulators next to ties of the scales below, plus the int32 extremes."""
    x = rng.integers(-300_000, 300_000, (rows, ch), dtype=np.int32)
    x[0, :4] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0, -1]
    x[1] = (np.arange(ch) * 1000 + 500).astype(np.int32)   # exact halves at scale 1/1000
    x[2] = -x[1]
    return x


def test_capi_chain_onednn_openvino_matches_python_and_numpy(capi):
    rng = np.random.default_rng(31)
    x = _inputs(rng)
    f = np.float32
    lo, hi = -128 - 5, 127 - 5
    # oneDNN's JIT: f32(f32(f32(a) * s_a) * s_w) * f32(1/s_o)
    chain = Chain(has_pre_scale=1, has_post_scale=1, pre_scale=0.5, post_scale=2.0)
    got = _run(capi, x, 1 / 1000, 5, 0, chain)
    v = x.astype(f) * f(0.5) * f(1 / 1000) * f(2.0)
    want = (np.rint(np.clip(v, lo, hi)) + 5).astype(np.int8)
    assert np.array_equal(got, want)
    assert np.array_equal(got, simdops.requantize_fp32(x, 1 / 1000, 5, out_dtype="int8",
                                                       pre_scale=0.5, post_scale=2.0))
    # oneDNN's reference divides; OpenVINO adds its offset
    chain = Chain(has_post_divisor=1, has_offset=1, post_divisor=3.0, offset=0.25)
    got = _run(capi, x, 1 / 1000, 5, 0, chain)
    v = x.astype(f) * f(1 / 1000) / f(3.0) + f(0.25)
    assert np.array_equal(got, (np.rint(np.clip(v, lo, hi)) + 5).astype(np.int8))


def test_capi_chain_float_bias_add_half_and_float64_scales(capi):
    rng = np.random.default_rng(32)
    x = _inputs(rng)
    f = np.float32
    ch = x.shape[1]
    bias = ((np.arange(ch) - 30) * 2.5).astype(f)
    scales = np.linspace(1 / 1300, 1 / 700, ch).astype(f)
    # fbgemm: the float32 bias added to f32(a) first; ties add_half (ncnn's x86)
    got = _run(capi, x, 1.0, -2, FP_TIES_ADD_HALF, None, bias=bias, scales=scales)
    v = np.clip((x.astype(f) + bias) * scales, -128 + 2, 127 + 2)
    want = np.trunc(v + np.copysign(f(0.5), v).astype(f)).astype(np.int64) - 2
    assert np.array_equal(got, want.astype(np.int8))
    assert np.array_equal(got, simdops.requantize_fp32(x, scales, -2, out_dtype="int8",
                                                       bias=bias, ties="add_half"))
    # LiteRT's reference FULLY_CONNECTED: float64 per-channel scales, ties away
    s64 = np.linspace(1 / 1300, 1 / 700, ch)
    got = _run(capi, x, 1.0, 1, FP_FLOAT64 | FP_TIES_AWAY, None, scales=s64)
    want = _away(np.clip(x.astype(np.float64) * s64, -129, 126)) + 1
    assert np.array_equal(got, want.astype(np.int8))


def test_capi_chain_null_is_plain_and_bad_chains_are_refused(capi):
    rng = np.random.default_rng(33)
    x = _inputs(rng)
    assert np.array_equal(_run(capi, x, 1 / 1000, 0, 0, None),
                          simdops.requantize_fp32(x, 1 / 1000, 0, out_dtype="int8"))
    prep = Prepared()
    both = Chain(has_post_scale=1, has_post_divisor=1, post_scale=2.0, post_divisor=2.0)
    expect(capi, call(capi.prepare_requant_fp_chain, INT8, 1.0, 0, None, None, 0,
                      ctypes.byref(both), ctypes.byref(prep)), E_PARAM)
    zero = Chain(has_post_divisor=1, post_divisor=0.0)
    expect(capi, call(capi.prepare_requant_fp_chain, INT8, 1.0, 0, None, None, 0,
                      ctypes.byref(zero), ctypes.byref(prep)), E_PARAM, "post")
    chain = Chain(has_offset=1, offset=1.0)
    expect(capi, call(capi.prepare_requant_fp_chain, INT8, 1.0, 0, None, None, 0,
                      ctypes.byref(chain), None), E_PARAM)
