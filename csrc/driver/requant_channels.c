/* The per-channel arrays a requant call runs on: the vectors repeated to the
 * driver's period, and the arrays derived from them once per call (double
 * rounding's shifts and rounding halves, single rounding's normalised pairs)
 * that the kernels of every tier may read instead of deriving per vector. */
#include <string.h>

#include "driver/requant_channels.h"
#include "core/kernel_abi.h"
#include "kernels/requant/requant_families.h"
#include "kernels/requant/rq_fast_params.h"

/* SSE2 is baseline on x86-64 (no ISA flag): the derivations four channels at a
 * time; elsewhere (and for the last few channels) the scalar loops */
#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define RQC_SSE2 1
#else
#define RQC_SSE2 0
#endif

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
    size_t k = 0;
    /* one period derived (with the copies of mult and shift), then repeated */
#if RQC_SSE2
    {
        const __m128i zero = _mm_setzero_si128(), imin = _mm_set1_epi32(INT32_MIN);
        __m128i vany = zero, vmin = _mm_set1_epi32(31);
        int32_t lanes[4];
        for (; k + 4 <= n; k += 4) {
            __m128i s = _mm_loadu_si128((const __m128i *)(const void *)(shift + k));
            __m128i m = _mm_loadu_si128((const __m128i *)(const void *)(multiplier + k));
            __m128i r = _mm_and_si128(s, _mm_cmpgt_epi32(s, zero)); /* max(s, 0) */
            __m128i l = _mm_sub_epi32(r, s);                        /* max(-s, 0) */
            /* (1 << r) >> 1 for r in [0, 31]: the float 2^(r-1) (bits (126 + r) << 23)
             * truncated, 2^-1 to 0 */
            __m128i h = _mm_cvttps_epi32(
                _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(r, _mm_set1_epi32(126)), 23)));
            __m128i lt = _mm_cmpgt_epi32(vmin, r);
            _mm_storeu_si128((__m128i *)(void *)(mult + k), m);
            _mm_storeu_si128((__m128i *)(void *)(shifts + k), s);
            _mm_storeu_si128((__m128i *)(void *)(left + k), l);
            _mm_storeu_si128((__m128i *)(void *)(right + k), r);
            _mm_storeu_si128((__m128i *)(void *)(half + k), h);
            vany = _mm_or_si128(vany, _mm_or_si128(l, _mm_cmpeq_epi32(m, imin)));
            vmin = _mm_or_si128(_mm_and_si128(lt, r), _mm_andnot_si128(lt, vmin));
        }
        any = _mm_movemask_epi8(_mm_cmpeq_epi32(vany, zero)) != 0xFFFF;
        _mm_storeu_si128((__m128i *)(void *)lanes, vmin);
        for (int j = 0; j < 4; j++)
            min_right = lanes[j] < min_right ? lanes[j] : min_right;
    }
#endif
    for (; k < n; k++) {
        int32_t s = shift[k], m = multiplier[k];
        mult[k] = m;
        shifts[k] = s;
        left[k] = s < 0 ? -s : 0;
        right[k] = s > 0 ? s : 0;
        half[k] = (int32_t)(((uint32_t)1 << right[k]) >> 1);
        any |= left[k] | (m == INT32_MIN);
        min_right = right[k] < min_right ? right[k] : min_right;
    }
    simdops_repeat_words(mult, mult, n, reps);
    simdops_repeat_words(shifts, shifts, n, reps);
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

/* Double rounding's mu and h of channels [0, *done) four at a time
 * (rqf_pc_consts: mu = RN(M 2^(K-31-e)) = RN(M) 2^(K-31-e), a power-of-two
 * scaling being exact for these normal floats in every rounding mode, and h =
 * 2^(K-1-e) from its bits); *done a multiple of 4 (0 without SSE2). 0 when one
 * of those channels is not covered, else 1. */
static int fast_consts4(const simdops_requant_channels *ch, size_t n, float *mu, float *h,
                        size_t *done)
{
    size_t k = 0;
#if RQC_SSE2
    const __m128i zero = _mm_setzero_si128(), top = _mm_set1_epi32(24);
    __m128i bad = zero;
    for (; k + 4 <= n; k += 4) {
        __m128i m = _mm_loadu_si128((const __m128i *)(const void *)(ch->mult + k));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(ch->right + k));
        __m128i l = _mm_loadu_si128((const __m128i *)(const void *)(ch->left + k));
        /* covered: no left shift, M > 0, 1 <= e <= 23 */
        __m128i ok = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi32(l, zero), _mm_cmpgt_epi32(m, zero)),
                                   _mm_and_si128(_mm_cmpgt_epi32(e, zero), _mm_cmpgt_epi32(top, e)));
        __m128 scale = _mm_castsi128_ps(
            _mm_slli_epi32(_mm_sub_epi32(_mm_set1_epi32(127 + RQF_PC_K - 31), e), 23));
        __m128i hb = _mm_slli_epi32(_mm_sub_epi32(_mm_set1_epi32(127 + RQF_PC_K - 1), e), 23);
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(ok, zero));
        _mm_storeu_ps(mu + k, _mm_mul_ps(_mm_cvtepi32_ps(m), scale));
        _mm_storeu_si128((__m128i *)(void *)(h + k), hb);
    }
    if (_mm_movemask_epi8(bad))
        return 0;
#else
    (void)ch;
    (void)n;
    (void)mu;
    (void)h;
#endif
    *done = k;
    return 1;
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
    size_t k0 = 0;
    if (ch->left && !fast_consts4(ch, channels, mu, h, &k0))
        return; /* a channel not covered */
    for (size_t k = k0; k < channels; k++) {
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
