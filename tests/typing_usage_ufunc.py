"""mypy --strict on a user script calling simdops.ufunc (ci/typecheck.sh)."""
import numpy as np
import numpy.typing as npt

import simdops.ufunc


def per_channel(acc: npt.NDArray[np.int32], scale: npt.NDArray[np.float32]) -> object:
    y: object = simdops.ufunc.requantize_fp32(acc, scale[:, None, None], np.int8(0))
    z: object = simdops.ufunc.clip(acc, -5, 5)
    h: object = simdops.ufunc.hardmax(scale, axis=-1)
    q: object = simdops.ufunc.quantize_down_int32(acc, 1 << 30, 4, 10, dtype=np.int8)
    return (y, z, h, q, simdops.ufunc.__all__)
