/* ew_cache_bound: what bounds the in-cache (n = 65,536) shrink and clip goal rows on this
 * core: per 64 bytes of x, the cycles of the copy (load, store) and of each kernel's step,
 * over data resident in L1 (x and y 8 KiB each) and at the bench's size (64K elements:
 * float16 128 KiB, float32 / int32 256 KiB, float64 512 KiB each: L2 is 1 MiB).
 *
 * Each step runs in the AVX-512 maps' loop (vec_map.h, avx512_util.h): four 64-byte
 * vectors loaded, mapped and stored per iteration; the AVX2 steps map 32-byte vectors as
 * SIMDOPS_AVX2_MAP does. The iterations are independent (loads in, stores out), so this is
 * throughput. x and y start at the same line of a page, as numpy's heap buffers of one
 * case do (their page offsets measured 0-64 bytes apart), then x or y 16 or 48 bytes past
 * it: the columns "x+16" ... are the rows whose y the kernel aligns (x's loads split
 * lines), "y+16" ... the rows whose x it aligns. Cycles come from a dependent chain of
 * integer adds (1 cycle each) timed before each of 5 runs; the fewest cycles of the 5
 * are printed, per 64 bytes of x.
 *
 * The steps mirror the kernels' instruction sequences at the bench's parameters (shrink:
 * bias 0.5 = threshold 0.5, softshrink, the floats' magnitude form of shrink_body.h; the
 * integers' span / 16 and span / 8, CLAMP_NONE; clip float16: [-1, 1]), the kernels
 * before beside them. "copy" is the same loop with nothing between load and store,
 * "memcpy" the C library's (np.copyto's contiguous copy; glibc's rep movsb at these
 * sizes). A row's bound: memcpy / step at the bench's size (docs/performance.md, "What
 * bounds each row").
 *
 *   bash tools/cbench.sh /tmp/kb && /tmp/kb/ew_cache_bound [passes_scale=1 [row filter]]
 *
 * x86-64 with AVX-512 F+BW+DQ+VL only (a tool: its own flags, no package code). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && \
    defined(__AVX512DQ__) && defined(__AVX512VL__)
#include <immintrin.h>

#include "bench_util.h" /* bench_now, bench_add_chain: the tools' clock */

enum step {
    COPY,
    F32_SHRINK_MAG,      /* shrink_body.h's magnitude form: and, sub, min, xor, or, cmp, maskz mov */
    F32_SHRINK_MAG_TERN, /* the same with the sign put back and the zeroing in one ternlog */
    F64_SHRINK_MAG,
    F64_SHRINK_MAG_TERN,
    I32_SHRINK_AVX2,     /* shrink_avx2.c CLAMP_NONE: sub, cmpgt, add, cmpgt, and, blendv per 32 B */
    I32_SHRINK_MASK,     /* opmasks: two compares, a zeroing subtract, a merging add */
    F16_CLIP_AVX2,       /* clip_avx2.c key space: and, sign, 3 cmpgt, 3 blendv per 32 B */
    F16_CLIP_RANGE,      /* opmasks on the raw bits: 4 compares (2 masked), 2 masked moves */
    F16_CLIP_MIN,        /* opmasks: 2 compares, a masked signed and a masked unsigned min */
};
static const char *const STEP_NAMES[] = {
    "copy (load, store)",
    "magnitude form, or + zeroing move (before)",
    "magnitude form, zeroing ternlog (the kernel)",
    "magnitude form, or + zeroing move (before)",
    "magnitude form, zeroing ternlog (the kernel)",
    "avx2 blend form (before: avx2's kernel)",
    "opmask form (the kernel)",
    "avx2 key-space blends (before: avx2's kernel)",
    "opmask range compares (the kernel, other bounds)",
    "opmask masked mins (the kernel, usual bounds)",
};

