"""The slow path of argument intake: objects without the buffer protocol.

The array API takes anything with the buffer protocol directly (the zero-copy
fast path, handled in _core.pyx before this module is ever called). Other
objects are turned into numpy arrays here:

- objects with ``__dlpack__`` (torch, JAX on the CPU, TensorFlow, CuPy...) are
  viewed zero-copy through ``np.from_dlpack``; a tensor on another device, or
  one its owner will not export (a torch tensor that requires grad) is refused
  with a message that says what to do;
- anything else goes through ``np.asarray`` (lists, tuples, Python and numpy
  scalars, objects with ``__array__``), exactly as numpy's own functions do.

An ``out`` argument must be writable memory the caller owns, so only the
first route is open to it: ``np.asarray`` of a list would write into a
temporary that nobody sees.
"""
import numpy as np

# DLDeviceType values (dlpack.h) for the error message; kDLCPU = 1 is the only
# one whose memory simdops can address.
_DLPACK_CPU = 1
_DLPACK_DEVICES = {
    2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal", 9: "vpi", 10: "rocm",
    11: "rocm_host", 12: "ext_dev", 13: "cuda_managed", 14: "oneapi", 15: "webgpu",
    16: "hexagon", 17: "maia",
}


def _device_name(device) -> str:
    try:
        kind, index = device
        return f"{_DLPACK_DEVICES.get(int(kind), f'device type {int(kind)}')}:{int(index)}"
    except (TypeError, ValueError):
        return repr(device)


def _from_dlpack(obj, name: str) -> np.ndarray:
    """A zero-copy numpy view of a CPU DLPack tensor."""
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None:
        dev = device()
        try:
            on_cpu = int(dev[0]) == _DLPACK_CPU
        except (TypeError, ValueError, IndexError):
            on_cpu = False
        if not on_cpu:
            raise ValueError(f"{name} is a {type(obj).__name__} on {_device_name(dev)}; simdops "
                             f"runs on the CPU (move it there first, e.g. tensor.cpu())")
    try:
        return np.from_dlpack(obj)
    except BufferError as e:  # e.g. torch: "Can't export tensors that require gradient"
        raise TypeError(f"{name}: {type(obj).__name__} refused to export its memory through "
                        f"DLPack ({e})") from None
    except (RuntimeError, TypeError, ValueError) as e:  # e.g. a dtype numpy has no match for
        raise TypeError(f"{name}: cannot view {type(obj).__name__} through DLPack ({e})") from None


def as_input(obj, name: str, int32: bool = False) -> np.ndarray:
    """An input without the buffer protocol as a numpy array (a view where possible).

    int32: the op takes int32 only (requant). Python ints have no width of their
    own and numpy would make them int64, so plain ints (lists, tuples, scalars —
    objects without a dtype) become int32, and a value that does not fit is a
    ValueError rather than a wrap-around. Typed objects keep their dtype."""
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, name)
    try:
        arr = np.asarray(obj)
    except Exception as e:  # ragged lists, objects whose __array__ fails, ...
        raise TypeError(f"{name} must be an array-like (buffer, DLPack tensor, list, scalar), "
                        f"got {type(obj).__name__}: {e}") from None
    if int32 and arr.dtype.kind in "iu" and not hasattr(obj, "dtype") and arr.dtype != np.int32:
        if arr.size and (arr.min() < -(1 << 31) or arr.max() >= (1 << 31)):
            raise ValueError(f"{name} has values outside the int32 range")
        arr = arr.astype(np.int32)
    return arr


def as_output(obj, name: str) -> np.ndarray:
    """A writable numpy view of a DLPack tensor given as `out`."""
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"{name} must be a writable buffer (numpy array, memoryview, ...) or a "
                        f"writable DLPack tensor (torch.Tensor, ...), got {type(obj).__name__}")
    arr = _from_dlpack(obj, name)
    if not arr.flags.writeable:
        raise ValueError(f"{name} must be writable: the {type(obj).__name__} is exported "
                         f"read-only through DLPack")
    return arr
