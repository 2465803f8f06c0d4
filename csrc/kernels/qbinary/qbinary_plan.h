/* The parameters' plan slot (kernel_abi.h, simdops_qbinary_params.plan): the AVX-512
 * rows' plan of TFLite's add, TFLite's multiply and XNNPACK's add for an 8-bit type,
 * derived once a parameter set by simdops_qbinary_params_init (qb_plan_store) instead
 * of once a kernel call: a per-channel broadcast runs one kernel call per 8 KiB of the
 * repeated row, each of which derived the plan again (TFLite's multiply: up to five
 * sets of float constants a call).
 *
 * Each plan is a function of the other fields and the type only, so the stored plan and
 * one derived in the kernel are the same bytes (the harness compares them). A kernel
 * takes the stored plan only when its tag names the kernel's own kind and type
 * (QB_PLAN_STORED); a parameter set built or changed by hand (derived 0) or derived for
 * another kind or type makes the kernel derive its own. One slot serves every kind: a
 * union, so a plan read under the wrong kind's layout would be garbage, which the tag
 * forbids (the harness's wrong-kind rows, and the mutant QB_PLAN_MUTANT_ANY_KIND that
 * checks the type only, show it). */
#ifndef SIMDOPS_QBINARY_PLAN_H
#define SIMDOPS_QBINARY_PLAN_H

#include <string.h>

#include "core/kernel_abi.h"
#include "qbinary_tfl_mul_plan.h"
#include "qbinary_tfl_plan.h"
#include "qbinary_xnn_plan.h"

/* 1 when p's plan slot holds the plan of kind for the type (is_u8) */
#ifdef QB_PLAN_MUTANT_ANY_KIND /* the harness's mutant only: the kind not checked */
#define QB_PLAN_STORED(p, kind, is_u8)                                                             \
    ((p)->plan.derived != 0 && ((p)->plan.derived - 1) % 2 == ((is_u8) ? 1 : 0))
#else
#define QB_PLAN_STORED(p, kind, is_u8) ((p)->plan.derived == SIMDOPS_QB_PLAN_TAG(kind, is_u8))
#endif

/* 1 for the kinds with a plan (their 8-bit AVX-512 rows) */
static inline int qb_plan_kind(int32_t kind)
{
    return kind == SIMDOPS_QB_TFLITE_ADD || kind == SIMDOPS_QB_TFLITE_MUL ||
           kind == SIMDOPS_QB_XNNPACK_ADD;
}

/* p's plan for its kind and the 8-bit type is_u8 into the slot (derived 0 for a kind
 * without one) */
static inline void qb_plan_store(simdops_qbinary_params *p, int is_u8)
{
    memset(&p->plan, 0, sizeof(p->plan));
    if (p->kind == SIMDOPS_QB_TFLITE_ADD)
        qb_tfl_rows_derive(&p->plan.u.tfl_add, p, is_u8);
    else if (p->kind == SIMDOPS_QB_TFLITE_MUL)
        qb_tmf_plan_init(&p->plan.u.tfl_mul, p, is_u8);
    else if (p->kind == SIMDOPS_QB_XNNPACK_ADD)
        qb_xnn_plan_init(&p->plan.u.xnn_add, p, is_u8);
    if (qb_plan_kind(p->kind))
        p->plan.derived = SIMDOPS_QB_PLAN_TAG(p->kind, is_u8);
}

#endif
