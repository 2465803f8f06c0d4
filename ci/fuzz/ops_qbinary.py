"""Fuzz property of the quantized binary ops (quantized_add / _subtract / _multiply):
drawn arithmetic, dtype, model numbers (scales over many binades, zero points at the
type's ends), activation bounds, broadcast shapes, reversed / strided views and out=
aliasing an input: every ISA and thread count gives the same bytes (or the same
error), and an invalid call raises only TypeError / ValueError. tests/
test_quantized_binary.py and test_runtime_binary.py hold the reference and runtime
comparisons."""
import numpy as np
import simdops
from hypothesis import given
from hypothesis import strategies as st

from fuzz.common import ISAS, THREADS

RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}
OPS = ("add", "subtract", "multiply")
ARITHMETICS = ("tflite", "xnnpack", "onnxruntime")


def _scale(draw):
    return draw(st.one_of(st.sampled_from((1.0, 0.5, 0.1, 1 / 255, 0.0078125, 3.0, 7.5)),
                          st.floats(2.0**-14, 2.0**6), st.floats(1e-30, 1e30)))


def _operand(draw, dtype, shape):
    """Values from a drawn seed (the type's ends and 0 mixed in), sometimes a view."""
    lo, hi = RANGES[dtype]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.integers(lo, hi + 1, shape).astype(dtype)
    if x.size:
        edge = rng.random(shape) < 0.2
        x[edge] = rng.choice(np.array([lo, hi, 0], dtype), int(edge.sum()))
    if x.ndim and draw(st.booleans()):   # a reversed view of the last axis
        x = np.ascontiguousarray(x[..., ::-1])[..., ::-1]
    if x.ndim and draw(st.booleans()):   # a strided view (every other element)
        x = np.repeat(x, 2, axis=-1)[..., ::2]
    return x


@st.composite
def shapes(draw):
    """y's shape and the two inputs' (numpy broadcasting: a dimension of 1 or missing)."""
    y = tuple(draw(st.one_of(st.lists(st.integers(0, 40), min_size=0, max_size=3),
                             st.tuples(st.integers(0, 200_000)))))   # long rows: threads

    def inp():
        nd = draw(st.integers(0, len(y)))
        return tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in y[len(y) - nd:])
    return inp(), inp()


@given(data=st.data(), op=st.sampled_from(OPS), arith=st.sampled_from(ARITHMETICS),
       dtype=st.sampled_from(tuple(RANGES)), shp=shapes(),
       out_mode=st.sampled_from(("none", "fresh", "a", "b")))
def prop_qbinary(data, op, arith, dtype, shp, out_mode):
    draw = data.draw
    lo, hi = RANGES[dtype]
    a = _operand(draw, dtype, shp[0])
    b = _operand(draw, dtype, shp[1])
    q = []
    for _ in range(3):
        q += [_scale(draw), draw(st.one_of(st.sampled_from((lo, hi, 0)), st.integers(lo, hi)))]
    kw = {"arithmetic": arith}
    if draw(st.booleans()):
        kw["min"] = draw(st.integers(lo, hi))
        kw["max"] = draw(st.integers(kw["min"], hi))
    fn = getattr(simdops, "quantized_" + op)
    outs = []
    for isa in ISAS:
        for threads in THREADS:
            aa, bb = a.copy(), b.copy()
            out = None
            yshape = np.broadcast_shapes(a.shape, b.shape)
            if out_mode == "fresh":
                out = np.empty(yshape, dtype)
            elif out_mode == "a" and aa.shape == yshape:
                out = aa
            elif out_mode == "b" and bb.shape == yshape:
                out = bb
            with simdops.use_isa(isa):
                previous = simdops.get_num_threads() if threads is not None else None
                if threads is not None:
                    simdops.set_num_threads(threads)
                try:
                    y = fn(aa, q[0], q[1], bb, q[2], q[3], q[4], q[5], out=out, **kw)
                    outs.append((y.shape, y.dtype.str, np.asarray(y).tobytes()))
                except (TypeError, ValueError) as e:
                    outs.append(type(e).__name__ + str(e))
                finally:
                    if threads is not None:
                        simdops.set_num_threads(previous)
    assert all(o == outs[0] for o in outs), (op, arith, dtype, shp, q, kw, outs[0])
