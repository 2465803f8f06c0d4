"""simdops.dml: DirectML descriptors, validation per feature level, execute on raw bytes.

The expected-support tables below restate docs/descriptors.md / the DirectML docs independently of
simdops.dml's own tables; execute results are compared with the array API."""
import array
import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdops
from simdops import dml

DT = dml.TensorDataType
FL = dml.FeatureLevel
NP = {DT.FLOAT32: np.float32, DT.FLOAT16: np.float16, DT.UINT32: np.uint32,
      DT.UINT16: np.uint16, DT.UINT8: np.uint8, DT.INT32: np.int32, DT.INT16: np.int16,
      DT.INT8: np.int8, DT.FLOAT64: np.float64, DT.UINT64: np.uint64, DT.INT64: np.int64}
FLOATS = {DT.FLOAT32, DT.FLOAT16}
INTS = {DT.UINT32, DT.UINT16, DT.UINT8, DT.INT32, DT.INT16, DT.INT8}
INT64S = {DT.UINT64, DT.INT64}
OPS = ("CLIP", "CLIP1", "SHRINK", "HARDMAX", "HARDMAX1")


def T(dt, sizes, **kw):
    return dml.BufferTensorDesc(dt, sizes, **kw)


# --------------------------------------------------------------------------- enums

def test_enum_values():
    assert [(m.name, int(m)) for m in DT] == [
        ("UNKNOWN", 0), ("FLOAT32", 1), ("FLOAT16", 2), ("UINT32", 3), ("UINT16", 4),
        ("UINT8", 5), ("INT32", 6), ("INT16", 7), ("INT8", 8), ("FLOAT64", 9),
        ("UINT64", 10), ("INT64", 11)]
    assert int(dml.TensorFlags.NONE) == 0 and int(dml.TensorFlags.OWNED_BY_DML) == 1
    assert [(m.name, int(m)) for m in FL] == [
        ("FL_1_0", 0x1000), ("FL_2_0", 0x2000), ("FL_2_1", 0x2100), ("FL_3_0", 0x3000),
        ("FL_3_1", 0x3100), ("FL_4_0", 0x4000), ("FL_4_1", 0x4100), ("FL_5_0", 0x5000),
        ("FL_5_1", 0x5100), ("FL_5_2", 0x5200), ("FL_6_0", 0x6000), ("FL_6_1", 0x6100),
        ("FL_6_2", 0x6200), ("FL_6_3", 0x6300), ("FL_6_4", 0x6400)]
    assert issubclass(dml.InvalidArgumentError, ValueError)


