/* requant kernels for AVX2 (docs/semantics.md): requant_x86_body.h over
 * rq_vec_avx2.h (vpmuldq, per-lane shifts with vpsllvd/vpsrlvd), the per-tensor
 * entries through the exact float32 fast path (rq_fast_x86.h); the other
 * requantization families' kernels are requant_families_avx2.c's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#define SIMDOPS_TIER avx2
#define RQ_X86_FAST 1
#include "rq_vec_avx2.h"
#include "requant_x86_body.h"
#include "rq_rules_avx2.h"
#include "requant_x86_rules.h"
#include "requant_x86_entries.h"
#include "requant_register.h"

#define RQ_AVX2_KERNELS(X) RQ_KERNELS(X) RQ_RULE_KERNELS(X)
RQ_DEFINE_REGISTER_WITH_FAMILIES(RQ_AVX2_KERNELS, RQ_RULE_PC_KERNELS)

#else
SIMDOPS_TIER_NOT_COMPILED(requant, avx2)
#endif
