/* The one instance of the C API table, exported to other extensions as the
 * capsule simdops._C_API. Append-only: see simdops/simdops_capi.h. */
#include "capi_table.h"

#define SIMDOPS_CAPI_TABLE_ONLY
#include "simdops/simdops_capi.h"

static const simdops_capi capi_table = {
    .abi_version = SIMDOPS_CAPI_VERSION,
    .size = (uint32_t)sizeof(simdops_capi),
    /* version 1 */
    .status_message = simdops_status_message,
    .isa = simdops_isa,
    .dtype_size = simdops_dtype_size,
    .clip = simdops_clip,
    .shrink = simdops_shrink,
    .hardmax = simdops_hardmax,
    .requant = simdops_requant,
};

PyObject *simdops_capi_capsule(void)
{
    /* the capsule API takes a non-const pointer; users only read the table */
    return PyCapsule_New((void *)&capi_table, SIMDOPS_CAPI_NAME, NULL);
}
