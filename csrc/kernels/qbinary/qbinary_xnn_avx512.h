/* XNNPACK's 8-bit add on AVX-512 (qbinary_avx512.c includes this between
 * qbinary_x86.h and qbinary_body.h): qv_xnn_rows_i8 / _u8, 64 elements a step,
 * one loop per (high, fold, clamp) of the call's plan (qbinary_xnn_plan.h),
 * in two forms:
 *   pairs (AVX512-VNNI CPUs, multipliers that split): the (a, b) byte pairs
 *     unpacked into one dword per element, one vpdpbusd and one vpdpwssd a 16,
 *     the shift, the packs (in-lane, undoing the unpacks' order; with s >= 16
 *     the high words by vpermt2w, then vpsraw): 23 vector operations a 64
 *     instead of the vpmulld form's ~38;
 *   vpmulld (any AVX-512 CPU): widened inputs, the two multiplies, the shift.
 * A one-element input is read from a 64-byte copy with stride 0, so one loop
 * serves the three forms. After the shift the int32 lies within +-2^18: the
 * zero point added to packssdw's saturated int16 (saturating) gives the same
 * bytes after packsswb / packuswb as the int32 sum would. */
#include "qbinary_plan.h"
#include "qbinary_prefetch.h"

#if defined(__GNUC__) || defined(__clang__)
#define QB_VNNI_TARGET __attribute__((target("avx512vnni")))
#else
#define QB_VNNI_TARGET
#endif
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

/* AVX512-VNNI at run time, by the compiler's own cpuid check (the tiers'
 * detection, dispatch/cpu.h, is a layer above the kernels; this tier's unit
 * runs only where the OS keeps the zmm state, so the cpuid bit suffices) */
static int qb_cpu_vnni(void)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_cpu_supports("avx512vnni");
#elif defined(_MSC_VER)
    static int known, vnni;
    if (!known) { /* benign race: every thread finds the same */
        int r[4];
        __cpuidex(r, 7, 0);
        vnni = (r[2] >> 11) & 1;
        known = 1;
    }
    return vnni;
#else
    return 0;
#endif
}

typedef struct qb_xnn_io {
    const void *a, *b;
    size_t sa, sb; /* 1, or 0 for a one-element input (read from its copy) */
    unsigned char ca[64], cb[64];
} qb_xnn_io;

static inline void qb_xnn_io_init(qb_xnn_io *io, const void *a, const void *b, int form)
{
    io->a = a;
    io->b = b;
    io->sa = io->sb = 1;
    if (form == SIMDOPS_QB_SV) {
        memset(io->ca, *(const unsigned char *)a, 64);
        io->a = io->ca;
        io->sa = 0;
    } else if (form == SIMDOPS_QB_VS) {
        memset(io->cb, *(const unsigned char *)b, 64);
        io->b = io->cb;
        io->sb = 0;
    }
}

/* the four 16-element int32 vectors to bytes (+ zero point unless folded,
 * bounds unless the type's own), stored */
