/* Kernel harness: the requantization families' entries (single rounding,
 * ruy's ties-up form, ACL's floor stage, the float families; per tensor and
 * per channel) against the scalar tier, with parameters across each family's
 * whole range, extreme offsets and bounds, every pointer offset. */
#include "harness.h"

static int32_t fam_s32(uint64_t bits) { return (int32_t)(uint32_t)bits; }

/* The family whose SIMDOPS_REQUANT_FAMILIES line names the entry (per tensor or
 * per channel); 0 when no line does. */
static int family_of(int kind, int *family, int *pc)
{
#define FAM_ENTRY(name, code, py, api, lo, hi, pt, pc_)                                           \
    if (kind == SIMDOPS_KE_##pt || kind == SIMDOPS_KE_##pc_) {                                   \
        *family = code;                                                                           \
        *pc = kind == SIMDOPS_KE_##pc_;                                                          \
        return 1;                                                                                 \
    }
    SIMDOPS_REQUANT_FAMILIES(FAM_ENTRY)
#undef FAM_ENTRY
    return 0;
}

/* A per-channel entry (the per-channel signature), by its family line. */
static int is_pc(int kind)
{
    int family, pc;
    return family_of(kind, &family, &pc) && pc;
}

static int32_t fam_multiplier(void)
{
    static const int32_t M[] = {INT32_MIN, INT32_MAX, 0, 1, -1, 1 << 30, 1 << 23, (1 << 24) - 1,
                                1518500250, INT32_MIN + 1};
    switch (below(4)) {
    case 0: return M[below(sizeof(M) / sizeof(M[0]))];
    case 1: return (int32_t)((1u << 30) + below(1u << 30)); /* TFLite */
    case 2: return (int32_t)((1u << 23) + below(1u << 23)); /* XNNPACK rndnu */
    default: return fam_s32(rnd());
    }
}

int32_t fam_shift(int family)
{
    int32_t lo, hi;
    simdops_requant_shift_range(family, &lo, &hi);
    if (chance(30))
        return chance(50) ? lo : hi;
    if (family == SIMDOPS_ROUNDING_SINGLE && chance(40))
        return (int32_t)below(40) - 15; /* XNNPACK rndnu: 31 + shift in [16, 55] */
    return lo + (int32_t)below((uint32_t)(hi - lo + 1));
}

static float fam_scale(void)
{
    static const float S[] = {1.0f, 0.5f, 0.25f, 1e-3f, 0x1p-32f, 255.9f, 3e38f, 1e-40f, 0.0f,
                              -0.5f, 0.1f, 1.0f / 3.0f, 0x1.fffffep-1f, -0x1.fffffep-1f};
    uint32_t bits;
    float f;
    if (chance(40))
        return S[below(sizeof(S) / sizeof(S[0]))];
    /* [2^-32, 256): XNNPACK's and MLAS's range */
    bits = ((uint32_t)(127 - 32 + below(40)) << 23) | (uint32_t)(rnd() & 0x7FFFFF);
    memcpy(&f, &bits, 4);
    return f;
}

int32_t fam_input(const simdops_requant_params *p, float scale)
{
    uint32_t r = below(100);
    if (r < 25)
        return fam_s32(rnd());
    if (r < 40) {
        static const int32_t E[] = {INT32_MIN, INT32_MAX, 0, 1, -1, INT32_MIN + 1, 1 << 30};
        return E[below(sizeof(E) / sizeof(E[0]))];
    }
    if (r < 75 && p->family == SIMDOPS_ROUNDING_FP && scale != 0.0f && isfinite(1.0f / scale)) {
        /* near a half-integer output: ties in float */
        double v = ((double)(int32_t)(below(600)) - 300.0 + 0.5) / (double)scale;
        if (fabs(v) < 2e9)
            return (int32_t)v + (int32_t)below(3) - 1;
    }
    if (r < 75 && p->family != SIMDOPS_ROUNDING_FP) {
        /* near a tie of the single rounding: x*M close to (k + 1/2) * 2^t */
        int t = 31 + p->right_shift - p->left_shift;
        int64_t m = p->multiplier ? p->multiplier : 1;
        double v = ((double)((int32_t)below(600) - 300) + 0.5) * ldexp(1.0, t) / (double)m;
        if (fabs(v) < 2e9)
            return (int32_t)v + (int32_t)below(3) - 1;
    }
    return (int32_t)below(200001) - 100000;
}

