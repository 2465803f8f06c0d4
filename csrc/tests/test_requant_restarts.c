/* Kernel harness: the fixed-point families' per-channel entries' long calls,
 * whose arrays and bias restart every ch->period elements (the driver's one
 * call per span on the entries the kernel table marks, requant_pc_restarts;
 * every marked entry of every tier comes here, test_requant_families), against
 * the scalar tier given the vectors written out element by element (no
 * period): periods of any channel count (not only multiples of 16) and of fewer
 * or more than a block, calls shorter than a period (one row), longer, and
 * ending mid-piece, unaligned x and y, the arrays the driver builds for the
 * family (double rounding and ties-up: the derived arrays and the fast path's;
 * single rounding: the normalised pairs and the fast path's; floor, and now
 * and then the others: the vectors repeated), inputs near the family's
 * rounding boundaries, and now and then a channel outside the fast path's
 * domain (the integer kernel's pieces). */
#include "harness.h"
#include "dispatch/dispatch.h"
#include "driver/requant_channels.h"

enum { RS_MAXC = 80, RS_MAXP = 7 * RS_MAXC, RS_MAXN = 4 * RS_MAXP + 70 };

/* 1 when t is the entry its tier's table holds and the table marks it */
static int restarts_of(const target *t)
{
    for (int i = 0; i < simdops_tier_count(); i++) {
        const simdops_kernel_table *tb = simdops_tier_table(i);
        if (tb && strcmp(simdops_tier_name(i), t->tier) == 0)
            return tb->requant_pc_restarts[t->kind][t->idx] &&
                   simdops_kernel_get(tb, t->kind, t->idx) == (simdops_any_fn)t->fn;
    }
    return 0;
}

/* the arrays the driver builds (setup_channels) */
enum { RS_PLAIN, RS_DERIVED, RS_SINGLE };

/* The flag goes with the kernel: every tier whose table holds t's function
 * for t's slot (its own, or inherited) marks it alike. */
static void restart_flags_agree(const target *t)
{
    int want = -1;
    for (int i = 0; i < simdops_tier_count(); i++) {
        const simdops_kernel_table *tb = simdops_tier_table(i);
        int flag;
        if (!tb || simdops_kernel_get(tb, t->kind, t->idx) != (simdops_any_fn)t->fn)
            continue;
        flag = tb->requant_pc_restarts[t->kind][t->idx];
        if (want < 0) {
            want = flag;
        } else if (flag != want) {
            fail_head(t, "restart flag differs between tiers holding the kernel", 0, 0, 0);
            if (printing())
                printf("  tier %s marks it %d, a lower tier %d\n", simdops_tier_name(i), flag,
                       want);
            return;
        }
    }
    g_pass++;
}

