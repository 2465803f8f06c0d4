/* TFLite's 8-bit add on AVX512-VNNI CPUs (qbinary_avx512.c includes this
 * after qbinary_body.h, whose int32 rows and step it falls back on): the
 * qadd_tflite kernels, 64 elements a step. The parameters' plan (qbinary_tfl_plan.h,
 * derived once a parameter set into p->plan, qbinary_plan.h, or here when it was not) turns the
 * reference's three SRDHM / RDBPOT stages into one linear form V = a Ma + b Mb
 * + bias, computed exactly by XNNPACK's pair form (one vpdpbusd and one
 * vpdpwssd a 16, qbinary_xnn_plan.h's split of each multiplier), and a
 * window: a lane whose V has bits w..S-1 all zero (within the plan's proven
 * error of a rounding boundary: about one lane in 2^10 or fewer for scales
 * without a common power-of-two ratio, up to half of them where the real
 * value has exact ties) is recomputed: one or two lanes of a 64 by the
 * scalar element, more by the body's int32 step for the whole 64 (so a call
 * full of ties costs about what the int32 rows cost). Every other lane is
 * V >> S, narrowed by the packs as the reference's clamp to the type. A call
 * the plan refuses, or a CPU without VNNI, takes the int32 rows. */
#include "qbinary_plan.h"

/* element of dword l (bit l of the accumulator's mask) of P_j: the pair
 * rows' order, 16 (l / 4) + 4 j + l % 4 */
#define QB_TFL_ELEM(j, l) (16 * ((l) >> 2) + 4 * (j) + ((l) & 3))

/* the lowest set bit's index, m != 0 (the flagged lanes: one or two a 64, so a
 * walk over set bits, not over all 64 with a branch each) */
static inline int qb_tfl_ctz64(uint64_t m)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(m);
#else
    int c = 0;
    for (; !(m & 1); m >>= 1)
        c++;
    return c;
#endif
}

/* whether the byte ranges [p, p + pn) and [q, q + qn) share a byte (qn 0: a one-element
 * input read from its own copy, which y never is) */
static inline int qb_overlaps(const void *p, size_t pn, const void *q, size_t qn)
{
    const uintptr_t x = (uintptr_t)p, z = (uintptr_t)q;
    return qn && x < z + qn && z < x + pn;
}

/* Blocks a run of the rows records before it fixes their flagged lanes: one bit each in
 * a 64-bit word (the blocks' masks sit on the stack: 512 bytes) */
enum { QB_TFL_RUN = 64 };

/* One 64-element block at i: q, the shifted and packed (and clamped) V, and fl, its
 * flagged lanes (bit 16 j + l is dword l of P_j: element QB_TFL_ELEM(j, l)) */
#define QB_TFL_BLOCK(LOBYTES, PACK, EP, CLAMP, a, b, i, io, q, fl)                                 \
    __m512i q;                                                                                     \
    uint64_t fl;                                                                                   \
    {                                                                                              \
        QB_LOAD_BYTE_PAIRS(LOBYTES, a, b, i, io, x80, a0, a1, b0, b1);                             \
        __m512i r[4];                                                                              \
        r[0] = QB_XNN_PAIR(_mm512_unpacklo_epi16(a0, b0));                                         \
        r[1] = QB_XNN_PAIR(_mm512_unpackhi_epi16(a0, b0));                                         \
        r[2] = QB_XNN_PAIR(_mm512_unpacklo_epi16(a1, b1));                                         \
        r[3] = QB_XNN_PAIR(_mm512_unpackhi_epi16(a1, b1));                                         \
        fl = (uint64_t)_mm512_testn_epi32_mask(r[0], win) |                                        \
             (uint64_t)_mm512_testn_epi32_mask(r[1], win) << 16 |                                  \
             (uint64_t)_mm512_testn_epi32_mask(r[2], win) << 32 |                                  \
             (uint64_t)_mm512_testn_epi32_mask(r[3], win) << 48;                                   \
        q = _mm512_##PACK(_mm512_packs_epi32(_mm512_sra_epi32(r[0], sh),                           \
                                             _mm512_sra_epi32(r[1], sh)),                          \
                          _mm512_packs_epi32(_mm512_sra_epi32(r[2], sh),                           \
                                             _mm512_sra_epi32(r[3], sh)));                         \
        if (CLAMP)                                                                                 \
            q = _mm512_min_##EP(_mm512_max_##EP(q, lo), hi);                                       \
    }

