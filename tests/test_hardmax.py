"""simdops.hardmax against the reference (docs/semantics.md hardmax)."""
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdops
from conftest import check_all_isas, random_bits, sprinkle
from reference import HARDMAX_DTYPES, assert_matches, edge_values, hardmax

DTYPE_IDS = [np.dtype(d).name for d in HARDMAX_DTYPES]


def nan_of(dtype, k=0):
    return edge_values(dtype)[-4 + k]


def tie_data(rng, shape, dtype):
    """Small integer values: many ties, so first-occurrence matters."""
    return rng.integers(-3, 4, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", HARDMAX_DTYPES, ids=DTYPE_IDS)
def test_hardmax_basic_semantics(dtype):
    dtype = np.dtype(dtype)
    a = np.array([1, 3, 2, 3], dtype=dtype)
    assert simdops.hardmax(a).tolist() == [0, 1, 0, 0]  # first max
    n = nan_of(dtype)
    a = np.array([1, n, 5, n], dtype=dtype)
    assert simdops.hardmax(a).tolist() == [0, 1, 0, 0]  # first NaN wins
    a = np.array([-0.0, 0.0, -1.0], dtype=dtype)
    assert simdops.hardmax(a).tolist() == [1, 0, 0]  # +0.0 == -0.0
    a = np.array([0.0, -0.0], dtype=dtype)
    assert simdops.hardmax(a).tolist() == [1, 0]
    a = np.array([-np.inf, -np.inf], dtype=dtype)
    assert simdops.hardmax(a).tolist() == [1, 0]
    a = np.array([-np.inf, np.finfo(dtype).max, np.inf, np.inf], dtype=dtype)
    assert simdops.hardmax(a).tolist() == [0, 0, 1, 0]
    sub = np.finfo(dtype).smallest_subnormal
    a = np.array([0.0, sub, -sub, sub], dtype=dtype)
    assert simdops.hardmax(a).tolist() == [0, 1, 0, 0]  # denormals are not flushed
    y = simdops.hardmax(np.array([[1, 2], [4, 3]], dtype=dtype))
    assert y.dtype == dtype and y.tolist() == [[0, 1], [1, 0]]


@pytest.mark.parametrize("dtype", HARDMAX_DTYPES, ids=DTYPE_IDS)
def test_hardmax_every_length_last_axis_and_axis0(dtype, rng):
    e = edge_values(dtype)
    for n in range(71):
        for data in (tie_data(rng, (3, n), dtype),
                     sprinkle(rng, random_bits(rng, 3 * n, dtype), e).reshape(3, n)):
            for axis in (-1, 0, 1, (0, 1)):
                check_all_isas(lambda: simdops.hardmax(data, axis), hardmax(data, axis), data,
                               context=f"shape {data.shape}, axis={axis}")
        # NaN at every position in one row: the first NaN wins
        if n:
            x = np.zeros(n, dtype)
            for k in range(0, n, max(1, n // 7)):
                z = x.copy()
                z[k:] = nan_of(dtype, k % 4)
                check_all_isas(lambda: simdops.hardmax(z), hardmax(z), z, context=f"nan from {k}")


@pytest.mark.parametrize("dtype", HARDMAX_DTYPES, ids=DTYPE_IDS)
def test_hardmax_max_at_every_position(dtype):
    for n in (1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 70):
        for k in range(n):
            x = np.full(n, -1.0, dtype)
            x[k] = 2.0
            if k + 1 < n:
                x[-1] = 2.0  # a later tie must lose
            y = simdops.hardmax(x)
            assert np.flatnonzero(y).tolist() == [k], (n, k)


@pytest.mark.parametrize("dtype", HARDMAX_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(2, 3, 4), (4, 1, 5), (1, 1, 7), (3, 2, 2, 3), (5,), (2, 9)])
def test_hardmax_axes(dtype, shape, rng):
    nd = len(shape)
    all_axes = []
    for r in range(1, nd + 1):
        for comb in itertools.combinations(range(nd), r):
            all_axes.append(comb)
            all_axes.append(tuple(a - nd for a in comb[::-1]))  # negative, reversed order
    all_axes += list(range(-nd, nd))
    for data in (tie_data(rng, shape, dtype), rng.standard_normal(shape).astype(dtype)):
        for axis in all_axes:
            check_all_isas(lambda: simdops.hardmax(data, axis), hardmax(data, axis), data,
                           context=f"shape {shape}, axis={axis}")


def test_hardmax_multi_axis_row_major_first():
    # reducing axes (0, 1) leaves one row of 6 values per index k of axis 2
    x = np.zeros((2, 3, 2), np.float32)
    x[0, 2, 0] = 5   # the only max for k = 0
    x[1, 0, 1] = 5   # for k = 1: (1, 0) comes before (1, 2) in row-major order
    x[1, 2, 1] = 5
    y = simdops.hardmax(x, axis=(0, 1))
    assert np.argwhere(y).tolist() == [[0, 2, 0], [1, 0, 1]]
    y = simdops.hardmax(x, axis=(0, 1, 2))
    assert np.argwhere(y).tolist() == [[0, 2, 0]]
    y = simdops.hardmax(x, axis=(2, 0))
    assert_matches(y, hardmax(x, (0, 2)))


@pytest.mark.parametrize("dtype", HARDMAX_DTYPES, ids=DTYPE_IDS)
def test_hardmax_empty(dtype):
    for shape, axis in [((0,), -1), ((3, 0), -1), ((3, 0), 0), ((0, 3), 0), ((0, 3), -1),
                        ((2, 0, 3), (0, 2)), ((2, 0, 3), 1), ((2, 3, 0), (0, 1))]:
        x = np.empty(shape, dtype)
        y = simdops.hardmax(x, axis)
        assert y.shape == shape and y.dtype == dtype


@st.composite
def _hardmax_case(draw):
    dtype = draw(st.sampled_from([np.dtype(d) for d in HARDMAX_DTYPES]))
    elements = st.sampled_from([-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, np.inf, -np.inf, np.nan])
    x = draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=6),
                        elements=elements | st.floats(width=16)))
    nd = x.ndim
    axis = draw(st.integers(-nd, nd - 1) |
                st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True).map(tuple))
    return x, axis


@given(_hardmax_case())
def test_hardmax_property_vs_reference(case):
    x, axis = case
    assert_matches(simdops.hardmax(x, axis), hardmax(x, axis), x)
