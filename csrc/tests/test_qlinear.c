/* Kernel harness: ONNX QuantizeLinear / DequantizeLinear entries against the
 * scalar tier (any offsets, every length up to MAXN, NaN/inf/ties/+-0,
 * extreme scales and zero points), and the scalar tier against an
 * independent double-precision reference (nearbyint on the quotient). */
#include "harness.h"

static int is_quantize(int kind) { return kind == SIMDOPS_KE_quantize_f32 || kind == SIMDOPS_KE_quantize_f16; }
static int half_side(int kind) { return kind == SIMDOPS_KE_quantize_f16 || kind == SIMDOPS_KE_dequantize_f16; }

static float random_scale(int f16)
{
    static const float S[] = {1.0f, 0.5f, 2.0f, 0.1f, 0.0078125f, 3.0f, -0.25f, 1e-3f, 1e3f,
                              0.0f, 1e-38f, 3e38f, 65504.0f, 6e-8f};
    float s;
    if (chance(40))
        s = S[below(sizeof(S) / sizeof(S[0]))];
    else
        s = simdops_f32_from_bits((uint32_t)((rnd() & 0x807fffffu) | ((100u + below(50)) << 23)));
    if (!(s == s) || s - s != 0.0f)
        s = 1.0f;
    return f16 ? simdops_f16_to_f32(simdops_f32_to_f16(s)) : s;
}

static float random_x(const simdops_qlinear_params *p, int32_t lo, int32_t hi)
{
    uint32_t r = below(100);
    if (r < 15)
        return simdops_f32_from_bits((uint32_t)rnd());
    if (r < 25) {
        static const uint32_t E[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f800000u, 0xff800000u,
                                     0x00000000u, 0x80000000u, 0x00000001u, 0x7f7fffffu, 0xff7fffffu};
        return simdops_f32_from_bits(E[below(sizeof(E) / sizeof(E[0]))]);
    }
    /* near a tie or a bound, in units of the scale */
    {
        int32_t k = lo - 3 + (int32_t)below((uint32_t)(hi - lo + 7));
        double q = (double)(k - p->zero_point) + (chance(60) ? 0.5 : 0.0);
        float v = (float)(q * (double)p->scale);
        uint32_t b = simdops_f32_bits(v);
        if (chance(30))
            b += (uint32_t)below(3) - 1u;
        return simdops_f32_from_bits(b);
    }
}

/* Inputs for the 8-bit float32 kernels without the divider (qlinear_q8_recip.h):
 * most lanes are ordinary quotients (so most 64-lane blocks take the fast
 * path), a few sit where that path must hand over or saturate: exact ties and
 * quotients within a few 2^-16 of a half-integer (its error window is 2^-14
 * wide, the reference's own double rounding up to 2^-16), the clamp edges, the
 * ends of its one-binade range (|x / s| near 128..400), far beyond it (up to
 * 2^30 and random bit patterns), NaNs with any payload and +-inf. */
static float window_x(const simdops_qlinear_params *p, int32_t lo, int32_t hi)
{
    uint32_t r = below(4000);
    double q;
    if (r >= 60) { /* an ordinary quotient with a random fraction */
        q = (double)(lo - 3 - p->zero_point) + (double)below((uint32_t)(hi - lo + 6) << 16) / 65536.0;
        return (float)(q * (double)p->scale);
    }
    if (r < 4) /* +-inf, a NaN of either sign with a random payload */
        return simdops_f32_from_bits(r < 2 ? 0x7f800000u | (uint32_t)r << 31
                                            : (uint32_t)r << 31 | 0x7f800000u | (1u + below(0x7fffffu)));
    if (r < 8)
        return simdops_f32_from_bits((uint32_t)rnd());
    if (r < 12) /* far beyond the fast path's range: up to 2^30 scales */
        q = (chance(50) ? 1.0 : -1.0) * ldexp(1.0 + (double)below(1u << 20) / 1048576.0, 9 + (int)below(22));
    else if (r < 16) /* near where the fast path's range ends: |x / s| 128 .. 400 */
        q = (chance(50) ? 1.0 : -1.0) * (128.0 + (double)below(272 << 8) / 256.0);
    else /* a half-integer (a tie), or within 16 * 2^-16 of one */
        q = (double)(lo - 2 - p->zero_point + (int32_t)below((uint32_t)(hi - lo + 4))) + 0.5 +
            (r < 30 ? 0.0 : ((double)below(33) - 16.0) / 65536.0);
    {
        uint32_t b = simdops_f32_bits((float)(q * (double)p->scale));
        if (chance(30))
            b += (uint32_t)below(5) - 2u;
        return simdops_f32_from_bits(b);
    }
}

static int32_t independent_quantize(float q, int32_t zp, int32_t lo, int32_t hi)
{
    double r;
    if (q != q)
        return lo;
    r = nearbyint((double)q) + zp; /* default rounding: nearest even */
    return r < lo ? lo : r > hi ? hi : (int32_t)r;
}

