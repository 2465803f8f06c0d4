/* The dtype table and the conversions every other file needs (a leaf: it
 * depends on nothing but the public header). */
#include "core/dtype.h"

#include <math.h>

#define SIMDOPS_X_DTYPE_ROW(id, tag, nm, sz, fl, sg, lo_, hi_, rq)                                 \
    [SIMDOPS_##id] = {nm, sz, fl, sg, rq, (int64_t)(lo_), (int64_t)(hi_)},
const simdops_dtype_row simdops_dtype_rows[SIMDOPS_DTYPE_COUNT] = {SIMDOPS_DTYPES(SIMDOPS_X_DTYPE_ROW)};
#undef SIMDOPS_X_DTYPE_ROW

size_t simdops_dtype_size(simdops_dtype dtype)
{
    return simdops_dtype_valid(dtype) ? simdops_dtype_rows[dtype].size : 0;
}

const char *simdops_dtype_name(simdops_dtype dtype)
{
    return simdops_dtype_valid(dtype) ? simdops_dtype_rows[dtype].name : "unknown";
}

/* Each op's dtypes, the fourth column of its SIMDOPS_OPS line. */
static const unsigned op_dtype_bits[SIMDOPS_OP_COUNT] = {
#define SIMDOPS_X_OP_DTYPES(unused, name, code, text, dtypes) [code] = (dtypes),
    SIMDOPS_OP_LINES(SIMDOPS_X_OP_DTYPES, 0)
#undef SIMDOPS_X_OP_DTYPES
};

int simdops_op_supports(int op, simdops_dtype dtype)
{
    return simdops_dtype_valid(dtype) && op > SIMDOPS_OP_NONE && op < SIMDOPS_OP_COUNT &&
           ((op_dtype_bits[op] >> dtype) & 1u);
}

/* double -> float, nearest even; beyond float's range the C cast is
 * undefined, so the overflow to inf is spelled out (2^128 - 2^103 is the
 * midpoint above FLT_MAX, which rounds to inf). */
float simdops_f32_from_f64(double d)
{
    const double overflow = 340282356779733661637539395458142568448.0; /* 2^128 - 2^103 */
    if (d >= overflow)
        return (float)HUGE_VAL;
    if (d <= -overflow)
        return (float)-HUGE_VAL;
    return (float)d;
}