def test_descriptors_are_immutable_and_normalised():
    t = T(DT.FLOAT32, [1, 2, 3], strides=np.array([6, 3, 1]))
    assert t.sizes == (1, 2, 3) and t.strides == (6, 3, 1)
    assert isinstance(t.sizes, tuple) and all(type(s) is int for s in t.strides)
    assert t.total_tensor_size_in_bytes == 24 and t.dimension_count == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.sizes = (4,)
    d = dml.ActivationHardmax1OperatorDesc(t, t, axes=[2, 1])
    assert d.axes == (2, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.axes = (0,)
    # equal descriptors are equal and hashable
    assert T(5, (4,)) == T(DT.UINT8, [4]) and len({T(5, (4,)), T(DT.UINT8, (4,))}) == 1
    assert T(DT.UINT8, (4,)).data_type is DT.UINT8
    assert dml.ScaleBias(2, 0.5).scale == 2


@pytest.mark.parametrize("bad, exc", [
    (lambda: T(DT.FLOAT32, 4), TypeError),
    (lambda: T(DT.FLOAT32, (1.5, 2)), TypeError),
    (lambda: T(DT.FLOAT32, (True, 2)), TypeError),
    (lambda: T("FLOAT32", (2,)), TypeError),
    (lambda: T(DT.FLOAT32, (2,), strides="1"), TypeError),
    (lambda: dml.ElementWiseClipOperatorDesc(None, T(DT.FLOAT32, (2,)), 0, 1), TypeError),
    (lambda: dml.ElementWiseClipOperatorDesc(T(DT.FLOAT32, (2,)), T(DT.FLOAT32, (2,)), "0", 1),
     TypeError),
    (lambda: dml.ElementWiseClipOperatorDesc(T(DT.FLOAT32, (2,)), T(DT.FLOAT32, (2,)), 0, True),
     TypeError),
    (lambda: dml.ElementWiseClipOperatorDesc(T(DT.FLOAT32, (2,)), T(DT.FLOAT32, (2,)), 0, 1,
                                             scale_bias=(1.0, 0.0)), TypeError),
    (lambda: dml.compile_operator("CLIP"), TypeError),
    (lambda: dml.compile_operator(dml.ActivationHardmaxOperatorDesc(
        T(DT.FLOAT32, (2,)), T(DT.FLOAT32, (2,))), feature_level=3.0), TypeError),
])
def test_wrong_python_types_are_type_errors(bad, exc):
    with pytest.raises(exc):
        bad()


# --------------------------------------------------------------------------- support table

def introduced(op):
    return {"CLIP": 0x1000, "CLIP1": 0x5000, "SHRINK": 0x2000, "HARDMAX": 0x1000,
            "HARDMAX1": 0x5100}[op]


def supported_types(op, fl):
    if op == "CLIP":
        return FLOATS | (INTS if fl >= 0x2100 else set()) | (INT64S if fl >= 0x5000 else set())
    if op == "CLIP1":
        return FLOATS | INTS | INT64S
    if op == "SHRINK":
        return FLOATS | (INTS if fl >= 0x5100 else set())
    return set(FLOATS)


def dims_ok(op, fl, n):
    if fl >= 0x3000 or op in ("CLIP1", "HARDMAX1"):
        return 1 <= n <= 8
    if op == "CLIP":
        return n == 4
    if op == "SHRINK":
        return 4 <= n <= 5
    return n == 4 if fl < 0x2000 else 4 <= n <= 5     # HARDMAX


def sizes_for(n):
    return {0: (), 1: (5,)}.get(n, (1,) * (n - 2) + (2, 3))


def make_desc(op, t_in, t_out=None, **kw):
    t_out = t_in if t_out is None else t_out
    n = t_in.dimension_count
    if op == "CLIP":
        return dml.ElementWiseClipOperatorDesc(t_in, t_out, kw.get("min", 1), kw.get("max", 100),
                                               kw.get("scale_bias"))
    if op == "CLIP1":
        mm = kw.get("mm", t_out.data_type)
        return dml.ElementWiseClip1OperatorDesc(t_in, t_out, mm, kw.get("min", 1),
                                                kw.get("max", 100), kw.get("scale_bias"))
    if op == "SHRINK":
        return dml.ActivationShrinkOperatorDesc(t_in, t_out, kw.get("bias", 1.0),
                                                kw.get("threshold", 2.0))
    if op == "HARDMAX":
        return dml.ActivationHardmaxOperatorDesc(t_in, t_out)
    axes = kw.get("axes", (0, n - 1) if n >= 2 else tuple(range(n)))
    return dml.ActivationHardmax1OperatorDesc(t_in, t_out, axes)


def random_values(dt, shape, rng):
    npdt = np.dtype(NP[dt])
    if npdt.kind == "f":
        return (rng.normal(size=shape) * 50).astype(npdt)
    info = np.iinfo(npdt)
    return rng.integers(info.min, info.max, size=shape, dtype=npdt, endpoint=True)


def reference(op, x):
    """The array API call execute() must match."""
    if op in ("CLIP", "CLIP1"):
        return simdops.clip(x, 1, 100)
    if op == "SHRINK":
        return simdops.shrink(x, 1.0, 2.0)
    if op == "HARDMAX":
        return simdops.hardmax(x, axis=-1)
    return simdops.hardmax(x, axis=(0, x.ndim - 1) if x.ndim >= 2 else (0,))


@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("fl", list(FL))
@pytest.mark.parametrize("op", OPS)
def test_support_table(op, fl, dt):
    """Every operator x feature level x data type x dimension count 0..9: accepted exactly
    when docs/descriptors.md says so; a rejection names the first failing rule; an accepted descriptor
    executes and equals the array API."""
    rng = np.random.default_rng(int(fl) + 31 * int(dt))
    for n in range(10):
        t = T(dt, sizes_for(n))
        desc = make_desc(op, t)
        if fl < introduced(op):
            expect = "is not available at"
        elif dt == DT.UNKNOWN:
            expect = "InputTensor.DataType is UNKNOWN"
        elif dt == DT.FLOAT64:
            expect = "InputTensor.DataType is FLOAT64"
        elif dt not in supported_types(op, fl):
            expect = f"InputTensor.DataType is {dt.name}"
        elif not dims_ok(op, fl, n):
            expect = f"InputTensor.DimensionCount is {n}"
        else:
            expect = None
        if expect is not None:
            with pytest.raises(dml.InvalidArgumentError, match=expect):
                dml.compile_operator(desc, fl)
            continue
        compiled = dml.compile_operator(desc, feature_level=fl)
        assert compiled.operator == op and compiled.feature_level == fl
        x = random_values(dt, t.sizes, rng)
        src = bytearray(t.total_tensor_size_in_bytes)     # DWORD-rounded
        src[:x.nbytes] = x.tobytes()
        out = bytearray(t.total_tensor_size_in_bytes)
        compiled.execute(src, out)
        expected = reference(op, x)
        got = np.frombuffer(out, dtype=NP[dt], count=x.size).reshape(x.shape)
        assert got.tobytes() == expected.tobytes(), (op, fl, dt, n)


def test_support_table_messages_are_specific():
    with pytest.raises(dml.InvalidArgumentError) as e:
        dml.compile_operator(make_desc("CLIP", T(DT.FLOAT32, (2, 3, 4))), FL.FL_2_1)
    assert str(e.value).startswith("InputTensor.DimensionCount is 3; CLIP at FL_2_1 requires 4")
    with pytest.raises(dml.InvalidArgumentError) as e:
        dml.compile_operator(make_desc("CLIP", T(DT.INT32, (1, 1, 2, 3))), FL.FL_2_0)
    assert str(e.value) == ("InputTensor.DataType is INT32; CLIP at FL_2_0 supports FLOAT32, "
                            "FLOAT16 (INT32 from FL_2_1)")
    with pytest.raises(dml.InvalidArgumentError) as e:
        dml.compile_operator(make_desc("SHRINK", T(DT.FLOAT32, (2, 3, 4, 5, 6, 7))), FL.FL_2_0)
    assert str(e.value).startswith("InputTensor.DimensionCount is 6; SHRINK at FL_2_0 requires "
                                   "4 to 5 (1 to 8 from FL_3_0)")
    with pytest.raises(dml.InvalidArgumentError) as e:
        dml.compile_operator(make_desc("CLIP1", T(DT.FLOAT32, (2,))), FL.FL_4_1)
    assert str(e.value) == "CLIP1 is not available at FL_4_1; it was introduced in FL_5_0"


def test_default_feature_level_is_newest():
    op = dml.compile_operator(make_desc("HARDMAX1", T(DT.FLOAT16, (2, 3))))
    assert op.feature_level == FL.FL_6_4 == max(FL)
    assert "HARDMAX1" in repr(op)


# --------------------------------------------------------------------------- every rule

F4 = (1, 1, 2, 3)


def clip(t_in, t_out=None, **kw):
    return make_desc("CLIP", t_in, t_out, **kw)


RULES = [
    # (id, descriptor factory, feature level, expected message fragment)
    ("feature-level", lambda: clip(T(DT.FLOAT32, F4)), 0x1234,
     "feature_level is 0x1234; not a DML_FEATURE_LEVEL"),
    ("absent-shrink", lambda: make_desc("SHRINK", T(DT.FLOAT32, F4)), FL.FL_1_0,
     "SHRINK is not available at FL_1_0; it was introduced in FL_2_0"),
    ("absent-hardmax1", lambda: make_desc("HARDMAX1", T(DT.FLOAT32, F4)), FL.FL_5_0,
     "HARDMAX1 is not available at FL_5_0; it was introduced in FL_5_1"),
    ("datatype-unknown-int", lambda: clip(T(42, F4)), FL.FL_6_4,
     "InputTensor.DataType is 42; not a DML_TENSOR_DATA_TYPE"),
    ("datatype-float64", lambda: clip(T(DT.FLOAT64, F4)), FL.FL_6_4,
     "InputTensor.DataType is FLOAT64; no DirectML descriptor accepts FLOAT64"),
    ("datatype-output", lambda: clip(T(DT.FLOAT32, F4), T(DT.UINT64, F4)), FL.FL_4_0,
     "OutputTensor.DataType is UINT64; CLIP at FL_4_0 supports"),
    ("datatype-hint-int64", lambda: clip(T(DT.INT64, F4)), FL.FL_4_1,
     "InputTensor.DataType is INT64; CLIP at FL_4_1 supports .* \\(INT64 from FL_5_0\\)"),
    ("datatype-shrink-int", lambda: make_desc("SHRINK", T(DT.INT8, F4)), FL.FL_5_0,
     "InputTensor.DataType is INT8; SHRINK at FL_5_0 .*\\(INT8 from FL_5_1\\)"),
    ("datatype-hardmax-int", lambda: make_desc("HARDMAX", T(DT.INT32, F4)), FL.FL_6_4,
     "InputTensor.DataType is INT32; HARDMAX at FL_6_4 supports FLOAT32, FLOAT16$"),
    ("dims-9", lambda: clip(T(DT.FLOAT32, (1,) * 9)), FL.FL_6_4,
     "InputTensor.DimensionCount is 9; CLIP at FL_6_4 requires 1 to 8"),
    ("dims-0", lambda: clip(T(DT.FLOAT32, ())), FL.FL_6_4,
     "InputTensor.DimensionCount is 0; CLIP at FL_6_4 requires 1 to 8"),
    ("dims-hardmax-fl1", lambda: make_desc("HARDMAX", T(DT.FLOAT32, (1, 1, 1, 2, 3))), FL.FL_1_0,
     "InputTensor.DimensionCount is 5; HARDMAX at FL_1_0 requires 4 \\(4 to 5 from FL_2_0\\)"),
    ("size-zero", lambda: clip(T(DT.FLOAT32, (1, 0, 2, 3))), FL.FL_6_4,
     "InputTensor.Sizes\\[1\\] is 0; every size must be in 1..4294967295"),
    ("size-negative", lambda: clip(T(DT.FLOAT32, (1, -2, 2, 3))), FL.FL_6_4,
     "InputTensor.Sizes\\[1\\] is -2"),
    ("size-uint32", lambda: clip(T(DT.UINT8, (2 ** 32,))), FL.FL_6_4,
     "InputTensor.Sizes\\[0\\] is 4294967296"),
    ("element-count", lambda: clip(T(DT.UINT8, (65536, 65537))), FL.FL_6_4,
     "InputTensor.Sizes \\(65536, 65537\\) hold 4295032832 elements; at most 2\\*\\*32-1"),
    ("strides-length", lambda: clip(T(DT.FLOAT32, F4, strides=(6, 3, 1))), FL.FL_6_4,
     "InputTensor.Strides has 3 entries; DimensionCount is 4"),
    ("strides-negative", lambda: clip(T(DT.FLOAT32, (2, 3), strides=(-3, 1),
                                        total_tensor_size_in_bytes=64)), FL.FL_6_4,
     "InputTensor.Strides\\[0\\] is -3; strides are element counts"),
    ("strides-uint32", lambda: clip(T(DT.FLOAT32, (2, 3), strides=(2 ** 32, 1),
                                      total_tensor_size_in_bytes=2 ** 35)), FL.FL_6_4,
     "InputTensor.Strides\\[0\\] is 4294967296"),
    ("output-broadcast", lambda: clip(T(DT.FLOAT32, (2, 3), strides=(0, 1)),
                                      T(DT.FLOAT32, (2, 3), strides=(0, 1))), FL.FL_6_4,
     "OutputTensor.Strides \\(0, 1\\) map two elements of Sizes \\(2, 3\\) to one address"),
    ("output-overlap", lambda: clip(T(DT.FLOAT32, (2, 3)),
                                    T(DT.FLOAT32, (2, 3), strides=(2, 1))), FL.FL_6_4,
     "OutputTensor.Strides \\(2, 1\\) map two elements"),
    ("total-too-small", lambda: clip(T(DT.FLOAT32, F4, total_tensor_size_in_bytes=20)),
     FL.FL_6_4, "InputTensor.TotalTensorSizeInBytes is 20; must be >= 24"),
    ("total-strided-too-small", lambda: clip(
        T(DT.FLOAT32, (2, 3), strides=(5, 1), total_tensor_size_in_bytes=24)), FL.FL_6_4,
     "InputTensor.TotalTensorSizeInBytes is 24; must be >= 32"),
    ("total-multiple-of-4", lambda: clip(T(DT.UINT8, (3,), total_tensor_size_in_bytes=6)),
     FL.FL_6_4, "InputTensor.TotalTensorSizeInBytes is 6; must be a multiple of 4"),
    ("total-output", lambda: clip(T(DT.FLOAT32, F4), T(DT.FLOAT32, F4,
                                                         total_tensor_size_in_bytes=8)),
     FL.FL_6_4, "OutputTensor.TotalTensorSizeInBytes is 8; must be >= 24"),
    ("alignment-not-pow2", lambda: clip(T(DT.UINT8, (4,), guaranteed_base_offset_alignment=3)),
     FL.FL_6_4, "InputTensor.GuaranteedBaseOffsetAlignment is 3; must be 0 or a power of two"),
    ("alignment-below-esize", lambda: clip(T(DT.FLOAT32, F4), T(
        DT.FLOAT32, F4, guaranteed_base_offset_alignment=2)), FL.FL_6_4,
     "OutputTensor.GuaranteedBaseOffsetAlignment is 2; .* >= the element size 4"),
    ("flags-unknown", lambda: clip(T(DT.FLOAT32, F4, flags=2)), FL.FL_6_4,
     "InputTensor.Flags is 0x2; only NONE \\(0\\) and OWNED_BY_DML \\(1\\) exist"),
    ("flags-owned-output", lambda: clip(T(DT.FLOAT32, F4), T(
        DT.FLOAT32, F4, flags=dml.TensorFlags.OWNED_BY_DML)), FL.FL_6_4,
     "OutputTensor.Flags has OWNED_BY_DML; only input tensors"),
    ("same-datatype", lambda: clip(T(DT.FLOAT32, F4), T(DT.FLOAT16, F4)), FL.FL_6_4,
     "OutputTensor.DataType is FLOAT16; must equal InputTensor.DataType FLOAT32"),
    ("same-dimension-count", lambda: clip(T(DT.FLOAT32, F4), T(DT.FLOAT32, (2, 3))), FL.FL_6_4,
     "OutputTensor.DimensionCount is 2; must equal InputTensor.DimensionCount 4"),
    ("same-sizes", lambda: clip(T(DT.FLOAT32, F4), T(DT.FLOAT32, (1, 1, 3, 2))), FL.FL_6_4,
     "OutputTensor.Sizes is \\(1, 1, 3, 2\\); must equal InputTensor.Sizes \\(1, 1, 2, 3\\)"),
    ("clip-min-nan", lambda: clip(T(DT.FLOAT32, F4), min=math.nan), FL.FL_6_4, "^Min is NaN"),
    ("clip-max-nan", lambda: clip(T(DT.FLOAT32, F4), max=math.nan), FL.FL_6_4, "^Max is NaN"),
    ("clip-scale-nan", lambda: clip(T(DT.FLOAT32, F4), scale_bias=dml.ScaleBias(math.nan, 0)),
     FL.FL_6_4, "^ScaleBias.Scale is NaN"),
    ("clip-bias-nan", lambda: clip(T(DT.FLOAT16, F4), scale_bias=dml.ScaleBias(1, math.nan)),
     FL.FL_6_4, "^ScaleBias.Bias is NaN"),
    ("clip-scalebias-int64", lambda: clip(T(DT.INT64, F4), scale_bias=dml.ScaleBias(2, 0)),
     FL.FL_6_4, "^ScaleBias is given but the tensors are INT64; DirectML has no ScaleBias"),
    ("clip-scalebias-int-inf", lambda: clip(T(DT.INT16, F4),
                                            scale_bias=dml.ScaleBias(math.inf, 0)),
     FL.FL_6_4, "^ScaleBias.Scale is inf .*INT16 tensors need a finite Scale and Bias"),
    ("clip-scalebias-int-overflow", lambda: clip(T(DT.UINT8, F4),
                                                 scale_bias=dml.ScaleBias(1, -1e39)),
     FL.FL_6_4, "^ScaleBias.Bias is -inf \\(as FLOAT\\)"),
    ("clip1-minmax-type", lambda: make_desc("CLIP1", T(DT.INT32, F4), mm=DT.FLOAT32), FL.FL_6_4,
     "^MinMaxDataType is FLOAT32; must equal OutputTensor.DataType INT32"),
    ("clip1-minmax-type-invalid", lambda: make_desc("CLIP1", T(DT.INT32, F4), mm=77), FL.FL_6_4,
     "^MinMaxDataType is 77; not a DML_TENSOR_DATA_TYPE"),
    ("clip1-min-range", lambda: make_desc("CLIP1", T(DT.UINT8, F4), min=-1), FL.FL_6_4,
     "^Min is -1; not representable as MinMaxDataType UINT8 \\(0 to 255\\)"),
    ("clip1-max-range", lambda: make_desc("CLIP1", T(DT.INT64, F4), max=2 ** 63), FL.FL_6_4,
     "^Max is 9223372036854775808; not representable as MinMaxDataType INT64"),
    ("clip1-min-fraction", lambda: make_desc("CLIP1", T(DT.INT32, F4), min=2.5), FL.FL_6_4,
     "^Min is 2.5; MinMaxDataType INT32 holds integers only"),
    ("clip1-max-nan", lambda: make_desc("CLIP1", T(DT.FLOAT16, F4), max=math.nan), FL.FL_6_4,
     "^Max is NaN"),
    ("clip1-scalebias-uint64", lambda: make_desc("CLIP1", T(DT.UINT64, F4),
                                                 scale_bias=dml.ScaleBias(1, 1)),
     FL.FL_6_4, "^ScaleBias is given but the tensors are UINT64"),
    ("shrink-threshold-negative", lambda: make_desc("SHRINK", T(DT.FLOAT32, F4), threshold=-1.0),
     FL.FL_6_4, "^Threshold is -1.0; must be >= 0"),
    ("shrink-threshold-nan", lambda: make_desc("SHRINK", T(DT.FLOAT32, F4), threshold=math.nan),
     FL.FL_6_4, "^Threshold is NaN"),
    ("shrink-bias-nan", lambda: make_desc("SHRINK", T(DT.FLOAT32, F4), bias=math.nan),
     FL.FL_6_4, "^Bias is NaN"),
    ("hardmax-rank", lambda: make_desc("HARDMAX", T(DT.FLOAT32, (1, 2, 3, 4))), FL.FL_6_4,
     "^InputTensor.Sizes is \\(1, 2, 3, 4\\): effective rank 3 .* HARDMAX requires <= 2"),
    ("hardmax1-axes-empty", lambda: make_desc("HARDMAX1", T(DT.FLOAT32, F4), axes=()), FL.FL_6_4,
     "^Axes is empty; AxisCount must be >= 1"),
    ("hardmax1-axis-range", lambda: make_desc("HARDMAX1", T(DT.FLOAT32, F4), axes=(1, 4)),
     FL.FL_6_4, "^Axes\\[1\\] is 4; must be in 0..3 \\(InputTensor.DimensionCount is 4\\)"),
    ("hardmax1-axis-negative", lambda: make_desc("HARDMAX1", T(DT.FLOAT32, F4), axes=(-1,)),
     FL.FL_6_4, "^Axes\\[0\\] is -1; must be in 0..3"),
    ("hardmax1-axis-repeat", lambda: make_desc("HARDMAX1", T(DT.FLOAT32, F4), axes=(3, 1, 3)),
     FL.FL_6_4, "^Axes\\[2\\] is 3, which repeats Axes\\[0\\]; axes must be unique"),
]


@pytest.mark.parametrize("factory, fl, message", [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_each_rule_has_a_named_failure(factory, fl, message):
    with pytest.raises(dml.InvalidArgumentError, match=message):
        dml.compile_operator(factory(), fl)


@pytest.mark.parametrize("desc", [
    clip(T(DT.FLOAT32, (2, 3), strides=(0, 1)), T(DT.FLOAT32, (2, 3))),       # broadcast input
    clip(T(DT.FLOAT32, (2, 3), strides=(0, 0)), T(DT.FLOAT32, (2, 3), strides=(1, 2))),
    clip(T(DT.FLOAT32, (1, 1, 3, 5), strides=(15, 1, 5, 1))),                 # NHWC, C = 1
    clip(T(DT.FLOAT32, F4, guaranteed_base_offset_alignment=4)),
    clip(T(DT.FLOAT32, F4, guaranteed_base_offset_alignment=256, total_tensor_size_in_bytes=1024)),
    clip(T(DT.FLOAT32, F4, flags=dml.TensorFlags.OWNED_BY_DML), T(DT.FLOAT32, F4)),
    clip(T(DT.UINT8, F4), scale_bias=dml.ScaleBias(0.5, 3)),
    clip(T(DT.FLOAT32, F4), min=-math.inf, max=math.inf, scale_bias=dml.ScaleBias(math.inf, 0)),
    make_desc("CLIP1", T(DT.UINT64, F4), min=0, max=2 ** 64 - 1),
    make_desc("CLIP1", T(DT.INT8, F4), min=-128.0, max=127.0),
    make_desc("SHRINK", T(DT.FLOAT16, F4), threshold=0.0),
    make_desc("SHRINK", T(DT.FLOAT32, F4), threshold=-1e-50),   # -0.0 as FLOAT
    make_desc("HARDMAX", T(DT.FLOAT32, (1, 1, 1, 1, 4, 5))),
    make_desc("HARDMAX", T(DT.FLOAT16, (1, 1, 1, 1))),
    make_desc("HARDMAX1", T(DT.FLOAT32, (2, 3, 4, 5)), axes=(3, 0, 2)),
])
def test_valid_edge_cases_compile(desc):
    dml.compile_operator(desc)


# --------------------------------------------------------------------------- calc size

ESIZE = {DT.FLOAT32: 4, DT.FLOAT16: 2, DT.UINT32: 4, DT.UINT16: 2, DT.UINT8: 1, DT.INT32: 4,
         DT.INT16: 2, DT.INT8: 1, DT.FLOAT64: 8, DT.UINT64: 8, DT.INT64: 8}


@pytest.mark.parametrize("dt, sizes, strides, expected", [
    # "Using strides to express padding and memory layout" (DirectML docs)
    (DT.FLOAT32, (1, 1, 3, 5), None, 60),                 # packed NCHW, implicit strides
    (DT.FLOAT32, (1, 1, 3, 5), (15, 15, 5, 1), 60),       # packed NCHW, explicit strides
    (DT.FLOAT32, (1, 1, 3, 5), (15, 1, 5, 1), 60),        # packed NHWC
    (DT.UINT8, (2, 3), None, 8),                          # 'A'..'F', 6 bytes -> DWORD
    (DT.UINT8, (2, 3), (3, 1), 8),                        # HW / row-major
    (DT.UINT8, (2, 3), (1, 2), 8),                        # WH / column-major
    (DT.UINT8, (2, 3), (0, 1), 4),                        # broadcast rows: 3 elements
    (DT.UINT8, (2, 3), (5, 1), 8),                        # padded rows: 'A B C x x D E F'
    (DT.UINT8, (2, 2, 3), (6, 3, 1), 12),                 # DHW
    (DT.FLOAT16, (3,), None, 8),
    (DT.FLOAT64, (2, 2), (0, 0), 8),
    (DT.INT64, (1,), (7,), 8),
])
def test_calc_buffer_tensor_size_doc_examples(dt, sizes, strides, expected):
    assert dml.calc_buffer_tensor_size(dt, sizes, strides) == expected


@settings(max_examples=300, deadline=None)
@given(dt=st.sampled_from(sorted(ESIZE)),
       shape=st.lists(st.tuples(st.integers(1, 5), st.integers(0, 40)), min_size=1, max_size=5))
def test_calc_buffer_tensor_size_is_one_past_the_last_byte(dt, shape):
    """Against a brute force over every element's offset."""
    sizes = [s for s, _ in shape]
    strides = [t for _, t in shape]
    offsets = np.zeros(1, dtype=np.int64)
    for s, t in zip(sizes, strides):
        offsets = (offsets[:, None] + np.arange(s) * t).ravel()
    end = (int(offsets.max()) + 1) * ESIZE[dt]
    assert dml.calc_buffer_tensor_size(dt, sizes, strides) == -(-end // 4) * 4
    packed = math.prod(sizes) * ESIZE[dt]
    assert dml.calc_buffer_tensor_size(dt, sizes) == -(-packed // 4) * 4
    assert dml.calc_buffer_tensor_size(dt, sizes, T(dt, sizes).effective_strides()) == \
        -(-packed // 4) * 4


@settings(max_examples=300, deadline=None)
@given(dt=st.sampled_from(sorted(ESIZE)),
       shape=st.lists(st.tuples(st.integers(1, 2 ** 32 - 1), st.integers(0, 2 ** 32 - 1)),
                      min_size=1, max_size=8))
def test_calc_buffer_tensor_size_formula_is_exact_for_large_values(dt, shape):
    sizes = [s for s, _ in shape]
    strides = [t for _, t in shape]
    esize = ESIZE[dt]
    strided = (sum((s - 1) * t for s, t in shape) + 1) * esize
    assert dml.calc_buffer_tensor_size(dt, sizes, strides) == (strided + 3) // 4 * 4
    assert dml.calc_buffer_tensor_size(dt, sizes) == (math.prod(sizes) * esize + 3) // 4 * 4
    assert dml.calc_buffer_tensor_size(int(dt), tuple(sizes)) % 4 == 0


@pytest.mark.parametrize("args, message", [
    ((DT.UNKNOWN, (2,)), "DataType is UNKNOWN; it has no element size"),
    ((99, (2,)), "DataType is 99"),
    ((DT.FLOAT32, ()), "Sizes is empty"),
    ((DT.FLOAT32, (2, 0)), "Sizes\\[1\\] is 0"),
    ((DT.FLOAT32, (2, 3), (1,)), "Strides has 1 entries; Sizes has 2"),
    ((DT.FLOAT32, (2, 3), (1, -1)), "Strides\\[1\\] is -1"),
])
def test_calc_buffer_tensor_size_rejects(args, message):
    with pytest.raises(dml.InvalidArgumentError, match=message):
        dml.calc_buffer_tensor_size(*args)


# --------------------------------------------------------------------------- execute

def strided_buffer(values, strides, total, fill=0xA5):
    """A bytearray holding `values` at element `strides` (the rest: `fill` bytes)."""
    buf = bytearray([fill]) * total
    v = np.lib.stride_tricks.as_strided(
        np.frombuffer(buf, dtype=values.dtype, count=total // values.itemsize),
        values.shape, tuple(s * values.itemsize for s in strides))
    v[...] = values
    return buf


def read_strided(buf, dtype, sizes, strides):
    flat = np.frombuffer(buf, dtype=dtype, count=len(buf) // np.dtype(dtype).itemsize)
    return np.lib.stride_tricks.as_strided(
        flat, sizes, tuple(s * np.dtype(dtype).itemsize for s in strides)).copy()


LAYOUT_OPS = [
    ("CLIP", DT.FLOAT32, dict(min=-0.5, max=0.75, scale_bias=dml.ScaleBias(1.5, -0.25)),
     lambda x: simdops.clip(x, np.float32(-0.5), np.float32(0.75), scale=1.5, bias=-0.25)),
    ("CLIP", DT.FLOAT16, dict(min=0.1, max=30.0),
     lambda x: simdops.clip(x, float(np.float32(0.1)), 30.0)),
    ("CLIP", DT.INT16, dict(min=-1000.7, max=2000.9, scale_bias=dml.ScaleBias(0.3, 7.5)),
     lambda x: simdops.clip(x, float(np.float32(-1000.7)), float(np.float32(2000.9)),
                            scale=0.3, bias=7.5)),
    ("CLIP", DT.UINT64, dict(min=3, max=2.0 ** 62),
     lambda x: simdops.clip(x, 3, 2 ** 62)),
    ("CLIP1", DT.INT32, dict(min=-(2 ** 31) + 5, max=2 ** 31 - 7),
     lambda x: simdops.clip(x, -(2 ** 31) + 5, 2 ** 31 - 7)),
    ("CLIP1", DT.INT64, dict(min=-(2 ** 62) - 1, max=2 ** 62 + 1),
     lambda x: simdops.clip(x, -(2 ** 62) - 1, 2 ** 62 + 1)),
    ("CLIP1", DT.UINT8, dict(min=10, max=200.0, scale_bias=dml.ScaleBias(0.5, 20)),
     lambda x: simdops.clip(x, 10, 200, scale=0.5, bias=20)),
    ("SHRINK", DT.FLOAT32, dict(bias=0.25, threshold=0.5),
     lambda x: simdops.shrink(x, 0.25, 0.5)),
    ("SHRINK", DT.INT8, dict(bias=3.9, threshold=10.5),
     lambda x: simdops.shrink(x, 3.9, 10.5)),
    ("SHRINK", DT.FLOAT16, dict(bias=0.1, threshold=1.1),
     lambda x: simdops.shrink(x, float(np.float32(0.1)), float(np.float32(1.1)))),
    ("HARDMAX", DT.FLOAT32, {}, lambda x: simdops.hardmax(x, axis=-1)),
    ("HARDMAX1", DT.FLOAT16, dict(axes=(2, 0)), lambda x: simdops.hardmax(x, axis=(0, 2))),
]

def layout(name, sizes):
    """(input strides, input extra DWORDs, output strides, output extra DWORDs) for 4-D sizes."""
    n, c, h, w = sizes
    if name == "packed":
        return None, 0, None, 0
    if name == "padded":
        hs = w + 3
        cs = h * hs + 2
        return (c * cs + 5, cs, hs, 1), 4, (c * h * (w + 1), h * (w + 1), w + 1, 1), 1
    if name == "column-major":
        return (n * c * h * w, 1, c, c * h), 0, (c * h * w, 1, c, c * h), 2
    if name == "broadcast":
        return (0, 0, 0, 1), 0, None, 0
    if name == "broadcast-rows":
        return (0, w, 0, 1), 0, None, 2
    raise AssertionError(name)


def element_byte_mask(total, sizes, strides, esize):
    """True on every byte some element of the layout occupies."""
    offsets = np.zeros(1, dtype=np.int64)
    for s, t in zip(sizes, strides):
        offsets = (offsets[:, None] + np.arange(s) * t).ravel()
    mask = np.zeros(total, bool)
    for b in range(esize):
        mask[offsets * esize + b] = True
    return mask


@pytest.mark.parametrize("name", ["packed", "padded", "column-major", "broadcast",
                                  "broadcast-rows"])
@pytest.mark.parametrize("op, dt, kw, ref", LAYOUT_OPS,
                         ids=[f"{o}-{d.name}-{i}" for i, (o, d, _, _) in enumerate(LAYOUT_OPS)])
def test_execute_layouts_equal_array_api(op, dt, kw, ref, name):
    """Packed, padded, transposed and zero-stride (broadcast) inputs, on every ISA:
    the output elements equal the array API on the logical input; padding is untouched."""
    sizes = (1, 1, 12, 5) if op == "HARDMAX" else (2, 3, 4, 5)
    in_strides, in_extra, out_strides, out_extra = layout(name, sizes)
    npdt = NP[dt]
    calc = dml.calc_buffer_tensor_size
    tin = T(dt, sizes, strides=in_strides,
            total_tensor_size_in_bytes=calc(dt, sizes, in_strides) + 4 * in_extra)
    tout = T(dt, sizes, strides=out_strides,
             total_tensor_size_in_bytes=calc(dt, sizes, out_strides) + 4 * out_extra)
    compiled = dml.compile_operator(make_desc(op, tin, tout, **kw))
    values = random_values(dt, sizes, np.random.default_rng(7))
    if dt in FLOATS:
        values.flat[:4] = [np.nan, -0.0, np.inf, -np.inf]
    src = strided_buffer(values, tin.effective_strides(), tin.total_tensor_size_in_bytes)
    logical = read_strided(src, npdt, sizes, tin.effective_strides())   # what the input means
    expected = ref(logical)
    occupied = element_byte_mask(tout.total_tensor_size_in_bytes, sizes,
                                 tout.effective_strides(), np.dtype(npdt).itemsize)
    results = set()
    for isa in simdops.available_isas():
        dst = bytearray([0x5A]) * tout.total_tensor_size_in_bytes
        with simdops.use_isa(isa):
            compiled.execute(bytes(src), dst)
        got = read_strided(dst, npdt, sizes, tout.effective_strides())
        assert got.tobytes() == expected.tobytes(), isa
        assert (np.frombuffer(dst, np.uint8)[~occupied] == 0x5A).all(), isa
        results.add(bytes(dst))
    assert len(results) == 1


IN_PLACE_LAYOUTS = {"packed": ((3, 2, 4), None), "padded": ((3, 8, 5), (48, 1, 9)),
                    "transposed": ((3, 2, 4), (1, 12, 3))}
ELEMENTWISE_OPS = [r for r in LAYOUT_OPS if r[0] in ("CLIP", "CLIP1", "SHRINK")]


@pytest.mark.parametrize("name", sorted(IN_PLACE_LAYOUTS))
@pytest.mark.parametrize("op, dt, kw, ref", ELEMENTWISE_OPS,
                         ids=[f"{o}-{d.name}-{i}"
                              for i, (o, d, _, _) in enumerate(ELEMENTWISE_OPS)])
def test_execute_in_place(op, dt, kw, ref, name):
    sizes, strides = IN_PLACE_LAYOUTS[name]
    t = T(dt, sizes, strides=strides)
    compiled = dml.compile_operator(make_desc(op, t, t, **kw))
    values = random_values(dt, sizes, np.random.default_rng(3))
    for kind in ("bytearray", "numpy"):
        buf = strided_buffer(values, t.effective_strides(), t.total_tensor_size_in_bytes)
        if kind == "numpy":
            buf = np.frombuffer(buf, dtype=np.uint8).copy()
        compiled.execute(buf, buf)                      # the same binding: in place
        got = read_strided(bytes(buf), NP[dt], sizes, t.effective_strides())
        assert got.tobytes() == ref(values).tobytes()


def test_execute_accepts_any_buffer_and_returns_none():
    t = T(DT.INT32, (2, 3))
    op = dml.compile_operator(make_desc("CLIP", t))
    src = array.array("i", [-5, 0, 50, 99, 100, 1000])
    for out in (bytearray(24), np.zeros(6, np.int32), np.zeros((2, 3), np.int32),
                memoryview(bytearray(24)), array.array("i", [0] * 6), np.zeros(24, np.uint8)):
        assert op.execute(src, out) is None
        assert list(np.frombuffer(memoryview(out).cast("B"), np.int32)) == [1, 1, 50, 99, 100, 100]
    # a float input buffer is just bytes; the descriptor decides the type
    op.execute(np.array([1.0, 2.0, 3.0], np.float64), bytearray(24))


def test_clip_min_max_are_float_fields_but_clip1_union_is_exact():
    """CLIP's Min/Max are FLOAT: 16777217 is 16777216.0 before it meets an INT32 tensor;
    CLIP1 carries the INT32 exactly."""
    t = T(DT.INT32, (1, 1, 1, 2))
    x = np.array([2 ** 30, -(2 ** 30)], np.int32)
    out = np.zeros(2, np.int32)
    dml.compile_operator(make_desc("CLIP", t, min=-16777217, max=16777217)).execute(x, out)
    assert out.tolist() == [16777216, -16777216]
    dml.compile_operator(make_desc("CLIP1", t, min=-16777217, max=16777217)).execute(x, out)
    assert out.tolist() == [16777217, -16777217]


def test_clip_min_above_max_gives_min():
    t = T(DT.FLOAT32, (4,))
    out = np.zeros(4, np.float32)
    dml.compile_operator(make_desc("CLIP", t, min=5.0, max=1.0)).execute(
        np.array([0, 3, 7, np.nan], np.float32), out)
    assert out[:3].tolist() == [5.0, 5.0, 5.0] and np.isnan(out[3])


def test_hardmax_reduces_the_last_dimension():
    t = T(DT.FLOAT32, (1, 1, 3, 4))
    x = np.array([[1, 9, 9, 0], [np.nan, 2, np.nan, 1], [-0.0, 0.0, -1, -2]], np.float32)
    out = np.zeros(12, np.float32)
    dml.compile_operator(make_desc("HARDMAX", t), FL.FL_1_0).execute(x, out)
    assert out.reshape(3, 4).tolist() == [[0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]
    t1 = T(DT.FLOAT32, (3,))   # rank 1 from FL_3_0
    out = np.zeros(3, np.float32)
    dml.compile_operator(make_desc("HARDMAX", t1), FL.FL_3_0).execute(
        np.array([2, 3, 1], np.float32), out)
    assert out.tolist() == [0, 1, 0]


def test_hardmax1_axes_row_major_over_reduced_axes():
    t = T(DT.FLOAT32, (2, 2, 2))
    x = np.array([[[1, 2], [3, 4]], [[4, 3], [2, 1]]], np.float32)
    out = np.zeros((2, 2, 2), np.float32)
    dml.compile_operator(make_desc("HARDMAX1", t, axes=(1, 2))).execute(x, out)
    assert out.tolist() == [[[0, 0], [0, 1]], [[1, 0], [0, 0]]]
    dml.compile_operator(make_desc("HARDMAX1", t, axes=(2, 0))).execute(x, out)
    assert out.tolist() == simdops.hardmax(x, axis=(0, 2)).tolist()


def test_two_tensors_in_one_buffer_without_overlap():
    t = T(DT.FLOAT32, (2, 3))
    op = dml.compile_operator(make_desc("HARDMAX", t))
    buf = bytearray(48)
    mv = memoryview(buf)
    np.frombuffer(buf, np.float32)[:6] = [1, 5, 2, 7, 0, 7]
    op.execute(mv[:24], mv[24:])
    assert np.frombuffer(buf, np.float32)[6:].tolist() == [0, 1, 0, 1, 0, 0]


def test_interleaved_one_to_one_output_is_accepted_and_written():
    # strides (2, 3) on sizes (3, 2) interleave but address 6 distinct elements
    out_t = T(DT.FLOAT32, (3, 2), strides=(2, 3))
    op = dml.compile_operator(clip(T(DT.FLOAT32, (3, 2)), out_t, min=-1, max=1))
    x = np.array([-2, 0.5, 3, -0.25, 1, 9], np.float32)
    out = bytearray(dml.calc_buffer_tensor_size(DT.FLOAT32, (3, 2), (2, 3)))
    op.execute(x.tobytes(), out)
    got = np.frombuffer(out, np.float32)
    want = np.clip(x.reshape(3, 2), -1, 1)
    for i in range(3):
        for j in range(2):
            assert got[2 * i + 3 * j] == want[i, j]


def aligned_view(nbytes, alignment, offset):
    raw = np.zeros(nbytes + 2 * alignment, np.uint8)
    start = (-raw.ctypes.data) % alignment + offset
    return memoryview(raw)[start:start + nbytes]


@pytest.mark.parametrize("call, exc, message", [
    (lambda op, t: op.execute(bytearray(20), bytearray(24)), dml.InvalidArgumentError,
     "^input buffer has 20 bytes; InputTensor.TotalTensorSizeInBytes is 24"),
    (lambda op, t: op.execute(bytearray(24), bytearray(23)), dml.InvalidArgumentError,
     "^output buffer has 23 bytes; OutputTensor.TotalTensorSizeInBytes is 24"),
    (lambda op, t: op.execute(bytearray(24), bytes(24)), dml.InvalidArgumentError,
     "^output buffer is read-only"),
    (lambda op, t: op.execute([0.0] * 6, bytearray(24)), TypeError,
     "^input must support the buffer protocol"),
    (lambda op, t: op.execute(bytearray(24), None), TypeError,
     "^output must support the buffer protocol"),
    (lambda op, t: op.execute(np.zeros((6, 2), np.float32)[:, 0], bytearray(24)),
     dml.InvalidArgumentError, "^input buffer is not C-contiguous"),
])
def test_execute_binding_errors(call, exc, message):
    t = T(DT.FLOAT32, (2, 3))
    op = dml.compile_operator(make_desc("CLIP", t))
    with pytest.raises(exc, match=message):
        call(op, t)


def test_execute_alignment():
    t = T(DT.FLOAT32, (2, 3), guaranteed_base_offset_alignment=16)
    op = dml.compile_operator(make_desc("SHRINK", t, t))
    op.execute(aligned_view(24, 16, 0), aligned_view(24, 64, 32))
    with pytest.raises(dml.InvalidArgumentError,
                       match="^input buffer address 0x[0-9a-f]+ is not a multiple of "
                             "InputTensor.GuaranteedBaseOffsetAlignment 16"):
        op.execute(aligned_view(24, 16, 4), aligned_view(24, 16, 0))
    with pytest.raises(dml.InvalidArgumentError,
                       match="OutputTensor.GuaranteedBaseOffsetAlignment 16"):
        op.execute(aligned_view(24, 16, 0), aligned_view(24, 16, 8))
    # without a guarantee any address works, misaligned for the element type included
    free = dml.compile_operator(make_desc("SHRINK", T(DT.FLOAT32, (2, 3))))
    src = aligned_view(24, 16, 1)
    np.frombuffer(src, np.float32)[:] = [-3, -1, 0, 1, 2, 3]
    dst = aligned_view(24, 16, 3)
    free.execute(src, dst)
    assert np.frombuffer(dst, np.float32).tolist() == [-2, 0, 0, 0, 0, 2]


def test_owned_by_dml_input_compiles_but_cannot_execute():
    tin = T(DT.FLOAT32, (2, 3), flags=dml.TensorFlags.OWNED_BY_DML)
    op = dml.compile_operator(make_desc("CLIP", tin, T(DT.FLOAT32, (2, 3))))
    with pytest.raises(dml.InvalidArgumentError, match="^InputTensor.Flags has OWNED_BY_DML"):
        op.execute(bytearray(24), bytearray(24))


@pytest.mark.parametrize("op", ["HARDMAX", "HARDMAX1"])
def test_hardmax_in_place_is_rejected(op):
    t = T(DT.FLOAT32, (2, 3))
    compiled = dml.compile_operator(make_desc(op, t))
    buf = bytearray(24)
    with pytest.raises(dml.InvalidArgumentError, match=f"^{op} cannot run in place"):
        compiled.execute(buf, buf)
    mv = memoryview(bytearray(32))
    with pytest.raises(dml.InvalidArgumentError, match=f"^{op} cannot run in place"):
        compiled.execute(mv[:24], mv[8:])


def test_in_place_needs_the_identical_binding():
    packed = T(DT.FLOAT32, (2, 3))
    transposed = T(DT.FLOAT32, (2, 3), strides=(1, 2))
    op = dml.compile_operator(make_desc("CLIP", packed, transposed))
    buf = bytearray(24)
    with pytest.raises(dml.InvalidArgumentError, match="runs in place only when OutputTensor "
                                                       "aliases InputTensor exactly"):
        op.execute(buf, buf)
    op = dml.compile_operator(make_desc("CLIP", packed))
    mv = memoryview(bytearray(32))
    with pytest.raises(dml.InvalidArgumentError, match="overlaps the input binding"):
        op.execute(mv[:24], mv[4:28])
    # size-1 dimensions' strides do not change a layout
    a = T(DT.FLOAT32, (2, 1, 3), strides=(3, 99, 1), total_tensor_size_in_bytes=24)
    b = T(DT.FLOAT32, (2, 1, 3))
    op = dml.compile_operator(make_desc("SHRINK", a, b))
    buf = bytearray(np.array([-3, -1, 0, 1, 2, 3], np.float32).tobytes())
    op.execute(buf, buf)
    assert np.frombuffer(buf, np.float32).tolist() == [-2, 0, 0, 0, 0, 2]


def test_compiled_operator_is_reusable_and_exposes_its_descriptor():
    t = T(DT.UINT8, (8,))
    desc = make_desc("CLIP1", t, min=2, max=5)
    op = dml.compile_operator(desc, FL.FL_5_0)
    assert op.desc is desc and op.operator == "CLIP1" and op.feature_level is FL.FL_5_0
    out = bytearray(8)
    for k in range(3):
        op.execute(bytes(range(k, k + 8)), out)
        assert list(out) == [min(max(v, 2), 5) for v in range(k, k + 8)]


def test_every_dimension_count_and_broadcast_pattern_matches_array_api():
    rng = np.random.default_rng(11)
    for n in range(1, 9):
        for trial in range(4):
            sizes = tuple(int(s) for s in rng.integers(1, 4, size=n))
            strides = tuple(int(s) for s in rng.integers(0, 7, size=n))
            tin = T(DT.FLOAT32, sizes, strides=strides)
            tout = T(DT.FLOAT32, sizes)
            op = dml.compile_operator(make_desc("CLIP", tin, tout, min=-0.5, max=0.5))
            values = random_values(DT.FLOAT32, sizes, rng)
            src = strided_buffer(values, strides, tin.total_tensor_size_in_bytes)
            logical = read_strided(src, np.float32, sizes, strides)
            out = np.zeros(sizes, np.float32)
            op.execute(src, out)
            assert out.tobytes() == simdops.clip(logical, -0.5, 0.5).tobytes()


# --------------------------------------------------------------------------- defects found by hostile inputs

@pytest.mark.parametrize("flags", [-1, -2, 2, 3, 1 << 31, 1 << 64])
def test_flags_outside_the_defined_bits_are_rejected_at_compile(flags):
    """IntFlag turned -1 into OWNED_BY_DML; the raw value is kept and refused instead."""
    t = T(DT.FLOAT32, (4,), flags=flags)
    assert t.flags == flags and not isinstance(t.flags, dml.TensorFlags)
    with pytest.raises(dml.InvalidArgumentError,
                       match=f"^InputTensor.Flags is {flags:#x}; only NONE \\(0\\) and "
                             f"OWNED_BY_DML \\(1\\) exist"):
        dml.compile_operator(make_desc("CLIP", t, T(DT.FLOAT32, (4,))))


def test_defined_flags_stay_tensor_flags():
    assert T(DT.FLOAT32, (4,), flags=1).flags is dml.TensorFlags.OWNED_BY_DML
    assert T(DT.FLOAT32, (4,), flags=0).flags is dml.TensorFlags.NONE


def counting(iterable, seen):
    for v in iterable:
        seen.append(v)
        yield v


@pytest.mark.parametrize("n", [1, 3, 8])
def test_endless_axes_fail_fast(n):
    """An axes generator is read at most DimensionCount + 1 entries, then refused."""
    import itertools
    seen = []
    t = T(DT.FLOAT32, (2,) * n)
    with pytest.raises(dml.InvalidArgumentError,
                       match=f"^Axes has more than {n} entries; AxisCount must be <= "
                             f"InputTensor.DimensionCount {n}"):
        dml.ActivationHardmax1OperatorDesc(t, t, axes=counting(itertools.count(), seen))
    assert len(seen) == n + 1
    with pytest.raises(dml.InvalidArgumentError, match="^Axes has more than"):
        dml.ActivationHardmax1OperatorDesc(t, t, axes=range(10 ** 15))


def test_axes_from_a_finite_generator_work():
    t = T(DT.FLOAT32, (2, 3))
    d = dml.ActivationHardmax1OperatorDesc(t, t, axes=(a for a in (1, 0)))
    assert d.axes == (1, 0)
    out = np.zeros((2, 3), np.float32)
    x = np.array([[1, 5, 2], [7, 0, 3]], np.float32)
    dml.compile_operator(d).execute(x, out)
    assert out.tolist() == [[0, 0, 0], [1, 0, 0]]


def test_endless_sizes_and_strides_fail_fast():
    import itertools
    with pytest.raises(dml.InvalidArgumentError, match="^Sizes has more than 64 entries"):
        T(DT.FLOAT32, itertools.repeat(1))
    with pytest.raises(dml.InvalidArgumentError, match="^Strides has more than 64 entries"):
        T(DT.FLOAT32, (2,), strides=itertools.repeat(1))
    with pytest.raises(dml.InvalidArgumentError, match="^Sizes has more than 64 entries"):
        dml.calc_buffer_tensor_size(DT.FLOAT32, itertools.count(1))


def test_float_fields_round_to_float32_before_float16():
    """A FLOAT field is float32 first: 1 + 2**-11 + 2**-30 is 1 + 2**-11 as FLOAT, a tie
    that float16 rounds to even (1.0); rounded straight to float16 it would be 1 + 2**-10."""
    v = 1 + 2 ** -11 + 2 ** -30
    assert np.float16(np.float32(v)) == 1.0 and np.float16(v) == 1 + 2 ** -10
    t = T(DT.FLOAT16, (4,))
    out = np.zeros(4, np.float16)
    dml.compile_operator(make_desc("CLIP", t, min=v, max=2.0)).execute(np.zeros(4, np.float16), out)
    assert out.tolist() == [1.0] * 4
    # SHRINK's Bias is FLOAT too: 3 - float16(float32(v)) = 2
    dml.compile_operator(make_desc("SHRINK", t, bias=v, threshold=0.0)).execute(
        np.full(4, 3, np.float16), out)
    assert out.tolist() == [2.0] * 4
    # ints beyond float64 round once, to float32 infinity only past its range
    out32 = np.zeros(4, np.float32)
    dml.compile_operator(make_desc("CLIP", T(DT.FLOAT32, (4,)), min=-(2 ** 1000), max=2 ** 127)
                         ).execute(np.array([-math.inf, 0, 1e38, math.inf], np.float32), out32)
    assert out32.tolist() == [-math.inf, 0, float(np.float32(1e38)), 2.0 ** 127]


@pytest.mark.parametrize("op", ["CLIP", "SHRINK", "HARDMAX"])
def test_execute_reports_binding_failures_before_running(op):
    t = T(DT.FLOAT32, (2, 3))
    compiled = dml.compile_operator(make_desc(op, t))
    out = np.full(6, 7, np.float32)
    with pytest.raises(TypeError, match="^input must support the buffer protocol .* got int"):
        compiled.execute(5, out)
    with pytest.raises(dml.InvalidArgumentError, match="^output buffer is not C-contiguous"):
        compiled.execute(bytes(24), np.zeros(12, np.float32)[::2])
    with pytest.raises(dml.InvalidArgumentError, match="^output buffer is read-only"):
        compiled.execute(bytes(24), bytes(24))
    with pytest.raises(dml.InvalidArgumentError,
                       match="^input buffer has 20 bytes; InputTensor.TotalTensorSizeInBytes is 24"):
        compiled.execute(bytes(20), out)
    assert out.tolist() == [7] * 6


def test_threads_executing_one_operator_use_their_own_buffers():
    """execute keeps the bound views per call: concurrent calls on one CompiledOperator
    (the GIL is released in the kernel) each write their own output."""
    import threading
    n = 1 << 16
    t = T(DT.FLOAT32, (n,))
    op = dml.compile_operator(make_desc("CLIP", t, min=-1.0, max=1.0))
    wrong = []

    def work(value):
        x = np.full(n, value, np.float32)
        y = np.zeros(n, np.float32)
        for _ in range(20):
            y[:] = 0
            op.execute(x, y)
            if not (y == np.float32(min(max(value, -1.0), 1.0))).all():
                wrong.append(value)

    threads = [threading.Thread(target=work, args=(v,)) for v in (0.25, -0.5, 3.0)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert wrong == []


def test_compiled_operator_pickles_as_its_descriptor():
    import pickle
    t = T(DT.INT8, (2, 3), strides=(0, 1))
    op = dml.compile_operator(make_desc("SHRINK", t, T(DT.INT8, (2, 3)), bias=2.0,
                                        threshold=3.0), FL.FL_5_1)
    again = pickle.loads(pickle.dumps(op))
    assert again.desc == op.desc and again.feature_level is FL.FL_5_1
    out = np.zeros(8, np.int8)  # TotalTensorSizeInBytes: 6 rounded up to 8
    again.execute(np.array([-10, 3, 10, 99], np.int8), out)
    assert out[:6].tolist() == [-8, 0, 8, -8, 0, 8]


def test_object_arrays_are_never_bound_as_bytes():
    """A numpy object array exports its PyObject pointers as plain bytes when no format is
    asked for; a kernel writing there corrupted the interpreter (found by the fuzzer: the
    next garbage collection crashed). Refused as input and as output, the array untouched."""
    op = dml.compile_operator(make_desc("HARDMAX", T(DT.FLOAT16, (2, 3))))
    objects = np.array([object(), "x", 1.5], dtype=object)
    before = list(objects)
    with pytest.raises(TypeError, match="output holds Python objects"):
        op.execute(np.zeros(12, np.uint8), objects)
    with pytest.raises(TypeError, match="input holds Python objects"):
        op.execute(objects, np.zeros(12, np.uint8))
    assert list(objects) == before
    core = simdops._core
    f32 = 1  # SIMDOPS_FLOAT32 (tests/test_core_strided.py)
    plan = core.StridedPlan("clip", f32, (2,), (1,), (1,), core.prepare_clip(f32, -1.0, 1.0))
    with pytest.raises(TypeError, match="output holds Python objects"):
        plan.run(np.zeros(8, np.uint8), objects)
    assert list(objects) == before
