"""The low-bit hot paths on every available tier (SSE2, AVX2, AVX-512 and NEON have kernels
of their own, one body, for int4 / uint4 dequantize to float32 / float16 / bfloat16 and
quantize, float8 e4m3fn / e5m2 quantize and dequantize; SSE4.1 runs SSE2's): each tier
against onnx.reference, bit for bit, on
shapes whose rows start mid-byte, odd and short last blocks, NaN / inf / ties / subnormals
and both saturate settings. ISA forcing is per thread but the test walks every tier."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ml_dtypes = pytest.importorskip("ml_dtypes")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import simdops  # noqa: E402
import simdops.onnx as so  # noqa: E402

pytestmark = pytest.mark.thread_unsafe


def ref(op, inputs, attrs, opset):
    """onnx.reference's output of one node at `opset`"""
    names = [f"i{k}" for k in range(len(inputs))]
    node = helper.make_node(op, names, ["y"], **attrs)
    graph_in = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                for n, v in zip(names, inputs)]
    out = helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)
    model = helper.make_model(helper.make_graph([node], "g", graph_in, [out]),
                              opset_imports=[helper.make_opsetid("", opset)])
    with np.errstate(all="ignore"):
        return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))[0]


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8 if a.dtype.itemsize == 1 else
                                        {2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def specials(rng, n, scale):
    x = (rng.standard_normal(n) * 6 * scale).astype(np.float32)
    k = rng.integers(-20, 20, n)
    x[::3] = ((k[::3] + 0.5) * scale).astype(np.float32)          # ties
    e = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 464.0, 61440.0,
                  -464.0, 448.0, 57344.0, 3e38, 2.0 ** -10, 2.0 ** -17], np.float32) * np.float32(scale)
    x[:e.size] = e
    return x


def blocked_codes(rng, xt, shape, axis, block):
    """random codes of type xt, the scale's shape for block_size=block on axis, zero points"""
    info = ml_dtypes.iinfo(xt)
    x = rng.integers(info.min, info.max + 1, shape).astype(xt)
    sshape = list(shape)
    sshape[axis] = -(-shape[axis] // block)
    return x, sshape, rng.integers(info.min, info.max + 1, sshape).astype(xt)


@pytest.mark.parametrize("isa", simdops.available_isas())
@pytest.mark.parametrize("xt", [ml_dtypes.int4, ml_dtypes.uint4])
@pytest.mark.parametrize("shape,axis,block", [((67, 33), 0, 32), ((130, 19), 0, 7), ((9, 261), 1, 128),
                                              ((5, 77), 1, 32), ((256, 64), 0, 128)])
def test_int4_blocked_dequantize_every_tier(isa, xt, shape, axis, block):
    rng = np.random.default_rng(7)
    x, sshape, zp = blocked_codes(rng, xt, shape, axis, block)
    for sdt in (np.float32, np.float16, ml_dtypes.bfloat16):
        s = (rng.random(sshape) * 0.05 + 1e-3).astype(sdt)
        s.flat[0] = np.nan
        if sdt is np.float16:
            s.flat[1] = 60000.0  # a product past float16's range
        want = ref("DequantizeLinear", [x, s, zp], {"axis": axis, "block_size": block}, 21)
        with simdops.use_isa(isa):
            got = so.dequantize_linear(x, s, zp, axis=axis, block_size=block)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("xt,shape,axis,block", [(ml_dtypes.int4, (4099, 1031), 0, 32),
                                                  (ml_dtypes.uint4, (1031, 4099), 1, 128)])
def test_int4_dequantize_past_stream_threshold_every_tier(xt, shape, axis, block):
    """an output of 16.9 MB, past the 12 MiB from which the driver streams it with
    non-temporal stores (blocks, a head to y's first line, a partial tail): still
    onnx.reference's bits on every tier"""
    rng = np.random.default_rng(11)
    x, sshape, zp = blocked_codes(rng, xt, shape, axis, block)
    s = (rng.random(sshape) * 0.05 + 1e-3).astype(np.float32)
    want = ref("DequantizeLinear", [x, s, zp], {"axis": axis, "block_size": block}, 21)
    assert want.nbytes >= 12 << 20
    for isa in simdops.available_isas():
        with simdops.use_isa(isa):
            got = so.dequantize_linear(x, s, zp, axis=axis, block_size=block)
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=isa)


@pytest.mark.parametrize("isa", simdops.available_isas())
@pytest.mark.parametrize("xt", [ml_dtypes.int4, ml_dtypes.uint4])
def test_int4_blocked_quantize_every_tier(isa, xt):
    rng = np.random.default_rng(8)
    info = ml_dtypes.iinfo(xt)
    x = specials(rng, 99 * 41, 0.25).reshape(99, 41)
    s = np.full((-(-99 // 32), 41), 0.25, np.float32)
    s[1] = 0.37
    zp = rng.integers(info.min, info.max + 1, s.shape).astype(xt)
    want = ref("QuantizeLinear", [x, s, zp], {"axis": 0, "block_size": 32}, 21)
    with simdops.use_isa(isa):
        got = so.quantize_linear(x, s, zp, axis=0, block_size=32)
    q = x / np.repeat(s, 32, axis=0)[:99]
    finite = np.abs(q) < 2.0 ** 31  # the reference's cast to int32 is undefined past it (NaN too)
    np.testing.assert_array_equal(bits(got)[finite], bits(want)[finite])


@pytest.mark.parametrize("isa", simdops.available_isas())
@pytest.mark.parametrize("ft", [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2])
@pytest.mark.parametrize("saturate", [0, 1])
def test_float8_quantize_dequantize_every_tier(isa, ft, saturate):
    rng = np.random.default_rng(9)
    for scale in (1.0, 0.37, 2.0 ** -8):
        x = specials(rng, 1000, scale)
        s = np.array(scale, np.float32)
        zp = np.zeros((), ft)
        want = ref("QuantizeLinear", [x, s, zp], {"saturate": saturate}, 19)
        with simdops.use_isa(isa):
            got = so.quantize_linear(x, s, zp, saturate=saturate)
        np.testing.assert_array_equal(bits(got), bits(want))
        codes = np.arange(256 * 3, dtype=np.uint32).astype(np.uint8).view(ft)
        want = ref("DequantizeLinear", [codes, s, zp], {}, 19)
        with simdops.use_isa(isa):
            got = so.dequantize_linear(codes, s, zp)
        np.testing.assert_array_equal(bits(got), bits(want))
