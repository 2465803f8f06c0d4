"""The low-bit QuantizeLinear / DequantizeLinear against ONNX Runtime, through
Q -> DQ chains (ORT's Python API cannot return int4 / float8 tensors): equal on
every tie and special, except where pinned by a test named after ORT's behaviour."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ml_dtypes = pytest.importorskip("ml_dtypes")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import simdops.onnx as so  # noqa: E402

F8 = {TensorProto.FLOAT8E4M3FN: ml_dtypes.float8_e4m3fn,
      TensorProto.FLOAT8E4M3FNUZ: ml_dtypes.float8_e4m3fnuz,
      TensorProto.FLOAT8E5M2: ml_dtypes.float8_e5m2,
      TensorProto.FLOAT8E5M2FNUZ: ml_dtypes.float8_e5m2fnuz}


def ort_qdq(x, scale, zp, qattrs, dqattrs, opset=21):
    """ORT's DequantizeLinear(QuantizeLinear(x)) with the scale / zero point as
    initializers."""
    inits = [numpy_helper.from_array(scale, "s")]
    names = ["x", "s"]
    if zp is not None:
        inits.append(numpy_helper.from_array(zp, "z"))
        names.append("z")
    q = helper.make_node("QuantizeLinear", names, ["q"], **qattrs)
    dq = helper.make_node("DequantizeLinear", ["q"] + names[1:], ["y"], **dqattrs)
    g = helper.make_graph([q, dq], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


def simdops_qdq(x, scale, zp, qattrs, dqattrs):
    q = so.quantize_linear(x, scale, zp, **qattrs)
    return so.dequantize_linear(q, scale, zp, **dqattrs)


def f8_grid(dt):
    v = np.arange(256, dtype=np.uint8).view(dt).astype(np.float32)
    v = np.unique(v[np.isfinite(v)])
    mid = ((v[1:].astype(np.float64) + v[:-1]) / 2).astype(np.float32)
    top = float(v[-1])
    return np.concatenate([v, mid, np.nextafter(mid, np.float32(np.inf)),
                           np.nextafter(mid, np.float32(-np.inf)),
                           np.array([top * 1.125, top * 2, 1e30, -1e30, np.inf, -np.inf, np.nan],
                                    np.float32)])


def same_or_both_nan(a, b):
    return np.all((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b)))


@pytest.mark.parametrize("code", list(F8))
@pytest.mark.parametrize("saturate", [0, 1])
def test_float8_chain_matches_ort(code, saturate):
    dt = F8[code]
    x = f8_grid(dt)
    if code == TensorProto.FLOAT8E5M2 and not saturate:
        x = x[(np.abs(x) < 61440) | (np.abs(x) >= 65536)]  # pinned below
    scale = np.array(1.0, np.float32)
    zp = np.zeros((), dt)
    got = simdops_qdq(x, scale, zp, {"saturate": saturate}, {})
    want = ort_qdq(x, scale, zp, {"saturate": saturate}, {})
    assert same_or_both_nan(got, want)


def test_ort_e5m2_saturate0_gives_nan_from_61440_to_65536_where_the_reference_gives_inf():
    """61440 is the tie between e5m2's largest finite value 57344 and 65536; from it up
    to 65536 round-to-nearest-even overflows, so onnx.reference (ml_dtypes) and simdops
    give +-inf with saturate=0, and ORT 1.32 gives NaN there (and inf from 65536 on).
    simdops follows the reference."""
    x = np.array([61440.0, -61440.0, 61441.0, 64512.0, 65520.0, 65535.0, 65536.0, 1e6],
                 np.float32)
    scale = np.array(1.0, np.float32)
    zp = np.zeros((), ml_dtypes.float8_e5m2)
    got = so.quantize_linear(x, scale, zp, saturate=0)
    assert got.view(np.uint8).tolist() == [0x7C, 0xFC, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C]
    want = ort_qdq(x, scale, zp, {"saturate": 0}, {})
    assert np.isnan(want[:6]).all()  # ORT: NaN where rounding overflows
    assert want[6:].tolist() == [np.inf, np.inf]  # and inf past 65536, as the reference


@pytest.mark.parametrize("dt,code", [(ml_dtypes.int4, TensorProto.INT4),
                                     (ml_dtypes.uint4, TensorProto.UINT4)])
@pytest.mark.parametrize("axis,shape", [(0, (64, 16)), (1, (16, 64)), (0, (70, 8))])
def test_int4_blocked_chain_matches_ort(dt, code, axis, shape):
    """ORT's weight form (axis 0, block 32) and its transpose, on ties and near-ties."""
    rng = np.random.default_rng(code)
    sshape = list(shape)
    sshape[axis] = -(-shape[axis] // 32)
    scale = rng.choice([0.5, 0.25, 0.125, 0.1, 3.0], size=sshape).astype(np.float32)
    lo, hi = (-8, 7) if dt is ml_dtypes.int4 else (0, 15)
    zp = rng.integers(lo, hi + 1, size=sshape).astype(dt)
    srep = np.repeat(scale, 32, axis).take(range(shape[axis]), axis)
    k = rng.integers(-10, 20, size=shape) + rng.choice([0.5, 0.5 - 2**-10, 0.5 + 2**-10, 0.0],
                                                       size=shape)
    x = (k * srep).astype(np.float32)
    attrs = {"axis": axis, "block_size": 32}
    got = simdops_qdq(x, scale, zp, attrs, attrs)
    want = ort_qdq(x, scale, zp, attrs, attrs)
    assert got.tobytes() == want.tobytes()


def test_ort_has_no_float4e2m1_kernel():
    """ORT 1.32 cannot run QuantizeLinear to float4e2m1: onnx.reference is the only target."""
    x = np.array([0.5, 1.0], np.float32)
    with pytest.raises(Exception):
        ort_qdq(x, np.array(1.0, np.float32), np.zeros((), ml_dtypes.float4_e2m1fn), {}, {},
                opset=23)