static void restart_case(const target *t, const simdops_requant_params *p, size_t channels,
                         size_t period, size_t at, size_t n, const int32_t *mult_c,
                         const int32_t *shift_c, const int32_t *bias_c, const int32_t *x,
                         int with_bias, int arrays)
{
    static int32_t mult_e[RS_MAXN], shift_e[RS_MAXN], bias_e[RS_MAXN];
    static int32_t store[7 * (RS_MAXP + RS_MAXC + 16)], bias_rep[RS_MAXP + RS_MAXC + 16];
    const int os = RQ_SIZE[t->idx];
    const size_t len = period + channels, stride = len + 1;
    const size_t xo = adjust_off(t, rand_off(), 4), yo = adjust_off(t, rand_off(), os);
    unsigned char *want = alloc_buf(n * (size_t)os), *xb = alloc_buf(xo + n * 4),
                  *yb = alloc_buf(yo + n * (size_t)os + TRAIL);
    simdops_requant_channels base, ch, ref;
    int ok;
    for (size_t i = 0; i < n; i++) { /* element i is channel (at + i) % channels */
        mult_e[i] = mult_c[(at + i) % channels];
        shift_e[i] = shift_c[(at + i) % channels];
        bias_e[i] = bias_c[(at + i) % channels];
    }
    memset(&ref, 0, sizeof ref);
    ref.mult = mult_e;
    ref.shift = shift_e;
    ((simdops_requant_pc_fn)t->ref)(x, want, n, with_bias ? bias_e : NULL, &ref, p);
    /* the driver's arrays: a period and one more row of channels, read from at
     * (base zeroed first, as the driver's: the init leaves scale64 alone) */
    memset(&base, 0, sizeof base);
    if (arrays == RS_PLAIN) {
        simdops_repeat_words(store, mult_c, channels, len / channels);
        simdops_repeat_words(store + stride, shift_c, channels, len / channels);
        base.mult = store;
        base.shift = store + stride;
    } else {
        if (arrays == RS_SINGLE)
            simdops_requant_channels_init_single(&base, store, stride, mult_c, shift_c,
                                                 channels, len / channels);
        else
            simdops_requant_channels_init_strided(&base, store, stride, mult_c, shift_c,
                                                  channels, len / channels);
        simdops_requant_channels_init_fast(&base, store + 5 * stride, stride, channels, len,
                                           p->offset, p->min, p->max);
    }
    simdops_repeat_words(bias_rep, bias_c, channels, len / channels);
    ch = simdops_requant_channels_at(&base, at);
    ch.period = period;
    memcpy(xb + xo, x, n * 4);
    ((simdops_requant_pc_fn)t->fn)((const int32_t *)(const void *)(xb + xo), yb + yo, n,
                                   with_bias ? bias_rep + at : NULL, &ch, p);
    ok = memcmp(yb + yo, want, n * (size_t)os) == 0 && canary_ok(yb, 0, yo) &&
         canary_ok(yb, yo + n * (size_t)os, yo + n * (size_t)os + TRAIL) &&
         memcmp(xb + xo, x, n * 4) == 0;
    if (ok) {
        g_pass++;
    } else {
        fail_head(t, base.fast_mult ? "restarts (fast arrays)" : "restarts", n, xo, yo);
        if (printing())
            printf("  family=%d arrays=%d channels=%zu period=%zu at=%zu offset=%d min=%d "
                   "max=%d\n",
                   p->family, arrays, channels, period, at, p->offset, p->min, p->max);
        report_diff(x, want, yb + yo, n, 4, os);
    }
    free_buf(want);
    free_buf(xb);
    free_buf(yb);
}

/* Channel k's pair and p's call parameters for family: double rounding and
 * ties-up inside the float32 fast path's domain (shift 1..23), single rounding
 * with t = 31 + shift >= 33 (the normalised pairs' fast form), floor anywhere in
 * its range; q[k] is p with channel k's pair (the inputs' draws). */
static void restart_params(int family, int out, size_t channels, int uncovered,
                           simdops_requant_params *p, simdops_requant_params *q, int32_t *mult,
                           int32_t *shift)
{
    const int ties_up = family == SIMDOPS_ROUNDING_DOUBLE_TIES_UP;
    if (family == SIMDOPS_ROUNDING_DOUBLE || ties_up) {
        fast_rq_params(out, p);
        p->right_shift = 1 + (int32_t)below(23);
        if (p->offset > 65536 || p->offset < -65536)
            p->offset = (int32_t)below(601) - 300;
    } else if (family == SIMDOPS_ROUNDING_FLOOR) {
        fam_params(family, out, p);
    } else {
        sf_params(family, out, p);
    }
    p->family = family;
    for (size_t k = 0; k < channels; k++) {
        simdops_requant_params d;
        if (family == SIMDOPS_ROUNDING_DOUBLE || ties_up) {
            fast_rq_params(out, &d);
            mult[k] = d.multiplier;
            shift[k] = d.right_shift;
            if (!uncovered && (shift[k] < 1 || shift[k] > 23))
                shift[k] = 1 + (int32_t)below(23);
        } else if (family == SIMDOPS_ROUNDING_FLOOR) {
            mult[k] = chance(30) ? p->multiplier : sf_multiplier();
            shift[k] = chance(30) ? p->right_shift : fam_shift(family);
        } else {
            int tt = chance(50) ? 31 + p->right_shift : sf_total_shift();
            mult[k] = chance(30) ? p->multiplier : sf_multiplier();
            tt = uncovered && chance(20) ? 31 + fam_shift(family) /* any: t < 33 too */
                 : tt < 33              ? 33 + (int)below(29)
                                        : tt;
            shift[k] = tt - 31;
        }
        q[k] = *p; /* the call's offset and bounds, the channel's pair */
        q[k].multiplier = mult[k];
        q[k].left_shift = shift[k] < 0 ? -shift[k] : 0;
        q[k].right_shift = shift[k] > 0 ? shift[k] : 0;
    }
    if (uncovered && (family == SIMDOPS_ROUNDING_DOUBLE || ties_up)) {
        const size_t k = below((uint32_t)channels);
        mult[k] = q[k].multiplier = chance(50) ? -(int32_t)below(1u << 30) : INT32_MIN;
    }
}

