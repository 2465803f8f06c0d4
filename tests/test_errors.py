"""Every bad input of docs/semantics.md raises the stated exception, with a message naming the argument."""
import array

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import simdops

F32 = np.arange(12, dtype=np.float32).reshape(3, 4)
I32 = np.arange(12, dtype=np.int32).reshape(3, 4)

# op name -> (call(x, **kw), a valid x)
OPS = {
    "clip": (lambda x, **kw: simdops.clip(x, 0.0, 1.0, **kw), F32),
    "clip_scale_bias": (lambda x, **kw: simdops.clip(x, 0.0, 1.0, scale=2.0, bias=1.0, **kw), F32),
    "shrink": (lambda x, **kw: simdops.shrink(x, 0.5, 0.5, **kw), F32),
    "hardmax": (lambda x, **kw: simdops.hardmax(x, **kw), F32),
    "hardmax_axis0": (lambda x, **kw: simdops.hardmax(x, 0, **kw), F32),
    "requant_uint8": (lambda x, **kw: simdops.quantize_down_int32_to_uint8(x, 1 << 30, 1, 2, **kw), I32),
    "requant_int8": (lambda x, **kw: simdops.quantize_down_int32(x, 1 << 30, 1, 2, out_dtype="int8",
                                                                 **kw), I32),
    "requant_int16": (lambda x, **kw: simdops.quantize_down_int32(x, 1 << 30, 1, out_dtype="int16",
                                                                  **kw), I32),
    "requant_pc": (lambda x, **kw: simdops.quantize_down_int32(
        x, np.full(4, 1 << 30, np.int32), np.ones(4, np.int32), 2, **kw), I32),
}
OUT_DTYPE = {"requant_uint8": np.uint8, "requant_int8": np.int8, "requant_int16": np.int16,
             "requant_pc": np.uint8}


def out_dtype(op):
    return np.dtype(OUT_DTYPE.get(op, np.float32))


ops = pytest.mark.parametrize("op", list(OPS))


@ops
def test_valid_call_works(op):
    fn, x = OPS[op]
    y = fn(x)
    assert y.shape == x.shape and y.dtype == out_dtype(op)


@ops
@pytest.mark.parametrize("bad", [None, "abc", {"a": 1}, object(), [[1, 2], [3]]],
                         ids=["None", "str", "dict", "object", "ragged"])
def test_x_not_numeric_array_like(op, bad):
    """Lists, tuples and scalars are array-likes (tests/test_interop.py); these are not."""
    fn, _ = OPS[op]
    with pytest.raises(TypeError, match=r"\bx\b"):
        fn(bad)


UNSUPPORTED_X = {
    "clip": [np.complex64, np.bool_, object, np.dtype("V4"), np.dtype([("a", "i4")])],
    "shrink": [np.int64, np.uint64, np.complex64, np.bool_],
    "hardmax": [np.int32, np.int8, np.uint8, np.int64, np.complex128, np.bool_],
    "requant": [np.uint32, np.int16, np.int64, np.float32, np.float16, np.uint8, np.bool_],
}


@pytest.mark.parametrize("op,dtype", [(op, d) for op, ds in UNSUPPORTED_X.items() for d in ds],
                         ids=lambda v: str(np.dtype(v)) if not isinstance(v, str) else v)
def test_x_unsupported_dtype(op, dtype):
    x = np.zeros((2, 4), dtype=dtype)
    fn = {"clip": OPS["clip"][0], "shrink": OPS["shrink"][0], "hardmax": OPS["hardmax"][0],
          "requant": OPS["requant_uint8"][0]}[op]
    with pytest.raises(TypeError, match=r"\bx\b"):
        fn(x)


def test_x_unsupported_buffer_formats():
    with pytest.raises(TypeError, match=r"\bx\b"):
        simdops.clip(memoryview(b"abcd").cast("c"), 0, 1)      # char
    with pytest.raises(TypeError, match=r"\bx\b"):
        simdops.clip(array.array("u", "abc"), 0, 1)            # unicode
    with pytest.raises(TypeError, match=r"\bx\b"):
        simdops.clip(memoryview(np.zeros(3, "?")), 0, 1)       # bool


