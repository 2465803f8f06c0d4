/* portbench: the issue rate of the few vector instructions that bound simdops'
 * requantize / quantize / float16 kernels, on this CPU, in core cycles per
 * instruction. The arithmetic behind docs/performance.md's "bounds" section:
 * a kernel cannot run faster than the busiest port its instructions share.
 *
 * Throughput rows run 8 chains of one instruction, or of a pair, for N
 * iterations, where no chain feeds one instruction's result back into its own
 * input except through a 1-2 cycle operation (min, add, ...), so latency hides;
 * the time divided by the instruction count is converted to cycles with a
 * clock measured by a dependent chain of integer adds (1 cycle each). A pair
 * that takes the sum of its two parts' times shares a port; one that takes the
 * larger runs on separate ports. Latency rows ("latency, 1 chain") run one
 * chain that feeds each result into the next instruction: cycles per link.
 * (A round trip vcvtph2ps -> vcvtps2ph fed back into itself, even 8 of them,
 * measures the pair's latency / 8, not its throughput.)
 *
 *   bash tools/cbench.sh /tmp/kb && /tmp/kb/portbench [iterations=20000000] [chains|f16shrink]
 *   (chains: only the requant chains' table; f16shrink: only float16 shrink's steps)
 *
 * x86-64 only; built with AVX-512 flags (a tool, not part of the package) and
 * it runs the AVX-512 rows only where the CPU has AVX-512 F+BW (the requant
 * fast path's rows: and DQ; float16 shrink's steps: and VL). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && \
    defined(__AVX512VL__) && defined(__F16C__)
#include <immintrin.h>

#include "bench_util.h" /* bench_now, bench_add_chain: the tools' clock */

/* keeps a value in a register and opaque to the optimiser */
#define KEEP(v) __asm__ volatile("" : "+v"(v))
#define R8(op) op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7)

static long g_n;
static double g_ghz_lo = 1e30, g_ghz_hi = 0;

/* Each of 5 rounds times the add chain right before the body, so the cycle
 * count survives a clock that moves with the load of a shared machine; the
 * fewest cycles of the rounds is printed. */
#define BENCH(name, count, decl, body)                                                     \
    do {                                                                                   \
        __m512 c = _mm512_set1_ps(0.999f);                                                 \
        __m512i ci = _mm512_set1_epi32(1);                                                 \
        decl;                                                                              \
        double best = 1e30;                                                                \
        (void)c, (void)ci;                                                                 \
        for (int r = 0; r < 5; r++) {                                                      \
            double tc = bench_add_chain(g_n), t0 = bench_now(), t, cyc;                    \
            for (long i = 0; i < g_n; i++) {                                               \
                body                                                                       \
            }                                                                              \
            t = bench_now() - t0;                                                          \
            cyc = t / tc * 4.0 * (double)g_n;                                              \
            best = cyc < best ? cyc : best;                                                \
            g_ghz_lo = 4.0 * g_n / tc / 1e9 < g_ghz_lo ? 4.0 * g_n / tc / 1e9 : g_ghz_lo;  \
            g_ghz_hi = 4.0 * g_n / tc / 1e9 > g_ghz_hi ? 4.0 * g_n / tc / 1e9 : g_ghz_hi;  \
        }                                                                                  \
        printf("  %-52s %6.2f\n", name, best / (double)g_n / (count));                    \
    } while (0)

#define DECL_PS __m512 a0 = _mm512_set1_ps(1.1f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, \
                       a6 = a0, a7 = a0
#define DECL_I __m512i b0 = _mm512_set1_epi32(3), b1 = b0, b2 = b0, b3 = b0, b4 = b0, b5 = b0, \
                       b6 = b0, b7 = b0
#define DECL_Y __m256 d0 = _mm256_set1_ps(1.1f), d1 = d0, d2 = d0, d3 = d0, d4 = d0, d5 = d0, \
                       d6 = d0, d7 = d0, e = _mm256_set1_ps(0.999f)

