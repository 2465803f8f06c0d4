/* The C API table that simdops exports as the capsule simdops._C_API
 * (see simdops/simdops_capi.h). Plain C: src/simdops/_ext/_core_capi.pyx wraps it in the
 * capsule, so this file builds without Python headers (C test harness too). */
#ifndef SIMDOPS_CAPI_TABLE_H
#define SIMDOPS_CAPI_TABLE_H

#define SIMDOPS_CAPI_TABLE_ONLY
#include "simdops/simdops_capi.h"
#undef SIMDOPS_CAPI_TABLE_ONLY

/* The one table, static: it lives as long as the extension module. */
const simdops_capi *simdops_capi_table(void);

#endif