@ops
def test_x_non_native_byte_order(op):
    fn, x = OPS[op]
    swapped = x.astype(x.dtype.newbyteorder())
    with pytest.raises(TypeError, match=r"\bx\b"):
        fn(swapped)


@ops
def test_out_non_native_byte_order(op):
    fn, x = OPS[op]
    if out_dtype(op).itemsize == 1:
        pytest.skip("one-byte types have no byte order")
    out = np.zeros(x.shape, out_dtype(op).newbyteorder())
    with pytest.raises(TypeError, match=r"\bout\b"):
        fn(x, out=out)


@ops
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (12,), (3, 4, 1), (1, 3, 4), ()])
def test_out_shape_mismatch(op, shape):
    fn, x = OPS[op]
    with pytest.raises(ValueError, match=r"\bout\b"):
        fn(x, out=np.zeros(shape, out_dtype(op)))


@ops
def test_out_wrong_dtype(op):
    fn, x = OPS[op]
    for dt in (np.float64, np.int32, np.uint16, np.int16 if out_dtype(op) != np.int16 else np.int8):
        with pytest.raises(TypeError, match=r"\bout\b"):
            fn(x, out=np.zeros(x.shape, dt))


@ops
def test_out_read_only(op):
    fn, x = OPS[op]
    out = np.zeros(x.shape, out_dtype(op))
    out.flags.writeable = False
    with pytest.raises(ValueError):
        fn(x, out=out)
    assert not out.any()


@ops
def test_out_read_only_numpy_message_names_out(op):
    fn, x = OPS[op]
    out = np.zeros(x.shape, out_dtype(op))
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"\bout\b"):
        fn(x, out=out)


@pytest.mark.parametrize("op", ["requant_uint8", "requant_pc"])
def test_out_read_only_bytes_message_names_out(op):
    fn, _ = OPS[op]
    x = np.zeros((3, 4), np.int32)
    out = memoryview(bytes(12)).cast("B", (3, 4))
    with pytest.raises(ValueError, match=r"\bout\b"):
        fn(x, out=out)


@ops
def test_out_zero_stride_or_overlapping_elements(op):
    fn, x = OPS[op]
    dt = out_dtype(op)
    base = np.zeros(64, dt)
    zero = as_strided(base, shape=x.shape, strides=(0, dt.itemsize), writeable=True)
    with pytest.raises(ValueError, match=r"\bout\b"):
        fn(x, out=zero)
    zero2 = as_strided(base, shape=x.shape, strides=(dt.itemsize * 4, 0), writeable=True)
    with pytest.raises(ValueError, match=r"\bout\b"):
        fn(x, out=zero2)
    # rows that overlap: row stride 2 elements for rows of 4
    overlap = as_strided(base, shape=x.shape, strides=(dt.itemsize * 2, dt.itemsize),
                         writeable=True)
    with pytest.raises(ValueError, match=r"\bout\b"):
        fn(x, out=overlap)
    assert not base.any()  # nothing written


def test_out_zero_stride_single_element_axis_is_fine():
    # a 0 stride on an axis of extent 1 maps no two elements to one address
    base = np.zeros(8, np.float32)
    out = as_strided(base, shape=(1, 4), strides=(0, 4), writeable=True)
    simdops.clip(np.ones((1, 4), np.float32), 0.0, 0.5, out=out)
    assert base[:4].tolist() == [0.5] * 4


@pytest.mark.parametrize("kw", [dict(min=np.nan), dict(max=np.nan), dict(scale=np.nan),
                                dict(bias=np.nan), dict(min=np.float32("nan")),
                                dict(max=np.float64("nan"))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8, np.float64])
def test_clip_nan_params(kw, dtype):
    args = dict(min=0.0, max=1.0)
    args.update(kw)
    name = next(iter(kw))
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        simdops.clip(np.zeros(5, dtype), **args)


@pytest.mark.parametrize("kw", [dict(bias=np.nan), dict(threshold=np.nan)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint32])
def test_shrink_nan_params(kw, dtype):
    name = next(iter(kw))
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        simdops.shrink(np.zeros(5, dtype), **kw)


@pytest.mark.parametrize("threshold", [-0.5, -1, -np.inf, -1e-300, np.float32(-2)])
@pytest.mark.parametrize("dtype", [np.float32, np.int16])
def test_shrink_negative_threshold(threshold, dtype):
    with pytest.raises(ValueError, match="threshold"):
        simdops.shrink(np.zeros(5, dtype), 0.0, threshold)