#define CVT_IN(k) a##k = _mm512_cvtepi32_ps(b##k); KEEP(a##k); KEEP(b##k);
#define CVT_OUT(k) b##k = _mm512_cvtps_epi32(a##k); KEEP(a##k); KEEP(b##k);
#define MINPS(k) a##k = _mm512_min_ps(a##k, c); KEEP(a##k);
#define MULPS(k) a##k = _mm512_mul_ps(a##k, c); KEEP(a##k);
#define DIVPS(k) a##k = _mm512_div_ps(c, a##k); KEEP(a##k);
#define DIVPS_Y(k) d##k = _mm256_div_ps(e, d##k); KEEP(d##k);
#define ADDD(k) b##k = _mm512_add_epi32(b##k, ci); KEEP(b##k);
#define MAXSD(k) b##k = _mm512_max_epi32(b##k, ci); KEEP(b##k);
#define MULDQ(k) b##k = _mm512_mul_epi32(b##k, ci); KEEP(b##k);
#define SRAQ(k) b##k = _mm512_srai_epi64(b##k, 3); KEEP(b##k);
#define PACK(k) b##k = _mm512_packs_epi32(b##k, ci); KEEP(b##k);
#define PH2PS(k) a##k = _mm512_cvtph_ps(_mm512_castsi512_si256(b##k)); KEEP(a##k); KEEP(b##k);
#define PS2PH(k) b##k = _mm512_castsi256_si512(_mm512_cvtps_ph(a##k, 0)); KEEP(a##k); KEEP(b##k);
#define CVT_MIN(k) CVT_IN(k) MINPS(k)
/* the float64 chain's converts: 8 int32 -> 8 doubles, 8 doubles -> 8 int32 (truncating) */
#define CVT_PD_IN(k) e##k = _mm512_cvtepi32_pd(_mm512_castsi512_si256(b##k)); KEEP(e##k); KEEP(b##k);
#define CVT_PD_OUT(k) b##k = _mm512_castsi256_si512(_mm512_cvttpd_epi32(e##k)); KEEP(e##k); KEEP(b##k);
#define DECL_PD __m512d e0 = _mm512_set1_pd(1.1), e1 = e0, e2 = e0, e3 = e0, e4 = e0, e5 = e0, \
                        e6 = e0, e7 = e0
