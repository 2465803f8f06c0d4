/* argmax kernels behind hardmax for avx2: the templates of hardmax_x86.h over
 * 256-bit vectors; rows/column blocks narrower than one vector use the 128-bit
 * kernels. float16 is compared as exact int16 keys (16 lanes, no conversion). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#define SIMDOPS_TIER avx2
#define HM_SSE41 1
#include "hardmax_sse.h"

static inline __m256i hm_sel256(__m256i m, __m256i a, __m256i b) /* m ? a : b */
{
    return _mm256_blendv_epi8(b, a, m);
}
static inline void hm_idx4(int64_t *p, __m256i m, __m256i rv)
{
    _mm256_storeu_si256((__m256i *)p, hm_sel256(m, rv, _mm256_loadu_si256((const __m256i *)p)));
}

/* float32 x 8 */
#define hm_f32x8_V __m256
#define hm_f32x8_M hm_f32x8_V
#define hm_f32x8_IV __m256i
#define hm_f32x8_W 8
#define hm_f32x8_SHIFT 0
#define hm_f32x8_LOAD(p) _mm256_loadu_ps(p)
#define hm_f32x8_STORE(p, v) _mm256_storeu_ps(p, v)
#define hm_f32x8_KEY(v) (v)
#define hm_f32x8_MAX(a, b) _mm256_max_ps(a, b)
#define hm_f32x8_OR(a, b) _mm256_or_ps(a, b)
#define hm_f32x8_NANINIT() _mm256_setzero_ps()
#define hm_f32x8_NAN1(u, b) _mm256_or_ps(u, _mm256_cmp_ps(b, b, _CMP_UNORD_Q))
#define hm_f32x8_NAN2(u, b0, b1) _mm256_or_ps(u, _mm256_cmp_ps(b0, b1, _CMP_UNORD_Q))
#define hm_f32x8_ANYNAN(u, m) (_mm256_movemask_ps(u) != 0)
/* v > best or v NaN (best is never NaN) */
#define hm_f32x8_TRIG(v, rv) _mm256_cmp_ps(v, rv, _CMP_NLE_UQ)
#define hm_f32x8_EQ(v, vm) _mm256_cmp_ps(v, vm, _CMP_EQ_OQ)
#define hm_f32x8_ISNAN(v) _mm256_cmp_ps(v, v, _CMP_UNORD_Q)
#define hm_f32x8_BITS(v) ((unsigned)_mm256_movemask_ps(v))
#define hm_f32x8_NARROW hm_f32x4_row
#define hm_f32x8_NARROWCOLS hm_f32x4_cols
#define hm_f32x8_BEATS(v, b) \
    _mm256_and_ps(_mm256_cmp_ps(v, b, _CMP_NLE_UQ), _mm256_cmp_ps(b, b, _CMP_ORD_Q))
#define hm_f32x8_SEL(m, a, b) _mm256_blendv_ps(b, a, m)
#define hm_f32x8_RIDX(r) _mm256_set1_epi64x(r)
static inline __m256 hm_f32x8_VMAX(__m256 v)
{
    v = _mm256_max_ps(v, _mm256_permute2f128_ps(v, v, 1));
    v = _mm256_max_ps(v, _mm256_permute_ps(v, 0x4e));
    return _mm256_max_ps(v, _mm256_permute_ps(v, 0xb1));
}
static inline void hm_f32x8_IDX(int64_t *p, __m256 m, __m256i rv)
{
    __m256i mi = _mm256_castps_si256(m);
    hm_idx4(p, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(mi)), rv);
    hm_idx4(p + 4, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(mi, 1)), rv);
}
HM_ROW(hm_f32x8, float)
HM_COLS(hm_f32x8, float)

