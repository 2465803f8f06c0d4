"""The C entry points the descriptor layers build on (_core.StridedPlan,
prepare_*/check_*, layout queries): same bits as the array API, the same
rules, no numpy views."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import simdops
from simdops import _core

F32, F16, I32, U8 = 1, 2, 6, 5


def _view(buf, dtype, sizes, strides, offset=0):
    """The numpy view a descriptor describes (reference only)."""
    es = np.dtype(dtype).itemsize
    return as_strided(np.frombuffer(buf, np.uint8)[offset:].view(dtype), shape=sizes,
                      strides=[s * es for s in strides])


@pytest.mark.parametrize("sizes,in_strides,out_strides", [
    ((16,), (1,), (1,)), ((3, 5), (5, 1), (1, 3)), ((2, 3, 4), (0, 4, 1), (12, 4, 1)),
    ((4, 4), (1, 4), (4, 1)), ((1, 7), (0, 2), (7, 1))])
def test_plan_matches_array_api(sizes, in_strides, out_strides, rng):
    n_in = 1 + sum((s - 1) * st for s, st in zip(sizes, in_strides))
    n_out = 1 + sum((s - 1) * st for s, st in zip(sizes, out_strides))
    x = (rng.standard_normal(n_in) * 3).astype(np.float32)
    src = bytearray(x.tobytes() + b"\0" * 4)
    xv = _view(src, np.float32, sizes, in_strides, 0)
    cases = [("clip", _core.prepare_clip(F32, -1.0, 1.5, 2.0, 0.5),
              lambda: simdops.clip(xv, -1.0, 1.5, scale=2.0, bias=0.5)),
             ("shrink", _core.prepare_shrink(F32, 0.25, 0.5), lambda: simdops.shrink(xv, 0.25, 0.5)),
             ("hardmax", -1, lambda: simdops.hardmax(xv, -1)),
             ("hardmax", (0,), lambda: simdops.hardmax(xv, 0))]
    for op, params, want in cases:
        dst = bytearray(n_out * 4 + 8)
        _core.StridedPlan(op, F32, sizes, in_strides, out_strides, params).run(src, dst, 0, 4)
        got = _view(dst, np.float32, sizes, out_strides, 4)
        np.testing.assert_array_equal(got, want(), err_msg=op)
        assert bytes(dst[:4]) == b"\0" * 4  # nothing before the view


def test_plan_in_place_and_bounds():
    buf = bytearray(np.array([-2, 0.5, 3, -0.25], np.float32).tobytes())
    plan = _core.StridedPlan("clip", F32, (4,), (1,), (1,), _core.prepare_clip(F32, -1.0, 1.0))
    plan.run(buf, buf)
    assert np.frombuffer(buf, np.float32).tolist() == [-1, 0.5, 1, -0.25]
    with pytest.raises(ValueError, match="outside its buffer"):
        plan.run(bytearray(12), bytearray(16))
    with pytest.raises(ValueError, match="outside its buffer"):
        plan.run(bytearray(16), bytearray(16), 0, 4)
    with pytest.raises(ValueError, match="outside its buffer"):
        plan.run(bytearray(16), bytearray(16), -4, 0)
    with pytest.raises(ValueError, match="writable"):
        plan.run(bytearray(16), bytes(16))


def test_plan_reports_c_rules():
    with pytest.raises(ValueError, match=r"\bout\b"):  # output maps two elements to one address
        _core.StridedPlan("clip", F32, (2, 2), (2, 1), (0, 1),
                          _core.prepare_clip(F32, 0.0, 1.0)).run(bytearray(16), bytearray(16))
    with pytest.raises(ValueError, match="axis"):
        _core.StridedPlan("hardmax", F32, (2, 2), (2, 1), (2, 1), (0, -2)).run(
            bytearray(16), bytearray(16))
    with pytest.raises(TypeError, match="x"):  # hardmax of int32
        _core.StridedPlan("hardmax", I32, (4,), (1,), (1,), 0).run(bytearray(16), bytearray(16))
    with pytest.raises(TypeError, match="Prepared"):
        _core.StridedPlan("clip", F32, (4,), (1,), (1,), _core.prepare_shrink(F32, 0, 0.5))
    with pytest.raises(TypeError, match="x"):  # prepared for float16, run on float32
        _core.StridedPlan("clip", F32, (4,), (1,), (1,),
                          _core.prepare_clip(F16, 0.0, 1.0)).run(bytearray(16), bytearray(16))


def test_checks_name_reason_and_argument():
    assert _core.check_clip(F32, 0.0, 1.0) is None
    assert _core.check_shrink(I32, 1, 0.5) is None
    assert _core.check_hardmax(F16, 3, (0, -1)) is None
    assert _core.check_requant(U8, 1 << 30, -3, 7, 0, 255) is None
    e = _core.check_clip(F32, np.nan, 1.0)
    assert (e.reason, e.arg, e.exception_type) == ("NAN", "min", ValueError)
    e = _core.check_clip(11, 0, 1, scale=2.0)  # int64: no ScaleBias
    assert e.reason == "SCALE_BIAS_64BIT" and e.exception_type is ValueError
    e = _core.check_clip(I32, 0, 1, bias=float("inf"))
    assert (e.reason, e.arg) == ("NOT_FINITE_F32", "bias")
    e = _core.check_shrink(F32, 0.0, -1)
    assert (e.reason, e.arg, e.value) == ("NEGATIVE_THRESHOLD", "threshold", -1)
    e = _core.check_shrink(11, 0.0, 1.0)
    assert (e.reason, e.arg, e.exception_type) == ("DTYPE_UNSUPPORTED", "x", TypeError)
    e = _core.check_hardmax(F32, 2, (2,))
    assert (e.reason, e.value, e.expected) == ("AXIS_RANGE", 2, 2)
    e = _core.check_hardmax(F32, 2, ())
    assert e.reason == "AXES_EMPTY"
    e = _core.check_requant(7, 1, 1, 3)  # int16 output with an offset
    assert (e.reason, e.arg, e.value) == ("QSYMM16_OFFSET", "offset", 3)
    e = _core.check_requant(U8, 1, 1, 0, 10, 5)
    assert (e.reason, e.value, e.expected) == ("MIN_ABOVE_MAX", 10, 5)
    e = _core.check_requant(U8, 1 << 31, 1, 0)
    assert (e.reason, e.arg) == ("INT32_RANGE", "multiplier")
    assert isinstance(e.exception(), ValueError) and "multiplier" in str(e.exception())


def _self_overlaps_brute(sizes, strides):
    offsets = [sum(i * s for i, s in zip(idx, strides)) for idx in np.ndindex(*sizes)]
    return len(set(offsets)) != len(offsets)


@pytest.mark.parametrize("sizes,strides", [((2, 3), (3, 1)), ((2, 3), (2, 1)), ((2, 3), (0, 1)),
                                           ((1, 3), (0, 1)), ((3, 3), (1, 3)), ((2, 2, 2), (1, 2, 3)),
                                           ((4,), (0,)), ((0, 3), (0, 0)), ((3, 4), (5, 1))])
def test_self_overlaps_matches_brute_force(sizes, strides):
    assert _core.self_overlaps(F32, sizes, strides) == _self_overlaps_brute(sizes, strides)


def test_same_layout():
    assert _core.same_layout(F32, (2, 3), (3, 1), (3, 1))
    assert _core.same_layout(F32, (1, 3), (9, 1), (3, 1))  # extent-1 strides do not matter
    assert not _core.same_layout(F32, (2, 3), (3, 1), (1, 2))


def test_requant_prepared_matches_array_api(rng):
    x = rng.integers(-2**31, 2**31, (3, 5), dtype=np.int64).astype(np.int32)
    bias = rng.integers(-1000, 1000, 5).astype(np.int32)
    mult = rng.integers(2**30, 2**31, 5).astype(np.int32)
    shifts = rng.integers(-3, 10, 5).astype(np.int32)
    for od, code in (("uint8", U8), ("int8", 8), ("int16", 7)):
        off = 0 if od == "int16" else 5
        p = _core.prepare_requant(code, 1 << 30, 3, off)
        want = simdops.quantize_down_int32(x, 1 << 30, 3, off, bias=bias, out_dtype=od)
        np.testing.assert_array_equal(_core.requant_prepared(p, x, bias=bias), want)
        want = simdops.quantize_down_int32(x, mult, shifts, off, out_dtype=od)
        np.testing.assert_array_equal(_core.requant_prepared(p, x, multipliers=mult,
                                                             shifts=shifts), want)
        want = simdops.quantize_down_int32(x, mult, 3, off, out_dtype=od)
        np.testing.assert_array_equal(_core.requant_prepared(p, x, multipliers=mult), want)


def test_threads_running_one_plan_use_their_own_buffers():
    """run() keeps each call's views on its own stack: threads sharing one plan
    (the GIL released around the kernel) never swap buffers."""
    import threading

    n = 1 << 16
    plan = _core.StridedPlan("clip", F32, (n,), (1,), (1,), _core.prepare_clip(F32, -1.0, 1.0))
    errors = []

    def work(value):
        src = np.full(n, value, np.float32)
        for _ in range(50):
            dst = np.empty(n, np.float32)
            plan.run(src, dst)
            if not (dst == np.clip(value, -1.0, 1.0)).all():
                errors.append(value)
                return

    threads = [threading.Thread(target=work, args=(v,)) for v in (0.25, -0.5, 3.0, -7.0)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, f"threads saw another thread's buffer: {errors}"
