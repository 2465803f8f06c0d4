"""A user's script calling every public simdops function, checked by
`mypy --strict` (ci/typecheck.sh) against the installed stubs, and run by
tests/test_packaging.py so it stays correct at run time too."""
from __future__ import annotations

import array

import numpy as np
from numpy.typing import NDArray

import simdops
from simdops import acl, dml


def array_api() -> None:
    x = np.linspace(-4, 4, 64, dtype=np.float32)
    out = np.empty_like(x)
    y: NDArray[np.float32] = simdops.clip(x, -1.0, 1.0, out=out)
    assert y is out
    lowest: float | None = -float("inf")  # None (the type's lowest) is accepted too
    clipped = simdops.clip(x, lowest, 2, scale=0.5, bias=1.0)
    assert clipped.shape == x.shape and float(clipped.max()) <= 2.0
    doubles = simdops.clip(np.array([1.5, -3.0]), -1, 1)
    assert doubles.tolist() == [1.0, -1.0]
    buf = array.array("f", [0.25, -2.0])
    assert simdops.clip(buf, -1, 1, out=buf) is buf and buf[1] == -1.0
    mv = memoryview(bytearray(8)).cast("f")
    src = memoryview(np.array([1.0, -1.0], np.float32).tobytes()).cast("f")
    simdops.shrink(src, 0.25, 0.5, out=mv)
    assert mv.tolist() == [0.75, -0.75]
    s = simdops.shrink(x, bias=0.1, threshold=0.5)
    assert s.dtype == np.float32
    h = simdops.hardmax(x.reshape(8, 8), axis=-1)
    assert int(h.sum()) == 8
    h2 = simdops.hardmax(x.reshape(2, 4, 8), axis=(1, 2), out=np.empty((2, 4, 8), np.float32))
    assert int(h2.sum()) == 2

    acc = np.arange(-60, 60, dtype=np.int32).reshape(4, 30)
    m, shift = simdops.quantize_multiplier(0.0123)
    assert isinstance(m, int) and isinstance(shift, int)
    ms, shifts = simdops.quantize_multiplier(np.array([0.5, 0.0123]), convention="xnnpack")
    assert ms.dtype == np.int32 and shifts.shape == (2,)
    q = simdops.quantize_down_int32_to_uint8(acc, m, shift, 128, bias=np.zeros(30, np.int32),
                                             min=0, max=255)
    assert q.dtype == np.uint8
    q8 = simdops.quantize_down_int32(acc, m, shift, -3, out_dtype="int8")
    assert q8.dtype == np.int8
    q16 = simdops.quantize_down_int32(acc, [m] * 30, [shift] * 30, min=-100, max=100,
                                      out_dtype="int16", out=np.empty((4, 30), np.int16))
    assert q16.dtype == np.int16
    qs = simdops.quantize_down_int32(acc, m, shift, 3, out_dtype="int8", rounding="single")
    assert qs.dtype == np.int8
    qf = simdops.requantize_fp32(acc, 0.0123, 128)
    assert qf.dtype == np.uint8
    qc = simdops.requantize_fp32(acc, np.full(30, 0.01, np.float32), 0, out_dtype="int8",
                                 precision="float64", ties="away", out=np.empty((4, 30), np.int8))
    assert qc.dtype == np.int8


def isa_and_threads() -> None:
    active: str = simdops.isa()
    isas: tuple[str, ...] = simdops.available_isas()
    assert active in isas
    with simdops.use_isa("scalar") as name:
        assert name == "scalar" and simdops.isa() == "scalar"
    assert simdops.isa() == active
    include: str = simdops.get_include()
    assert include
    version: str = simdops.__version__
    assert version
    if hasattr(simdops, "set_num_threads"):  # arrives with the thread pool
        before: int = simdops.get_num_threads()
        simdops.set_num_threads(2)
        assert simdops.get_num_threads() == 2
        simdops.set_num_threads(before)


def directml() -> None:
    t = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (2, 3))
    assert dml.calc_buffer_tensor_size(dml.TensorDataType.FLOAT32, (2, 3)) == 24
    x = np.arange(6, dtype=np.float32) - 3
    y = np.empty(6, np.float32)
    descs: list[dml._OperatorDesc] = [
        dml.ElementWiseClipOperatorDesc(t, t, -1.0, 1.0, dml.ScaleBias(1.0, 0.0)),
        dml.ElementWiseClip1OperatorDesc(t, t, dml.TensorDataType.FLOAT32, -1.0, 1.0),
        dml.ActivationShrinkOperatorDesc(t, t, bias=0.5, threshold=1.0),
        dml.ActivationHardmaxOperatorDesc(t, t),
        dml.ActivationHardmax1OperatorDesc(t, t, axes=(1,)),
    ]
    for desc in descs:
        op = dml.compile_operator(desc, dml.FeatureLevel.FL_6_4)
        assert op.feature_level == dml.FeatureLevel.FL_6_4 and op.operator
        op.execute(x, y)
    try:
        dml.compile_operator(dml.ActivationShrinkOperatorDesc(t, t, threshold=-1.0))
    except dml.InvalidArgumentError as e:
        assert "threshold" in str(e).lower()
    else:
        raise AssertionError("a negative threshold must be rejected")


def arm_compute() -> None:
    x = np.arange(-8, 8, dtype=np.int32).reshape(2, 8) * 1000
    out = np.empty((2, 8), np.uint8)
    info = acl.TensorInfo.from_array(x)
    assert info.num_dimensions() == 2 and info.dimension(0) == 8
    status = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint.validate(
        info, None, acl.TensorInfo((2, 8), acl.DataType.QASYMM8))
    assert status and status.error_code() == acl.ErrorCode.OK
    f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint()
    f.configure(x, None, out, 1 << 30, 4, 100)
    f.run()
    stage = acl.GEMMLowpOutputStage()
    stage_info = acl.GEMMLowpOutputStageInfo(
        gemmlowp_offset=1, gemmlowp_multiplier=1 << 30, gemmlowp_shift=3,
        gemmlowp_min_bound=-128, gemmlowp_max_bound=127,
        output_data_type=acl.DataType.QASYMM8_SIGNED)
    out8 = np.empty((2, 8), np.int8)
    assert acl.GEMMLowpOutputStage.validate(x, None, out8, stage_info)
    stage.configure(x, None, out8, stage_info)
    stage.run()
    assert acl.DataType.QASYMM8.numpy_dtype == np.dtype(np.uint8)


def main() -> None:
    array_api()
    isa_and_threads()
    directml()
    arm_compute()


if __name__ == "__main__":
    main()
    print("typing_usage: OK")
