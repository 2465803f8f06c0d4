"""Fuzz properties of the low-bit QuantizeLinear / DequantizeLinear: every ONNX
quantized type, blocked / per-axis / per-tensor layouts with odd and wild block
sizes and scale shapes, float32 / float16 / bfloat16 / float8e8m0 scales, saturate,
packed buffers: every ISA gives the same bytes (or the same error), and an invalid
call raises only TypeError / ValueError (tests/test_onnx_lowbit.py holds the
onnx.reference comparisons)."""
import numpy as np
import simdops
from hypothesis import given
from hypothesis import strategies as st

from fuzz.common import ISAS

QTYPES = ("int4", "uint4", "int2", "uint2", "uint8", "int8", "uint16", "int16",
          "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float4_e2m1fn")


def _dt(name):
    import ml_dtypes

    try:
        return np.dtype(name)
    except TypeError:
        return np.dtype(getattr(ml_dtypes, name))


@st.composite
def layouts(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 9), min_size=ndim, max_size=ndim)))
    axis = draw(st.integers(-ndim, ndim - 1))
    kind = draw(st.sampled_from(("tensor", "axis", "blocked", "wild")))
    a = axis % ndim
    if kind == "tensor":
        return shape, axis, 0, ()
    if kind == "axis":
        return shape, axis, 0, (shape[a],)
    if kind == "blocked":
        b = draw(st.integers(1, 10))
        s = list(shape)
        s[a] = -(-shape[a] // b)
        return shape, axis, b, tuple(s)
    b = draw(st.integers(-2, 12))
    s = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    return shape, axis, b, s


@given(data=st.data(), qname=st.sampled_from(QTYPES), layout=layouts(),
       fname=st.sampled_from(("float32", "float16", "bfloat16")),
       sname=st.sampled_from(("float32", "float16", "bfloat16", "float8_e8m0fnu")),
       saturate=st.sampled_from((0, 1)), with_zp=st.booleans(), packed=st.booleans())
def prop_qdq_lowbit(data, qname, layout, fname, sname, saturate, with_zp, packed):
    from simdops.onnx import _lowbit

    shape, axis, block, sshape = layout
    qdt, fdt, sdt = _dt(qname), _dt(fname), _dt(sname)
    n = int(np.prod(shape))
    x = np.array(data.draw(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True),
                                    min_size=n, max_size=n)), np.float32).reshape(shape)
    ssize = int(np.prod(sshape))
    scale = np.array(data.draw(st.lists(st.sampled_from((0.5, 0.1, 3.0, 2.0**-8, 1.0, 4.0)),
                                        min_size=ssize, max_size=ssize)),
                     np.float32).reshape(sshape).astype(sdt)
    zp = np.zeros(sshape, qdt) if with_zp else None
    outs = []
    for isa in ISAS:
        with simdops.use_isa(isa):
            try:
                with np.errstate(all="ignore"):
                    q = _lowbit.quantize_linear(x.astype(fdt), scale, zp, axis=axis,
                                                block_size=block, saturate=saturate,
                                                output_dtype=qdt, packed=packed)
                    d = _lowbit.dequantize_linear(
                        q, scale, zp, axis=axis, block_size=block,
                        output_dtype=fdt if sname == "float8_e8m0fnu" else None,
                        packed=qdt if packed and qdt.itemsize == 1 and
                        _lowbit._QTYPES[qname][1] < 8 else None,
                        shape=shape)
                outs.append((q.tobytes(), d.tobytes()))
            except (TypeError, ValueError) as e:
                outs.append(type(e).__name__ + str(e))
    assert all(o == outs[0] for o in outs), (qname, layout, outs)
