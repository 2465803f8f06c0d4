/* QuantizeLinear / DequantizeLinear for SSE4.1: see qlinear_sse.h. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE41
#define QL_TIER sse41
#define QL_SSE41 1
#include "qlinear_sse.h"

int qlinear_register__sse41(simdops_kernel_table *t) { return ql_register(t); }
#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, sse41)
#endif
