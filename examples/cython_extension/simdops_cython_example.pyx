# cython: language_level=3, boundscheck=False, wraparound=False
"""simdops kernels called from Cython: typed memoryviews in, nogil kernel calls
through the simdops._C_API capsule (`from simdops cimport capi`).

float16 data is passed as a uint16 view (x.view(np.uint16)) with float16=True,
since C has no half type.
"""
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from simdops cimport capi

capi.import_simdops()  # once, at import: ImportError if simdops is missing or too old

ctypedef fused element:  # every dtype clip supports (shrink: all but the 64-bit ints)
    float
    double
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    int64_t
    uint64_t

ctypedef fused hardmax_element:
    float
    double
    uint16_t  # float16 bits

ctypedef fused requant_out:
    uint8_t
    int8_t
    int16_t


cdef capi.dtype_t dtype_of(element[::1] view, bint float16) except capi.UNKNOWN:
    if element is float:
        return capi.FLOAT32
    elif element is double:
        return capi.FLOAT64
    elif element is int8_t:
        return capi.INT8
    elif element is uint8_t:
        return capi.UINT8
    elif element is int16_t:
        return capi.INT16
    elif element is uint16_t:
        return capi.FLOAT16 if float16 else capi.UINT16
    elif element is int32_t:
        return capi.INT32
    elif element is uint32_t:
        return capi.UINT32
    elif element is int64_t:
        return capi.INT64
    else:
        return capi.UINT64


cdef capi.number_t number(object v) except *:
    """A Python int (exactly) or float as a simdops number."""
    if isinstance(v, int):
        return capi.int_number(v) if v <= 0x7fffffffffffffff else capi.uint_number(v)
    return capi.float_number(v)


def clip(const element[::1] x, element[::1] y, lo, hi, bint float16=False):
    """y = clip(x, lo, hi): one prepared handle, one 1-D kernel call without the GIL."""
    cdef capi.prepared_t prepared
    cdef capi.error_t err
    cdef int status
    if x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have the same length")
    capi.check(capi.prepare_clip(dtype_of(y, float16), number(lo), number(hi), NULL, NULL,
                                 &prepared, &err), &err)
    with nogil:
        status = capi.clip_1d(&prepared, &x[0] if x.shape[0] else NULL,
                              &y[0] if y.shape[0] else NULL, x.shape[0], &err)
    capi.check(status, &err)


def shrink(const element[::1] x, element[::1] y, bias, threshold, bint float16=False):
    """y = shrink(x, bias, threshold) with the 1-D kernel, without the GIL."""
    cdef capi.prepared_t prepared
    cdef capi.error_t err
    cdef int status
    if x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have the same length")
    capi.check(capi.prepare_shrink(dtype_of(y, float16), number(bias), number(threshold),
                                   &prepared, &err), &err)
    with nogil:
        status = capi.shrink_1d(&prepared, &x[0] if x.shape[0] else NULL,
                                &y[0] if y.shape[0] else NULL, x.shape[0], &err)
    capi.check(status, &err)


def hardmax(const hardmax_element[:, ::1] x, hardmax_element[:, ::1] y):
    """Hardmax over each row of a C-contiguous 2-D block (uint16 views are float16)."""
    cdef capi.error_t err
    cdef int status
    cdef capi.dtype_t dtype = (capi.FLOAT32 if hardmax_element is float else
                               capi.FLOAT64 if hardmax_element is double else capi.FLOAT16)
    if x.shape[0] != y.shape[0] or x.shape[1] != y.shape[1]:
        raise ValueError("x and y must have the same shape")
    cdef bint empty = x.shape[0] == 0 or x.shape[1] == 0
    with nogil:
        status = capi.hardmax_rows(dtype, &x[0, 0] if not empty else NULL,
                                   &y[0, 0] if not empty else NULL, x.shape[0], x.shape[1], &err)
    capi.check(status, &err)


def requant(const int32_t[:, ::1] x, requant_out[:, ::1] y, multiplier, shift, int64_t offset,
            int64_t lo, int64_t hi, const int32_t[::1] bias=None):
    """ACL's output stage row by row; multiplier and shift: ints (per tensor) or
    int32 arrays of one value per channel (x's last dimension)."""
    cdef capi.prepared_t prepared
    cdef capi.error_t err
    cdef int status = capi.OK
    cdef Py_ssize_t row, channels = x.shape[1]
    cdef bint per_channel = not isinstance(multiplier, int)
    cdef const int32_t[::1] multipliers = multiplier if per_channel else None
    cdef const int32_t[::1] shifts = shift if per_channel else None
    cdef const int32_t *bias_ptr = &bias[0] if bias is not None and channels else NULL
    cdef capi.dtype_t out_dtype = (capi.UINT8 if requant_out is uint8_t else
                                   capi.INT8 if requant_out is int8_t else capi.INT16)
    if x.shape[0] != y.shape[0] or x.shape[1] != y.shape[1]:
        raise ValueError("x and y must have the same shape")
    if ((bias is not None and bias.shape[0] != channels) or
            (per_channel and (multipliers.shape[0] != channels or shifts.shape[0] != channels))):
        raise ValueError("per-channel vectors need one value per channel")
    capi.check(capi.prepare_requant(out_dtype, 0 if per_channel else multiplier,
                                    0 if per_channel else shift, offset, &lo, &hi,
                                    &prepared, &err), &err)
    if channels == 0:
        return
    with nogil:
        for row in range(x.shape[0]):
            if per_channel:
                status = capi.requant_pc_1d(&prepared, &x[row, 0], &y[row, 0], channels,
                                            bias_ptr, &multipliers[0], &shifts[0], &err)
            else:
                status = capi.requant_1d(&prepared, &x[row, 0], &y[row, 0], channels, bias_ptr,
                                         &err)
            if status != capi.OK:
                break
    capi.check(status, &err)


def isa():
    """The ISA simdops uses on the calling thread."""
    return capi.isa().decode()
