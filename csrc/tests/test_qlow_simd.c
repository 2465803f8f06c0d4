/* Kernel harness: the SIMD tiers of the low-bit QuantizeLinear / DequantizeLinear
 * tables (dispatch/qlow_dispatch.h), beside test_qlow.c's general cases. Every entry a tier sets itself (not inherited)
 * is run against the scalar tier's on the same inputs: lengths 0..130 and a
 * few long ones, odd and even first elements (packed runs that start and end
 * mid-byte), float operands at every byte misalignment, quantized buffers
 * whose covered bytes end at a guard page (or start right after one), quantize
 * outputs prefilled with random bytes (the neighbouring nibbles of a shared
 * byte must survive), NaN payloads, +-inf, +-0, subnormals, ties of the
 * quantize (integer half-steps and float8 midpoints, one ulp either side),
 * saturate 0 / 1, and quotients rounded to float16 / bfloat16 (the tiers'
 * element fallback). Against an independent reference: tools/lowbit_sweep.c. */
#include "harness.h"
#include "core/qlow_abi.h"
#include "dispatch/qlow_dispatch.h"
#include "kernels/qlow/qlow_element.h"

static const int FSIZE[SIMDOPS_QF_COUNT] = {4, 2, 2};

static size_t span_bytes(int qt, size_t first, size_t n) /* bytes covering elements [first, first + n) */
{
    int bits = simdops_qtype_rows[qt].bits;
    if (n == 0)
        return 0;
    if (bits >= 8)
        return n * (size_t)(bits / 8);
    {
        size_t per = (size_t)(8 / bits);
        return (first + n - 1) / per - first / per + 1;
    }
}
static size_t first_byte(int qt, size_t first)
{
    int bits = simdops_qtype_rows[qt].bits;
    return bits >= 8 ? first * (size_t)(bits / 8) : first / (size_t)(8 / bits);
}

static float rand_scale(void)
{
    static const float S[] = {1.0f, 0.5f, 0.37f, 0.1f, 3.0f, -0.25f, 1e-3f, 1e3f, 65504.0f, 0x1p-126f,
                              0x1p-140f, 3e38f, 0x1p-10f, 6e-8f, 448.0f, 57344.0f, 0.0f,
                              0x1.01p0f, 0x1.03p0f /* bfloat16 ties by powers of two */, 0x1.002p0f, 0x1.006p0f /* float16 ties */};
    uint32_t r = below(100);
    if (r < 60)
        return S[below(sizeof S / sizeof S[0])];
    if (r < 63)
        return simdops_f32_from_bits(chance(50) ? 0x7fc00000u : 0xffa00001u);
    if (r < 65)
        return simdops_f32_from_bits(chance(50) ? 0x7f800000u : 0xff800000u);
    return simdops_f32_from_bits((uint32_t)((rnd() & 0x807fffffu) | ((100u + below(50)) << 23)));
}

/* a float32 near where the quantize of qt by scale s with zero point zp rounds */
static float rand_qx(int qt, float s, int32_t zp)
{
    uint32_t r = below(100);
    if (r < 15)
        return simdops_f32_from_bits((uint32_t)rnd());
    if (r < 25) {
        static const uint32_t E[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f800000u, 0xff800000u,
                                     0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu,
                                     0x43e80000u, 0x47700000u, 0xc3e80000u, 0xc7700000u, 0x3a800000u};
        return simdops_f32_from_bits(E[below(sizeof E / sizeof E[0])]);
    }
    {
        double q, step = 1.0;
        uint32_t b;
        if (simdops_qtype_rows[qt].kind == QT_INT) {
            int64_t lo = simdops_qtype_rows[qt].lo, hi = simdops_qtype_rows[qt].hi;
            q = (double)(lo - 3 - zp) + (double)below((uint32_t)(hi - lo + 7));
        } else { /* a float8 value and the midpoint to its neighbour */
            qlow_format f = qlow_format_of(qt);
            uint32_t c = below(256);
            float v = qlow_fmt_to_f32(c, &f), w = qlow_fmt_to_f32((c & 0x80u) | ((c + 1) & 0x7fu), &f);
            q = v;
            step = (double)w - (double)v;
            if (q != q || step != step)
                q = 1.0, step = 0.0;
        }
        if (chance(60))
            q += 0.5 * step;
        b = simdops_f32_bits((float)(q * (double)s));
        if (chance(40))
            b += (uint32_t)below(5) - 2u;
        return simdops_f32_from_bits(b);
    }
}