/* float32 rows of 64 or more: one branch-free pass over blocks of 64 floats.
 * Per lane j, best_j is the largest block max seen in lane j (lane j of a
 * block's max is the max of elements 8k+j of that block) and idx_j the start
 * of the first block where it reached best_j (strict >, so ties keep the
 * earlier block). The row's max M = max_j best_j; the first element equal to
 * M lies in the block b = min{idx_j : best_j == M} (a block holding M sets
 * best_j = M in the lane holding it, at that block or earlier), so the answer
 * is b + the first lane of its 64 equal to M: 8 compares into one 64-bit mask.
 * Blocks may overlap (a head block at 0, then blocks from a 32-byte boundary,
 * a last block at n - 64), as long as their starts increase: if the first M
 * were at p < b, the block holding p starts before b and would have set
 * best = M in p's lane at a start before b; and block b holds an M at or
 * after p, so p lies in [b, b + 64). NaN evidence
 * (an unordered compare per pair of vectors) sends a row with a NaN to the
 * first-NaN search. Compared with the chunked scan (a branch where the
 * running max rises, then a rescan) this has no data-dependent branch in the
 * row, so the out-of-order core keeps loading the next rows: on hardmax
 * 1024x1024 the scan costs ~1.3x a bare read instead of ~1.8x
 * (docs/performance.md). Block starts are int32: rows up to 2^31. */
#define HM_F32_BLOCK(p, m, u)                                                                   \
    do {                                                                                        \
        __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps((p) + 8);                          \
        __m256 v2 = _mm256_loadu_ps((p) + 16), v3 = _mm256_loadu_ps((p) + 24);                  \
        __m256 v4 = _mm256_loadu_ps((p) + 32), v5 = _mm256_loadu_ps((p) + 40);                  \
        __m256 v6 = _mm256_loadu_ps((p) + 48), v7 = _mm256_loadu_ps((p) + 56);                  \
        u = _mm256_or_ps(u, _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(v0, v1, _CMP_UNORD_Q),      \
                                                      _mm256_cmp_ps(v2, v3, _CMP_UNORD_Q)),     \
                                         _mm256_or_ps(_mm256_cmp_ps(v4, v5, _CMP_UNORD_Q),      \
                                                      _mm256_cmp_ps(v6, v7, _CMP_UNORD_Q))));   \
        m = _mm256_max_ps(_mm256_max_ps(_mm256_max_ps(v0, v1), _mm256_max_ps(v2, v3)),          \
                          _mm256_max_ps(_mm256_max_ps(v4, v5), _mm256_max_ps(v6, v7)));         \
    } while (0)

#define HM_F32_EQ8(p, m, k)                                                                     \
    ((uint64_t)(unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps((p) + 8 * (k)), m,    \
                                                          _CMP_EQ_OQ))                          \
     << (8 * (k)))
static inline uint64_t hm_f32x8_eq64(const float *p, __m256 m) /* bit k: p[k] == m */
{
    return HM_F32_EQ8(p, m, 0) | HM_F32_EQ8(p, m, 1) | HM_F32_EQ8(p, m, 2) | HM_F32_EQ8(p, m, 3) |
           HM_F32_EQ8(p, m, 4) | HM_F32_EQ8(p, m, 5) | HM_F32_EQ8(p, m, 6) | HM_F32_EQ8(p, m, 7);
}

/* no branch on which half holds the bit: a mispredict here flushes the next
 * row's loads */
static inline unsigned hm_ctz64(uint64_t m)
{
#if defined(_MSC_VER) && !defined(__clang__)
    unsigned long i;
    _BitScanForward64(&i, m);
    return (unsigned)i;
#else
    return (unsigned)__builtin_ctzll(m);
#endif
}

