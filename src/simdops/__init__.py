"""simdops: bit-exact SIMD CPU kernels for DirectML's CLIP, SHRINK, HARDMAX, Arm Compute
Library's gemmlowp output stages, the requantization of LiteRT / TFLite, ONNX Runtime,
XNNPACK and PyTorch, and ONNX's Clip, Shrink, Hardmax, QuantizeLinear and DequantizeLinear.

The array API: clip, shrink, hardmax, quantize_down_int32, quantize_down_int32_to_uint8,
requantize_fp32, quantize_multiplier (each documented: help(simdops.clip)); ISA control: isa,
available_isas, use_isa; C/Cython reuse: get_include. Descriptor layers: simdops.dml
(DirectML), simdops.acl (Arm Compute Library); ONNX's semantics: simdops.onnx; Dask:
simdops.dask.
"""
import os as _os
import threading as _threading

from simdops import _core
from simdops._core import _C_API  # the C API capsule (simdops/simdops_capi.h)
# the array API is _core's: the names its __all__ lists (a new op is named there only)
from simdops._core import *  # noqa: F401,F403
from simdops._core import set_num_threads
from simdops._quantize import quantize_multiplier

from simdops._version import __version__
__all__ = list(_core.__all__) + [
    "quantize_multiplier", "isa", "available_isas", "use_isa", "get_include",
]


def isa() -> str:
    """The calling thread's ISA: its use_isa tier inside a use_isa block, else
    the process tier ("scalar", "sse2", "sse41", "avx2", "avx512" or "neon")."""
    return _core.isa()


def available_isas() -> tuple:
    """ISAs compiled into this build and supported by this CPU, lowest first."""
    return _core.available_isas()


class use_isa:
    """Context manager forcing one ISA for the calling thread inside the block
    (tests, benchmarks). Other threads keep theirs; blocks nest, and one
    use_isa object may be entered by several threads at once."""

    def __init__(self, name: str):
        if name not in _core.available_isas():
            raise ValueError(f"ISA {name!r} is not available here; available: "
                             f"{', '.join(_core.available_isas())}")
        self.name = name
        # the tiers to restore, per thread: the forced tier itself is a C
        # thread-local, so a shared object must not carry one thread's
        # previous tier into another's __exit__
        self._previous = _threading.local()

    def _stack(self) -> list:
        stack = getattr(self._previous, "stack", None)
        if stack is None:
            stack = self._previous.stack = []
        return stack

    def __enter__(self):
        self._stack().append(_core.thread_isa())
        _core.set_thread_isa(self.name)
        return self.name

    def __exit__(self, *exc):
        _core.set_thread_isa(self._stack().pop())
        return False


def get_include() -> str:
    """Directory holding ``simdops/*.h``, the C headers for extensions (include
    ``simdops/simdops_capi.h``; see docs/c-api.md). Cython: ``from simdops cimport
    capi`` needs no include path for the .pxd, only this one for the headers."""
    return _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "include")


def _select_isa_from_environment():
    name = _os.environ.get("SIMDOPS_ISA", "").strip()
    if not name:
        return
    if name not in _core.available_isas():
        raise ImportError(f"SIMDOPS_ISA={name!r} is not available on this CPU/build; "
                          f"available: {', '.join(_core.available_isas())}")
    _core.set_process_isa(name)


def _threads_from_environment():
    value = _os.environ.get("SIMDOPS_NUM_THREADS", "").strip()
    if not value:
        return
    try:
        set_num_threads(int(value))
    except ValueError as e:
        raise ImportError(f"SIMDOPS_NUM_THREADS={value!r}: {e}") from None


def _register_with_threadpoolctl():
    """threadpoolctl, when installed, sees and limits simdops' threads."""
    try:
        from simdops import _threadpoolctl
    except ImportError:
        return
    _threadpoolctl.register()


_select_isa_from_environment()
_threads_from_environment()
_register_with_threadpoolctl()
