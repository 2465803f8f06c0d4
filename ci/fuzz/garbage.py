"""Garbage properties: wrong types and values for every argument of the
array API and the dml / acl descriptors; only documented errors may result."""
import itertools
import os

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzz.common import DOCUMENTED, OUTCOMES, garbage, maybe, mostly, only_documented
import simdops
from simdops import acl, dml


ARRAYS = st.sampled_from([np.zeros((2, 3), t) for t in
                          ("f4", "f2", "f8", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8")]
                         + [np.zeros((0,), "f4"), np.zeros((), "f4"),
                            np.broadcast_to(np.float32(1), (3, 3))])


@given(x=maybe(ARRAYS), a=garbage(), b=maybe(st.floats()), c=maybe(st.floats()),
       out=st.one_of(st.none(), garbage(), ARRAYS), which=st.integers(0, 5))
def prop_garbage_array_api(x, a, b, c, out, which):
    calls = [
        lambda: simdops.clip(x, a, b, out=out),
        lambda: simdops.clip(x, b, c, scale=a, bias=b, out=out),
        lambda: simdops.shrink(x, a, b, out=out),
        lambda: simdops.hardmax(x, axis=a, out=out),
        lambda: simdops.quantize_down_int32(x, a, b, c, bias=a, min=b, max=c, out_dtype=a,
                                            out=out),
        lambda: simdops.quantize_multiplier(a),
    ]
    only_documented(calls[which])


DATA_TYPES = st.one_of(st.sampled_from(list(dml.TensorDataType)), st.integers(-3, 20))
WILD_SIZES = st.lists(st.integers(-2, 2 ** 33), max_size=9)
WILD_STRIDES = st.lists(st.integers(-3, 2 ** 33), max_size=9)


@st.composite
def tensor_desc(draw):
    """A valid-looking BufferTensorDesc with at most one field corrupted (or
    None when the constructor rejected it, as documented)."""
    fields = ("data_type", "sizes", "strides", "total_tensor_size_in_bytes",
              "guaranteed_base_offset_alignment", "flags")
    corrupt = draw(st.sampled_from((None,) * 6 + fields))

    def field(name, valid, wild):
        return draw(st.one_of(wild, garbage()) if name == corrupt else valid)

    data_type = field("data_type", st.sampled_from([
        dml.TensorDataType.FLOAT32, dml.TensorDataType.FLOAT16, dml.TensorDataType.INT8,
        dml.TensorDataType.UINT32, dml.TensorDataType.INT64]), DATA_TYPES)
    sizes = field("sizes", st.lists(st.integers(1, 4), min_size=1, max_size=5), WILD_SIZES)
    ndim = len(sizes) if isinstance(sizes, list) else 1
    strides = field("strides", st.one_of(st.none(), st.lists(
        st.integers(0, 40), min_size=ndim, max_size=ndim)), WILD_STRIDES)
    kw = dict(data_type=data_type, sizes=sizes, strides=strides,
              total_tensor_size_in_bytes=field("total_tensor_size_in_bytes", st.none(),
                                               st.integers(-8, 4096)),
              guaranteed_base_offset_alignment=field("guaranteed_base_offset_alignment",
                                                     st.sampled_from((0, 4, 16)),
                                                     st.integers(-4, 64)),
              flags=field("flags", st.just(0), st.integers(-2, 4)))
    return only_documented(dml.BufferTensorDesc, **kw)


@given(data=st.data(), op=st.integers(0, 4),
       level=mostly(st.just(dml.NEWEST_FEATURE_LEVEL), st.sampled_from(list(dml.FeatureLevel))))
def prop_garbage_dml(data, op, level):
    tin = data.draw(mostly(tensor_desc(), st.none()), "input_tensor")
    tout = data.draw(st.integers(0, 3).flatmap(
        lambda i: st.just(tin) if i < 2 else tensor_desc() if i == 2 else garbage()),
        "output_tensor")
    number = mostly(st.floats(-10, 10), st.floats())
    sb = data.draw(maybe(st.one_of(st.none(), st.builds(
        lambda s, b: only_documented(dml.ScaleBias, s, b), number, number))), "scale_bias")
    makers = [
        lambda: dml.ElementWiseClipOperatorDesc(tin, tout, data.draw(number), data.draw(number),
                                                sb),
        lambda: dml.ElementWiseClip1OperatorDesc(
            tin, tout, data.draw(mostly(st.just(getattr(tin, "data_type", 1)), DATA_TYPES)),
            data.draw(number), data.draw(number), sb),
        lambda: dml.ActivationShrinkOperatorDesc(tin, tout, data.draw(number),
                                                 abs(data.draw(number))),
        lambda: dml.ActivationHardmaxOperatorDesc(tin, tout),
        lambda: dml.ActivationHardmax1OperatorDesc(tin, tout, data.draw(mostly(
            st.lists(st.integers(0, 4), min_size=1, max_size=3, unique=True),
            st.lists(st.integers(-3, 9), max_size=9)))),
    ]
    desc = only_documented(makers[op])
    if desc is None:
        return
    compiled = only_documented(dml.compile_operator, desc, level)
    if compiled is None:
        return
    need = max(compiled.desc.input_tensor.total_tensor_size_in_bytes,
               compiled.desc.output_tensor.total_tensor_size_in_bytes)
    if need > 1 << 20:  # valid but huge (large strides): not worth the memory here
        return
    nbytes = data.draw(st.integers(0, 3).flatmap(
        lambda i: st.integers(need, need + 16) if i else st.integers(0, need + 64)),
        "buffer bytes")
    offset = data.draw(st.integers(0, 7), "buffer offset")
    raw = bytearray(os.urandom(nbytes + offset))
    inputs = [memoryview(raw)[offset:], raw, np.frombuffer(raw, np.uint8)[offset:]]
    inp = data.draw(mostly(st.sampled_from(range(len(inputs))), garbage()), "input")
    inp = inputs[inp] if isinstance(inp, int) and 0 <= inp < len(inputs) else inp
    outputs = [lambda: memoryview(raw)[offset:], lambda: bytes(raw), lambda: bytearray(nbytes),
               lambda: np.zeros(nbytes // 8 + 1), lambda: np.zeros(nbytes + 1, np.uint8)[1:]]
    out = data.draw(mostly(st.sampled_from(range(len(outputs))), garbage()), "output")
    out = outputs[out]() if isinstance(out, int) and 0 <= out < len(outputs) else out
    OUTCOMES["dml: compiled"] += 1
    if only_documented(lambda: compiled.execute(inp, out) or True):
        OUTCOMES["dml: executed"] += 1



ACL_TYPES = st.sampled_from(list(acl.DataType) + ["S32", "QASYMM8", "BOGUS"])


@given(data=st.data(), which=st.integers(0, 2))
def prop_garbage_acl(data, which):
    def info():
        return st.one_of(garbage(), st.builds(
            lambda s, t: only_documented(acl.TensorInfo, s, t),
            maybe(st.lists(st.integers(-1, 4), max_size=4)), maybe(ACL_TYPES)),
            st.sampled_from([np.zeros((2, 3), np.int32), np.zeros(3, np.int32),
                             np.zeros((2, 3), np.uint8), np.zeros((2, 3), np.int8)]))
    tin, bias, tout = data.draw(info()), data.draw(st.one_of(st.none(), info())), data.draw(info())
    ints = maybe(st.integers(-(2 ** 33), 2 ** 33))
    if which == 0:
        status = only_documented(acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint.validate,
                                 tin, bias, tout, data.draw(ints), data.draw(ints))
        assert status is None or isinstance(status, acl.Status)
    elif which == 1:
        f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint()
        if only_documented(f.configure, tin, bias, tout, data.draw(ints), data.draw(ints),
                           data.draw(ints), data.draw(ints), data.draw(ints)) is None and \
                getattr(f, "_configured", True):
            try:
                f.run()
            except RuntimeError as e:  # documented: run() before a successful configure()
                assert "configure" in str(e)
            except DOCUMENTED:
                pass
    else:
        kw = {}
        vector = st.lists(st.integers(-(2 ** 32), 2 ** 32), max_size=4)
        fields = {"type": st.sampled_from(list(acl.GEMMLowpOutputStageType)),
                  "gemmlowp_offset": ints, "gemmlowp_multiplier": ints, "gemmlowp_shift": ints,
                  "gemmlowp_min_bound": ints, "gemmlowp_max_bound": ints,
                  "gemmlowp_multipliers": vector, "gemmlowp_shifts": vector,
                  "output_data_type": st.one_of(st.none(), ACL_TYPES),
                  "is_quantized_per_channel": st.booleans()}
        for field, valid in fields.items():
            if data.draw(st.booleans()):
                kw[field] = data.draw(maybe(valid), field)
        stage_info = only_documented(acl.GEMMLowpOutputStageInfo, **kw)
        if stage_info is not None:
            f = acl.GEMMLowpOutputStage()
            if only_documented(f.configure, tin, bias, tout, stage_info) is not None:
                only_documented(f.run)


def prop_endless_axes():
    """hardmax and dml axes given as endless generators must fail, not hang."""
    x = np.zeros((2, 3), np.float32)
    only_documented(simdops.hardmax, x, axis=itertools.count())
    t = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (2, 3))
    only_documented(dml.ActivationHardmax1OperatorDesc, t, t, itertools.count())
