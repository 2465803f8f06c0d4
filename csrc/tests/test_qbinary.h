/* The quantized binary entries' harness rows, shared by test_qbinary.c (the entries'
 * rows) and test_qbinary_plans.c (the AVX-512 rows' plans). */
#ifndef SIMDOPS_TEST_QBINARY_H
#define SIMDOPS_TEST_QBINARY_H

#include "harness.h"
#include "kernels/qbinary/qbinary_plan.h"
#include "rules/qbinary.h"

/* Parameters the entry's runtimes accept (a few tries; 0 when none came). */
int qbinary_random_params(const target *t, simdops_qbinary_params *p);
/* every (a, b) pair of the 8-bit type in the three forms and in place, against scalar */
void qbinary_all_pairs(const target *t, const simdops_qbinary_params *p);

void qbinary_xnn_plans(const target *t);
void qbinary_tfl_plans(const target *t);
void qbinary_tfl_proofs(const target *t);
void qbinary_tfl_mul_plans(const target *t);
void qbinary_tfl_mul_proofs(const target *t);
/* the proof memo's thresholds for p (its plan's proved byte at offset `proved`):
 * test_qbinary_proof.c, for the add's rows and the multiply's */
typedef int (*qb_proof_find_fn)(const simdops_qbinary_params *p, int u8,
                                const unsigned char *ref, void *form);
typedef int (*qb_proof_check_fn)(const simdops_qbinary_params *p, int u8, const void *form,
                                 const unsigned char *ref);
/* a proof's check refuses doctored references (test_qbinary_proof.c, both ops) */
void qb_proof_doctored_refs(const target *t, const simdops_qbinary_params *p,
                            qb_proof_find_fn find, qb_proof_check_fn check, void *form,
                            const char *what);
void qb_proof_memo_rows(const target *t, const simdops_qbinary_params *p, size_t proved,
                        const char *what);

#endif
