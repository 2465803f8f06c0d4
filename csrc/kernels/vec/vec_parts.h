/* Tails through a zeroed stack buffer, for the tiers without masked loads
 * and stores (SSE2/SSE4.1, AVX2, NEON): the first nbytes of a vector at p,
 * the padding lanes zero (they compute on zeros and are never written back),
 * and nothing past p + nbytes touched. VEC_BUFFER_PARTS(PREFIX, V, BYTES,
 * LOADU, STOREU) defines PREFIX_load_part(p, nbytes) and
 * PREFIX_store_part(p, v, nbytes) over the tier's unaligned load and store
 * of V. */
#ifndef SIMDOPS_VEC_PARTS_H
#define SIMDOPS_VEC_PARTS_H

#include <stddef.h>
#include <string.h>

#define VEC_BUFFER_PARTS(PREFIX, V, BYTES, LOADU, STOREU)                                    \
    static inline V PREFIX##_load_part(const void *p, size_t nbytes)                         \
    {                                                                                        \
        unsigned char buf[BYTES] = {0};                                                      \
        memcpy(buf, p, nbytes);                                                              \
        return LOADU((const void *)buf);                                                     \
    }                                                                                        \
    static inline void PREFIX##_store_part(void *p, V v, size_t nbytes)                      \
    {                                                                                        \
        unsigned char buf[BYTES];                                                            \
        STOREU((void *)buf, v);                                                              \
        memcpy(p, buf, nbytes);                                                              \
    }

#endif
