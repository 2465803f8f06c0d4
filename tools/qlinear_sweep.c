/* Exhaustive check of QuantizeLinear float32 -> uint8 / int8: every float32
 * bit pattern (2^32, or the chosen 2^24-pattern slices: those whose top byte
 * is the slice number) through every available tier's kernel against the
 * scalar kernel, for a few (scale, zero point, type) sets. The divider-free
 * 8-bit path of the x86 tiers (csrc/kernels/qlinear/qlinear_q8_recip.h) is what
 * this is for; its fallbacks are reached by the ties, NaNs and infinities among
 * the patterns.
 *   Build: bash tools/cbench.sh OUTDIR (builds it too).
 *   Run:   OUTDIR/qlinear_sweep [all | ci | SLICE...] [--config K]
 *          all: the 256 slices; ci (default): for each set the slices holding
 *          +-100 s, +-0.5 s and the infinities and NaNs (0x7f, 0xff);
 *          SLICE: a top byte (0..255). --config K: only set K.
 *          --rate: the share of 64-lane blocks with a flagged lane (the
 *          scalar model of the fast path's window test) on normal data
 *          (the bench's: N(0, 40^2), scale 0.37, zp 128) and on random scales.
 *          --bench [rounds]: each tier's u8 kernel on the bench's data (64K, 1M)
 *          against the same kernel with MXCSR rounding down, which sends it to
 *          the dividing loop (today's kernel), interleaved (x86 only).
 * Tiers: avx2 and avx512 where available (the others divide, and the kernel
 * harness covers them). Prints the mismatches per (set, tier); exits 1 on any. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/dtype.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "bench_util.h"
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

enum { CHUNK = 1 << 20 };

typedef struct config {
    float scale;
    int32_t zp;
    int is_signed;
} config;

/* typical scales (1/255, 0.37 as the bench, powers of two: ties abound),
 * negative, tiny and huge scales at the fast path's limits, both types, the
 * extreme zero points */
static const config CONFIGS[] = {
    {0.003921569f, 0, 0},   {0.37f, 128, 0},     {0.0078125f, 255, 0}, {1.0f, 0, 1},
    {0.1f, -128, 1},        {-0.5f, 127, 1},     {0x1p-125f, 3, 0},    {0x1p125f, -5, 1},
    {0.012345679f, 77, 0},  {3.1415927f, -1, 1}, {1e-3f, 200, 0},      {6.1035156e-05f, 0, 1},
};
enum { NCONFIG = sizeof(CONFIGS) / sizeof(CONFIGS[0]) };

static uint32_t f32_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    return b;
}

static float f32_from_bits(uint32_t b)
{
    float v;
    memcpy(&v, &b, 4);
    return v;
}

static void params_of(const config *c, simdops_qlinear_params *p)
{
    const int32_t lo = c->is_signed ? -128 : 0, hi = c->is_signed ? 127 : 255;
    memset(p, 0, sizeof(*p));
    p->scale = c->scale;
    p->zero_point = c->zp;
    p->qlo = (float)(lo - c->zp);
    p->qhi = (float)(hi - c->zp);
}

/* one (set, slice): mismatches per tier added to bad[] */
static void sweep_slice(const config *c, unsigned slice, int ntiers, const simdops_qlinear_fn *fns,
                        float *x, int8_t *want, int8_t *got, unsigned long long *bad)
{
    simdops_qlinear_params p;
    simdops_qlinear_fn ref =
        simdops_scalar_kernels()->quantize_f32[c->is_signed ? SIMDOPS_INT8 : SIMDOPS_UINT8];
    params_of(c, &p);
    for (uint32_t base = 0; base < (1u << 24); base += CHUNK) {
        for (uint32_t k = 0; k < CHUNK; k++)
            x[k] = f32_from_bits((uint32_t)slice << 24 | (base + k));
        ref(x, want, CHUNK, &p);
        for (int t = 0; t < ntiers; t++) {
            fns[t](x, got, CHUNK, &p);
            if (memcmp(want, got, CHUNK)) {
                for (uint32_t k = 0; k < CHUNK; k++) {
                    if (want[k] != got[k] && bad[t]++ < 5)
                        printf("  MISMATCH tier %d x=%a (bits %08x) want %d got %d\n", t,
                               (double)x[k], f32_bits(x[k]), want[k], got[k]);
                }
            }
        }
    }
}