/* an input near channel q's rounding boundary (floor: the family's draw) */
static int32_t restart_input(int family, const simdops_requant_params *q, int in_range)
{
    if (chance(10))
        return (int32_t)(uint32_t)rnd();
    if (family == SIMDOPS_ROUNDING_DOUBLE || family == SIMDOPS_ROUNDING_DOUBLE_TIES_UP)
        return near_boundary(q, family == SIMDOPS_ROUNDING_DOUBLE_TIES_UP, in_range);
    if (family == SIMDOPS_ROUNDING_FLOOR)
        return fam_input(q, 0.0f);
    return sf_near_tie(q->multiplier, 31 + q->right_shift - q->left_shift, q, in_range);
}

void test_requant_pc_restarts(const target *t, int family)
{
    static int32_t x[RS_MAXN];
    int32_t mult[RS_MAXC], shift[RS_MAXC], bias[RS_MAXC];
    simdops_requant_params p, q[RS_MAXC];
    const int derives = family == SIMDOPS_ROUNDING_DOUBLE ||
                        family == SIMDOPS_ROUNDING_DOUBLE_TIES_UP;
    const int single = family == SIMDOPS_ROUNDING_SINGLE ||
                       family == SIMDOPS_ROUNDING_SINGLE_AWAY;
    restart_flags_agree(t);
    if (!restarts_of(t))
        return;
    memset(&p, 0, sizeof p);
    for (int rep = 0; rep < 300; rep++) {
        /* channels: any count, now and then a multiple of 16; periods of one to
         * seven rows (fewer than a block's 64 elements too) */
        const size_t channels = chance(20) ? 16 * (1 + below(RS_MAXC / 16))
                                           : 1 + (size_t)below(RS_MAXC);
        const size_t period = channels * (1 + (size_t)below(7)), at = below((uint32_t)channels);
        const int uncovered = rep % 10 == 9;
        /* the driver's arrays for the family; now and then the vectors alone */
        const int arrays = chance(20) ? RS_PLAIN
                           : derives  ? RS_DERIVED
                           : single   ? RS_SINGLE
                                      : RS_PLAIN;
        size_t n;
        switch (rep % 4) {
        case 0: /* one row, or less than a period */
            n = 1 + below((uint32_t)period);
            break;
        case 1: /* whole periods */
            n = period * (1 + below(4));
            break;
        default: /* any length up to four periods and a bit */
            n = below((uint32_t)(4 * period + 70));
        }
        restart_params(family, t->idx, channels, uncovered, &p, q, mult, shift);
        for (size_t k = 0; k < channels; k++)
            bias[k] = chance(50) ? 0 : (int32_t)below(7) - 3;
        for (size_t i = 0; i < n; i++)
            x[i] = restart_input(family, &q[(at + i) % channels], rep % 3 == 2);
        restart_case(t, &p, channels, period, at, n, mult, shift, bias, x, rep % 5 != 3, arrays);
    }
}
