/* qmul_bound: the fp32 quantized multiply's instruction mixes against np.add's,
 * in core cycles per 64 int8 elements, buffers in L1 (4 KiB rows, so memory
 * does not decide). Each iteration reads its own 64 a and 64 b bytes and
 * writes its own 64 y bytes: iterations are independent chains, the loop
 * measures throughput. Rows:
 *   add      vmovdqu a, vpaddb b, vmovdqu y: np.add's loop (3 ops a 64)
 *   fpw      the AVX-512 rows of qbinary_fpmul_avx512.h (XNNPACK form: the
 *            float multiply, the integer zero point, no bounds): ~35 ops
 *   fpw-nozp the same without the zero points' subtractions and the
 *            integer zero point (not the arithmetic: what they cost)
 *   float    only the float stage: 4 x (vcvtdq2ps, vmulps, vcvtps2dq) on
 *            loaded int32, 2 packssdw, 1 packsswb, 1 vpermq, 1 store
 *   eo       even / odd bytes by word shifts instead of the widening loads
 *            (fewer shuffles, as many operations)
 *   madd     products by vpmaddwd against b's even / odd words (zeroed by
 *            the masked zero-point subtraction), no unpacks, one vpermb
 *            (AVX512-VBMI) to order the bytes: 33 operations
 *   tfl      TFLite's multiply, the AVX-512 rows of qbinary_tfl_mul_avx512.h
 *            (their flagged-block branch never taken): the vpmaddwd
 *            products, per 16 vpsrad + vpternlogd (c+ / c- by the sign),
 *            vcvtdq2ps, vfmadd, vcvtps2dq, vptestnmd, the high words by
 *            vpermt2w, packsswb, vpermq: ~43 operations
 *   tfl-pick the rows' pick form: vpternlogd on the product itself (no
 *            vpsrad), 2 vpaddsw for the moved output offset: ~41
 *   tfl-proved the pick form without the window test: the rows of a
 *            parameter set proved exact over all its input pairs
 *            (qbinary_tfl_mul_proof.h): ~37
 *   tfl-floor the proof's floor form (qbinary_tfl_mul_proof.h): the pick on the
 *            product with no moved offset (no vpaddsw), J converted rounding down: ~35
 *   tfl-floor-vbmi the floor form at K = 0: J = r + o itself, vpackssdw and
 *            AVX512-VBMI's vpermb in place of the vpermt2w high words and vpermq
 *            (the cheapest exact mix measured: the bound of goals.QB_TFL_MUL_BOUND): ~35
 *   tfl-abs  an exact form without the pick, tried: products of |a + oa| and
 *            |b + ob| (one constant for every product: TFLite's rounding is
 *            odd, y = sgn(p) g(|p|), for M with < 15 trailing zeros), the sign
 *            of each element by two vpcmpb on the 8-bit inputs and kxorq, then
 *            negated in the words (masked vpsubw) and the offset added: ~43
 *   tfl-core the same without the sign pick and the window test: the
 *            product, one convert / fma / convert a 16 and the narrowing,
 *            what any float form of the exact result computes (~31)
 *   ort      ONNX Runtime's add, the AVX-512 rows' mix (qbinary_body.h's step with
 *            qbinary_avx512.c's qv_ort_add): per 16 two vpmovsxbd, two vcvtdq2ps,
 *            two vfmadd (b rb + F, then a ra + t), one vcvtps2dq; packssdw x2,
 *            packsswb, vpermd, the bounds (vpmaxsb, vpminsb), store: 35
 *   ort-core the same without the bounds (the type's own: the packs saturate
 *            to them): 33, what the arithmetic needs in this form
 *   madd-shuf the vpmaddwd form with vpshufb + vpermq in place of vpermb (no
 *            AVX512-VBMI): 34
 * Zen 4 runs these mixes at 3-4 vector operations a cycle: the cycles follow
 * the operation count, not one port.
 * The clock comes from a dependent chain of integer adds (1 cycle each).
 *
 *   bash tools/cbench.sh /tmp/kb && /tmp/kb/qmul_bound [reps=200000]
 * x86-64 with AVX-512 F+BW only (built with its own flags, no package code). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>

#include "bench_util.h" /* bench_now, bench_cycles_per_second: the tools' clock */

