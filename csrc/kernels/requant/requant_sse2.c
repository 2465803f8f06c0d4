/* requant kernels for SSE2 (docs/semantics.md): requant_x86_body.h over
 * rq_vec_sse2.h (SRDHM from pmuludq with a sign fix-up; per-lane shifts as
 * multiplies by 2^k). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#define SIMDOPS_TIER sse2
#include "rq_vec_sse2.h"
#include "requant_x86_body.h"
#include "rq_rules_sse2.h"
#include "requant_x86_rules.h"
#include "requant_x86_entries.h"
#include "requant_register.h"

#define RQ_SSE2_KERNELS(X) RQ_KERNELS(X) RQ_RULE_KERNELS(X)
RQ_DEFINE_REGISTER_WITH_FAMILIES(RQ_SSE2_KERNELS, RQ_RULE_PC_KERNELS)

#else
SIMDOPS_TIER_NOT_COMPILED(requant, sse2)
#endif