/* the scalar model of the fast path's window test (qlinear_q8_recip.h): the
 * share of 64-lane blocks (AVX-512: fused, flagged when frac(w) = 0) or 32-lane
 * blocks (AVX2: product rounded, then the add; flagged when frac(w) < 4 ulp,
 * tau = 2 ulp) with a flagged lane */
static double flagged_blocks(const float *x, size_t n, const config *c, int fused)
{
    const float m = c->is_signed ? 768.0f : 640.0f, tmin = c->is_signed ? -128.0f : 0.0f;
    const float r = 1.0f / c->scale, a = m + (float)c->zp + 0.5f + (fused ? 0.0f : 2 * 0x1p-14f);
    const uint32_t mask = fused ? 0x3fffu : 0x3ffcu;
    const size_t lanes = fused ? 64 : 32;
    size_t blocks = 0, flagged = 0;
    for (size_t i = 0; i + lanes <= n; i += lanes, blocks++) {
        int any = 0;
        for (size_t k = 0; k < lanes; k++) {
            volatile float prod = x[i + k] * r; /* rounded: no contraction into an FMA */
            float w = fused ? fmaf(x[i + k], r, a) : prod + a;
            if (!(w >= m + tmin - 0.5f))
                w = m + tmin - 0.5f;
            any |= (f32_bits(w) & mask) == 0;
        }
        flagged += (size_t)any;
    }
    return blocks ? (double)flagged / (double)blocks : 0.0;
}

