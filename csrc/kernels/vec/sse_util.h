/* Helpers shared by the SSE2 and SSE4.1 clip/shrink kernels: SSE2 forms of
 * what SSE2 lacks (32-bit min/max, select), the double step
 * of integer ScaleBias, and the loop driver with its tail. Only SSE2
 * intrinsics appear here, so the SSE2 files stay SSE2-only. */
#ifndef SIMDOPS_SSE_UTIL_H
#define SIMDOPS_SSE_UTIL_H

#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>



/* m ? b : a, bitwise. */
static inline __m128i sseu_select(__m128i m, __m128i b, __m128i a)
{
    return _mm_or_si128(_mm_and_si128(m, b), _mm_andnot_si128(m, a));
}

static inline __m128i sseu_min_epi32(__m128i a, __m128i b)
{
    return sseu_select(_mm_cmpgt_epi32(a, b), b, a);
}

static inline __m128i sseu_max_epi32(__m128i a, __m128i b)
{
    return sseu_select(_mm_cmpgt_epi32(b, a), b, a);
}

/* Integer ScaleBias in double: v = x*s + b (finite), then
 * trunc(max(lo, min(hi, v))). Since trunc is monotone and lo, hi are integers
 * inside the type, this equals the scalar clamp-to-type, truncate, clip. */
typedef struct sseu_sb {
    __m128d s, b, lo, hi;
} sseu_sb;

static inline __m128d sseu_sb_pd(__m128d d, const sseu_sb *c)
{
    d = _mm_add_pd(_mm_mul_pd(d, c->s), c->b); /* two roundings, as the scalar kernel */
    return _mm_max_pd(c->lo, _mm_min_pd(c->hi, d));
}

/* Four int32 -> four int32 results (types whose range fits int32). */
static inline __m128i sseu_sb_epi32(__m128i q, const sseu_sb *c)
{
    __m128i r0 = _mm_cvttpd_epi32(sseu_sb_pd(_mm_cvtepi32_pd(q), c));
    __m128i r1 = _mm_cvttpd_epi32(
        sseu_sb_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(q, _MM_SHUFFLE(1, 0, 3, 2))), c));
    return _mm_unpacklo_epi64(r0, r1);
}

/* Four uint32 as doubles: the signed conversion of x ^ 2^31, plus 2^31 (exact). */
static inline void sseu_cvtepu32_pd(__m128i q, __m128d *lo, __m128d *hi)
{
    const __m128d two31 = _mm_set1_pd(2147483648.0);
    __m128i f = _mm_xor_si128(q, _mm_set1_epi32((int)0x80000000u));
    *lo = _mm_add_pd(_mm_cvtepi32_pd(f), two31);
    *hi = _mm_add_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(f, _MM_SHUFFLE(1, 0, 3, 2))), two31);
}

/* Contiguous elementwise kernel over 16-byte vectors: `op(v, &ctx)` maps one
 * vector of input to one vector of output. Main loop over `unroll` (1, 2 or
 * 4) vectors; the tail runs one vector on a zero-padded copy, so every element
 * goes through the same op. Every load of a step precedes its stores, which
 * keeps in-place (x == y) calls correct.
 * The in-cache loop only: rows beyond the cache are streamed by the driver
 * (strided.c). */
#define SSEU_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define SSEU_STORE(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

/* One 64-byte step of 4 vectors at x + i -> y + i, stored by STORE. */
#define SSEU_STEP4(x, y, i, c, op, STORE)                                               \
    do {                                                                                \
        __m128i v0 = SSEU_LOAD((x) + (i)), v1 = SSEU_LOAD((x) + (i) + 16);              \
        __m128i v2 = SSEU_LOAD((x) + (i) + 32), v3 = SSEU_LOAD((x) + (i) + 48);         \
        v0 = op(v0, &(c));                                                              \
        v1 = op(v1, &(c));                                                              \
        v2 = op(v2, &(c));                                                              \
        v3 = op(v3, &(c));                                                              \
        STORE((y) + (i), v0);                                                           \
        STORE((y) + (i) + 16, v1);                                                      \
        STORE((y) + (i) + 32, v2);                                                      \
        STORE((y) + (i) + 48, v3);                                                      \
    } while (0)

