/* hardmax kernels for neon: not written yet; the tier falls back to the one below. */
#include "../../internal.h"
#include "../../isa.h"

#if SIMDOPS_COMPILE_NEON
int hardmax_register__neon(simdops_kernel_table *t)
{
    (void)t;
    return 1;
}
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, neon)
#endif
