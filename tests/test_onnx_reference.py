"""simdops.onnx against onnx.reference.ReferenceEvaluator, bit for bit, on random
tensors of every dtype with NaN / +-inf / ties / +-0 and non-contiguous views."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

onnx = pytest.importorskip("onnx")
from onnx import helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import simdops  # noqa: E402
import simdops.onnx as so  # noqa: E402
from reference import DEQUANTIZE_DTYPES, QLINEAR_DTYPES  # noqa: E402

FLOATS = (np.float16, np.float32, np.float64)
INTS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)


def ref(node, feeds):
    """The reference evaluator's output for one node (the evaluator warns on the
    undefined casts it performs; they are not compared here)."""
    with np.errstate(all="ignore"):
        return ReferenceEvaluator(node).run(None, feeds)[0]


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 1 and b.size == 1 and a.ndim < b.ndim:  # the evaluator widens 0-d results
        b = b.reshape(a.shape)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def special_floats(rng, dtype, n):
    """Random values with NaN, +-inf, +-0, halves (ties) and huge / tiny values."""
    if dtype in FLOATS:
        x = rng.standard_normal(n) * rng.choice([1e-3, 1, 100, 1e5], n)
        x = x.astype(dtype)
        pick = rng.random(n)
        x[pick < 0.05] = np.nan
        x[(pick >= 0.05) & (pick < 0.08)] = np.inf
        x[(pick >= 0.08) & (pick < 0.11)] = -np.inf
        x[(pick >= 0.11) & (pick < 0.14)] = 0.0
        x[(pick >= 0.14) & (pick < 0.17)] = -0.0
        halves = (pick >= 0.17) & (pick < 0.35)
        x[halves] = (rng.integers(-300, 300, halves.sum()) + 0.5).astype(dtype)
        return x
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    small = rng.random(n) < 0.5
    x[small] = rng.integers(max(info.min, -5), 6, small.sum()).astype(dtype)
    return x


def views(rng, x):
    """x itself, or a reversed / strided view of a bigger copy."""
    k = rng.integers(3)
    if k == 0 or x.ndim == 0:
        return x
    if k == 1:
        return np.flip(x.copy(), axis=-1)[..., ::-1] if x.shape[-1] else x
    big = np.repeat(x, 2, axis=-1)
    return big[..., ::2]


SEEDS = range(12)
SHAPES = [(), (7,), (3, 33), (2, 3, 17), (0, 4)]


# ---------------------------------------------------------------- clip

@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_clip(dtype, seed):
    rng = np.random.default_rng(seed)
    shape = SHAPES[seed % len(SHAPES)]
    x = views(rng, special_floats(rng, dtype, int(np.prod(shape))).reshape(shape))
    lo, hi = special_floats(rng, dtype, 2)
    if seed % 4 == 0:
        lo, hi = max(lo, hi), min(lo, hi)  # min > max: ONNX gives max
    for has_lo, has_hi in ((1, 1), (1, 0), (0, 1), (0, 0)):
        names = ["x", "lo" if has_lo else "", "hi" if has_hi else ""]
        node = helper.make_node("Clip", names, ["y"])
        feeds = {"x": np.ascontiguousarray(x)}
        if has_lo:
            feeds["lo"] = np.array(lo, dtype)
        if has_hi:
            feeds["hi"] = np.array(hi, dtype)
        want = ref(node, feeds)
        got = so.clip(x, lo if has_lo else None, hi if has_hi else None)
        if dtype in FLOATS and not (has_lo and has_hi):
            # numpy's one-sided minimum/maximum return either zero on a tie (it depends
            # on the array length): equal values, signs not compared (docs/onnx.md)
            zero = (want == 0) & (np.asarray(got) == 0)
            want = np.where(zero, 0, want).astype(dtype)
            got = np.where(zero, 0, got).astype(dtype)
        assert same_bits(got, want), (lo, hi, has_lo, has_hi, x, got, want)


def test_clip_min_above_max_gives_max():
    x = np.array([-5, 0, 5], np.int16)
    assert same_bits(so.clip(x, 3, 1), np.array([1, 1, 1], np.int16))
    assert same_bits(simdops.clip(x, 3, 1), np.array([3, 3, 3], np.int16))  # DirectML: min


def test_clip_nan_bound_gives_that_nan():
    nan = np.frombuffer(np.uint32(0x7FC00123).tobytes(), np.float32)[0]
    x = np.array([1.0, -np.inf, np.nan], np.float32)
    got = so.clip(x, nan, None).view(np.uint32)
    assert list(got[:2]) == [0x7FC00123, 0x7FC00123] and np.isnan(so.clip(x, nan, None)[2])


# ---------------------------------------------------------------- shrink

@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_shrink(dtype, seed):
    rng = np.random.default_rng(100 + seed)
    shape = SHAPES[seed % len(SHAPES)]
    x = views(rng, special_floats(rng, dtype, int(np.prod(shape))).reshape(shape))
    bias = float(rng.choice([0.0, 0.5, 1.5, 0.7, 3.0, -2.25, 1e10]))
    lambd = float(rng.choice([0.0, 0.5, 1.5, 2.5, -1.0, 1e3]))
    node = helper.make_node("Shrink", ["x"], ["y"], bias=bias, lambd=lambd)
    want = ref(node, {"x": np.ascontiguousarray(x)})
    got = so.shrink(x, bias, lambd)
    if dtype in INTS:
        # results outside the integer type: the reference's cast is undefined; simdops
        # saturates. Compare where the reference's computation lands inside the type.
        ct = np.float32 if np.dtype(dtype).itemsize <= 2 else np.float64
        xc = x.astype(ct)
        r = np.where(xc < -ct(lambd), xc + ct(bias), np.where(xc > ct(lambd), xc - ct(bias), 0))
        info = np.iinfo(dtype)
        inside = (r > float(info.min) - 1) & (r < float(info.max) + 1)
        if np.dtype(dtype).itemsize == 8:
            inside &= (r > -2.0**63) & (r < 2.0**63) if info.min else (r < 2.0**64) & (r > -1)
        want = np.asarray(want).reshape(np.shape(got))[inside]
        got = np.asarray(got)[inside]
    assert same_bits(got, want), (bias, lambd)


def test_shrink_nan_gives_zero_and_int32_in_float64():
    assert so.shrink(np.array([np.nan], np.float32))[0] == 0
    assert so.shrink(np.array([16777217], np.int32), 0.0, 0.5)[0] == 16777217


# ---------------------------------------------------------------- hardmax

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("seed", SEEDS)
def test_hardmax_opset13(dtype, seed):
    rng = np.random.default_rng(200 + seed)
    shape = [(4, 9), (3, 5, 7), (2, 3, 4, 5)][seed % 3]
    x = special_floats(rng, dtype, int(np.prod(shape))).reshape(shape)
    x[rng.random(x.shape) < 0.3] = x.flat[0]  # ties
    axis = int(rng.integers(-len(shape), len(shape)))
    node = helper.make_node("Hardmax", ["x"], ["y"], axis=axis)
    assert same_bits(so.hardmax(views(rng, x), axis), ref(node, {"x": x}))


@pytest.mark.parametrize("opset", [1, 11])
@pytest.mark.parametrize("dtype", FLOATS)
def test_hardmax_coercing_opsets_follow_the_text(opset, dtype):
    """Opsets 1/11 flatten [d0..d(a-1)] x [da..]: the reference reduces `axis` alone,
    the operator text (and ONNX Runtime) the whole trailing block."""
    rng = np.random.default_rng(opset)
    x = special_floats(rng, dtype, 2 * 3 * 4).reshape(2, 3, 4)
    for axis in (0, 1, 2, -1) + ((3,) if opset == 1 else ()):
        a = axis if axis >= 0 else axis + 3
        flat = x.reshape(int(np.prod(x.shape[:a])), -1)
        node = helper.make_node("Hardmax", ["x"], ["y"], axis=1)
        want = ref(node, {"x": flat}) if flat.shape[1] else flat
        assert same_bits(so.hardmax(x, axis, opset=opset), want.reshape(x.shape)), axis


# ---------------------------------------------------------------- quantize / dequantize

def q_inputs(rng, xdtype, qdtype, shape, per_axis, axis):
    x = special_floats(rng, xdtype, int(np.prod(shape))).reshape(shape)
    n = shape[axis] if per_axis else 1
    sdtype = xdtype if rng.random() < 0.7 else np.float32
    scale = rng.choice([0.5, 0.1, 2.0, 0.0078125, 3.0, 1e-3, 37.5], n).astype(sdtype)
    info = np.iinfo(qdtype)
    zp = rng.integers(info.min, info.max, n, endpoint=True).astype(qdtype)
    if not per_axis:
        scale, zp = scale.reshape(()), zp.reshape(())
    return x, scale, zp


def quantize_defined(x, scale, zp, axis):
    """Elements whose quotient the reference casts without undefined behaviour
    (not NaN / inf / beyond int32 once the zero point is added)."""
    s = scale if scale.ndim == 0 else scale.reshape([-1 if d == axis % x.ndim else 1
                                                     for d in range(x.ndim)])
    with np.errstate(all="ignore"):
        q = np.rint(x / s).astype(np.float64)
    return np.isfinite(q) & (np.abs(q) < 2.0**31 - 70000)


@pytest.mark.parametrize("qdtype", QLINEAR_DTYPES)
@pytest.mark.parametrize("xdtype", (np.float32, np.float16))
@pytest.mark.parametrize("seed", range(8))
def test_quantize_linear(qdtype, xdtype, seed):
    rng = np.random.default_rng(300 + seed)
    shape = [(5, 7), (2, 3, 11), (40,), (1, 4, 3, 3)][seed % 4]
    per_axis = seed % 2 == 1 and len(shape) > 1
    axis = int(rng.integers(-len(shape), len(shape)))
    x, scale, zp = q_inputs(rng, xdtype, qdtype, shape, per_axis, axis)
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=axis)
    want = ref(node, {"x": x, "s": scale, "z": zp})
    got = so.quantize_linear(views(rng, x), scale, zp, axis=axis)
    ok = quantize_defined(x, scale, zp, axis)
    assert same_bits(np.asarray(got)[ok], want[ok])
    # NaN gives the type's minimum; +-inf saturates
    info = np.iinfo(qdtype)
    assert (np.asarray(got)[np.isnan(x)] == info.min).all()
    pos = (np.isinf(x) & (x > 0)) ^ (np.broadcast_to(scale, x.shape) < 0) if scale.ndim == 0 else None
    if pos is not None:
        inf = np.isinf(x)
        assert (np.asarray(got)[inf & pos] == info.max).all()
        assert (np.asarray(got)[inf & ~pos] == info.min).all()


@pytest.mark.parametrize("xdtype", DEQUANTIZE_DTYPES)
@pytest.mark.parametrize("sdtype", (np.float32, np.float16))
@pytest.mark.parametrize("seed", range(8))
def test_dequantize_linear(xdtype, sdtype, seed):
    rng = np.random.default_rng(400 + seed)
    shape = [(5, 7), (2, 3, 11), (40,), (1, 4, 3, 3)][seed % 4]
    per_axis = seed % 2 == 1 and len(shape) > 1
    axis = int(rng.integers(-len(shape), len(shape)))
    x = special_floats(rng, xdtype, int(np.prod(shape))).reshape(shape)
    n = shape[axis] if per_axis else 1
    scale = rng.choice([0.5, 0.1, 2.0, 0.0078125, 3.0, 1e-3, 37.5, -1.25], n).astype(sdtype)
    zp = (np.zeros(n, xdtype) if xdtype == np.int32 else
          rng.integers(np.iinfo(xdtype).min, np.iinfo(xdtype).max, n, endpoint=True).astype(xdtype))
    if not per_axis:
        scale, zp = scale.reshape(()), zp.reshape(())
    node = helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=axis)
    want = ref(node, {"x": x, "s": scale, "z": zp})
    got = so.dequantize_linear(views(rng, x), scale, zp, axis=axis)
    assert same_bits(got, want)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True), min_size=1, max_size=70),
       st.sampled_from([0.5, 0.25, 3.0, 1e-3, 0.1]), st.integers(0, 255))
def test_quantize_linear_hypothesis(values, scale, zp):
    x = np.array(values, np.float32)
    s, z = np.float32(scale), np.uint8(zp)
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    want = ref(node, {"x": x, "s": np.array(s), "z": np.array(z)})
    got = so.quantize_linear(x, np.array(s), np.array(z))
    ok = quantize_defined(x, np.array(s), np.array(z), 0)
    assert same_bits(got[ok], want[ok])
    for isa in simdops.available_isas():
        with simdops.use_isa(isa):
            assert same_bits(so.quantize_linear(x, np.array(s), np.array(z)), got)


def _model_ref(node, feeds, opset):
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
              for n, v in feeds.items()]
    out = helper.make_tensor_value_info("y", 0, None)
    graph = helper.make_graph([node], "g", inputs, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    with np.errstate(all="ignore"):
        return ReferenceEvaluator(model).run(None, feeds)[0]


@pytest.mark.parametrize("opset", range(10, onnx.defs.onnx_opset_version() + 1))
def test_run_node_every_quantize_opset(opset):
    """run_node at each opset from 10 to the newest equals the reference at that opset."""
    rng = np.random.default_rng(opset)
    x = (rng.standard_normal((2, 3, 4)) * 30).astype(np.float32)
    s = np.array(0.37, np.float32)
    z = np.array(7, np.uint8)
    qn = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    q = so.run_node(qn, [x, s, z], opset=opset)[0]
    assert same_bits(q, _model_ref(qn, {"x": x, "s": s, "z": z}, opset))
    dn = helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])
    # onnx.reference has no DequantizeLinear before 19; 10 and 13 compute as 19 does
    assert same_bits(so.run_node(dn, [q, s, z], opset=opset)[0],
                     _model_ref(dn, {"q": q, "s": s, "z": z}, max(opset, 19)))
    if opset >= 13:  # per axis
        sa = np.array([0.5, 0.25, 2.0], np.float32)
        za = np.array([0, 9, 250], np.uint8)
        qa = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1)
        assert same_bits(so.run_node(qa, [x, sa, za], opset=opset)[0],
                         _model_ref(qa, {"x": x, "s": sa, "z": za}, opset))


@pytest.mark.parametrize("opset", [6, 11, 12, 13])
def test_run_node_clip_opsets(opset):
    x = np.array([-3, -0.5, 0.5, 3, np.inf, -np.inf], np.float32)
    if opset < 11:
        node = helper.make_node("Clip", ["x"], ["y"], min=-1.0, max=2.0)
        feeds, args = {"x": x}, [x]
    else:
        node = helper.make_node("Clip", ["x", "lo", "hi"], ["y"])
        lo, hi = np.array(-1, np.float32), np.array(2, np.float32)
        feeds, args = {"x": x, "lo": lo, "hi": hi}, [x, lo, hi]
    assert same_bits(so.run_node(node, args, opset=opset)[0], _model_ref(node, feeds, opset))
