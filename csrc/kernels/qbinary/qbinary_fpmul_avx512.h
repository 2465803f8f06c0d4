/* The fp32 multiply (XNNPACK's qs8/qu8-vmul fp32, ONNX Runtime's QLinearMul:
 * qb_fp_mul_one) on AVX-512 by int16 products: qv_fpmul_rows_i8 / _u8, 64
 * elements a step (qbinary_avx512.c includes this after qbinary_xnn_avx512.h,
 * whose qb_xnn_io reads a one-element input from a 64-byte copy, stride 0).
 *
 * Per 64 elements: 4 widening loads (vpmovsxbw / vpmovzxbw), 2 vpsubw (a's zero
 * point: |a - za| <= 510 fits int16), 4 masked vpsubw (b's: b - zb in the even words of
 * one vector and 0 in its odd words, the other way round in a second), 4 vpmaddwd (each
 * dword one element's exact product: the other word's term is 0), 4 vcvtdq2ps, 4 vmulps
 * (+ 4 vaddps when ONNX Runtime's zero point is a float), 4 vcvtps2dq (nearest even in
 * the instruction), 2 vpackssdw, 2 vpaddsw (the integer zero point, when not 0), 1
 * packsswb / packuswb, 1 vpshufb and 1 vpermq (the even / odd split and the packs' lanes
 * put back in element order), the bounds when not the type's own, 1 store: about 34.
 * The products by vpmullw / vpmulhw and four unpacks (one more operation, and the
 * unpacks compete with the packs for the shuffle ports) ran 11.0-11.3 cycles a 64 in
 * tools/qmul_bound.c's L1 rows against 10.4-10.7 for this form (AVX512-VBMI's vpermb in
 * place of the vpshufb + vpermq: 10.1-10.4, not taken: a feature check and a second path
 * for ~3%).
 *
 * Exact where qb_fpw_ok holds (else the row is scalar; the rules' parameters
 * always hold it):
 *  - |za|, |zb| <= 255: a - za and b - zb lie in [-510, 510] (int16), their
 *    product p in +-260100: vpmaddwd gives it exactly (its other term is 0) and
 *    float(p) is exact (p < 2^24). The float multiply (and ONNX Runtime's
 *    float add) are the scalar element's operations in the same MXCSR mode;
 *    the conversion rounds to nearest even as qb_cvt_rne.
 *  - the narrowing: the reference computes r + zp in int32 (wrapping), then
 *    clamps to the type and the bounds. Here r is saturated to int16
 *    (packssdw), zp added with int16 saturation, then saturated to 8 bits.
 *    With |zp| <= 255: for |r| <= 32767 both give r + zp when it fits int16
 *    and otherwise a value beyond the 8-bit type on the same side; for r >
 *    32767 (r < -32768) both sides are above 255 (below -256) after + zp,
 *    provided r + zp does not wrap in int32. That holds when zp == 0, or when
 *    |scale| <= 4096 and |y_offset_f| <= 65536: |fl(p s)| <= 260100 * 4096 <
 *    2^30, so fl(. + y_offset_f) < 2^31 converts without overflow and r + zp
 *    stays in int32. With zp == 0 an out-of-range or NaN value converts to
 *    INT32_MIN in both: the type's low end. */
#include <math.h>

#ifndef QB_FPW_SCALE_MAX /* overridable only so that the harness's mutant can widen it */
#define QB_FPW_SCALE_MAX 4096.0f
#endif

static inline int qb_fpw_ok(const simdops_qbinary_params *p)
{
    return p->a_offset >= -255 && p->a_offset <= 255 && p->b_offset >= -255 &&
           p->b_offset <= 255 && p->y_offset >= -255 && p->y_offset <= 255 &&
           (p->y_offset == 0 ||
            (fabsf(p->scale) <= QB_FPW_SCALE_MAX && fabsf(p->y_offset_f) <= 65536.0f));
}

/* 32 products (int16 a, b, zero points subtracted) to 32 int16 results in
 * element order: fl(fl(p * s) [+ zf]) converted, saturated, [+ zp] */
#define QB_FPW_CVT(x)                                                                              \
    _mm512_cvt_roundps_epi32(ZF ? _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(x), s), zf)      \
                                : _mm512_mul_ps(_mm512_cvtepi32_ps(x), s),                         \
                             QB_RN)
/* vpshufb within each 128-bit lane after the packs: their bytes 0-7 are elements
 * (0, 2, 4, 6, 1, 3, 5, 7) of 8 (even products first), 8-15 the same of the other half */
#define QB_FPW_INLANE                                                                              \
    _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15))
/* 32 elements: av = a - za (int16), bw = b widened (b's zero point subtracted here, into
 * the even and the odd words apart); out: 32 int16 results, each 128-bit lane's even
 * elements then its odd ones */
#define QB_FPW_HALF(av, bw, out)                                                                   \
    do {                                                                                           \
        const __m512i be = _mm512_maskz_sub_epi16(0x55555555u, bw, zb);                            \
        const __m512i bo = _mm512_maskz_sub_epi16(0xAAAAAAAAu, bw, zb);                            \
        out = _mm512_packs_epi32(QB_FPW_CVT(_mm512_madd_epi16(av, be)),                            \
                                 QB_FPW_CVT(_mm512_madd_epi16(av, bo)));                           \
        if (ZP)                                                                                    \
            out = _mm512_adds_epi16(out, zp);                                                      \
    } while (0)

