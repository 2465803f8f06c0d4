/* What every qlow_<tier>.c includes: the element header, the list of the
 * quantized types a kernel instance exists for, and the registration helpers.
 * A tier file defines simdops_qlow_register__<tier> (dispatch/qlow_dispatch.c
 * calls it when the CPU has the tier) and sets only the slots it improves;
 * the rest inherit from the parent tier (SIMDOPS_TIERS). */
#ifndef SIMDOPS_QLOW_KERNELS_H
#define SIMDOPS_QLOW_KERNELS_H

#include "core/qlow_abi.h"
#include "kernels/qlow/qlow_element.h"

/* QLOW_QUANTIZED(X): X(u8) X(i8) ... -- the tags written out once here, in
 * list order (every QT_INT / QT_F8 / QT_F4 row of SIMDOPS_QTYPES; qlow_dispatch.c
 * checks the count) */
#define QLOW_QUANTIZED(X)                                                                         \
    X(u8) X(i8) X(u16) X(i16) X(i32) X(u4) X(i4) X(u2) X(i2) X(e4m3fn) X(e4m3fnuz) X(e5m2)       \
    X(e5m2fnuz) X(f4e2m1)

/* sets the four entries of (qtag, ftag) to <qtag>_<entry>_<ftag>__<tier> */
#define QLOW_SET(t, entry, qtag, ftag, tier)                                                      \
    (t)->entry[SIMDOPS_QT_##qtag][SIMDOPS_QF_##ftag##_UP] = qtag##_##entry##_##ftag##__##tier;
#define SIMDOPS_QF_f32_UP SIMDOPS_QF_F32
#define SIMDOPS_QF_f16_UP SIMDOPS_QF_F16
#define SIMDOPS_QF_bf16_UP SIMDOPS_QF_BF16
#define QLOW_SET_ALL(t, qtag, ftag, tier)                                                         \
    QLOW_SET(t, dq_run, qtag, ftag, tier) QLOW_SET(t, dq_row, qtag, ftag, tier)                   \
    QLOW_SET(t, q_run, qtag, ftag, tier) QLOW_SET(t, q_row, qtag, ftag, tier)

/* a tier file whose ISA the compiler was not given: the register function
 * says so (returns 0) */
#define QLOW_TIER_NOT_COMPILED(tier)                                                              \
    int simdops_qlow_register__##tier(simdops_qlow_table *t)                                      \
    {                                                                                             \
        (void)t;                                                                                  \
        return 0;                                                                                 \
    }

#endif