void fam_params(int family, int out, simdops_requant_params *p)
{
    int32_t sh = fam_shift(family);
    int32_t a = RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    int32_t b = RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    memset(p, 0, sizeof *p);
    p->family = family;
    p->multiplier = fam_multiplier();
    p->left_shift = sh < 0 ? -sh : 0;
    p->right_shift = sh > 0 ? sh : 0;
    switch (below(4)) {
    case 0: p->min = RQ_LO[out]; p->max = RQ_HI[out]; break;
    case 1: p->min = p->max = a; break;
    default: p->min = a < b ? a : b; p->max = a < b ? b : a; break;
    }
    if (family == SIMDOPS_ROUNDING_FP) {
        static const int MODES[] = {0, 0, 0, SIMDOPS_FP_FLOAT64, SIMDOPS_FP_TIES_AWAY,
                                    SIMDOPS_FP_FLOAT64 | SIMDOPS_FP_TIES_AWAY, SIMDOPS_FP_ACL};
        p->fp_mode = MODES[below(7)];
        /* two in five of the other modes add the chain's steps, ties="add_half", a
         * float32 bias (fam_case makes the bias finite floats) before or after the scale */
        if (p->fp_mode != SIMDOPS_FP_ACL && chance(40)) {
            /* 2^100 and 2^-100: power-of-two steps whose product overflows on the way (not
             * bounded, not folded: rqc512_bounded, rqc_fold_pow2) */
            static const float V[] = {0.5f,  0.25f, 2.0f,        0.0173f,  57.9f,
                                      -3.0f, 1e-3f, 0x1.fffffep-2f, 0x1p100f, 0x1p-100f};
            if (!(p->fp_mode & SIMDOPS_FP_TIES_AWAY) && chance(40))
                p->fp_mode |= SIMDOPS_FP_TIES_ADD_HALF;
            if (chance(50)) {
                p->fp_mode |= SIMDOPS_RQ_FP_PRE;
                p->pre_scale = V[below(10)];
                p->pre64 = (double)p->pre_scale;
            }
            if (chance(50)) {
                p->fp_mode |= chance(50) ? SIMDOPS_RQ_FP_POST_MUL : SIMDOPS_RQ_FP_POST_DIV;
                p->post = V[below(10)];
                p->post64 = (double)p->post * (chance(50) ? 1.0 : 1.0 + 1e-12);
            }
            if (chance(50)) {
                p->fp_mode |= SIMDOPS_RQ_FP_OFFSET;
                p->offset_f = chance(50) ? V[below(10)] : (float)below(2001) / 4 - 250;
                p->offset64 = (double)p->offset_f;
            }
            if (chance(50))
                p->fp_mode |= SIMDOPS_RQ_FP_FLOAT_BIAS | (chance(50) ? SIMDOPS_FP_BIAS_SCALED : 0);
        }
        p->scale = fam_scale();
        p->scale64 = chance(50) ? (double)p->scale : (double)p->scale * (1.0 + 1e-12);
        /* the zero point lies in the output type (ACL's float stage: any int32) */
        p->offset = p->fp_mode == SIMDOPS_FP_ACL && chance(30)
                        ? fam_s32(rnd())
                        : RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    } else {
        static const int32_t O[] = {INT32_MIN, INT32_MAX, 0, 128, -128, 1, -1, 32768};
        p->offset = chance(40) ? O[below(8)] : chance(50) ? (int32_t)below(601) - 300
                                                          : fam_s32(rnd());
    }
}

