/* Kernel harness: clip, clip with ScaleBias and shrink (the elementwise
 * entries) against the scalar tier. */
#include "harness.h"
#include "driver/strided.h" /* simdops_stream_threshold */

/* Parameter numbers as a caller may give them. */
static const double SPECIAL_F[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 127.5, -128.5,
                                   255.9, 65504.0, 65519.99, 65520.0, -65520.0, 1e-8, 5.96e-8,
                                   3.0e-5, 3.4e38, 1e39, -1e300, INFINITY, -INFINITY,
                                   4294967295.7, -2147483648.5, 2147483647.5, 9.3e18, 1.8e19,
                                   0.1, 1.0 / 3.0};
static const int64_t SPECIAL_I[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, -32768,
                                    65535, INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN,
                                    -300, 300};
static const uint64_t SPECIAL_U[] = {0x8000000000000000ull, UINT64_MAX};
enum {
    NSPECIAL_F = sizeof(SPECIAL_F) / sizeof(SPECIAL_F[0]),
    NSPECIAL_I = sizeof(SPECIAL_I) / sizeof(SPECIAL_I[0]),
    NSPECIAL = NSPECIAL_F + NSPECIAL_I + sizeof(SPECIAL_U) / sizeof(SPECIAL_U[0])
};

static simdops_number special_number(int idx)
{
    idx %= NSPECIAL;
    if (idx < NSPECIAL_F)
        return numf(SPECIAL_F[idx]);
    if (idx < NSPECIAL_F + NSPECIAL_I)
        return numi(SPECIAL_I[idx - NSPECIAL_F]);
    return numu(SPECIAL_U[idx - NSPECIAL_F - NSPECIAL_I]);
}

static simdops_number random_number(void)
{
    switch (below(6)) {
    case 0:
    case 1: return special_number((int)below(NSPECIAL));
    case 2: return numf((double)((int)below(2001) - 1000) / (double)(1u << below(6)));
    case 3: { /* random magnitude */
        double m = (double)(rnd() >> 11) / 9007199254740992.0;
        return numf((chance(50) ? -1 : 1) * ldexp(m, (int)below(140) - 70));
    }
    case 4: { /* any magnitude, either sign (negated as unsigned: no overflow) */
        uint64_t u = rnd() >> below(64);
        return numi((int64_t)(chance(50) ? 0 - u : u));
    }
    default: return numi((int64_t)below(1001) - 500);
    }
}

static float random_scale_or_bias(int finite_only)
{
    static const float S[] = {1.0f, 0.0f, -0.0f, -1.0f, 0.5f, 2.0f, 1e-3f, 3e38f, -3e38f,
                              1e-45f, 1e10f, -7.25f, 65504.0f, 0.333333f, 4294967296.0f,
                              INFINITY, -INFINITY};
    float v;
    if (chance(50)) {
        do
            v = S[below(sizeof(S) / sizeof(S[0]))];
        while (finite_only && !isfinite(v));
        return v;
    }
    return (float)((double)((int)below(4001) - 2000) / (double)(1u << below(10)));
}

/* Parameters of an elementwise op from numbers; 0 when init rejects them. */
typedef union ew_params {
    simdops_clip_params clip;
    simdops_shrink_params shrink;
} ew_params;

static int make_clip(int dt, int sb, simdops_number lo, simdops_number hi, float s, float b,
                     ew_params *p)
{
    simdops_number scale = numf(s), bias = numf(b);
    simdops_error err;
    memset(p, 0, sizeof(*p));
    memset(&err, 0, sizeof(err));
    return simdops_clip_params_init((simdops_dtype)dt, lo, hi, sb ? &scale : NULL,
                                    sb ? &bias : NULL, &p->clip, &err) == SIMDOPS_OK;
}

static int make_shrink(int dt, simdops_number bias, simdops_number thr, ew_params *p)
{
    simdops_error err;
    memset(p, 0, sizeof(*p));
    memset(&err, 0, sizeof(err));
    return simdops_shrink_params_init((simdops_dtype)dt, bias, thr, &p->shrink, &err) == SIMDOPS_OK;
}

