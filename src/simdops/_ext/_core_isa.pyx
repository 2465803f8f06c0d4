# ISA selection and kernel-table queries: a fragment of _core.pyx (included by it,
# not a module of its own).

def isa():
    """The calling thread's effective tier."""
    return (<bytes>simdops_isa()).decode()


def available_isas():
    cdef const char *names[16]
    cdef int n = simdops_available_isas(names, 16)
    return tuple((<bytes>names[i]).decode() for i in range(n))


def known_isas():
    cdef const char *names[16]
    cdef int n = simdops_known_isas(names, 16)
    return tuple((<bytes>names[i]).decode() for i in range(n))


def cpu_supported_isas():
    """The known tiers this CPU supports, built or not (a supported tier missing from
    available_isas() was not compiled in: a build fault that selftest reports)."""
    return tuple((<bytes>simdops_tier_name(i)).decode() for i in range(simdops_tier_count())
                 if simdops_tier_known(i) and simdops_tier_cpu_supported(i))


cdef _isa_error(str name):
    return ValueError(f"ISA {name!r} is not available here; available: "
                      f"{', '.join(available_isas())}")


def set_thread_isa(name):
    """Forces the calling thread's tier (None: back to the process tier)."""
    cdef simdops_error err
    cdef bytes encoded
    cdef const char *cname = NULL
    if name is not None:
        encoded = (<str>name).encode()
        cname = encoded
    if simdops_set_thread_isa(cname, &err):
        raise _isa_error(name)


def thread_isa():
    """The calling thread's forced tier, or None."""
    cdef const char *name = simdops_thread_isa()
    return None if name == NULL else (<bytes>name).decode()


def set_process_isa(str name):
    """Sets the process tier (SIMDOPS_ISA at import)."""
    cdef simdops_error err
    if simdops_set_process_isa(name.encode(), &err):
        raise _isa_error(name)


def last_call_isa():
    """The tier the calling thread's last kernel call ran on (None before any)."""
    cdef const char *name = simdops_last_call_isa()
    return None if name == NULL else (<bytes>name).decode()


def cpu_features():
    """The CPU features detection found, space-separated (read once at import)."""
    return _CPU_FEATURES


def kernel_entries():
    """[(entry, (slot dtype names whose kernels every tier must have))] from the C list."""
    result = []
    for e in range(simdops_kernel_entry_count()):
        slots = tuple((<bytes>simdops_kernel_slot_name(e, k)).decode()
                      for k in range(simdops_kernel_entry_slots(e))
                      if simdops_kernel_slot_required(e, k))
        result.append(((<bytes>simdops_kernel_entry_name(e)).decode(), slots))
    return result


def kernel_slot_dtype(str entry, str dtype, str out_dtype):
    """The dtype naming the slot of kernel entry `entry` that a call with x of `dtype`
    and out of `out_dtype` runs: the output's for the entries indexed by it (requant,
    quantize), x's for the others."""
    for e in range(simdops_kernel_entry_count()):
        if (<bytes>simdops_kernel_entry_name(e)).decode() == entry:
            return out_dtype if simdops_kernel_slot_is_output(e) else dtype
    raise ValueError(f"no kernel entry {entry!r}")


def tier_parents():
    """{tier: the tier it inherits its missing entries from} for the tiers of this
    architecture (scalar: None)."""
    result = {}
    for i in range(simdops_tier_count()):
        if simdops_tier_known(i):
            parent = simdops_tier_parent(i)
            result[(<bytes>simdops_tier_name(i)).decode()] = (
                None if parent == i else (<bytes>simdops_tier_name(parent)).decode())
    return result


def kernel_origins(str isa_name):
    """{(entry, dtype): tier whose own kernel the ISA's table uses} for one usable ISA."""
    cdef int i, e, k, origin
    tier = -1
    for i in range(simdops_tier_count()):
        if simdops_tier_known(i) and (<bytes>simdops_tier_name(i)).decode() == isa_name:
            tier = i
    if tier < 0 or isa_name not in available_isas():
        raise ValueError(f"ISA {isa_name!r} is not available here")
    result = {}
    for e in range(simdops_kernel_entry_count()):
        for k in range(simdops_kernel_entry_slots(e)):
            origin = simdops_kernel_origin(tier, e, k)
            if origin >= 0:
                result[((<bytes>simdops_kernel_entry_name(e)).decode(),
                        (<bytes>simdops_kernel_slot_name(e, k)).decode())] = \
                    (<bytes>simdops_tier_name(origin)).decode()
    return result


# Build the kernel tables now, at import and under the GIL, so that no two
# threads can race to build them from inside nogil kernel calls.
simdops_init()
# simdops_cpu_features() formats into one static buffer on every call: two
# threads calling it at once without the GIL could read it half rewritten, so
# it is read once here, under the import lock, and the str is shared.
_CPU_FEATURES = (<bytes>simdops_cpu_features()).decode()
