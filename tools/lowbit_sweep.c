/* Exhaustive checks and a micro-benchmark of the low-bit SIMD kernels
 * (csrc/kernels/lowbit/lowbit_simd_*.c): every tier this CPU runs against a
 * straightforward reference written here (frexp / nearbyint in double, no bit
 * tricks), and the scalar kernel against the same reference.
 *   float8 e4m3fn / e5m2 quantize: every float32 input (2^32, or the chosen
 *     2^24-pattern slices: the top byte), saturate 0 and 1, scale 1 (the
 *     division is one IEEE operation in every tier; 0.37 runs on the CI slices);
 *   float8 dequantize: every code times a few scales (NaN, huge, tiny);
 *   int4 / uint4 dequantize to float32 / float16 / bfloat16: every byte (two
 *     nibbles) for every zero point and a set of scales (overflow to inf in
 *     float16, subnormal products, NaN), one scale and per-element forms;
 *   int4 / uint4 quantize: the float32 slices by a few scales and zero points.
 * Tiers: scalar and each usable tier with kernels of its own (the qlow tables).
 * Run: OUT/lowbit_sweep [all | ci | codes | SLICE...] [--bench [rounds]] [--tier NAME]
 *   all: the 256 slices, float8 quantize at scale 1 (every float32 input
 *   through the conversion; about 20 CPU minutes); ci (default): slices 0x00 0x38 0x3c 0x43 0x47 0x7f 0xbc 0xff.
 *   codes: the dequantize checks only (every float8 code, every int4 byte; seconds, also under qemu).
 * Exits 1 on any mismatch. Build: bash tools/cbench.sh OUT. */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/fp16.h"
#include "core/qlow_abi.h"
#include "dispatch/dispatch.h"
#include "dispatch/qlow_dispatch.h"
#include "bench_util.h"

enum { LBS_E4M3FN = 0, LBS_E5M2 = 1 };
static const int F8_QT[2] = {SIMDOPS_QT_e4m3fn, SIMDOPS_QT_e5m2};

/* every usable tier whose table differs from scalar's in these entries, and scalar */
typedef struct tier {
    const char *name;
    const simdops_qlow_table *t;
} tier;
static tier TIERS[16];
static int NT;

static void pick_tiers(void)
{
    simdops_init();
    for (int i = 0; i < simdops_tier_count() && NT < 16; i++) {
        const simdops_qlow_table *t = simdops_qlow_tier_table(i);
        if (!t)
            continue;
        if (NT > 0 && t->dq_run[SIMDOPS_QT_i4][SIMDOPS_QF_F32] == TIERS[NT - 1].t->dq_run[SIMDOPS_QT_i4][SIMDOPS_QF_F32] &&
            t->q_run[SIMDOPS_QT_e4m3fn][SIMDOPS_QF_F32] == TIERS[NT - 1].t->q_run[SIMDOPS_QT_e4m3fn][SIMDOPS_QF_F32])
            continue; /* inherits everything here from the tier before */
        TIERS[NT].name = simdops_tier_name(i);
        TIERS[NT++].t = t;
    }
}

/* tier t runs the same kernel as the tier listed before it (inherited): the
 * 2^24-input slices skip it */
#define SAME_AS_BEFORE(t, slot) (TIERS[t].t->slot == TIERS[(t) - 1].t->slot)

static void params_init(simdops_qlow_params *p)
{
    memset(p, 0, sizeof *p);
}

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* ---- the reference ---- */
typedef struct f8fmt {
    int mbits, bias, max_code, ovf_code, nan_code; /* ovf_code: e4m3fn NaN, e5m2 inf */
} f8fmt;
static const f8fmt FMT[2] = {{3, 7, 0x7e, 0x7f, 0x7f}, {2, 15, 0x7b, 0x7c, 0x7e}};

