# The int8 matmul accumulators (included by _core.pyx). Translation only: C
# checks the views (2-D, dtypes, K, out's shape) and runs.


def int8_matmul_accumulators(a, w, *, pair_saturation=False, out=None):
    """The int32 accumulators of an int8 matmul ``a @ w``, exactly or as x86 CPUs
    without VNNI compute them.

    Parameters
    ----------
    a : array-like
        uint8 or int8, shape [M, K] (activations; a convolution's im2col rows).
    w : array-like
        int8, shape [K, N] (weights, one column per output channel).
    pair_saturation : bool
        False: the exact sums. True: ``VPMADDUBSW``'s arithmetic, what oneDNN,
        OpenVINO and PyTorch's x86 int8 paths compute on AVX2 CPUs without VNNI:
        the products of each pair ``(2p, 2p + 1)`` along K are summed and saturated
        to int16 (an odd K's last element pairs with 0), then the pair sums are
        added in int32. An int8 ``a`` enters as the uint8 ``a + 128`` and
        ``128 * w.sum(0)`` is subtracted (oneDNN's s8 x s8 compensation), which
        saturates differently from int8 pairs.
    out : writable buffer, optional
        int32 [M, N]; may overlap ``a`` or ``w``.

    Returns
    -------
    numpy.ndarray (int32 [M, N]) or ``out``

    Notes
    -----
    Sums wrap in int32 as the runtimes' int32 adds do: exact for K < 2**16.
    Zero points are not applied: subtract ``a_zp * w.sum(0)`` (and add the bias)
    yourself, in int32, as the runtimes do. Every ISA gives identical bits; the
    GIL is released. docs/requantization.md ("Accumulators") says which runtime
    and CPU computes which.

    Examples
    --------
    >>> import numpy as np, simdops
    >>> a = np.array([[255, 255]], np.uint8); w = np.array([[127], [127]], np.int8)
    >>> simdops.int8_matmul_accumulators(a, w)
    array([[64770]], dtype=int32)
    >>> simdops.int8_matmul_accumulators(a, w, pair_saturation=True)
    array([[32767]], dtype=int32)
    """
    cdef _Buf ab = _buf(a, "a")
    cdef _Buf wb = _buf(w, "w")
    cdef _Buf ob
    cdef simdops_error err
    cdef int status
    cdef int sat
    if type(pair_saturation) is not bool:
        raise TypeError(f"pair_saturation must be a bool, got {type(pair_saturation).__name__}")
    sat = 1 if pair_saturation else 0
    if out is None:
        shape = (ab.shape[0] if len(ab.shape) == 2 else 0,
                 wb.shape[1] if len(wb.shape) == 2 else 0)
        ob = _buf(np.empty(shape, dtype=np.int32), "out", True)
    else:
        ob = _buf(out, "out", True)
    with nogil:
        status = simdops_int8_matmul_accumulators(&ab.t, &wb.t, &ob.t, sat, &err)
    if status:
        _raise(&err)
    return ob.obj
