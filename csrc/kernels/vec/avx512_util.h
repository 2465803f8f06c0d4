/* Helpers shared by the AVX-512 clip and shrink kernels: the loop that maps a
 * 64-byte lane-wise function over a row with masked head and tail (masked-off
 * lanes of a load are never read, so nothing past either end is touched:
 * AVX-512 suppresses faults on them). Include only from files compiled with
 * the avx512 flags, inside #if SIMDOPS_COMPILE_AVX512. */
#ifndef SIMDOPS_AVX512_UTIL_H
#define SIMDOPS_AVX512_UTIL_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fp16.h"

/* The byte mask of the first nbytes (<= 64) lanes. */
static inline __mmask64 simdops_avx512_bytes(size_t nbytes)
{
    return nbytes >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << nbytes) - 1);
}

/* The first nbytes (<= 64) of a vector at p as one masked load / store:
 * masked-off lanes load as zero and are never touched. */
static inline __m512i simdops_avx512_load_part(const void *p, size_t nbytes)
{
    return _mm512_maskz_loadu_epi8(simdops_avx512_bytes(nbytes), p);
}
static inline void simdops_avx512_store_part(void *p, __m512i v, size_t nbytes)
{
    _mm512_mask_storeu_epi8(p, simdops_avx512_bytes(nbytes), v);
}

/* y[0..nbytes) = FN(x) for a lane-wise FN(__m512i v, ...) -> __m512i on rows
 * of esize-byte elements. Long rows first run a masked head so that the
 * stores are 64-byte aligned (a split-line store costs a second access);
 * four vectors are loaded before any is stored, so y == x is safe; the tail
 * is one masked load and store (masked-off lanes compute on zeros and are
 * never written). The in-cache loop only: the driver streams long rows. */
#define SIMDOPS_AVX512_MAP(xv, yv, nbytes, esize, FN, ...)                                        \
    do {                                                                                         \
        const unsigned char *sx_ = (const unsigned char *)(xv);                                  \
        unsigned char *sy_ = (unsigned char *)(yv);                                              \
        const size_t nb_ = (nbytes);                                                             \
        size_t i_ = 0;                                                                           \
        if (nb_ >= 1024) {                                                                       \
            size_t h_ = (size_t)(0u - (uintptr_t)sy_) & 63u;                                     \
            if (h_ != 0 && h_ % (esize) == 0) {                                                  \
                __mmask64 m_ = simdops_avx512_bytes(h_);                                         \
                _mm512_mask_storeu_epi8(sy_, m_, FN(_mm512_maskz_loadu_epi8(m_, sx_), __VA_ARGS__)); \
                i_ = h_;                                                                         \
            }                                                                                    \
        }                                                                                        \
        for (; i_ + 256 <= nb_; i_ += 256) {                                                     \
            __m512i a_ = _mm512_loadu_si512((const void *)(sx_ + i_));                           \
            __m512i b_ = _mm512_loadu_si512((const void *)(sx_ + i_ + 64));                      \
            __m512i c_ = _mm512_loadu_si512((const void *)(sx_ + i_ + 128));                     \
            __m512i d_ = _mm512_loadu_si512((const void *)(sx_ + i_ + 192));                     \
            a_ = FN(a_, __VA_ARGS__);                                                            \
            b_ = FN(b_, __VA_ARGS__);                                                            \
            c_ = FN(c_, __VA_ARGS__);                                                            \
            d_ = FN(d_, __VA_ARGS__);                                                            \
            _mm512_storeu_si512((void *)(sy_ + i_), a_);                                         \
            _mm512_storeu_si512((void *)(sy_ + i_ + 64), b_);                                    \
            _mm512_storeu_si512((void *)(sy_ + i_ + 128), c_);                                   \
            _mm512_storeu_si512((void *)(sy_ + i_ + 192), d_);                                   \
        }                                                                                        \
        for (; i_ + 64 <= nb_; i_ += 64)                                                         \
            _mm512_storeu_si512((void *)(sy_ + i_),                                              \
                                FN(_mm512_loadu_si512((const void *)(sx_ + i_)), __VA_ARGS__)); \
        if (i_ < nb_) {                                                                          \
            __mmask64 m_ = simdops_avx512_bytes(nb_ - i_);                                       \
            _mm512_mask_storeu_epi8(sy_ + i_, m_,                                                \
                                    FN(_mm512_maskz_loadu_epi8(m_, sx_ + i_), __VA_ARGS__));     \
        }                                                                                        \
    } while (0)

#endif