enum { ROW = 4096 };
/* The rows' small fixed loops (2 or 4 vectors) unrolled: at -O2 GCC kept them as
 * loops and stored their vectors to the stack for the packs after them (8 extra
 * memory operations a 64 in the ONNX Runtime rows, ~1 cycle), which made the rows
 * measure more than the instruction mix they name. */
#define QB_UNROLL _Pragma("GCC unroll 4")
static int8_t A[ROW] __attribute__((aligned(64))), B[ROW] __attribute__((aligned(64))),
    Y[ROW] __attribute__((aligned(64)));
static int32_t P[ROW] __attribute__((aligned(64)));

static void row_add(void)
{
    for (int i = 0; i < ROW; i += 64)
        _mm512_store_si512((void *)(Y + i), _mm512_add_epi8(_mm512_load_si512((const void *)(A + i)),
                                                            _mm512_load_si512((const void *)(B + i))));
}

#define CVT(x) _mm512_cvt_roundps_epi32(_mm512_mul_ps(_mm512_cvtepi32_ps(x), s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define WIDEN(p) _mm512_cvtepi8_epi16(_mm256_load_si256((const __m256i *)(const void *)(p)))
static inline __m512i half(__m512i a, __m512i b, __m512 s)
{
    const __m512i lo = _mm512_mullo_epi16(a, b), hi = _mm512_mulhi_epi16(a, b);
    return _mm512_packs_epi32(CVT(_mm512_unpacklo_epi16(lo, hi)), CVT(_mm512_unpackhi_epi16(lo, hi)));
}

static void row_fpw(int zp_ops)
{
    const __m512i za = _mm512_set1_epi16(3), zb = _mm512_set1_epi16(-5), zp = _mm512_set1_epi16(7);
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    const __m512 s = _mm512_set1_ps(0.0123f);
    for (int i = 0; i < ROW; i += 64) {
        __m512i a0 = WIDEN(A + i), a1 = WIDEN(A + i + 32), b0 = WIDEN(B + i), b1 = WIDEN(B + i + 32);
        __m512i w0, w1;
        if (zp_ops) {
            a0 = _mm512_sub_epi16(a0, za), a1 = _mm512_sub_epi16(a1, za);
            b0 = _mm512_sub_epi16(b0, zb), b1 = _mm512_sub_epi16(b1, zb);
        }
        w0 = half(a0, b0, s);
        w1 = half(a1, b1, s);
        if (zp_ops) {
            w0 = _mm512_adds_epi16(w0, zp);
            w1 = _mm512_adds_epi16(w1, zp);
        }
        _mm512_store_si512((void *)(Y + i), _mm512_permutexvar_epi64(order, _mm512_packs_epi16(w0, w1)));
    }
}

/* even / odd bytes split by word shifts (no widening shuffle); the results
 * put back in order by packsswb and one in-lane vpshufb */
static void row_fpw_eo(void)
{
    const __m512i za = _mm512_set1_epi16(3), zb = _mm512_set1_epi16(-5), zp = _mm512_set1_epi16(7);
    const __m512i inter = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15));
    const __m512 s = _mm512_set1_ps(0.0123f);
    for (int i = 0; i < ROW; i += 64) {
        const __m512i x = _mm512_load_si512((const void *)(A + i)), z = _mm512_load_si512((const void *)(B + i));
        const __m512i ae = _mm512_sub_epi16(_mm512_srai_epi16(_mm512_slli_epi16(x, 8), 8), za);
        const __m512i ao = _mm512_sub_epi16(_mm512_srai_epi16(x, 8), za);
        const __m512i be = _mm512_sub_epi16(_mm512_srai_epi16(_mm512_slli_epi16(z, 8), 8), zb);
        const __m512i bo = _mm512_sub_epi16(_mm512_srai_epi16(z, 8), zb);
        const __m512i we = _mm512_adds_epi16(half(ae, be, s), zp), wo = _mm512_adds_epi16(half(ao, bo, s), zp);
        _mm512_store_si512((void *)(Y + i), _mm512_shuffle_epi8(_mm512_packs_epi16(we, wo), inter));
    }
}

