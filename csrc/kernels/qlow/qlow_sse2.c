/* The low-bit dequantize hot paths on SSE2: qlow_body.h over qlow_vec_sse2.h
 * (int4 / uint4 and float8 e4m3fn / e5m2 to float32, one scale and scale rows). */
#include "kernels/qlow/qlow_kernels.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#include "kernels/qlow/qlow_vec_sse2.h"
#define QLOW_BODY_TIER sse2
#include "kernels/qlow/qlow_body.h"
#else
QLOW_TIER_NOT_COMPILED(sse2)
#endif