/* 64 lanes' exact values by the body's int32 step (about 100 cycles for the 64, where
 * the scalar element takes ~45 a lane): 64 queued lanes, or a block with three or more
 * flagged lanes. qa and qb point at 64 elements each (a one-element input's 64-byte
 * copy serves as its block). */
#define QB_TFL_STEP64(tag, qa, qb, qy, c)                                                          \
    {                                                                                              \
        qv_i32 wa[4], wb[4];                                                                       \
        qv_widen4_##tag(qa, wa);                                                                   \
        qv_widen4_##tag(qb, wb);                                                                   \
        qv_narrow4_##tag(qy, qb_tfl_add_v(wa[0], wb[0], c), qb_tfl_add_v(wa[1], wb[1], c),        \
                         qb_tfl_add_v(wa[2], wb[2], c), qb_tfl_add_v(wa[3], wb[3], c), (c)->lo,   \
                         (c)->hi);                                                                 \
    }

/* The exact values of block i's flagged lanes fl (fl != 0) over y's block, where y may
 * be a or b (the caller has copied the block's inputs first): one or two lanes by the
 * scalar element, more by QB_TFL_STEP64 for the whole 64. */
#define QB_TFL_LANE(T, a, b, y, i, io, bit, p)                                                     \
    {                                                                                              \
        const size_t e_ = (size_t)QB_TFL_ELEM((bit) >> 4, (bit) & 15);                             \
        y[(i) + e_] = (T)qb_tflite_add_one((int32_t)a[((i) + e_) * (io)->sa],                      \
                                           (int32_t)b[((i) + e_) * (io)->sb], p);                  \
    }
#define QB_TFL_FIX(tag, T, a, b, y, i, io, fl, c, p)                                               \
    {                                                                                              \
        const uint64_t f2_ = (fl) & ((fl) - 1); /* fl less its lowest lane */                     \
        if (!(f2_ & (f2_ - 1))) {                                                                  \
            QB_TFL_LANE(T, a, b, y, i, io, qb_tfl_ctz64(fl), p)                                    \
            if (f2_)                                                                               \
                QB_TFL_LANE(T, a, b, y, i, io, qb_tfl_ctz64(f2_), p)                               \
        } else {                                                                                   \
            QB_TFL_STEP64(tag, a + (i) * (io)->sa, b + (i) * (io)->sb, y + (i), c)                 \
        }                                                                                          \
    }

/* The rows. Where y overlaps neither input (the common out= call) a block's flagged lanes
 * are only recorded, without a branch, and fixed after each run of QB_TFL_RUN blocks: one
 * or two lanes of a block queued and computed 64 at a time, more by the block's own
 * int32 step (both QB_TFL_STEP64). A branch on them (taken by ~9% of the blocks with the
 * benchmark's scales) mispredicted often enough to cost half the rows' time (1M elements:
 * 77 us with it, 38 us with the fix-ups left out, 64 us now). Where y is a or b, a
 * flagged block's inputs are copied before y is written, and its lanes fixed from the
 * copy (QB_TFL_FIX). */
