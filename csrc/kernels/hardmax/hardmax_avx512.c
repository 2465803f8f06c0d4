/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) argmax kernels behind hardmax,
 * bit-exact with hardmax_scalar.c: the column template of hardmax_x86.h over
 * 512-bit vectors with opmask compare results (one compare per vector, no
 * movemask; indices written by masked stores). Column blocks narrower than
 * one vector run one masked vector (masked-off lanes are neither read nor
 * written, so nothing past the end is touched).
 * Registered: argmax_cols for float32 (four rows per tree, below) and
 * float64, and the float32 row (hardmax_avx2.c's branch-free block scan over
 * zmm vectors; rows shorter than a block use HM_ROW's chunked scan). The
 * chunked row kernels of the other dtypes measured slower than avx2's at
 * 1024x1024 (a chunk of 8 vectors is 128 floats, so a rising max rescans
 * twice as much), and float16 would need 512-bit psignw, which AVX-512BW
 * lacks: those entries inherit avx2's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#include "hardmax_x86.h"

#include <math.h> /* INFINITY */

/* Masked single-vector kernels for n < W lanes: masked-off lanes load -inf,
 * which never beats anything and never equals a max taken over real lanes
 * (lane 0 is real, so a row of -inf answers 0 as the scalar does). */
#define HM_MASKED_NARROW(P, T, V, M, LOADM, CMP, MAXR, SET1, STOREM, NEGINF)               \
    static inline size_t P##_narrow_row(const T *x, size_t n)                               \
    {                                                                                       \
        M k = (M)((1u << n) - 1u);                                                          \
        V v = LOADM(SET1(NEGINF), k, x);                                                    \
        unsigned nan = (unsigned)CMP(v, v, _CMP_UNORD_Q);                                   \
        if (nan)                                                                            \
            return hm_ctz(nan);                                                             \
        return hm_ctz((unsigned)CMP(v, SET1(MAXR(v)), _CMP_EQ_OQ));                         \
    }                                                                                       \
    static inline void P##_narrow_cols(const T *row, size_t cols, int64_t r, T *best,       \
                                       int64_t *bi)                                         \
    {                                                                                       \
        M k = (M)((1u << cols) - 1u);                                                       \
        V v = LOADM(SET1(NEGINF), k, row), b = LOADM(SET1(NEGINF), k, best);                \
        unsigned m = (unsigned)(k & CMP(v, b, _CMP_NLE_UQ) & CMP(b, b, _CMP_ORD_Q));        \
        if (m) {                                                                            \
            STOREM(best, (M)m, v);                                                          \
            _mm512_mask_storeu_epi64(bi, (__mmask8)m, _mm512_set1_epi64(r));                \
            _mm512_mask_storeu_epi64(bi + 8, (__mmask8)(m >> 8), _mm512_set1_epi64(r));     \
        }                                                                                   \
    }

/* float32 x 16 */
HM_MASKED_NARROW(hm_f32x16, float, __m512, __mmask16, _mm512_mask_loadu_ps, _mm512_cmp_ps_mask,
                 _mm512_reduce_max_ps, _mm512_set1_ps, _mm512_mask_storeu_ps, -INFINITY)
#define hm_f32x16_V __m512
#define hm_f32x16_M __mmask16
#define hm_f32x16_IV __m512i
#define hm_f32x16_W 16
#define hm_f32x16_SHIFT 0
#define hm_f32x16_LOAD(p) _mm512_loadu_ps(p)
#define hm_f32x16_STORE(p, v) _mm512_storeu_ps(p, v)
#define hm_f32x16_KEY(v) (v)
#define hm_f32x16_MAX(a, b) _mm512_max_ps(a, b)
#define hm_f32x16_OR(a, b) ((__mmask16)((a) | (b)))
/* NaN evidence: a lane of u turns NaN (all ones) once an unordered pair is seen */
#define hm_f32x16_NANINIT() _mm512_setzero_ps()
#define hm_f32x16_NAN1(u, b) hm_f32x16_NAN2(u, b, b)
#define hm_f32x16_NAN2(u, b0, b1)                                                    \
    _mm512_mask_mov_ps(u, _mm512_cmp_ps_mask(b0, b1, _CMP_UNORD_Q),                  \
                       _mm512_castsi512_ps(_mm512_set1_epi32(-1)))
