/* Helpers shared by the AVX2 (+F16C) clip and shrink kernels: the loop that
 * maps a 32-byte lane-wise function over a row (unrolled, exact tail), and
 * float16 ordering keys for comparing halves as int16. Include only from
 * files compiled with the avx2 flags, inside #if SIMDOPS_COMPILE_AVX2. */
#ifndef SIMDOPS_AVX2_UTIL_H
#define SIMDOPS_AVX2_UTIL_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/fp16.h"
#include "kernels/vec/vec_parts.h"

#define SIMDOPS_MXCSR_DAZ 0x0040u /* denormals-are-zero, bit 6 of MXCSR */

/* Up to 32 bytes through a zeroed stack buffer (vec_parts.h):
 * simdops_avx2_load_part(p, nbytes), simdops_avx2_store_part(p, v, nbytes). */
VEC_BUFFER_PARTS(simdops_avx2, __m256i, 32, _mm256_loadu_si256, _mm256_storeu_si256)

/* Four vectors at x + i: all loaded, mapped, then stored with STORE. */
#define SIMDOPS_AVX2_MAP4(sx_, sy_, i_, STORE, FN, ...)                                  \
    do {                                                                                \
        __m256i a_ = _mm256_loadu_si256((const __m256i *)(sx_ + i_));                   \
        __m256i b_ = _mm256_loadu_si256((const __m256i *)(sx_ + i_ + 32));              \
        __m256i c_ = _mm256_loadu_si256((const __m256i *)(sx_ + i_ + 64));              \
        __m256i d_ = _mm256_loadu_si256((const __m256i *)(sx_ + i_ + 96));              \
        a_ = FN(a_, __VA_ARGS__);                                                       \
        b_ = FN(b_, __VA_ARGS__);                                                       \
        c_ = FN(c_, __VA_ARGS__);                                                       \
        d_ = FN(d_, __VA_ARGS__);                                                       \
        STORE((__m256i *)(sy_ + i_), a_);                                               \
        STORE((__m256i *)(sy_ + i_ + 32), b_);                                          \
        STORE((__m256i *)(sy_ + i_ + 64), c_);                                          \
        STORE((__m256i *)(sy_ + i_ + 96), d_);                                          \
    } while (0)

/* y[0..nbytes) = FN(x) for a lane-wise FN(__m256i v, ...) -> __m256i on rows
 * of esize-byte elements. Long rows first run a short head so that the stores
 * are 32-byte aligned (numpy's large buffers sit 16 bytes past a page, and
 * split-line stores cost more than the arithmetic). Four vectors are loaded
 * before any is stored, so y == x is safe; the tail goes through a buffer.
 * The in-cache loop only: rows beyond the cache are streamed by the driver
 * (strided.c). */
#define SIMDOPS_AVX2_MAP(xv, yv, nbytes, esize, FN, ...)                                 \
    do {                                                                                \
        const unsigned char *sx_ = (const unsigned char *)(xv);                        \
        unsigned char *sy_ = (unsigned char *)(yv);                                    \
        const size_t nb_ = (nbytes);                                                    \
        size_t i_ = 0;                                                                  \
        if (nb_ >= 512) {                                                               \
            size_t h_ = (size_t)(0u - (uintptr_t)sy_) & 31u;                            \
            if (h_ != 0 && h_ % (esize) == 0) {                                         \
                simdops_avx2_store_part(sy_, FN(simdops_avx2_load_part(sx_, h_), __VA_ARGS__), h_); \
                i_ = h_;                                                                \
            }                                                                           \
        }                                                                               \
        for (; i_ + 128 <= nb_; i_ += 128)                                              \
            SIMDOPS_AVX2_MAP4(sx_, sy_, i_, _mm256_storeu_si256, FN, __VA_ARGS__);      \
        for (; i_ + 32 <= nb_; i_ += 32)                                                \
            _mm256_storeu_si256((__m256i *)(sy_ + i_),                                  \
                                FN(_mm256_loadu_si256((const __m256i *)(sx_ + i_)), __VA_ARGS__)); \
        if (i_ < nb_)                                                                   \
            simdops_avx2_store_part(sy_ + i_, FN(simdops_avx2_load_part(sx_ + i_, nb_ - i_), __VA_ARGS__), \
                                    nb_ - i_);                                          \
    } while (0)

/* float16 ordering key: for non-NaN halves, key(h) = h < 0 ? -|h| : |h| on
 * the bits orders as the values do, -0 == +0 included; in vectors it is
 * _mm256_sign_epi16(h & 0x7fff, h). NaN keys lie beyond +-0x7c00, so callers
 * mask NaN lanes themselves. */
static inline int simdops_f16_key_scalar(uint16_t h)
{
    int m = h & 0x7fff;
    return (h & 0x8000u) ? -m : m;
}

/* A such that, for every non-NaN half x, (float)x > v <=> key(x) > A. */
static inline int16_t simdops_f16_gt_bound(float v)
{
    uint16_t h;
    int k;
    if (v != v)
        return INT16_MAX; /* nothing compares greater than NaN */
    h = simdops_f32_to_f16(v); /* nearest half; the largest half <= v is it or the one below */
    k = simdops_f16_key_scalar(h);
    if (simdops_f16_to_f32(h) > v)
        k--;
    return (int16_t)k;
}

/* B such that, for every non-NaN half x, (float)x < v <=> key(x) < B. */
static inline int16_t simdops_f16_lt_bound(float v)
{
    uint16_t h;
    int k;
    if (v != v)
        return INT16_MIN;
    h = simdops_f32_to_f16(v);
    k = simdops_f16_key_scalar(h);
    if (simdops_f16_to_f32(h) < v)
        k++;
    return (int16_t)k;
}

#endif