#define QB_TFL_ADD_LOOP(tag, T, LOBYTES, PACK, EP, CLAMP)                                          \
    static QB_VNNI_TARGET size_t qb_tfl_add_pairs_##tag##_##CLAMP(                                 \
        const qb_xnn_io *io, T *y, size_t n, const qb_consts *c, const simdops_qbinary_params *p, \
        const simdops_qb_tfl_add_plan *tp)                                                         \
    {                                                                                              \
        const __m512i bias = _mm512_set1_epi32((int32_t)tp->pair_bias);                         \
        const __m512i qm = _mm512_set1_epi32((int32_t)tp->q_ab);                                \
        const __m512i rm = _mm512_set1_epi32((int32_t)tp->r_ab);                                \
        const __m512i x80 = _mm512_set1_epi8((char)0x80);                                          \
        const __m512i win = _mm512_set1_epi32((int32_t)tp->window);                             \
        const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);     \
        const __m128i sh = _mm_cvtsi32_si128(tp->shift);                                        \
        const T *a = (const T *)io->a, *b = (const T *)io->b;                                      \
        /* the strides in a local the stores to y (char-typed for int8) cannot alias: else   \
         * reloaded from *io after every store */                                               \
        const struct { size_t sa, sb; } st_ = {io->sa, io->sb};                                    \
        size_t i = 0;                                                                              \
        (void)lo, (void)hi;                                                                        \
        if (!qb_overlaps(y, n * sizeof(T), a, n * io->sa * sizeof(T)) &&                           \
            !qb_overlaps(y, n * sizeof(T), b, n * io->sb * sizeof(T))) {                           \
            T qa[64], qb[64], qy[64]; /* the queued lanes' inputs and values */                \
            size_t qat[64];           /* and their places in y */                              \
            int m = 0;                                                                             \
            memset(qa, 0, sizeof(qa)); /* the lanes past m of a last, partial step */              \
            memset(qb, 0, sizeof(qb));                                                             \
            while (i + 64 <= n) {                                                                  \
                uint64_t flags[QB_TFL_RUN], flagged = 0;                                           \
                const size_t i0 = i;                                                               \
                const size_t end = n - i >= 64 * (size_t)QB_TFL_RUN ? i + 64 * (size_t)QB_TFL_RUN  \
                                                                    : n;                           \
                for (size_t k = 0; i + 64 <= end; i += 64, k++) {                                  \
                    QB_PREFETCH_IO(a, b, i, &st_);                                                 \
                    QB_TFL_BLOCK(LOBYTES, PACK, EP, CLAMP, a, b, i, &st_, q, fl)                   \
                    _mm512_storeu_si512((void *)(y + i), q);                                       \
                    flags[k] = fl;                                                                 \
                    flagged |= (uint64_t)(fl != 0) << k;                                           \
                }                                                                                  \
                for (; flagged; flagged &= flagged - 1) {                                          \
                    const int k = qb_tfl_ctz64(flagged);                                           \
                    const size_t ib = i0 + 64 * (size_t)k;                                         \
                    uint64_t fk = flags[k];                                                        \
                    const uint64_t f2 = fk & (fk - 1);                                             \
                    if (f2 & (f2 - 1)) { /* three or more: the whole block */                      \
                        QB_TFL_STEP64(tag, a + ib * st_.sa, b + ib * st_.sb, y + ib, c)            \
                        continue;                                                                  \
                    }                                                                              \
                    do { /* one or two lanes into the queue */                                     \
                        const int bit = qb_tfl_ctz64(fk);                                          \
                        const size_t e = ib + (size_t)QB_TFL_ELEM(bit >> 4, bit & 15);             \
                        qa[m] = a[e * st_.sa];                                                     \
                        qb[m] = b[e * st_.sb];                                                     \
                        qat[m] = e;                                                                \
                        if (++m == 64) {                                                           \
                            QB_TFL_STEP64(tag, qa, qb, qy, c);                                 \
                            for (int j = 0; j < 64; j++)                                           \
                                y[qat[j]] = qy[j];                                                 \
                            m = 0;                                                                 \
                        }                                                                          \
                        fk &= fk - 1;                                                              \
                    } while (fk);                                                                  \
                }                                                                                  \
            }                                                                                      \
            if (m) {                                                                               \
                QB_TFL_STEP64(tag, qa, qb, qy, c);                                             \
                for (int j = 0; j < m; j++)                                                        \
                    y[qat[j]] = qy[j];                                                             \
            }                                                                                      \
            return i;                                                                              \
        }                                                                                          \
        for (; i + 64 <= n; i += 64) {                                                             \
            QB_PREFETCH_IO(a, b, i, &st_);                                                         \
            QB_TFL_BLOCK(LOBYTES, PACK, EP, CLAMP, a, b, i, &st_, q, fl)                             \
            if (!fl) {                                                                             \
                _mm512_storeu_si512((void *)(y + i), q);                                           \
            } else { /* y is a or b: the block's inputs copied first (a one-element input's \
                      * 64-byte copy serves as its block) */                                   \
                T ta[64], tb[64];                                                                  \
                const qb_xnn_io lane = {ta, tb, 1, 1, {0}, {0}};                                   \
                memcpy(ta, a + i * st_.sa, sizeof(ta));                                            \
                memcpy(tb, b + i * st_.sb, sizeof(tb));                                            \
                _mm512_storeu_si512((void *)(y + i), q);                                           \
                QB_TFL_FIX(tag, T, ta, tb, (y + i), 0, &lane, fl, c, p)                            \
            }                                                                                      \
        }                                                                                          \
        return i;                                                                                  \
    }

/* A proved plan (qbinary_tfl_proof.h: V >> S equals the reference for every input pair
 * of these parameters, bounds included): XNNPACK's pair rows run V = a Ma + b Mb + bias
 * from the plan's constants, the shift, the packs, no window. The proof checked that V
 * lies in int32 for every pair (the folded loops' condition) and that the multipliers
 * split; y_offset 0 (the bias holds it). */
