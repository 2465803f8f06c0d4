/* TFLite's 8-bit multiply on AVX-512 (qbinary_avx512.c includes this after
 * qbinary_body.h, whose int32 rows and step it falls back on): the qmul_tflite
 * kernels, 64 elements a step, by the requantization fast path's exact
 * float32 form of double rounding applied to the product.
 *
 * The reference (qb_tflite_mul_one): p = (a + oa)(b + ob), x = p << ls,
 * r = RDBPOT(SRDHM(x, M), e), y = clamp(r + o). The rows take calls with
 * ls = 0, M > 0, 1 <= e <= 23, |oa|, |ob| <= 255 and a window from the
 * output offset and bounds (qb_tmf_plan_init; every other call runs the
 * body's int32 rows). There y = p is an int32 with |p| <= 510^2 < 2^18, and
 * rq_fast_x86.h's proof applies word for word with its y = p (it holds for
 * every int32 y; the constants are the ones it computes, rqf_window and
 * rqf_pair_consts of rq_fast_params.h, K = 16):
 *   r = RDBPOT(SRDHM(p, M), e) = floor(v + 1/2 + s 2^-(e+1)), v = p M / 2^(31+e),
 *   s = sgn(p); J = RN_int(RN(float(p) mu + c_s)) (one FMA, embedded
 *   rounding: MXCSR does not matter), c_s = c+ or c- by p's sign;
 *   a lane whose J has bits w..15 all zero (2a = 2^w, a > E, the error
 *   bound) is flagged; every other lane has r + o = J >> 16, J's high word,
 *   and lanes with |F| beyond the clamp's Tc give a high word that the packs
 *   saturate and the bounds clamp as they would r + o (the proof's
 *   unclamped case; |F| >= 2^31 converts to INT32_MIN, flagged).
 * What differs from the requant kernels: only where y comes from. float(p)
 * is exact (|p| < 2^24), and the product itself is exact: a + oa and b + ob
 * lie in [-510, 510] (int16); b + ob is put in the even words of one vector
 * (0 in the odd ones) and in the odd words of another (masked adds), so
 * vpmaddwd against a + oa gives each even element's product alone in one
 * vector and each odd element's in the other (one nonzero term a dword, so
 * exact in int32); the vpermt2w that takes each J's high word
 * interleaves them back into element order. |r| <= 2^30 + 1 and |o| <= 255
 * (the rules' offsets; rqf_window refuses |o| > 65536): r + o does not wrap,
 * as the reference's wrap32 does not.
 *
 * Per 64 elements: 4 widening loads, 2 vpaddw (a's offset), 4 masked vpaddw
 * (b's, even and odd words), 4 vpmaddwd, 4 x (vpsrad + vpternlogd for c_s by
 * p's sign, vcvtdq2ps, vfmadd, vcvtps2dq, vptestnmd), 2 vpermt2w (the high
 * words, in element order), packsswb / packuswb, vpermq, the bounds when not
 * the type's own, the store: ~43 vector operations where the int32 step
 * takes ~75 (vpmullw / vpmulhw and four unpacks for the products measured
 * ~10% slower). Where the plan allows (qbinary_tfl_mul_plan.h: every product
 * within +-2^16 and c+ / c- sharing their low 16 bits, the output offset moved
 * if need be) vpternlogd picks c_s on the product itself, without the 4
 * vpsrad, and 2 vpaddsw add the moved offset back: ~41 (2-3% faster in C). A block with a flagged lane (about 2a / 2^16 of the lanes
 * with scales that put no exact ties near the window; up to all of them where
 * many products land on ties) is computed again by the int32 step before
 * it is stored, so y may be a or b.
 * Proved parameter sets (plan.proved, set only on a call's own copy by
 * rules/qbinary_proof.c): the same loops without the window test and without
 * the flagged-block branch (WIN 0), with the proved form's constants (no a).
 * Exact because qbinary_tfl_mul_proof.h compared exactly this computation
 * (its model follows these instructions, the pick bit for bit) with the exact
 * kernel over every one of the 65,536 input pairs of the parameter set, and an
 * 8-bit input has no other pair; a form with one constant for both signs
 * (pick 2 in the plan, PICK 3 here) also drops the sign pick. ~37 vector
 * operations a 64 (tools/qmul_bound.c's tfl-proved: 12.0-12.2 cycles a 64 in
 * L1 against the window rows' 14.0-14.4). The proof tries first (after the one
 * constant) the floor form: J converted rounding down with integer constants
 * 2^16 (o + 1/2 +- 2^-(e+1)), whose low 16 bits are zero for e <= 7 even at the usual
 * offsets 0 and -1, so the product picks them with no moved offset and no vpaddsw:
 * ~35 operations (tools/qmul_bound.c's tfl-floor). */
