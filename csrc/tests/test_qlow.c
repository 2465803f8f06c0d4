/* The low-bit QuantizeLinear / DequantizeLinear kernels (qlow_abi.h): every
 * tier's entries against the scalar table's on random data with odd lengths,
 * odd element offsets into packed streams and odd block sizes, in buffers that
 * end at a guard page (alloc_buf) on both sides; and the scalar kernels' own
 * edges: a quantize run keeps the other bits of the bytes it shares, and
 * reads / writes nothing outside its elements. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "dispatch/qlow_dispatch.h"
#include "kernels/qlow/qlow_element.h"

static size_t qbytes(int qt, size_t n) /* bytes holding elements [0, n) */
{
    int bits = simdops_qtype_rows[qt].bits;
    return (n * (size_t)bits + 7) / 8;
}

static float rand_float(void)
{
    switch (below(8)) {
    case 0: return simdops_f32_from_bits((uint32_t)rnd()); /* any bits: NaN payloads, inf, subnormals */
    case 1: return (float)((int)below(40) - 20) + 0.5f;  /* ties */
    case 2: return chance(50) ? 0.0f : -0.0f;
    case 3: return ldexpf((float)((int)below(2000) - 1000), (int)below(40) - 20);
    default: return ((float)((int)below(20001) - 10000)) / 97.0f;
    }
}

static void fill_float(int ft, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = rand_float();
        if (ft == SIMDOPS_QF_F32)
            memcpy((char *)buf + 4 * i, &v, 4);
        else {
            uint16_t h = ft == SIMDOPS_QF_F16 ? simdops_f32_to_f16(v) : qlow_f32_to_bf16(v);
            if (chance(5))
                h = (uint16_t)rnd();
            memcpy((char *)buf + 2 * i, &h, 2);
        }
    }
}

static const char *QF_NAME[SIMDOPS_QF_COUNT] = {"f32", "f16", "bf16"};

static void params(simdops_qlow_params *p, int qt)
{
    const simdops_qtype_row *r = &simdops_qtype_rows[qt];
    static const float scales[] = {1.0f, 0.5f, 0.1f, 3.0f, 0.0625f, 1e-3f, 7.5f};
    memset(p, 0, sizeof(*p));
    p->scale = scales[below(7)];
    if (r->kind == QT_INT && qt != SIMDOPS_QT_i32) {
        p->zero_point = (int32_t)(r->lo + (int64_t)below((uint32_t)(r->hi - r->lo + 1)));
        p->zp_f = (float)p->zero_point;
    }
    if (r->kind == QT_F4 && chance(50)) {
        p->has_zp = 1;
        p->zp_f = (float)((int)below(5) - 2) * 0.5f;
    }
    p->saturate = chance(50);
    p->div = chance(70) ? SIMDOPS_QR_NONE : (int32_t)below(3);
    p->pre = chance(80) ? SIMDOPS_QR_NONE : (int32_t)below(3);
}

