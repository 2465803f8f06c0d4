/* Reference kernels of the int8 matmul accumulators (simdops_int8_dot_fn): one
 * row of a against n rows of w transposed. Sums in uint32 (wrapping, as the
 * runtimes' int32 adds do; exact while k < 2^16). The pair-saturating entries
 * model x86's VPMADDUBSW: each pair (2p, 2p + 1) of u8 x s8 products summed and
 * saturated to int16, then the pair sums added in int32 (VPMADDWD with ones,
 * VPADDD); an int8 a goes in as the uint8 a + 128 and 128 * sum(w) comes off,
 * which is how oneDNN runs s8 x s8 without VNNI. */
#define SIMDOPS_TIER scalar
#include "kernels/registry.h"

#include "kernels/int8mm/int8mm_pairsat.h"

#define EXACT_KERNEL(tag, T)                                                                      \
    static void SIMDOPS_KERNEL_NAME(tag, int8_dot)(const void *av, const int8_t *wt,            \
                                                   int32_t *out, size_t n, size_t k)             \
    {                                                                                             \
        const T *a = (const T *)av;                                                               \
        for (size_t j = 0; j < n; j++) {                                                          \
            const int8_t *w = wt + j * k;                                                         \
            uint32_t acc = 0;                                                                     \
            for (size_t i = 0; i < k; i++)                                                        \
                acc += (uint32_t)((int32_t)a[i] * (int32_t)w[i]);                                 \
            out[j] = (int32_t)acc;                                                                \
        }                                                                                         \
    }
EXACT_KERNEL(u8, uint8_t)
EXACT_KERNEL(i8, int8_t)

/* OFF: what is added to a to make it uint8 (0 for uint8, 128 for int8) */
#define PAIRSAT_KERNEL(tag, T, OFF)                                                               \
    static void SIMDOPS_KERNEL_NAME(tag, int8_dot_pairsat)(const void *av, const int8_t *wt,    \
                                                           int32_t *out, size_t n, size_t k)     \
    {                                                                                             \
        const T *a = (const T *)av;                                                               \
        for (size_t j = 0; j < n; j++) {                                                          \
            const int8_t *w = wt + j * k;                                                         \
            uint32_t acc = 0, wsum = 0;                                                           \
            size_t i = 0;                                                                         \
            INT8MM_PAIRSAT_FROM(a, w, i, k, OFF, acc, wsum);                                      \
            out[j] = (int32_t)(acc - (uint32_t)OFF * wsum);                                       \
        }                                                                                         \
    }
PAIRSAT_KERNEL(u8, uint8_t, 0)
PAIRSAT_KERNEL(i8, int8_t, 128)

#define INT8MM_KERNELS(X) X(int8_dot, u8) X(int8_dot, i8) X(int8_dot_pairsat, u8) X(int8_dot_pairsat, i8)
SIMDOPS_DEFINE_REGISTER(int8mm, INT8MM_KERNELS)