#define hm_f32x16_ANYNAN(u, m) (_mm512_cmp_ps_mask(u, u, _CMP_UNORD_Q) != 0)
/* v > best or v NaN (best is never NaN) */
#define hm_f32x16_TRIG(v, rv) _mm512_cmp_ps_mask(v, rv, _CMP_NLE_UQ)
#define hm_f32x16_EQ(v, vm) _mm512_cmp_ps_mask(v, vm, _CMP_EQ_OQ)
#define hm_f32x16_ISNAN(v) _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)
#define hm_f32x16_BITS(m) ((unsigned)(m))
#define hm_f32x16_NARROW hm_f32x16_narrow_row
#define hm_f32x16_NARROWCOLS hm_f32x16_narrow_cols
#define hm_f32x16_BEATS(v, b) \
    _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(b, b, _CMP_ORD_Q), v, b, _CMP_NLE_UQ)
#define hm_f32x16_SEL(m, a, b) _mm512_mask_blend_ps(m, b, a)
#define hm_f32x16_RIDX(r) _mm512_set1_epi64(r)
#define hm_f32x16_VMAX(v) _mm512_set1_ps(_mm512_reduce_max_ps(v))
static inline void hm_f32x16_IDX(int64_t *p, __mmask16 m, __m512i rv)
{
    _mm512_mask_storeu_epi64(p, (__mmask8)m, rv);
    _mm512_mask_storeu_epi64(p + 8, (__mmask8)(m >> 8), rv);
}
HM_ROW(hm_f32x16, float)
HM_COLS(hm_f32x16, float)

/* float32 rows of 64 or more: hardmax_avx2.c's branch-free block scan (the
 * proof is there) over 64-float blocks of four zmm vectors: per block 4
 * loads, 3 max, 2 unordered compares into the NaN mask, then 1 compare,
 * 1 max, 1 masked move and 1 add for the per-lane best and first block,
 * about half the instructions of the AVX2 scan for the same bytes, so the
 * out-of-order window spans twice the bytes. Blocks after the first start
 * on a 64-byte boundary (x 4-byte aligned), so no load splits a line. */
#define HM_F32Z_BLOCK(p, m, u)                                                                  \
    do {                                                                                        \
        __m512 v0 = _mm512_loadu_ps(p), v1 = _mm512_loadu_ps((p) + 16);                         \
        __m512 v2 = _mm512_loadu_ps((p) + 32), v3 = _mm512_loadu_ps((p) + 48);                  \
        u = (__mmask16)(u | _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) |                          \
                        _mm512_cmp_ps_mask(v2, v3, _CMP_UNORD_Q));                              \
        m = _mm512_max_ps(_mm512_max_ps(v0, v1), _mm512_max_ps(v2, v3));                        \
    } while (0)

static inline uint64_t hm_f32z_eq64(const float *p, __m512 m) /* bit k: p[k] == m */
{
    return (uint64_t)_mm512_cmp_ps_mask(_mm512_loadu_ps(p), m, _CMP_EQ_OQ) |
           (uint64_t)_mm512_cmp_ps_mask(_mm512_loadu_ps(p + 16), m, _CMP_EQ_OQ) << 16 |
           (uint64_t)_mm512_cmp_ps_mask(_mm512_loadu_ps(p + 32), m, _CMP_EQ_OQ) << 32 |
           (uint64_t)_mm512_cmp_ps_mask(_mm512_loadu_ps(p + 48), m, _CMP_EQ_OQ) << 48;
}

