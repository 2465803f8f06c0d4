/* Kernel harness: the requant entries (per tensor and per channel) against
 * the scalar tier, with extreme multipliers, shifts, offsets and bounds. */
#include "harness.h"

/* ---------------------------------------------------------------- requant */
static int32_t s32(uint64_t bits) { return (int32_t)(uint32_t)bits; }

/* the per-channel signature: double rounding's or ties-up's (the fast-domain
 * tests below serve both families) */
static int rq_pc_kind(int kind)
{
    return kind == K_REQUANT_PC || kind == SIMDOPS_KE_requant_ties_up_pc;
}

static int32_t edge_i32(void)
{
    static const int32_t E[] = {INT32_MIN, INT32_MAX, 0, 1, -1, INT32_MIN + 1, INT32_MAX - 1,
                                1 << 30, -(1 << 30), 255, 256, -128, -129, 32767, -32768};
    return E[below(sizeof(E) / sizeof(E[0]))];
}

static int32_t random_multiplier(void)
{
    static const int32_t M[] = {INT32_MIN, INT32_MAX, 0, 1, -1, 1 << 30, -(1 << 30),
                                1518500250, INT32_MIN + 1, 1 << 29};
    if (chance(40))
        return M[below(sizeof(M) / sizeof(M[0]))];
    return chance(50) ? s32(rnd()) : (int32_t)((1u << 30) + below(1u << 30));
}

static int32_t random_shift(void)
{
    static const int32_t S[] = {0, 1, 31, -1, -31, 2, 30, -30, 16, -16};
    return chance(50) ? S[below(sizeof(S) / sizeof(S[0]))] : (int32_t)below(63) - 31;
}

static int32_t random_offset(void)
{
    static const int32_t O[] = {INT32_MIN, INT32_MAX, 0, 128, -128, 1, -1, INT32_MIN + 100,
                                INT32_MAX - 100, 32768};
    if (chance(50))
        return O[below(sizeof(O) / sizeof(O[0]))];
    return chance(50) ? (int32_t)below(601) - 300 : s32(rnd());
}

/* min/max as api.c turns ACL's (min, max) into kernel bounds, or raw equal
 * bounds (the kernel then outputs that constant). */
static void random_bounds(int out, int32_t *lo, int32_t *hi)
{
    int32_t a = RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    int32_t b = RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    switch (below(5)) {
    case 0: *lo = RQ_LO[out]; *hi = RQ_HI[out]; break; /* min == max in ACL: no clamp */
    case 1: *lo = *hi = a; break;                       /* a one-value range */
    case 2: *lo = RQ_LO[out]; *hi = a; break;
    default: *lo = a < b ? a : b; *hi = a < b ? b : a; break;
    }
}

/* x values near RDBPOT ties of q = SRDHM(x << ls, M) for the shift e. */
static int32_t tie_value(int32_t m, int e)
{
    uint32_t k = (uint32_t)rnd();
    int64_t t = (int64_t)(k >> (e + 1 < 32 ? e + 1 : 31)) * ((int64_t)1 << e);
    int64_t d = (int64_t)below(3) - 1;
    if (e > 0)
        t += (int64_t)1 << (e - 1);
    if (chance(50))
        t = -t;
    t += d;
    if (m == (1 << 30))
        t *= 2; /* SRDHM(a, 2^30) = a / 2 rounded */
    else if (m == INT32_MIN)
        t = -t;
    return simdops_wrap32(t);
}

static void gen_rq_input(int32_t *x, size_t n, int32_t m, int e, int mixi)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = below(100);
        if (mixi % 3 == 0 ? r < 60 : r < 20)
            x[i] = s32(rnd());
        else if (r < 70)
            x[i] = tie_value(m, e);
        else if (r < 85)
            x[i] = edge_i32();
        else
            x[i] = (int32_t)below(2001) - 1000;
    }
}

static void gen_bias(int32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = chance(20) ? edge_i32() : chance(50) ? (int32_t)below(2001) - 1000 : s32(rnd());
}

/* One call of t on copies at offsets offs, checked against t's reference.
 * Per channel, derived != 0 passes the derived arrays (built at the
 * multiplier's offset), else the raw multiplier and shift vectors. */