/* products by vpmaddwd against b's even / odd words (the others zeroed by the
 * zero point's masked subtraction): no unpacks; one vpermb puts the bytes in order */
__attribute__((target("avx512vbmi"))) static void row_fpw_madd(void)
{
    const __m512i za = _mm512_set1_epi16(3), zb = _mm512_set1_epi16(-5), zp = _mm512_set1_epi16(7);
    const __m512 s = _mm512_set1_ps(0.0123f);
    static int8_t idx[64];
    static int built;
    __m512i order;
    /* packsswb(w0, w1) byte j of lane L: j < 8 from w0, else w1; within, word m
     * of w's lane L: m < 4 -> element 8L + 2m (even), else 8L + 2(m - 4) + 1 */
    for (int L = 0; L < 4 && !built; L++)
        for (int j = 0; j < 16; j++) {
            int half = j >= 8, m = j & 7;
            int e = 32 * half + 8 * L + (m < 4 ? 2 * m : 2 * (m - 4) + 1);
            idx[e] = (int8_t)(16 * L + j);
        }
    built = 1;
    order = _mm512_loadu_si512((const void *)idx);
    for (int i = 0; i < ROW; i += 64) {
        __m512i w[2];
        QB_UNROLL for (int h = 0; h < 2; h++) {
            const __m512i a = _mm512_sub_epi16(WIDEN(A + i + 32 * h), za), b = WIDEN(B + i + 32 * h);
            const __m512i be = _mm512_maskz_sub_epi16(0x55555555u, b, zb), bo = _mm512_maskz_sub_epi16(0xAAAAAAAAu, b, zb);
            w[h] = _mm512_adds_epi16(_mm512_packs_epi32(CVT(_mm512_madd_epi16(a, be)), CVT(_mm512_madd_epi16(a, bo))), zp);
        }
        _mm512_store_si512((void *)(Y + i), _mm512_permutexvar_epi8(order, _mm512_packs_epi16(w[0], w[1])));
    }
}

/* TFLite's multiply (qbinary_tfl_mul_avx512.h's loop, L1 rows): exact = 1 the
 * rows' mix, 2 their pick form, 3 the pick form without the window test (the proved
 * rows), 4 the proved floor form (pick, no moved offset, rounding down), 5 the
 * abs-sign form (tfl-abs above), 0 without the sign pick and the window test
 * (inlined into each call, so exact is a constant there) */
