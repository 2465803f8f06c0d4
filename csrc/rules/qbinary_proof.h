/* TFLite's 8-bit add and multiply: the proof that a parameter set's form without a
 * window is exact (kernels/qbinary/qbinary_tfl_proof.h: the add's linear form;
 * qbinary_tfl_mul_proof.h: the multiply's float form), paid once a parameter set and a
 * thread, and only for parameter sets that have served enough elements to amortize it
 * (qbinary_proof.c). */
#ifndef SIMDOPS_RULES_QBINARY_PROOF_H
#define SIMDOPS_RULES_QBINARY_PROOF_H

#include <stdint.h>

#include "core/kernel_abi.h"

/* Elements a parameter set serves (this thread, earlier calls) before its proof runs:
 * the proof (one exact 64K kernel call, two or three passes over the 65,536 pairs and
 * the search: ~0.15 ms on a Zen 4 core) then costs less than those calls did (~0.2 ms
 * at the window rows' 3 us a 64K call); the multiply's proof (65,536 fmaf a candidate)
 * ~0.32 ms, ~84 of its window rows' 3.9 us calls. */
#define SIMDOPS_QB_PROOF_AFTER ((uint64_t)1 << 22)
/* Calls of fewer elements neither count nor use a proof (no memo lookup) */
#define SIMDOPS_QB_PROOF_MIN_N 4096

/* Before a call of n elements with the call's own copy p of the parameters (dtype's,
 * kernel the tier's entry for them): clears p's proved mark, then, for TFLite's 8-bit
 * add or multiply with its stored plan and n >= SIMDOPS_QB_PROOF_MIN_N, marks p proved
 * with the proved form (qb_tfl_proof_apply, qb_tmf_proof_apply)
 * when this thread has proved the parameter set, or proves it now when the set has
 * served SIMDOPS_QB_PROOF_AFTER elements; else counts n. Never fails: a refused or
 * unproved set runs the exact window rows. */
void simdops_qbinary_proof(simdops_qbinary_params *p, simdops_dtype dtype, uint64_t n,
                           simdops_qbinary_fn kernel);
/* The proof itself, now, without the memo: 1 and p marked proved, or 0 (p unchanged
 * but its proved mark cleared; also 0 for other kinds, types and unstored plans).
 * kernel must be an exact kernel for p (any tier's entry). */
int simdops_qbinary_prove_now(simdops_qbinary_params *p, simdops_dtype dtype,
                              simdops_qbinary_fn kernel);

#endif
