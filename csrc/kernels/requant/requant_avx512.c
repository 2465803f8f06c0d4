/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) requant kernels, bit-exact with
 * requant_scalar.c. Entries left NULL inherit avx2's. */
#include "../../internal.h"
#include "../../isa.h"

#if SIMDOPS_COMPILE_AVX512

int requant_register__avx512(simdops_kernel_table *t)
{
    return requant_families_register__avx512(t);
}
#else
SIMDOPS_TIER_NOT_COMPILED(requant, avx512)
#endif
