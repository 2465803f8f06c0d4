/* Where the time of QuantizeLinear float32 -> uint8 goes beyond L2 (the bench's
 * 1M row: 4 MB read, 1 MB written, both L3-resident between calls), x86-64
 * with AVX-512. Every loop is timed in thread CPU time, interleaved with the
 * "traffic" loop (the same bytes moved with no arithmetic), medians of rounds:
 *   read        4 loads a step OR'ed into 4 independent accumulators (the read
 *               bandwidth alone: no stores)
 *   read pf     the same with software prefetch PF_AHEAD bytes ahead
 *   read lines  one 4-byte load a 64-byte line (the line rate alone)
 *   traffic     4 loads OR'ed into one vector, one 64-byte store: the kernel's
 *               bytes with the least work a step (the bound of any algorithm
 *               that reads x once and writes y once)
 *   traffic NT  the same with non-temporal stores
 *   kernel      the library's avx512 quantize_f32 -> uint8 (the fast path of
 *               csrc/kernels/qlinear/qlinear_q8_recip.h, its dividing fallback)
 *   recip       that fast path written out here (the fallback: the dividing
 *               step of the same 64 lanes), then variants of it:
 *   recip NT    non-temporal 64-byte stores
 *   recip pf    software prefetch PF_AHEAD bytes ahead of the loads
 *   recip x2    two blocks (8 vectors) a step: independent chains
 *   recip pf NT, traffic pf, traffic pf NT: the two changes together
 * and the same at 64K (in L2) for the compute rate. The NT loops run only with
 * y on a line boundary. tools/ql_ort_bound.py builds the traffic loops as a
 * shared library (-DQL_BOUND_SHARED) and times them beside ONNX Runtime. The variants are not exact
 * kernels of the package (no tails, bench parameters only); they time where the
 * cycles go.
 *   Build: bash tools/cbench.sh OUTDIR
 *   Run:   OUTDIR/ql_bound [rounds=21] [prefetch distance, bytes=1024] [skew=0: x and y
 *          this many bytes past a 64-byte boundary; numpy's arrays sit at 16] */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef QL_BOUND_SHARED
#include "simdops/simdops.h"
#include "core/dtype.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "bench_util.h"
#else
/* tools/ql_ort_bound.py's shared library: the traffic loops alone, no package code */
typedef void (*bench_fn)(void *);
typedef struct { float scale; int32_t zero_point; float qlo, qhi; int div_f16; } simdops_qlinear_params;
typedef void (*simdops_qlinear_fn)(const void *, void *, size_t, const simdops_qlinear_params *);
#endif

static size_t PF_AHEAD = 1024; /* bytes; argv[2] */

typedef struct arg {
    const float *x;
    uint8_t *y;
    size_t n;
    simdops_qlinear_fn fn;
    simdops_qlinear_params p;
    volatile int sink;
} arg;

static void read_only(void *v)
{
    arg *a = v;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < a->n; i += 64) {
        s0 = _mm512_or_si512(s0, _mm512_loadu_si512(a->x + i));
        s1 = _mm512_or_si512(s1, _mm512_loadu_si512(a->x + i + 16));
        s2 = _mm512_or_si512(s2, _mm512_loadu_si512(a->x + i + 32));
        s3 = _mm512_or_si512(s3, _mm512_loadu_si512(a->x + i + 48));
    }
    a->sink = _mm512_reduce_or_epi32(_mm512_or_si512(_mm512_or_si512(s0, s1), _mm512_or_si512(s2, s3)));
}

static void read_pf(void *v)
{
    arg *a = v;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < a->n; i += 64) {
        const char *ahead = (const char *)(a->x + i) + PF_AHEAD;
        _mm_prefetch(ahead, _MM_HINT_T0);
        _mm_prefetch(ahead + 64, _MM_HINT_T0);
        _mm_prefetch(ahead + 128, _MM_HINT_T0);
        _mm_prefetch(ahead + 192, _MM_HINT_T0);
        s0 = _mm512_or_si512(s0, _mm512_loadu_si512(a->x + i));
        s1 = _mm512_or_si512(s1, _mm512_loadu_si512(a->x + i + 16));
        s2 = _mm512_or_si512(s2, _mm512_loadu_si512(a->x + i + 32));
        s3 = _mm512_or_si512(s3, _mm512_loadu_si512(a->x + i + 48));
    }
    a->sink = _mm512_reduce_or_epi32(_mm512_or_si512(_mm512_or_si512(s0, s1), _mm512_or_si512(s2, s3)));
}

