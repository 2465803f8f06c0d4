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


def _lazy_bit(obj):
    """The lazy sign bit a torch view carries ("negative" or "conjugate"), or None.
    DLPack has no such bit: such a view exports its stored values, so the reader
    would see -v (or the conjugate) without knowing."""
    for bit in ("neg", "conj"):
        probe = getattr(obj, f"is_{bit}", None)
        if callable(probe):
            try:
                if probe():
                    return "negative" if bit == "neg" else "conjugate"
            except Exception:  # not torch's method: nothing to resolve
                pass
    return None


def _resolve_lazy_bits(obj):
    """A tensor whose lazy negation / conjugation is applied (a copy), or obj."""
    if _lazy_bit(obj) is None:
        return obj
    for method in ("resolve_conj", "resolve_neg"):
        resolve = getattr(obj, method, None)
        if callable(resolve):
            obj = resolve()
    return obj


def _call(obj, method: str, name: str, *args):
    """obj.method(*args); any failure but MemoryError becomes a TypeError naming
    the argument and the method, with the original chained."""
    try:
        return getattr(obj, method)(*args)
    except MemoryError:
        raise
    except Exception as e:
        raise TypeError(f"{name}: {type(obj).__name__}.{method}() raised "
                        f"{type(e).__name__}: {e}") from e


def _from_dlpack(obj, name: str) -> np.ndarray:
    """A zero-copy numpy view of a CPU DLPack tensor."""
    if getattr(obj, "is_meta", False) is True:  # torch's meta device: shapes without data
        raise ValueError(f"{name} is a {type(obj).__name__} on the meta device, which holds "
                         f"no data; simdops needs a CPU tensor")
    if getattr(obj, "__dlpack_device__", None) is not None:
        dev = _call(obj, "__dlpack_device__", name)
        try:
            on_cpu = int(dev[0]) == _DLPACK_CPU
        except (TypeError, ValueError, IndexError):
            on_cpu = False
        if not on_cpu:
            raise ValueError(f"{name} is a {type(obj).__name__} on {_device_name(dev)}; simdops "
                             f"runs on the CPU (move it there first, e.g. tensor.cpu())")
    try:
        return np.from_dlpack(obj)
    except MemoryError:
        raise
    except BufferError as e:  # e.g. torch: "Can't export tensors that require gradient"
        raise TypeError(f"{name}: {type(obj).__name__} refused to export its memory through "
                        f"DLPack ({e})") from e
    except (RuntimeError, TypeError, ValueError) as e:  # e.g. a dtype numpy has no match for
        raise TypeError(f"{name}: cannot view {type(obj).__name__} through DLPack ({e})") from e
    except Exception as e:  # the producer's own failure (__dlpack__ raising anything)
        raise TypeError(f"{name}: {type(obj).__name__}.__dlpack__() raised "
                        f"{type(e).__name__}: {e}") from e


def as_dtype(value, name: str) -> np.dtype:
    """np.dtype(value); what numpy raises for a spelling it cannot read (TypeError,
    ValueError, and SyntaxError for a string such as ',', which it parses as a Python
    literal) becomes one TypeError naming the argument. The one place of that rule: the
    core, the runtimes helpers and the ONNX layer all ask here."""
    try:
        return np.dtype(value)
    except (TypeError, ValueError, SyntaxError):
        raise TypeError(f"{name} {value!r} is not a dtype") from None


def int_text(v) -> str:
    """An int for a message: its digits up to 128 bits of it, else its size (str() of a
    huge int is slow, and past 4,300 digits Python refuses to make it)."""
    n = int(v)
    if n.bit_length() <= 128:
        return str(n)
    return f"{'-' if n < 0 else ''}<an int of {n.bit_length()} bits>"


def _non_numbers(arr: np.ndarray):
    """The elements of an object array that are not real numbers (lazily)."""
    return (v for v in arr.flat
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number))
            or isinstance(v, np.complexfloating))


def _refuse_non_numeric(obj, arr: np.ndarray, name: str, int32: bool) -> None:
    """np.asarray gave strings or Python objects: say what is wrong with the
    values, instead of the buffer format ('O', '<U1') they would reach C as."""
    if arr.dtype.kind in "USV":
        raise TypeError(f"{name} must hold numbers, got {arr.dtype} values "
                        f"({type(obj).__name__} of strings or bytes)")
    if arr.dtype.kind != "O":
        return
    if arr.ndim == 0 and not isinstance(arr[()], (int, float)):
        raise TypeError(f"{name} must be an array-like of numbers (buffer, DLPack tensor, "
                        f"list, scalar), got {type(obj).__name__}")
    for bad in _non_numbers(arr):
        raise TypeError(f"{name} must hold ints or floats, got an element {bad!r} of type "
                        f"{type(bad).__name__}")
    # only Python ints numpy could not fit in int64 / uint64 are left
    if int32:
        raise ValueError(f"{name} has values outside the int32 range")
    raise ValueError(f"{name} holds integers that no 64-bit integer type holds "
                     f"(e.g. {int_text(max(arr.flat, key=abs))})")


def as_input(obj, name: str, int32: bool = False) -> np.ndarray:
    """An input without the buffer protocol as a numpy array (a view where possible).

    int32: the op takes int32 only (requant). Python ints have no width of their
    own and numpy would make them int64, so plain ints (lists, tuples, scalars —
    objects without a dtype; an empty list too) become int32, and a value that
    does not fit is a ValueError rather than a wrap-around. Typed objects keep
    their dtype.

    A torch view with a lazy negative or conjugate bit is read through a copy
    that applies it (DLPack would export the values without the sign)."""
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(_resolve_lazy_bits(obj), name)
    try:
        arr = np.asarray(obj)
    except Exception as e:  # ragged lists, objects whose __array__ fails, ...
        raise TypeError(f"{name} must be an array-like (buffer, DLPack tensor, list, scalar), "
                        f"got {type(obj).__name__}: {e}") from None
    if arr.dtype.kind in "OUSV":
        _refuse_non_numeric(obj, arr, name, int32)
    if arr.dtype.kind in "mM":
        raise TypeError(f"{name} has dtype {arr.dtype}; datetime64 and timedelta64 are not "
                        f"numbers simdops computes on (view them as int64 first)")
    if int32 and not hasattr(obj, "dtype") and arr.dtype != np.int32 and (
            arr.dtype.kind in "iu" or arr.size == 0):
        if arr.size and (arr.min() < -(1 << 31) or arr.max() >= (1 << 31)):
            raise ValueError(f"{name} has values outside the int32 range")
        arr = arr.astype(np.int32)
    return arr


def as_output(obj, name: str) -> np.ndarray:
    """A writable numpy view of a DLPack tensor given as `out`."""
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"{name} must be a writable buffer (numpy array, memoryview, ...) or a "
                        f"writable DLPack tensor (torch.Tensor, ...), got {type(obj).__name__}")
    bit = _lazy_bit(obj)
    if bit is not None:  # writing through DLPack would store the values without the sign
        raise ValueError(f"{name} is a {type(obj).__name__} view with the {bit} bit set; "
                         f"simdops cannot write through it (DLPack drops that bit): pass a "
                         f"tensor without it and copy the result over")
    arr = _from_dlpack(obj, name)
    if not arr.flags.writeable:
        raise ValueError(f"{name} must be writable: the {type(obj).__name__} is exported "
                         f"read-only through DLPack")
    return arr