/* each result fed into the other: 8 round-trip chains */
#define PH_ROUND(k) PH2PS(k) PS2PH(k)
/* the same two instructions on inputs that stay put: independent pairs */
#define PH_PAIR(k) { __m512 t_ = _mm512_cvtph_ps(_mm512_castsi512_si256(b##k)); \
                     __m256i u_ = _mm512_cvtps_ph(a##k, 0); KEEP(t_); KEEP(u_); KEEP(a##k); KEEP(b##k); }
/* float16 shrink's arithmetic per 16 halves, independent across iterations:
 * convert, subtract (or the FMA form), round to half (or with a zeroing mask) */
#define PH_SUB_PH(k) { __m512 t_ = _mm512_sub_ps(_mm512_cvtph_ps(_mm512_castsi512_si256(b##k)), c); \
                       __m256i u_ = _mm512_cvtps_ph(t_, 0); KEEP(u_); KEEP(b##k); }
#define PH_FMA_PH(k) { __m512 t_ = _mm512_fnmadd_ps(c, one, _mm512_cvtph_ps(_mm512_castsi512_si256(b##k))); \
                       __m256i u_ = _mm512_cvtps_ph(t_, 0); KEEP(u_); KEEP(b##k); }
#define PH_SUB_PHZ(k) { __m512 t_ = _mm512_sub_ps(_mm512_cvtph_ps(_mm512_castsi512_si256(b##k)), c); \
                        __m256i u_ = _mm512_maskz_cvtps_ph((__mmask16)0x5a5a, t_, 0); KEEP(u_); KEEP(b##k); }
#define FMA1(k) a##k = _mm512_fnmadd_ps(c, one, a##k); KEEP(a##k);
/* latency: one chain through each instruction */
#define DECL_1 __m512 a0 = _mm512_set1_ps(1.1f)
#define DECL_1I __m512i b0 = _mm512_set1_epi32(0x3c003c00)
#define LAT_PH_ROUND a0 = _mm512_cvtph_ps(_mm512_castsi512_si256(b0)); KEEP(a0); \
                     b0 = _mm512_castsi256_si512(_mm512_cvtps_ph(a0, 0)); KEEP(b0);
#define LAT_SUB a0 = _mm512_sub_ps(a0, c); KEEP(a0);
#define LAT_FMA a0 = _mm512_fnmadd_ps(c, one, a0); KEEP(a0);
#define PH2PS_SUB(k) PH2PS(k) SUBPS(k)
#define SUBPS(k) a##k = _mm512_sub_ps(a##k, c); KEEP(a##k);
#define CVT_MUL(k) CVT_IN(k) MULPS(k)
#define CVT_MAXSD(k) CVT_IN(k) MAXSD(k)
#define CVT_PACK(k) CVT_IN(k) PACK(k)
/* loads from L1: the pointer made opaque each iteration so they are not hoisted */
#define LOADZ(k) b##k = _mm512_loadu_si512(line + 16 * k); KEEP(b##k);
#define LOADZ_ADD(k) b##k = _mm512_add_epi32(b##k, _mm512_loadu_si512(line + 16 * k)); KEEP(b##k);
/* the requant float32 fast path's arithmetic per 16 lanes (rq_fast_x86.h), independent
 * across iterations: convert, the sign-picked constant (double rounding: mask + blend;
 * ties-up: one constant), FMA, clamp (vrangeps), convert, window test (the mask kept) */
#define RQF_TAIL(k, cs) { __m512 w_ = _mm512_fmadd_ps(_mm512_cvtepi32_ps(b##k), c, cs); \
                          __m512i j_ = _mm512_cvtps_epi32(_mm512_range_ps(w_, rtc, 0x02)); \
                          __mmask16 m_ = _mm512_testn_epi32_mask(j_, ci); \
                          __asm__ volatile("" : "+k"(m_)); KEEP(j_); KEEP(b##k); }
#define RQF_DOUBLE(k) RQF_TAIL(k, _mm512_mask_blend_ps(_mm512_movepi32_mask(b##k), c, one))
#define RQF_TIES(k) RQF_TAIL(k, c)
#define DECL_TC __m512 rtc = _mm512_set1_ps(1e9f); KEEP(rtc)
#define DECL_ONE __m512 one = _mm512_set1_ps(1.0f); KEEP(one)
#define DECL_LINE int32_t *line = g_lines; __asm__ volatile("" : "+r"(line))
static int32_t g_lines[16 * 8] __attribute__((aligned(64)));

/* The requant chains' whole step per 64 int8 outputs (rq_chain_avx512.h, and the plain
 * requantize_fp32 8-bit kernel of requant_families_avx512.c), over L1-resident x, bias,
 * scales and output: 4 groups of 16 (load, convert, the chain, convert), the pack with
 * the zero point in int16, the byte clamp, the permute and the store. Iterations are
 * independent (loads in, stores out): the loop's throughput, in cycles per 16 outputs.
 * The groups mirror the kernels' instruction sequences at the bench's parameters (every
 * chain there is bounded: RQC_NC, no float clamp, but fbgemm's float bias: without that
 * clamp its per-channel step measured the same 4.0 cycles, bound by its three loads).
 * oneDNN's row is its general chain: powers of two (the bench's 0.5 and 2.0) fold into
 * the plain kernel's single multiply (rqc_fold_pow2), whose row it then is. fbgemm's row compares
 * with the plain kernel plus an int32 bias (the bench's baseline for it). */
static int32_t g_x[64] __attribute__((aligned(64)));
static float g_fb[64] __attribute__((aligned(64))), g_sc[64] __attribute__((aligned(64)));
static double g_sd[64] __attribute__((aligned(64)));
static int8_t g_y[64] __attribute__((aligned(64)));

#define RQS_RNE(v) _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define RQS_CVT(j) _mm512_cvtepi32_ps(_mm512_loadu_si512(xp + 16 * (j)))
#define RQS_SC(j) (pc ? _mm512_loadu_ps(sp + 16 * (j)) : s)
/* add_half (h = 0.5) / ties away (h = pred 0.5): trunc(v + copysign(h, v)) */
#define RQS_HALF(v, h, ADD) _mm512_cvtt_roundps_epi32(ADD(v, _mm512_castsi512_ps( \
    _mm512_ternarylogic_epi32(_mm512_castps_si512(v), sgn, _mm512_castps_si512(h), 0xEA))), \
    _MM_FROUND_NO_EXC)
#define RQS_HALF64(d) _mm512_cvtt_roundpd_epi32(_mm512_fmadd_pd(d, one64, _mm512_castsi512_pd( \
    _mm512_ternarylogic_epi64(_mm512_castpd_si512(d), _mm512_set1_epi64(INT64_MIN), _mm512_castpd_si512(h64), 0xEA))), \
    _MM_FROUND_NO_EXC)