static inline __attribute__((always_inline)) void row_tfl(int exact)
{
    const __m512i zadd = _mm512_set1_epi16(-3);
    const __m512i oa = _mm512_set1_epi16(3), ob = _mm512_set1_epi16(-5);
    const __m512 mu = _mm512_set1_ps(1489.5f);
    const __m512i cpos = _mm512_castps_si512(_mm512_set1_ps(-31743.5f));
    const __m512i cneg = _mm512_castps_si512(_mm512_set1_ps(-33791.5f));
    const __m512i win = _mm512_set1_epi32(0xFFF8);
    const __m512i high = _mm512_setr_epi32(0x00210001, 0x00230003, 0x00250005, 0x00270007, 0x00290009,
                                           0x002B000B, 0x002D000D, 0x002F000F, 0x00310011, 0x00330013,
                                           0x00350015, 0x00370017, 0x00390019, 0x003B001B, 0x003D001D,
                                           0x003F001F);
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    const __m512i za = _mm512_set1_epi8(-3), zb = _mm512_set1_epi8(5);
    for (int i = 0; i < ROW; i += 64) {
        __m512i w[2];
        __mmask16 fl = 0;
        __mmask64 neg = 0;
        if (exact == 5) /* each element's sign: a + oa < 0 xor b + ob < 0 */
            neg = _mm512_cmplt_epi8_mask(_mm512_load_si512((const void *)(A + i)), za) ^
                  _mm512_cmplt_epi8_mask(_mm512_load_si512((const void *)(B + i)), zb);
        QB_UNROLL for (int h = 0; h < 2; h++) {
            __m512i xa = _mm512_add_epi16(WIDEN(A + i + 32 * h), oa);
            const __m512i wb = WIDEN(B + i + 32 * h);
            __m512i be = _mm512_maskz_add_epi16(0x55555555u, wb, ob);
            __m512i bo = _mm512_maskz_add_epi16(0xAAAAAAAAu, wb, ob);
            if (exact == 5) {
                xa = _mm512_abs_epi16(xa);
                be = _mm512_abs_epi16(be);
                bo = _mm512_abs_epi16(bo);
            }
            __m512i p[2] = {_mm512_madd_epi16(xa, be), _mm512_madd_epi16(xa, bo)}, j[2];
            QB_UNROLL for (int k = 0; k < 2; k++) {
                const __m512 cs = exact >= 2 && exact <= 4
                                      ? _mm512_castsi512_ps(_mm512_ternarylogic_epi32(p[k], cneg, cpos, 0xCA))
                                  : exact == 1 ? _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
                                                     _mm512_srai_epi32(p[k], 31), cneg, cpos, 0xCA))
                                               : _mm512_castsi512_ps(cpos);
                const __m512 f = _mm512_fmadd_round_ps(_mm512_cvtepi32_ps(p[k]), mu, cs,
                                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                j[k] = exact == 4 ? _mm512_cvt_roundps_epi32(f, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
                                  : _mm512_cvt_roundps_epi32(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                if (exact == 1 || exact == 2)
                    fl |= _mm512_testn_epi32_mask(j[k], win);
            }
            w[h] = _mm512_permutex2var_epi16(j[0], high, j[1]);
            if (exact == 5) /* the sign, then the offset */
                w[h] = _mm512_adds_epi16(_mm512_mask_sub_epi16(w[h], (__mmask32)(neg >> (32 * h)),
                                                               _mm512_setzero_si512(), w[h]),
                                         zadd);
            else if (exact == 2 || exact == 3)
                w[h] = _mm512_adds_epi16(w[h], zadd);
        }
        if (fl) /* never with these rows' data: counted, not taken */
            Y[i] ^= 1;
        _mm512_store_si512((void *)(Y + i), _mm512_permutexvar_epi64(order, _mm512_packs_epi16(w[0], w[1])));
    }
}


/* ONNX Runtime's add: fl(a ra + fl(b rb + F)) rounded to nearest even, saturated
 * (clamp 1: the rows' bounds as well) */
static inline __attribute__((always_inline)) void row_ort(int clamp)
{
    const __m512 ra = _mm512_set1_ps(0.0417f / 0.0712f), rb = _mm512_set1_ps(0.0388f / 0.0712f);
    const __m512 fx = _mm512_set1_ps(1.0f - (3.0f * 0.0417f - 5.0f * 0.0388f) / 0.0712f);
    const __m512i unlane = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i lo = _mm512_set1_epi8(-100), hi = _mm512_set1_epi8(100);
    for (int i = 0; i < ROW; i += 64) {
        __m512i r[4], q;
        QB_UNROLL for (int k = 0; k < 4; k++) {
            const __m512 fa = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_load_si128((const __m128i *)(const void *)(A + i + 16 * k))));
            const __m512 fb = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_load_si128((const __m128i *)(const void *)(B + i + 16 * k))));
            const __m512 t = _mm512_fmadd_round_ps(fb, rb, fx, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            r[k] = _mm512_cvt_roundps_epi32(_mm512_fmadd_round_ps(fa, ra, t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        }
        q = _mm512_permutexvar_epi32(unlane, _mm512_packs_epi16(_mm512_packs_epi32(r[0], r[1]), _mm512_packs_epi32(r[2], r[3])));
        if (clamp)
            q = _mm512_min_epi8(_mm512_max_epi8(q, lo), hi);
        _mm512_store_si512((void *)(Y + i), q);
    }
}