static inline size_t hm_f32z_row(const float *x, size_t n)
{
    __mmask16 u = 0;
    __m512 best, mx, m;
    __m512i idx = _mm512_setzero_si512(), cur;
    const __m512i step = _mm512_set1_epi32(64);
    size_t i, last, a, end;
    uint64_t eq;
    if (n < 64 || n > (size_t)INT32_MAX)
        return hm_f32x16_row(x, n);
    last = n - 64;
    a = (uintptr_t)x % 4 ? 0 : (size_t)((0u - (uintptr_t)x) & 63) / 4;
    i = a ? a : 64;
    end = 64;
    HM_F32Z_BLOCK(x, best, u);
    cur = _mm512_set1_epi32((int)i - 64);
    for (; i <= last; i += 64) {
        __mmask16 gt;
        HM_F32Z_BLOCK(x + i, m, u);
        cur = _mm512_add_epi32(cur, step);
        gt = _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ);
        best = _mm512_max_ps(m, best); /* = gt ? m : best when NaN-free */
        idx = _mm512_mask_mov_epi32(idx, gt, cur);
        end = i + 64;
    }
    if (end < n) {
        __mmask16 gt;
        HM_F32Z_BLOCK(x + last, m, u);
        gt = _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ);
        best = _mm512_max_ps(m, best);
        idx = _mm512_mask_mov_epi32(idx, gt, _mm512_set1_epi32((int)last));
    }
    if (u)
        return hm_f32x16_find_nan(x, n, best);
    mx = _mm512_set1_ps(_mm512_reduce_max_ps(best));
    i = (size_t)(uint32_t)_mm512_reduce_min_epi32(_mm512_mask_mov_epi32(
        _mm512_set1_epi32(INT32_MAX), _mm512_cmp_ps_mask(best, mx, _CMP_EQ_OQ), idx));
    eq = hm_f32z_eq64(x + i, mx); /* not 0: the block holds mx */
#if defined(_MSC_VER) && !defined(__clang__)
    {
        unsigned long b;
        _BitScanForward64(&b, eq);
        return i + b;
    }
#else
    return i + (size_t)__builtin_ctzll(eq);
#endif
}

/* float64 x 8 */
HM_MASKED_NARROW(hm_f64x8, double, __m512d, __mmask8, _mm512_mask_loadu_pd, _mm512_cmp_pd_mask,
                 _mm512_reduce_max_pd, _mm512_set1_pd, _mm512_mask_storeu_pd, -INFINITY)
#define hm_f64x8_V __m512d
#define hm_f64x8_M __mmask8
#define hm_f64x8_IV __m512i
#define hm_f64x8_W 8
#define hm_f64x8_SHIFT 0
#define hm_f64x8_LOAD(p) _mm512_loadu_pd(p)
#define hm_f64x8_STORE(p, v) _mm512_storeu_pd(p, v)
#define hm_f64x8_KEY(v) (v)
#define hm_f64x8_MAX(a, b) _mm512_max_pd(a, b)
#define hm_f64x8_OR(a, b) ((__mmask8)((a) | (b)))
#define hm_f64x8_NANINIT() _mm512_setzero_pd()
#define hm_f64x8_NAN1(u, b) hm_f64x8_NAN2(u, b, b)
#define hm_f64x8_NAN2(u, b0, b1)                                                     \
    _mm512_mask_mov_pd(u, _mm512_cmp_pd_mask(b0, b1, _CMP_UNORD_Q),                  \
                       _mm512_castsi512_pd(_mm512_set1_epi64(-1)))
#define hm_f64x8_ANYNAN(u, m) (_mm512_cmp_pd_mask(u, u, _CMP_UNORD_Q) != 0)
#define hm_f64x8_TRIG(v, rv) _mm512_cmp_pd_mask(v, rv, _CMP_NLE_UQ)
#define hm_f64x8_EQ(v, vm) _mm512_cmp_pd_mask(v, vm, _CMP_EQ_OQ)
#define hm_f64x8_ISNAN(v) _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q)
#define hm_f64x8_BITS(m) ((unsigned)(m))
#define hm_f64x8_NARROW hm_f64x8_narrow_row
#define hm_f64x8_NARROWCOLS hm_f64x8_narrow_cols
#define hm_f64x8_BEATS(v, b) \
    _mm512_mask_cmp_pd_mask(_mm512_cmp_pd_mask(b, b, _CMP_ORD_Q), v, b, _CMP_NLE_UQ)