static double f8_ref_value(unsigned c, int kind) /* NaN for NaN codes */
{
    const f8fmt *f = &FMT[kind];
    unsigned m = c & 0x7f, e = m >> f->mbits, fr = m & ((1u << f->mbits) - 1);
    double v;
    if (kind == LBS_E4M3FN && m == 0x7f)
        return NAN;
    if (kind == LBS_E5M2 && e == 31)
        return fr ? NAN : (c & 0x80 ? -INFINITY : INFINITY);
    v = e ? ldexp(1.0 + ldexp(fr, -f->mbits), (int)e - f->bias) : ldexp(fr, 1 - f->bias - f->mbits);
    return c & 0x80 ? -v : v;
}
static float f8_ref_f32(unsigned c, int kind) /* NaN: the sign and 0x7fc00000, as ml_dtypes */
{
    double v = f8_ref_value(c, kind);
    if (isnan(v))
        return from_bits((c & 0x80 ? 0x80000000u : 0) | 0x7fc00000u);
    return (float)v;
}
static unsigned f32_ref_f8(float x, int kind, int sat)
{
    const f8fmt *f = &FMT[kind];
    unsigned s = signbit(x) ? 0x80 : 0;
    double a = fabs((double)x), maxv = f8_ref_value((unsigned)f->max_code, kind), q, r, v;
    int ex, e, emin = 1 - f->bias;
    if (isnan(x))
        return s | (unsigned)f->nan_code;
    if (isinf(x))
        return s | (unsigned)(sat ? f->max_code : f->ovf_code);
    if (a == 0)
        return s;
    frexp(a, &ex);
    e = ex - 1 < emin ? emin : ex - 1;
    q = ldexp(a, f->mbits - e); /* exact */
    r = nearbyint(q);           /* ties to even: the rounding mode is checked in main */
    v = ldexp(r, e - f->mbits);
    if (v > maxv)
        return s | (unsigned)(sat ? f->max_code : f->ovf_code);
    if (r >= ldexp(1, f->mbits + 1)) {
        r /= 2;
        e++;
    }
    if (r < ldexp(1, f->mbits)) /* subnormal */
        return s | (unsigned)r;
    return s | (unsigned)(((e + f->bias) << f->mbits) | ((unsigned)r - (1u << f->mbits)));
}
static uint16_t f32_ref_f16(float x) /* RNE through double, NaN: F16C's (payload kept, quiet) */
{
    uint32_t u = bits(x);
    uint16_t s = (uint16_t)((u >> 16) & 0x8000);
    double a = fabs((double)x), r;
    int ex, e;
    if (isnan(x))
        return (uint16_t)(s | 0x7e00 | ((u >> 13) & 0x3ff));
    if (a == 0 || isinf(x))
        return (uint16_t)(s | (isinf(x) ? 0x7c00 : 0));
    frexp(a, &ex);
    e = ex - 1 < -14 ? -14 : ex - 1;
    r = nearbyint(ldexp(a, 10 - e));
    if (ldexp(r, e - 10) > 65504.0)
        return (uint16_t)(s | 0x7c00);
    if (r >= 2048) { r /= 2; e++; }
    if (r < 1024)
        return (uint16_t)(s | (unsigned)r);
    return (uint16_t)(s | ((unsigned)(e + 15) << 10) | ((unsigned)r - 1024));
}
static uint16_t f32_ref_bf16(float x) /* RNE through double, NaN: sign | 0x7fc0 (ml_dtypes) */
{
    uint32_t u = bits(x);
    uint16_t s = (uint16_t)((u >> 16) & 0x8000);
    double a = fabs((double)x), r;
    int ex, e;
    if (isnan(x))
        return (uint16_t)(s | 0x7fc0);
    if (a == 0 || isinf(x))
        return (uint16_t)(s | (isinf(x) ? 0x7f80 : 0));
    frexp(a, &ex);
    e = ex - 1 < -126 ? -126 : ex - 1;
    r = nearbyint(ldexp(a, 7 - e));
    if (ldexp(r, e - 7) >= 0x1p128)
        return (uint16_t)(s | 0x7f80);
    if (r >= 256) { r /= 2; e++; }
    if (r < 128)
        return (uint16_t)(s | (unsigned)r);
    return (uint16_t)(s | ((unsigned)(e + 127) << 7) | ((unsigned)r - 128));
}
static unsigned q4_ref(float x, float scale, int zp, int sgn)
{
    float q = x / scale; /* the operator's float32 division */
    double r;
    int lo = sgn ? -8 : 0, hi = sgn ? 7 : 15;
    long v;
    if (isnan(q))
        return (unsigned)lo & 15;
    r = nearbyint((double)q);
    v = r > 1e6 ? 1000000 : r < -1e6 ? -1000000 : (long)r;
    v += zp;
    v = v < lo ? lo : v > hi ? hi : v;
    return (unsigned)v & 15;
}