static simdops_number random_threshold(void)
{
    simdops_number t = random_number();
    if (t.kind == SIMDOPS_NUM_FLOAT)
        t.f = fabs(t.f);
    else if (t.kind == SIMDOPS_NUM_INT && t.i < 0)
        t.i = t.i == INT64_MIN ? INT64_MAX : -t.i;
    return t;
}

/* Random parameters valid for this op (tries until init accepts them). */
static void random_ew_params(int kind, int dt, ew_params *p)
{
    for (;;) {
        simdops_number a = random_number(), b = chance(10) ? a : random_number();
        int ok;
        if (kind == K_SHRINK)
            ok = make_shrink(dt, a, random_threshold(), p);
        else
            ok = make_clip(dt, kind == K_CLIP_SB, a, b, random_scale_or_bias(!DT[dt].is_float),
                           random_scale_or_bias(!DT[dt].is_float), p);
        if (ok)
            return;
    }
}

/* Values next to the parameters, where compares flip. */
static void ew_nearset(int kind, int dt, const ew_params *p, nearset *ns)
{
    ns->count = 0;
    if (kind == K_SHRINK) {
        const simdops_shrink_params *s = &p->shrink;
        near_add(ns, dt, value_bits(dt, s->thr));
        near_add(ns, dt, value_bits(dt, s->neg_thr));
        near_add(ns, dt, value_bits(dt, s->bias));
        if (!DT[dt].is_float) {
            near_add(ns, dt, value_bits(dt, s->sub_lo));
            near_add(ns, dt, value_bits(dt, s->sub_hi));
            near_add(ns, dt, value_bits(dt, s->add_lo));
            near_add(ns, dt, value_bits(dt, s->add_hi));
        }
        return;
    }
    near_add(ns, dt, value_bits(dt, p->clip.min));
    near_add(ns, dt, value_bits(dt, p->clip.max));
    if (kind == K_CLIP_SB && p->clip.scale != 0 && isfinite(p->clip.scale)) {
        /* x with x*scale+bias near the bounds, the type's ends, 0 and +-0.5 */
        double s = p->clip.scale, b = p->clip.bias, tg[8];
        double lo, hi;
        int k = 0;
        if (dt == SIMDOPS_FLOAT64) {
            lo = p->clip.min.f64;
            hi = p->clip.max.f64;
        } else if (DT[dt].is_float) {
            lo = p->clip.min.f32;
            hi = p->clip.max.f32;
        } else {
            uint64_t lb = value_bits(dt, p->clip.min), hb = value_bits(dt, p->clip.max);
            if (DT[dt].is_signed) {
                uint64_t sb = sign_bit(DT[dt].size);
                lo = (double)(int64_t)((lb ^ sb) - sb);
                hi = (double)(int64_t)((hb ^ sb) - sb);
            } else {
                lo = (double)lb;
                hi = (double)hb;
            }
        }
        tg[k++] = lo;
        tg[k++] = hi;
        tg[k++] = 0.0;
        tg[k++] = 0.5;
        tg[k++] = -0.5;
        tg[k++] = -1.0;
        tg[k++] = DT[dt].is_signed ? -(double)sign_bit(DT[dt].size) : 0.0;
        tg[k++] = DT[dt].is_signed ? (double)(sign_bit(DT[dt].size) - 1)
                                   : (double)mask_of(DT[dt].size);
        for (int i = 0; i < k; i++)
            near_add(ns, dt, dbl_bits(dt, (tg[i] - b) / s));
    }
}


