/* The low-bit QuantizeLinear / DequantizeLinear kernel tables, one per tier
 * (SIMDOPS_TIERS), built with the main tables (simdops_init). */
#ifndef SIMDOPS_QLOW_DISPATCH_H
#define SIMDOPS_QLOW_DISPATCH_H

#include "core/qlow_abi.h"
#include "kernels/registry.h"

/* The tiers with a kernels/qlow/qlow_<tier>.c file, X(tier); the others
 * inherit every entry from their parent. */
#define SIMDOPS_QLOW_TIER_FILES(X) X(scalar) X(sse2) X(avx2) X(avx512) X(neon)

#define SIMDOPS_X_QLOW_DECLARE(tier) int simdops_qlow_register__##tier(simdops_qlow_table *t);
SIMDOPS_QLOW_TIER_FILES(SIMDOPS_X_QLOW_DECLARE)
#undef SIMDOPS_X_QLOW_DECLARE

/* builds the tables (called by simdops_init, before it publishes) */
void simdops_qlow_init(const int *usable);
/* the table of the tier whose main table is kt (simdops_current_kernels()) */
const simdops_qlow_table *simdops_qlow_kernels(const simdops_kernel_table *kt);
/* tier i's table, or NULL when the tier is not usable here */
const simdops_qlow_table *simdops_qlow_tier_table(int i);

#endif