/* the kernels' sequences (adds as fma(x, 1, c), RQC_STEPS_FN), then the same with vaddps
 * (the kernels before: what the fma form gains) */
enum rqs_chain { RQS_PLAIN, RQS_PLAIN_BIAS, RQS_ONEDNN, RQS_OPENVINO, RQS_FBGEMM, RQS_ADD_HALF,
                 RQS_F64_AWAY, RQS_OPENVINO_ADD, RQS_FBGEMM_ADD, RQS_ADD_HALF_ADD };
/* x + c as fma(x, 1, c): the same value (x * 1 is exact, one rounding), on the FMA pipes */
#define RQS_ADD1(x, c) _mm512_fmadd_ps(x, one, c)
#define RQS_ADDX(x, c) (vadd ? _mm512_add_ps(x, c) : RQS_ADD1(x, c))

static inline __attribute__((always_inline)) __m512i rqs_group(const int32_t *xp, const int32_t *bp, const float *fp,
                                const float *sp, const double *dp, int j, const int chain,
                                const int pc, __m512 s, __m512 pre, __m512 post, __m512 off,
                                __m512 fhi, __m512 h, __m512i sgn, __m512d s64, __m512d h64)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512d one64 = _mm512_set1_pd(1.0);
    const int vadd = chain >= RQS_OPENVINO_ADD;
    switch (chain) {
    case RQS_PLAIN: /* rqf512_fp_round: per channel the scales sit in registers (cycle) */
        return RQS_RNE(_mm512_mul_ps(RQS_CVT(j), s));
    case RQS_PLAIN_BIAS: /* ... with the int32 bias fbgemm's row compares with */
        return RQS_RNE(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(
            _mm512_loadu_si512(xp + 16 * j), _mm512_loadu_si512(bp + 16 * j))), s));
    case RQS_ONEDNN:
        return RQS_RNE(_mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(RQS_CVT(j), pre), RQS_SC(j)),
                                     post));
    case RQS_OPENVINO: /* the *_ADD rows: the same with vaddps (vadd) */
    case RQS_OPENVINO_ADD:
        return RQS_RNE(RQS_ADDX(_mm512_mul_ps(RQS_CVT(j), RQS_SC(j)), off));
    case RQS_FBGEMM: /* the float bias is not scanned: the upper clamp stays */
    case RQS_FBGEMM_ADD:
        return RQS_RNE(_mm512_min_ps(fhi, _mm512_mul_ps(
            RQS_ADDX(RQS_CVT(j), _mm512_loadu_ps(fp + 16 * j)), RQS_SC(j))));
    case RQS_ADD_HALF:
    case RQS_ADD_HALF_ADD:
        return RQS_HALF(_mm512_mul_ps(RQS_CVT(j), RQS_SC(j)), h, RQS_ADDX);
    case RQS_F64_AWAY: { /* float64, ties away: two groups of 8 double lanes */
        __m512i a = _mm512_loadu_si512(xp + 16 * j);
        __m512d s0 = pc ? _mm512_loadu_pd(dp + 16 * j) : s64;
        __m512d s1 = pc ? _mm512_loadu_pd(dp + 16 * j + 8) : s64;
        __m256i r0 = RQS_HALF64(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(a)), s0));
        __m256i r1 = RQS_HALF64(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(a, 1)),
                                              s1));
        return _mm512_inserti64x4(_mm512_castsi256_si512(r0), r1, 1);
    }
    }
    return sgn;
}

