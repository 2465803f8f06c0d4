"""simdops: bit-exact SIMD CPU kernels for DirectML's CLIP, SHRINK, HARDMAX and
Arm Compute Library's gemmlowp output stage.

The array API: clip, shrink, hardmax, quantize_down_int32, quantize_down_int32_to_uint8,
quantize_multiplier (each documented: help(simdops.clip)); ISA control: isa,
available_isas, use_isa; C/Cython reuse: get_include. Descriptor layers: simdops.dml
(DirectML), simdops.acl (Arm Compute Library); Dask: simdops.dask.
"""
import os as _os

from simdops import _core
from simdops._core import (clip, hardmax, quantize_down_int32, quantize_down_int32_to_uint8,
                           shrink)
from simdops._quantize import quantize_multiplier

__version__ = "0.1.0"
__all__ = [
    "clip", "shrink", "hardmax", "quantize_down_int32_to_uint8", "quantize_down_int32",
    "quantize_multiplier", "isa", "available_isas", "use_isa", "get_include",
]


def isa() -> str:
    """The calling thread's ISA: its use_isa tier inside a use_isa block, else
    the process tier ("scalar", "sse2", "sse41", "avx2" or "neon")."""
    return _core.isa()


def available_isas() -> tuple:
    """ISAs compiled into this build and supported by this CPU, lowest first."""
    return _core.available_isas()


class use_isa:
    """Context manager forcing one ISA for the calling thread inside the block
    (tests, benchmarks). Other threads keep theirs; blocks nest."""

    def __init__(self, name: str):
        if name not in _core.available_isas():
            raise ValueError(f"ISA {name!r} is not available here; available: "
                             f"{', '.join(_core.available_isas())}")
        self.name = name
        self._previous = []

    def __enter__(self):
        self._previous.append(_core.thread_isa())
        _core.set_thread_isa(self.name)
        return self.name

    def __exit__(self, *exc):
        _core.set_thread_isa(self._previous.pop())
        return False


def get_include() -> str:
    """Directory holding simdops/*.h (C headers) for C/Cython extensions."""
    return _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "include")


def _select_isa_from_environment():
    name = _os.environ.get("SIMDOPS_ISA", "").strip()
    if not name:
        return
    if name not in _core.available_isas():
        raise ImportError(f"SIMDOPS_ISA={name!r} is not available on this CPU/build; "
                          f"available: {', '.join(_core.available_isas())}")
    _core.set_process_isa(name)


_select_isa_from_environment()