static unsigned long long g_bad, g_checked;
static void report(const char *what, const char *tname, size_t i, unsigned long long want, unsigned long long got)
{
    if (g_bad++ < 20)
        printf("  MISMATCH %s tier %s element %zu: want %llx got %llx\n", what, tname, i, want, got);
}

/* ---- float8 quantize: a slice of 2^24 float32 patterns ---- */
enum { CHUNK = 1 << 20 };
static void sweep_q8f_slice(unsigned slice, float scale, float *x, uint8_t *want, uint8_t *got)
{
    for (int kind = 0; kind < 2; kind++)
        for (int sat = 0; sat < 2; sat++) {
            simdops_qlow_params p;
            params_init(&p);
            p.scale = scale;
            p.saturate = sat;
            for (uint32_t base = 0; base < (1u << 24); base += CHUNK) {
                for (uint32_t k = 0; k < CHUNK; k++) {
                    x[k] = from_bits(slice << 24 | (base + k));
                    want[k] = (uint8_t)f32_ref_f8(x[k] / scale, kind, sat);
                }
                for (int t = 0; t < NT; t++) {
                    if (t && SAME_AS_BEFORE(t, q_run[F8_QT[kind]][SIMDOPS_QF_F32]))
                        continue; /* an inherited kernel: already checked */
                    TIERS[t].t->q_run[F8_QT[kind]][SIMDOPS_QF_F32](x, CHUNK, got, 0, &p);
                    g_checked += CHUNK;
                    if (memcmp(want, got, CHUNK))
                        for (uint32_t k = 0; k < CHUNK; k++)
                            if (want[k] != got[k]) {
                                char w[64];
                                snprintf(w, sizeof w, "q8f kind %d sat %d x=%08x", kind, sat, bits(x[k]));
                                report(w, TIERS[t].name, k, want[k], got[k]);
                            }
                }
            }
        }
}

/* ---- int4 quantize: a slice by a few (scale, zp, signedness) ---- */
static void sweep_q4_slice(unsigned slice, float *x, uint8_t *want, uint8_t *got)
{
    static const struct { float s; int zp, sgn; } C[] = {{1.0f, 0, 1}, {0.37f, 3, 1}, {1.0f, 8, 0}, {0.0078125f, 15, 0}, {-2.5f, -8, 1}};
    for (size_t c = 0; c < sizeof C / sizeof C[0]; c++) {
        simdops_qlow_params p;
        params_init(&p);
        p.scale = C[c].s;
        p.zero_point = C[c].zp;
        p.zp_f = (float)C[c].zp;
        for (uint32_t base = 0; base < (1u << 24); base += CHUNK) {
            for (uint32_t k = 0; k < CHUNK; k++)
                x[k] = from_bits(slice << 24 | (base + k));
            memset(want, 0, CHUNK / 2);
            for (uint32_t k = 0; k < CHUNK; k++)
                want[k / 2] |= (uint8_t)(q4_ref(x[k], C[c].s, C[c].zp, C[c].sgn) << (4 * (k & 1)));
            for (int t = 0; t < NT; t++) {
                if (t && SAME_AS_BEFORE(t, q_run[C[c].sgn ? SIMDOPS_QT_i4 : SIMDOPS_QT_u4][SIMDOPS_QF_F32]))
                    continue;
                TIERS[t].t->q_run[C[c].sgn ? SIMDOPS_QT_i4 : SIMDOPS_QT_u4][SIMDOPS_QF_F32](x, CHUNK, got, 0, &p);
                g_checked += CHUNK;
                if (memcmp(want, got, CHUNK / 2))
                    for (uint32_t k = 0; k < CHUNK / 2; k++)
                        if (want[k] != got[k]) {
                            char w[64];
                            snprintf(w, sizeof w, "q4 config %zu x=%08x", c, bits(x[2 * k]));
                            report(w, TIERS[t].name, k, want[k], got[k]);
                        }
            }
        }
    }
}

/* ---- float8 dequantize: every code (in a 1,000-element row: every tier's
 * vector loop and tail) by a few scales ---- */
