/* The low-bit hot paths on NEON: qlow_body.h over qlow_vec_neon.h
 * (int4 / uint4 dequantize to float32 / float16 / bfloat16 and quantize,
 * float8 e4m3fn / e5m2 quantize and dequantize). */
#include "kernels/qlow/qlow_kernels.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_NEON
#include "kernels/qlow/qlow_vec_neon.h"
#define QLOW_BODY_TIER neon
#include "kernels/qlow/qlow_body.h"
#else
QLOW_TIER_NOT_COMPILED(neon)
#endif