typedef struct consts {
    __m512 thr_bits32, b32, abs32, sign32;
    __m512d thr_bits64, b64, abs64, sign64;
    __m256i i32_thr, i32_neg, i32_b;
    __m512i z_thr, z_neg, z_b;
    __m256i h_gt, h_lt, h_lo, h_hsel;
    __m512i hz_gt, hz_ltu, hz_lo, hz_hi, hz_pnan, hz_nnan;
} consts;

static inline __attribute__((always_inline)) __m256i f16_clip_avx2_half(__m256i h, const consts *c)
{
    const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    const __m256i key = _mm256_sign_epi16(mag, h);
    const __m256i nan = _mm256_cmpgt_epi16(mag, _mm256_set1_epi16(0x7c00));
    __m256i r = _mm256_blendv_epi8(h, c->h_lo, _mm256_cmpgt_epi16(c->h_lt, key));
    r = _mm256_blendv_epi8(r, c->h_hsel, _mm256_cmpgt_epi16(key, c->h_gt));
    return _mm256_blendv_epi8(r, h, nan);
}

static inline __attribute__((always_inline)) __m256i i32_shrink_avx2_half(__m256i x, const consts *c)
{
    const __m256i s = _mm256_sub_epi32(x, c->i32_b);
    const __m256i a = _mm256_and_si256(_mm256_add_epi32(x, c->i32_b),
                                       _mm256_cmpgt_epi32(c->i32_neg, x));
    return _mm256_blendv_epi8(a, s, _mm256_cmpgt_epi32(x, c->i32_thr));
}

/* shrink_body.h's magnitude form, one step for float32 and float64: f<W>_shrink_mag with
 * the vector type VT, the mask type MT, the float suffix FS (ps, pd) and the lane's integer
 * suffix IS (epi32, epi64). tern: the sign put back and the zeroing in one ternlog (the
 * kernel), else or + zeroing move (before). */
#define SHRINK_MAG_STEP(W, VT, MT, FS, IS)                                                  \
    static inline __attribute__((always_inline)) __m512i f##W##_shrink_mag(                 \
        __m512i v, const int tern, const consts *c)                                         \
    {                                                                                       \
        const VT x = _mm512_castsi512_##FS(v), mag = _mm512_and_##FS(x, c->abs##W);         \
        const VT m = _mm512_min_##FS(_mm512_sub_##FS(mag, c->b##W), mag);                   \
        const MT k = _mm512_cmpgt_##IS##_mask(_mm512_cast##FS##_si512(mag),                 \
                                              _mm512_cast##FS##_si512(c->thr_bits##W));     \
        if (tern)                                                                           \
            return _mm512_maskz_ternarylogic_##IS(k, _mm512_cast##FS##_si512(m), v,         \
                                                  _mm512_cast##FS##_si512(c->sign##W), 0xF8); \
        return _mm512_cast##FS##_si512(                                                     \
            _mm512_maskz_mov_##FS(k, _mm512_or_##FS(m, _mm512_xor_##FS(x, mag))));           \
    }
SHRINK_MAG_STEP(32, __m512, __mmask16, ps, epi32)
SHRINK_MAG_STEP(64, __m512d, __mmask8, pd, epi64)
#undef SHRINK_MAG_STEP

