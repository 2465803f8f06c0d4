/* Kernel harness: the per-channel double-rounding and ties-up entries' long
 * calls, whose arrays and bias restart every ch->period elements (the driver's
 * one call per span on a table with requant_pc_restarts), against the scalar
 * tier given the vectors written out element by element (no period): periods
 * of any channel count (not only multiples of 16) and of fewer or more than a
 * block, calls shorter than a period (one row), longer, and ending mid-piece,
 * unaligned x and y, inputs near the fast path's rounding boundaries, and now
 * and then a channel outside its domain (the integer kernel's pieces). */
#include "harness.h"
#include "dispatch/dispatch.h"
#include "driver/requant_channels.h"

enum { RS_MAXC = 80, RS_MAXP = 7 * RS_MAXC, RS_MAXN = 4 * RS_MAXP + 70 };

/* 1 when t is the entry its tier's table holds and that table restarts */
static int restarts_of(const target *t)
{
    for (int i = 0; i < simdops_tier_count(); i++) {
        const simdops_kernel_table *tb = simdops_tier_table(i);
        if (tb && strcmp(simdops_tier_name(i), t->tier) == 0)
            return tb->requant_pc_restarts &&
                   simdops_kernel_get(tb, t->kind, t->idx) == (simdops_any_fn)t->fn;
    }
    return 0;
}

static void restart_case(const target *t, const simdops_requant_params *p, size_t channels,
                         size_t period, size_t at, size_t n, const int32_t *mult_c,
                         const int32_t *shift_c, const int32_t *bias_c, const int32_t *x,
                         int with_bias)
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
    simdops_requant_channels_init_strided(&base, store, stride, mult_c, shift_c, channels,
                                          len / channels);
    simdops_requant_channels_init_fast(&base, store + 5 * stride, stride, channels, len,
                                       p->offset, p->min, p->max);
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
            printf("  family=%d channels=%zu period=%zu at=%zu offset=%d min=%d max=%d\n",
                   p->family, channels, period, at, p->offset, p->min, p->max);
        report_diff(x, want, yb + yo, n, 4, os);

    }
    free_buf(want);
    free_buf(xb);
    free_buf(yb);
}

void test_requant_pc_restarts(const target *t, int ties_up)
{
    static int32_t x[RS_MAXN];
    int32_t mult[RS_MAXC], shift[RS_MAXC], bias[RS_MAXC];
    simdops_requant_params p, q[RS_MAXC];
    if (!restarts_of(t))
        return;
    memset(&p, 0, sizeof p);
    p.family = ties_up ? SIMDOPS_ROUNDING_DOUBLE_TIES_UP : SIMDOPS_ROUNDING_DOUBLE;
    for (int rep = 0; rep < 300; rep++) {
        /* channels: any count, now and then a multiple of 16; periods of one to
         * seven rows (fewer than a block's 64 elements too) */
        const size_t channels = chance(20) ? 16 * (1 + below(RS_MAXC / 16))
                                           : 1 + (size_t)below(RS_MAXC);
        const size_t period = channels * (1 + (size_t)below(7)), at = below((uint32_t)channels);
        const int uncovered = rep % 10 == 9;
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
        fast_rq_params(t->idx, &p);
        p.right_shift = 1 + (int32_t)below(23);
        if (p.offset > 65536 || p.offset < -65536)
            p.offset = (int32_t)below(601) - 300;
        for (size_t k = 0; k < channels; k++) {
            q[k] = p;
            fast_rq_params(t->idx, &q[k]);
            mult[k] = q[k].multiplier;
            shift[k] = q[k].right_shift;
            if (!uncovered && (shift[k] < 1 || shift[k] > 23))
                shift[k] = 1 + (int32_t)below(23);
            q[k].min = p.min;
            q[k].max = p.max;
            q[k].offset = p.offset;
            q[k].right_shift = shift[k];
            bias[k] = chance(50) ? 0 : (int32_t)below(7) - 3;
        }
        if (uncovered)
            mult[below((uint32_t)channels)] = chance(50) ? -(int32_t)below(1u << 30) : INT32_MIN;
        for (size_t i = 0; i < n; i++) {
            const simdops_requant_params *qi = &q[(at + i) % channels];
            x[i] = rep % 3 == 2 ? near_boundary(qi, ties_up, 1)
                   : chance(90) ? near_boundary(qi, ties_up, 0)
                                : (int32_t)(uint32_t)rnd();
        }
        restart_case(t, &p, channels, period, at, n, mult, shift, bias, x, rep % 5 != 3);
    }
}