/* cycles per 16 outputs of the chain's 64-output step, the fewest of 5 runs */
static inline __attribute__((always_inline)) double rqs_step(const int chain, const int pc)
{
    const __m512 s = _mm512_set1_ps(0.001f), pre = _mm512_set1_ps(0.5f),
                 post = _mm512_set1_ps(2.0f), off = _mm512_set1_ps(0.25f),
                 fhi = _mm512_set1_ps(124.0f), h = _mm512_set1_ps(0.49999997f);
    const __m512i sgn = _mm512_set1_epi32(INT32_MIN), zp = _mm512_set1_epi16(3),
                  bmin = _mm512_set1_epi8(-128), bmax = _mm512_set1_epi8(127);
    const __m512d s64 = _mm512_set1_pd(0.001), h64 = _mm512_set1_pd(0.49999999999999994);
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double tc = bench_add_chain(g_n), t0 = bench_now(), cyc;
        for (long i = 0; i < g_n; i++) {
            const int32_t *xp = g_x, *bp = (const int32_t *)g_fb;
            const float *fp = g_fb, *sp = g_sc;
            const double *dp = g_sd;
            int8_t *yp = g_y;
            /* opaque each iteration: the loads are not hoisted, the stores not sunk */
            __asm__ volatile("" : "+r"(xp), "+r"(bp), "+r"(fp), "+r"(sp), "+r"(dp), "+r"(yp));
            __m512i r0 = rqs_group(xp, bp, fp, sp, dp, 0, chain, pc, s, pre, post, off, fhi, h,
                                   sgn, s64, h64);
            __m512i r1 = rqs_group(xp, bp, fp, sp, dp, 1, chain, pc, s, pre, post, off, fhi, h,
                                   sgn, s64, h64);
            __m512i r2 = rqs_group(xp, bp, fp, sp, dp, 2, chain, pc, s, pre, post, off, fhi, h,
                                   sgn, s64, h64);
            __m512i r3 = rqs_group(xp, bp, fp, sp, dp, 3, chain, pc, s, pre, post, off, fhi, h,
                                   sgn, s64, h64);
            __m512i p01 = _mm512_adds_epi16(_mm512_packs_epi32(r0, r1), zp);
            __m512i p23 = _mm512_adds_epi16(_mm512_packs_epi32(r2, r3), zp);
            __m512i v = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(p01, p23), bmin), bmax);
            _mm512_storeu_si512(yp, _mm512_permutexvar_epi32(order, v));
        }
        cyc = (bench_now() - t0) / tc * 4.0 * (double)g_n;
        best = cyc < best ? cyc : best;
    }
    return best / (double)g_n / 4.0;
}

/* one table row per chain and scale kind: cycles / 16 and the plain kernel's over the
 * chain's (the speed ratio the row measures, bound by the core alone) */