def test_shrink_negative_zero_threshold_is_allowed():
    x = np.array([-1.0, 0.0, 1.0], np.float32)
    assert simdops.shrink(x, 0.0, -0.0).tolist() == [-1.0, 0.0, 1.0]


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@pytest.mark.parametrize("kw", [dict(scale=1.0), dict(bias=0.0), dict(scale=2.0, bias=1.0)])
def test_clip_scale_bias_on_64bit_integers(dtype, kw):
    with pytest.raises(ValueError):
        simdops.clip(np.zeros(4, dtype), 0, 1, **kw)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int8, np.uint16, np.int16, np.uint32])
@pytest.mark.parametrize("kw", [dict(scale=np.inf), dict(bias=-np.inf), dict(scale=1e39),
                                dict(bias=-1e39), dict(scale=2 ** 200)])
def test_clip_nonfinite_scale_bias_on_integers(dtype, kw):
    name = next(iter(kw))
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        simdops.clip(np.zeros(4, dtype), 0, 1, **kw)


@pytest.mark.parametrize("value", ["1", None, [1.0], 1j, object()])
def test_param_of_wrong_type(value):
    x = np.zeros(4, np.float32)
    if value is not None:  # None is clip's one-sided bound (tests/test_interop.py)
        with pytest.raises(TypeError, match="min"):
            simdops.clip(x, value, 1.0)
        with pytest.raises(TypeError, match="max"):
            simdops.clip(x, 0.0, value)
    with pytest.raises(TypeError, match="threshold"):
        simdops.shrink(x, 0.0, value)
    with pytest.raises(TypeError, match="bias"):
        simdops.shrink(x, value, 0.5)
    if value is not None:
        with pytest.raises(TypeError, match="scale"):
            simdops.clip(x, 0.0, 1.0, scale=value)


@pytest.mark.parametrize("axis", [2, -3, 5, (0, 2), (-3,), (0, 0), (1, -1), (0, 1, 0), ()],
                         ids=str)
def test_hardmax_bad_axis_value(axis):
    with pytest.raises(ValueError, match="axis"):
        simdops.hardmax(F32, axis)


@pytest.mark.parametrize("axis", [1.0, "0", (0, 1.0), None, (0, "1")], ids=str)
def test_hardmax_bad_axis_type(axis):
    with pytest.raises(TypeError, match="axis"):
        simdops.hardmax(F32, axis)


def test_hardmax_0d_has_no_axis():
    with pytest.raises(ValueError, match="axis"):
        simdops.hardmax(np.array(1.0, np.float32))


REQUANT_FNS = {
    "uint8": lambda x, m, s, off=2, **kw: simdops.quantize_down_int32_to_uint8(x, m, s, off, **kw),
    "int8": lambda x, m, s, off=2, **kw: simdops.quantize_down_int32(x, m, s, off,
                                                                      out_dtype="int8", **kw),
    "int16": lambda x, m, s, off=0, **kw: simdops.quantize_down_int32(x, m, s, off,
                                                                       out_dtype="int16", **kw),
}
rq = pytest.mark.parametrize("od", list(REQUANT_FNS))


@rq
@pytest.mark.parametrize("shift", [32, -32, 100, -1000, 2 ** 40])
def test_requant_shift_out_of_range(od, shift):
    fn = REQUANT_FNS[od]
    with pytest.raises(ValueError, match="shift"):
        fn(I32, 1 << 30, shift)
    shifts = np.array([0, 1, shift if abs(shift) < 2 ** 31 else 32, 2], np.int32)
    with pytest.raises(ValueError, match="shift"):
        fn(I32, np.full(4, 1 << 30, np.int32), shifts)


@rq
def test_requant_multiplier_offset_out_of_int32(od):
    fn = REQUANT_FNS[od]
    for m in (2 ** 31, -(2 ** 31) - 1, 2 ** 64):
        with pytest.raises(ValueError, match="multiplier"):
            fn(I32, m, 1)
    if od != "int16":
        for off in (2 ** 31, -(2 ** 31) - 1):
            with pytest.raises(ValueError, match="offset"):
                fn(I32, 1 << 30, 1, off)