/* one loop per (float zero point, integer zero point, bounds) */
#define QB_FPW_LOOP(tag, T, WIDEN, PACK, EP, ZF_, ZP_, CLAMP_)                                     \
    static size_t qb_fpw_##tag##_##ZF_##ZP_##CLAMP_(const qb_xnn_io *io, T *y, size_t n,           \
                                                    const simdops_qbinary_params *p)               \
    {                                                                                              \
        enum { ZF = ZF_, ZP = ZP_, CLAMP = CLAMP_ };                                               \
        const __m512i za = _mm512_set1_epi16((short)p->a_offset);                                  \
        const __m512i zb = _mm512_set1_epi16((short)p->b_offset);                                  \
        const __m512i zp = _mm512_set1_epi16((short)p->y_offset);                                  \
        const __m512 s = _mm512_set1_ps(p->scale), zf = _mm512_set1_ps(p->y_offset_f);             \
        const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), inlane = QB_FPW_INLANE;  \
        const __m512i lo = _mm512_set1_epi8((char)p->lo), hi = _mm512_set1_epi8((char)p->hi);     \
        const T *a = (const T *)io->a, *b = (const T *)io->b;                                      \
        size_t i;                                                                                  \
        (void)zf, (void)zp, (void)lo, (void)hi;                                                    \
        for (i = 0; i + 64 <= n; i += 64) {                                                        \
            QB_PREFETCH_IO(a, b, i, io);                                                           \
            const __m512i a0 = _mm512_sub_epi16(WIDEN(a + i * io->sa), za);                        \
            const __m512i a1 = _mm512_sub_epi16(WIDEN(a + (i + 32) * io->sa), za);                 \
            const __m512i b0 = WIDEN(b + i * io->sb);                                              \
            const __m512i b1 = WIDEN(b + (i + 32) * io->sb);                                       \
            __m512i w0, w1, q;                                                                     \
            QB_FPW_HALF(a0, b0, w0);                                                               \
            QB_FPW_HALF(a1, b1, w1);                                                               \
            /* the pack interleaves the halves' 64-bit pieces lane by lane, each piece         \
             * even elements first: vpshufb orders each piece, vpermq the pieces */               \
            q = _mm512_permutexvar_epi64(order, _mm512_shuffle_epi8(_mm512_##PACK(w0, w1), inlane)); \
            if (CLAMP)                                                                             \
                q = _mm512_min_##EP(_mm512_max_##EP(q, lo), hi);                                   \
            _mm512_storeu_si512((void *)(y + i), q);                                               \
        }                                                                                          \
        return i;                                                                                  \
    }
#define QB_FPW_WIDEN_i8(s) _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(s)))
#define QB_FPW_WIDEN_u8(s) _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(s)))

#define QB_FPW_LOOPS(tag, T, PACK, EP, ZF, ZP)                                                     \
    QB_FPW_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, ZF, ZP, 0)                                   \
    QB_FPW_LOOP(tag, T, QB_FPW_WIDEN_##tag, PACK, EP, ZF, ZP, 1)
#define QB_FPW_TYPE(tag, T, PACK, EP, IS_U8)                                                       \
    QB_FPW_LOOPS(tag, T, PACK, EP, 0, 0)                                                           \
    QB_FPW_LOOPS(tag, T, PACK, EP, 0, 1)                                                           \
    QB_FPW_LOOPS(tag, T, PACK, EP, 1, 0)                                                           \
    QB_FPW_LOOPS(tag, T, PACK, EP, 1, 1)                                                           \
    static inline size_t qv_fpmul_rows_##tag(const T *a, const T *b, T *y, size_t n, int form,    \
                                             const simdops_qbinary_params *p)                     \
    {                                                                                              \
        typedef size_t (*loop_fn)(const qb_xnn_io *, T *, size_t, const simdops_qbinary_params *); \
        static const loop_fn loops[8] = {                                                          \
            qb_fpw_##tag##_000, qb_fpw_##tag##_001, qb_fpw_##tag##_010, qb_fpw_##tag##_011,        \
            qb_fpw_##tag##_100, qb_fpw_##tag##_101, qb_fpw_##tag##_110, qb_fpw_##tag##_111};       \
        qb_xnn_io io;                                                                              \
        /* +-0.0 added in float changes no integer; the bounds kept unless the type's */           \
        const int zf = p->y_offset_f != 0.0f, zpi = p->y_offset != 0;                              \
        const int clamp = !qb_bounds_are_type(p, IS_U8);                                           \
        if (n < 64 || !qb_fpw_ok(p))                                                               \
            return 0;                                                                              \
        qb_xnn_io_init(&io, a, b, form);                                                           \
        return loops[4 * zf + 2 * zpi + clamp](&io, y, n, p);                                      \
    }
QB_FPW_TYPE(i8, int8_t, packs_epi16, epi8, 0)
QB_FPW_TYPE(u8, uint8_t, packus_epi16, epu8, 1)