#include "qbinary_plan.h"

/* J of 16 int32 products: RN_int(RN(float(x) mu + c_s)), c_s = c- where x < 0
 * (vpternlogd 0xCA: a ? b : c bitwise; a = x's sign spread by vpsrad, or with
 * PICK 1 / 2 x itself: the plan's pick form, qbinary_tfl_mul_plan.h; PICK 3: one
 * constant, cpos, the proved form's without a pick) */
static inline __m512i qb_tmf_convert(__m512i x, __m512 mu, __m512i cpos, __m512i cneg, int pick,
                                     int floor_cvt)
{
    const __m512 cs = _mm512_castsi512_ps(
        pick == 3 ? cpos
                  : _mm512_ternarylogic_epi32(pick ? x : _mm512_srai_epi32(x, 31), cneg, cpos, 0xCA));
    const __m512 f = _mm512_fmadd_round_ps(_mm512_cvtepi32_ps(x), mu, cs, QB_RN);
#ifdef QB_TMF_MUTANT_FLOOR_NEAREST /* the harness's mutant: the floor form's rounding lost */
    floor_cvt = 0;
#endif
    return floor_cvt ? _mm512_cvt_roundps_epi32(f, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
                     : _mm512_cvt_roundps_epi32(f, QB_RN);
}

/* word i of the high words of (even, odd), the products of the even and the odd
 * elements: i even from even's dword i / 2 (word i + 1), i odd from odd's dword
 * (i - 1) / 2 (word 32 + i): element order again */
#define QB_TMF_HIGH_WORDS                                                                          \
    _mm512_setr_epi32(0x00210001, 0x00230003, 0x00250005, 0x00270007, 0x00290009, 0x002B000B,      \
                      0x002D000D, 0x002F000F, 0x00310011, 0x00330013, 0x00350015, 0x00370017,      \
                      0x00390019, 0x003B001B, 0x003D001D, 0x003F001F)

/* one loop per bounds (kept, or the type's own: the packs saturate to it), pick
 * (0: the sign spread by vpsrad; 1: the product picks, the plan's offset difference
 * added to the high words; 2: the same with no difference; 3: one constant, proved
 * only) and window (WIN 0: the plan is proved, qbinary_tfl_mul_proof.h: no lane is
 * tested, the form is exact for every input pair) */
#define QB_TMF_LOOP(tag, T, WIDEN, PACK, EP, CLAMP, PICK, WIN, FLOOR)                              \
    static size_t qb_tmf_rows_##tag##_##CLAMP##PICK##WIN##FLOOR(const qb_xnn_io *io, T *y,        \
                                                    size_t n,                                      \
                                                    const qb_tmf_plan *tp, const qb_consts *c,     \
                                                    const simdops_qbinary_params *p)              \
    {                                                                                              \
        const __m512i zadd = _mm512_set1_epi16((short)tp->zp_add);                                 \
        const __m512i oa = _mm512_set1_epi16((short)p->a_offset);                                  \
        const __m512i ob = _mm512_set1_epi16((short)p->b_offset);                                  \
        const __m512 mu = _mm512_set1_ps(tp->mu);                                                  \
        const __m512i cpos = _mm512_castps_si512(_mm512_set1_ps(tp->cpos));                        \
        const __m512i cneg = _mm512_castps_si512(_mm512_set1_ps(tp->cneg));                        \
        const __m512i win = _mm512_set1_epi32((int32_t)tp->window);                                \
        const __m512i high = QB_TMF_HIGH_WORDS;                                                    \
        const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);                           \
        const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);     \
        const T *a = (const T *)io->a, *b = (const T *)io->b;                                      \
        /* the strides in locals the stores to y (char-typed) cannot alias */                 \
        const size_t sa = io->sa, sb = io->sb;                                                     \
        size_t i;                                                                                  \
        (void)lo, (void)hi, (void)zadd, (void)win, (void)c, (void)cneg;                            \
        for (i = 0; i + 64 <= n; i += 64) {                                                        \
            __m512i w[2], q;                                                                       \
            __mmask16 fl = 0;                                                                      \
            QB_PREFETCH_IO(a, b, i, io);                                                           \
            for (int h = 0; h < 2; h++) {                                                          \
                /* b + ob in the even words, 0 in the odd ones, and the other way round: \
                 * vpmaddwd then gives each even (odd) element's product alone */         \
                const __m512i xa = _mm512_add_epi16(WIDEN(a + (i + 32 * h) * sa), oa);             \
                const __m512i wb = WIDEN(b + (i + 32 * h) * sb);                                   \
                const __m512i be = _mm512_maskz_add_epi16(0x55555555u, wb, ob);                    \
                const __m512i bo = _mm512_maskz_add_epi16(0xAAAAAAAAu, wb, ob);                    \
                const __m512i j0 =                                                                 \
                    qb_tmf_convert(_mm512_madd_epi16(xa, be), mu, cpos, cneg, PICK, FLOOR);        \
                const __m512i j1 =                                                                 \
                    qb_tmf_convert(_mm512_madd_epi16(xa, bo), mu, cpos, cneg, PICK, FLOOR);        \
                if (WIN)                                                                           \
                    fl |= _mm512_testn_epi32_mask(j0, win) | _mm512_testn_epi32_mask(j1, win);     \
                w[h] = _mm512_permutex2var_epi16(j0, high, j1);                                    \
                if (PICK == 1)                                                                     \
                    w[h] = _mm512_adds_epi16(w[h], zadd);                                          \
            }                                                                                      \
            if (WIN && fl) { /* a flagged lane: the block by the int32 step, inputs intact */      \
                qv_i32 wa[4], wb[4];                                                               \
                qv_widen4_##tag(a + i * sa, wa);                                                   \
                qv_widen4_##tag(b + i * sb, wb);                                                   \
                qv_narrow4_##tag(y + i, qb_tfl_mul_v(wa[0], wb[0], c),                             \
                                 qb_tfl_mul_v(wa[1], wb[1], c), qb_tfl_mul_v(wa[2], wb[2], c),    \
                                 qb_tfl_mul_v(wa[3], wb[3], c), c->lo, c->hi);                     \
                continue;                                                                          \
            }                                                                                      \
            /* the pack interleaves the halves' 64-bit pieces lane by lane */                      \
            q = _mm512_permutexvar_epi64(order, _mm512_##PACK(w[0], w[1]));                        \
            if (CLAMP)                                                                             \
                q = _mm512_min_##EP(_mm512_max_##EP(q, lo), hi);                                   \
            _mm512_storeu_si512((void *)(y + i), q);                                               \
        }                                                                                          \
        return i;                                                                                  \
    }

