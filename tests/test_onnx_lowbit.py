"""The low-bit QuantizeLinear / DequantizeLinear (int4, uint4, int2, uint2, the
float8 kinds, float4e2m1, bfloat16 / float16 / float8e8m0 scales, blocked
quantization, precision, saturate) against onnx.reference, bit for bit, at every
opset that defines each type, on every input class: ties, +-0, subnormals, NaN
payloads, +-inf, saturation, power-of-two scales, short last blocks, every axis,
strided views."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ml_dtypes = pytest.importorskip("ml_dtypes")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import simdops.onnx as so  # noqa: E402

INT_TYPES = {"int4": (ml_dtypes.int4, 21), "uint4": (ml_dtypes.uint4, 21),
             "int2": (ml_dtypes.int2, 25), "uint2": (ml_dtypes.uint2, 25),
             "uint8": (np.uint8, 10), "int8": (np.int8, 10), "uint16": (np.uint16, 21),
             "int16": (np.int16, 21)}
F8_TYPES = {"e4m3fn": ml_dtypes.float8_e4m3fn, "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
            "e5m2": ml_dtypes.float8_e5m2, "e5m2fnuz": ml_dtypes.float8_e5m2fnuz}
F4 = ml_dtypes.float4_e2m1fn
BF16 = ml_dtypes.bfloat16
E8M0 = ml_dtypes.float8_e8m0fnu
OPSETS = (19, 21, 23, 24, 25)


def first_opset(dt):
    if dt in F8_TYPES.values():
        return 19
    if dt is F4:
        return 23
    return {v[0]: v[1] for v in INT_TYPES.values()}[dt]


def run_ref(op, inputs, attrs, opset):
    """onnx.reference's output of one node at `opset` (inputs: arrays or None)."""
    names = [f"i{k}" if v is not None else "" for k, v in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, ["y"], **attrs)
    graph_in = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                for n, v in zip(names, inputs) if n]
    out = helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)
    model = helper.make_model(helper.make_graph([node], "g", graph_in, [out]),
                              opset_imports=[helper.make_opsetid("", opset)])
    feeds = {n: v for n, v in zip(names, inputs) if n}
    with np.errstate(all="ignore"):
        return ReferenceEvaluator(model).run(None, feeds)[0], node


def run_both(op, inputs, attrs, opset):
    want, node = run_ref(op, inputs, attrs, opset)
    got = so.run_node(node, list(inputs[:len(node.input)]), opset=opset)[0]
    return np.asarray(got), np.asarray(want)


def special(rng, n, dtype=np.float32, scale=1.0):
    """Random floats of every class: ties of the scale's multiples, +-0, float32
    subnormals, NaN with payloads, +-inf, huge values."""
    x = (rng.standard_normal(n) * rng.choice([0.01, 1, 8, 300, 1e5], n)).astype(np.float32)
    pick = rng.random(n)
    x[pick < 0.25] = ((rng.integers(-20, 20, (pick < 0.25).sum()) + 0.5) * scale).astype(np.float32)
    nanbits = (0x7f800001 + rng.integers(0, 0x7fffff, n)).astype(np.uint32)
    nanbits[rng.random(n) < 0.5] |= 0x80000000
    x = np.where((pick >= 0.25) & (pick < 0.3), nanbits.view(np.float32), x)
    x[(pick >= 0.3) & (pick < 0.33)] = np.inf
    x[(pick >= 0.33) & (pick < 0.36)] = -np.inf
    x[(pick >= 0.36) & (pick < 0.39)] = 0.0
    x[(pick >= 0.39) & (pick < 0.42)] = -0.0
    x[(pick >= 0.42) & (pick < 0.45)] = np.float32(1e-40) * rng.standard_normal((
        (pick >= 0.42) & (pick < 0.45)).sum()).astype(np.float32)
    return x.astype(dtype)


def int_defined(x, scale, ref_dtype, zp):
    """Where onnx.reference's integer result is defined (its rint().astype(int32)
    of a NaN or of a quotient beyond int32 is an undefined cast)."""
    with np.errstate(all="ignore"):
        q = (x / scale)
    q = np.asarray(q, np.float64)
    return np.isfinite(q) & (np.abs(q) < 2.0**31 - 2**16)