static void requant_form(const target *t, const simdops_requant_params *p, const int32_t *x,
                         const int32_t *bias, const int32_t *mult, const int32_t *shift, size_t n,
                         const size_t offs[5], int derived)
{
    const int os = RQ_SIZE[t->idx], pc = rq_pc_kind(t->kind);
    const size_t ib = n * 4, ob = n * (size_t)os;
    unsigned char *want = alloc_buf(ob), *buf[5] = {NULL, NULL, NULL, NULL, NULL};
    const void *src[4] = {x, bias, derived ? NULL : mult, derived ? NULL : shift};
    size_t off[5];
    simdops_requant_channels ch, ch_ref;
    int ok;
    memset(&ch, 0, sizeof ch);
    if (pc) {
        memset(&ch_ref, 0, sizeof ch_ref);
        ch_ref.mult = mult;
        ch_ref.shift = shift;
        ((simdops_requant_pc_fn)t->ref)(x, want, n, bias, &ch_ref, p);
    } else
        ((simdops_requant_fn)t->ref)(x, want, n, bias, p);
    for (int k = 0; k < 5; k++)
        off[k] = adjust_off(t, offs[k], k == 4 ? os : 4);
    for (int k = 0; k < 4; k++) {
        if (!src[k])
            continue;
        buf[k] = alloc_buf(off[k] + ib);
        memcpy(buf[k] + off[k], src[k], ib);
    }
    buf[4] = alloc_buf(off[4] + ob + TRAIL);
#define ARG(k, T) (buf[k] ? (const T *)(const void *)(buf[k] + off[k]) : NULL)
    if (pc && derived) { /* int32-aligned, as C writes them */
        off[2] -= off[2] % 4;
        int32_t *store;
        buf[2] = alloc_buf(off[2] + (simdops_requant_channels_words(n) +
                                     simdops_requant_channels_fast_words(n + 1)) * 4);
        store = (int32_t *)(void *)(buf[2] + off[2]);
        simdops_requant_channels_init(&ch, store, mult, shift, n, 1);
        /* the AVX-512 fast path's arrays, as the driver builds them (double rounding, ties-up) */
        simdops_requant_channels_init_fast(&ch, store + simdops_requant_channels_words(n), n + 1,
                                           n, n, p->offset, p->min, p->max);
    } else if (pc) {
        ch.mult = ARG(2, int32_t);
        ch.shift = ARG(3, int32_t);
    }
    if (pc)
        ((simdops_requant_pc_fn)t->fn)(ARG(0, int32_t), buf[4] + off[4], n, ARG(1, int32_t),
                                       &ch, p);
    else
        ((simdops_requant_fn)t->fn)(ARG(0, int32_t), buf[4] + off[4], n, ARG(1, int32_t), p);
#undef ARG
    ok = memcmp(buf[4] + off[4], want, ob) == 0 && canary_ok(buf[4], 0, off[4]) &&
         canary_ok(buf[4], off[4] + ob, off[4] + ob + TRAIL);
    for (int k = 0; k < 4; k++)
        if (src[k] && memcmp(buf[k] + off[k], src[k], ib) != 0)
            ok = 0;
    if (ok) {
        g_pass++;
    } else {
        fail_head(t, bias ? (derived ? "bias derived" : "bias") : (derived ? "derived" : "no-bias"),
                  n, off[0], off[4]);
        report_diff(x, want, buf[4] + off[4], n, 4, os);
        if (printing()) {
            size_t i = 0;
            while (i + 1 < n && get_elem(want, i, os) == get_elem(buf[4] + off[4], i, os))
                i++;
            printf("  params M=%d ls=%d rs=%d offset=%d min=%d max=%d", p->multiplier,
                   p->left_shift, p->right_shift, p->offset, p->min, p->max);
            if (n)
                printf(" bias[i]=%d M[i]=%d shift[i]=%d", bias ? bias[i] : 0, mult ? mult[i] : 0,
                       shift ? shift[i] : 0);
            printf("\n");
        }
    }
    for (int k = 0; k < 5; k++)
        free_buf(buf[k]);
    free_buf(want);
}

static void requant_case(const target *t, const simdops_requant_params *p, const int32_t *x,
                         const int32_t *bias, const int32_t *mult, const int32_t *shift, size_t n,
                         const size_t offs[5])
{
    requant_form(t, p, x, bias, mult, shift, n, offs, 0);
    if (rq_pc_kind(t->kind))
        requant_form(t, p, x, bias, mult, shift, n, offs, 1);
}

static void random_rq_params(int out, simdops_requant_params *p, int *e)
{
    int32_t sh = random_shift();
    p->multiplier = random_multiplier();
    p->left_shift = sh < 0 ? -sh : 0;
    p->right_shift = sh > 0 ? sh : 0;
    p->offset = random_offset();
    random_bounds(out, &p->min, &p->max);
    *e = p->right_shift;
}

/* Parameters inside the AVX2/AVX-512 float32 fast path's domain
 * (rq_fast_x86.h): M > 0, a right shift of 1..23, a small offset, with now and
 * then a neighbour just outside it (e = 0 or 24, offsets past 65536). */
