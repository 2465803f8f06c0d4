/* Reference kernels of the int8 matmul accumulators (simdops_int8_dot_fn): one
 * row of a against n rows of w transposed. Sums in uint32 (wrapping, as the
 * runtimes' int32 adds do; exact while k < 2^16). The pair-saturating entries
 * model x86's VPMADDUBSW: each pair (2p, 2p + 1) of u8 x s8 products summed and
 * saturated to int16, then the pair sums added in int32 (VPMADDWD with ones,
 * VPADDD); an int8 a goes in as the uint8 a + 128 and 128 * sum(w) comes off,
 * which is how oneDNN runs s8 x s8 without VNNI. */
#define SIMDOPS_TIER scalar
#include "kernels/registry.h"

#include "kernels/int8mm/int8mm_rows.h"

INT8MM_EXACT_KERNEL(SIMDOPS_KERNEL_NAME(u8, int8_dot), uint8_t, INT8MM_NO_VEC_PART)
INT8MM_EXACT_KERNEL(SIMDOPS_KERNEL_NAME(i8, int8_dot), int8_t, INT8MM_NO_VEC_PART)
INT8MM_PAIRSAT_KERNEL(SIMDOPS_KERNEL_NAME(u8, int8_dot_pairsat), uint8_t, 0, INT8MM_NO_VEC_PART)
INT8MM_PAIRSAT_KERNEL(SIMDOPS_KERNEL_NAME(i8, int8_dot_pairsat), int8_t, 128, INT8MM_NO_VEC_PART)

#define INT8MM_KERNELS(X) X(int8_dot, u8) X(int8_dot, i8) X(int8_dot_pairsat, u8) X(int8_dot_pairsat, i8)
SIMDOPS_DEFINE_REGISTER(int8mm, INT8MM_KERNELS)