static void rqs_table(void)
{
    static const char *const names[] = {"plain (requantize_fp32's default)",
                                         "plain + int32 bias (fbgemm's baseline)",
                                         "oneDNN pre, post (not powers of two)",
                                         "OpenVINO offset",
                                         "fbgemm float32 bias", "ties add_half",
                                         "float64, ties away",
                                         "OpenVINO offset, add as vaddps",
                                         "fbgemm float32 bias, add as vaddps",
                                         "ties add_half, add as vaddps"};
    double plain[2][2];
    printf("requant chains, int8 out, per 64-output step over L1 data: cycles / 16 outputs\n"
           "  %-40s %8s %8s %7s %7s\n", "chain", "tensor", "channel", "bound t", "bound c");
    for (int chain = RQS_PLAIN; chain <= RQS_ADD_HALF_ADD; chain++) {
        double c[2];
        switch (chain) { /* constants: each step compiled for its chain */
#define RQS_ROW(K) case K: c[0] = rqs_step(K, 0), c[1] = rqs_step(K, 1); break;
        RQS_ROW(RQS_PLAIN) RQS_ROW(RQS_PLAIN_BIAS) RQS_ROW(RQS_ONEDNN) RQS_ROW(RQS_OPENVINO)
        RQS_ROW(RQS_FBGEMM) RQS_ROW(RQS_ADD_HALF) RQS_ROW(RQS_F64_AWAY) RQS_ROW(RQS_OPENVINO_ADD)
        RQS_ROW(RQS_FBGEMM_ADD) default: RQS_ROW(RQS_ADD_HALF_ADD)
#undef RQS_ROW
        }
        if (chain <= RQS_PLAIN_BIAS)
            plain[chain][0] = c[0], plain[chain][1] = c[1];
        const int base = chain == RQS_FBGEMM || chain == RQS_FBGEMM_ADD ? RQS_PLAIN_BIAS : RQS_PLAIN;
        printf("  %-40s %8.2f %8.2f %7.2f %7.2f\n", names[chain], c[0], c[1],
               plain[base][0] / c[0], plain[base][1] / c[1]);
    }
}

/* float16 shrink with a bias (shrink_avx512.c, f16_shrink_sym_16), its whole step per 64
 * halves over L1-resident x and y: 4 x (load 16 halves, the sequence, store 16), the
 * iterations independent (loads in, stores out), in cycles per 16 halves. The rows: the
 * kernel's step; the magnitude form (convert |x|, subtract, round, the sign put back on
 * the half: one 512-bit and and xor fewer, one 256-bit op and a zeroing move more); the
 * conversions alone (load, vcvtph2ps, vcvtps2ph, store: the floor of any design through
 * float32); and the copy (load, store): the row's bound is copy / step. */
static uint16_t g_hx[64] __attribute__((aligned(64))), g_hy[64] __attribute__((aligned(64)));
enum { F16S_KERNEL, F16S_MAGNITUDE, F16S_CONVERT, F16S_COPY };

static inline __attribute__((always_inline)) __m256i f16s_group(const uint16_t *p, const int form,
                                                                __m256i bound, __m512 b)
{
    const __m256i h = _mm256_loadu_si256((const __m256i *)p);
    const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    __mmask16 keep, nan;
    switch (form) {
    case F16S_KERNEL: {
        const __m512 x = _mm512_cvtph_ps(h);
        const __m512 bx = _mm512_xor_ps(b, _mm512_and_ps(x, _mm512_set1_ps(-0.0f)));
        keep = _mm256_cmpgt_epi16_mask(mag, bound);
        nan = _mm256_cmpgt_epi16_mask(mag, _mm256_set1_epi16(0x7c00));
        return _mm256_mask_mov_epi16(_mm512_maskz_cvtps_ph(keep, _mm512_sub_ps(x, bx), 0), nan, h);
    }
    case F16S_MAGNITUDE: {
        const __m256i r = _mm512_cvtps_ph(_mm512_sub_ps(_mm512_cvtph_ps(mag), b), 0);
        keep = _mm256_cmpgt_epi16_mask(mag, bound);
        nan = _mm256_cmpgt_epi16_mask(mag, _mm256_set1_epi16(0x7c00));
        return _mm256_mask_mov_epi16(
            _mm256_maskz_mov_epi16(keep, _mm256_ternarylogic_epi32(r, h, _mm256_set1_epi16((short)0x8000), 0xF8)),
            nan, h);
    }
    case F16S_CONVERT:
        return _mm512_cvtps_ph(_mm512_cvtph_ps(h), 0);
    default:
        return h;
    }
}

