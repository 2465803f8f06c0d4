"""simdops.dask.requantize_fp32 with the chain's keywords (oneDNN's scales, OpenVINO's
offset, fbgemm's float bias, add-half rounding, float64 per-channel scales): the lazy
graph's blocks give the bits of the numpy call on the whole array, per-channel vectors given
as numpy or dask arrays chunked differently from x."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import simdops  # noqa: E402
import simdops.dask as sd  # noqa: E402

CH = 11
MODES = [
    dict(pre_scale=0.5, post_scale=2.0),
    dict(post_divide=3.0, offset=0.25, ties="away"),
    dict(bias="float", ties="add_half"),
    dict(bias="float", bias_at="scaled", pre_scale=0.125),
    dict(precision="float64", ties="away", scale64=True),
]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: "-".join(f"{k}={v}" for k, v in m.items()))
@pytest.mark.parametrize("dask_vectors", [False, True])
def test_dask_requantize_fp32_chain_matches_numpy(mode, dask_vectors):
    rng = np.random.default_rng(len(str(mode)) + dask_vectors)
    x = rng.integers(-400_000, 400_000, (9, CH)).astype(np.int32)
    x[0, :CH] = (np.arange(CH) * 1000 + 500).astype(np.int32)     # halves at scale 1/1000
    kw = dict(mode)
    scale = np.linspace(1 / 1300, 1 / 700, CH)
    scale = scale if kw.pop("scale64", False) else scale.astype(np.float32)
    bias = None
    if kw.pop("bias", None) == "float":
        bias = ((np.arange(CH) - 5) * 2.5).astype(np.float32)
    want = simdops.requantize_fp32(x, scale, 3, bias=bias, out_dtype="int8", **kw)
    vs, vb = scale, bias
    if dask_vectors:
        vs = da.from_array(scale, chunks=4)
        vb = None if bias is None else da.from_array(bias, chunks=5)
    lazy = sd.requantize_fp32(da.from_array(x, chunks=(4, 3)), vs, 3, bias=vb, out_dtype="int8",
                              **kw)
    got = lazy.compute(scheduler="threads")
    assert got.dtype == np.int8
    assert np.array_equal(got, want)
    # and per tensor
    want = simdops.requantize_fp32(x, 1 / 1000, 3, out_dtype="int8", **kw)
    got = sd.requantize_fp32(da.from_array(x, chunks=(4, 3)), 1 / 1000, 3, out_dtype="int8",
                             **kw).compute(scheduler="threads")
    assert np.array_equal(got, want)
