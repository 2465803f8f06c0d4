# Fragment of _core.pyx (included, not a module): the C API for other
# extensions, the capsule simdops._C_API over the table in csrc/api/capi_table.c
# (see simdops/simdops_capi.h); simdops/__init__.py re-exports it.
from cpython.pycapsule cimport PyCapsule_New

cdef extern from "api/capi_table.h":
    const char *SIMDOPS_CAPI_NAME
    const void *simdops_capi_table()

# The capsule API takes a non-const pointer; users only read the table.
_C_API = PyCapsule_New(<void *>simdops_capi_table(), SIMDOPS_CAPI_NAME, NULL)