static inline size_t hm_f32b_row(const float *x, size_t n)
{
    __m256 u = _mm256_setzero_ps(), best, mx;
    __m256i idx = _mm256_setzero_si256(), cur, c;
    const __m256i step = _mm256_set1_epi32(64);
    __m128i h;
    size_t i, last, a, end;
    if (n < 64 || n > (size_t)INT32_MAX)
        return hm_f32x8_row(x, n);
    last = n - 64;
    /* the blocks after the first start on a 32-byte boundary (when x is 4-byte
     * aligned): x at 16 bytes past a line (numpy's large buffers) made every
     * other load split a line, 86 us against 56 us aligned at 1024x1024 */
    a = (uintptr_t)x % 4 ? 0 : (size_t)((0u - (uintptr_t)x) & 31) / 4;
    i = a ? a : 64;
    end = 64;
    HM_F32_BLOCK(x, best, u);
    cur = _mm256_set1_epi32((int)i - 64);
    for (; i <= last; i += 64) {
        __m256 m, gt;
        HM_F32_BLOCK(x + i, m, u);
        cur = _mm256_add_epi32(cur, step);
        gt = _mm256_cmp_ps(m, best, _CMP_GT_OQ);
        best = _mm256_blendv_ps(best, m, gt);
        idx = _mm256_blendv_epi8(idx, cur, _mm256_castps_si256(gt));
        end = i + 64;
    }
    if (end < n) {
        __m256 m, gt;
        HM_F32_BLOCK(x + last, m, u);
        gt = _mm256_cmp_ps(m, best, _CMP_GT_OQ);
        best = _mm256_blendv_ps(best, m, gt);
        idx = _mm256_blendv_epi8(idx, _mm256_set1_epi32((int)last), _mm256_castps_si256(gt));
    }
    if (_mm256_movemask_ps(u))
        return hm_f32x8_find_nan(x, n, best);
    mx = hm_f32x8_VMAX(best);
    c = _mm256_blendv_epi8(_mm256_set1_epi32(INT32_MAX), idx,
                           _mm256_castps_si256(_mm256_cmp_ps(best, mx, _CMP_EQ_OQ)));
    h = _mm_min_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
    h = _mm_min_epi32(h, _mm_shuffle_epi32(h, 0x4e));
    h = _mm_min_epi32(h, _mm_shuffle_epi32(h, 0xb1));
    i = (size_t)(uint32_t)_mm_cvtsi128_si32(h);
    return i + hm_ctz64(hm_f32x8_eq64(x + i, mx)); /* not 0: the block holds mx */
}
#define hm_f32b_cols hm_f32x8_cols

/* float64 x 4 */
#define hm_f64x4_V __m256d
#define hm_f64x4_M hm_f64x4_V
#define hm_f64x4_IV __m256i
#define hm_f64x4_W 4
#define hm_f64x4_SHIFT 0
#define hm_f64x4_LOAD(p) _mm256_loadu_pd(p)
#define hm_f64x4_STORE(p, v) _mm256_storeu_pd(p, v)
#define hm_f64x4_KEY(v) (v)
#define hm_f64x4_MAX(a, b) _mm256_max_pd(a, b)
#define hm_f64x4_OR(a, b) _mm256_or_pd(a, b)
#define hm_f64x4_NANINIT() _mm256_setzero_pd()
#define hm_f64x4_NAN1(u, b) _mm256_or_pd(u, _mm256_cmp_pd(b, b, _CMP_UNORD_Q))
#define hm_f64x4_NAN2(u, b0, b1) _mm256_or_pd(u, _mm256_cmp_pd(b0, b1, _CMP_UNORD_Q))
#define hm_f64x4_ANYNAN(u, m) (_mm256_movemask_pd(u) != 0)
#define hm_f64x4_TRIG(v, rv) _mm256_cmp_pd(v, rv, _CMP_NLE_UQ)
#define hm_f64x4_EQ(v, vm) _mm256_cmp_pd(v, vm, _CMP_EQ_OQ)
#define hm_f64x4_ISNAN(v) _mm256_cmp_pd(v, v, _CMP_UNORD_Q)
#define hm_f64x4_BITS(v) ((unsigned)_mm256_movemask_pd(v))
#define hm_f64x4_NARROW hm_f64x2_row
#define hm_f64x4_NARROWCOLS hm_f64x2_cols
#define hm_f64x4_BEATS(v, b) \
    _mm256_and_pd(_mm256_cmp_pd(v, b, _CMP_NLE_UQ), _mm256_cmp_pd(b, b, _CMP_ORD_Q))
#define hm_f64x4_SEL(m, a, b) _mm256_blendv_pd(b, a, m)
#define hm_f64x4_RIDX(r) _mm256_set1_epi64x(r)
#define hm_f64x4_IDX(p, m, rv) hm_idx4(p, _mm256_castpd_si256(m), rv)
static inline __m256d hm_f64x4_VMAX(__m256d v)
{
    v = _mm256_max_pd(v, _mm256_permute2f128_pd(v, v, 1));
    return _mm256_max_pd(v, _mm256_permute_pd(v, 0x5));
}
HM_ROW(hm_f64x4, double)
HM_COLS(hm_f64x4, double)