/* One vector of nbytes < 16 at x -> y through a zero-padded buffer. */
#define SSEU_PART(x, y, nbytes, c, op)                                                  \
    do {                                                                                \
        unsigned char buf_[16] = {0};                                                   \
        memcpy(buf_, (x), (nbytes));                                                    \
        SSEU_STORE(buf_, op(SSEU_LOAD(buf_), &(c)));                                    \
        memcpy((y), buf_, (nbytes));                                                    \
    } while (0)


#define SSEU_MAP_KERNEL(name, ptype, esize, unroll, ctx_t, init, op)                    \
    static void name(const void *xv, void *yv, size_t n, const ptype *p)                \
    {                                                                                   \
        const unsigned char *x = (const unsigned char *)xv;                             \
        unsigned char *y = (unsigned char *)yv;                                         \
        const size_t nb = n * (esize);                                                  \
        size_t i = 0;                                                                   \
        ctx_t c;                                                                        \
        init(&c, p);                                                                    \
        if ((unroll) >= 4) {                                                            \
            for (; nb - i >= 64; i += 64)                                               \
                SSEU_STEP4(x, y, i, c, op, SSEU_STORE);                                 \
        }                                                                               \
        if ((unroll) >= 2) {                                                            \
            for (; nb - i >= 32; i += 32) {                                             \
                __m128i v0 = SSEU_LOAD(x + i), v1 = SSEU_LOAD(x + i + 16);              \
                v0 = op(v0, &c);                                                        \
                v1 = op(v1, &c);                                                        \
                SSEU_STORE(y + i, v0);                                                  \
                SSEU_STORE(y + i + 16, v1);                                             \
            }                                                                           \
        }                                                                               \
        for (; nb - i >= 16; i += 16)                                                   \
            SSEU_STORE(y + i, op(SSEU_LOAD(x + i), &c));                                \
        if (i < nb)                                                                     \
            SSEU_PART(x + i, y + i, nb - i, c, op);                                     \
    }

/* Integer shrink constants: thr, nthr, the clamp bounds and B, XORed with
 * `f` where the op works flipped (a lane SSE cannot compare directly). */
typedef struct ishrink {
    __m128i thr, nthr, sub_lo, sub_hi, add_lo, add_hi, b, f;
} ishrink;

#define ISHRINK_INIT(name, field, set1, flip)                    \
    static void name(ishrink *c, const simdops_shrink_params *p) \
    {                                                            \
        const __m128i f = flip;                                  \
        c->f = f;                                                \
        c->thr = _mm_xor_si128(set1(p->thr.field), f);           \
        c->nthr = _mm_xor_si128(set1(p->neg_thr.field), f);      \
        c->sub_lo = _mm_xor_si128(set1(p->sub_lo.field), f);     \
        c->sub_hi = _mm_xor_si128(set1(p->sub_hi.field), f);     \
        c->add_lo = _mm_xor_si128(set1(p->add_lo.field), f);     \
        c->add_hi = _mm_xor_si128(set1(p->add_hi.field), f);     \
        c->b = _mm_xor_si128(set1(p->bias.field), f);            \
    }

/* Integer shrink of one vector: the compares run on cx, the clamps on mx (each x
 * or its flip xf, as the lane's domain needs), then B is subtracted / added and
 * the two branches are kept by their exclusive masks (the zero branch is what
 * neither keeps). */
static inline __m128i ishrink_pick(__m128i gt, __m128i a, __m128i lt, __m128i b)
{
    return _mm_or_si128(_mm_and_si128(gt, a), _mm_and_si128(lt, b));
}
#define ISHRINK_OP(name, CMPGT, SUB, ADD, MIN, MAX, cx, mx)                                       \
    static inline __m128i name(__m128i x, const ishrink *c)                                      \
    {                                                                                             \
        const __m128i xf = _mm_xor_si128(x, c->f);                                               \
        const __m128i gt = CMPGT(cx, c->thr), lt = CMPGT(c->nthr, cx);                           \
        const __m128i s = SUB(MIN(MAX(mx, c->sub_lo), c->sub_hi), c->b);                         \
        const __m128i a = ADD(MIN(MAX(mx, c->add_lo), c->add_hi), c->b);                         \
        (void)xf;                                                                                 \
        return ishrink_pick(gt, s, lt, a);                                                        \
    }

#define SET1_8(v) _mm_set1_epi8((char)(v))
#define SET1_16(v) _mm_set1_epi16((short)(v))
#define SET1_32(v) _mm_set1_epi32((int)(v))

#endif
