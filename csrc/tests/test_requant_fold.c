/* Kernel harness: the call's fold of oneDNN's power-of-two chains
 * (simdops_requant_fold_prepare once per handle, simdops_requant_fold_apply per call,
 * rules/requant_fold.c), which the drivers apply before
 * they pick a kernel: a tier's default float entry run on the folded parameters (and,
 * per channel with c != 1, on the scales times c) against the scalar tier's chain run
 * step by step on the parameters as prepared. The multipliers and scales are drawn at
 * the fold's bounds (rqc_fold_pow2: |pre|, |c|, |pre| smin, |c| smin >= 2^-126, and
 * 2^31 times each of |pre|, |c|, |pre| smax, |c| smax below 2^127; a step not there is
 * 1) and at the end of the range the driver's scale check lets it skip the scales' scan
 * (SIMDOPS_RQ_SCALE_FLOOR), on both sides, chains of both steps and of one, with
 * inputs of magnitude 1 (where a subnormal step would round differently), the int32
 * extremes (where a step would overflow) and ties of the output. */
#include "harness.h"

/* a power of two 2^e, e in [lo, hi], as float32 (a subnormal one below 2^-126) */
static float fold_pow2(int lo, int hi)
{
    return ldexpf(1.0f, lo + (int)below((uint32_t)(hi - lo + 1)));
}

/* a scale whose bound lands next to the fold's: |pre| s or |c| s near 2^-126, 2^31 |pre| s
 * or 2^31 |c| s near 2^127, one float either side (or on it); else a common one */
static float fold_scale(float pre, float c)
{
    const float m = chance(50) ? pre : c;
    float s;
    switch (below(4)) {
    case 0: s = ldexpf(1.0f, -126) / fabsf(m); break;
    case 1: s = ldexpf(1.0f, 96) / fabsf(m); break; /* 2^31 s |m| = 2^127 */
    case 2: s = 0.5f + ldexpf(1.0f, -24); break;    /* off a power of two: a rounding */
    default: s = ldexpf(1.0f + (float)below(1u << 23) * ldexpf(1.0f, -23), -(int)below(30)); break;
    }
    if (!isfinite(s) || s == 0.0f)
        s = 1e-3f;
    switch (below(3)) {
    case 0: s = nextafterf(s, 0.0f); break;
    case 1: s = nextafterf(s, INFINITY); break;
    default: break;
    }
    return chance(20) ? -s : s;
}

static int32_t fold_input(float scale)
{
    switch (below(5)) {
    case 0: {
        static const int32_t E[] = {1, -1, 2, 3, 0, INT32_MAX, INT32_MIN, INT32_MIN + 1};
        return E[below(sizeof(E) / sizeof(E[0]))];
    }
    case 1: { /* near a half-integer output */
        const double v = ((double)(int32_t)below(600) - 300.0 + 0.5) / (double)scale;
        if (fabs(v) < 2e9)
            return (int32_t)v + (int32_t)below(3) - 1;
        return 1;
    }
    case 2: return (int32_t)(uint32_t)rnd();
    default: return (int32_t)below(2001) - 1000;
    }
}