#define hm_f64x8_SEL(m, a, b) _mm512_mask_blend_pd(m, b, a)
#define hm_f64x8_RIDX(r) _mm512_set1_epi64(r)
#define hm_f64x8_VMAX(v) _mm512_set1_pd(_mm512_reduce_max_pd(v))
#define hm_f64x8_IDX(p, m, rv) _mm512_mask_storeu_epi64(p, m, rv)
HM_COLS(hm_f64x8, double)

/* float32 columns, four rows at a time. Per 16 columns the four row vectors
 * are reduced first, as a tree in row order with "later beats earlier only
 * when strictly greater" (vmaxps(b, a) = b > a ? b : a keeps the earlier
 * element's bits on a tie, as the reference keeps best), so best is loaded,
 * compared and stored once per four rows. Without NaN in the four rows this
 * is the reference rule applied row by row: a chain of strict-greater-than
 * updates keeps the first maximum, and grouping the chain does not change
 * which element that is. A NaN best (from an earlier NaN) is never beaten:
 * every ordered compare with it is false. A group with a NaN in any lane of
 * its four vectors (one unordered compare per pair of rows) is applied row by
 * row with the exact rule (hm_f32x16_col1); that branch is not taken on
 * NaN-free data.
 * The winning row is tracked as an int32 offset within the call (three
 * blends of constants, one masked store where best rose) in a 4 KiB stack
 * array per chunk of HM_COL_CHUNK columns, and moved into the int64 indices
 * once per chunk (and before a NaN group's exact updates, which write the
 * indices directly). A last partial vector overlaps the previous one:
 * columns already updated by this group hold a best that none of its rows
 * beats, and the moves write the same values again. On 1024 x 4096 the scan
 * costs ~2x a bare read of the same bytes, against ~3.3x one row per call
 * (a branch on rare updates, two compares per 16 columns per row) and ~2.2x
 * with int64 indices built from mask arithmetic per group (tools/cbench
 * "hardmax bound axis 0", docs/performance.md). */
enum { HM_COL_CHUNK = 1024 };

/* rel[0..16) (offsets, -1: not risen) into bi as r + offset; rel reset */
static inline void hm_f32c_flush(int32_t *rel, int64_t *bi, __m512i r)
{
    __m512i o = _mm512_loadu_si512(rel);
    __mmask16 t = _mm512_cmp_epi32_mask(o, _mm512_setzero_si512(), _MM_CMPINT_NLT);
    _mm512_mask_storeu_epi64(bi, (__mmask8)t,
                             _mm512_add_epi64(r, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(o))));
    _mm512_mask_storeu_epi64(bi + 8, (__mmask8)(t >> 8),
                             _mm512_add_epi64(r, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(o, 1))));
    _mm512_storeu_si512(rel, _mm512_set1_epi32(-1));
}