static void fill_float(void *x, int fs, size_t n, int qt, float s, int32_t zp)
{
    for (size_t i = 0; i < n; i++) {
        float v = rand_qx(qt, s, zp);
        if (fs == SIMDOPS_QF_F32) {
            memcpy((char *)x + 4 * i, &v, 4);
        } else {
            uint16_t h = fs == SIMDOPS_QF_F16 ? simdops_f32_to_f16(v) : qlow_f32_to_bf16(v);
            if (chance(5))
                h = (uint16_t)rnd();
            memcpy((char *)x + 2 * i, &h, 2);
        }
    }
}

enum { E_DQ_RUN, E_DQ_ROW, E_Q_RUN, E_Q_ROW, E_COUNT };
static const char *const E_NAME[E_COUNT] = {"dq_run", "dq_row", "q_run", "q_row"};

static void (*entry_of(const simdops_qlow_table *t, int e, int qt, int fs))(void)
{
    switch (e) {
    case E_DQ_RUN: return (void (*)(void))t->dq_run[qt][fs];
    case E_DQ_ROW: return (void (*)(void))t->dq_row[qt][fs];
    case E_Q_RUN: return (void (*)(void))t->q_run[qt][fs];
    default: return (void (*)(void))t->q_row[qt][fs];
    }
}

static size_t pick_n(void)
{
    static const size_t LONG[] = {255, 256, 257, 511, 1000, 4099};
    return chance(85) ? below(MAXN + 1) : LONG[below(sizeof LONG / sizeof LONG[0])];
}