static void fold_case(const target *t, int pc, size_t n)
{
    const int os = RQ_SIZE[t->idx];
    simdops_requant_params p, q;
    simdops_requant_channels ch, chq;
    int32_t x[MAXN], bias[MAXN];
    float scale[MAXN], scaled[MAXN], c = 1.0f;
    /* ending at the guard page with whole elements: both outputs element-aligned (the
     * scalar reference dereferences typed pointers; a +1 byte made int16's odd) */
    unsigned char *want = alloc_buf(n * (size_t)os), *got = alloc_buf(n * (size_t)os);
    const int with_bias = chance(50);
    memset(&p, 0, sizeof p);
    p.family = SIMDOPS_ROUNDING_FP;
    p.min = RQ_LO[t->idx];
    p.max = RQ_HI[t->idx];
    p.offset = t->idx == SIMDOPS_RQ_U8 ? 128 : (int32_t)below(7) - 3;
    /* pre = 2^i and post = 2^j (or a divisor) with the exponents around the bounds */
    p.pre_scale = chance(30) ? fold_pow2(-130, -120) : chance(30) ? fold_pow2(90, 100)
                                                                   : fold_pow2(-8, 8);
    p.post = chance(50) ? 1.0f / p.pre_scale : fold_pow2(-6, 6);
    if (!isfinite(p.post) || p.post == 0.0f)
        p.post = 2.0f;
    if (chance(20))
        p.pre_scale = -p.pre_scale;
    p.pre64 = p.pre_scale;
    p.post64 = p.post;
    p.fp_mode = SIMDOPS_RQ_FP_PRE | (chance(50) ? SIMDOPS_RQ_FP_POST_MUL : SIMDOPS_RQ_FP_POST_DIV);
    /* a quarter pre_scale alone, a quarter post_scale / post_divide alone (a step not
     * there: a multiplier 1 to the fold) */
    switch (below(4)) {
    case 0: p.fp_mode = SIMDOPS_RQ_FP_PRE; break;
    case 1: p.fp_mode &= ~SIMDOPS_RQ_FP_PRE; break;
    default: break;
    }
    /* a quarter of the cases at one bound, scales on both sides of it: L, pre = 2^-126 and
     * c = 1 (the window's lower end is |s| >= 1; at A = 1 and s = 1/2 + 2^-24 the steps'
     * subnormal product rounds to 1/2 -> 0, the fold's to 1); U, pre = 2^95 and c = 2^-25
     * (the upper end is |s| < 2: from 2 on 2^31 * 2^95 * s reaches infinity -> max where
     * the fold's 2^6 * s is 128..1024, inside int16); F, pre = 2^-63 and c = 2^63, every
     * scale in [2^-64, 2^-63), inside the floor's range [2^-64, 1) but below the window's
     * lower end 2^-63 (the known range spares the scan only from lo >= 2^-62): at A = 1
     * and s = 2^-64 (1 + 2^-23) the steps' subnormal 2^-127 (1 + 2^-23) rounds to 2^-127,
     * times 2^126 is 1/2 -> 0, the fold's 1/2 + 2^-24 -> 1 */
    const int bound = chance(25) ? 1 + (int)below(3) : 0;
    if (bound) {
        p.pre_scale = bound == 1 ? 0x1p-126f : bound == 2 ? 0x1p95f : 0x1p-63f;
        p.post = bound == 1 ? 0x1p126f : bound == 2 ? 0x1p-120f : 0x1p126f;
        p.pre64 = p.pre_scale;
        p.post64 = p.post;
        p.fp_mode = SIMDOPS_RQ_FP_PRE | SIMDOPS_RQ_FP_POST_MUL;
    }
    const float pre1 = (p.fp_mode & SIMDOPS_RQ_FP_PRE) ? p.pre_scale : 1.0f;
    const float post1 =
        (p.fp_mode & (SIMDOPS_RQ_FP_POST_MUL | SIMDOPS_RQ_FP_POST_DIV)) ? p.post : 1.0f;
    const float cf = (p.fp_mode & SIMDOPS_RQ_FP_POST_DIV) ? pre1 / post1 : pre1 * post1;
    p.scale = fold_scale(pre1, isfinite(cf) && cf != 0.0f ? cf : 1.0f);
    p.scale64 = p.scale;
    for (size_t i = 0; i < n; i++) {
        scale[i] = chance(50) ? p.scale : fold_scale(pre1, cf != 0.0f ? cf : 1.0f);
        x[i] = fold_input(pc ? scale[i] * cf : p.scale * cf);
        if (bound == 1 && (chance(50) || i == 0)) {
            scale[i] = (0.5f + (float)below(4) * 0x1p-24f) * (chance(70) ? 1.0f : 2.0f);
            x[i] = chance(70) ? 1 : (int32_t)below(7) - 3;
        } else if (bound == 2 && (chance(50) || i == 0)) {
            scale[i] = ldexpf(1.0f + (float)below(1u << 23) * 0x1p-23f, (int)below(4) - 1);
            x[i] = chance(70) ? (chance(50) ? INT32_MAX : INT32_MIN) : (int32_t)(uint32_t)rnd();
        } else if (bound == 3) {
            scale[i] = ldexpf(1.0f + (float)below(4) * 0x1p-23f, -64);
            x[i] = chance(70) ? 1 : (int32_t)below(7) - 3;
        }
        if (i == 0 && bound)
            p.scale = p.scale64 = scale[0];
        bias[i] = chance(70) ? 0 : (int32_t)below(2001) - 1000;
    }
    /* what the driver passes: whether the scales lie in [floor, 1) by the check's pass
     * (simdops_requant_check_scales_floor); a quarter of the cases 0 (the fold's scan) */
    int known = 0, below_one = 0, above_floor = 0;
    simdops_error err;
    if (pc && chance(75) &&
        simdops_requant_check_scales_floor(scale, (int64_t)n, &below_one, &above_floor, &err) == 0)
        known = below_one && above_floor;
    /* the handle's fold, made once (prepare), then the call's (apply): an int32 bias or
     * none (the driver applies no fold with a float32 one) */
    simdops_requant_fold_prepare(&p);
    q = p;
    const int folded = simdops_requant_fold_apply(&q, pc ? scale : NULL, (int64_t)n, known, &c);
    memset(&ch, 0, sizeof ch);
    ch.scale = scale;
    chq = ch;
    if (folded == 2)
        for (size_t i = 0; i < n; i++)
            scaled[i] = scale[i] * c;
    if (folded == 2)
        chq.scale = scaled;
    below_one = 0;
    if (pc && simdops_requant_check_scales(chq.scale, (int64_t)n, &below_one, &err) == 0)
        chq.scales_below_one = below_one;
    if (pc) {
        ((simdops_requant_pc_fn)t->ref)(x, want, n, with_bias ? bias : NULL, &ch, &p);
        ((simdops_requant_pc_fn)t->fn)(x, got, n, with_bias ? bias : NULL, &chq, &q);
    } else {
        ((simdops_requant_fn)t->ref)(x, want, n, with_bias ? bias : NULL, &p);
        ((simdops_requant_fn)t->fn)(x, got, n, with_bias ? bias : NULL, &q);
    }
    if (memcmp(want, got, n * (size_t)os) == 0 && (!folded || q.fp_mode == 0)) {
        g_pass++;
    } else {
        fail_head(t, "fold", n, 0, 0);
        if (printing()) {
            size_t i = 0;
            while (i + 1 < n && get_elem(want, i, os) == get_elem(got, i, os))
                i++;
            printf("  folded %d known %d mode %d -> %d pre=%a post=%a scale=%a c=%a x[%zu]=%d "
                   "s=%a want %llu got %llu\n",
                   folded, known, p.fp_mode, q.fp_mode, (double)p.pre_scale, (double)p.post,
                   (double)p.scale, (double)c, i, n ? x[i] : 0, n ? (double)scale[i] : 0.0,
                   n ? U(get_elem(want, i, os)) : 0ULL, n ? U(get_elem(got, i, os)) : 0ULL);
        }
    }
    free_buf(want);
    free_buf(got);
}

void test_requant_fold_plan(const target *t, int pc)
{
    for (int rep = 0; rep < 3000; rep++)
        fold_case(t, pc, 1 + below(pc ? 40 : MAXN));
}