/* one load a 64-byte line: the L3 -> L1 line rate without the loads' own issue limit */
static void read_lines(void *v)
{
    arg *a = v;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < a->n; i += 64) {
        s0 = _mm512_or_si512(s0, _mm512_castsi128_si512(_mm_loadu_si32(a->x + i)));
        s1 = _mm512_or_si512(s1, _mm512_castsi128_si512(_mm_loadu_si32(a->x + i + 16)));
        s2 = _mm512_or_si512(s2, _mm512_castsi128_si512(_mm_loadu_si32(a->x + i + 32)));
        s3 = _mm512_or_si512(s3, _mm512_castsi128_si512(_mm_loadu_si32(a->x + i + 48)));
    }
    a->sink = _mm512_reduce_or_epi32(_mm512_or_si512(_mm512_or_si512(s0, s1), _mm512_or_si512(s2, s3)));
}

static inline __m512i or4(const float *x)
{
    return _mm512_or_si512(_mm512_or_si512(_mm512_loadu_si512(x), _mm512_loadu_si512(x + 16)),
                           _mm512_or_si512(_mm512_loadu_si512(x + 32), _mm512_loadu_si512(x + 48)));
}

static void traffic(void *v)
{
    arg *a = v;
    for (size_t i = 0; i < a->n; i += 64)
        _mm512_storeu_si512(a->y + i, or4(a->x + i));
}

static void traffic_nt(void *v)
{
    arg *a = v;
    for (size_t i = 0; i < a->n; i += 64)
        _mm512_stream_si512((void *)(a->y + i), or4(a->x + i));
    _mm_sfence();
}

static void kernel(void *v)
{
    arg *a = v;
    a->fn(a->x, a->y, a->n, &a->p);
}

/* the fast path of qlinear_q8_recip.h for u8 (M = 640), scale s, zero point zp */
typedef struct recip_consts {
    __m512 r, add, wlo, s, hi;
    __m512i mbits, window, zp16, order;
} recip_consts;

static recip_consts consts_of(const simdops_qlinear_params *p)
{
    recip_consts c;
    c.r = _mm512_set1_ps(1.0f / p->scale);
    c.add = _mm512_set1_ps(640.0f + (float)p->zero_point + 0.5f);
    c.wlo = _mm512_set1_ps(640.0f - 0.5f);
    c.s = _mm512_set1_ps(p->scale);
    c.hi = _mm512_set1_ps(p->qhi);
    c.mbits = _mm512_set1_epi32(0x44000000 + (640 - 512) * (1 << 14));
    c.window = _mm512_set1_epi32(0x3FFF);
    c.zp16 = _mm512_set1_epi16((int16_t)p->zero_point);
    c.order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return c;
}

#define RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* the dividing step of 64 lanes (ql_q8_steps) */
static inline __m512i div_round(const float *x, const recip_consts *c)
{
    return _mm512_cvt_roundps_epi32(_mm512_min_ps(c->hi, _mm512_div_ps(_mm512_loadu_ps(x), c->s)), RN);
}

/* the dividing step of 64 lanes (ql_q8_steps); out of line, as the kernel's */
static __attribute__((noinline)) __m512i divide_block(const float *x, const recip_consts *c)
{
    __m512i p01 = _mm512_adds_epi16(_mm512_packs_epi32(div_round(x, c), div_round(x + 16, c)), c->zp16);
    __m512i p23 = _mm512_adds_epi16(_mm512_packs_epi32(div_round(x + 32, c), div_round(x + 48, c)), c->zp16);
    return _mm512_permutexvar_epi32(c->order, _mm512_packus_epi16(p01, p23));
}

static inline __m512i w_bits(const float *x, const recip_consts *c)
{
    return _mm512_castps_si512(_mm512_max_ps(_mm512_fmadd_ps(_mm512_loadu_ps(x), c->r, c->add), c->wlo));
}