static double normal(void)
{
    double u = (rand() + 1.0) / (RAND_MAX + 2.0), v = (rand() + 1.0) / (RAND_MAX + 2.0);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void rates(float *x)
{
    config bench = {0.37f, 128, 0};
    size_t n = CHUNK;
    srand(1);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(normal() * 40.0);
    printf("flagged blocks (avx512: of 64 lanes, avx2: of 32)\n");
    printf("  the bench's data (N(0,40^2), scale 0.37, zp 128, u8): avx512 %.3f%%, avx2 %.3f%%\n",
           100.0 * flagged_blocks(x, n, &bench, 1), 100.0 * flagged_blocks(x, n, &bench, 0));
    for (int rep = 0; rep < 8; rep++) {
        /* a random scale over 2^-12 .. 2^4 and data spanning its range */
        config c = {(float)ldexp(1.0 + rand() / (RAND_MAX + 1.0), -12 + rand() % 16), rand() % 256,
                    rep & 1};
        if (c.is_signed)
            c.zp -= 128;
        for (size_t i = 0; i < n; i++)
            x[i] = (float)(normal() * 50.0 * c.scale);
        printf("  random scale %a zp %d %s, data N(0, (50 s)^2): avx512 %.3f%%, avx2 %.3f%%\n",
               (double)c.scale, c.zp, c.is_signed ? "i8" : "u8", 100.0 * flagged_blocks(x, n, &c, 1),
               100.0 * flagged_blocks(x, n, &c, 0));
    }
}

#if defined(__x86_64__) || defined(__i386__)
typedef struct bench_arg {
    simdops_qlinear_fn fn;
    const float *x;
    uint8_t *y;
    size_t n;
    simdops_qlinear_params p;
    unsigned csr;
} bench_arg;

static void bench_call(void *argv)
{
    bench_arg *a = (bench_arg *)argv;
    unsigned saved = _mm_getcsr();
    _mm_setcsr(a->csr);
    a->fn(a->x, a->y, a->n, &a->p);
    _mm_setcsr(saved);
}

static void bench(int ntiers, const int *tier_of, simdops_qlinear_fn *fns, int rounds)
{
    const config c = {0.37f, 128, 0};
    const size_t sizes[] = {65536, 1048576};
    float *x = malloc(sizes[1] * sizeof(float));
    uint8_t *y = malloc(sizes[1]);
    if (!x || !y)
        exit(2);
    srand(1);
    for (size_t i = 0; i < sizes[1]; i++)
        x[i] = (float)(normal() * 40.0);
    for (int t = 0; t < ntiers; t++) {
        for (int k = 0; k < 2; k++) {
            bench_arg fast, slow;
            char label[64];
            fast.fn = fns[t];
            fast.x = x;
            fast.y = y;
            fast.n = sizes[k];
            fast.csr = _mm_getcsr() & ~0x6000u;
            params_of(&c, &fast.p);
            slow = fast;
            slow.csr |= 0x2000u; /* round down: the kernel takes its dividing loop */
            snprintf(label, sizeof label, "%s u8 n=%zu new vs dividing", simdops_tier_name(tier_of[t]),
                     sizes[k]);
            bench_compare_args(label, bench_call, &fast, bench_call, &slow, rounds);
        }
    }
    free(x);
    free(y);
}
#endif

int main(int argc, char **argv)
{
    int only = -1, all = 0, nslices = 0, ntiers = 0, tier_of[16];
    unsigned slices[256];
    simdops_qlinear_fn fns[2][16];
    unsigned long long total_bad = 0;
    float *x = malloc(CHUNK * sizeof(float));
    int8_t *want = malloc(CHUNK), *got = malloc(CHUNK);
    if (!x || !want || !got)
        return 2;
    simdops_init();
    int bench_rounds = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bench"))
            bench_rounds = i + 1 < argc ? atoi(argv[++i]) : 20;
        else if (!strcmp(argv[i], "all"))
            all = 1;
        else if (!strcmp(argv[i], "ci"))
            all = 0;
        else if (!strcmp(argv[i], "--rate")) {
            rates(x);
            return 0;
        } else if (!strcmp(argv[i], "--config") && i + 1 < argc)
            only = atoi(argv[++i]);
        else
            slices[nslices++] = (unsigned)strtoul(argv[i], NULL, 0) & 255u;
    }
    for (int i = 1; i < simdops_tier_count() && ntiers < 16; i++) {
        const simdops_kernel_table *t = simdops_tier_table(i);
        /* the tiers with the divider-free path; the others are the harness's */
        if (!t || (strcmp(simdops_tier_name(i), "avx2") && strcmp(simdops_tier_name(i), "avx512")))
            continue;
        tier_of[ntiers] = i;
        fns[0][ntiers] = t->quantize_f32[SIMDOPS_UINT8];
        fns[1][ntiers] = t->quantize_f32[SIMDOPS_INT8];
        ntiers++;
    }
    printf("tiers:");
    for (int t = 0; t < ntiers; t++)
        printf(" %d=%s", t, simdops_tier_name(tier_of[t]));
    printf("\n");
    if (bench_rounds) {
#if defined(__x86_64__) || defined(__i386__)
        bench(ntiers, tier_of, fns[0], bench_rounds);
#endif
        return 0;
    }
    for (int ci = 0; ci < NCONFIG; ci++) {
        const config *c = &CONFIGS[ci];
        unsigned long long bad[16] = {0}, done = 0;
        unsigned set[256];
        int ns = 0;
        if (only >= 0 && ci != only)
            continue;
        if (all)
            for (unsigned s = 0; s < 256; s++)
                set[ns++] = s;
        else if (nslices)
            for (int s = 0; s < nslices; s++)
                set[ns++] = slices[s];
        else {
            const float v[] = {100.0f * c->scale, -100.0f * c->scale, 0.5f * c->scale, -0.5f * c->scale};
            for (int k = 0; k < 4; k++)
                set[ns++] = f32_bits(v[k]) >> 24;
            set[ns++] = 0x7f;
            set[ns++] = 0xff;
        }
        for (int s = 0; s < ns; s++) {
            int dup = 0;
            for (int k = 0; k < s; k++)
                dup |= set[k] == set[s];
            if (dup)
                continue;
            sweep_slice(c, set[s], ntiers, fns[c->is_signed], x, want, got, bad);
            done += 1u << 24;
        }
        printf("set %d: scale %a zp %d %s: %llu inputs", ci, (double)c->scale, c->zp,
               c->is_signed ? "int8" : "uint8", done);
        for (int t = 0; t < ntiers; t++) {
            printf(", %s %llu mismatches", simdops_tier_name(tier_of[t]), bad[t]);
            total_bad += bad[t];
        }
        printf("\n");
        fflush(stdout);
    }
    free(x);
    free(want);
    free(got);
    printf("qlinear_sweep: %s\n", total_bad ? "FAILED" : "OK");
    return total_bad ? 1 : 0;
}