void fast_rq_params(int out, simdops_requant_params *p)
{
    static const int32_t MS[] = {1 << 30, INT32_MAX, 1518500250, 1125899907, (1 << 30) + 1};
    p->multiplier = chance(30) ? MS[below(5)] : (int32_t)((1u << 30) + below(1u << 30));
    if (chance(10))
        p->multiplier = 1 + (int32_t)below(1u << 30); /* small multipliers too */
    p->left_shift = 0;
    p->right_shift = chance(5) ? (chance(50) ? 0 : 24) : 1 + (int32_t)below(23);
    p->offset = chance(5) ? (chance(50) ? 65536 : -65537) : (int32_t)below(601) - 300;
    random_bounds(out, &p->min, &p->max);
}

/* x with x*M/2^(31+e) within a few units of k + 1/2 + s*2^-(e+1) - 1/2 (the
 * rounding boundaries of RDBPOT(SRDHM(x, M), e); ties-up: s = +1 on every
 * lane), k near [lo - offset, hi - offset] (the unclamped values and the clamp
 * edges), or near the float32 path's overflow (|x*M/2^(31+e)| ~ 2^17); in_range:
 * instead of the overflow, |k| up to 30,000 (beyond the bounds, unclamped, but
 * converted in range: AVX-512 clamps only after a lane out of range). */
int32_t near_boundary(const simdops_requant_params *p, int ties_up, int in_range)
{
    const int e = p->right_shift;
    const double scale = ldexp((double)p->multiplier, -31 - e); /* v per unit of x */
    double k, x0;
    int64_t xi;
    if (in_range && chance(30))
        k = (chance(50) ? 1 : -1) * (double)below(30000);
    else if (!in_range && chance(10))
        k = (chance(50) ? 1 : -1) * (131072.0 + (double)below(64) - 32);
    else
        k = (double)p->min - p->offset - 3 + (double)below((uint32_t)(p->max - p->min + 7));
    /* boundary of floor(v + 1/2 + s 2^-(e+1)): v = k - 1/2 - s 2^-(e+1) */
    k -= 0.5 + (ties_up || k > 0 ? 1 : -1) * ldexp(1.0, -(e + 1));
    x0 = k / scale;
    if (!(x0 > -2147483648.0 && x0 < 2147483647.0))
        return edge_i32();
    xi = (int64_t)x0 + (int64_t)below(7) - 3;
    return simdops_wrap32(xi);
}

/* Per channel: channels inside the fast path's domain (now and then one just
 * outside it, which turns the path off for the call), inputs near each one's
 * boundaries. */
static void test_requant_pc_fast_domain(const target *t, int ties_up)
{
    int32_t x[MAXN], bias[MAXN], mult[MAXN], shift[MAXN];
    simdops_requant_params p, q;
    memset(&p, 0, sizeof p);
    p.family = ties_up ? SIMDOPS_ROUNDING_DOUBLE_TIES_UP : SIMDOPS_ROUNDING_DOUBLE;
    for (int rep = 0; rep < 400; rep++) {
        size_t n = 64 + (size_t)below(MAXN - 63), offs[5];
        const int uncovered = rep % 10 == 9;
        for (int k = 0; k < 5; k++)
            offs[k] = rand_off();
        fast_rq_params(t->idx, &p);
        p.right_shift = 1 + (int32_t)below(23);
        if (p.offset > 65536 || p.offset < -65536)
            p.offset = (int32_t)below(601) - 300;
        for (size_t i = 0; i < n; i++) {
            q = p;
            fast_rq_params(t->idx, &q);
            mult[i] = q.multiplier;
            shift[i] = chance(70) ? q.right_shift : p.right_shift;
            if (!uncovered && (shift[i] < 1 || shift[i] > 23))
                shift[i] = 1 + (int32_t)below(23);
            q.min = p.min;
            q.max = p.max;
            q.offset = p.offset;
            q.multiplier = mult[i];
            q.right_shift = shift[i];
            x[i] = rep % 3 == 2  ? near_boundary(&q, ties_up, 1)
                   : chance(85) ? near_boundary(&q, ties_up, 0)
                   : chance(50) ? edge_i32()
                                : s32(rnd());
        }
        if (uncovered)
            mult[below((uint32_t)n)] = chance(50) ? -(int32_t)below(1u << 30) : INT32_MIN;
        for (size_t i = 0; i < n; i++)
            bias[i] = chance(50) ? 0 : (int32_t)below(7) - 3;
        requant_case(t, &p, x, rep % 4 == 1 ? NULL : bias, mult, shift, n, offs);
    }
}

/* The fast path's domain with inputs on and near its boundaries, for double
 * rounding's entries or (ties_up) the ties-up family's. */
