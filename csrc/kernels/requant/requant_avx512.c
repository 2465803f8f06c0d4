/* requant kernels for AVX-512 (F+BW+VL+DQ, docs/semantics.md):
 * requant_x86_body.h over rq_vec_avx512.h, 64-element blocks. Only the
 * per-channel entries: they measured faster than avx2's on this project's
 * benchmark machine (docs/performance.md); the per-tensor ones did not, so
 * they stay avx2's. The fp32 family is requant_families_avx512.c's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#define RQ_X86_FAST 1
#include "rq_vec_avx512.h"
#include "requant_x86_body.h"
#include "requant_register.h"

RQ_DEFINE_REGISTER_WITH_FAMILIES(RQ_KERNELS)

#else
SIMDOPS_TIER_NOT_COMPILED(requant, avx512)
#endif
