/* TFLite's 8-bit multiply on AVX-512 (qbinary_avx512.c includes this after
 * qbinary_body.h, whose int32 rows and step it falls back on): the
 * qmul_tflite kernels, 64 elements a step. The offset inputs as int16 (|a +
 * oa| <= 255), their product's low and high words (vpmullw, vpmulhw)
 * interleaved into the int32 product, then the call's plan
 * (qbinary_tflm_plan.h): V = cvt_rne(fma(float(p), k, c)) holds SRDHM's
 * result plus the rounding term and zero point in its integer part; a lane is
 * flagged when V's bits w..G-1 are all zero; every other lane is (V - 2^G
 * where SRDHM's result is negative) >> (G + sy), RDBPOT's ties away from zero,
 * narrowed by the packs as the reference's clamp to the type. Flagged lanes: one or two of a
 * 64 by the scalar element, more by the body's int32 step for the whole 64.
 * A call the plan refuses takes the int32 rows. */
#include "qbinary_tflm_plan.h"

/* element of dword l of product vector j: the unpacks' order (j = 2 half +
 * (hi unpack)), 32 half + 8 (l / 4) + 4 (j % 2) + l % 4 */
#define QB_TFLM_ELEM(j, l) (32 * ((j) >> 1) + 8 * ((l) >> 2) + 4 * ((j) & 1) + ((l) & 3))

#define QB_TFLM_LOOP(tag, T, CVT16, PACK, EP, CLAMP)                                               \
    static size_t qb_tflm_rows_##tag##_##CLAMP(const qb_xnn_io *io, T *y, size_t n,                \
                                               const qb_tflm_plan *tp, const qb_consts *c,         \
                                               const simdops_qbinary_params *p)                   \
    {                                                                                              \
        const __m512i oa = _mm512_set1_epi16((short)p->a_offset);                                  \
        const __m512i ob = _mm512_set1_epi16((short)p->b_offset);                                  \
        const __m512 k = _mm512_set1_ps(tp->k), cc = _mm512_set1_ps(tp->c);                        \
        const __m512i win = _mm512_set1_epi32((int32_t)tp->window);                                \
        const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);                           \
        const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);     \
        const __m512i c2g = _mm512_set1_epi32(tp->c2g), adj = _mm512_set1_epi32(tp->adj);          \
        const __m128i sh = _mm_cvtsi32_si128(tp->G + p->y_shift);                                  \
        const T *a = (const T *)io->a, *b = (const T *)io->b;                                      \
        size_t i;                                                                                  \
        (void)lo, (void)hi;                                                                        \
        for (i = 0; i + 64 <= n; i += 64) {                                                        \
            __m512i r[4], s[4], q;                                                                 \
            __mmask16 m[4];                                                                        \
            for (int h = 0; h < 2; h++) {                                                          \
                const __m512i xa = _mm512_add_epi16(_mm512_##CVT16(_mm256_loadu_si256(            \
                    (const __m256i *)(const void *)(a + (i + 32 * h) * io->sa))), oa);             \
                const __m512i xb = _mm512_add_epi16(_mm512_##CVT16(_mm256_loadu_si256(            \
                    (const __m256i *)(const void *)(b + (i + 32 * h) * io->sb))), ob);             \
                const __m512i pl = _mm512_mullo_epi16(xa, xb), ph = _mm512_mulhi_epi16(xa, xb);   \
                r[2 * h] = _mm512_unpacklo_epi16(pl, ph);                                          \
                r[2 * h + 1] = _mm512_unpackhi_epi16(pl, ph);                                      \
            }                                                                                      \
            for (int j = 0; j < 4; j++) {                                                          \
                const __m512i v = _mm512_cvt_roundps_epi32(                                        \
                    _mm512_fmadd_round_ps(_mm512_cvtepi32_ps(r[j]), k, cc, QB_RN), QB_RN);         \
                m[j] = _mm512_testn_epi32_mask(v, win);                                            \
                s[j] = _mm512_sra_epi32(_mm512_mask_sub_epi32(v, _mm512_cmplt_epi32_mask(v, c2g),  \
                                                              v, adj), sh);                        \
            }                                                                                      \
            q = _mm512_permutexvar_epi64(order, _mm512_##PACK(_mm512_packs_epi32(s[0], s[1]),    \
                                                              _mm512_packs_epi32(s[2], s[3]))); \
            if (CLAMP)                                                                             \
                q = _mm512_min_##EP(_mm512_max_##EP(q, lo), hi);                                   \
            if (!((m[0] | m[1]) | (m[2] | m[3]))) {                                                \
                _mm512_storeu_si512((void *)(y + i), q);                                           \
            } else if (qb_tfl_popcnt64((uint64_t)m[0] | (uint64_t)m[1] << 16 |                     \
                                       (uint64_t)m[2] << 32 | (uint64_t)m[3] << 48) <= 2) {        \
                /* the flagged lanes by the scalar element, before y is written (y may be a or b) */ \
                T t[64];                                                                           \
                _mm512_storeu_si512((void *)t, q);                                                 \
                for (int j = 0; j < 4; j++)                                                        \
                    for (unsigned l = 0; l < 16; l++) {                                            \
                        const size_t e = (size_t)QB_TFLM_ELEM(j, l);                               \
                        if ((m[j] >> l) & 1)                                                       \
                            t[e] = (T)qb_tflite_mul_one((int32_t)a[(i + e) * io->sa],              \
                                                        (int32_t)b[(i + e) * io->sb], p);          \
                    }                                                                              \
                memcpy(y + i, t, sizeof(t));                                                       \
            } else { /* many: the whole 64 by the int32 step (the body's rows' block) */           \
                qv_i32 wa[4], wb[4];                                                               \
                qv_widen4_##tag(a + i * io->sa, wa);                                               \
                qv_widen4_##tag(b + i * io->sb, wb);                                               \
                qv_narrow4_##tag(y + i, qb_tfl_mul_v(wa[0], wb[0], c), qb_tfl_mul_v(wa[1], wb[1], c), \
                                 qb_tfl_mul_v(wa[2], wb[2], c), qb_tfl_mul_v(wa[3], wb[3], c),    \
                                 c->lo, c->hi);                                                    \
            }                                                                                      \
        }                                                                                          \
        return i;                                                                                  \
    }

