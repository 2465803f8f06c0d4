/* The per-channel arrays a requant call runs on: the vectors repeated to the
 * driver's period, and the arrays derived from them once per call (double
 * rounding's shifts and rounding halves, single rounding's normalised pairs)
 * that the kernels of every tier may read instead of deriving per vector. */
#include <string.h>

#include "driver/requant_channels.h"
#include "core/kernel_abi.h"
#include "kernels/requant/requant_families.h"

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
    const size_t len = n * reps + 1;
    int32_t *mult = storage, *shifts = mult + len, *left = shifts + len, *right = left + len;
    int32_t *half = right + len;
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
}

void simdops_requant_channels_init_single(simdops_requant_channels *ch, int32_t *storage,
                                          const int32_t *multiplier, const int32_t *shift,
                                          size_t n, size_t reps)
{
    const size_t len = n * reps + 1;
    int32_t *mult = storage, *shifts = mult + len, *u = shifts + len;
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
