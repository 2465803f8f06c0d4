"""0-d arrays and numpy scalars are taken wherever the functions take a Python number,
with their exact value (a float32 0-d array its float32, an int64 one its int)."""
import numpy as np
import pytest

import simdops

X = np.array([-3.0, -1.25, -0.0, 0.3, 2.0, np.nan], np.float32)
ACC = np.array([-300, 0, 5, 1000, 2**31 - 1], np.int32)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_clip_and_shrink_take_0d_bounds():
    assert same(simdops.clip(X, np.array(-1.0), np.array(1.0)), simdops.clip(X, -1.0, 1.0))
    lo32 = np.float32(-1.1)  # not a double: the float32 value itself
    assert same(simdops.clip(X, np.array(lo32), 1), simdops.clip(X, float(lo32), 1))
    xi = np.array([-128, 5, 127], np.int8)
    assert same(simdops.clip(xi, np.array(-300, np.int64), np.array(2**40)),
                simdops.clip(xi, -300, 2**40))
    assert same(simdops.shrink(X, np.array(0.5), np.array(0.5, np.float32)),
                simdops.shrink(X, 0.5, 0.5))


def test_requant_takes_0d_parameters():
    m, s = simdops.quantize_multiplier(0.05)
    assert same(simdops.quantize_down_int32(ACC, np.array(m), np.array(s), np.array(128)),
                simdops.quantize_down_int32(ACC, m, s, 128))
    assert same(simdops.requantize_fp32(ACC, np.array(np.float32(0.1)), np.array(3)),
                simdops.requantize_fp32(ACC, float(np.float32(0.1)), 3))


def test_0d_errors_name_the_argument():
    with pytest.raises(ValueError, match="min"):
        simdops.clip(X, np.array(np.nan), 1.0)
    with pytest.raises(TypeError, match="bool"):
        simdops.clip(X, np.array(True), 1.0)
    with pytest.raises(TypeError, match="min must be an int or a float, got ndarray"):
        simdops.clip(X, np.array([1.0]), 1.0)  # 1-d stays refused
