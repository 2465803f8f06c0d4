/* The C API capsule simdops._C_API (see simdops/simdops_capi.h). */
#ifndef SIMDOPS_CAPI_TABLE_H
#define SIMDOPS_CAPI_TABLE_H

#include <Python.h>

/* A new capsule named "simdops._C_API" holding the table; NULL with an
 * exception set on failure. The table is static: it lives as long as the
 * extension module. */
PyObject *simdops_capi_capsule(void);

#endif