/* float16 x 16, as the int16 keys of hm_h8_key */
static inline __m256i hm_h16_key(__m256i h)
{
    __m256i k = _mm256_sign_epi16(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)), h);
    return _mm256_sub_epi16(k, _mm256_set1_epi16(0x400));
}
#define hm_f16x16_V __m256i
#define hm_f16x16_M hm_f16x16_V
#define hm_f16x16_IV __m256i
#define hm_f16x16_W 16
#define hm_f16x16_SHIFT 1
#define hm_f16x16_LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define hm_f16x16_STORE(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define hm_f16x16_KEY(v) hm_h16_key(v)
#define hm_f16x16_MAX(a, b) _mm256_max_epi16(a, b)
#define hm_f16x16_OR(a, b) _mm256_or_si256(a, b)
#define hm_f16x16_NANINIT() _mm256_setzero_si256()
#define hm_f16x16_NAN1(u, b) (u)
#define hm_f16x16_NAN2(u, b0, b1) (u)
#define hm_f16x16_ANYNAN(u, m) \
    (_mm256_movemask_epi8(_mm256_cmpgt_epi16(m, _mm256_set1_epi16(HM_H_NANKEY))) != 0)
#define hm_f16x16_ISNAN(v) \
    _mm256_cmpgt_epi16(hm_h16_key(v), _mm256_set1_epi16(HM_H_NANKEY))
#define hm_f16x16_TRIG(v, rv) _mm256_cmpgt_epi16(hm_h16_key(v), rv)
#define hm_f16x16_EQ(v, vm) _mm256_cmpeq_epi16(hm_f16x16_KEY(v), vm)
#define hm_f16x16_BITS(v) ((unsigned)_mm256_movemask_epi8(v))
#define hm_f16x16_NARROW hm_f16x8_row
#define hm_f16x16_NARROWCOLS hm_f16x8_cols
#define hm_f16x16_SEL(m, a, b) hm_sel256(m, a, b)
#define hm_f16x16_RIDX(r) _mm256_set1_epi64x(r)
static inline __m256i hm_f16x16_VMAX(__m256i v)
{
    v = _mm256_max_epi16(v, _mm256_permute2x128_si256(v, v, 1));
    v = _mm256_max_epi16(v, _mm256_shuffle_epi32(v, 0x4e));
    v = _mm256_max_epi16(v, _mm256_shuffle_epi32(v, 0xb1));
    return _mm256_max_epi16(v, _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(v, 0xb1), 0xb1));
}
static inline __m256i hm_f16x16_BEATS(__m256i v, __m256i b)
{
    __m256i kb = hm_h16_key(b);
    return _mm256_andnot_si256(_mm256_cmpgt_epi16(kb, _mm256_set1_epi16(HM_H_NANKEY)),
                               _mm256_cmpgt_epi16(hm_h16_key(v), kb));
}
static inline void hm_f16x16_IDX(int64_t *p, __m256i m, __m256i rv)
{
    __m128i lo = _mm256_castsi256_si128(m), hi = _mm256_extracti128_si256(m, 1);
    hm_idx4(p, _mm256_cvtepi16_epi64(lo), rv);
    hm_idx4(p + 4, _mm256_cvtepi16_epi64(_mm_srli_si128(lo, 8)), rv);
    hm_idx4(p + 8, _mm256_cvtepi16_epi64(hi), rv);
    hm_idx4(p + 12, _mm256_cvtepi16_epi64(_mm_srli_si128(hi, 8)), rv);
}
HM_ROW(hm_f16x16, uint16_t)
HM_COLS(hm_f16x16, uint16_t)

HM_KERNELS(hm_f32b, hm_f64x4, hm_f16x16)

SIMDOPS_DEFINE_REGISTER(hardmax, HARDMAX_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, avx2)
#endif
