/* Shared pieces of the x86 argmax kernels (hardmax_sse2.c, _sse41.c, _avx2.c,
 * _avx512.c): the scalar rule for short rows, the row and column templates over
 * a vector type, and the table-entry wrappers; hardmax_sse.h instantiates them
 * over 128-bit vectors.
 *
 * Include after isa.h, inside the TU's SIMDOPS_COMPILE_<ISA> block, with
 * SIMDOPS_TIER defined (the kernels' names).
 *
 * Row kernels, one pass over chunks of 4 KiB (at least 8 vectors), with best = max of
 * all chunks so far (hardmax_avx2.c's float32 row replaces this with a branch-free
 * block scan):
 *   a chunk is only looked at closely when one of its lanes "triggers" (is NaN or
 *   greater than best: one compare per vector against a broadcast best); then
 *   a NaN in the chunk -> the answer is its first NaN (earlier chunks had none),
 *   else best = the chunk's max and the chunk is remembered. Ties never trigger,
 *   so the remembered chunk is the first that holds the max, and the answer is
 *   the first lane of that chunk equal to it.
 * Keys order exactly like the values: floats compare as they are (-0.0 == +0.0);
 * float16 uses int16 keys (hm_h8_key). A row shorter than one vector goes to the
 * next narrower kernel; a partial last vector is loaded overlapping the previous
 * one (max, trigger and "first hit" do not mind repeats).
 *
 * Column kernels: mask = row beats best, then blend values and int64 indices. A
 * repeated column is harmless (v never beats itself), so the last partial vector
 * overlaps too. */
#ifndef SIMDOPS_HARDMAX_X86_H
#define SIMDOPS_HARDMAX_X86_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hardmax_kernels.h"

#include <immintrin.h>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

/* The column scan prefetches HM_PF_BYTES ahead, a block's lines per block
 * (rows too large for L2 arrive from L3 or memory). The row scan does not: on
 * hardmax 4096x1024 float32 (past the streaming threshold) it ran 1.05-1.24
 * of memcpy without the prefetch and 0.95-1.11 with it, and 1024x1024 (L3)
 * was the same either way (tools/cbench, interleaved). */
#define HM_PF_BYTES 1536
#define HM_PREFETCH(q, bytes)                                                               \
    do {                                                                                    \
        const char *q_ = (const char *)(q);                                                 \
        for (size_t k_ = 0; k_ < (bytes); k_ += 64)                                         \
            _mm_prefetch(q_ + k_, _MM_HINT_T0);                                             \
    } while (0)

/* Row chunk: HM_ROW_CHUNK_BYTES of elements, at least 8 vectors. The first chunk
 * is a branch-free max-reduce and a find pass over data then in L1; each further
 * chunk one trigger test. Chunks of 8 vectors (the design before) took the branch
 * and the rescan at every rise of the running max (~2.8 times a 1024-float row
 * of random data), each a mispredict that flushed the loads of the next rows:
 * the float32 avx2 scan of 1024x1024 ran 99-122 us against 74-77 us with 4 KiB
 * chunks (a bare read: 42 us; tools/hmbench.c, interleaved). */