/* the floor form at K = 0 (tfl-floor-vbmi): the same products, pick and multiply-add
 * with mu and the constants scaled by 2^-16 (exact: the same float rounding), converted
 * rounding down to r + o itself (no fraction bits), then vpackssdw / vpacksswb, which
 * saturate as the high words' packs do, and row_fpw_madd's vpermb to order the bytes */
__attribute__((target("avx512vbmi"))) static void row_tfl_floor_vbmi(void)
{
    const __m512i oa = _mm512_set1_epi16(3), ob = _mm512_set1_epi16(-5);
    const __m512 mu = _mm512_set1_ps(1489.5f / 65536.0f);
    const __m512i cpos = _mm512_castps_si512(_mm512_set1_ps(-31744.0f / 65536.0f));
    const __m512i cneg = _mm512_castps_si512(_mm512_set1_ps(-33792.0f / 65536.0f));
    static int8_t idx[64];
    static int built; /* once: 64 scalar stores a call would be ~3 cycles a 64 */
    __m512i order;
    for (int L = 0; L < 4 && !built; L++) /* row_fpw_madd's byte order: the same packs */
        for (int j = 0; j < 16; j++) {
            int half = j >= 8, m = j & 7;
            idx[32 * half + 8 * L + (m < 4 ? 2 * m : 2 * (m - 4) + 1)] = (int8_t)(16 * L + j);
        }
    built = 1;
    order = _mm512_loadu_si512((const void *)idx);
    for (int i = 0; i < ROW; i += 64) {
        __m512i w[2];
        QB_UNROLL for (int h = 0; h < 2; h++) {
            const __m512i xa = _mm512_add_epi16(WIDEN(A + i + 32 * h), oa);
            const __m512i wb = WIDEN(B + i + 32 * h);
            const __m512i be = _mm512_maskz_add_epi16(0x55555555u, wb, ob);
            const __m512i bo = _mm512_maskz_add_epi16(0xAAAAAAAAu, wb, ob);
            __m512i p[2] = {_mm512_madd_epi16(xa, be), _mm512_madd_epi16(xa, bo)}, j[2];
            QB_UNROLL for (int k = 0; k < 2; k++)
                j[k] = _mm512_cvt_roundps_epi32(
                    _mm512_fmadd_round_ps(_mm512_cvtepi32_ps(p[k]), mu,
                                          _mm512_castsi512_ps(_mm512_ternarylogic_epi32(p[k], cneg, cpos, 0xCA)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                    _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
            w[h] = _mm512_packs_epi32(j[0], j[1]);
        }
        _mm512_store_si512((void *)(Y + i), _mm512_permutexvar_epi8(order, _mm512_packs_epi16(w[0], w[1])));
    }
}

/* the vpmaddwd form (row_fpw_madd) without AVX512-VBMI: after the packs each 128-bit
 * lane L holds, per 8 bytes, elements 8L + (0, 2, 4, 6, 1, 3, 5, 7) of one half; one
 * vpshufb puts each 8 in order, one vpermq the 64-bit pieces */
static void row_fpw_madd_shuf(void)
{
    const __m512i za = _mm512_set1_epi16(3), zb = _mm512_set1_epi16(-5), zp = _mm512_set1_epi16(7);
    const __m512 s = _mm512_set1_ps(0.0123f);
    const __m512i inlane = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15));
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    for (int i = 0; i < ROW; i += 64) {
        __m512i w[2];
        QB_UNROLL for (int h = 0; h < 2; h++) {
            const __m512i a = _mm512_sub_epi16(WIDEN(A + i + 32 * h), za), b = WIDEN(B + i + 32 * h);
            const __m512i be = _mm512_maskz_sub_epi16(0x55555555u, b, zb), bo = _mm512_maskz_sub_epi16(0xAAAAAAAAu, b, zb);
            w[h] = _mm512_adds_epi16(_mm512_packs_epi32(CVT(_mm512_madd_epi16(a, be)), CVT(_mm512_madd_epi16(a, bo))), zp);
        }
        _mm512_store_si512((void *)(Y + i), _mm512_permutexvar_epi64(order, _mm512_shuffle_epi8(_mm512_packs_epi16(w[0], w[1]), inlane)));
    }
}

static void row_float(void)
{
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    const __m512 s = _mm512_set1_ps(0.0123f);
    for (int i = 0; i < ROW; i += 64) {
        const int32_t *p = P + (i & (ROW / 4 - 64)) ; /* 64 int32 of 1024, reread */
        __m512i w0 = _mm512_packs_epi32(CVT(_mm512_load_si512((const void *)p)), CVT(_mm512_load_si512((const void *)(p + 16))));
        __m512i w1 = _mm512_packs_epi32(CVT(_mm512_load_si512((const void *)(p + 32))), CVT(_mm512_load_si512((const void *)(p + 48))));
        _mm512_store_si512((void *)(Y + i), _mm512_permutexvar_epi64(order, _mm512_packs_epi16(w0, w1)));
    }
}

static double cycles_per_64(int which, long reps, double hz)
{
    double best = 1e30;
    for (int trial = 0; trial < 5; trial++) {
        double t = bench_now();
        for (long r = 0; r < reps; r++) {
            if (which == 0)
                row_add();
            else if (which == 1)
                row_fpw(1);
            else if (which == 2)
                row_fpw(0);
            else if (which == 4)
                row_fpw_eo();
            else if (which == 5)
                row_fpw_madd();
            else if (which == 6)
                row_tfl(1);
            else if (which == 7)
                row_tfl(0);
            else if (which == 8)
                row_tfl(2);
            else if (which == 9)
                row_ort(1);
            else if (which == 10)
                row_ort(0);
            else if (which == 11)
                row_fpw_madd_shuf();
            else if (which == 12)
                row_tfl(3);
            else if (which == 13)
                row_tfl(4);
            else if (which == 14)
                row_tfl(5);
            else if (which == 15)
                row_tfl_floor_vbmi();
            else
                row_float();
            __asm__ volatile("" ::: "memory");
        }
        t = bench_now() - t;
        if (t < best)
            best = t;
    }
    return best * hz / ((double)reps * (ROW / 64));
}

int main(int argc, char **argv)
{
    const long reps = argc > 1 ? atol(argv[1]) : 200000;
    enum { ROWS = 16 };
    static const char *names[ROWS] = {"add (np.add's loop)", "fpw (the rows, XNNPACK form)",
                                   "fpw without zero points", "float stage only",
                                   "fpw, even/odd by shifts", "fpw, vpmaddwd even/odd",
                                   "tfl (TFLite's rows)", "tfl-core (no sign, no window)",
                                   "tfl-pick (the rows' pick form)", "ort (ONNX Runtime add's rows)",
                                   "ort-core (no bounds)", "fpw, vpmaddwd, vpshufb+vpermq",
                                   "tfl-proved (pick, no window)", "tfl-floor (proved, no vpaddsw)",
                                   "tfl-abs (|a'| |b'|, sign after)", "tfl-floor-vbmi (K = 0, vpermb)"};
    static const int ops[ROWS] = {3, 35, 29, 19, 35, 33, 43, 31, 41, 35, 33, 34, 37, 35, 43, 35};
    double hz, c[ROWS];
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) {
        printf("qmul_bound: needs AVX-512 F+BW\n");
        return 0;
    }
    for (int i = 0; i < ROW; i++) {
        A[i] = (int8_t)(i * 7);
        B[i] = (int8_t)(i * 13 + 5);
        P[i] = (i * 97) % 130051 - 65025;
    }
    hz = bench_cycles_per_second(100000000); /* 400M dependent adds */
    printf("clock %.2f GHz (dependent adds)\n", hz * 1e-9);
    for (int w = 0; w < ROWS; w++)
        c[w] = cycles_per_64(w, reps, hz);
    for (int w = 0; w < ROWS; w++)
        printf("%-30s %3d ops / 64   %6.2f cycles / 64   %.2f of add's speed\n", names[w], ops[w], c[w],
               c[0] / c[w]);
    return 0;
}
#else
int main(void)
{
    printf("qmul_bound: x86-64 with AVX-512 F+BW only\n");
    return 0;
}
#endif