#define QB_XNN_FINISH(PACK, EP, ORDER, PACKS32, r0, r1, r2, r3)                                                  \
    do {                                                                                           \
        __m512i w0 = PACKS32(r0, r1), w1 = PACKS32(r2, r3), q;                                     \
        if (!FOLD) {                                                                               \
            w0 = _mm512_adds_epi16(w0, zp);                                                        \
            w1 = _mm512_adds_epi16(w1, zp);                                                        \
        }                                                                                          \
        q = ORDER(_mm512_##PACK(w0, w1));                                                          \
        if (CLAMP)                                                                                 \
            q = _mm512_min_##EP(_mm512_max_##EP(q, lo), hi);                                       \
        _mm512_storeu_si512((void *)(y + i), q);                                                   \
    } while (0)

/* pairs: dword k of each 128-bit lane of P_j holds the bytes (lo_a, hi_a, lo_b,
 * hi_b) of element 16 lane + 4 j + k; after the packs the lanes are in order */
/* The 64 (a, b) byte pairs at element i of a row (strides io->sa, io->sb; 0 for a
 * broadcast input) as the pair rows read them (XNNPACK's add here, TFLite's add in
 * qbinary_tfl_avx512.h): each input's bytes and their copies with the sign bit
 * flipped (x80), interleaved by LOBYTES (QB_LOBYTES_<tag>) into the low (a0, b0) and
 * high (a1, b1) halves of every 128-bit lane. Declares va, vb, xa, xb, a0, a1, b0, b1. */
#define QB_LOAD_BYTE_PAIRS(LOBYTES, a, b, i, io, x80, a0, a1, b0, b1)                              \
    const __m512i va = _mm512_loadu_si512((const void *)((a) + (i) * (io)->sa));                 \
    const __m512i vb = _mm512_loadu_si512((const void *)((b) + (i) * (io)->sb));                 \
    const __m512i xa = _mm512_xor_si512(va, x80), xb = _mm512_xor_si512(vb, x80);                 \
    const __m512i a0 = LOBYTES(unpacklo, va, xa), a1 = LOBYTES(unpackhi, va, xa);                  \
    const __m512i b0 = LOBYTES(unpacklo, vb, xb), b1 = LOBYTES(unpackhi, vb, xb)

#define QB_XNN_PAIR_LOOP(tag, T, LOBYTES, PACK, EP, HIGH_, FOLD_, CLAMP_)                          \
    static QB_VNNI_TARGET size_t qb_xnn_pairs_##tag##_##HIGH_##FOLD_##CLAMP_(                      \
        const qb_xnn_io *io, T *y, size_t n, const qb_xnn_plan *pl,                                \
        const simdops_qbinary_params *p)                                                          \
    {                                                                                              \
        enum { FOLD = FOLD_, CLAMP = CLAMP_ };                                                     \
        const __m512i high = _mm512_loadu_si512((const void *)qb_xnn_high_words);                  \
        const __m128i sh16 = _mm_cvtsi32_si128(p->shift - 16);                                     \
        const __m512i bias = _mm512_set1_epi32((int32_t)pl->pair_bias);                            \
        const __m512i qm = _mm512_set1_epi32((int32_t)(((uint32_t)(uint16_t)pl->q_b << 16) |       \
                                                       (uint16_t)pl->q_a));                        \
        const __m512i rm = _mm512_set1_epi32((int32_t)(((uint32_t)(uint8_t)pl->r_b << 16) |        \
                                                       (uint8_t)pl->r_a));                         \
        const __m512i x80 = _mm512_set1_epi8((char)0x80), zp = _mm512_set1_epi16((short)p->y_offset); \
        const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);     \
        const __m128i sh = _mm_cvtsi32_si128(p->shift);                                            \
        const T *a = (const T *)io->a, *b = (const T *)io->b;                                      \
        size_t i;                                                                                  \
        (void)high, (void)sh16, (void)sh;                                                          \
        for (i = 0; i + 64 <= n; i += 64) {                                                        \
            QB_PREFETCH_IO(a, b, i, io);                                                           \
            QB_LOAD_BYTE_PAIRS(LOBYTES, a, b, i, io, x80, a0, a1, b0, b1);                         \
            QB_XNN_FINISH(PACK, EP, QB_IN_ORDER, QB_PACKS32_##HIGH_,                              \
                          QB_XNN_PAIR(_mm512_unpacklo_epi16(a0, b0)),                              \
                          QB_XNN_PAIR(_mm512_unpackhi_epi16(a0, b0)),                              \
                          QB_XNN_PAIR(_mm512_unpacklo_epi16(a1, b1)),                              \
                          QB_XNN_PAIR(_mm512_unpackhi_epi16(a1, b1)));                             \
        }                                                                                          \
        return i;                                                                                  \
    }
#define QB_IN_ORDER(q) (q)
#define QB_XNN_PAIR(P) _mm512_dpwssd_epi32(_mm512_dpbusd_epi32(bias, P, rm), P, qm)
/* two accumulators to int16 in packssdw's order: shifted by s, saturated
 * (high 0), or their high words shifted by s - 16 (high 1, s >= 16) */
#define QB_PACKS32_0(r0, r1) _mm512_packs_epi32(_mm512_sra_epi32(r0, sh), _mm512_sra_epi32(r1, sh))
#define QB_PACKS32_1(r0, r1) _mm512_sra_epi16(_mm512_permutex2var_epi16(r0, high, r1), sh16)
#define QB_PACKS32_PLAIN(r0, r1) _mm512_packs_epi32(r0, r1)
/* word 8 L + j of packssdw(r0, r1) comes from dword 4 L + j of r0 (j < 4),
 * else 4 L + j - 4 of r1: here its high word */
static const int16_t qb_xnn_high_words[32] = {
    1, 3, 5, 7, 33, 35, 37, 39, 9, 11, 13, 15, 41, 43, 45, 47,
    17, 19, 21, 23, 49, 51, 53, 55, 25, 27, 29, 31, 57, 59, 61, 63};
/* the word of each element: (a ^ 0x80, a) for int8, (a, a ^ 0x80) for uint8 */
#define QB_LOBYTES_i8(U, v, x) _mm512_##U##_epi8(x, v)
#define QB_LOBYTES_u8(U, v, x) _mm512_##U##_epi8(v, x)

/* vpmulld: 16 elements widened at a time, in order, the packs' lanes put
 * back by one permute */