#define QB_TMF_LOOPS(tag, T, PACK, EP, CLAMP)                                                     \
    QB_TMF_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, CLAMP, 0, 1, 0)                              \
    QB_TMF_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, CLAMP, 1, 1, 0)                              \
    QB_TMF_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, CLAMP, 2, 1, 0)                              \
    QB_TMF_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, CLAMP, 0, 0, 0)                              \
    QB_TMF_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, CLAMP, 1, 0, 0)                              \
    QB_TMF_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, CLAMP, 2, 0, 0)                              \
    QB_TMF_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, CLAMP, 3, 0, 0)                              \
    QB_TMF_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, CLAMP, 2, 0, 1)
#define QB_TMF_TYPE(tag, T, PACK, EP, IS_U8)                                                       \
    QB_TMF_LOOPS(tag, T, PACK, EP, 0)                                                              \
    QB_TMF_LOOPS(tag, T, PACK, EP, 1)                                                              \
    static inline size_t qb_tmf_rows_##tag(const T *a, const T *b, T *y, size_t n, int form,      \
                                           const simdops_qbinary_params *p)                       \
    {                                                                                              \
        typedef size_t (*loop_fn)(const qb_xnn_io *, T *, size_t, const qb_tmf_plan *,             \
                                  const qb_consts *, const simdops_qbinary_params *);              \
        static const loop_fn loops[6] = {qb_tmf_rows_##tag##_0010, qb_tmf_rows_##tag##_0110,       \
                                         qb_tmf_rows_##tag##_0210, qb_tmf_rows_##tag##_1010,       \
                                         qb_tmf_rows_##tag##_1110, qb_tmf_rows_##tag##_1210};      \
        /* the proved form's rows: no window (pick 0, 1, 2 as above; 3 one constant; 4 the \
         * floor form, the product's pick with no moved offset) */                          \
        static const loop_fn proved[10] = {                                                        \
            qb_tmf_rows_##tag##_0000, qb_tmf_rows_##tag##_0100, qb_tmf_rows_##tag##_0200,          \
            qb_tmf_rows_##tag##_0300, qb_tmf_rows_##tag##_0201, qb_tmf_rows_##tag##_1000,          \
            qb_tmf_rows_##tag##_1100, qb_tmf_rows_##tag##_1200, qb_tmf_rows_##tag##_1300,          \
            qb_tmf_rows_##tag##_1201};                                                             \
        /* the parameters' plan (qbinary_plan.h), or derived here where they hold none \
         * for this kind and type */                                                          \
        qb_tmf_plan own;                                                                           \
        const qb_tmf_plan *tp = &p->plan.u.tfl_mul;                                                \
        qb_consts c;                                                                               \
        qb_xnn_io io;                                                                              \
        if (n < 64)                                                                                \
            return 0;                                                                              \
        if (!QB_PLAN_STORED(p, SIMDOPS_QB_TFLITE_MUL, IS_U8)) {                                    \
            qb_tmf_plan_init(&own, p, IS_U8);                                                      \
            tp = &own;                                                                             \
        }                                                                                          \
        if (!tp->ok)                                                                               \
            return qb_rows_qmul_tflite_##tag(a, b, y, n, form, p);                                 \
        qb_consts_init(&c, p);                                                                     \
        qb_xnn_io_init(&io, a, b, form);                                                           \
        if (tp->proved) /* set only on a call's own copy, by the proof (rules/qbinary_proof.c) */ \
            return proved[5 * !qb_bounds_are_type(p, IS_U8) +                                      \
                          (tp->floor_cvt ? 4                                                       \
                           : tp->pick == 2 ? 3                                                     \
                           : tp->pick  ? (tp->zp_add ? 1 : 2)                                      \
                                       : 0)](&io, y, n, tp, &c, p);                                \
        return loops[3 * !qb_bounds_are_type(p, IS_U8) +                                           \
                     (tp->pick ? (tp->zp_add ? 1 : 2) : 0)](&io, y, n, tp, &c, p);                 \
    }                                                                                              \
    QB_FORM_KERNEL(qmul_tflite, tag, T, qb_tflite_mul_one, qb_tmf_rows_##tag)
QB_TMF_TYPE(i8, int8_t, packs_epi16, epi8, 0)
QB_TMF_TYPE(u8, uint8_t, packus_epi16, epu8, 1)
