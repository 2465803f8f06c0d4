/* The low-bit hot paths on SSE2: qlow_body.h over qlow_vec_x86.h
 * (int4 / uint4 dequantize to float32 / float16 / bfloat16 and quantize,
 * float8 e4m3fn / e5m2 quantize and dequantize). */
#include "kernels/qlow/qlow_kernels.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#include "kernels/qlow/qlow_vec_x86.h"
#define QLOW_BODY_TIER sse2
#include "kernels/qlow/qlow_body.h"
#else
QLOW_TIER_NOT_COMPILED(sse2)
#endif
