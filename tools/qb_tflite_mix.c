/* The instruction mixes of the 8-bit quantized adds on AVX-512 (VNNI), timed
 * without the package: ns per 64 elements over L1-resident rows (4 KiB each,
 * thread CPU time, best of 15 interleaved rounds), so the ratio to a plain
 * wrapping int8 add (numpy's inner loop: two loads, vpaddb, a store) is the
 * compute bound of each form, with independent 64-element blocks (no chain
 * between iterations: throughput, not latency).
 *   plain   vpaddb                                            4 ops a 64
 *   xnn     XNNPACK's pair form, high words (s >= 16)         23 ops a 64
 *   tflite  TFLite add's linear form + window test, no lane
 *           flagged (qbinary_tfl_avx512.h's common path)      ~38 ops a 64
 *   tflite+ the same with the flagged-lane test left out (what the window costs)
 * Built by tools/cbench.sh (x86-64): its own ISA flags, no package code. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_util.h" /* bench_now: the tools' clock */

enum { N = 4096, ROUNDS = 15 };
static int8_t A[N] __attribute__((aligned(64))), B[N] __attribute__((aligned(64))),
    Y[N] __attribute__((aligned(64)));
static volatile unsigned g_flags;

static void plain(void)
{
    for (int i = 0; i < N; i += 64)
        _mm512_store_si512((void *)(Y + i), _mm512_add_epi8(_mm512_load_si512((const void *)(A + i)),
                                                            _mm512_load_si512((const void *)(B + i))));
}

#define PAIR(P) _mm512_dpwssd_epi32(_mm512_dpbusd_epi32(bias, P, rm), P, qm)
static const int16_t high_words[32] = {1,  3,  5,  7,  33, 35, 37, 39, 9,  11, 13, 15, 41, 43, 45, 47,
                                       17, 19, 21, 23, 49, 51, 53, 55, 25, 27, 29, 31, 57, 59, 61, 63};

__attribute__((target("avx512vnni"))) static void xnn(void)
{
    const __m512i bias = _mm512_set1_epi32(-3077918), qm = _mm512_set1_epi32(0x11701234),
                  rm = _mm512_set1_epi32(0x00370051), x80 = _mm512_set1_epi8((char)0x80);
    const __m512i high = _mm512_loadu_si512((const void *)high_words);
    const __m128i sh16 = _mm_cvtsi32_si128(5);
    for (int i = 0; i < N; i += 64) {
        const __m512i va = _mm512_load_si512((const void *)(A + i)), vb = _mm512_load_si512((const void *)(B + i));
        const __m512i xa = _mm512_xor_si512(va, x80), xb = _mm512_xor_si512(vb, x80);
        const __m512i a0 = _mm512_unpacklo_epi8(xa, va), a1 = _mm512_unpackhi_epi8(xa, va);
        const __m512i b0 = _mm512_unpacklo_epi8(xb, vb), b1 = _mm512_unpackhi_epi8(xb, vb);
        __m512i r0 = PAIR(_mm512_unpacklo_epi16(a0, b0)), r1 = PAIR(_mm512_unpackhi_epi16(a0, b0));
        __m512i r2 = PAIR(_mm512_unpacklo_epi16(a1, b1)), r3 = PAIR(_mm512_unpackhi_epi16(a1, b1));
        __m512i w0 = _mm512_sra_epi16(_mm512_permutex2var_epi16(r0, high, r1), sh16);
        __m512i w1 = _mm512_sra_epi16(_mm512_permutex2var_epi16(r2, high, r3), sh16);
        _mm512_store_si512((void *)(Y + i), _mm512_packs_epi16(w0, w1));
    }
}

#define TFL_BODY(TEST)                                                                             \
    const __m512i bias = _mm512_set1_epi32(-3077918), qm = _mm512_set1_epi32(0x11701234),          \
                  rm = _mm512_set1_epi32(0x00370051), x80 = _mm512_set1_epi8((char)0x80);          \
    const __m512i win = _mm512_set1_epi32(0x1fff80);                                               \
    const __m128i sh = _mm_cvtsi32_si128(21);                                                      \
    unsigned any = 0;                                                                              \
    for (int i = 0; i < N; i += 64) {                                                              \
        const __m512i va = _mm512_load_si512((const void *)(A + i)), vb = _mm512_load_si512((const void *)(B + i)); \
        const __m512i xa = _mm512_xor_si512(va, x80), xb = _mm512_xor_si512(vb, x80);             \
        const __m512i a0 = _mm512_unpacklo_epi8(xa, va), a1 = _mm512_unpackhi_epi8(xa, va);       \
        const __m512i b0 = _mm512_unpacklo_epi8(xb, vb), b1 = _mm512_unpackhi_epi8(xb, vb);       \
        __m512i r0 = PAIR(_mm512_unpacklo_epi16(a0, b0)), r1 = PAIR(_mm512_unpackhi_epi16(a0, b0)); \
        __m512i r2 = PAIR(_mm512_unpacklo_epi16(a1, b1)), r3 = PAIR(_mm512_unpackhi_epi16(a1, b1)); \
        if (TEST) {                                                                                \
            unsigned k = (unsigned)(_mm512_testn_epi32_mask(r0, win) | _mm512_testn_epi32_mask(r1, win)) | \
                         (unsigned)(_mm512_testn_epi32_mask(r2, win) | _mm512_testn_epi32_mask(r3, win)); \
            any |= k;                                                                              \
        }                                                                                          \
        _mm512_store_si512((void *)(Y + i),                                                        \
                           _mm512_packs_epi16(_mm512_packs_epi32(_mm512_sra_epi32(r0, sh), _mm512_sra_epi32(r1, sh)), \
                                              _mm512_packs_epi32(_mm512_sra_epi32(r2, sh), _mm512_sra_epi32(r3, sh)))); \
    }                                                                                              \
    g_flags = any;

__attribute__((target("avx512vnni"))) static void tfl(void) { TFL_BODY(1) }
__attribute__((target("avx512vnni"))) static void tfl_notest(void) { TFL_BODY(0) }

int main(void)
{
    static void (*const fn[])(void) = {plain, xnn, tfl, tfl_notest};
    static const char *const name[] = {"plain vpaddb", "xnn pair (23 ops)", "tflite add (window)",
                                       "tflite add, no test"};
    double best[4];
    if (!__builtin_cpu_supports("avx512vnni")) {
        printf("no AVX512-VNNI\n");
        return 0;
    }
    for (int i = 0; i < N; i++) {
        A[i] = (int8_t)(i * 37 + 11);
        B[i] = (int8_t)(i * 91 + 5);
    }
    for (int f = 0; f < 4; f++)
        best[f] = 1e9;
    for (int r = 0; r < ROUNDS; r++)
        for (int f = 0; f < 4; f++) {
            const int reps = 2000;
            double t0 = bench_now(), t;
            for (int k = 0; k < reps; k++)
                fn[f]();
            t = (bench_now() - t0) / reps / (N / 64) * 1e9;
            if (t < best[f])
                best[f] = t;
        }
    for (int f = 0; f < 4; f++)
        printf("%-22s %6.2f ns a 64   plain / this %.3f\n", name[f], best[f], best[0] / best[f]);
    return 0;
}
