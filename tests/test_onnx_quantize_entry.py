"""simdops.onnx.quantize_linear's C-level entry (_core.onnx_quantize_linear) against the
Python function it stands for (simdops.onnx._ops.quantize_linear): the same answer, the
same error type and message, for the calls it takes itself and for those it passes on."""
import numpy as np
import pytest

import simdops.onnx
from simdops.onnx import _ops

ml_dtypes = pytest.importorskip("ml_dtypes")

RNG = np.random.default_rng(7)
X32 = (RNG.standard_normal((3, 40)) * 60).astype(np.float32)
X32[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
X32[1, :3] = [2.5, -3.5, 0.5]  # exact ties at scale 1


def _outcome(f, *args, **kw):
    try:
        r = f(*args, **kw)
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return ("raise", type(e), str(e))
    return ("value", np.asarray(r).dtype, np.asarray(r).copy())


def _same(a, b):
    assert a[0] == b[0] and a[1] == b[1], (a, b)
    if a[0] == "value":
        np.testing.assert_array_equal(a[2], b[2])
    else:
        assert a[2] == b[2]


CALLS = [
    ((X32, np.float32(0.37)), {}),
    ((X32, np.array(0.37, np.float32), np.array(128, np.uint8)), {}),
    ((X32, np.array(1.0, np.float32), np.array(-3, np.int8)), {}),
    ((X32, 0.37, 7), {}),
    ((X32, 0.37, np.array(300, np.uint16)), {}),
    ((X32, np.array(0.5, np.float16), np.array(-9, np.int16)), {}),
    ((X32.astype(np.float16), np.array(0.5, np.float16), np.array(3, np.uint8)), {}),
    ((X32[:, ::3], np.array(0.37, np.float32), np.array(128, np.uint8)), {}),  # strided
    ((X32, np.array([0.5, 1.0, 2.0], np.float32), np.array([1, 2, 3], np.uint8)), {"axis": 0}),
    ((X32, np.array([0.5, 1.0, 2.0], np.float32), np.array([1, 2, 3], np.uint8)), {"axis": 5}),
    ((X32, np.array(0.37, np.float32), np.array(128, np.uint8)),
     {"out": np.empty(X32.shape, np.uint8)}),
    ((X32, np.array(0.37, np.float32), np.array(128, np.uint8)),
     {"out": np.empty(X32.shape, np.int8)}),           # out disagrees with the zero point
    ((X32, np.array(0.37, np.float32)), {"out": np.empty((2, 2), np.uint8)}),
    ((X32, np.array(0.37, np.float32), 300), {}),      # an int beyond uint8
    ((X32, np.array(0.37, np.float32), 3), {"axis": "a"}),
    ((X32.astype(">f4"), np.array(0.37, np.float32), np.array(1, np.uint8)), {}),  # not native
    ((X32.astype(np.float64), np.array(0.37, np.float32)), {}),
    ((X32, np.array(0.37, np.float64)), {}),
    ((X32, None), {}),
    ((X32.tolist(), 0.5), {}),
    # the low-bit path's arguments
    ((X32.astype(ml_dtypes.bfloat16), np.array(0.5, np.float32)), {}),
    ((X32, np.array(0.5, ml_dtypes.bfloat16)), {}),
    ((X32, np.array(0.5, np.float32), np.array(1, ml_dtypes.int4)), {}),
    ((X32, np.array(0.5, np.float32)), {"output_dtype": np.int8}),
    ((X32, np.array(0.5, np.float32)), {"saturate": 0, "output_dtype": "float8_e4m3fn"}),
    ((X32, np.full((3, 40), 0.5, np.float32)), {"block_size": 8, "axis": 1}),
    ((X32, np.array(0.5, np.float32)), {"precision": "float16"}),
    ((X32, np.array(0.5, np.float32), np.array(1, np.uint8)), {"packed": True}),
]


@pytest.mark.parametrize("args,kw", CALLS)
def test_entry_equals_the_python_function(args, kw):
    kw2 = dict(kw)
    if "out" in kw:
        kw2["out"] = np.empty_like(kw["out"])
    _same(_outcome(simdops.onnx.quantize_linear, *args, **kw),
          _outcome(_ops.quantize_linear, *args, **kw2))


def test_entry_writes_out_and_returns_it():
    out = np.empty(X32.shape, np.uint8)
    r = simdops.onnx.quantize_linear(X32, np.array(0.37, np.float32), np.array(128, np.uint8),
                                     out=out)
    assert r is out
    want = np.clip(np.rint(X32 / np.float32(0.37)) + 128, 0, 255)  # ONNX: in float32
    fin = np.isfinite(X32)
    np.testing.assert_array_equal(out[fin], want[fin].astype(np.uint8))


def test_entry_carries_the_documentation():
    assert simdops.onnx.quantize_linear.__doc__ == _ops.quantize_linear.__doc__
