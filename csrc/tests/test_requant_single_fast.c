/* Kernel harness: single rounding (ties up, ties away) inside the x86 float32
 * fast path's domain (rq_fast_x86.h): a total shift t = 31 + shift in [32,
 * 62] (now and then 31, outside), any multiplier, |offset| <= 65536 (now and
 * then just past it), inputs within a few units of x of the rounding boundary
 * (x*M/2^t = k + 1/2: the window the path hands back to the integer rule; with
 * a power-of-two scale every one of them an exact tie, where the two families
 * differ), k across the bounds, in the unclamped range beyond them, and near
 * the float path's overflow. Per channel on the driver's arrays
 * (simdops_requant_channels_init_single + _init_fast), now and then with one
 * channel at t = 32 (outside: the call leaves the path). Against the scalar
 * tier. */
#include "harness.h"

static int32_t sf_s32(uint64_t bits) { return (int32_t)(uint32_t)bits; }

int32_t sf_multiplier(void)
{
    static const int32_t M[] = {1 << 30, INT32_MAX, INT32_MIN, -(1 << 30), 1518500250,
                                1099511628, 1,       -1,        (1 << 23) + 1};
    return chance(40) ? M[below(sizeof(M) / sizeof(M[0]))] : sf_s32(rnd());
}

/* a total shift: mostly in [32, 62], a power-of-two-ish scale now and then */
int sf_total_shift(void)
{
    if (chance(5))
        return 31;
    if (chance(30))
        return 40 + (int)below(10); /* scales near 2^-10 .. 2^-18 for M ~ 2^30 */
    return 32 + (int)below(31);
}

/* x with x*m/2^t within a few units of k + 1/2, k as the header says */
int32_t sf_near_tie(int32_t m, int t, const simdops_requant_params *p, int in_range)
{
    double k, x0;
    if (m == 0)
        return sf_s32(rnd());
    if (in_range && chance(30))
        k = (chance(50) ? 1 : -1) * (double)below(30000);
    else if (!in_range && chance(10)) /* AVX2's |F| ~ 2^31 (K = 14), AVX-512's (K = 16) */
        k = (chance(50) ? 1 : -1) * ((chance(50) ? 131072.0 : 32768.0) + (double)below(64) - 32);
    else
        k = (double)p->min - p->offset - 3 + (double)below((uint32_t)(p->max - p->min + 7));
    x0 = (k + 0.5) * ldexp(1.0, t) / (double)m;
    if (!(x0 > -2147483648.0 && x0 < 2147483647.0))
        return chance(50) ? INT32_MIN : INT32_MAX;
    return sf_s32((uint64_t)((int64_t)x0 + (int64_t)below(7) - 3));
}

void sf_params(int family, int out, simdops_requant_params *p)
{
    int t = sf_total_shift();
    int32_t a = RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    int32_t b = RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    memset(p, 0, sizeof *p);
    p->family = family;
    p->multiplier = sf_multiplier();
    p->right_shift = t - 31;
    p->offset = chance(5) ? (chance(50) ? 65537 : -65537)
                          : chance(10) ? (chance(50) ? 65536 : -65536) : (int32_t)below(601) - 300;
    if (chance(30)) {
        p->min = RQ_LO[out];
        p->max = RQ_HI[out];
    } else {
        p->min = a < b ? a : b;
        p->max = a < b ? b : a;
    }
}