static inline __m512i level(__m512i b, const recip_consts *c)
{
    return _mm512_srai_epi32(_mm512_sub_epi32(b, c->mbits), 14);
}

/* written out (a loop over the 4 vectors stays rolled at -O2, on the stack) */
static inline __m512i recip_block(const float *x, const recip_consts *c)
{
    __m512i b0 = w_bits(x, c), b1 = w_bits(x + 16, c), b2 = w_bits(x + 32, c), b3 = w_bits(x + 48, c);
    if ((_mm512_testn_epi32_mask(b0, c->window) | _mm512_testn_epi32_mask(b1, c->window) |
         _mm512_testn_epi32_mask(b2, c->window) | _mm512_testn_epi32_mask(b3, c->window)) != 0)
        return divide_block(x, c);
    __m512i p01 = _mm512_packs_epi32(level(b0, c), level(b1, c));
    __m512i p23 = _mm512_packs_epi32(level(b2, c), level(b3, c));
    return _mm512_permutexvar_epi32(c->order, _mm512_packus_epi16(p01, p23));
}

static void recip(void *v)
{
    arg *a = v;
    const recip_consts c = consts_of(&a->p);
    for (size_t i = 0; i < a->n; i += 64)
        _mm512_storeu_si512(a->y + i, recip_block(a->x + i, &c));
}

static void recip_nt(void *v)
{
    arg *a = v;
    const recip_consts c = consts_of(&a->p);
    for (size_t i = 0; i < a->n; i += 64)
        _mm512_stream_si512((void *)(a->y + i), recip_block(a->x + i, &c));
    _mm_sfence();
}

static void recip_pf(void *v)
{
    arg *a = v;
    const recip_consts c = consts_of(&a->p);
    for (size_t i = 0; i < a->n; i += 64) {
        const char *ahead = (const char *)(a->x + i) + PF_AHEAD;
        _mm_prefetch(ahead, _MM_HINT_T0);
        _mm_prefetch(ahead + 64, _MM_HINT_T0);
        _mm_prefetch(ahead + 128, _MM_HINT_T0);
        _mm_prefetch(ahead + 192, _MM_HINT_T0);
        _mm512_storeu_si512(a->y + i, recip_block(a->x + i, &c));
    }
}

static void recip_pf_nt(void *v)
{
    arg *a = v;
    const recip_consts c = consts_of(&a->p);
    for (size_t i = 0; i < a->n; i += 64) {
        const char *ahead = (const char *)(a->x + i) + PF_AHEAD;
        _mm_prefetch(ahead, _MM_HINT_T0);
        _mm_prefetch(ahead + 64, _MM_HINT_T0);
        _mm_prefetch(ahead + 128, _MM_HINT_T0);
        _mm_prefetch(ahead + 192, _MM_HINT_T0);
        _mm512_stream_si512((void *)(a->y + i), recip_block(a->x + i, &c));
    }
    _mm_sfence();
}

static void traffic_pf(void *v)
{
    arg *a = v;
    for (size_t i = 0; i < a->n; i += 64) {
        const char *ahead = (const char *)(a->x + i) + PF_AHEAD;
        _mm_prefetch(ahead, _MM_HINT_T0);
        _mm_prefetch(ahead + 64, _MM_HINT_T0);
        _mm_prefetch(ahead + 128, _MM_HINT_T0);
        _mm_prefetch(ahead + 192, _MM_HINT_T0);
        _mm512_storeu_si512(a->y + i, or4(a->x + i));
    }
}

static void traffic_pf_nt(void *v)
{
    arg *a = v;
    for (size_t i = 0; i < a->n; i += 64) {
        const char *ahead = (const char *)(a->x + i) + PF_AHEAD;
        _mm_prefetch(ahead, _MM_HINT_T0);
        _mm_prefetch(ahead + 64, _MM_HINT_T0);
        _mm_prefetch(ahead + 128, _MM_HINT_T0);
        _mm_prefetch(ahead + 192, _MM_HINT_T0);
        _mm512_stream_si512((void *)(a->y + i), or4(a->x + i));
    }
    _mm_sfence();
}