void test_requant_fast_domain(const target *t, int ties_up)
{
    int32_t x[MAXN], bias[MAXN];
    simdops_requant_params p;
    if (rq_pc_kind(t->kind)) {
        test_requant_pc_fast_domain(t, ties_up);
        return;
    }
    memset(&p, 0, sizeof p);
    p.family = ties_up ? SIMDOPS_ROUNDING_DOUBLE_TIES_UP : SIMDOPS_ROUNDING_DOUBLE;
    for (int rep = 0; rep < 600; rep++) {
        size_t n = 64 + (size_t)below(MAXN - 63), offs[5];
        for (int k = 0; k < 5; k++)
            offs[k] = rand_off();
        fast_rq_params(t->idx, &p);
        for (size_t i = 0; i < n; i++)
            x[i] = rep % 3 == 2  ? near_boundary(&p, ties_up, 1)
                   : chance(85) ? near_boundary(&p, ties_up, 0)
                   : chance(50) ? edge_i32()
                                : s32(rnd());
        for (size_t i = 0; i < n; i++)
            bias[i] = chance(50) ? 0 : (int32_t)below(7) - 3;
        requant_case(t, &p, x, rep % 4 == 1 ? bias : NULL, NULL, NULL, n, offs);
    }
}

void test_requant(const target *t)
{
    int32_t x[MAXN], bias[MAXN], mult[MAXN], shift[MAXN];
    simdops_requant_params p;
    const int pc = t->kind == K_REQUANT_PC;
    int e;
    for (size_t n = 0; n <= MAXN; n++) {
        for (int rep = 0; rep < 6; rep++) {
            size_t offs[5];
            for (int k = 0; k < 5; k++)
                offs[k] = rand_off();
            random_rq_params(t->idx, &p, &e);
            if (pc) {
                /* rep % 3: any channels; none that saturates or shifts left (the
                 * kernels' fast variants); and every right shift >= 1 (RQ_F_OFF16) */
                for (size_t i = 0; i < n; i++) {
                    mult[i] = chance(30) ? p.multiplier : random_multiplier();
                    shift[i] = random_shift();
                    if (rep % 3 == 0)
                        continue;
                    if (mult[i] == INT32_MIN)
                        mult[i] = INT32_MIN + 1;
                    shift[i] = shift[i] < 0 ? -shift[i] : shift[i];
                    if (rep % 3 == 2 && shift[i] == 0)
                        shift[i] = 1 + (int32_t)below(31);
                }
            }
            gen_rq_input(x, n, p.multiplier, e, rep + (int)n);
            gen_bias(bias, n);
            requant_case(t, &p, x, rep % 2 ? bias : NULL, pc ? mult : NULL, pc ? shift : NULL, n,
                         offs);
        }
    }
    /* systematic: every shift with the extreme multipliers and offsets */
    {
        static const int32_t MS[] = {INT32_MIN, INT32_MAX, 1 << 30, -(1 << 30),
                                     0,         1,         -1,      1518500250};
        static const int32_t OF[] = {0, INT32_MIN, INT32_MAX, 100, -100};
        for (int sh = -31; sh <= 31; sh++) {
            for (size_t mi = 0; mi < sizeof(MS) / sizeof(MS[0]); mi++) {
                size_t n = 37 + (size_t)below(40), offs[5];
                for (int k = 0; k < 5; k++)
                    offs[k] = rand_off();
                p.multiplier = MS[mi];
                p.left_shift = sh < 0 ? -sh : 0;
                p.right_shift = sh > 0 ? sh : 0;
                p.offset = OF[below(5)];
                random_bounds(t->idx, &p.min, &p.max);
                for (size_t i = 0; i < n; i++) {
                    mult[i] = chance(50) ? MS[mi] : random_multiplier();
                    shift[i] = chance(50) ? sh : random_shift();
                }
                gen_rq_input(x, n, p.multiplier, p.right_shift, (int)mi);
                gen_bias(bias, n);
                requant_case(t, &p, x, mi % 2 ? bias : NULL, pc ? mult : NULL, pc ? shift : NULL,
                             n, offs);
            }
        }
    }
    /* every byte offset of each pointer */
    for (size_t off = 0; off < 64; off++) {
        size_t n = off % 2 ? 130 : 23;
        size_t offs[5] = {off, (off * 7 + 1) & 63, (off * 11 + 2) & 63, (off * 13 + 3) & 63,
                          (off * 29 + 4) & 63};
        random_rq_params(t->idx, &p, &e);
        for (size_t i = 0; i < n; i++) {
            mult[i] = random_multiplier();
            shift[i] = random_shift();
        }
        gen_rq_input(x, n, p.multiplier, e, (int)off);
        gen_bias(bias, n);
        requant_case(t, &p, x, bias, pc ? mult : NULL, pc ? shift : NULL, n, offs);
        offs[4] = off;
        offs[0] = (off * 5 + 9) & 63;
        requant_case(t, &p, x, NULL, pc ? mult : NULL, pc ? shift : NULL, n, offs);
    }
    test_requant_fast_domain(t, 0);
}
