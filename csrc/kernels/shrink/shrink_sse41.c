/* shrink kernels for SSE4.1: i8, i32 and u32, where pminsb/pmaxsb and
 * pminsd/pmaxsd replace the SSE2 emulations. The other dtypes inherit the
 * SSE2 kernels, which use nothing SSE4.1 improves (u8/u16 still need a flip
 * for their compares, i16 and floats are native in SSE2). Semantics as in
 * shrink_sse2.c: exclusive branch masks, the zero branch is what neither keeps. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE41
#include <smmintrin.h>

#include "kernels/vec/sse_util.h"
#define SIMDOPS_TIER sse41

/* u32 works XORed with 2^31 (pcmpgtd is signed); B is flipped too, since
 * (c ^ f) -+ (B ^ f) == c -+ B modulo 2^32. */
ISHRINK_INIT(i8_init, i8, SET1_8, _mm_setzero_si128())
ISHRINK_INIT(u32_init, u32, SET1_32, _mm_set1_epi32((int)0x80000000u))
ISHRINK_INIT(i32_init, i32, SET1_32, _mm_setzero_si128())

ISHRINK_OP(i8_op, _mm_cmpgt_epi8, _mm_sub_epi8, _mm_add_epi8, _mm_min_epi8, _mm_max_epi8, x, x)
ISHRINK_OP(x32_op, _mm_cmpgt_epi32, _mm_sub_epi32, _mm_add_epi32, _mm_min_epi32, _mm_max_epi32,
           xf, xf)

SSEU_MAP_KERNEL(i8_shrink__sse41, simdops_shrink_params, 1, 4, ishrink, i8_init, i8_op)
SSEU_MAP_KERNEL(u32_shrink__sse41, simdops_shrink_params, 4, 4, ishrink, u32_init, x32_op)
SSEU_MAP_KERNEL(i32_shrink__sse41, simdops_shrink_params, 4, 4, ishrink, i32_init, x32_op)

#define SHRINK_KERNELS(X)                        \
    X(shrink, i8) X(shrink, u32) X(shrink, i32)
SIMDOPS_DEFINE_REGISTER(shrink, SHRINK_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(shrink, sse41)
#endif