@rq
def test_requant_bounds(od):
    fn = REQUANT_FNS[od]
    tlo, thi = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}[od]
    for lo, hi in [(5, 4), (thi, tlo), (tlo - 1, thi), (tlo, thi + 1), (tlo - 1, tlo - 1),
                   (thi + 1, thi + 1), (-(2 ** 31), 2 ** 31 - 1)]:
        with pytest.raises(ValueError, match="min"):
            fn(I32, 1 << 30, 1, min=lo, max=hi)
    fn(I32, 1 << 30, 1, min=tlo, max=thi)  # the full range is fine
    fn(I32, 1 << 30, 1, min=thi, max=thi)


def test_requant_int16_needs_zero_offset():
    for off in (1, -1, 2 ** 31 - 1):
        with pytest.raises(ValueError, match="offset"):
            simdops.quantize_down_int32(I32, 1 << 30, 1, off, out_dtype="int16")


@pytest.mark.parametrize("out_dtype", ["float32", "uint16", "int32", "uint32", "foo", np.float64,
                                       None])
def test_requant_bad_out_dtype(out_dtype):
    with pytest.raises(TypeError, match="out_dtype"):
        simdops.quantize_down_int32(I32, 1 << 30, 1, out_dtype=out_dtype)


@pytest.mark.parametrize("name", ["multiplier", "shift", "bias"])
def test_requant_per_channel_arrays(name):
    good = {"multiplier": np.full(4, 1 << 30, np.int32), "shift": np.ones(4, np.int32),
            "bias": np.zeros(4, np.int32)}

    def call(**kw):
        args = dict(good)
        args.update(kw)
        return simdops.quantize_down_int32(I32, args["multiplier"], args["shift"], 0,
                                           bias=args["bias"])
    call()
    for bad in (np.zeros(3, np.int32), np.zeros(5, np.int32), np.zeros((1, 4), np.int32),
                np.zeros((4, 1), np.int32), [0, 0, 0]):
        with pytest.raises(ValueError, match=name):
            call(**{name: bad})
    for bad in (np.zeros(4, np.float32), [0.5, 1.0, 2.0, 3.0]):
        with pytest.raises(TypeError, match=name):
            call(**{name: bad})
    # integer arrays of other widths are taken when every value fits int32
    for ok in (np.ones(4, np.int64), np.ones(4, np.int16), np.ones(4, np.uint32)):
        call(**{name: ok})
    with pytest.raises(ValueError, match=name):
        call(**{name: np.full(4, 2**31, np.int64)})
    with pytest.raises(TypeError, match=name):
        call(**{name: np.zeros(4, np.int32).astype(">i4")})


def test_requant_bias_on_per_tensor():
    with pytest.raises(ValueError, match="bias"):
        simdops.quantize_down_int32_to_uint8(I32, 1 << 30, 1, 0, bias=np.zeros(3, np.int32))
    with pytest.raises(TypeError, match="bias"):
        simdops.quantize_down_int32_to_uint8(I32, 1 << 30, 1, 0, bias=np.zeros(4, np.float32))


def test_requant_int_params_types():
    with pytest.raises(TypeError, match="offset"):
        simdops.quantize_down_int32_to_uint8(I32, 1 << 30, 1, 2.0)
    with pytest.raises(TypeError, match="min"):
        simdops.quantize_down_int32_to_uint8(I32, 1 << 30, 1, 2, min=1.0, max=5)
    with pytest.raises((TypeError, ValueError), match="multiplier"):
        simdops.quantize_down_int32_to_uint8(I32, 0.5, 1, 2)


def test_use_isa_unknown():
    with pytest.raises(ValueError, match="available"):
        simdops.use_isa("avx1024")  # a tier no build knows
    with pytest.raises(ValueError):
        simdops.use_isa("")


def test_errors_leave_out_untouched():
    out = np.full(F32.shape, 7, np.float32)
    with pytest.raises(ValueError):
        simdops.clip(F32, np.nan, 1.0, out=out)
    with pytest.raises(ValueError):
        simdops.shrink(F32, 0.0, -1.0, out=out)
    with pytest.raises(ValueError):
        simdops.hardmax(F32, 3, out=out)
    assert (out == 7).all()