static void fam_case(const target *t, const simdops_requant_params *p, size_t n,
                     const size_t offs[6], int with_bias)
{
    const int os = RQ_SIZE[t->idx], pc = is_pc(t->kind), fam = p->family;
    int32_t x[MAXN], bias[MAXN], mult[MAXN], shift[MAXN];
    float scale[MAXN];
    unsigned char *want = alloc_buf(n * (size_t)os);
    unsigned char *bx = alloc_buf(offs[0] + n * 4), *bb = alloc_buf(offs[1] + n * 4);
    unsigned char *bm = alloc_buf(offs[2] + n * 4), *bs = alloc_buf(offs[3] + n * 4);
    unsigned char *bf = alloc_buf(offs[4] + n * 4);
    unsigned char *by = alloc_buf(offs[5] + n * (size_t)os + TRAIL);
    simdops_requant_channels ch, ch_ref;
    simdops_error err;
    int ok, below_one = 0;
    /* half the per-channel float cases keep every |scale| < 1: the kernels' clamp-free path */
    const int scales_small = pc && fam == SIMDOPS_ROUNDING_FP && chance(50);
    /* a third of the per-channel float cases restart their vectors every period
     * elements (the driver's long calls): the reference gets periodic arrays, the
     * kernel one period followed by poison it must not read */
    const size_t period = pc && fam == SIMDOPS_ROUNDING_FP && n > 1 && chance(33) ? 1 + below(n - 1) : 0;
    /* half the single-rounding and ties-up per-channel cases run on the driver's
     * derived arrays; half of the single-rounding ones with every total shift >= 33
     * (the derived fast path), and a quarter of those with one channel at t = 32
     * (which must leave it); half of the ties-up ones with no left shift and no
     * INT32_MIN multiplier (the derived arrays' non-general form) */
    const int single = fam == SIMDOPS_ROUNDING_SINGLE || fam == SIMDOPS_ROUNDING_SINGLE_AWAY;
    const int derived = pc && (single || fam == SIMDOPS_ROUNDING_DOUBLE_TIES_UP) && chance(50);
    const int derived_fast = derived && single && chance(50);
    const int derived_plain = derived && fam == SIMDOPS_ROUNDING_DOUBLE_TIES_UP && chance(50);
    int32_t *derived_storage = NULL;
    /* half the per-channel float64 cases take float64 scales (LiteRT's per-channel
     * reference FULLY_CONNECTED), some a float32 one's neighbour: the kernel's copy
     * 8-byte aligned, or not */
    const int scales64 = pc && fam == SIMDOPS_ROUNDING_FP && (p->fp_mode & SIMDOPS_FP_FLOAT64) &&
                         chance(50);
    static double scale64[MAXN];
    unsigned char *bd = alloc_buf(8 + n * 8);
    const size_t off64 = chance(50) ? 8 : 4;
    for (size_t i = 0; i < n; i++) {
        mult[i] = chance(30) ? p->multiplier : fam_multiplier();
        shift[i] = chance(30) ? p->right_shift - p->left_shift : fam_shift(fam);
        if (derived_fast)
            shift[i] = 2 + (int32_t)below(30);
        if (derived_plain) {
            shift[i] = shift[i] < 0 ? -shift[i] : shift[i];
            mult[i] = mult[i] == INT32_MIN ? INT32_MAX : mult[i];
        }
        scale[i] = chance(30) ? p->scale : fam_scale();
        while (scales_small && !(fabsf(scale[i]) < 1.0f))
            scale[i] = fam_scale();
        x[i] = fam_input(p, pc && fam == SIMDOPS_ROUNDING_FP ? scale[i] : p->scale);
        bias[i] = chance(20) ? fam_s32(rnd()) : (int32_t)below(2001) - 1000;
        if (fam == SIMDOPS_ROUNDING_FP && (p->fp_mode & SIMDOPS_RQ_FP_FLOAT_BIAS)) {
            /* a float32 bias: finite values, halves and quarters among them */
            float fb = chance(50) ? (float)((int32_t)below(4001) - 2000) / 4 : (float)bias[i] * 0.37f;
            if (chance(4)) /* past int32 after any scale below 1: the float clamp must stay */
                fb = chance(50) ? 3e9f : -1e30f;
            memcpy(&bias[i], &fb, sizeof fb);
        }
        scale64[i] = chance(50) ? (double)scale[i] : (double)scale[i] * (1.0 - 3e-12);
        if (period && i >= period) {
            scale64[i] = scale64[i - period];
            scale[i] = scale[i - period];
            bias[i] = bias[i - period];
            x[i] = fam_input(p, scale[i]);
        }
    }
    if (derived_fast && n > 0 && chance(25))
        shift[below(n)] = 1; /* t = 32: its rounding term is in the low word */
    memset(&ch_ref, 0, sizeof ch_ref);
    memset(&ch, 0, sizeof ch);
    if (fam == SIMDOPS_ROUNDING_FP) {
        ch_ref.scale = scale;
    } else {
        ch_ref.mult = mult;
        ch_ref.shift = shift;
    }
    memcpy(bx + offs[0], x, n * 4);
    memcpy(bb + offs[1], bias, n * 4);
    memcpy(bm + offs[2], mult, n * 4);
    memcpy(bs + offs[3], shift, n * 4);
    memcpy(bf + offs[4], scale, n * 4);
    memcpy(bd + off64, scale64, n * 8);
    if (period) {
        /* past one period: poison (a NaN scale, a wild bias) */
        for (size_t i = period; i < n; i++) {
            const uint32_t nan_bits = 0x7fc00001u;
            const int32_t wild = INT32_MIN + (int32_t)i;
            memcpy(bf + offs[4] + i * 4, &nan_bits, 4);
            const double nan64 = NAN;
            memcpy(bb + offs[1] + i * 4, &wild, 4);
            memcpy(bd + off64 + i * 8, &nan64, 8);
        }
        ch.period = period;
    }
    if (scales64) {
        ch_ref.scale = NULL;
        ch_ref.scale64 = scale64;
        ch.scale64 = (const double *)(const void *)(bd + off64);
    }
    else if (fam == SIMDOPS_ROUNDING_FP) {
        ch.scale = (const float *)(const void *)(bf + offs[4]);
        /* what the drivers derive: every |scale| < 1 */
        if (simdops_requant_check_scales(scale, (int64_t)n, &below_one, &err))
            below_one = 0;
        ch.scales_below_one = below_one;
    }
    else if (derived) {
        derived_storage = (int32_t *)(void *)alloc_buf(simdops_requant_channels_words(n) * 4);
        if (single)
            simdops_requant_channels_init_single(&ch, derived_storage, n + 1, mult, shift, n, 1);
        else
            simdops_requant_channels_init(&ch, derived_storage, mult, shift, n, 1);
    }
    else {
        ch.mult = (const int32_t *)(const void *)(bm + offs[2]);
        ch.shift = (const int32_t *)(const void *)(bs + offs[3]);
    }
    if (pc) {
        ((simdops_requant_pc_fn)t->ref)(x, want, n, with_bias ? bias : NULL, &ch_ref, p);
        ((simdops_requant_pc_fn)t->fn)((const int32_t *)(const void *)(bx + offs[0]),
                                       by + offs[5], n,
                                       with_bias ? (const int32_t *)(const void *)(bb + offs[1]) : NULL,
                                       &ch, p);
    } else {
        ((simdops_requant_fn)t->ref)(x, want, n, with_bias ? bias : NULL, p);
        ((simdops_requant_fn)t->fn)((const int32_t *)(const void *)(bx + offs[0]), by + offs[5],
                                    n,
                                    with_bias ? (const int32_t *)(const void *)(bb + offs[1]) : NULL,
                                    p);
    }
    ok = memcmp(by + offs[5], want, n * (size_t)os) == 0 && canary_ok(by, 0, offs[5]) &&
         canary_ok(by, offs[5] + n * (size_t)os, offs[5] + n * (size_t)os + TRAIL) &&
         memcmp(bx + offs[0], x, n * 4) == 0;
    if (ok) {
        g_pass++;
    } else {
        fail_head(t, with_bias ? "bias" : "no-bias", n, offs[0], offs[5]);
        if (printing()) {
            size_t i = 0;
            while (i + 1 < n && get_elem(want, i, os) == get_elem(by + offs[5], i, os))
                i++;
            printf("  family %d mode %d period %zu M=%d shift=%d offset=%d min=%d max=%d "
                   "scale=%a x[%zu]=%d want %llu got %llu\n",
                   fam, p->fp_mode, period, p->multiplier, p->right_shift - p->left_shift, p->offset,
                   p->min, p->max, (double)p->scale, i, n ? x[i] : 0,
                   n ? U(get_elem(want, i, os)) : 0ULL, n ? U(get_elem(by + offs[5], i, os)) : 0ULL);
        }
    }
    if (derived_storage)
        free_buf((unsigned char *)derived_storage);
    free_buf(want);
    free_buf(bx);
    free_buf(bb);
    free_buf(bm);
    free_buf(bs);
    free_buf(bf);
    free_buf(bd);
    free_buf(by);
}