/* 1 + 2^-8, 1 + 3 * 2^-8: products by powers of two are bfloat16 ties (to an even and an odd neighbour) */
static const float SCALES[] = {1.0f, 0.37f, 0x1p-10f, 3e38f, 0x1p-140f, -1.5f, 65504.0f, 1e-30f, 0x1p-126f, -0.0f, 0x1.01p0f, 0x1.03p0f,
                                INFINITY, -INFINITY, 0x1.fffffep119f, -0x1p120f, /* these two: e4m3fn dq multiplies by scale * 2^8 when that is exact */
                                4368.0f /* 15 * 4368 = 65520: float16's tie between 65504 and inf */,
                                0x1p-25f /* odd multiples: ties between float16 subnormals */};
enum { NS = sizeof SCALES / sizeof SCALES[0] };

static void check_dq8f(void)
{
    enum { N = 1000 };
    uint8_t x[N];
    float want[N], got[N], sc[N];
    for (size_t i = 0; i < N; i++) {
        x[i] = (uint8_t)(i * 7 + i / 256);
        sc[i] = SCALES[(i / 5) % NS];
    }
    for (int kind = 0; kind < 2; kind++)
        for (int s = 0; s <= NS + 1; s++) {
            simdops_qlow_params p;
            params_init(&p);
            p.scale = s < NS ? SCALES[s] : NAN;
            for (size_t i = 0; i < N; i++) {
                float v = f8_ref_f32(x[i], kind), sv = s == NS + 1 ? sc[i] : p.scale;
                want[i] = isnan(v) ? v : v * sv; /* a NaN code keeps its NaN */
            }
            for (int t = 0; t < NT; t++) {
                if (s == NS + 1)
                    TIERS[t].t->dq_row[F8_QT[kind]][SIMDOPS_QF_F32](x, 0, N, got, sc, NULL, &p);
                else
                    TIERS[t].t->dq_run[F8_QT[kind]][SIMDOPS_QF_F32](x, 0, N, got, &p);
                g_checked += N;
                for (size_t i = 0; i < N; i++)
                    if (bits(want[i]) != bits(got[i]))
                        report("dq8f", TIERS[t].name, i, bits(want[i]), bits(got[i]));
            }
        }
}

/* ---- int4 / uint4 dequantize: every byte (two nibbles) from an even and an
 * odd first element, every zero point, the scales above and NaN; one scale
 * (run), and per element (row: scales and zero points cycling) ---- */
static void check_dq4(void)
{
    enum { N = 515 }; /* 256 bytes twice and a tail */
    uint8_t x[N / 2 + 2];
    float sc[N], zps[N], want32[N];
    uint16_t want16[N];
    union { float f[N]; uint16_t h[N]; } got;
    for (size_t i = 0; i < sizeof x; i++)
        x[i] = (uint8_t)(i * 37 + i / 256);
    for (int sgn = 0; sgn < 2; sgn++)
        for (int zp = sgn ? -8 : 0; zp <= (sgn ? 7 : 15); zp++)
            for (int s = 0; s <= NS + 1; s++)
                for (size_t first = 0; first < 2; first++) {
                    simdops_qlow_params p;
                    int row = s == NS + 1;
                    int qt = sgn ? SIMDOPS_QT_i4 : SIMDOPS_QT_u4;
                    params_init(&p);
                    p.zero_point = zp;
                    p.zp_f = (float)zp;
                    p.scale = s < NS ? SCALES[s] : NAN;
                    for (size_t i = 0; i < N; i++) {
                        sc[i] = SCALES[(i / 3) % NS];
                        zps[i] = (float)((sgn ? -8 : 0) + (int)((i + (size_t)zp) % 16));
                    }
                    for (size_t i = 0; i < N; i++) {
                        size_t k = first + i;
                        unsigned nib = (x[k / 2] >> (4 * (k & 1))) & 15;
                        int v = sgn && nib >= 8 ? (int)nib - 16 : (int)nib;
                        int z = row ? (int)zps[i] : zp;
                        float sv = row ? sc[i] : p.scale;
                        /* the exact product rounded once (|v - z| < 32: 5 bits by 24) */
                        want32[i] = isnan(sv) ? (float)(v - z) * sv : (float)((double)(v - z) * (double)sv);
                    }
                    for (int o = 0; o < 3; o++) {
                        for (size_t i = 0; i < N; i++)
                            want16[i] = o == 1 ? f32_ref_f16(want32[i]) : f32_ref_bf16(want32[i]);
                        for (int t = 0; t < NT; t++) {
                            if (row)
                                TIERS[t].t->dq_row[qt][o](x, first, N, got.f, sc, zps, &p);
                            else
                                TIERS[t].t->dq_run[qt][o](x, first, N, got.f, &p);
                            g_checked += N;
                            for (size_t i = 0; i < N; i++) {
                                if (o == 0 ? bits(want32[i]) != bits(got.f[i]) : want16[i] != got.h[i]) {
                                    char w[80];
                                    snprintf(w, sizeof w, "dq4 out %d signed %d zp %d scale %d first %zu", o, sgn, zp, s, first);
                                    report(w, TIERS[t].name, i, o ? want16[i] : bits(want32[i]), o ? got.h[i] : bits(got.f[i]));
                                }
                            }
                        }
                    }
                }
}

