# DirectML execute in one call: a fragment of _core.pyx (included by it, not a
# module of its own), owned by the descriptor layer simdops.dml.
#
# simdops.dml keeps DirectML's binding rules (buffer size, base alignment,
# in-place aliasing) and their messages; this fragment only gives it what
# Python cannot get cheaply: each binding's address and length, checked in
# one pass before the kernel runs on the StridedPlan's views. Parameter,
# layout and overlap-of-elements rules stay in C (StridedPlan, Prepared).


def float32_value(v):
    """A Python number as the float32 C makes of it (one rounding, overflow to
    ±inf, ints of any size exact): the value of a DirectML FLOAT field. NaN
    passes through (the rules that refuse it report it)."""
    cdef simdops_number n
    cdef simdops_prepared p
    cdef simdops_error err
    cdef float zero = 0.0, out
    if type(v) is float and v != v:
        return v
    n = _number(v, "value")
    if n.kind == SIMDOPS_NUM_FLOAT and n.f != n.f:
        return float(v)
    # clip of 0 to [v, v] is v converted to float32 by C's one conversion rule
    if (simdops_prepare_clip(SIMDOPS_FLOAT32, n, n, NULL, NULL, &p, &err) or
            simdops_clip_1d(&p, &zero, &out, 1, &err)):
        _raise(&err)
    return out


cdef class BoundPlan(StridedPlan):
    """A StridedPlan with a DirectML binding per call.

    BoundPlan(op, dtype, sizes, in_strides, out_strides, params, in_total,
    out_total, in_align, out_align, alias_ok): the StridedPlan arguments, then
    each tensor's TotalTensorSizeInBytes and GuaranteedBaseOffsetAlignment
    (0: none) and whether overlapping bindings may run as an exact alias (same
    address).

    execute(input, output) runs and returns None, or returns the first binding
    rule that fails, without running, as a tuple the caller words:
      ("type", which)            not a buffer
      ("contiguous", which)      not one C-contiguous range of bytes
      ("readonly", "output")     output not writable
      ("size", which, nbytes)    fewer bytes than the tensor's total size
      ("align", which, address)  address not a multiple of the alignment
      ("overlap", same_address)  the bindings overlap, and not as an allowed alias
    which is "input" or "output"."""
    # totals are UINT64 fields (a buffer never holds more than PY_SSIZE_T_MAX bytes,
    # so a larger total fails the size rule at execute); alignments are UINTs
    cdef uint64_t in_total, out_total
    cdef Py_ssize_t in_align, out_align
    cdef bint alias_ok

    def __init__(self, str op, int dtype, sizes, in_strides, out_strides, params,
                 uint64_t in_total, uint64_t out_total, Py_ssize_t in_align,
                 Py_ssize_t out_align, bint alias_ok):
        StridedPlan.__init__(self, op, dtype, sizes, in_strides, out_strides, params)
        self.in_total = in_total
        self.out_total = out_total
        self.in_align = in_align
        self.out_align = out_align
        self.alias_ok = alias_ok

    def execute(self, input, output):
        cdef Py_buffer inv, outv
        cdef size_t a_in, a_out
        cdef simdops_error err
        failure = _acquire_bytes(input, &inv, "input")
        if failure is not None:
            return failure
        try:
            failure = _acquire_bytes(output, &outv, "output")
            if failure is not None:
                return failure
            try:
                if outv.readonly:
                    return ("readonly", "output")
                a_in = <size_t>inv.buf
                a_out = <size_t>outv.buf
                if <uint64_t>inv.len < self.in_total:
                    return ("size", "input", inv.len)
                if self.in_align and a_in % <size_t>self.in_align:
                    return ("align", "input", a_in)
                if <uint64_t>outv.len < self.out_total:
                    return ("size", "output", outv.len)
                if self.out_align and a_out % <size_t>self.out_align:
                    return ("align", "output", a_out)
                # the byte-range rule of the 1-D entry points (csrc/rules/rules.c)
                if simdops_check_disjoint(inv.buf, self.in_total, outv.buf, self.out_total,
                                          self.alias_ok, &err):
                    return ("overlap", a_in == a_out)
                self._run_on(&inv, &outv, 0, 0)
            finally:
                PyBuffer_Release(&outv)
        finally:
            PyBuffer_Release(&inv)
        return None


cdef object _acquire_bytes(object obj, Py_buffer *view, str which):
    """obj's bytes as one range (PyBUF_SIMPLE) into *view: None, or the failure."""
    if not PyObject_CheckBuffer(obj):
        return ("type", which)
    try:
        _get_raw_bytes(obj, view, PyBUF_SIMPLE, which)
    except TypeError:  # Python references (an object array): never bound as bytes
        return ("objects", which)
    except (BufferError, ValueError):  # numpy: ValueError for a non-contiguous array
        return ("contiguous", which)
    return None
