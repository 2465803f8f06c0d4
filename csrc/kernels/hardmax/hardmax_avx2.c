/* argmax kernels behind hardmax for avx2: the templates of hardmax_x86.h over
 * 256-bit vectors; rows/column blocks narrower than one vector use the 128-bit
 * kernels. float16 is compared as exact int16 keys (16 lanes, no conversion). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"
#include "hardmax_stream.h"

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

/* float32 rows of 64 or more and columns four rows at a time:
 * hardmax_f32_body.h over ymm vectors (compare results are vectors; the row
 * offsets and indices are updated by load, blend and store: AMD's vpmaskmov
 * stores are slow). */
#define HB_PREFIX hm_f32b_
#define HB_W 8
#define HB_V __m256
#define HB_M __m256
#define HB_I __m256i
#define HB_LOAD(p) _mm256_loadu_ps(p)
#define HB_STORE(p, v) _mm256_storeu_ps(p, v)
#define HB_MAX(a, b) _mm256_max_ps(a, b)
#define HB_GT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define HB_EQ(a, b) _mm256_cmp_ps(a, b, _CMP_EQ_OQ)
#define HB_UNORD(a, b) _mm256_cmp_ps(a, b, _CMP_UNORD_Q)
#define HB_MNONE _mm256_setzero_ps()
#define HB_MOR(a, b) _mm256_or_ps(a, b)
#define HB_MANY(m) (_mm256_movemask_ps(m) != 0)
#define HB_EQBITS(p, m) ((unsigned)_mm256_movemask_ps(HB_EQ(_mm256_loadu_ps(p), m)))
#define HB_VMAX(v) hm_f32x8_VMAX(v)
#define HB_ISET1(i) _mm256_set1_epi32(i)
#define HB_IADD(a, b) _mm256_add_epi32(a, b)
#define HB_ISEL(a, m, b) _mm256_blendv_epi8(a, b, _mm256_castps_si256(m))
#define HB_SHORT_ROW(x, n) hm_f32x8_row(x, n)
#define HB_FIND_NAN(x, n, v) hm_f32x8_find_nan(x, n, v)
#define HB_COL1(row, best, bi, r) hm_f32x8_col1(row, best, bi, _mm256_set1_epi64x(r))
#define HB_COLS1 hm_f32x8_cols
static inline int32_t HB_IREDUCE_MIN(__m256i c)
{
    __m128i h = _mm_min_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
    h = _mm_min_epi32(h, _mm_shuffle_epi32(h, 0x4e));
    h = _mm_min_epi32(h, _mm_shuffle_epi32(h, 0xb1));
    return _mm_cvtsi128_si32(h);
}
static inline void HB_REL_RISE(int32_t *rel, __m256 m, __m256i i)
{
    __m256i o = _mm256_loadu_si256((const __m256i *)rel);
    _mm256_storeu_si256((__m256i *)rel, HB_ISEL(o, m, i));
}
static inline void HB_REL_FLUSH(int32_t *rel, int64_t *bi, int64_t r)
{
    __m256i o = _mm256_loadu_si256((const __m256i *)rel), rv = _mm256_set1_epi64x(r);
    __m256i t = _mm256_cmpgt_epi32(o, _mm256_set1_epi32(-1));
    hm_idx4(bi, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(t)),
            _mm256_add_epi64(rv, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(o))));
    hm_idx4(bi + 4, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(t, 1)),
            _mm256_add_epi64(rv, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(o, 1))));
    _mm256_storeu_si256((__m256i *)rel, _mm256_set1_epi32(-1));
}
/* one 64-byte line, non-temporal: two 32-byte stores */
#define HB_NT_ZERO(p)                                                                            \
    (_mm256_stream_ps((float *)(p), _mm256_setzero_ps()),                                        \
     _mm256_stream_ps((float *)(p) + 8, _mm256_setzero_ps()))
#define HB_NT_COPY(p, src)                                                                       \
    (_mm256_stream_ps((float *)(p), _mm256_load_ps(src)),                                        \
     _mm256_stream_ps((float *)(p) + 8, _mm256_load_ps((src) + 8)))
#include "hardmax_f32_body.h"

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
HM_H_BEATS(hm_f16x16, __m256i, hm_h16_key, _mm256_cmpgt_epi16, _mm256_andnot_si256,
           _mm256_set1_epi16)
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

static size_t hm_f32b_row_stream_k(const void *x, size_t n, simdops_hm_lines *s)
{
    return hm_f32b_row_stream((const float *)x, n, s);
}

HM_ROW_KERNEL(f32, float, hm_f32b) HM_ROW_KERNEL(f64, double, hm_f64x4)
HM_ROW_KERNEL(f16, uint16_t, hm_f16x16) HM_COLS_MANY_KERNEL(f32, float, hm_f32b_cols)
HM_COLS_KERNEL(f64, double, hm_f64x4) HM_COLS_KERNEL(f16, uint16_t, hm_f16x16)

const simdops_hm_stream_pair simdops_hm_stream_pair__avx2 = {SIMDOPS_KERNEL_NAME(f32, argmax_row),
                                                             hm_f32b_row_stream_k};

SIMDOPS_DEFINE_REGISTER(hardmax, HARDMAX_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, avx2)
const simdops_hm_stream_pair simdops_hm_stream_pair__avx2 = {NULL, NULL};
#endif