/* one case of (tier table t, entry e, qtype, float side) against scalar's */
static void one_case(const char *tier, const simdops_qlow_table *t, const simdops_qlow_table *ref, int e,
                     int qt, int fs)
{
    const int is_int = simdops_qtype_rows[qt].kind == QT_INT;
    const int64_t lo = is_int ? simdops_qtype_rows[qt].lo : 0, hi = is_int ? simdops_qtype_rows[qt].hi : 0;
    size_t n = pick_n(), first = chance(50) ? below(4) : below(64);
    size_t qb = span_bytes(qt, first, n), fb = n * (size_t)FSIZE[fs], off = below(4);
    int start_tight = chance(30) && qb > 0;
    /* the quantized side: its covered bytes end at a guard page, or begin right after one */
    unsigned char *qbuf = start_tight ? alloc_buf(65536) : alloc_buf(qb ? qb : 1); /* 65536: a whole number of pages */
    unsigned char *qcov = qbuf; /* the covered bytes */
    unsigned char *qref = alloc_buf(qb ? qb : 1);
    unsigned char *fbuf = alloc_buf(fb + off), *fref = alloc_buf(fb + off);
    float *sc = (float *)alloc_buf(n * 4), *zp = (float *)alloc_buf(n * 4); /* ending at guard pages */
    simdops_qlow_params p;
    const float *zpv = NULL;
    void *base = qcov - first_byte(qt, first);
    void *rbase = qref - first_byte(qt, first);
    void *fx = fbuf + off, *fr = fref + off;
    memset(&p, 0, sizeof p);
    p.scale = rand_scale();
    if (is_int) {
        p.zero_point = (int32_t)(lo + (int64_t)below((uint32_t)(hi - lo + 1)));
        p.zp_f = (float)p.zero_point;
    }
    p.saturate = chance(50);
    if (e >= E_Q_RUN && chance(10)) { /* the tiers' element fallback */
        p.div = (int32_t)below(3);
        p.pre = (int32_t)below(3);
    }
    /* per-element scales and zero points (row entries) */
    for (size_t i = 0; i < n; i++) {
        sc[i] = chance(80) ? p.scale : rand_scale();
        zp[i] = is_int ? (float)(lo + (int64_t)below((uint32_t)(hi - lo + 1))) : 0.0f;
    }
    if (is_int && chance(80))
        zpv = zp;
    if (e <= E_DQ_ROW) {
        for (size_t k = 0; k < qb; k++)
            qcov[k] = (uint8_t)rnd();
        if (chance(10)) /* NaN and inf codes of the float8 types, often */
            for (size_t k = 0; k < qb; k++)
                if (chance(30))
                    qcov[k] |= 0x7c;
        memset(fx, 0xA5, fb);
        memset(fr, 0x5A, fb);
        if (e == E_DQ_RUN) {
            ref->dq_run[qt][fs](base, first, n, fr, &p);
            t->dq_run[qt][fs](base, first, n, fx, &p);
        } else {
            ref->dq_row[qt][fs](base, first, n, fr, sc, zpv, &p);
            t->dq_row[qt][fs](base, first, n, fx, sc, zpv, &p);
        }
        if (memcmp(fx, fr, fb)) {
            target tg = {tier, E_NAME[e], simdops_qtype_rows[qt].name, 0, 0, 0, NULL, NULL};
            g_fail++;
            if (printing()) {
                fail_head(&tg, "differs from scalar", n, first, off);
                printf(" (float side %d, scale %a, zp %d)\n", fs, (double)p.scale, (int)p.zero_point);
                for (size_t i = 0; i < n; i++) {
                    uint32_t a = 0, b = 0;
                    memcpy(&a, (char *)fr + i * (size_t)FSIZE[fs], (size_t)FSIZE[fs]);
                    memcpy(&b, (char *)fx + i * (size_t)FSIZE[fs], (size_t)FSIZE[fs]);
                    if (a != b) {
                        printf("    element %zu: want %#x got %#x\n", i, a, b);
                        break;
                    }
                }
            }
        } else {
            g_pass++;
        }
    } else {
        fill_float(fx, fs, n, qt, p.scale, p.zero_point);
        memcpy(fr, fx, fb);
        for (size_t k = 0; k < qb; k++)
            qcov[k] = qref[k] = (uint8_t)rnd();
        if (e == E_Q_RUN) {
            ref->q_run[qt][fs](fr, n, rbase, first, &p);
            t->q_run[qt][fs](fx, n, base, first, &p);
        } else {
            ref->q_row[qt][fs](fr, n, rbase, first, sc, zpv, &p);
            t->q_row[qt][fs](fx, n, base, first, sc, zpv, &p);
        }
        if (memcmp(qcov, qref, qb) || memcmp(fx, fr, fb)) {
            target tg = {tier, E_NAME[e], simdops_qtype_rows[qt].name, 0, 0, 0, NULL, NULL};
            g_fail++;
            if (printing()) {
                fail_head(&tg, "differs from scalar", n, first, off);
                printf(" (float side %d, scale %a, zp %d, saturate %d, div %d, pre %d)\n", fs, (double)p.scale,
                       (int)p.zero_point, (int)p.saturate, (int)p.div, (int)p.pre);
                for (size_t k = 0; k < qb; k++)
                    if (qcov[k] != qref[k]) {
                        printf("    byte %zu: want %#x got %#x\n", k, qref[k], qcov[k]);
                        break;
                    }
            }
        } else {
            g_pass++;
        }
    }
    free_buf(qbuf);
    free_buf(qref);
    free_buf(fbuf);
    free_buf(fref);
    free_buf(sc);
    free_buf(zp);
}

void test_qlow_simd_tiers(void)
{
    const simdops_qlow_table *ref = simdops_qlow_tier_table(0);
    for (int ti = 1; ti < simdops_tier_count(); ti++) {
        const simdops_qlow_table *t = simdops_qlow_tier_table(ti);
        const simdops_qlow_table *below_t;
        long p0 = g_pass, f0 = g_fail;
        int native = 0;
        if (!t)
            continue;
        below_t = simdops_qlow_tier_table(simdops_tier_parent(ti));
        for (int e = 0; e < E_COUNT; e++)
            for (int qt = 0; qt < SIMDOPS_QT_COUNT; qt++)
                for (int fs = 0; fs < SIMDOPS_QF_COUNT; fs++) {
                    void (*fn)(void) = entry_of(t, e, qt, fs);
                    if (!fn || fn == entry_of(ref, e, qt, fs) || (below_t && fn == entry_of(below_t, e, qt, fs)))
                        continue;
                    native++;
                    for (int c = 0; c < 250; c++)
                        one_case(simdops_tier_name(ti), t, ref, e, qt, fs);
                }
        printf("tier %-6s qlow simd cases: %d entries native, %ld passed, %ld failed\n", simdops_tier_name(ti), native,
               g_pass - p0, g_fail - f0);
    }
}