/* The float per-channel kernels with scales that repeat every cycle elements
 * within a period (the driver's lcm(channels, 16); a kernel may hold a cycle in
 * registers): cycles the AVX-512 kernel keeps and some it does not, periods of
 * one to several cycles, calls of up to several periods starting at any
 * phase; the kernel's arrays hold one period, then poison. */
static void fam_cycle_case(const target *t, size_t cycle, size_t period, size_t n, int with_bias)
{
    const int os = RQ_SIZE[t->idx];
    simdops_requant_params p;
    simdops_requant_channels ch, ch_ref;
    const size_t len = n > period ? n : period; /* the reference's arrays: at least a period */
    float *scale = (float *)(void *)alloc_buf(len * 4), *cyc = (float *)(void *)alloc_buf(cycle * 4);
    int32_t *x = (int32_t *)(void *)alloc_buf(len * 4), *bias = (int32_t *)(void *)alloc_buf(len * 4);
    const size_t so = below(16), bo = below(16), xo = below(16), yo = below(64);
    unsigned char *bs = alloc_buf((so + period) * 4), *bb = alloc_buf((bo + period) * 4);
    unsigned char *bx = alloc_buf((xo + n) * 4), *by = alloc_buf(yo + n * (size_t)os + TRAIL);
    unsigned char *want = alloc_buf(n * (size_t)os);
    simdops_error err;
    int below_one = 0, all_small = chance(85);
    /* mostly mode 0, the one the AVX-512 kernels run themselves (drawn, not set:
     * the other modes' zero points may lie outside the output type) */
    const int mode0 = chance(70);
    do
        fam_params(SIMDOPS_ROUNDING_FP, t->idx, &p);
    while (mode0 && p.fp_mode != 0);
    for (size_t j = 0; j < cycle; j++) {
        cyc[j] = fam_scale();
        while (all_small && !(fabsf(cyc[j]) < 1.0f))
            cyc[j] = fam_scale();
    }
    for (size_t i = 0; i < len; i++) {
        scale[i] = cyc[i % period % cycle];
        bias[i] = i < period ? (chance(20) ? fam_s32(rnd()) : (int32_t)below(2001) - 1000)
                             : bias[i - period];
        x[i] = fam_input(&p, scale[i]);
    }
    memcpy(bx + xo * 4, x, n * 4);
    memcpy(bs + so * 4, scale, period * 4);
    memcpy(bb + bo * 4, bias, period * 4);
    memset(&ch_ref, 0, sizeof ch_ref);
    ch_ref.scale = scale;
    memset(&ch, 0, sizeof ch);
    ch.scale = (const float *)(const void *)(bs + so * 4);
    ch.period = period;
    ch.cycle = cycle;
    if (simdops_requant_check_scales(cyc, (int64_t)cycle, &below_one, &err))
        below_one = 0;
    ch.scales_below_one = below_one;
    ((simdops_requant_pc_fn)t->ref)(x, want, n, with_bias ? bias : NULL, &ch_ref, &p);
    ((simdops_requant_pc_fn)t->fn)((const int32_t *)(const void *)(bx + xo * 4), by + yo, n,
                                   with_bias ? (const int32_t *)(const void *)(bb + bo * 4) : NULL,
                                   &ch, &p);
    if (memcmp(by + yo, want, n * (size_t)os) == 0 && canary_ok(by, 0, yo) &&
        canary_ok(by, yo + n * (size_t)os, yo + n * (size_t)os + TRAIL)) {
        g_pass++;
    } else {
        fail_head(t, with_bias ? "cycle bias" : "cycle no-bias", n, xo * 4, yo);
        if (printing())
            printf("  cycle %zu period %zu mode %d below_one %d\n", cycle, period, p.fp_mode,
                   below_one);
    }
    free_buf(want);
    free_buf(by);
    free_buf(bx);
    free_buf(bb);
    free_buf(bs);
    free_buf((unsigned char *)bias);
    free_buf((unsigned char *)x);
    free_buf((unsigned char *)cyc);
    free_buf((unsigned char *)scale);
}

