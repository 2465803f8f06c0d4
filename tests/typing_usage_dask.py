"""A user's script calling every simdops.dask function, checked by `mypy --strict`
(ci/typecheck.sh) against the installed simdops/dask.pyi, and run by
tests/test_packaging.py (when dask is installed) so it stays correct at run time."""
from __future__ import annotations

from typing import Any, Callable, cast

import dask.array as da
import numpy as np
from numpy.typing import NDArray

import simdops
import simdops.dask as sd

# dask's own functions are unannotated, so mypy --strict refuses calls to them; a user
# names the few they need with a type (every simdops.dask call below stays fully checked)
from_array = cast(Callable[..., da.Array], da.from_array)
compute = cast(Callable[[da.Array], Any], da.Array.compute)
total = cast(Callable[[da.Array], da.Array], da.Array.sum)


def dask_api() -> None:
    x = from_array(np.linspace(-4, 4, 64, dtype=np.float32).reshape(8, 8), chunks=(4, 4))
    y: da.Array = sd.clip(x, -1.0, 1.0)
    computed: NDArray[np.float32] = compute(y)
    assert np.array_equal(computed, simdops.clip(compute(x), -1.0, 1.0))
    assert sd.clip(x, None, 2, scale=0.5, bias=1.0).dtype == np.float32
    assert sd.shrink(x, bias=0.1, threshold=0.5).shape == (8, 8)
    assert int(compute(total(sd.hardmax(x, axis=-1)))) == 8
    assert int(compute(total(sd.hardmax(x, axis=(0, 1))))) == 1

    acc = from_array(np.arange(-60, 60, dtype=np.int32).reshape(4, 30), chunks=(2, 10))
    m, shift = simdops.quantize_multiplier(0.0123)
    q = sd.quantize_down_int32_to_uint8(acc, m, shift, 128, bias=np.zeros(30, np.int32),
                                        min=0, max=255)
    assert q.dtype == np.uint8
    multipliers = from_array(np.full(30, m, np.int32), chunks=10)
    q8 = sd.quantize_down_int32(acc, multipliers, [shift] * 30, -3, out_dtype="int8")
    assert np.array_equal(compute(q8), simdops.quantize_down_int32(
        compute(acc), m, shift, -3, out_dtype="int8"))


def main() -> None:
    dask_api()


if __name__ == "__main__":
    main()