#define QB_TFL_PROVED(tag, T, IS_U8)                                                               \
    static inline size_t qb_tfl_proved_rows_##tag(const qb_xnn_io *io, T *y, size_t n,            \
                                                  const simdops_qbinary_params *p,                \
                                                  const simdops_qb_tfl_add_plan *tp)              \
    {                                                                                              \
        typedef size_t (*loop_fn)(const qb_xnn_io *, T *, size_t, const qb_xnn_plan *,             \
                                  const simdops_qbinary_params *);                                 \
        static const loop_fn folded[4] = {qb_xnn_pairs_##tag##_010, qb_xnn_pairs_##tag##_011,      \
                                          qb_xnn_pairs_##tag##_110, qb_xnn_pairs_##tag##_111};     \
        simdops_qbinary_params lin;                                                                \
        qb_xnn_plan pl;                                                                            \
        memset(&pl, 0, sizeof(pl));                                                                \
        memset(&lin, 0, sizeof(lin));                                                              \
        lin.shift = tp->shift;                                                                     \
        lin.lo = p->lo;                                                                            \
        lin.hi = p->hi;                                                                            \
        pl.fold = pl.pairs = 1;                                                                    \
        pl.high = tp->shift >= 16;                                                                 \
        pl.clamp = !qb_bounds_are_type(p, IS_U8);                                                  \
        pl.pair_bias = tp->pair_bias;                                                              \
        pl.q_a = (int16_t)(uint16_t)(tp->q_ab & 0xffffu);                                          \
        pl.q_b = (int16_t)(uint16_t)(tp->q_ab >> 16);                                              \
        pl.r_a = (int8_t)(uint8_t)(tp->r_ab & 0xffu);                                              \
        pl.r_b = (int8_t)(uint8_t)((tp->r_ab >> 16) & 0xffu);                                      \
        return folded[2 * pl.high + pl.clamp](io, y, n, &pl, &lin);                                \
    }

#define QB_TFL_ADD_TYPE(tag, T, PACK, EP, IS_U8)                                                   \
    QB_TFL_ADD_LOOP(tag, T, QB_LOBYTES_##tag, PACK, EP, 0)                                         \
    QB_TFL_ADD_LOOP(tag, T, QB_LOBYTES_##tag, PACK, EP, 1)                                         \
    QB_TFL_PROVED(tag, T, IS_U8)                                                                   \
    static inline size_t qb_tfl_rows_##tag(const T *a, const T *b, T *y, size_t n, int form,      \
                                           const simdops_qbinary_params *p)                       \
    {                                                                                              \
        simdops_qb_tfl_add_plan own; /* parameters not derived for this type: derived here */ \
        const simdops_qb_tfl_add_plan *tp = &p->plan.u.tfl_add;                                    \
        qb_consts c;                                                                               \
        qb_xnn_io io;                                                                              \
        if (n < 64)                                                                                \
            return 0;                                                                              \
        if (!QB_PLAN_STORED(p, SIMDOPS_QB_TFLITE_ADD, IS_U8)) {                                    \
            qb_tfl_rows_derive(&own, p, IS_U8);                                                    \
            tp = &own;                                                                             \
        }                                                                                          \
        if (!tp->pairs || !qb_cpu_vnni())                                                          \
            return qb_rows_qadd_tflite_##tag(a, b, y, n, form, p);                                 \
        qb_xnn_io_init(&io, a, b, form);                                                           \
        if (tp->proved)                                                                            \
            return qb_tfl_proved_rows_##tag(&io, y, n, p, tp);                                     \
        qb_consts_init(&c, p);                                                                     \
        /* the type's own bounds: the packs saturate to them, the min / max left out */          \
        return qb_bounds_are_type(p, IS_U8) ? qb_tfl_add_pairs_##tag##_0(&io, y, n, &c, p, tp)     \
                                            : qb_tfl_add_pairs_##tag##_1(&io, y, n, &c, p, tp);    \
    }                                                                                              \
    QB_FORM_KERNEL(qadd_tflite, tag, T, qb_tflite_add_one, qb_tfl_rows_##tag)
QB_TFL_ADD_TYPE(i8, int8_t, packs_epi16, epi8, 0)
QB_TFL_ADD_TYPE(u8, uint8_t, packus_epi16, epu8, 1)
