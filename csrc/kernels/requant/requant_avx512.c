/* requant kernels for AVX-512 (F+BW+VL+DQ, docs/semantics.md):
 * requant_x86_body.h over rq_vec_avx512.h, 64-element blocks. The per-tensor
 * entries run the exact float32 fast path (rq_fast_x86.h; faster than avx2's
 * on this project's benchmark machine), falling back to this tier's integer
 * body outside its domain. The fp32 family is requant_families_avx512.c's. */
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
