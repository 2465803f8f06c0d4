/* requant kernels for SSE4.1 (docs/semantics.md): requant_x86_body.h over
 * rq_vec_sse41.h (SRDHM from the signed pmuldq, RDBPOT with pabsd/psignd). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE41
#define SIMDOPS_TIER sse41
#include "rq_vec_sse41.h"
#include "requant_x86_body.h"
#include "rq_rules_sse41.h"
#include "requant_x86_rules.h"
#include "requant_x86_entries.h"
#include "requant_register.h"

#define RQ_SSE41_KERNELS(X) RQ_KERNELS(X) RQ_RULE_KERNELS(X)
RQ_DEFINE_REGISTER_WITH_FAMILIES(RQ_SSE41_KERNELS, RQ_RULE_PC_KERNELS)

#else
SIMDOPS_TIER_NOT_COMPILED(requant, sse41)
#endif