static void qlinear_case(const target *t, const simdops_qlinear_params *p, size_t n,
                         const unsigned char *xsrc, size_t xo, size_t yo)
{
    const int quant = is_quantize(t->kind), half = half_side(t->kind);
    const int is = DT[t->idx].size, fs = half ? 2 : 4;
    const int xs = quant ? fs : is, ys = quant ? is : fs;
    const size_t yend = yo + n * (size_t)ys;
    unsigned char *xb = alloc_buf(xo + n * (size_t)xs), *wb = alloc_buf(yend + TRAIL),
                  *gb = alloc_buf(yend + TRAIL);
    void *x = xb + xo, *want = wb + yo, *got = gb + yo;
    memcpy(x, xsrc, n * (size_t)xs);
    ((simdops_qlinear_fn)t->ref)(x, want, n, p);
    ((simdops_qlinear_fn)t->fn)(x, got, n, p);
    if (memcmp(want, got, n * (size_t)ys) || !canary_ok(gb, 0, yo) ||
        !canary_ok(gb, yend, yend + TRAIL) ||
        memcmp(x, xsrc, n * (size_t)xs)) {
        fail_head(t, "differs from scalar", n, xo, yo);
        if (printing())
            printf("scale=%a zp=%d div_f16=%d ", (double)p->scale, p->zero_point, p->div_f16);
        report_diff(x, want, got, n, xs, ys);
    } else {
        g_pass++;
    }
    /* the scalar kernel itself against doubles */
    if (t->is_scalar && quant) {
        const simdops_dtype_row *r = &simdops_dtype_rows[t->idx];
        for (size_t i = 0; i < n; i++) {
            float xv = half ? simdops_f16_to_f32((uint16_t)get_elem(x, i, 2))
                            : simdops_f32_from_bits((uint32_t)get_elem(x, i, 4));
            float q = xv / p->scale;
            int32_t w;
            uint64_t g = get_elem(want, i, is);
            if (p->div_f16)
                q = simdops_f16_to_f32(simdops_f32_to_f16(q));
            w = independent_quantize(q, p->zero_point, (int32_t)r->lo, (int32_t)r->hi);
            if ((uint64_t)(w & (int64_t)mask_of(is)) != g) {
                fail_head(t, "scalar vs double reference", n, i, 0);
                if (printing())
                    printf("x=%a scale=%a zp=%d want %d got %#llx\n", (double)xv, (double)p->scale,
                           p->zero_point, w, U(g));
                break;
            }
        }
    } else if (t->is_scalar) {
        for (size_t i = 0; i < n; i++) {
            int64_t xi = (int64_t)get_elem(x, i, is);
            double w;
            uint64_t wv;
            if (DT[t->idx].is_signed && (xi & (int64_t)sign_bit(is)))
                xi -= (int64_t)mask_of(is) + 1;
            /* float32(x - zp) times the scale, exact in double, then rounded once
             * to float32 (and, for float16 output, once more as the reference does) */
            w = (double)(float)(xi - p->zero_point) * (double)p->scale;
            wv = half ? simdops_f32_to_f16((float)w) : simdops_f32_bits((float)w);
            if (wv != get_elem(want, i, ys)) {
                fail_head(t, "scalar vs double reference", n, i, 0);
                if (printing())
                    printf("x=%lld\n", (long long)xi);
                break;
            }
        }
    }
    free_buf(xb);
    free_buf(wb);
    free_buf(gb);
}

/* one random case of length n; windows: float32 x drawn by window_x */
static void qlinear_random_case(const target *t, size_t n, int windows)
{
    const int quant = is_quantize(t->kind), half = half_side(t->kind);
    const simdops_dtype_row *r = &simdops_dtype_rows[t->idx];
    const int32_t lo = (int32_t)r->lo, hi = (int32_t)r->hi;
    const int is = DT[t->idx].size;
    unsigned char src[MAXN * 8];
    simdops_qlinear_params p;
    size_t xo = adjust_off(t, rand_off(), quant ? (half ? 2 : 4) : is);
    size_t yo = adjust_off(t, rand_off(), quant ? is : (half ? 2 : 4));
    memset(&p, 0, sizeof(p));
    p.div_f16 = quant && half && chance(50);
    p.scale = random_scale(p.div_f16);
    if (t->idx == SIMDOPS_INT32)
        p.zero_point = 0;
    else if (chance(20))
        p.zero_point = chance(50) ? lo : hi;
    else
        p.zero_point = lo + (int32_t)below((uint32_t)(hi - lo + 1));
    p.qlo = (float)(lo - p.zero_point);
    p.qhi = (float)(hi - p.zero_point);
    for (size_t i = 0; i < n; i++) {
        if (quant) {
            float v = windows ? window_x(&p, lo, hi) : random_x(&p, lo, hi);
            if (half)
                put_elem(src, i, 2, chance(20) ? (uint16_t)rnd() : simdops_f32_to_f16(v));
            else
                put_elem(src, i, 4, simdops_f32_bits(v));
        } else {
            put_elem(src, i, is, rnd());
        }
    }
    qlinear_case(t, &p, n, src, xo, yo);
}

void test_qlinear(const target *t)
{
    const int windows = is_quantize(t->kind) && !half_side(t->kind) && DT[t->idx].size == 1;
    for (size_t n = 0; n <= MAXN; n++)
        for (int rep = 0; rep < 6; rep++)
            qlinear_random_case(t, n, 0);
    /* float32 -> 8 bits: whole blocks of the divider-free path (64 lanes at most) */
    for (int rep = 0; windows && rep < 3000; rep++)
        qlinear_random_case(t, 64 + below(MAXN - 63), 1);
}