/* ---- benchmark: kernels against a copy of the output bytes (int4) or a
 * float32 -> uint8 converting copy (float8), interleaved ---- */
typedef struct barg {
    const tier *t;
    int what; /* 0 int4 dq blocked along the row, 1 int4 dq axis 0 (rows), 2 e4m3fn q, 3 e4m3fn dq */
    const void *x;
    void *y;
    size_t n, block;
    const float *scales;
} barg;
static void run_kernel(void *a)
{
    barg *b = (barg *)a;
    simdops_qlow_params p;
    params_init(&p);
    p.scale = 0.37f;
    p.saturate = 1;
    if (b->what == 0) {
        simdops_qlow_dq_run_fn f = b->t->t->dq_run[SIMDOPS_QT_i4][SIMDOPS_QF_F32];
        for (size_t i = 0; i < b->n; i += b->block) {
            p.scale = b->scales[i / b->block];
            f(b->x, i, b->block, (float *)b->y + i, &p);
        }
    } else if (b->what == 1) { /* [K, 4096] rows, scale row k / block */
        simdops_qlow_dq_row_fn f = b->t->t->dq_row[SIMDOPS_QT_i4][SIMDOPS_QF_F32];
        const size_t cols = 4096;
        for (size_t r = 0; r * cols < b->n; r++)
            f(b->x, r * cols, cols, (float *)b->y + r * cols, b->scales + (r / b->block) * cols, NULL, &p);
    } else if (b->what == 2) {
        b->t->t->q_run[SIMDOPS_QT_e4m3fn][SIMDOPS_QF_F32](b->x, b->n, b->y, 0, &p);
    } else {
        b->t->t->dq_run[SIMDOPS_QT_e4m3fn][SIMDOPS_QF_F32](b->x, 0, b->n, b->y, &p);
    }
}
static void run_copy(void *a)
{
    barg *b = (barg *)a;
    memcpy(b->y, b->x, b->n);
}
static void run_cvt_u8(void *a) /* float32 -> uint8 converting copy */
{
    barg *b = (barg *)a;
    const float *x = (const float *)b->x;
    uint8_t *y = (uint8_t *)b->y;
    for (size_t i = 0; i < b->n; i++)
        y[i] = (uint8_t)(int32_t)x[i];
}
static const char *bench_tier; /* --tier NAME: bench that tier alone */
static void bench(int rounds)
{
    static const size_t SIZES[] = {1u << 16, 1u << 20, 1u << 24};
    for (int t = 0; t < NT; t++)
        for (size_t si = 0; si < 3 && !(bench_tier && strcmp(bench_tier, TIERS[t].name)); si++) {
            size_t n = SIZES[si];
            uint8_t *x4 = malloc(n / 2), *x8 = malloc(n);
            float *y = malloc(n * 4), *xf = malloc(n * 4), *scales = malloc(n * 4);
            void *src = malloc(n * 4);
            char label[96];
            for (size_t i = 0; i < n / 2; i++)
                x4[i] = (uint8_t)rand();
            for (size_t i = 0; i < n; i++) {
                xf[i] = (float)(rand() % 2001 - 1000) * 0.01f;
                x8[i] = (uint8_t)(rand() & 0x7e);
                scales[i] = 0.01f + (float)(i % 4096) * 1e-6f;
            }
            memset(src, 1, n * 4);
            for (int what = 0; what < 2 && si > 0; what++)
                for (size_t blk = 32; blk <= 128; blk *= 4) {
                    barg k = {&TIERS[t], what, x4, y, n, blk, scales}, c = {0, 0, src, y, n * 4, 0, 0};
                    snprintf(label, sizeof label, "%s int4 dq f32 %s block %zu n=%zu vs memcpy of y", TIERS[t].name,
                             what ? "axis 0" : "last axis", blk, n);
                    bench_compare_args(label, run_kernel, &k, run_copy, &c, rounds);
                }
            if (si < 2) {
                barg k = {&TIERS[t], 2, xf, x8, n, 0, 0}, c = {0, 0, xf, x8, n, 0, 0}, d = {&TIERS[t], 3, x8, y, n, 0, 0};
                snprintf(label, sizeof label, "%s e4m3fn q n=%zu vs f32->u8 cvt copy", TIERS[t].name, n);
                bench_compare_args(label, run_kernel, &k, run_cvt_u8, &c, rounds);
                snprintf(label, sizeof label, "%s e4m3fn dq n=%zu vs f32->u8 cvt copy", TIERS[t].name, n);
                bench_compare_args(label, run_kernel, &d, run_cvt_u8, &c, rounds);
            }
            free(x4); free(x8); free(y); free(xf); free(scales); free(src);
        }
}

