/* Strided element copies (see gather.h). The vector paths use only the
 * baseline ISA of the target (SSE2 on x86-64, NEON on aarch64), so this file
 * needs no ISA flags. They only move bits: NaN payloads, -0.0 and every
 * integer pass unchanged. */
#include "driver/gather.h"

#include <string.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#define GATHER_SSE2 1
#include <emmintrin.h>
#elif defined(__ARM_NEON) || defined(_M_ARM64)
#define GATHER_NEON 1
#include <arm_neon.h>
#endif

/* The generic loops, one per element size so each compiles to plain moves. */
#define DEFINE_STRIDED(bits)                                                                   \
    static void strided##bits(char *dst, int64_t dst_stride, const char *src,                  \
                              int64_t src_stride, size_t n)                                    \
    {                                                                                          \
        for (size_t i = 0; i < n; i++, dst += dst_stride, src += src_stride) {                 \
            uint##bits##_t v;                                                                  \
            memcpy(&v, src, sizeof(v));                                                        \
            memcpy(dst, &v, sizeof(v));                                                        \
        }                                                                                      \
    }
DEFINE_STRIDED(8)
DEFINE_STRIDED(16)
DEFINE_STRIDED(32)
DEFINE_STRIDED(64)
#undef DEFINE_STRIDED

static void strided(char *dst, int64_t dst_stride, const char *src, int64_t src_stride, size_t n,
                    size_t esize)
{
    switch (esize) {
    case 1: strided8(dst, dst_stride, src, src_stride, n); break;
    case 2: strided16(dst, dst_stride, src, src_stride, n); break;
    case 4: strided32(dst, dst_stride, src, src_stride, n); break;
    default: strided64(dst, dst_stride, src, src_stride, n); break;
    }
}

/* 16 bytes with their esize-byte elements in reverse order (V = 16 / esize
 * elements per vector); every-other element of 32 bytes. */
#if GATHER_SSE2
typedef __m128i vec;
#define LOADU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STOREU(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
static vec reverse64(vec v) { return _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)); }
static vec reverse32(vec v) { return _mm_shuffle_epi32(v, _MM_SHUFFLE(0, 1, 2, 3)); }
static vec reverse16(vec v)
{
    v = reverse32(v);
    v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
    return _mm_shufflehi_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
}
static vec reverse8(vec v)
{
    v = reverse16(v);
    return _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
}
static vec evens64(const char *p) { return _mm_unpacklo_epi64(LOADU(p), LOADU(p + 16)); }
static vec evens32(const char *p)
{
    __m128 a = _mm_castsi128_ps(LOADU(p)), b = _mm_castsi128_ps(LOADU(p + 16));
    return _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
}
/* sign-extend the even half-lanes, then a signed pack that cannot saturate */
static vec evens16(const char *p)
{
    vec a = _mm_srai_epi32(_mm_slli_epi32(LOADU(p), 16), 16);
    vec b = _mm_srai_epi32(_mm_slli_epi32(LOADU(p + 16), 16), 16);
    return _mm_packs_epi32(a, b);
}
static vec evens8(const char *p)
{
    vec a = _mm_srai_epi16(_mm_slli_epi16(LOADU(p), 8), 8);
    vec b = _mm_srai_epi16(_mm_slli_epi16(LOADU(p + 16), 8), 8);
    return _mm_packs_epi16(a, b);
}
#elif GATHER_NEON
typedef uint8x16_t vec;
#define LOADU(p) vld1q_u8((const uint8_t *)(const void *)(p))
#define STOREU(p, v) vst1q_u8((uint8_t *)(void *)(p), (v))
static vec reverse64(vec v) { return vextq_u8(v, v, 8); }
static vec reverse32(vec v) { return reverse64(vreinterpretq_u8_u32(vrev64q_u32(vreinterpretq_u32_u8(v)))); }
static vec reverse16(vec v) { return reverse64(vreinterpretq_u8_u16(vrev64q_u16(vreinterpretq_u16_u8(v)))); }
static vec reverse8(vec v) { return reverse64(vrev64q_u8(v)); }
static vec evens64(const char *p) { return vreinterpretq_u8_u64(vld2q_u64((const uint64_t *)(const void *)p).val[0]); }
static vec evens32(const char *p) { return vreinterpretq_u8_u32(vld2q_u32((const uint32_t *)(const void *)p).val[0]); }
static vec evens16(const char *p) { return vreinterpretq_u8_u16(vld2q_u16((const uint16_t *)(const void *)p).val[0]); }
static vec evens8(const char *p) { return vld2q_u8((const uint8_t *)(const void *)p).val[0]; }
#endif