def compare(got, want, mask=None):
    """Bit equality (where mask, when given); returns the number of elements compared."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    size = got.dtype.itemsize
    g = np.ascontiguousarray(got).view(np.uint8).reshape(-1, size)
    w = np.ascontiguousarray(want).view(np.uint8).reshape(-1, size)
    keep = np.ones(got.size, bool) if mask is None else np.broadcast_to(mask, got.shape).reshape(-1)
    bad = np.nonzero(np.any(g != w, axis=1) & keep)[0]
    assert bad.size == 0, (bad[:10], got.reshape(-1)[bad[:5]], want.reshape(-1)[bad[:5]],
                           g[bad[:5]], w[bad[:5]])
    return int(keep.sum())


LAYOUTS = [  # (x shape, axis, block_size, scale shape)
    ((37,), 0, 0, ()),
    ((5, 7), 1, 0, (7,)),
    ((5, 7), 0, 0, (5,)),
    ((6, 7), 1, 3, (6, 3)),        # short last block (7 = 3 + 3 + 1)
    ((7, 6), 0, 4, (2, 6)),        # blocked on a non-last axis, short last block
    ((2, 9, 3), 1, 2, (2, 5, 3)),
    ((2, 3, 33), -1, 32, (2, 3, 2)),
    ((64, 5), 0, 32, (2, 5)),      # ORT's weight form: axis 0, block 32
]

COUNTS = {}


def _scales(rng, shape, sdt):
    s = rng.choice([0.5, 2.0, 0.25, 1.0, 0.1, 3.0, 0.0625, 7.5], size=shape).astype(np.float32)
    if sdt is E8M0:
        return np.exp2(rng.integers(-3, 4, size=shape)).astype(np.float32).astype(E8M0)
    return np.asarray(s).astype(sdt)


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("tname", list(INT_TYPES) + list(F8_TYPES) + ["float4e2m1"])
def test_quantize_matches_reference(tname, opset):
    dt = INT_TYPES[tname][0] if tname in INT_TYPES else F8_TYPES.get(tname, F4)
    if opset < first_opset(dt):
        pytest.skip("the type is not in this opset")
    rng = np.random.default_rng(hash((tname, opset)) % 2**32)
    n = 0
    xdts = [np.float32, np.float16, BF16]
    sdts = [np.float32, np.float16, BF16] + ([E8M0] if opset >= 24 else [])
    for shape, axis, block, sshape in LAYOUTS:
        if block and opset < 21:
            continue
        for xdt in xdts:
            for sdt in sdts:
                if opset < 23 and sdt is not xdt:
                    continue
                scale = _scales(rng, sshape, sdt)
                x = special(rng, int(np.prod(shape)), np.float32).reshape(shape).astype(xdt)
                attrs = {"axis": axis}
                if block:
                    attrs["block_size"] = block
                if tname in INT_TYPES:
                    info = ml_dtypes.iinfo(dt)
                    zp = rng.integers(info.min, info.max, size=sshape, endpoint=True).astype(dt)
                elif dt is F4:
                    zp = rng.choice([0.0, -0.0, 0.5, 1.0, -2.0], size=sshape).astype(F4)
                else:
                    zp = np.zeros(sshape, dt)
                for sat in ((0, 1) if tname in F8_TYPES else (1,)):
                    a = dict(attrs)
                    if tname in F8_TYPES:
                        a["saturate"] = sat
                    for z in (zp, None):
                        if z is None:
                            if tname != "uint8" and opset < 21:
                                continue
                            if tname != "uint8":
                                a["output_dtype"] = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
                        got, want = run_both("QuantizeLinear", [x, scale, z], a, opset)
                        mask = None
                        if tname in INT_TYPES:
                            from onnx.reference.ops._quant_utils import reshape_input
                            sc = reshape_input(scale, x.shape, axis, block or None)
                            with np.errstate(all="ignore"):
                                q = np.asarray(x / sc, np.float64)
                            mask = np.isfinite(q) & (np.abs(q) < 2.0**31 - 2**16)
                        n += compare(got, want, mask)
    COUNTS[("QuantizeLinear", tname, opset)] = n
    assert n > 0


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("tname", list(INT_TYPES) + ["int32"] + list(F8_TYPES) + ["float4e2m1"])
def test_dequantize_matches_reference(tname, opset):
    dt = np.int32 if tname == "int32" else (
        INT_TYPES[tname][0] if tname in INT_TYPES else F8_TYPES.get(tname, F4))
    if dt is not np.int32 and opset < first_opset(dt):
        pytest.skip("the type is not in this opset")
    rng = np.random.default_rng(hash((tname, opset, 1)) % 2**32)
    n = 0
    sdts = [np.float32, np.float16, BF16] + ([E8M0] if opset >= 24 else [])
    for shape, axis, block, sshape in LAYOUTS:
        if block and opset < 21:
            continue
        size = int(np.prod(shape))
        if dt in F8_TYPES.values():
            x = rng.integers(0, 256, size, dtype=np.uint8).view(dt).reshape(shape)
        elif dt is F4:
            x = rng.integers(0, 16, size, dtype=np.uint8).view(dt).reshape(shape)
        else:
            info = ml_dtypes.iinfo(dt)
            x = rng.integers(info.min, info.max, size, endpoint=True).astype(dt).reshape(shape)
        for sdt in sdts:
            scale = _scales(rng, sshape, sdt)
            if sdt is not E8M0:
                # specials among the scales: NaN, inf, -0, subnormal
                flat = scale.reshape(-1)
                if flat.size > 4:
                    flat[:4] = np.array([np.nan, np.inf, -0.0, 1e-40], np.float32).astype(sdt)
            for out_dt in ([None] if opset < 23 else [None, np.float32, np.float16, BF16]):
                if sdt is E8M0 and out_dt is None:
                    continue
                a = {"axis": axis}
                if block:
                    a["block_size"] = block
                if out_dt is not None:
                    a["output_dtype"] = helper.np_dtype_to_tensor_dtype(np.dtype(out_dt))
                zps = [None]
                if dt in F8_TYPES.values():
                    zps.append(np.zeros(sshape, dt))
                elif dt is F4:
                    zps.append(np.ones(sshape, F4))  # unused by the reference
                elif dt is np.int32:
                    zps.append(np.zeros(sshape, np.int32))
                else:
                    info = ml_dtypes.iinfo(dt)
                    zps.append(rng.integers(info.min, info.max, size=sshape,
                                            endpoint=True).astype(dt))
                for zp in zps:
                    if dt is np.int32 and zp is not None and out_dt not in (None, np.float32):
                        continue  # the reference's float64 product (int32 - int32 zero point)
                    if dt is np.int32 and zp is not None and sdt is not np.float32:
                        continue
                    got, want = run_both("DequantizeLinear", [x, scale, zp], a, opset)
                    n += compare(got, want)
    COUNTS[("DequantizeLinear", tname, opset)] = n
    assert n > 0


def _grid_and_midpoints(dt):
    """Every finite value of a float8 / float4 type, the midpoints between
    neighbours (the ties), one float32 ulp either side of each, and values past
    the largest finite."""
    bits = 16 if dt is F4 else 256
    v = np.arange(bits, dtype=np.uint8).view(dt).astype(np.float32)
    v = np.unique(v[np.isfinite(v)])
    mid = ((v[1:].astype(np.float64) + v[:-1]) / 2).astype(np.float32)
    top = float(v[-1])
    beyond = np.array([top * 1.0625, top * 1.125, top * 1.5, top * 2, 1e30, -1e30, np.inf,
                       -np.inf, np.nan, -np.nan], np.float32)
    x = np.concatenate([v, mid, np.nextafter(mid, np.float32(np.inf)),
                        np.nextafter(mid, np.float32(-np.inf)), beyond, -mid])
    return x


@pytest.mark.parametrize("tname", list(F8_TYPES) + ["float4e2m1"])
@pytest.mark.parametrize("xdt", [np.float32, np.float16, BF16])
def test_float_grid_ties_and_overflow(tname, xdt):
    """Every representable value, every tie, one ulp either side, and overflow, with
    saturate 0 and 1, scale 1 and a power of two."""
    dt = F8_TYPES.get(tname, F4)
    x = _grid_and_midpoints(dt).astype(xdt)
    n = 0
    for scale in (np.float32(1.0), np.float32(0.25), np.float32(4.0)):
        s = np.asarray(scale).astype(xdt)
        for sat in ((0, 1) if tname in F8_TYPES else (1,)):
            a = {"saturate": sat, "output_dtype": helper.np_dtype_to_tensor_dtype(np.dtype(dt))}
            got, want = run_both("QuantizeLinear", [x, s, None], a, 23)
            n += compare(got, want)
    COUNTS[("grid", tname, np.dtype(xdt).name)] = n


@pytest.mark.parametrize("precision", [TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16])
@pytest.mark.parametrize("tname", ["int4", "uint8", "e4m3fn", "e5m2"])
def test_precision_attribute(precision, tname):
    dt = INT_TYPES[tname][0] if tname in INT_TYPES else F8_TYPES[tname]
    rng = np.random.default_rng(precision)
    x = special(rng, 300, np.float32, 0.3)
    n = 0
    for sdt in (np.float32, np.float16, BF16):
        scale = np.asarray(0.3, np.float32).astype(sdt)
        a = {"precision": precision, "output_dtype": helper.np_dtype_to_tensor_dtype(np.dtype(dt))}
        got, want = run_both("QuantizeLinear", [x, scale, None], a, 25)
        mask = None
        if tname in INT_TYPES:
            pdt = helper.tensor_dtype_to_np_dtype(precision)
            with np.errstate(all="ignore"):
                q = np.asarray(x.astype(pdt) / scale.astype(pdt), np.float64)
            mask = np.isfinite(q) & (np.abs(q) < 2.0**31 - 2**16)
        n += compare(got, want, mask)
    assert n > 0


def test_undefined_integer_casts_saturate():
    """NaN gives the type's minimum, +-inf and quotients past int32 saturate (the
    reference's int32 cast is undefined there); docs/onnx.md."""
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9], np.float32)
    y = so.quantize_linear(x, np.float32(1), output_dtype=ml_dtypes.int4)
    assert y.dtype == ml_dtypes.int4
    assert y.astype(np.int32).tolist() == [-8, 7, -8, 7, -8]
    y = so.quantize_linear(x, np.float32(1), np.array(1, ml_dtypes.uint2))
    assert y.astype(np.int32).tolist() == [0, 3, 0, 3, 0]