#define QB_TFLM_TYPE(tag, T, CVT16, PACK, EP, IS_U8)                                               \
    QB_TFLM_LOOP(tag, T, CVT16, PACK, EP, 0)                                                       \
    QB_TFLM_LOOP(tag, T, CVT16, PACK, EP, 1)                                                       \
    static inline size_t qb_tflm_rows_##tag(const T *a, const T *b, T *y, size_t n, int form,     \
                                            const simdops_qbinary_params *p)                      \
    {                                                                                              \
        qb_tflm_plan tp;                                                                           \
        qb_consts c;                                                                               \
        qb_xnn_io io;                                                                              \
        if (n < 64)                                                                                \
            return 0;                                                                              \
        qb_tflm_plan_init(&tp, p, IS_U8);                                                          \
        if (!tp.ok)                                                                                \
            return qb_rows_qmul_tflite_##tag(a, b, y, n, form, p);                                 \
        qb_consts_init(&c, p);                                                                     \
        qb_xnn_io_init(&io, a, b, form);                                                           \
        return p->lo <= (IS_U8 ? 0 : -128) && p->hi >= (IS_U8 ? 255 : 127)                        \
                   ? qb_tflm_rows_##tag##_0(&io, y, n, &tp, &c, p)                                 \
                   : qb_tflm_rows_##tag##_1(&io, y, n, &tp, &c, p);                                \
    }                                                                                              \
    QB_FORM_KERNEL(qmul_tflite, tag, T, qb_tflite_mul_one, qb_tflm_rows_##tag)
QB_TFLM_TYPE(i8, int8_t, cvtepi8_epi16, packs_epi16, epi8, 0)
QB_TFLM_TYPE(u8, uint8_t, cvtepu8_epi16, packus_epi16, epu8, 1)