static inline __attribute__((always_inline)) __m512i step(__m512i v, const int form, const consts *c)
{
    switch (form) {
    case F32_SHRINK_MAG: return f32_shrink_mag(v, 0, c);
    case F32_SHRINK_MAG_TERN: return f32_shrink_mag(v, 1, c);
    case F64_SHRINK_MAG: return f64_shrink_mag(v, 0, c);
    case F64_SHRINK_MAG_TERN: return f64_shrink_mag(v, 1, c);
    case I32_SHRINK_MASK: {
        const __mmask16 gt = _mm512_cmpgt_epi32_mask(v, c->z_thr);
        const __mmask16 lt = _mm512_cmplt_epi32_mask(v, c->z_neg);
        const __m512i r = _mm512_maskz_sub_epi32(gt, v, c->z_b);
        return _mm512_mask_add_epi32(r, lt, v, c->z_b);
    }
    case F16_CLIP_RANGE: {
        /* x > hi (hi >= 0): signed gt_bound < h <= 0x7c00; x < lo (lo <= 0): unsigned
         * lt range < h <= 0xfc00 */
        const __mmask32 gt = _mm512_mask_cmple_epi16_mask(_mm512_cmpgt_epi16_mask(v, c->hz_gt),
                                                          v, c->hz_pnan);
        const __mmask32 lt = _mm512_mask_cmple_epu16_mask(_mm512_cmpgt_epu16_mask(v, c->hz_ltu),
                                                          v, c->hz_nnan);
        return _mm512_mask_mov_epi16(_mm512_mask_mov_epi16(v, lt, c->hz_lo), gt, c->hz_hi);
    }
    case F16_CLIP_MIN: {
        const __mmask32 pn = _mm512_cmple_epi16_mask(v, c->hz_pnan);
        const __mmask32 nn = _mm512_cmple_epu16_mask(v, c->hz_nnan);
        const __m512i r = _mm512_mask_min_epi16(v, pn, v, c->hz_hi);
        return _mm512_mask_min_epu16(r, nn, r, c->hz_lo);
    }
    case F16_CLIP_AVX2:
        return _mm512_inserti64x4(_mm512_castsi256_si512(f16_clip_avx2_half(_mm512_castsi512_si256(v), c)),
                                  f16_clip_avx2_half(_mm512_extracti64x4_epi64(v, 1), c), 1);
    case I32_SHRINK_AVX2:
        return _mm512_inserti64x4(_mm512_castsi256_si512(i32_shrink_avx2_half(_mm512_castsi512_si256(v), c)),
                                  i32_shrink_avx2_half(_mm512_extracti64x4_epi64(v, 1), c), 1);
    default:
        return v;
    }
}

/* The AVX2 steps as the AVX2 map runs them: 32-byte loads and stores. */
static inline __attribute__((always_inline)) void map_avx2(const unsigned char *x, unsigned char *y,
                                                           size_t nb, const int form, const consts *c)
{
#define AVX2_STEP(v) (form == F16_CLIP_AVX2 ? f16_clip_avx2_half(v, c) : i32_shrink_avx2_half(v, c))
    for (size_t i = 0; i + 128 <= nb; i += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(x + i + 32));
        __m256i d = _mm256_loadu_si256((const __m256i *)(x + i + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(x + i + 96));
        a = AVX2_STEP(a);
        b = AVX2_STEP(b);
        d = AVX2_STEP(d);
        e = AVX2_STEP(e);
        _mm256_storeu_si256((__m256i *)(y + i), a);
        _mm256_storeu_si256((__m256i *)(y + i + 32), b);
        _mm256_storeu_si256((__m256i *)(y + i + 64), d);
        _mm256_storeu_si256((__m256i *)(y + i + 96), e);
    }
#undef AVX2_STEP
}

static inline __attribute__((always_inline)) void map512(const unsigned char *x, unsigned char *y,
                                                         size_t nb, const int form, const consts *c)
{
    for (size_t i = 0; i + 256 <= nb; i += 256) {
        __m512i a = _mm512_loadu_si512(x + i), b = _mm512_loadu_si512(x + i + 64);
        __m512i d = _mm512_loadu_si512(x + i + 128), e = _mm512_loadu_si512(x + i + 192);
        a = step(a, form, c);
        b = step(b, form, c);
        d = step(d, form, c);
        e = step(e, form, c);
        _mm512_storeu_si512(y + i, a);
        _mm512_storeu_si512(y + i + 64, b);
        _mm512_storeu_si512(y + i + 128, d);
        _mm512_storeu_si512(y + i + 192, e);
    }
}

static long g_vectors; /* 64-byte vectors per run */