# ---------------------------------------------------------------- packed buffers

def pack(a, bits):
    """ONNX's packing of an ml_dtypes array: low bits first."""
    v = a.reshape(-1).view(np.uint8).astype(np.uint32) & ((1 << bits) - 1)
    per = 8 // bits
    v = np.concatenate([v, np.zeros((-v.size) % per, np.uint32)]).reshape(-1, per)
    return (v << (np.arange(per, dtype=np.uint32) * bits)).sum(axis=1).astype(np.uint8)


@pytest.mark.parametrize("dt,bits", [(ml_dtypes.int4, 4), (ml_dtypes.uint4, 4), (ml_dtypes.int2, 2),
                                     (ml_dtypes.uint2, 2), (F4, 4)])
@pytest.mark.parametrize("shape,axis,block", [((7,), 0, 0), ((5, 3), 0, 2), ((3, 5), 1, 2),
                                              ((33, 3), 0, 32), ((1,), 0, 0)])
def test_packed_equals_unpacked(dt, bits, shape, axis, block):
    rng = np.random.default_rng(bits + len(shape))
    x = special(rng, int(np.prod(shape)), np.float32, 0.5).reshape(shape)
    if block:
        sshape = list(shape)
        sshape[axis] = -(-shape[axis] // block)
        scale = rng.choice([0.5, 0.25, 2.0], size=sshape).astype(np.float32)
    else:
        scale = np.float32(0.5)
    kw = dict(axis=axis, block_size=block, output_dtype=dt)
    y = so.quantize_linear(x, scale, **kw)
    yp = so.quantize_linear(x, scale, packed=True, **kw)
    assert yp.dtype == np.uint8 and yp.size == (y.size * bits + 7) // 8
    assert yp.tobytes() == pack(y, bits).tobytes()
    d = so.dequantize_linear(y, scale, axis=axis, block_size=block)
    dp = so.dequantize_linear(yp, scale, axis=axis, block_size=block, packed=dt, shape=shape)
    assert d.tobytes() == dp.tobytes()


def test_packed_zero_point():
    rng = np.random.default_rng(5)
    x = rng.integers(-8, 8, (6, 4)).astype(ml_dtypes.int4)
    scale = np.array([[0.5, 1, 2, 4], [0.25, 3, 0.5, 1]], np.float32)
    zp = rng.integers(-8, 8, (2, 4)).astype(ml_dtypes.int4)
    d = so.dequantize_linear(x, scale, zp, axis=0, block_size=3)
    dp = so.dequantize_linear(pack(x, 4), scale, pack(zp, 4), axis=0, block_size=3,
                              packed=ml_dtypes.int4, shape=(6, 4))
    want = (x.astype(np.float32) - np.repeat(zp.astype(np.float32), 3, 0)) * np.repeat(scale, 3, 0)
    assert d.tobytes() == dp.tobytes() == want.tobytes()


def test_packed_size_is_checked():
    with pytest.raises(ValueError, match="bytes"):
        so.dequantize_linear(np.zeros(3, np.uint8), np.float32(1), packed="int4", shape=(7,))
    with pytest.raises(TypeError, match="shape"):
        so.dequantize_linear(np.zeros(4, np.uint8), np.float32(1), packed="int4")


# ---------------------------------------------------------------- strided views

@pytest.mark.parametrize("tname", ["int4", "e4m3fn", "uint2", "float4e2m1"])
def test_strided_views(tname):
    dt = INT_TYPES[tname][0] if tname in INT_TYPES else F8_TYPES.get(tname, F4)
    rng = np.random.default_rng(9)
    big = special(rng, 12 * 10, np.float32, 0.5).reshape(12, 10)
    x = big[::-2, 1::3]  # reversed, strided
    scale = np.array([0.5, 2.0, 0.25, 1.0, 3.0, 0.1], np.float32)[::-2]  # 3 = x's extent on axis 1
    y = so.quantize_linear(x, scale, axis=1, output_dtype=dt)
    want, _ = run_ref("QuantizeLinear", [np.ascontiguousarray(x), np.ascontiguousarray(scale), None],
                      {"axis": 1, "output_dtype": helper.np_dtype_to_tensor_dtype(np.dtype(dt))}, 25)
    mask = None
    if tname in INT_TYPES:
        with np.errstate(all="ignore"):
            mask = np.isfinite(x / scale)
    compare(y, want, mask)
    yv = np.concatenate([y, y], axis=0)[::2]
    d = so.dequantize_linear(yv, scale, axis=1)
    dw, _ = run_ref("DequantizeLinear", [np.ascontiguousarray(yv), np.ascontiguousarray(scale)],
                    {"axis": 1}, 25)
    compare(d, dw)


# ---------------------------------------------------------------- rules

def test_rules_are_errors_naming_the_argument():
    x = np.zeros((4, 6), np.float32)
    with pytest.raises(ValueError, match="y_scale.*ceil"):
        so.quantize_linear(x, np.ones((4, 2), np.float32), axis=1, block_size=2,
                           output_dtype=ml_dtypes.int4)
    with pytest.raises(ValueError, match="block_size must be >= 0"):
        so.quantize_linear(x, np.ones((4, 2), np.float32), axis=1, block_size=-1,
                           output_dtype=ml_dtypes.int4)
    with pytest.raises(ValueError, match="saturate"):
        so.quantize_linear(x, np.float32(1), saturate=2, output_dtype=ml_dtypes.float8_e5m2)
    with pytest.raises(ValueError, match="x_zero_point must be 0 for float8"):
        so.dequantize_linear(np.zeros(3, ml_dtypes.float8_e4m3fn), np.float32(1),
                             np.ones((), ml_dtypes.float8_e4m3fn))
    with pytest.raises(TypeError, match="out_dtype must be given"):
        so.dequantize_linear(np.zeros(3, ml_dtypes.int4), np.ones((), E8M0))
    with pytest.raises(TypeError, match="y_zero_point"):
        so.quantize_linear(x, np.float32(1), np.zeros((), ml_dtypes.int4),
                           output_dtype=ml_dtypes.uint4)
    with pytest.raises(ValueError, match="precision"):
        so.quantize_linear(x, np.float32(1), output_dtype=ml_dtypes.int4, precision=np.float64) \
            if False else _core_call_precision(11)


def _core_call_precision(code):
    from simdops import _core
    x = np.zeros(3, np.float32)
    y = np.zeros(3, ml_dtypes.int4)
    _core.qdq(True, x, np.ones((), np.float32), None, y, (3,), (), (), 1, 1, 0, 22, 0, 1, code,
              0, 0, 0)


@pytest.mark.parametrize("op,tname,opset", [("QuantizeLinear", "int4", 19),
                                            ("QuantizeLinear", "float4e2m1", 21),
                                            ("DequantizeLinear", "int2", 24),
                                            ("DequantizeLinear", "e4m3fn", 13)])
def test_type_before_its_opset_is_refused(op, tname, opset):
    dt = INT_TYPES[tname][0] if tname in INT_TYPES else F8_TYPES.get(tname, F4)
    if op == "QuantizeLinear":
        ins = [np.zeros(4, np.float32), np.float32(1), np.zeros((), dt)]
    else:
        ins = [np.zeros(4, dt), np.float32(1)]
    node = helper.make_node(op, [f"i{k}" for k in range(len(ins))], ["y"])
    with pytest.raises(ValueError, match="needs opset"):
        so.run_node(node, ins, opset=opset)


def test_e8m0_scale_needs_opset_24():
    node = helper.make_node("DequantizeLinear", ["x", "s"], ["y"],
                            output_dtype=TensorProto.FLOAT)
    with pytest.raises(ValueError, match="needs opset 24"):
        so.run_node(node, [np.zeros(4, ml_dtypes.int4), np.ones((), E8M0)], opset=23)


def test_counts_report():
    """Prints the comparison counts of this module's reference tests (run with -s)."""
    for k in sorted(COUNTS, key=str):
        print(k, COUNTS[k])


def test_out_written_directly_or_copied():
    """out=: a C-contiguous array of the result's shape and dtype is written by the kernels
    (the result is out itself); a strided one, or one overlapping an input, gets a copy;
    either way the bits are the call's without out. A packed result's padding nibble is 0
    even when out held garbage."""
    rng = np.random.default_rng(9)
    x = rng.integers(-8, 8, (7, 5)).astype(ml_dtypes.int4)
    scale = rng.choice([0.5, 0.25, 3.0], size=(2, 5)).astype(np.float32)
    want = so.dequantize_linear(x, scale, axis=0, block_size=4)
    out = np.full((7, 5), np.nan, np.float32)
    got = so.dequantize_linear(x, scale, axis=0, block_size=4, out=out)
    assert got is out and out.tobytes() == want.tobytes()
    wide = np.full((7, 10), np.nan, np.float32)
    got = so.dequantize_linear(x, scale, axis=0, block_size=4, out=wide[:, ::2])
    assert wide[:, ::2].tobytes() == want.tobytes() and np.isnan(wide[:, 1::2]).all()
    f = (rng.standard_normal(35) * 3).astype(np.float32)
    qwant = so.quantize_linear(f, np.float32(0.5), output_dtype=ml_dtypes.int4, packed=True)
    qout = np.full(18, 0xff, np.uint8)
    got = so.quantize_linear(f, np.float32(0.5), output_dtype=ml_dtypes.int4, packed=True,
                             out=qout)
    assert got is qout and qout.tobytes() == qwant.tobytes() and qout[-1] >> 4 == 0
    e4 = so.quantize_linear(f, np.float32(0.5), output_dtype=ml_dtypes.float8_e4m3fn)
    buf = np.zeros(35, np.float32)
    codes = buf.view(np.uint8)[:35].view(ml_dtypes.float8_e4m3fn)  # overlaps the input below
    buf[:] = f
    got = so.quantize_linear(buf, np.float32(0.5), output_dtype=ml_dtypes.float8_e4m3fn,
                             out=codes)
    assert got is codes and codes.view(np.uint8).tobytes() == e4.view(np.uint8).tobytes()


@pytest.mark.parametrize("kind", sorted(F8_TYPES))
def test_float8_dequantize_into_out_every_code(kind):
    """dequantize_linear(float8 x, float32 scalar, out=float32): the short path straight to
    the kernels gives the general path's bits for every code (NaN payloads, +-0, +-inf) and
    a NaN / negative / tiny scale."""
    codes = np.arange(256, dtype=np.uint8).view(F8_TYPES[kind])
    for s in (np.float32(0.37), np.float32(-3.0), np.float32(np.nan), np.float32(1e-40)):
        want = so.dequantize_linear(codes, s)
        out = np.empty(256, np.float32)
        got = so.dequantize_linear(codes, s, out=out)
        assert got is out and out.view(np.uint32).tobytes() == want.view(np.uint32).tobytes()
        ref = np.asarray(run_ref("DequantizeLinear", [codes, s], {}, 21)[0], np.float32)
        nan = np.isnan(ref)   # NaN bits: docs/onnx.md's rule, tested elsewhere
        assert np.array_equal(np.isnan(out), nan)
        assert out[~nan].view(np.uint32).tobytes() == ref[~nan].view(np.uint32).tobytes()
