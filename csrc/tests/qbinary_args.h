/* A quantized binary op's derivation from a model's numbers, written once for the
 * harness (test_qbinary_mul_proof.c) and tools/qb_proof_count.c: the C API's arguments
 * filled from three scales and three zero points, then the parameter derivation.
 * Header-only (static inline), so that the tools, which link the harness's objects but
 * not its tests, include it as "tests/qbinary_args.h". What a caller adds (fused
 * bounds, zero points moved to uint8's middle) it sets between the two calls. */
#ifndef SIMDOPS_TEST_QBINARY_ARGS_H
#define SIMDOPS_TEST_QBINARY_ARGS_H

#include <string.h>

#include "rules/qbinary.h"
#include "simdops/simdops.h"

/* op / arithmetic, scales s (a, b, y: float32, as a model stores them) and zero points z
 * (a, b, y); no fused bounds (has_min / has_max 0) */
static inline void qb_args_fill(simdops_qbinary_args *a, int op, int arithmetic,
                                const float s[3], const int z[3])
{
    memset(a, 0, sizeof(*a));
    a->op = op;
    a->arithmetic = arithmetic;
    a->a_scale = simdops_float_number(s[0]);
    a->b_scale = simdops_float_number(s[1]);
    a->y_scale = simdops_float_number(s[2]);
    a->a_zero_point = z[0];
    a->b_zero_point = z[1];
    a->y_zero_point = z[2];
}

/* the parameters the runtime derives from a for dt: simdops_qbinary_params_init's status
 * (SIMDOPS_OK or the refusal; its message is not wanted) */
static inline int qb_args_derive(simdops_dtype dt, const simdops_qbinary_args *a,
                                 simdops_qbinary_params *p)
{
    simdops_error err;
    memset(&err, 0, sizeof(err));
    return simdops_qbinary_params_init(dt, a, p, &err);
}

#endif
