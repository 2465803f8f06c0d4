/* SSE2 kernels of the requantization families, and SSE4.1's (requant_families_sse41.c
 * includes this file with RQFX_SSE41 set): single rounding and single rounding
 * with ties away, requant_families_x86.h over rq_vec_sse2.h / rq_vec_sse41.h
 * (pmuludq on magnitudes; per-lane shifts as multiplies by 2^k). The other
 * families run the scalar tier's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if defined(RQFX_SSE41) && SIMDOPS_COMPILE_SSE41
#define SIMDOPS_TIER sse41
#include "rq_vec_sse41.h"
#elif !defined(RQFX_SSE41) && SIMDOPS_COMPILE_SSE2
#define SIMDOPS_TIER sse2
#include "rq_vec_sse2.h"
#endif

#ifdef SIMDOPS_TIER
#include "requant_x86_body.h"
#include "requant_families_x86.h"

RQF_ENTRIES3(single, rqfx_run, RQF_SINGLE)
RQF_ENTRIES3(single_away, rqfx_run, RQF_SINGLE_AWAY)
#define RQF_KERNELS(X) RQF_LIST(X, single) RQF_LIST(X, single_away)
/* rqfx_run restarts every ch->period elements (rqfx_pieces) */
#define RQF_RESTARTS(X) RQF_PC_LIST(X, single) RQF_PC_LIST(X, single_away)
SIMDOPS_DEFINE_REGISTER_RESTARTING(requant_families, RQF_KERNELS, RQF_RESTARTS)

#elif defined(RQFX_SSE41)
SIMDOPS_TIER_NOT_COMPILED(requant_families, sse41)
#else
SIMDOPS_TIER_NOT_COMPILED(requant_families, sse2)
#endif