#define QB_XNN_MUL_LOOP(tag, T, CVT, PACK, EP, FOLD_, CLAMP_)                                      \
    static size_t qb_xnn_mul_##tag##_##FOLD_##CLAMP_(const qb_xnn_io *io, T *y, size_t n,          \
                                                     const qb_xnn_plan *pl,                        \
                                                     const simdops_qbinary_params *p)              \
    {                                                                                              \
        enum { FOLD = FOLD_, CLAMP = CLAMP_ };                                                     \
        const __m512i bias = _mm512_set1_epi32((int32_t)pl->bias);                                 \
        const __m512i ma = _mm512_set1_epi32(p->a_mult), mb = _mm512_set1_epi32(p->b_mult);      \
        const __m512i zp = _mm512_set1_epi16((short)p->y_offset);                                  \
        const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);     \
        const __m128i sh = _mm_cvtsi32_si128(p->shift);                                            \
        const T *a = (const T *)io->a, *b = (const T *)io->b;                                      \
        size_t i;                                                                                  \
        for (i = 0; i + 64 <= n; i += 64) {                                                        \
            __m512i r[4];                                                                          \
            QB_PREFETCH_IO(a, b, i, io);                                                           \
            for (int k = 0; k < 4; k++) {                                                          \
                __m512i va = _mm512_##CVT(_mm_loadu_si128((const __m128i *)(const void *)(a + (i + 16 * k) * io->sa))); \
                __m512i vb = _mm512_##CVT(_mm_loadu_si128((const __m128i *)(const void *)(b + (i + 16 * k) * io->sb))); \
                r[k] = _mm512_sra_epi32(_mm512_add_epi32(bias, _mm512_add_epi32(                   \
                           _mm512_mullo_epi32(va, ma), _mm512_mullo_epi32(vb, mb))), sh);         \
            }                                                                                      \
            QB_XNN_FINISH(PACK, EP, QB_UNLANE, QB_PACKS32_PLAIN, r[0], r[1], r[2], r[3]);                                       \
        }                                                                                          \
        return i;                                                                                  \
    }

#define QB_XNN_LOOPS(tag, T, CVT, PACK, EP, F, C)                                                  \
    QB_XNN_PAIR_LOOP(tag, T, QB_LOBYTES_##tag, PACK, EP, 1, F, C)                                  \
    QB_XNN_MUL_LOOP(tag, T, CVT, PACK, EP, F, C)
#define QB_XNN_TYPE(tag, T, CVT, PACK, EP, IS_U8)                                                  \
    QB_XNN_LOOPS(tag, T, CVT, PACK, EP, 0, 0)                                                      \
    QB_XNN_LOOPS(tag, T, CVT, PACK, EP, 0, 1)                                                      \
    QB_XNN_LOOPS(tag, T, CVT, PACK, EP, 1, 0)                                                      \
    QB_XNN_LOOPS(tag, T, CVT, PACK, EP, 1, 1)                                                      \
    QB_XNN_PAIR_LOOP(tag, T, QB_LOBYTES_##tag, PACK, EP, 0, 1, 0)                                  \
    QB_XNN_PAIR_LOOP(tag, T, QB_LOBYTES_##tag, PACK, EP, 0, 1, 1)                                  \
    static inline size_t qv_xnn_rows_##tag(const T *a, const T *b, T *y, size_t n, int form,      \
                                           const simdops_qbinary_params *p)                       \
    {                                                                                              \
        typedef size_t (*loop_fn)(const qb_xnn_io *, T *, size_t, const qb_xnn_plan *,             \
                                  const simdops_qbinary_params *);                                 \
        /* s < 16 with the zero point not folded: none (qbinary_xnn_plan.h) */                     \
        static const loop_fn pairs[8] = {                                                          \
            NULL, NULL, qb_xnn_pairs_##tag##_010, qb_xnn_pairs_##tag##_011,                        \
            qb_xnn_pairs_##tag##_100, qb_xnn_pairs_##tag##_101, qb_xnn_pairs_##tag##_110,          \
            qb_xnn_pairs_##tag##_111};                                                             \
        loop_fn pair;                                                                              \
        static const loop_fn mul[4] = {qb_xnn_mul_##tag##_00, qb_xnn_mul_##tag##_01,              \
                                       qb_xnn_mul_##tag##_10, qb_xnn_mul_##tag##_11};             \
        /* the parameters' plan (qbinary_plan.h), or derived here where they hold none \
         * for this kind and type */                                                          \
        qb_xnn_plan own;                                                                           \
        const qb_xnn_plan *pl = &p->plan.u.xnn_add;                                                \
        qb_xnn_io io;                                                                              \
        if (n < 64)                                                                                \
            return 0;                                                                              \
        if (!QB_PLAN_STORED(p, SIMDOPS_QB_XNNPACK_ADD, IS_U8)) {                                   \
            qb_xnn_plan_init(&own, p, IS_U8);                                                      \
            pl = &own;                                                                             \
        }                                                                                          \
        qb_xnn_io_init(&io, a, b, form);                                                           \
        pair = pairs[4 * pl->high + 2 * pl->fold + pl->clamp];                                     \
        if (pl->pairs && pair && qb_cpu_vnni())                                                    \
            return pair(&io, y, n, pl, p);                                                         \
        return mul[2 * pl->fold + pl->clamp](&io, y, n, pl, p);                                    \
    }
QB_XNN_TYPE(i8, int8_t, cvtepi8_epi32, packs_epi16, epi8, 0)
QB_XNN_TYPE(u8, uint8_t, cvtepu8_epi32, packus_epi16, epu8, 1)