static inline __attribute__((always_inline)) double f16s_step(const int form)
{
    const __m256i bound = _mm256_set1_epi16(0x37ff);
    const __m512 b = _mm512_set1_ps(0.5f);
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double tc = bench_add_chain(g_n), t0 = bench_now(), cyc;
        for (long i = 0; i < g_n; i++) {
            const uint16_t *xp = g_hx;
            uint16_t *yp = g_hy;
            __asm__ volatile("" : "+r"(xp), "+r"(yp));
            const __m256i r0 = f16s_group(xp, form, bound, b), r1 = f16s_group(xp + 16, form, bound, b);
            const __m256i r2 = f16s_group(xp + 32, form, bound, b), r3 = f16s_group(xp + 48, form, bound, b);
            _mm256_storeu_si256((__m256i *)yp, r0);
            _mm256_storeu_si256((__m256i *)(yp + 16), r1);
            _mm256_storeu_si256((__m256i *)(yp + 32), r2);
            _mm256_storeu_si256((__m256i *)(yp + 48), r3);
        }
        cyc = (bench_now() - t0) / tc * 4.0 * (double)g_n;
        best = cyc < best ? cyc : best;
    }
    return best / (double)g_n / 4.0;
}

static void f16s_table(void)
{
    double c[4];
    c[F16S_KERNEL] = f16s_step(F16S_KERNEL);
    c[F16S_MAGNITUDE] = f16s_step(F16S_MAGNITUDE);
    c[F16S_CONVERT] = f16s_step(F16S_CONVERT);
    c[F16S_COPY] = f16s_step(F16S_COPY);
    printf("float16 shrink (bias), per 64-half step over L1 data: cycles / 16 halves, copy / step\n"
           "  %-40s %6.2f %6.2f\n  %-40s %6.2f %6.2f\n  %-40s %6.2f %6.2f\n  %-40s %6.2f\n",
           "kernel (f16_shrink_sym_16)", c[0], c[3] / c[0], "magnitude form", c[1], c[3] / c[1],
           "conversions only (vcvtph2ps, vcvtps2ph)", c[2], c[3] / c[2], "copy (load, store)", c[3]);
}