#define HM_ROW_CHUNK_BYTES 4096
#define HM_ROW_CHUNK(P, T)                                                                  \
    (HM_ROW_CHUNK_BYTES / sizeof(T) > 8 * P##_W ? HM_ROW_CHUNK_BYTES / sizeof(T) : 8 * P##_W)

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

static inline unsigned hm_ctz(unsigned m) /* m != 0 */
{
    return hm_ctz64(m);
}

/* ---- scalar: the reference rule, for rows/column blocks shorter than a vector.
 * Pointers may be misaligned for their type, so elements move through memcpy. ---- */

#define HM_BEATS(v, b) ((v) > (b) || ((v) != (v) && (b) == (b)))

static inline uint16_t hm_ldh(const uint16_t *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    return h;
}
static inline int hm_h_nan(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
/* +-magnitude: orders non-NaN halves like their values, both zeros -> 0 */
static inline int hm_h_key(uint16_t h)
{
    return (h & 0x8000) ? -(int)(h & 0x7fff) : (int)(h & 0x7fff);
}
static inline int hm_h_beats(uint16_t v, uint16_t b)
{
    return !hm_h_nan(b) && (hm_h_nan(v) || hm_h_key(v) > hm_h_key(b));
}

#define HM_SCALAR_FLOAT(P, T)                                                               \
    static inline T P##_ld(const T *p)                                                      \
    {                                                                                       \
        T v;                                                                                \
        memcpy(&v, p, sizeof v);                                                            \
        return v;                                                                           \
    }                                                                                       \
    static inline size_t P##_row(const T *x, size_t n)                                      \
    {                                                                                       \
        T best = P##_ld(x);                                                                 \
        size_t at = 0;                                                                      \
        for (size_t i = 1; i < n && best == best; i++) {                                    \
            T v = P##_ld(x + i);                                                            \
            if (HM_BEATS(v, best)) { best = v; at = i; }                                    \
        }                                                                                   \
        return at;                                                                          \
    }                                                                                       \
    static inline void P##_cols(const T *row, size_t cols, int64_t r, T *best, int64_t *bi) \
    {                                                                                       \
        for (size_t j = 0; j < cols; j++)                                                   \
            if (HM_BEATS(P##_ld(row + j), P##_ld(best + j))) {                              \
                memcpy(best + j, row + j, sizeof(T));                                       \
                bi[j] = r;                                                                  \
            }                                                                               \
    }
HM_SCALAR_FLOAT(hm_f32s, float)
HM_SCALAR_FLOAT(hm_f64s, double)

static inline size_t hm_f16s_row(const uint16_t *x, size_t n)
{
    size_t at = 0;
    int best = hm_h_key(hm_ldh(x));
    if (hm_h_nan(hm_ldh(x)))
        return 0;
    for (size_t i = 1; i < n; i++) {
        uint16_t h = hm_ldh(x + i);
        if (hm_h_nan(h))
            return i;
        if (hm_h_key(h) > best) { best = hm_h_key(h); at = i; }
    }
    return at;
}
static inline void hm_f16s_cols(const uint16_t *row, size_t cols, int64_t r, uint16_t *best,
                                int64_t *bi)
{
    for (size_t j = 0; j < cols; j++)
        if (hm_h_beats(hm_ldh(row + j), hm_ldh(best + j))) {
            memcpy(best + j, row + j, 2);
            bi[j] = r;
        }
}

/* ---- templates over a vector type "P", which defines: P##_V, _M (type of a compare
 * result, _OR'd and _BITS'd: the vector itself, or an AVX-512 opmask), _W (lanes), _LOAD, _OR,
 * _KEY (ordered key of a raw vector), _MAX (of keys), _NANINIT/_NAN1/_NAN2/_ANYNAN(u, max)
 * (NaN evidence), _VMAX (max of all lanes, in every lane), _TRIG(raw, best) (beats best),
 * _EQ(raw, keys), _ISNAN(raw), _BITS (movemask), _SHIFT (log2 mask bits per lane),
 * _NARROW (row kernel for n < W); for columns also _IV, _STORE, _BEATS, _SEL, _RIDX
 * (broadcast row index), _IDX (blend int64 indices), _NARROWCOLS (cols < W). ---- */

#define HM_HIT_EQ(P, v, vm) P##_EQ(v, vm)
#define HM_HIT_NAN(P, v, vm) P##_ISNAN(v)

/* First lane in x[0..n) (n >= W) that HIT selects; one is known to exist. */
#define HM_FIND(P, T, name, HIT)                                                            \
    static inline size_t P##_##name(const T *x, size_t n, P##_V vm)                         \
    {                                                                                       \
        size_t i = 0;                                                                       \
        unsigned k;                                                                         \
        (void)vm;                                                                           \
        for (; i + 4 * P##_W <= n; i += 4 * P##_W) {                                        \
            P##_M h0 = HIT(P, P##_LOAD(x + i), vm);                                         \
            P##_M h1 = HIT(P, P##_LOAD(x + i + P##_W), vm);                                 \
            P##_M h2 = HIT(P, P##_LOAD(x + i + 2 * P##_W), vm);                             \
            P##_M h3 = HIT(P, P##_LOAD(x + i + 3 * P##_W), vm);                             \
            if (P##_BITS(P##_OR(P##_OR(h0, h1), P##_OR(h2, h3)))) {                         \
                if ((k = P##_BITS(h0)) != 0) return i + (hm_ctz(k) >> P##_SHIFT);           \
                if ((k = P##_BITS(h1)) != 0) return i + P##_W + (hm_ctz(k) >> P##_SHIFT);   \
                if ((k = P##_BITS(h2)) != 0)                                                \
                    return i + 2 * P##_W + (hm_ctz(k) >> P##_SHIFT);                        \
                return i + 3 * P##_W + (hm_ctz(P##_BITS(h3)) >> P##_SHIFT);                 \
            }                                                                               \
        }                                                                                   \
        for (; i + P##_W <= n; i += P##_W)                                                  \
            if ((k = P##_BITS(HIT(P, P##_LOAD(x + i), vm))) != 0)                           \
                return i + (hm_ctz(k) >> P##_SHIFT);                                        \
        /* the lanes this overlaps were checked above without a hit */                      \
        k = P##_BITS(HIT(P, P##_LOAD(x + n - P##_W), vm));                                  \
        return n - P##_W + (hm_ctz(k) >> P##_SHIFT);                                        \
    }

#define HM_ROW(P, T)                                                                        \
    /* Max key of x[0..n) in every lane, n >= W; *nan set when x holds a NaN (the max */    \
    /* is then junk). */                                                                    \
    static inline P##_V P##_scan(const T *x, size_t n, int *nan)                            \
    {                                                                                       \
        P##_V b = P##_LOAD(x), u = P##_NAN1(P##_NANINIT(), b);                              \
        P##_V a0 = P##_KEY(b), a1 = a0, a2 = a0, a3 = a0;                                   \
        size_t i = P##_W;                                                                   \
        for (; i + 4 * P##_W <= n; i += 4 * P##_W) {                                        \
            P##_V b0 = P##_LOAD(x + i), b1 = P##_LOAD(x + i + P##_W);                       \
            P##_V b2 = P##_LOAD(x + i + 2 * P##_W), b3 = P##_LOAD(x + i + 3 * P##_W);       \
            a0 = P##_MAX(P##_KEY(b0), a0);                                                  \
            a1 = P##_MAX(P##_KEY(b1), a1);                                                  \
            a2 = P##_MAX(P##_KEY(b2), a2);                                                  \
            a3 = P##_MAX(P##_KEY(b3), a3);                                                  \
            u = P##_NAN2(P##_NAN2(u, b0, b1), b2, b3);                                      \
        }                                                                                   \
        for (; i + P##_W <= n; i += P##_W) {                                                \
            b = P##_LOAD(x + i);                                                            \
            a0 = P##_MAX(P##_KEY(b), a0);                                                   \
            u = P##_NAN1(u, b);                                                             \
        }                                                                                   \
        if (i < n) {                                                                        \
            b = P##_LOAD(x + n - P##_W);                                                    \
            a1 = P##_MAX(P##_KEY(b), a1);                                                   \
            u = P##_NAN1(u, b);                                                             \
        }                                                                                   \
        a0 = P##_MAX(P##_MAX(a0, a1), P##_MAX(a2, a3));                                     \
        (void)u;                                                                            \
        *nan = P##_ANYNAN(u, a0);                                                           \
        return P##_VMAX(a0);                                                                \
    }                                                                                       \
    HM_FIND(P, T, find_eq, HM_HIT_EQ)                                                       \
    HM_FIND(P, T, find_nan, HM_HIT_NAN)                                                     \
    /* Chunk x[s..e) (e - s >= W) holds a lane beating best: make its max the new */        \
    /* best (*rv, broadcast), or return 1 with *at = its first NaN. */                      \
    static inline int P##_take(const T *x, size_t s, size_t e, P##_V *rv, size_t *bs,       \
                               size_t *be, size_t *at)                                      \
    {                                                                                       \
        int nan;                                                                            \
        P##_V m = P##_scan(x + s, e - s, &nan);                                             \
        if (nan) {                                                                          \
            *at = s + P##_find_nan(x + s, e - s, *rv);                                      \
            return 1;                                                                       \
        }                                                                                   \
        *rv = m;                                                                            \
        *bs = s;                                                                            \
        *be = e;                                                                            \
        return 0;                                                                           \
    }                                                                                       \
    /* Lanes of p[0..8W) that beat best (or are NaN), or-ed together. */                    \
    static inline P##_M P##_trig8(const T *p, P##_V rv)                                     \
    {                                                                                       \
        P##_M t0 = P##_OR(P##_TRIG(P##_LOAD(p), rv), P##_TRIG(P##_LOAD(p + P##_W), rv));    \
        P##_M t1 = P##_OR(P##_TRIG(P##_LOAD(p + 2 * P##_W), rv),                            \
                          P##_TRIG(P##_LOAD(p + 3 * P##_W), rv));                           \
        P##_M t2 = P##_OR(P##_TRIG(P##_LOAD(p + 4 * P##_W), rv),                            \
                          P##_TRIG(P##_LOAD(p + 5 * P##_W), rv));                           \
        P##_M t3 = P##_OR(P##_TRIG(P##_LOAD(p + 6 * P##_W), rv),                            \
                          P##_TRIG(P##_LOAD(p + 7 * P##_W), rv));                           \
        return P##_OR(P##_OR(t0, t1), P##_OR(t2, t3));                                      \
    }                                                                                       \
    /* The row in chunks of ch elements (a multiple of 8W). */                              \
    static inline size_t P##_row_chunked(const T *x, size_t n, size_t ch)                   \
    {                                                                                       \
        size_t s, bs = 0, be = n < ch ? n : ch, at;                                         \
        P##_V rv = P##_NANINIT();                                                           \
        if (n < P##_W)                                                                      \
            return P##_NARROW(x, n);                                                        \
        if (P##_take(x, 0, be, &rv, &bs, &be, &at))                                         \
            return at;                                                                      \
        for (s = be; s + ch <= n; s += ch) {                                                \
            P##_M t = P##_trig8(x + s, rv);                                                 \
            for (size_t g = 8 * P##_W; g < ch; g += 8 * P##_W)                              \
                t = P##_OR(t, P##_trig8(x + s + g, rv));                                    \
            if (P##_BITS(t) && P##_take(x, s, s + ch, &rv, &bs, &be, &at))                  \
                return at;                                                                  \
        }                                                                                   \
        if (s < n) {                                                                        \
            /* a short tail reaches back into the previous chunk: those lanes are */        \
            /* NaN-free and <= best, so they never trigger nor equal a new max */           \
            size_t s2 = n - s < P##_W ? n - P##_W : s, i;                                   \
            P##_M t = P##_TRIG(P##_LOAD(x + n - P##_W), rv);                                \
            for (i = s2; i + P##_W < n; i += P##_W)                                         \
                t = P##_OR(t, P##_TRIG(P##_LOAD(x + i), rv));                               \
            if (P##_BITS(t) && P##_take(x, s2, n, &rv, &bs, &be, &at))                      \
                return at;                                                                  \
        }                                                                                   \
        return bs + P##_find_eq(x + bs, be - bs, rv);                                       \
    }                                                                                       \
    static inline size_t P##_row(const T *x, size_t n)                                      \
    {                                                                                       \
        return P##_row_chunked(x, n, HM_ROW_CHUNK(P, T));                                   \
    }

#define HM_COLS(P, T)                                                                       \
    static inline void P##_upd(T *best, int64_t *bi, P##_V v, P##_V b, P##_M m, P##_IV rv)  \
    {                                                                                       \
        if (P##_BITS(m)) { /* rare after the first rows: skip the stores */                 \
            P##_STORE(best, P##_SEL(m, v, b));                                              \
            P##_IDX(bi, m, rv);                                                             \
        }                                                                                   \
    }                                                                                       \
    static inline void P##_col1(const T *row, T *best, int64_t *bi, P##_IV rv)              \
    {                                                                                       \
        P##_V v = P##_LOAD(row), b = P##_LOAD(best);                                        \
        P##_upd(best, bi, v, b, P##_BEATS(v, b), rv);                                       \
    }                                                                                       \
    static inline void P##_cols(const T *row, size_t cols, int64_t r, T *best, int64_t *bi) \
    {                                                                                       \
        size_t j = 0;                                                                       \
        P##_IV rv;                                                                          \
        if (cols < P##_W) {                                                                 \
            P##_NARROWCOLS(row, cols, r, best, bi);                                         \
            return;                                                                         \
        }                                                                                   \
        rv = P##_RIDX(r);                                                                   \
        for (; j + 4 * P##_W <= cols; j += 4 * P##_W) {                                     \
            P##_V v0 = P##_LOAD(row + j), b0 = P##_LOAD(best + j);                          \
            P##_V v1 = P##_LOAD(row + j + P##_W), b1 = P##_LOAD(best + j + P##_W);          \
            P##_V v2 = P##_LOAD(row + j + 2 * P##_W), b2 = P##_LOAD(best + j + 2 * P##_W);  \
            P##_V v3 = P##_LOAD(row + j + 3 * P##_W), b3 = P##_LOAD(best + j + 3 * P##_W);  \
            P##_M m0 = P##_BEATS(v0, b0), m1 = P##_BEATS(v1, b1);                           \
            P##_M m2 = P##_BEATS(v2, b2), m3 = P##_BEATS(v3, b3);                           \
            HM_PREFETCH((const char *)(row + j) + HM_PF_BYTES, 4 * P##_W * sizeof(T));       \
            if (P##_BITS(P##_OR(P##_OR(m0, m1), P##_OR(m2, m3)))) {                         \
                P##_upd(best + j, bi + j, v0, b0, m0, rv);                                  \
                P##_upd(best + j + P##_W, bi + j + P##_W, v1, b1, m1, rv);                  \
                P##_upd(best + j + 2 * P##_W, bi + j + 2 * P##_W, v2, b2, m2, rv);          \
                P##_upd(best + j + 3 * P##_W, bi + j + 3 * P##_W, v3, b3, m3, rv);          \
            }                                                                               \
        }                                                                                   \
        for (; j + P##_W <= cols; j += P##_W)                                               \
            P##_col1(row + j, best + j, bi + j, rv);                                        \
        if (j < cols) /* overlap: a column already taken never beats itself */              \
            P##_col1(row + cols - P##_W, best + cols - P##_W, bi + cols - P##_W, rv);       \
    }

/* The table entries of the tier being compiled (SIMDOPS_TIER) over template
 * instance P for dtype tag (C type T): <tag>_argmax_row__<tier> and
 * <tag>_argmax_cols__<tier>. HM_KERNELS makes the six of HARDMAX_KERNELS over
 * the instances F32/F64/F16. */
#define HM_ROW_KERNEL(tag, T, P)                                                            \
    static size_t SIMDOPS_KERNEL_NAME(tag, argmax_row)(const void *x, size_t n)             \
    {                                                                                       \
        return P##_row((const T *)x, n);                                                    \
    }
#define HM_COLS_KERNEL(tag, T, P)                                                           \
    static void SIMDOPS_KERNEL_NAME(tag, argmax_cols)(const void *x, int64_t stride,        \
                                                      size_t rows, size_t cols, int64_t r,  \
                                                      void *best, int64_t *bi)              \
    {                                                                                       \
        for (size_t k = 0; k < rows; k++)                                                   \
            P##_cols((const T *)(const void *)((const char *)x + (int64_t)k * stride), cols, \
                     r + (int64_t)k, (T *)best, bi);                                        \
    }
/* A column kernel that takes the call's rows itself (fn: hardmax_f32_body.h's cols). */
#define HM_COLS_MANY_KERNEL(tag, T, fn)                                                     \
    static void SIMDOPS_KERNEL_NAME(tag, argmax_cols)(const void *x, int64_t stride,        \
                                                      size_t rows, size_t cols, int64_t r,  \
                                                      void *best, int64_t *bi)              \
    {                                                                                       \
        fn(x, stride, rows, cols, r, (T *)best, bi);                                        \
    }
#define HM_KERNELS(F32, F64, F16)                                                           \
    HM_ROW_KERNEL(f32, float, F32) HM_ROW_KERNEL(f64, double, F64)                          \
    HM_ROW_KERNEL(f16, uint16_t, F16) HM_COLS_KERNEL(f32, float, F32)                       \
    HM_COLS_KERNEL(f64, double, F64) HM_COLS_KERNEL(f16, uint16_t, F16)

#endif