static void sf_case(const target *t, const simdops_requant_params *p, size_t n, int32_t *x,
                    int32_t *bias, int32_t *mult, int32_t *shift, int pc)
{
    const int os = RQ_SIZE[t->idx];
    const size_t xo = rand_off() & ~(size_t)3, yo = below(64) & ~(size_t)(os - 1);
    const size_t stride = n + 1;
    unsigned char *bx = alloc_buf(xo + n * 4), *bb = alloc_buf(n * 4);
    unsigned char *by = alloc_buf(yo + n * (size_t)os + TRAIL), *want = alloc_buf(n * (size_t)os);
    int32_t *store = NULL;
    simdops_requant_channels ch, ch_ref;
    memcpy(bx + xo, x, n * 4);
    if (bias)
        memcpy(bb, bias, n * 4);
    if (pc) {
        memset(&ch_ref, 0, sizeof ch_ref);
        ch_ref.mult = mult;
        ch_ref.shift = shift;
        store = (int32_t *)(void *)alloc_buf((5 + 2) * stride * 4);
        simdops_requant_channels_init_single(&ch, store, stride, mult, shift, n, 1);
        simdops_requant_channels_init_fast(&ch, store + 5 * stride, stride, n, n, p->offset,
                                           p->min, p->max);
        ((simdops_requant_pc_fn)t->ref)(x, want, n, bias, &ch_ref, p);
        ((simdops_requant_pc_fn)t->fn)((const int32_t *)(const void *)(bx + xo), by + yo, n,
                                       bias ? (const int32_t *)(const void *)bb : NULL, &ch, p);
    } else {
        ((simdops_requant_fn)t->ref)(x, want, n, bias, p);
        ((simdops_requant_fn)t->fn)((const int32_t *)(const void *)(bx + xo), by + yo, n,
                                    bias ? (const int32_t *)(const void *)bb : NULL, p);
    }
    if (memcmp(by + yo, want, n * (size_t)os) == 0 && canary_ok(by, 0, yo) &&
        canary_ok(by, yo + n * (size_t)os, yo + n * (size_t)os + TRAIL)) {
        g_pass++;
    } else {
        fail_head(t, bias ? "single fast bias" : "single fast", n, xo, yo);
        report_diff(x, want, by + yo, n, 4, os);
        if (printing())
            printf("  M=%d t=%d offset=%d min=%d max=%d fast=%d\n", p->multiplier,
                   31 + p->right_shift, p->offset, p->min, p->max, pc ? ch.fast_mult != NULL : -1);
    }
    if (store)
        free_buf(store);
    free_buf(want);
    free_buf(by);
    free_buf(bb);
    free_buf(bx);
}

void test_requant_single_fast(const target *t, int family, int pc)
{
    int32_t x[MAXN], bias[MAXN], mult[MAXN], shift[MAXN];
    simdops_requant_params p;
    for (int rep = 0; rep < 500; rep++) {
        const size_t n = 64 + (size_t)below(MAXN - 63);
        const int with_bias = rep % 4 == 1;
        sf_params(family, t->idx, &p);
        for (size_t i = 0; i < n; i++) {
            int32_t m = p.multiplier;
            int tt = 31 + p.right_shift;
            if (pc) {
                /* each channel its own pair, t >= 33 (the derived arrays' fast form) */
                m = chance(30) ? p.multiplier : sf_multiplier();
                tt = chance(50) ? tt : sf_total_shift();
                tt = tt < 33 ? 33 + (int)below(29) : tt;
                mult[i] = m;
                shift[i] = tt - 31;
            }
            x[i] = rep % 3 == 2  ? sf_near_tie(m, tt, &p, 1)
                   : chance(85) ? sf_near_tie(m, tt, &p, 0)
                                : sf_s32(rnd());
            bias[i] = 0;
        }
        if (pc && rep % 10 == 9) /* one channel outside: the call leaves the path */
            shift[below((uint32_t)n)] = 1;
        if (with_bias) /* small biases: the inputs stay near their boundaries */
            for (size_t i = 0; i < n; i++) {
                bias[i] = chance(50) ? 0 : (int32_t)below(7) - 3;
                const int64_t v = (int64_t)x[i] - bias[i];
                x[i] = v > INT32_MAX || v < INT32_MIN ? x[i] : (int32_t)v;
            }
        sf_case(t, &p, n, x, with_bias ? bias : NULL, mult, shift, pc);
    }
}
