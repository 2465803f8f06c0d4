"""simdops.int8_matmul_accumulators against Python integers: the exact sums and
VPMADDUBSW's int16-saturated pair sums (int8 a as a + 128 with the 128 * sum(w)
compensation), on every ISA, odd K, strided views, the saturation edges, and
the argument errors."""
import numpy as np
import pytest

import simdops


def python_accumulators(a, w, pair_saturation):
    """Per output, in Python ints: exact sum, or the pairs (2p, 2p+1) along K
    clamped to int16 (int8 a offset by +128, 128 * sum(w) taken off), then the
    int32 wrap."""
    m, k, n = a.shape[0], w.shape[0], w.shape[1]
    a = a.tolist()
    w = w.tolist()
    out = []
    for i in range(m):
        row = []
        for j in range(n):
            if not pair_saturation:
                s = sum(a[i][p] * w[p][j] for p in range(k))
            else:
                off = OFFSET[0]
                s = 0
                for p in range(0, k, 2):
                    pair = (a[i][p] + off) * w[p][j]
                    if p + 1 < k:
                        pair += (a[i][p + 1] + off) * w[p + 1][j]
                    s += min(max(pair, -32768), 32767)
                s -= off * sum(w[p][j] for p in range(k))
            s = (s + 2**31) % 2**32 - 2**31
            row.append(s)
        out.append(row)
    return np.array(out, np.int64).reshape(m, n)


OFFSET = [0]


def expected(a, w, pair_saturation):
    OFFSET[0] = 128 if a.dtype == np.int8 else 0
    return python_accumulators(a, w, pair_saturation)


SHAPES = [(1, 1, 1), (3, 2, 5), (4, 31, 3), (2, 32, 7), (5, 33, 4), (3, 64, 2), (2, 97, 9),
          (1, 200, 3), (0, 5, 3), (3, 0, 4), (3, 5, 0)]


def _operands(rng, m, k, n, dtype, edge):
    if edge:  # every pair saturates (or nearly): 255/127 activations, +-127/-128 weights
        hi = np.array([255 if dtype == np.uint8 else 127], np.int64)
        a = np.where(rng.integers(0, 4, (m, k)) > 0, hi, rng.integers(-128 if dtype == np.int8 else 0, 128, (m, k)))
        w = rng.choice(np.array([127, -128, 127, -127, 1], np.int64), (k, n))
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max + 1, (m, k))
        w = rng.integers(-128, 128, (k, n))
    return a.astype(dtype), w.astype(np.int8)


@pytest.mark.parametrize("isa", simdops.available_isas())
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("pair_saturation", [False, True])
def test_matches_python_ints(isa, dtype, pair_saturation):
    rng = np.random.default_rng(7)
    for m, k, n in SHAPES:
        for edge in (False, True):
            a, w = _operands(rng, m, k, n, dtype, edge)
            with simdops.use_isa(isa):
                got = simdops.int8_matmul_accumulators(a, w, pair_saturation=pair_saturation)
            assert got.dtype == np.int32 and got.shape == (m, n)
            assert np.array_equal(got, expected(a, w, pair_saturation)), (m, k, n, edge)


def test_pair_saturation_changes_results():
    # the model is not the exact sum: 255 * 127 * 2 = 64770 saturates to 32767
    a = np.array([[255, 255, 255, 0]], np.uint8)
    w = np.array([[127], [127], [127], [127]], np.int8)
    assert simdops.int8_matmul_accumulators(a, w).tolist() == [[3 * 255 * 127]]
    assert simdops.int8_matmul_accumulators(a, w, pair_saturation=True).tolist() == [
        [32767 + 255 * 127]]
    # int8 a saturates as a + 128: (-1 + 128) * 127 * 2 = 32258 does not, and
    # (127 + 128) * 127 * 2 does (then 128 * 254 comes off)
    s8 = np.array([[127, 127]], np.int8)
    assert simdops.int8_matmul_accumulators(s8, w[:2], pair_saturation=True).tolist() == [
        [32767 - 128 * 254]]


def test_large_random_against_int64_numpy():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (64, 515)).astype(np.uint8)
    w = rng.integers(-128, 128, (515, 40)).astype(np.int8)
    exact = a.astype(np.int64) @ w.astype(np.int64)
    assert np.array_equal(simdops.int8_matmul_accumulators(a, w), exact)
    # pair model in numpy: K padded to even
    ap = np.zeros((64, 516), np.int64)
    ap[:, :515] = a
    wp = np.zeros((516, 40), np.int64)
    wp[:515] = w
    pairs = ap[:, 0::2, None] * wp[None, 0::2] + ap[:, 1::2, None] * wp[None, 1::2]
    model = np.clip(pairs, -32768, 32767).sum(1)
    got = simdops.int8_matmul_accumulators(a, w, pair_saturation=True)
    assert np.array_equal(got, model)
    assert not np.array_equal(model, exact)


def test_strided_views_and_out():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 256, (12, 80)).astype(np.uint8)[::3, ::2]
    w = rng.integers(-128, 128, (40, 30)).astype(np.int8)[:, ::-3]
    want = a.astype(np.int64) @ w.astype(np.int64)
    out = np.zeros((8, 20), np.int32)[::2, ::2]
    assert simdops.int8_matmul_accumulators(a, w, out=out) is out
    assert np.array_equal(out, want)
    assert np.array_equal(simdops.int8_matmul_accumulators(a, w.T.copy().T), want)


def test_int32_wrap():
    # K = 2**16 + 8 products of 255 * -128 pass INT32_MIN: the sum wraps as int32 adds do
    k = (1 << 16) + 8
    a = np.full((1, k), 255, np.uint8)
    w = np.full((k, 1), -128, np.int8)
    total = 255 * -128 * k
    want = (total + 2**31) % 2**32 - 2**31
    for isa in simdops.available_isas():
        with simdops.use_isa(isa):
            assert simdops.int8_matmul_accumulators(a, w)[0, 0] == want


def test_errors_name_the_argument():
    a = np.zeros((2, 3), np.uint8)
    w = np.zeros((3, 4), np.int8)
    with pytest.raises(TypeError, match="^int8_matmul_accumulators: a has dtype int16"):
        simdops.int8_matmul_accumulators(a.astype(np.int16), w)
    with pytest.raises(TypeError, match="w has dtype uint8; expected int8"):
        simdops.int8_matmul_accumulators(a, w.view(np.uint8))
    with pytest.raises(ValueError, match="a has 1 dimensions; expected 2"):
        simdops.int8_matmul_accumulators(a[0], w)
    with pytest.raises(ValueError, match=r"w has 4 rows; expected 3 \(the columns of a\)"):
        simdops.int8_matmul_accumulators(a, np.zeros((4, 4), np.int8))
    with pytest.raises(ValueError, match="out has extent 5 in dimension 1; expected 4"):
        simdops.int8_matmul_accumulators(a, w, out=np.zeros((2, 5), np.int32))
    with pytest.raises(TypeError, match="out has dtype int64; expected int32"):
        simdops.int8_matmul_accumulators(a, w, out=np.zeros((2, 4), np.int64))
    with pytest.raises(TypeError, match="pair_saturation must be a bool"):
        simdops.int8_matmul_accumulators(a, w, pair_saturation=1)