void test_elementwise(const target *t)
{
    const int dt = t->idx;
    unsigned char x[MAXN * 8];
    ew_params p;
    nearset ns;

    /* every length, random parameters, data mixes and offsets */
    for (size_t n = 0; n <= MAXN; n++) {
        for (int rep = 0; rep < 3; rep++) {
            random_ew_params(t->kind, dt, &p);
            ew_nearset(t->kind, dt, &p, &ns);
            gen_data(x, n, dt, &MIXES[(n + (size_t)rep) % NMIX], &ns);
            ew_case(t, &p, x, n, rand_off(), rand_off(), rand_off());
        }
    }
    /* every byte offset 0..63 of input and output on a few lengths */
    {
        static const size_t LENS[] = {7, 40, 130};
        for (size_t li = 0; li < 3; li++) {
            size_t n = LENS[li];
            for (size_t off = 0; off < 64; off++) {
                random_ew_params(t->kind, dt, &p);
                ew_nearset(t->kind, dt, &p, &ns);
                gen_data(x, n, dt, &MIXES[off % NMIX], &ns);
                ew_case(t, &p, x, n, off, (off * 29 + 7) & 63, off);
                ew_case(t, &p, x, n, (off * 13 + 5) & 63, off, (off + 32) & 63);
            }
        }
    }
    /* Calls past the stream threshold (lowered to 1 KiB here) take the driver's
     * non-temporal path: rows of several blocks and a tail, at offsets that do and
     * do not start on a line. */
    {
        enum { STREAM_ROW_BYTES = 3 * 16384 + 4096 + 200 };
        static unsigned char xs[STREAM_ROW_BYTES + 64];
        const size_t saved = simdops_stream_threshold;
        simdops_stream_threshold = 1024;
        for (int rep = 0; rep < 6; rep++) {
            size_t n = STREAM_ROW_BYTES / (size_t)DT[dt].size - (size_t)rep;
            random_ew_params(t->kind, dt, &p);
            ew_nearset(t->kind, dt, &p, &ns);
            gen_data(xs, n, dt, &MIXES[(size_t)rep % NMIX], &ns);
            stream_case(t, &p, xs, n, rand_off(), rep < 3 ? 0 : rand_off());
        }
        simdops_stream_threshold = saved;
    }
    /* softshrink-like parameters (bias <= threshold, both small): the float kernels'
     * magnitude forms, where bias and |x| are close enough for x - b to differ from x */
    if (t->kind == K_SHRINK) {
        static const double PAIRS[][2] = {{0.5, 0.5},  {0.25, 1.0}, {0.0, 0.5},  {-0.5, 0.5},
                                          {1e-3, 2.0}, {3.0, 3.0},  {-2.0, 0.0}, {-0.0, 1.0}};
        for (size_t k = 0; k < sizeof(PAIRS) / sizeof(PAIRS[0]); k++) {
            for (int rep = 0; rep < 4; rep++) {
                size_t n = 1 + below(MAXN);
                if (!make_shrink(dt, numf(PAIRS[k][0]), numf(PAIRS[k][1]), &p))
                    continue;
                ew_nearset(t->kind, dt, &p, &ns);
                gen_data(x, n, dt, &MIXES[(size_t)rep % NMIX], &ns);
                ew_case(t, &p, x, n, rand_off(), rand_off(), rand_off());
            }
        }
    }
    /* float16 shrink over every half (all 65536 bit patterns: both zeros,
     * subnormals, +-inf, every NaN payload), for biases and thresholds where
     * x - b rounds twice (float32, then half) and where it is exact */
    if (t->kind == K_SHRINK && dt == SIMDOPS_FLOAT16) {
        static const double HALF_PAIRS[][2] = {{0.5, 0.5},     {1e-3, 0.0},   {-0.5, 0.25},
                                               {5.96e-8, 0.0}, {65504.0, 0.0}, {-65504.0, 0.0},
                                               {0.33325195, 1.0}, {6.1e-5, 0.0}, {2.0, INFINITY}};
        static unsigned char all[65536 * 2];
        for (size_t i = 0; i < 65536; i++)
            put_elem(all, i, 2, i);
        for (size_t k = 0; k < sizeof(HALF_PAIRS) / sizeof(HALF_PAIRS[0]); k++)
            if (make_shrink(dt, numf(HALF_PAIRS[k][0]), numf(HALF_PAIRS[k][1]), &p))
                ew_case(t, &p, all, 65536, rand_off(), rand_off(), rand_off());
    }
    /* float16 clip over every half, for bounds of each of the avx512 kernel's forms
     * (clip_avx512.c): the masked mins (bounds of both signs, halves or between two,
     * +-0, beyond the half range), the range compares (lo = +0, hi = -0, lo > hi, NaN
     * bounds) and the key-space fallback (hi < 0, lo > 0) */
    if (t->kind == K_CLIP && dt == SIMDOPS_FLOAT16) {
        static const double CLIP_HALF_PAIRS[][2] = {
            {-1.0, 1.0},       {-0.75, 0.75},     {-0.7501, 0.7499}, {-0.7499, 0.7501},
            {-0.0, 0.0},       {-1e-8, 3.0e-8},   {-3.4e38, 3.4e38}, {-INFINITY, INFINITY},
            {-65520.0, 65519.99}, {-6.1e-5, 5.96e-8}, {0.0, 6.0},     {-0.0, -0.0},
            {0.0, 0.0},        {1.0, -1.0},       {-1.0, NAN},       {NAN, 1.0},
            {NAN, NAN},        {-2.0, -1.0},      {5.96e-8, 1.0},    {0.5, 0.25}};
        static unsigned char all[65536 * 2];
        for (size_t i = 0; i < 65536; i++)
            put_elem(all, i, 2, i);
        for (size_t k = 0; k < sizeof(CLIP_HALF_PAIRS) / sizeof(CLIP_HALF_PAIRS[0]); k++)
            if (make_clip(dt, 0, numf(CLIP_HALF_PAIRS[k][0]), numf(CLIP_HALF_PAIRS[k][1]), 1.0f,
                          0.0f, &p))
                ew_case(t, &p, all, 65536, rand_off(), rand_off(), rand_off());
    }
    /* integer shrink with the subtraction's clamp (sub_lo = min + B) binding just
     * above the threshold or just not: sub_lo - (thr + 1) in -2..2, B 3/4 of the
     * span (signed: add_hi - (neg_thr - 1) the same distance, negated). The avx2
     * kernels drop both clamps when neither can bind (CLAMP_NONE); a test one off
     * would wrap x = thr + 1 (and x = neg_thr - 1) instead of saturating it. */
    if (t->kind == K_SHRINK && !DT[dt].is_float && DT[dt].size <= 4) {
        const int64_t lo = DT[dt].is_signed ? -(int64_t)sign_bit(DT[dt].size) : 0;
        const int64_t hi = DT[dt].is_signed ? (int64_t)sign_bit(DT[dt].size) - 1
                                            : (int64_t)mask_of(DT[dt].size);
        const int64_t b = (hi - lo) - (hi - lo) / 4;
        for (int d = -2; d <= 2; d++) {
            const int64_t thr = lo + b - 1 - d;
            if (thr < 0 || !make_shrink(dt, numi(b), numi(thr), &p))
                continue;
            ew_nearset(t->kind, dt, &p, &ns);
            for (int rep = 0; rep < 4; rep++) {
                gen_data(x, MAXN, dt, &MIXES[(size_t)(d + 2 + rep) % NMIX], &ns);
                ew_case(t, &p, x, MAXN, rand_off(), rand_off(), rand_off());
            }
        }
    }
    /* parameter sweep: special numbers against each other */
    for (int i = 0; i < NSPECIAL; i++) {
        for (int j = 0; j < 6; j++) {
            simdops_number a = special_number(i);
            simdops_number b = j == 0 ? a : special_number((int)below(NSPECIAL));
            int ok;
            size_t n = j < 3 ? 70 : 1 + below(MAXN);
            if (t->kind == K_SHRINK) {
                if (b.kind == SIMDOPS_NUM_FLOAT)
                    b.f = fabs(b.f);
                else if (b.kind == SIMDOPS_NUM_INT && b.i < 0)
                    b.i = b.i == INT64_MIN ? INT64_MAX : -b.i;
                ok = make_shrink(dt, a, b, &p);
            } else {
                int fin = !DT[dt].is_float;
                ok = make_clip(dt, t->kind == K_CLIP_SB, a, b, random_scale_or_bias(fin),
                               random_scale_or_bias(fin), &p);
            }
            if (!ok)
                continue;
            ew_nearset(t->kind, dt, &p, &ns);
            gen_data(x, n, dt, &MIXES[(size_t)(i + j) % NMIX], &ns);
            ew_case(t, &p, x, n, rand_off(), rand_off(), rand_off());
        }
    }
}

