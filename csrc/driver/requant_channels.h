/* The per-channel vectors' repetition and derived arrays (requant_channels.c),
 * built once per call by the requant driver. */
#ifndef SIMDOPS_REQUANT_CHANNELS_H
#define SIMDOPS_REQUANT_CHANNELS_H

#include "core/kernel_abi.h"

/* dst = reps copies of src[0..n) (src may be dst: its first copy is in
 * place), then one 0 (kernels may read one element past). */
void simdops_repeat_words(int32_t *dst, const int32_t *src, size_t n, size_t reps);

/* int32 words simdops_requant_channels_init stores for arrays of n elements. */
static inline size_t simdops_requant_channels_words(size_t n) { return 5 * (n + 1); }

/* ch with derived arrays from n multipliers and shifts (range-checked), all
 * repeated reps times (arrays of n * reps elements, for rows of several
 * channel periods) and held in storage (simdops_requant_channels_words(n *
 * reps) int32). */
void simdops_requant_channels_init(simdops_requant_channels *ch, int32_t *storage,
                                   const int32_t *multiplier, const int32_t *shift, size_t n,
                                   size_t reps);
/* The same with the five arrays stride words apart (stride >= n * reps + 1):
 * the driver places each on x's offset within a 64-byte line. */
void simdops_requant_channels_init_strided(simdops_requant_channels *ch, int32_t *storage,
                                           size_t stride, const int32_t *multiplier,
                                           const int32_t *shift, size_t n, size_t reps);
/* int32 words simdops_requant_channels_init_fast stores for arrays of n
 * elements stride words apart (stride >= n + 1) */
static inline size_t simdops_requant_channels_fast_words(size_t stride) { return 2 * stride; }

/* Double rounding's (and ties-up's: the same arrays; single rounding's after
 * simdops_requant_channels_init_single: mu only, h 0) fast-path arrays (after the derived arrays of the same n
 * elements, n a multiple of channels): each element's float32 mu and h
 * (rq_fast_params.h), two arrays stride words apart in storage, when every
 * channel and the call's offset and bounds are covered; else ch->fast_mult
 * stays NULL. Channels are derived once, then repeated. */
void simdops_requant_channels_init_fast(simdops_requant_channels *ch, int32_t *storage,
                                        size_t stride, size_t channels, size_t n, int32_t offset,
                                        int32_t lo, int32_t hi);
/* Single rounding's arrays derived once per call (the driver, from 4 rows on):
 * each channel's pair normalised to a total shift t = 31 + shift >= 32 where
 * m << (32 - t) fits int32 (the same quotient), in mult and shift; right holds
 * u = t - 32, the arithmetic shift of the 64-bit product's high word; left and
 * half stay NULL. general: some channel could not be normalised or has u == 0
 * (its rounding term 2^31 lies in the low word). Three arrays stride words
 * apart (stride >= n * reps + 1). */
void simdops_requant_channels_init_single(simdops_requant_channels *ch, int32_t *storage,
                                          size_t stride, const int32_t *multiplier,
                                          const int32_t *shift, size_t n, size_t reps);

#endif
