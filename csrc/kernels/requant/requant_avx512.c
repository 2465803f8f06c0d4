/* requant kernels for AVX-512 (F+BW+VL+DQ, docs/semantics.md):
 * requant_x86_body.h over rq_vec_avx512.h, 64-element blocks. The per-tensor
 * entries run the exact float32 fast path (rq_fast_x86.h; faster than avx2's
 * on this project's benchmark machine), falling back to this tier's integer
 * body outside its domain. Of requant_x86_rules.h's families ties-up is this
 * tier's own (per channel 1.07x avx2's before the fast path; both now through
 * it); the floor kernels ran at 0.97-1.03x avx2's, so those stay avx2's. The fp32 family is
 * requant_families_avx512.c's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#define RQ_X86_FAST 1
#define RQ_X86_FLOOR_PT 0
#define RQ_X86_FLOOR_PC 0
#include "rq_vec_avx512.h"
#include "requant_x86_body.h"
#include "rq_rules_avx512.h"
#include "requant_x86_rules.h"
#include "requant_x86_entries.h"
#include "requant_register.h"

#define RQ_AVX512_KERNELS(X) RQ_KERNELS(X) RQ_TIES_UP_KERNELS(X)
/* this tier's per-channel entries (double rounding, ties-up: rqf_pc_kernel)
 * restart their arrays every ch->period elements themselves; floor's are
 * avx2's, inherited with their flag */
#define RQ_AVX512_RESTARTS(X)                                                          \
    RQ_PC_KERNELS(X)                                                                   \
    X(requant_ties_up_pc, u8) X(requant_ties_up_pc, i8) X(requant_ties_up_pc, i16)
RQ_DEFINE_REGISTER_WITH_FAMILIES(RQ_AVX512_KERNELS, RQ_AVX512_RESTARTS)

#else
SIMDOPS_TIER_NOT_COMPILED(requant, avx512)
#endif