static int same_bytes(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

static void report(const char *tier, const char *entry, int qt, int ft, size_t first, size_t n)
{
    g_fail++;
    if (printing())
        printf("FAIL qlow %s %s[%s][%s] first %zu n %zu\n", tier, entry, simdops_qtype_rows[qt].name,
               QF_NAME[ft], first, n);
    g_printed++;
}

static void one_case(const char *tier, const simdops_qlow_table *t, const simdops_qlow_table *ref,
                     int qt, int ft)
{
    size_t n = chance(30) ? below(8) : below(300), first = chance(50) ? below(9) : below(3);
    size_t fsz = ft == SIMDOPS_QF_F32 ? 4 : 2, qb = qbytes(qt, first + n);
    unsigned char *qx = alloc_buf(qb), *fx = alloc_buf(n * fsz);
    unsigned char *y1 = alloc_buf(n * fsz), *y2 = alloc_buf(n * fsz);
    unsigned char *q1 = alloc_buf(qb), *q2 = alloc_buf(qb);
    float *sc = (float *)alloc_buf(n * 4), *zp = (float *)alloc_buf(n * 4);
    simdops_qlow_params p;
    const simdops_qtype_row *r = &simdops_qtype_rows[qt];
    params(&p, qt);
    for (size_t i = 0; i < qb; i++)
        qx[i] = (unsigned char)rnd();
    fill_float(ft, fx, n);
    for (size_t i = 0; i < n; i++) {
        sc[i] = chance(3) ? rand_float() : ldexpf(1.0f + (float)below(8) / 8.0f, (int)below(8) - 4);
        zp[i] = r->kind == QT_INT && qt != SIMDOPS_QT_i32
                    ? (float)(r->lo + (int64_t)below((uint32_t)(r->hi - r->lo + 1)))
                    : 0.0f;
    }
    /* dequantize, run and row */
    ref->dq_run[qt][ft](qx, first, n, y1, &p);
    t->dq_run[qt][ft](qx, first, n, y2, &p);
    if (!same_bytes(y1, y2, n * fsz)) report(tier, "dq_run", qt, ft, first, n); else g_pass++;
    ref->dq_row[qt][ft](qx, first, n, y1, sc, r->kind == QT_INT ? zp : NULL, &p);
    t->dq_row[qt][ft](qx, first, n, y2, sc, r->kind == QT_INT ? zp : NULL, &p);
    if (!same_bytes(y1, y2, n * fsz)) report(tier, "dq_row", qt, ft, first, n); else g_pass++;
    if (qt != SIMDOPS_QT_i32) {
        /* quantize into streams that hold other bits: both must keep them */
        memcpy(q1, qx, qb);
        memcpy(q2, qx, qb);
        ref->q_run[qt][ft](fx, n, q1, first, &p);
        t->q_run[qt][ft](fx, n, q2, first, &p);
        if (!same_bytes(q1, q2, qb)) report(tier, "q_run", qt, ft, first, n); else g_pass++;
        memcpy(q1, qx, qb);
        memcpy(q2, qx, qb);
        ref->q_row[qt][ft](fx, n, q1, first, sc, zp, &p);
        t->q_row[qt][ft](fx, n, q2, first, sc, zp, &p);
        if (!same_bytes(q1, q2, qb)) report(tier, "q_row", qt, ft, first, n); else g_pass++;
        /* the elements outside [first, first + n) keep their bits */
        if (t == ref) {
            int bits = r->bits;
            int ok = 1;
            if (bits < 8) {
                for (size_t k = 0; k < first; k++)
                    ok &= qlow_field(q1, k, bits) == qlow_field(qx, k, bits);
                for (size_t k = first + n; k < qb * 8 / (size_t)bits; k++)
                    ok &= qlow_field(q1, k, bits) == qlow_field(qx, k, bits);
            } else {
                size_t es = (size_t)bits / 8;
                ok = same_bytes(q1, qx, first * es);
            }
            if (!ok) report(tier, "q_row keeps neighbours", qt, ft, first, n); else g_pass++;
        }
    }
    free_buf(qx); free_buf(fx); free_buf(y1); free_buf(y2); free_buf(q1); free_buf(q2);
    free_buf(sc); free_buf(zp);
}

/* the scalar conversions at their edges (expected bits: ml_dtypes 0.7 casts) */
static void scalar_format_edges(void)
{
    struct { int qt; float v; int sat; unsigned want; } cases[] = {
        {SIMDOPS_QT_e5m2, 61440.0f, 0, 0x7c},   {SIMDOPS_QT_e5m2, 61440.0f, 1, 0x7b},
        {SIMDOPS_QT_e5m2, -61440.0f, 0, 0xfc},  {SIMDOPS_QT_e5m2, 61439.996f, 0, 0x7b},
        {SIMDOPS_QT_e4m3fn, 464.0f, 0, 0x7e},   {SIMDOPS_QT_e4m3fn, 464.00003f, 0, 0x7f},
        {SIMDOPS_QT_e4m3fn, INFINITY, 1, 0x7e}, {SIMDOPS_QT_e4m3fn, -INFINITY, 0, 0xff},
        {SIMDOPS_QT_e4m3fnuz, -0.0f, 0, 0x00},  {SIMDOPS_QT_e4m3fnuz, NAN, 1, 0x80},
        {SIMDOPS_QT_e4m3fnuz, 247.99998f, 0, 0x7f}, {SIMDOPS_QT_e4m3fnuz, 248.0f, 0, 0x80},
        {SIMDOPS_QT_e5m2fnuz, -1e-30f, 0, 0x00}, {SIMDOPS_QT_e4m3fn, 0.0009765625f, 0, 0x00},
        {SIMDOPS_QT_e4m3fn, 0.0009765626f, 0, 0x01}, {SIMDOPS_QT_e4m3fn, 0.0029296875f, 0, 0x02},
        {SIMDOPS_QT_f4e2m1, 5.0f, 1, 0x6},      {SIMDOPS_QT_f4e2m1, 7.0f, 1, 0x7},
        {SIMDOPS_QT_f4e2m1, 0.25f, 1, 0x0},     {SIMDOPS_QT_f4e2m1, 0.75f, 1, 0x2},
        {SIMDOPS_QT_f4e2m1, NAN, 1, 0x8},       {SIMDOPS_QT_f4e2m1, -NAN, 1, 0x0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        qlow_format f = qlow_format_of(cases[i].qt);
        unsigned got = qlow_f32_to_fmt(cases[i].v, &f, cases[i].sat);
        if (got != cases[i].want) {
            g_fail++;
            printf("FAIL qlow scalar %s(%.9g, saturate %d) = %#x, expected %#x\n",
                   simdops_qtype_rows[cases[i].qt].name, (double)cases[i].v, cases[i].sat, got,
                   cases[i].want);
        } else {
            g_pass++;
        }
    }
    /* every float8 code converts back to itself (round trip), NaN to the canonical NaN */
    for (int qt = SIMDOPS_QT_e4m3fn; qt <= SIMDOPS_QT_f4e2m1; qt++) {
        qlow_format f = qlow_format_of(qt);
        unsigned codes = qt == SIMDOPS_QT_f4e2m1 ? 16 : 256, bad = 0;
        for (unsigned c = 0; c < codes; c++) {
            float v = qlow_fmt_to_f32(c, &f);
            unsigned back = qlow_f32_to_fmt(v, &f, 0);
            if (v == v && back != c && !(v == 0.0f && f.kind == QLOW_FNUZ))
                bad++;
        }
        if (bad) {
            g_fail++;
            printf("FAIL qlow %s: %u codes do not round-trip\n", simdops_qtype_rows[qt].name, bad);
        } else {
            g_pass++;
        }
    }
}

void test_qlow_stream(void); /* test_qlow_stream.c: the streamed dequantize driver */

void test_qlow_tiers(void)
{
    const simdops_qlow_table *ref = simdops_qlow_tier_table(0);
    long f0 = g_fail;
    scalar_format_edges();
    for (int ti = 0; ti < simdops_tier_count(); ti++) {
        const simdops_qlow_table *t = simdops_qlow_tier_table(ti);
        if (!t)
            continue;
        for (int qt = 0; qt < SIMDOPS_QT_COUNT; qt++) {
            if (!ref->dq_run[qt][0])
                continue;
            for (int ft = 0; ft < SIMDOPS_QF_COUNT; ft++)
                for (int rep = 0; rep < 24; rep++)
                    one_case(simdops_tier_name(ti), t, ref, qt, ft);
        }
    }
    printf("qlow kernels: every tier against scalar, odd offsets and lengths, guard pages: %s\n",
           g_fail == f0 ? "ok" : "FAILED");
    test_qlow_stream();
}