/* x and y start at the same line of a page, as numpy's heap buffers of one case do (their
 * page offsets measured 0-64 bytes apart), then DX / DY bytes past it */
enum { BASE = 1664 };

/* fewest cycles per 64 bytes of 5 runs of passes over nb bytes (form < 0: memcpy) */
static inline __attribute__((always_inline)) double run(const unsigned char *x, unsigned char *y,
                                                        size_t nb, const int form, const consts *c)
{
    const long passes = g_vectors / (long)(nb / 64) + 1;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double tc = bench_add_chain(g_vectors / 4), t0 = bench_now(), cyc;
        for (long p = 0; p < passes; p++) {
            __asm__ volatile("" : : "r"(x), "r"(y) : "memory");
            if (form < 0)
                memcpy(y, x, nb);
            else if (form == F16_CLIP_AVX2 || form == I32_SHRINK_AVX2)
                map_avx2(x, y, nb, form, c);
            else
                map512(x, y, nb, form, c);
        }
        cyc = (bench_now() - t0) / tc * (double)g_vectors; /* the chain: 4 x g_vectors / 4 cycles */
        best = cyc < best ? cyc : best;
    }
    return best / (double)passes / (double)(nb / 64);
}

static double run_form(const unsigned char *x, unsigned char *y, size_t nb, int form, const consts *c)
{
    switch (form) { /* each form compiled as its own loop */
#define RUN_FORM(F) case F: return run(x, y, nb, F, c);
    RUN_FORM(COPY) RUN_FORM(F32_SHRINK_MAG) RUN_FORM(F32_SHRINK_MAG_TERN) RUN_FORM(F64_SHRINK_MAG)
    RUN_FORM(F64_SHRINK_MAG_TERN) RUN_FORM(I32_SHRINK_AVX2) RUN_FORM(I32_SHRINK_MASK)
    RUN_FORM(F16_CLIP_AVX2) RUN_FORM(F16_CLIP_RANGE) RUN_FORM(F16_CLIP_MIN)
#undef RUN_FORM
    default: return run(x, y, nb, -1, c);
    }
}

static consts make_consts(void)
{
    consts c;
    c.thr_bits32 = _mm512_set1_ps(0.5f);
    c.b32 = _mm512_set1_ps(0.5f);
    c.abs32 = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    c.sign32 = _mm512_set1_ps(-0.0f);
    c.thr_bits64 = _mm512_set1_pd(0.5);
    c.b64 = _mm512_set1_pd(0.5);
    c.abs64 = _mm512_castsi512_pd(_mm512_set1_epi64(INT64_MAX));
    c.sign64 = _mm512_set1_pd(-0.0);
    /* int32: span / 8 and span / 16 as the bench */
    c.i32_thr = _mm256_set1_epi32(536870911);
    c.i32_neg = _mm256_set1_epi32(-536870911);
    c.i32_b = _mm256_set1_epi32(268435455);
    c.z_thr = _mm512_set1_epi32(536870911);
    c.z_neg = _mm512_set1_epi32(-536870911);
    c.z_b = _mm512_set1_epi32(268435455);
    /* float16 clip [-1, 1]: 1.0 = 0x3c00 */
    c.h_gt = _mm256_set1_epi16(0x3c00);
    c.h_lt = _mm256_set1_epi16(-0x3c00);
    c.h_lo = _mm256_set1_epi16((short)0xbc00);
    c.h_hsel = _mm256_set1_epi16(0x3c00);
    c.hz_gt = _mm512_set1_epi16(0x3c00);
    c.hz_ltu = _mm512_set1_epi16((short)0xbc00);
    c.hz_lo = _mm512_set1_epi16((short)0xbc00);
    c.hz_hi = _mm512_set1_epi16(0x3c00);
    c.hz_pnan = _mm512_set1_epi16(0x7c00);
    c.hz_nnan = _mm512_set1_epi16((short)0xfc00);
    return c;
}

