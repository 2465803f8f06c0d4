/* The per-channel arrays a requant call runs on: the vectors repeated to the
 * driver's period, and the arrays derived from them once per call (double
 * rounding's shifts and rounding halves, single rounding's normalised pairs)
 * that the kernels of every tier may read instead of deriving per vector. */
#include <string.h>

#include "driver/requant_channels.h"
#include "core/kernel_abi.h"
#include "kernels/requant/requant_families.h"
#include "kernels/requant/rq_fast_params.h"

/* dst = reps copies of src[0..n), then one 0 (kernels may read one past). */
void simdops_repeat_words(int32_t *dst, const int32_t *src, size_t n, size_t reps)
{
    if (dst != src)
        memcpy(dst, src, n * sizeof(int32_t));
    for (size_t r = 1; r < reps; r++)
        memcpy(dst + r * n, dst, n * sizeof(int32_t));
    dst[n * reps] = 0;
}

void simdops_requant_channels_init(simdops_requant_channels *ch, int32_t *storage,
                                   const int32_t *multiplier, const int32_t *shift, size_t n,
                                   size_t reps)
{
    simdops_requant_channels_init_strided(ch, storage, n * reps + 1, multiplier, shift, n, reps);
}

void simdops_requant_channels_init_strided(simdops_requant_channels *ch, int32_t *storage,
                                           size_t stride, const int32_t *multiplier,
                                           const int32_t *shift, size_t n, size_t reps)
{
    int32_t *mult = storage, *shifts = mult + stride, *left = shifts + stride;
    int32_t *right = left + stride, *half = right + stride;
    int32_t any = 0, min_right = 31;
    /* one period derived, then repeated: branch-free so it vectorises */
    for (size_t k = 0; k < n; k++) {
        int32_t s = shift[k], m = multiplier[k];
        left[k] = s < 0 ? -s : 0;
        right[k] = s > 0 ? s : 0;
        half[k] = (int32_t)(((uint32_t)1 << right[k]) >> 1);
        any |= left[k] | (m == INT32_MIN);
        min_right = right[k] < min_right ? right[k] : min_right;
    }
    simdops_repeat_words(mult, multiplier, n, reps);
    simdops_repeat_words(shifts, shift, n, reps);
    simdops_repeat_words(left, left, n, reps);
    simdops_repeat_words(right, right, n, reps);
    simdops_repeat_words(half, half, n, reps);
    ch->mult = mult;
    ch->shift = shifts;
    ch->left = left;
    ch->right = right;
    ch->half = half;
    ch->general = any != 0;
    ch->min_right = min_right;
    ch->scale = NULL; /* the fixed-point arrays: no float scales, no restarts */
    ch->scales_below_one = 0;
    ch->period = 0;
    ch->cycle = 0;
    ch->fast_mult = ch->fast_h = NULL;
}

void simdops_requant_channels_init_fast(simdops_requant_channels *ch, int32_t *storage,
                                        size_t stride, size_t channels, size_t n, int32_t offset,
                                        int32_t lo, int32_t hi)
{
    float *mu = (float *)(void *)storage, *h = mu + stride;
    double tc;
    const int32_t a = rqf_window(offset, lo, hi, RQF_PC_K, 3.01, &tc);
    ch->fast_mult = ch->fast_h = NULL;
    if (!a || ch->general || channels == 0)
        return;
    for (size_t k = 0; k < channels; k++) {
        /* single rounding's derived arrays (no left): the normalised pair, no h */
        if (!ch->left) {
            h[k] = 0.0f;
            if (!rqf_single_mu(ch->mult[k], 31 + ch->shift[k], RQF_PC_K, mu + k))
                return;
        } else if (!rqf_pc_consts(ch->mult[k], ch->right[k], ch->left[k], RQF_PC_K, mu + k,
                                  h + k)) {
            return;
        }
    }
    /* float32 and int32 have one size: repeated as words */
    simdops_repeat_words((int32_t *)(void *)mu, (const int32_t *)(void *)mu, channels,
                         n / channels);
    simdops_repeat_words((int32_t *)(void *)h, (const int32_t *)(void *)h, channels,
                         n / channels);
    ch->fast_mult = mu;
    ch->fast_h = h;
    ch->fast_window = a;
    ch->fast_base = rqf_pc_base(offset, a, RQF_PC_K);
    ch->fast_tc = (float)tc;
}

void simdops_requant_channels_init_single(simdops_requant_channels *ch, int32_t *storage,
                                          size_t stride, const int32_t *multiplier,
                                          const int32_t *shift, size_t n, size_t reps)
{
    int32_t *mult = storage, *shifts = mult + stride, *u = shifts + stride;
    int general = 0;
    for (size_t k = 0; k < n; k++) {
        int32_t m = multiplier[k], s = shift[k], t;
        rqf_single_normalise(&m, &s); /* a pair it leaves keeps t < 32: general */
        t = 31 + s;
        general |= t <= 32;
        mult[k] = m;
        shifts[k] = s;
        u[k] = t > 32 ? t - 32 : 0;
    }
    simdops_repeat_words(mult, mult, n, reps);
    simdops_repeat_words(shifts, shifts, n, reps);
    simdops_repeat_words(u, u, n, reps);
    memset(ch, 0, sizeof *ch);
    ch->mult = mult;
    ch->shift = shifts;
    ch->right = u;
    ch->general = general;
}
