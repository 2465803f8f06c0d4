# Fragment of _core.pyx (included, not a module): the C API for other
# extensions, the capsule simdops._C_API over the table in csrc/capi_table.c
# (see simdops/simdops_capi.h); simdops/__init__.py re-exports it.
cdef extern from "capi_table.h":
    object simdops_capi_capsule()

_C_API = simdops_capi_capsule()
