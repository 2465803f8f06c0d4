/* The one instance of the C API table, exported to other extensions as the
 * capsule simdops._C_API, filled from the list SIMDOPS_CAPI_ENTRIES of
 * simdops/simdops_capi.h (append-only: see there). */
#include "api/capi_table.h"

/* Each function again with the list's signature: a list entry that disagrees
 * with simdops.h is a compile error here ("conflicting types for
 * simdops_NAME"), where the table's initializer alone would only warn. */
#define SIMDOPS_CAPI_X_DECLARE(version, ret, name, params, args) ret simdops_##name params;
SIMDOPS_CAPI_ENTRIES(SIMDOPS_CAPI_X_DECLARE)
#undef SIMDOPS_CAPI_X_DECLARE

/* An entry of a version above SIMDOPS_CAPI_VERSION (an append that forgot the
 * bump) is a negative array size named after it; so is a version without
 * entries (a bump without an append). */
#define SIMDOPS_CAPI_X_VERSION_KNOWN(version, ret, name, params, args)                            \
    typedef char simdops_capi_##name##_has_a_version_above_SIMDOPS_CAPI_VERSION                    \
        [(version) <= SIMDOPS_CAPI_VERSION ? 1 : -1];
SIMDOPS_CAPI_ENTRIES(SIMDOPS_CAPI_X_VERSION_KNOWN)
#undef SIMDOPS_CAPI_X_VERSION_KNOWN
#define SIMDOPS_CAPI_X_IN_LAST_VERSION(version, ret, name, params, args)                          \
    +((version) == SIMDOPS_CAPI_VERSION)
typedef char simdops_capi_no_entry_has_version_SIMDOPS_CAPI_VERSION
    [(0 SIMDOPS_CAPI_ENTRIES(SIMDOPS_CAPI_X_IN_LAST_VERSION)) > 0 ? 1 : -1];
#undef SIMDOPS_CAPI_X_IN_LAST_VERSION

static const simdops_capi capi_table = {
    .abi_version = SIMDOPS_CAPI_VERSION,
    .size = (uint32_t)sizeof(simdops_capi),
#define SIMDOPS_CAPI_X_INIT(version, ret, name, params, args) .name = simdops_##name,
    SIMDOPS_CAPI_ENTRIES(SIMDOPS_CAPI_X_INIT)
#undef SIMDOPS_CAPI_X_INIT
};

const simdops_capi *simdops_capi_table(void) { return &capi_table; }