static void test_fp_cycles(const target *t)
{
    static const size_t CYCLES[] = {16, 32, 48, 64, 80, 96, 128, 144, 192, 240, 256, 272, 512};
    for (size_t c = 0; c < sizeof(CYCLES) / sizeof(CYCLES[0]); c++)
        for (int rep = 0; rep < 24; rep++) {
            const size_t cycle = CYCLES[c], period = cycle * (1 + below(rep < 12 ? 3 : 12));
            const size_t n = rep % 3 == 0 ? below((uint32_t)(4 * period)) : below(3 * 64) + 2 * period;
            fam_cycle_case(t, cycle, period, n, rep % 2);
        }
}

void test_requant_families(const target *t)
{
    int fam, pc;
    simdops_requant_params p;
    if (!family_of(t->kind, &fam, &pc)) {
        fail_head(t, "no line of SIMDOPS_REQUANT_FAMILIES names this entry", 0, 0, 0);
        printf("\n");
        return;
    }
    if (pc && fam != SIMDOPS_ROUNDING_FP) /* the long calls (marked entries only) */
        test_requant_pc_restarts(t, fam);
    if (fam == SIMDOPS_ROUNDING_DOUBLE) { /* its own test: the derived arrays, the flags */
        test_requant(t);
        return;
    }
    for (size_t n = 0; n <= MAXN; n++) {
        for (int rep = 0; rep < 6; rep++) {
            size_t offs[6];
            for (int k = 0; k < 6; k++)
                offs[k] = g_elem_aligned ? (below(16) * 4) % 64 : below(64);
            if (g_elem_aligned || t->is_scalar)
                offs[5] -= offs[5] % (size_t)RQ_SIZE[t->idx];
            for (int k = 0; k < 5; k++)
                    offs[k] -= offs[k] % 4; /* int32/float32 inputs stay element-aligned */
            fam_params(fam, t->idx, &p);
            fam_case(t, &p, n, offs, rep % 2);
        }
    }
    if (fam == SIMDOPS_ROUNDING_FP && pc)
        test_fp_cycles(t);
    if (fam == SIMDOPS_ROUNDING_FP)
        test_requant_fold_plan(t, pc);
    if (fam == SIMDOPS_ROUNDING_DOUBLE_TIES_UP) /* the x86 float32 fast path's domain */
        test_requant_fast_domain(t, 1);
    if (fam == SIMDOPS_ROUNDING_SINGLE || fam == SIMDOPS_ROUNDING_SINGLE_AWAY)
        test_requant_single_fast(t, fam, pc);
    /* every shift of the family's range with the extreme multipliers */
    if (fam != SIMDOPS_ROUNDING_FP) {
        static const int32_t MS[] = {INT32_MIN, INT32_MAX, 1 << 30, 1 << 23, 0, -1, 12345677};
        int32_t lo, hi;
        simdops_requant_shift_range(fam, &lo, &hi);
        for (int32_t sh = lo; sh <= hi; sh++) {
            for (size_t mi = 0; mi < sizeof(MS) / sizeof(MS[0]); mi++) {
                size_t offs[6] = {0, 4, 8, 12, 16, below(8)};
                fam_params(fam, t->idx, &p);
                p.multiplier = MS[mi];
                p.left_shift = sh < 0 ? -sh : 0;
                p.right_shift = sh > 0 ? sh : 0;
                fam_case(t, &p, 37 + below(60), offs, (int)(mi % 2));
            }
        }
    }
}