int main(int argc, char **argv)
{
    static const unsigned CI[] = {0x00, 0x38, 0x3c, 0x43, 0x47, 0x7f, 0xbc, 0xff};
    unsigned slices[256];
    int ns = 0, do_bench = 0, rounds = 5, codes_only = 0;
    float *x = malloc(CHUNK * 4);
    uint8_t *want = malloc(CHUNK), *got = malloc(CHUNK);
    if (fegetround() != FE_TONEAREST)
        return 2;
    pick_tiers();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "all"))
            for (unsigned s = 0; s < 256; s++)
                slices[ns++] = s;
        else if (!strcmp(argv[i], "ci"))
            for (unsigned s = 0; s < 8; s++)
                slices[ns++] = CI[s];
        else if (!strcmp(argv[i], "codes")) /* the dequantize checks only (quick under qemu) */
            codes_only = 1;
        else if (!strcmp(argv[i], "--bench")) {
            do_bench = 1;
            if (i + 1 < argc && atoi(argv[i + 1]) > 0)
                rounds = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--tier") && i + 1 < argc) {
            bench_tier = argv[++i];
        } else if (ns < 256)
            slices[ns++] = (unsigned)strtoul(argv[i], 0, 0) & 255u;
    }
    if (!ns && !do_bench && !codes_only)
        for (unsigned s = 0; s < 8; s++)
            slices[ns++] = CI[s];
    printf("lowbit_sweep: tiers");
    for (int t = 0; t < NT; t++)
        printf(" %s", TIERS[t].name);
    printf("\n");
    if (codes_only) {
        check_dq8f();
        check_dq4();
        printf("every float8 code and every int4 / uint4 byte by every zero point: %llu elements checked, %llu mismatches\n",
               g_checked, g_bad);
    }
    if (ns) {
        check_dq8f();
        check_dq4();
        printf("every float8 code and every int4 / uint4 byte by every zero point: %llu elements checked\n", g_checked);
        for (int i = 0; i < ns; i++) {
            sweep_q8f_slice(slices[i], 1.0f, x, want, got);
            if (ns > 8) { /* progress of a long run */
                printf("slice %#04x done: %llu checked, %llu mismatches\n", slices[i], g_checked, g_bad);
                fflush(stdout);
            }
            if (ns <= 8) { /* "all" sweeps the conversion only */
                sweep_q8f_slice(slices[i], 0.37f, x, want, got);
                sweep_q4_slice(slices[i], x, want, got);
            }
        }
        printf("%d slice(s) of 2^24 float32 inputs: %llu elements checked in all, %llu mismatches\n", ns, g_checked, g_bad);
    }
    if (do_bench)
        bench(rounds);
    free(x); free(want); free(got);
    return g_bad ? 1 : 0;
}