/* Rows k..k+3 of the call (x at row k) at column j; c holds k..k+3 broadcast. */
static inline void hm_f32c_group4(const char *x, int64_t stride, size_t j, float *best,
                                  int32_t *rel, int64_t *bi, const __m512i c[4], int64_t r,
                                  int32_t k)
{
    const float *p0 = (const float *)(const void *)x + j;
    const float *p1 = (const float *)(const void *)(x + stride) + j;
    const float *p2 = (const float *)(const void *)(x + 2 * stride) + j;
    const float *p3 = (const float *)(const void *)(x + 3 * stride) + j;
    __m512 v0 = _mm512_loadu_ps(p0), v1 = _mm512_loadu_ps(p1);
    __m512 v2 = _mm512_loadu_ps(p2), v3 = _mm512_loadu_ps(p3);
    __m512 b = _mm512_loadu_ps(best + j), m01, m23, m;
    __mmask16 k01, k23, kk, kb;
    __m512i i;
    if ((__mmask16)(_mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) |
                    _mm512_cmp_ps_mask(v2, v3, _CMP_UNORD_Q))) {
        hm_f32c_flush(rel, bi + j, _mm512_set1_epi64(r));
        hm_f32x16_col1(p0, best + j, bi + j, _mm512_set1_epi64(r + k));
        hm_f32x16_col1(p1, best + j, bi + j, _mm512_set1_epi64(r + k + 1));
        hm_f32x16_col1(p2, best + j, bi + j, _mm512_set1_epi64(r + k + 2));
        hm_f32x16_col1(p3, best + j, bi + j, _mm512_set1_epi64(r + k + 3));
        return;
    }
    k01 = _mm512_cmp_ps_mask(v1, v0, _CMP_GT_OQ);
    m01 = _mm512_max_ps(v1, v0);
    k23 = _mm512_cmp_ps_mask(v3, v2, _CMP_GT_OQ);
    m23 = _mm512_max_ps(v3, v2);
    kk = _mm512_cmp_ps_mask(m23, m01, _CMP_GT_OQ);
    m = _mm512_max_ps(m23, m01);
    kb = _mm512_cmp_ps_mask(m, b, _CMP_GT_OQ);
    _mm512_storeu_ps(best + j, _mm512_max_ps(m, b));
    i = _mm512_mask_mov_epi32(_mm512_mask_mov_epi32(c[0], k01, c[1]), kk,
                              _mm512_mask_mov_epi32(c[2], k23, c[3]));
    _mm512_mask_storeu_epi32(rel, kb, i);
}

HM_ROW_KERNEL(f32, float, hm_f32z)

static void SIMDOPS_KERNEL_NAME(f32, argmax_cols)(const void *xv, int64_t stride, size_t rows,
                                                  size_t cols, int64_t r, void *bestv,
                                                  int64_t *bi)
{
    const char *x = (const char *)xv;
    float *best = (float *)bestv;
    size_t grouped = cols >= 16 && rows <= (size_t)INT32_MAX ? rows / 4 * 4 : 0, k;
    for (size_t j0 = 0; grouped && j0 < cols; j0 += HM_COL_CHUNK) {
        int32_t rel[HM_COL_CHUNK];
        size_t cc = cols - j0 < HM_COL_CHUNK ? cols - j0 : HM_COL_CHUNK, j;
        const __m512i rv = _mm512_set1_epi64(r);
        if (cc < 16) { /* a narrow last chunk: the 16 columns ending at cols */
            j0 = cols - 16;
            cc = 16;
        }
        memset(rel, 0xff, cc * sizeof(int32_t));
        for (k = 0; k < grouped; k += 4) {
            const char *xk = x + (int64_t)k * stride;
            __m512i c[4];
            c[0] = _mm512_set1_epi32((int32_t)k);
            c[1] = _mm512_set1_epi32((int32_t)k + 1);
            c[2] = _mm512_set1_epi32((int32_t)k + 2);
            c[3] = _mm512_set1_epi32((int32_t)k + 3);
            for (j = 0; j + 16 <= cc; j += 16)
                hm_f32c_group4(xk, stride, j0 + j, best, rel + j, bi, c, r, (int32_t)k);
            if (j < cc)
                hm_f32c_group4(xk, stride, j0 + cc - 16, best, rel + cc - 16, bi, c, r,
                               (int32_t)k);
        }
        for (j = 0; j + 16 <= cc; j += 16)
            hm_f32c_flush(rel + j, bi + j0 + j, rv);
        if (j < cc)
            hm_f32c_flush(rel + cc - 16, bi + j0 + cc - 16, rv);
    }
    x += (int64_t)grouped * stride;
    r += (int64_t)grouped;
    for (k = grouped; k < rows; k++, x += stride, r++)
        hm_f32x16_cols((const float *)(const void *)x, cols, r, best, bi);
}
HM_COLS_KERNEL(f64, double, hm_f64x8)

#define HARDMAX_AVX512_KERNELS(X) X(argmax_row, f32) X(argmax_cols, f32) X(argmax_cols, f64)
SIMDOPS_DEFINE_REGISTER(hardmax, HARDMAX_AVX512_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, avx512)
#endif