int main(int argc, char **argv)
{
    g_n = argc > 1 ? atol(argv[1]) : 20000000L;
    if (g_n < 1000)
        g_n = 1000;
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) {
        printf("portbench: this CPU has no AVX-512 F+BW; nothing measured\n");
        return 0;
    }
    if (argc > 2 && !strcmp(argv[2], "f16shrink")) { /* float16 shrink's steps alone */
        if (__builtin_cpu_supports("avx512vl"))
            f16s_table();
        return 0;
    }
    if (argc > 2 && !strcmp(argv[2], "chains")) { /* the requant chains' table alone */
        printf("cycles per instruction, the fewest of 5 runs of %ld\n", g_n);
        BENCH("vcvtdq2ps zmm", 8, DECL_PS; DECL_I, R8(CVT_IN));
        BENCH("vcvtdq2pd ymm -> zmm (8 doubles)", 8, DECL_PD; DECL_I, R8(CVT_PD_IN));
        BENCH("vcvttpd2dq zmm -> ymm (8 int32)", 8, DECL_PD; DECL_I, R8(CVT_PD_OUT));
        if (__builtin_cpu_supports("avx512dq"))
            rqs_table();
        return 0;
    }
    printf("portbench: core cycles per instruction (per pair, per triple), clocked by a chain\n"
           "of dependent integer adds timed before each of 5 runs of %ld iterations; the\n"
           "fewest cycles of the 5\n", g_n);
    BENCH("vcvtdq2ps zmm", 8, DECL_PS; DECL_I, R8(CVT_IN));
    BENCH("vcvtps2dq zmm", 8, DECL_PS; DECL_I, R8(CVT_OUT));
    BENCH("vminps zmm", 8, DECL_PS, R8(MINPS));
    BENCH("vmulps zmm", 8, DECL_PS, R8(MULPS));
    BENCH("pair vcvtdq2ps + vminps zmm (per pair)", 8, DECL_PS; DECL_I, R8(CVT_MIN));
    BENCH("pair vcvtdq2ps + vmulps zmm (per pair)", 8, DECL_PS; DECL_I, R8(CVT_MUL));
    BENCH("pair vcvtdq2ps + vpmaxsd zmm (per pair)", 8, DECL_PS; DECL_I, R8(CVT_MAXSD));
    BENCH("pair vcvtdq2ps + vpackssdw zmm (per pair)", 8, DECL_PS; DECL_I, R8(CVT_PACK));
    BENCH("vmovdqu32 zmm load (L1, line-aligned)", 8, DECL_I; DECL_LINE,
          __asm__ volatile("" : "+r"(line)); R8(LOADZ));
    BENCH("vpaddd zmm, [mem] (L1, line-aligned)", 8, DECL_I; DECL_LINE,
          __asm__ volatile("" : "+r"(line)); R8(LOADZ_ADD));
    BENCH("vpaddd zmm", 8, DECL_I, R8(ADDD));
    BENCH("vpmaxsd zmm", 8, DECL_I, R8(MAXSD));
    BENCH("vpmuldq zmm (8 products)", 8, DECL_I, R8(MULDQ));
    BENCH("vpsraq zmm", 8, DECL_I, R8(SRAQ));
    BENCH("vpackssdw zmm", 8, DECL_I, R8(PACK));
    BENCH("vcvtdq2pd ymm -> zmm (8 doubles)", 8, DECL_PD; DECL_I, R8(CVT_PD_IN));
    BENCH("vcvttpd2dq zmm -> ymm (8 int32)", 8, DECL_PD; DECL_I, R8(CVT_PD_OUT));
    BENCH("vdivps zmm (16 quotients)", 8, DECL_PS, R8(DIVPS));
    BENCH("vdivps ymm (8 quotients)", 8, DECL_Y, R8(DIVPS_Y));
    BENCH("vcvtph2ps ymm -> zmm", 8, DECL_PS; DECL_I, R8(PH2PS));
    BENCH("vcvtps2ph zmm -> ymm", 8, DECL_PS; DECL_I, R8(PS2PH));
    BENCH("vsubps zmm", 8, DECL_PS, R8(SUBPS));
    BENCH("vfnmadd231ps zmm", 8, DECL_PS; DECL_ONE, R8(FMA1));
    BENCH("pair vcvtph2ps + vcvtps2ph, independent (per pair)", 8, DECL_PS; DECL_I, R8(PH_PAIR));
    BENCH("pair vcvtph2ps + vcvtps2ph, 8 round-trip chains", 8, DECL_PS; DECL_I, R8(PH_ROUND));
    BENCH("pair vcvtph2ps + vsubps (per pair)", 8, DECL_PS; DECL_I, R8(PH2PS_SUB));
    BENCH("vcvtph2ps + vsubps + vcvtps2ph (per triple)", 8, DECL_I, R8(PH_SUB_PH));
    BENCH("vcvtph2ps + vfnmadd + vcvtps2ph (per triple)", 8, DECL_I; DECL_ONE, R8(PH_FMA_PH));
    BENCH("vcvtph2ps + vsubps + vcvtps2ph{z} (per triple)", 8, DECL_I, R8(PH_SUB_PHZ));
    if (__builtin_cpu_supports("avx512dq")) {
        BENCH("requant fast path, double: cvt, mask, blend, fma, range, cvt, test (per 16)", 8,
              DECL_I; DECL_ONE; DECL_TC, R8(RQF_DOUBLE));
        BENCH("requant fast path, ties-up: cvt, fma, range, cvt, test (per 16)", 8,
              DECL_I; DECL_ONE; DECL_TC, R8(RQF_TIES));
    }
    BENCH("latency, 1 chain: vcvtph2ps -> vcvtps2ph", 1, DECL_1; DECL_1I, LAT_PH_ROUND);
    BENCH("latency, 1 chain: vsubps", 1, DECL_1, LAT_SUB);
    BENCH("latency, 1 chain: vfnmadd231ps", 1, DECL_1; DECL_ONE, LAT_FMA);
    if (__builtin_cpu_supports("avx512dq"))
        rqs_table();
    if (__builtin_cpu_supports("avx512vl"))
        f16s_table();
    printf("clock seen by the add chains: %.2f-%.2f GHz\n", g_ghz_lo, g_ghz_hi);
    return 0;
}

#else
int main(void)
{
    printf("portbench: built without x86-64 AVX-512 F/BW/DQ/VL and F16C; nothing measured\n");
    return 0;
}
#endif
