/* Filling a simdops_error (error.c): every layer reports through these. */
#ifndef SIMDOPS_ERRORS_H
#define SIMDOPS_ERRORS_H

#include "simdops/simdops.h"

/* ------------------------------------------------------------------ errors (error.c) */

/* Starts a call: clears *err (or points it at a scratch record when NULL). */
/* An entry point's start, after its declarations: err made non-NULL (a local
 * scratch record when the caller passed NULL), cleared, and given the op. */
#define SIMDOPS_ENTRY(err, op_)                                                                   \
    simdops_error simdops_entry_scratch_;                                                         \
    SIMDOPS_ERROR_BEGIN(err, simdops_entry_scratch_, op_)
#define SIMDOPS_ERROR_BEGIN(err, scratch, op_)                                                    \
    do {                                                                                          \
        if (!(err))                                                                               \
            (err) = &(scratch);                                                                   \
        (err)->status = 0;                                                                        \
        (err)->reason = 0;                                                                        \
        (err)->op = (op_);                                                                        \
    } while (0)

/* Records reason/arg (other fields zeroed, index -1) and returns its status. */
int simdops_fail(simdops_error *err, int reason, int arg);
/* The same with the offending value and the expected one. */
int simdops_fail_value(simdops_error *err, int reason, int arg, int64_t value, int64_t expected);
/* The same with a dtype (value = the dtype, expected = the wanted dtype or 0). */
int simdops_fail_dtype(simdops_error *err, int reason, int arg, simdops_dtype dtype,
                       simdops_dtype expected);

#endif
