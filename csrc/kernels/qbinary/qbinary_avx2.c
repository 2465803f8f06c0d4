/* Quantized binary ops for AVX2, 8-bit types: the shared body
 * (qbinary_body.h) over 8-lane int32 vectors (qbinary_x86.h), 32 elements a
 * step; the float multiply's conversion rounds with roundps' explicit
 * nearest-even mode (no dependence on MXCSR). ONNX Runtime's add (fused
 * multiply-adds; the tier does not require FMA) is computed in double where
 * the parameters make that exact. int16 inherits the scalar kernels. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#define SIMDOPS_TIER avx2
#define QV_BITS 256
#define QV_PREFIX _mm256
#define QV_SI si256
#define QB_MUL_EVEN(x, m) _mm256_mul_epi32(x, m)
#define QB_ODD_BLEND(e, o) _mm256_blend_epi32(e, o, 0xAA)
#define QB_LOAD_LANES(s) _mm_loadl_epi64((const __m128i *)(const void *)(s))
/* the packs work within 128-bit lanes: dword order 0, 4, 1, 5, ... */
#define QB_UNLANE(p) _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
#define QV_FP_VECTORS(p) 1
#include "qbinary_x86.h"
#include "qbinary_body.h"
SIMDOPS_DEFINE_REGISTER(qbinary, QBINARY_BODY_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qbinary, avx2)
#endif
