/* QuantizeLinear / DequantizeLinear for SSE2: see qlinear_sse.h. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#define QL_TIER sse2
#define QL_SSE41 0
#include "qlinear_sse.h"

int qlinear_register__sse2(simdops_kernel_table *t) { return ql_register(t); }
#else
SIMDOPS_TIER_NOT_COMPILED(qlinear, sse2)
#endif