#if GATHER_SSE2 || GATHER_NEON
/* dst[j] = src_last[-j] for j < n; returns how many were done (a whole
 * number of vectors, never reading outside the n elements). */
#define DEFINE_REVERSE(bits)                                                                 \
    static size_t reverse_run##bits(char *dst, const char *src_last, size_t n)               \
    {                                                                                        \
        enum { E = bits / 8, V = 16 / E };                                                   \
        size_t j = 0;                                                                        \
        for (; j + V <= n; j += V)                                                           \
            STOREU(dst + j * E, reverse##bits(LOADU(src_last - (j + V - 1) * E)));           \
        return j;                                                                            \
    }
/* dst[j] = src[2 * j] for j < n; the vector reads two elements past the last
 * even one it needs, so it stops one vector early. */
#define DEFINE_EVENS(bits)                                                                   \
    static size_t evens_run##bits(char *dst, const char *src, size_t n)                      \
    {                                                                                        \
        enum { E = bits / 8, V = 16 / E };                                                   \
        size_t j = 0;                                                                        \
        for (; j + V < n; j += V)                                                            \
            STOREU(dst + j * E, evens##bits(src + 2 * j * E));                               \
        return j;                                                                            \
    }
DEFINE_REVERSE(8)
DEFINE_REVERSE(16)
DEFINE_REVERSE(32)
DEFINE_REVERSE(64)
DEFINE_EVENS(8)
DEFINE_EVENS(16)
DEFINE_EVENS(32)
DEFINE_EVENS(64)
#undef DEFINE_REVERSE
#undef DEFINE_EVENS

static size_t reverse_run(char *dst, const char *src_last, size_t n, size_t esize)
{
    switch (esize) {
    case 1: return reverse_run8(dst, src_last, n);
    case 2: return reverse_run16(dst, src_last, n);
    case 4: return reverse_run32(dst, src_last, n);
    default: return reverse_run64(dst, src_last, n);
    }
}

static size_t evens_run(char *dst, const char *src, size_t n, size_t esize)
{
    switch (esize) {
    case 1: return evens_run8(dst, src, n);
    case 2: return evens_run16(dst, src, n);
    case 4: return evens_run32(dst, src, n);
    default: return evens_run64(dst, src, n);
    }
}
#else
static size_t reverse_run(char *dst, const char *src_last, size_t n, size_t esize)
{
    (void)dst, (void)src_last, (void)n, (void)esize;
    return 0;
}
static size_t evens_run(char *dst, const char *src, size_t n, size_t esize)
{
    (void)dst, (void)src, (void)n, (void)esize;
    return 0;
}
#endif

void simdops_copy_elements(char *dst, int64_t dst_stride, const char *src, int64_t src_stride,
                           size_t n, size_t esize)
{
    int64_t es = (int64_t)esize;
    size_t done = 0;
    if (n == 0)
        return;
    if (dst_stride == es && src_stride == -es) {
        done = reverse_run(dst, src, n, esize);
    } else if (dst_stride == -es && src_stride == es) {
        /* the same copy seen from the output's lowest address */
        char *dst_first = dst - (int64_t)(n - 1) * es;
        done = reverse_run(dst_first, src + (int64_t)(n - 1) * es, n, esize);
        strided(dst_first + done * esize, es, src + (int64_t)(n - 1 - done) * es, -es, n - done,
                esize);
        return;
    } else if (dst_stride == es && src_stride == 2 * es) {
        done = evens_run(dst, src, n, esize);
    }
    strided(dst + (int64_t)done * dst_stride, dst_stride, src + (int64_t)done * src_stride,
            src_stride, n - done, esize);
}