/* x: random halves / floats / int32 in every lane (the same bytes for every form) */
static void fill(unsigned char *x, size_t nb, int esize)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < nb; i += (size_t)esize) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const uint32_t r = (uint32_t)(s >> 33);
        if (esize == 2) { /* halves in (-2, 2) */
            const uint16_t h = (uint16_t)(0x3000 + (r & 0xfff)) | (uint16_t)(r & 0x10000 ? 0x8000 : 0);
            memcpy(x + i, &h, 2);
        } else if (esize == 4) {
            memcpy(x + i, &r, 4);
            if (r & 1) { /* a float in (-2, 2) for the float rows */
                const float f = ((float)(r >> 8) / 8388608.0f - 1.0f) * 2.0f;
                memcpy(x + i, &f, 4);
            }
        } else {
            const double d = ((double)r / 2147483648.0 - 1.0) * 2.0;
            memcpy(x + i, &d, 8);
        }
    }
}

int main(int argc, char **argv)
{
    static const struct { const char *row; int esize; int forms[3]; } ROWS[] = {
        {"shrink float32", 4, {F32_SHRINK_MAG, F32_SHRINK_MAG_TERN, -2}},
        {"shrink int32", 4, {I32_SHRINK_AVX2, I32_SHRINK_MASK, -2}},
        {"shrink float64", 8, {F64_SHRINK_MAG, F64_SHRINK_MAG_TERN, -2}},
        {"clip float16", 2, {F16_CLIP_AVX2, F16_CLIP_RANGE, F16_CLIP_MIN}},
    };
    const double scale = argc > 1 ? atof(argv[1]) : 1.0;
    const consts c = make_consts();
    unsigned char *xb, *yb;
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vl")) {
        printf("ew_cache_bound: this CPU has no AVX-512 F+BW+DQ+VL; nothing measured\n");
        return 0;
    }
    g_vectors = (long)(4000000 * (scale > 0 ? scale : 1.0));
    xb = aligned_alloc(4096, (1u << 20) + 8192);
    yb = aligned_alloc(4096, (1u << 20) + 8192);
    if (!xb || !yb)
        return 1;
    printf("cycles per 64 bytes of x, the fewest of 5 runs of %ld vectors; L1: 8 KiB; 64K: "
           "the bench's size, x or y 16 / 48 bytes past a line\n", g_vectors);
    for (size_t r = 0; r < sizeof(ROWS) / sizeof(ROWS[0]); r++) {
        if (argc > 2 && !strstr(ROWS[r].row, argv[2]))
            continue;
        const size_t big = (size_t)65536 * (size_t)ROWS[r].esize;
        printf("%s\n  %-48s %7s %7s %7s %7s %7s %7s %7s\n", ROWS[r].row, "step", "L1", "L1 x+16",
               "64K", "x+16", "y+16", "x+48", "y+48");
        fill(xb + BASE, big + 64, ROWS[r].esize);
        memset(yb, 0, big + 8192);
        int forms[5] = {COPY, -1, ROWS[r].forms[0], ROWS[r].forms[1], ROWS[r].forms[2]};
        for (int f = 0; f < 5; f++) {
            if (forms[f] == -2)
                continue;
            printf("  %-48s", forms[f] < 0 ? "memcpy (np.copyto's copy)" : STEP_NAMES[forms[f]]);
            static const int DX[7] = {0, 16, 0, 16, 0, 48, 0}, DY[7] = {0, 0, 0, 0, 16, 0, 48};
            for (int col = 0; col < 7; col++)
                printf(" %7.2f", run_form(xb + BASE + DX[col], yb + BASE + DY[col],
                                          col < 2 ? 8192 : big, forms[f], &c));
            printf("\n");
        }
    }
    return 0;
}

#else
int main(void)
{
    printf("ew_cache_bound: built without x86-64 AVX-512 F/BW/DQ/VL; nothing measured\n");
    return 0;
}
#endif