static void recip_x2(void *v)
{
    arg *a = v;
    const recip_consts c = consts_of(&a->p);
    for (size_t i = 0; i < a->n; i += 128) {
        __m512i u = recip_block(a->x + i, &c), w = recip_block(a->x + i + 64, &c);
        _mm512_storeu_si512(a->y + i, u);
        _mm512_storeu_si512(a->y + i + 64, w);
    }
}

#ifdef QL_BOUND_SHARED
/* loop 0: traffic, 1: traffic NT, 2: traffic pf, 3: traffic pf NT, 4: read pf (y unused);
 * the NT loops need y on a 64-byte boundary */
void ql_bound_loop(int which, const float *x, uint8_t *y, size_t n)
{
    static const bench_fn loops[] = {traffic, traffic_nt, traffic_pf, traffic_pf_nt, read_pf};
    arg a = {.x = x, .y = y, .n = n};
    loops[which](&a);
}
#else
static double normal(void)
{
    double u = (rand() + 1.0) / (RAND_MAX + 2.0), v = (rand() + 1.0) / (RAND_MAX + 2.0);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 21;
    if (argc > 2)
        PF_AHEAD = (size_t)atoi(argv[2]);
    /* argv[3]: x and y this many bytes past a 64-byte boundary (numpy's arrays: 16) */
    const size_t skew = argc > 3 ? (size_t)atoi(argv[3]) : 0;
    const size_t sizes[] = {65536, 1048576};
    simdops_init();
    simdops_qlinear_fn fn = NULL;
    for (int i = 0; i < simdops_tier_count(); i++)
        if (simdops_tier_table(i) && !strcmp(simdops_tier_name(i), "avx512"))
            fn = simdops_tier_table(i)->quantize_f32[SIMDOPS_UINT8];
    if (!fn) {
        printf("no avx512 tier on this machine\n");
        return 0;
    }
    float *x = (float *)((char *)aligned_alloc(64, sizes[1] * sizeof(float) + 64) + skew);
    uint8_t *y = (uint8_t *)aligned_alloc(64, sizes[1] + 64) + skew, *want = malloc(sizes[1]);
    if (x == (void *)skew || y == (void *)skew || !want)
        return 2;
    srand(1);
    for (size_t i = 0; i < sizes[1]; i++)
        x[i] = (float)(normal() * 40.0); /* the bench's data, scale 0.37, zp 128 */
    static const struct {
        const char *name;
        bench_fn f;
        int checks; /* writes the quantized bytes: compared with the kernel's */
    } loops[] = {{"read", read_only, 0},    {"read pf", read_pf, 0},       {"read lines", read_lines, 0},    {"traffic NT", traffic_nt, 0}, {"kernel", kernel, 1},
                 {"recip", recip, 1},       {"recip NT", recip_nt, 1},     {"recip pf", recip_pf, 1},
                 {"recip x2", recip_x2, 1},
                 {"recip pf NT", recip_pf_nt, 1}, {"traffic pf", traffic_pf, 0},
                 {"traffic pf NT", traffic_pf_nt, 0}};
    for (int k = 0; k < 2; k++) {
        arg a = {.x = x, .y = y, .n = sizes[k], .fn = fn};
        a.p.scale = 0.37f;
        a.p.zero_point = 128;
        a.p.qlo = -128.0f;
        a.p.qhi = 127.0f;
        a.p.div_f16 = 0;
        fn(x, want, a.n, &a.p);
        printf("n=%zu: %zu bytes read, %zu written; ratio = traffic time / loop time\n", a.n,
               a.n * 4, a.n);
        for (size_t l = 0; l < sizeof loops / sizeof loops[0]; l++) {
            char label[64];
            if (skew % 64 && strstr(loops[l].name, "NT"))
                continue; /* non-temporal stores need aligned lines */
            snprintf(label, sizeof label, "  %-13s vs traffic", loops[l].name);
            memset(y, 0, a.n);
            bench_compare(label, loops[l].f, traffic, &a, rounds);
            if (loops[l].checks) {
                loops[l].f(&a);
                if (memcmp(y, want, a.n))
                    printf("  %s: bytes differ from the kernel's\n", loops[l].name);
            }
        }
    }
    free((char *)x - skew);
    free(y - skew);
    free(want);
    return 0;
}
#endif
