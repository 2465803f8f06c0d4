/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) argmax kernels behind hardmax,
 * bit-exact with hardmax_scalar.c: the column template of hardmax_x86.h over
 * 512-bit vectors with opmask compare results (one compare per vector, no
 * movemask; indices written by masked stores). Column blocks narrower than
 * one vector run one masked vector (masked-off lanes are neither read nor
 * written, so nothing past the end is touched).
 * Registered: argmax_cols for float32 (four rows per tree) and float64, and
 * the float32 row (the branch-free block scan; rows shorter than a block use
 * HM_ROW's chunked scan), the float32 pair from hardmax_f32_body.h. The
 * chunked row kernels of the other dtypes measured slower than avx2's at
 * 1024x1024 (a chunk of 8 vectors is 128 floats, so a rising max rescans
 * twice as much), and float16 would need 512-bit psignw, which AVX-512BW
 * lacks: those entries inherit avx2's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"
#include "hardmax_stream.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#include "hardmax_x86.h"

#include <math.h> /* INFINITY */

/* The template parameters of hardmax_x86.h for a zmm vector of W_ lanes of T
 * (intrinsic suffix S: ps or pd; E: the int lanes of the same width), as
 * functions and types. Opmask compare results; NaN evidence: a lane of u
 * turns NaN (all ones) once an unordered pair is seen; TRIG: v > best or v NaN
 * (best is never NaN). P##_IDX (the index stores) is the instance's own.
 * Narrow kernels (n < W_ lanes) run one masked vector: masked-off lanes load
 * -inf, which never beats anything and never equals a max taken over real
 * lanes (lane 0 is real, so a row of -inf answers 0 as the scalar does). */
/* an instance uses only some of these functions (clang warns of the others) */
#if defined(__GNUC__) || defined(__clang__)
#define HM_ZFN static inline __attribute__((unused))
#else
#define HM_ZFN static inline
#endif
#define HM_Z_FLOAT(P, T, V, M, W_, S, E)                                                    \
    typedef V P##_V;                                                                        \
    typedef M P##_M;                                                                        \
    typedef __m512i P##_IV;                                                                 \
    enum { P##_W = W_, P##_SHIFT = 0 };                                                     \
    HM_ZFN V P##_LOAD(const T *p) { return _mm512_loadu_##S(p); }                           \
    HM_ZFN void P##_STORE(T *p, V v) { _mm512_storeu_##S(p, v); }                           \
    HM_ZFN V P##_KEY(V v) { return v; }                                                     \
    HM_ZFN V P##_MAX(V a, V b) { return _mm512_max_##S(a, b); }                             \
    HM_ZFN M P##_OR(M a, M b) { return (M)(a | b); }                                        \
    HM_ZFN unsigned P##_BITS(M m) { return m; }                                             \
    HM_ZFN M P##_CMP_UNORD(V a, V b) { return _mm512_cmp_##S##_mask(a, b, _CMP_UNORD_Q); }  \
    HM_ZFN V P##_NANINIT(void) { return _mm512_setzero_##S(); }                             \
    HM_ZFN V P##_NAN2(V u, V b0, V b1)                                                      \
    {                                                                                       \
        return _mm512_mask_mov_##S(u, P##_CMP_UNORD(b0, b1),                                \
                                   _mm512_castsi512_##S(_mm512_set1_##E(-1)));              \
    }                                                                                       \
    HM_ZFN V P##_NAN1(V u, V b) { return P##_NAN2(u, b, b); }                               \
    HM_ZFN int P##_ANYNAN(V u, V m) { return (void)m, P##_CMP_UNORD(u, u) != 0; }           \
    HM_ZFN M P##_ISNAN(V v) { return P##_CMP_UNORD(v, v); }                                 \
    HM_ZFN M P##_TRIG(V v, V rv) { return _mm512_cmp_##S##_mask(v, rv, _CMP_NLE_UQ); }      \
    HM_ZFN M P##_EQ(V v, V vm) { return _mm512_cmp_##S##_mask(v, vm, _CMP_EQ_OQ); }         \
    HM_ZFN M P##_BEATS(V v, V b)                                                            \
    {                                                                                       \
        return _mm512_mask_cmp_##S##_mask(_mm512_cmp_##S##_mask(b, b, _CMP_ORD_Q), v, b,    \
                                          _CMP_NLE_UQ);                                     \
    }                                                                                       \
    HM_ZFN V P##_SEL(M m, V a, V b) { return _mm512_mask_blend_##S(m, b, a); }              \
    HM_ZFN __m512i P##_RIDX(int64_t r) { return _mm512_set1_epi64(r); }                     \
    HM_ZFN V P##_VMAX(V v) { return _mm512_set1_##S(_mm512_reduce_max_##S(v)); }            \
    HM_ZFN void P##_IDX(int64_t *p, M m, __m512i rv);                                       \
    HM_ZFN size_t P##_NARROW(const T *x, size_t n)                                          \
    {                                                                                       \
        M k = (M)((1u << n) - 1u);                                                          \
        V v = _mm512_mask_loadu_##S(_mm512_set1_##S(-INFINITY), k, x);                      \
        unsigned nan = P##_ISNAN(v);                                                        \
        if (nan)                                                                            \
            return hm_ctz(nan);                                                             \
        return hm_ctz(P##_EQ(v, P##_VMAX(v)));                                              \
    }                                                                                       \
    HM_ZFN void P##_NARROWCOLS(const T *row, size_t cols, int64_t r, T *best,               \
                                      int64_t *bi)                                          \
    {                                                                                       \
        M k = (M)((1u << cols) - 1u);                                                       \
        V v = _mm512_mask_loadu_##S(_mm512_set1_##S(-INFINITY), k, row);                    \
        M m = (M)(k & P##_BEATS(v, _mm512_mask_loadu_##S(_mm512_set1_##S(-INFINITY), k, best))); \
        if (m) {                                                                            \
            _mm512_mask_storeu_##S(best, m, v);                                             \
            P##_IDX(bi, m, _mm512_set1_epi64(r));                                           \
        }                                                                                   \
    }

/* float32 x 16 */
HM_Z_FLOAT(hm_f32x16, float, __m512, __mmask16, 16, ps, epi32)
static inline void hm_f32x16_IDX(int64_t *p, __mmask16 m, __m512i rv)
{
    _mm512_mask_storeu_epi64(p, (__mmask8)m, rv);
    _mm512_mask_storeu_epi64(p + 8, (__mmask8)(m >> 8), rv);
}
HM_ROW(hm_f32x16, float)
HM_COLS(hm_f32x16, float)

/* float64 x 8 */
HM_Z_FLOAT(hm_f64x8, double, __m512d, __mmask8, 8, pd, epi64)
static inline void hm_f64x8_IDX(int64_t *p, __mmask8 m, __m512i rv)
{
    _mm512_mask_storeu_epi64(p, m, rv);
}
HM_COLS(hm_f64x8, double)

/* float32 rows of 64 or more and columns four rows at a time:
 * hardmax_f32_body.h over zmm vectors with opmask compare results. Per row
 * block 4 loads, 3 max, 2 unordered compares into the NaN mask, then 1
 * compare, 1 max, 1 masked move and 1 add for the per-lane best and first
 * block, about half the instructions of the AVX2 scan for the same bytes, so
 * the out-of-order window spans twice the bytes; blocks after the first start
 * on a 64-byte boundary (x 4-byte aligned), so no load splits a line. On
 * 1024 x 4096 the column scan costs ~2x a bare read of the same bytes,
 * against ~3.3x one row per call (a branch on rare updates, two compares per
 * 16 columns per row) and ~2.2x with int64 indices built from mask arithmetic
 * per group (tools/cbench "hardmax bound axis 0", docs/performance.md). */
#define HB_PREFIX hm_f32z_
#define HB_W 16
#define HB_V __m512
#define HB_M __mmask16
#define HB_I __m512i
#define HB_LOAD(p) _mm512_loadu_ps(p)
#define HB_STORE(p, v) _mm512_storeu_ps(p, v)
#define HB_MAX(a, b) _mm512_max_ps(a, b)
#define HB_GT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)
#define HB_EQ(a, b) _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ)
#define HB_UNORD(a, b) _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q)
#define HB_MNONE ((__mmask16)0)
#define HB_MOR(a, b) ((__mmask16)((a) | (b)))
#define HB_MANY(m) ((m) != 0)
/* NaN evidence: the lanes where every pair so far was ordered, one masked
 * compare per pair (mask & ordered(a, b)); a NaN clears its lane for good */
#define HB_NAN_INIT ((__mmask16)0xffff)
#define HB_NAN_ACC(u, a, b) _mm512_mask_cmp_ps_mask(u, a, b, _CMP_ORD_Q)
#define HB_NAN_SEEN(u0, u1) (((u0) & (u1)) != 0xffff)
#define HB_EQBITS(p, m) ((unsigned)HB_EQ(_mm512_loadu_ps(p), m))
#define HB_VMAX(v) hm_f32x16_VMAX(v)
#define HB_ISET1(i) _mm512_set1_epi32(i)
#define HB_IADD(a, b) _mm512_add_epi32(a, b)
#define HB_ISEL(a, m, b) _mm512_mask_mov_epi32(a, m, b)
#define HB_IREDUCE_MIN(i) _mm512_reduce_min_epi32(i)
#define HB_REL_RISE(rel, m, i) _mm512_mask_storeu_epi32(rel, m, i)
#define HB_SHORT_ROW(x, n) hm_f32x16_row(x, n)
#define HB_FIND_NAN(x, n, v) hm_f32x16_find_nan(x, n, v)
#define HB_COL1(row, best, bi, r) hm_f32x16_col1(row, best, bi, _mm512_set1_epi64(r))
#define HB_COLS1 hm_f32x16_cols
static inline void HB_REL_FLUSH(int32_t *rel, int64_t *bi, int64_t r)
{
    __m512i o = _mm512_loadu_si512(rel), rv = _mm512_set1_epi64(r);
    __mmask16 t = _mm512_cmp_epi32_mask(o, _mm512_setzero_si512(), _MM_CMPINT_NLT);
    __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(o));
    __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(o, 1));
    _mm512_mask_storeu_epi64(bi, (__mmask8)t, _mm512_add_epi64(rv, lo));
    _mm512_mask_storeu_epi64(bi + 8, (__mmask8)(t >> 8), _mm512_add_epi64(rv, hi));
    _mm512_storeu_si512(rel, _mm512_set1_epi32(-1));
}
/* one 64-byte line, non-temporal: a whole line per store */
#define HB_NT_ZERO(p) _mm512_stream_ps((float *)(p), _mm512_setzero_ps())
#define HB_NT_COPY(p, src) _mm512_stream_ps((float *)(p), _mm512_load_ps(src))
#include "hardmax_f32_body.h"

HM_ROW_KERNEL(f32, float, hm_f32z)
static size_t hm_f32z_row_stream_k(const void *x, size_t n, simdops_hm_lines *s)
{
    return hm_f32z_row_stream((const float *)x, n, s);
}
const simdops_hm_stream_pair simdops_hm_stream_pair__avx512 = {SIMDOPS_KERNEL_NAME(f32, argmax_row),
                                                               hm_f32z_row_stream_k};
HM_COLS_MANY_KERNEL(f32, float, hm_f32z_cols)
HM_COLS_KERNEL(f64, double, hm_f64x8)

#define HARDMAX_AVX512_KERNELS(X) X(argmax_row, f32) X(argmax_cols, f32) X(argmax_cols, f64)
SIMDOPS_DEFINE_REGISTER(hardmax, HARDMAX_AVX512_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, avx512)
const simdops_hm_stream_pair simdops_hm_stream_pair__avx512 = {NULL, NULL};
#endif
