/* The float32 argmax kernels of the wide x86 tiers, written once over a vector
 * of HB_W floats (8: avx2, 16: avx512): the branch-free last-axis block scan
 * and the many-rows column kernel (a four-row max tree per group, int32 row
 * offsets per chunk). Re-included by each tier's TU (no include guard) after
 * the tier defines its helpers:
 *
 *   HB_PREFIX         name prefix of the kernels (HB_PREFIX##row, ##cols)
 *   HB_W              lanes per vector (8 or 16)
 *   HB_V, HB_M, HB_I  float vector, compare result (vector or opmask), int32 vector
 *   HB_LOAD(p) HB_STORE(p, v) HB_MAX(a, b)   (max(a, b) = a > b ? a : b)
 *   HB_GT(a, b) HB_UNORD(a, b) -> HB_M; HB_MNONE (no lane); HB_MOR; HB_MANY(m) (any lane)
 *   HB_EQBITS(p, m)   bit k: p[k] == m[k], k < HB_W
 *   HB_VMAX(v)        the max of v's lanes, in every lane
 *   HB_ISET1(i) HB_IADD(a, b) HB_ISEL(a, m, b) (m ? b : a) HB_IREDUCE_MIN(i)
 *   HB_REL_RISE(rel, m, i)  rel[k] = i[k] where lane k of m (int32 store)
 *   HB_REL_FLUSH(rel, bi, r) bi[k] = r + rel[k] where rel[k] >= 0, k < HB_W; rel = -1
 *   HB_SHORT_ROW(x, n)      the row kernel for n < 64 or n > INT32_MAX
 *   HB_FIND_NAN(x, n, v)    index of x's first NaN (x holds one)
 *   HB_COL1(row, best, bi, r)  the exact one-row update of HB_W columns
 *   HB_COLS1(row, cols, r, best, bi)  the one-row column kernel (any cols)
 *
 * Row scan. Per lane j, best_j is the largest block max seen in lane j (lane j
 * of a block's max is the max of elements HB_W*k + j of that 64-float block)
 * and idx_j the start of the first block where it reached best_j (strict >, so
 * ties keep the earlier block). The row's max M = max_j best_j; the first
 * element equal to M lies in the block b = min{idx_j : best_j == M} (a block
 * holding M sets best_j = M in the lane holding it, at that block or earlier),
 * so the answer is b + the first of its 64 lanes equal to M: compares into one
 * 64-bit mask. Blocks may overlap (a head block at 0, then blocks from a vector
 * boundary, a last block at n - 64), as long as their starts increase: if the
 * first M were at p < b, the block holding p starts before b and would have set
 * best = M in p's lane at a start before b; and block b holds an M at or after
 * p, so p lies in [b, b + 64). NaN evidence (an unordered compare per pair of
 * vectors) sends a row with a NaN to the first-NaN search; best is then junk.
 * best = max(m, best) is the blend of m where m > best (ordered) for every
 * input, NaN included. Compared with a chunked scan (a branch where the running
 * max rises, then a rescan) nothing in the row branches on the data, so the
 * out-of-order core keeps loading the next rows: on hardmax 1024x1024 the scan
 * costs ~1.3x a bare read instead of ~1.8x (docs/performance.md). Block starts
 * are int32: rows up to 2^31.
 *
 * Column kernel. Per HB_W columns the four row vectors of a group are reduced
 * first, as a tree in row order with "later beats earlier only when strictly
 * greater" (max(b, a) keeps a on a tie, as the reference keeps best), so best
 * is loaded, compared and stored once per four rows. Without NaN in the four
 * rows this is the reference rule applied row by row: a chain of
 * strict-greater-than updates keeps the first maximum, and grouping the chain
 * does not change which element that is. A NaN best (from an earlier NaN) is
 * never beaten: every ordered compare with it is false. A group with a NaN in
 * any lane of its four vectors (one unordered compare per pair of rows) is
 * applied row by row with the exact rule (HB_COL1); that branch is not taken on
 * NaN-free data. The winning row is an int32 offset within the call (three
 * selects of constants, one masked store where best rose) in a 4 KiB stack
 * array per chunk of HB_COL_CHUNK columns, moved into the int64 indices once
 * per chunk (and before a NaN group's exact updates, which write the indices
 * directly). A last partial vector overlaps the previous one: columns already
 * updated by this group hold a best that none of its rows beats, and the moves
 * write the same values again. On 1024 x 4096 (avx512) the scan costs ~2x a
 * bare read of the same bytes, against ~3.3x one row per call
 * (docs/performance.md). */

#define HB_CAT_(a, b) a##b
#define HB_CAT(a, b) HB_CAT_(a, b)
#define HB_FN(name) HB_CAT(HB_PREFIX, name)

/* Each vector of a block loaded once: the max and the unordered compare both
 * read it, and GCC folded it into both as memory operands (7 loads per 4
 * vectors in the row scan's loop), which on hardmax 1024x1024 kept the load
 * ports, not L3, the limit. An empty asm that takes the vector in a register
 * ends the folding (no instruction). */
#if defined(__GNUC__) || defined(__clang__)
#define HB_IN_REG(v) __asm__("" : "+v"(v))
#else
#define HB_IN_REG(v) ((void)0)
#endif

/* NaN evidence, kept in two accumulators (one per pair of vectors of a quad,
 * so neither chain is longer than one operation per block): by default the OR
 * of unordered compares (NaN seen where a lane is set); a tier may define its
 * own three (avx512: the lanes where every pair was ordered, one masked
 * compare per pair and no separate OR). */
#ifndef HB_NAN_INIT
#define HB_NAN_INIT HB_MNONE
#define HB_NAN_ACC(u, a, b) HB_MOR(u, HB_UNORD(a, b))
#define HB_NAN_SEEN(u0, u1) HB_MANY(HB_MOR(u0, u1))
#endif

/* four vectors from p: their max (a tree) and NaN evidence into *u0, *u1 */
static inline HB_V HB_FN(quad)(const float *p, HB_M *u0, HB_M *u1)
{
    HB_V v0 = HB_LOAD(p), v1 = HB_LOAD(p + HB_W);
    HB_V v2 = HB_LOAD(p + 2 * HB_W), v3 = HB_LOAD(p + 3 * HB_W);
    HB_IN_REG(v0);
    HB_IN_REG(v1);
    HB_IN_REG(v2);
    HB_IN_REG(v3);
    *u0 = HB_NAN_ACC(*u0, v0, v1);
    *u1 = HB_NAN_ACC(*u1, v2, v3);
    return HB_MAX(HB_MAX(v0, v1), HB_MAX(v2, v3));
}

/* lane-wise max of the 64-float block at p, NaN evidence into *u0, *u1 */
static inline HB_V HB_FN(block)(const float *p, HB_M *u0, HB_M *u1)
{
#if HB_W == 16
    return HB_FN(quad)(p, u0, u1);
#elif HB_W == 8
    HB_V a = HB_FN(quad)(p, u0, u1);
    return HB_MAX(a, HB_FN(quad)(p + 32, u0, u1));
#else
#error "hardmax_f32_body.h: HB_W must be 8 or 16"
#endif
}

static inline uint64_t HB_FN(eq64)(const float *p, HB_V m) /* bit k: p[k] == m */
{
    uint64_t e = 0;
    for (unsigned k = 0; k < 64 / HB_W; k++)
        e |= (uint64_t)HB_EQBITS(p + k * HB_W, m) << (k * HB_W);
    return e;
}

/* y's finished lines streamed in the row scan's loop (hardmax_stream.h): per
 * block after the first, up to four lines of s (256 bytes of y for the 256
 * bytes of x the block reads), HB_NT_ZERO(p) / HB_NT_COPY(p, src) storing a
 * line. They read nothing the scan reads (the lines lie below s->limit: rows
 * already scanned, in place as well), so the answer is the plain scan's. */
#define HB_LINE_ZERO(p) HB_NT_ZERO((void *)(p))
#define HB_LINE_COPY(p, src) HB_NT_COPY((void *)(p), src)
static inline void HB_FN(stream4)(simdops_hm_lines *s)
{
    uintptr_t p = s->cur;
    if (p + 256 <= s->limit && (s->k == s->n || s->one[s->k] >= p + 256)) {
        HB_NT_ZERO((void *)p);
        HB_NT_ZERO((void *)(p + 64));
        HB_NT_ZERO((void *)(p + 128));
        HB_NT_ZERO((void *)(p + 192));
        s->cur = p + 256;
    } else if (p < s->limit) { /* a line with a one, or the last lines */
        SIMDOPS_HM_LINES_WRITE(s, p + 256 <= s->limit ? p + 256 : s->limit, HB_LINE_ZERO,
                               HB_LINE_COPY);
    }
}

/* The row scan's state between blocks: per lane the largest block max (best)
 * and the first block start that reached it (idx), the running block start
 * (cur), NaN evidence (u0, u1) and the next block's start (i). */
typedef struct {
    HB_V best;
    HB_I idx, cur;
    HB_M u0, u1;
    size_t i;
} HB_FN(scan_state);

#if defined(_MSC_VER) && !defined(__clang__)
#define HB_SCAN_INLINE static __forceinline
#else
#define HB_SCAN_INLINE static inline __attribute__((always_inline))
#endif

/* the head block at x[0..64), n >= 64: the blocks after it start on a vector
 * boundary (when x is 4-byte aligned): x at 16 bytes past a line (numpy's large
 * buffers) made every other load split a line, 86 us against 56 us aligned at
 * 1024x1024 (avx2) */
HB_SCAN_INLINE void HB_FN(scan_init)(HB_FN(scan_state) *t, const float *x)
{
    size_t a = (uintptr_t)x % 4 ? 0 : (size_t)((0u - (uintptr_t)x) & (4 * HB_W - 1)) / 4;
    t->u0 = t->u1 = HB_NAN_INIT;
    t->idx = HB_ISET1(0);
    t->i = a ? a : 64;
    t->best = HB_FN(block)(x, &t->u0, &t->u1);
    t->cur = HB_ISET1((int32_t)t->i - 64);
}

/* the block at x + t->i (t->i <= n - 64) */
HB_SCAN_INLINE void HB_FN(scan_step)(HB_FN(scan_state) *t, const float *x)
{
    HB_V m = HB_FN(block)(x + t->i, &t->u0, &t->u1);
    t->cur = HB_IADD(t->cur, HB_ISET1(64));
    t->idx = HB_ISEL(t->idx, HB_GT(m, t->best), t->cur);
    t->best = HB_MAX(m, t->best);
    t->i += 64;
}

/* once t->i > n - 64: the last block at n - 64 if the blocks so far end before
 * n, then the answer */
HB_SCAN_INLINE size_t HB_FN(scan_finish)(HB_FN(scan_state) *t, const float *x, size_t n)
{
    size_t last = n - 64, end = t->i > 64 ? t->i : 64, i; /* the blocks so far cover [0, end) */
    HB_V mx;
    if (end < n) {
        HB_V m = HB_FN(block)(x + last, &t->u0, &t->u1);
        t->idx = HB_ISEL(t->idx, HB_GT(m, t->best), HB_ISET1((int32_t)last));
        t->best = HB_MAX(m, t->best);
    }
    if (HB_NAN_SEEN(t->u0, t->u1))
        return HB_FIND_NAN(x, n, t->best);
    mx = HB_VMAX(t->best);
    i = (size_t)(uint32_t)HB_IREDUCE_MIN(HB_ISEL(HB_ISET1(INT32_MAX), HB_EQ(t->best, mx), t->idx));
    return i + hm_ctz64(HB_FN(eq64)(x + i, mx)); /* not 0: the block holds mx */
}

/* The row scan, written once: HB_FN(row) runs it with s NULL (the branch folds
 * away: always inlined), HB_FN(row_stream) with y's lines to stream. */
HB_SCAN_INLINE size_t HB_FN(row_scan)(const float *x, size_t n, simdops_hm_lines *s)
{
    HB_FN(scan_state) t;
    if (n < 64 || n > (size_t)INT32_MAX)
        return HB_SHORT_ROW(x, n);
    HB_FN(scan_init)(&t, x);
    while (t.i <= n - 64) {
        HB_FN(scan_step)(&t, x);
        if (s)
            HB_FN(stream4)(s);
    }
    return HB_FN(scan_finish)(&t, x, n);
}

static inline size_t HB_FN(row)(const float *x, size_t n)
{
    return HB_FN(row_scan)(x, n, NULL);
}

static inline size_t HB_FN(row_stream)(const float *x, size_t n, simdops_hm_lines *s)
{
    return HB_FN(row_scan)(x, n, s);
}

/* Columns a call scans together: the driver's whole block (16 KiB of float32), so that
 * each of the four rows of a group is read as one contiguous 16 KiB run. Chunks of 1024
 * (4 KiB, a page: the prefetcher restarts at each) made every row four runs visited far
 * apart: at 1024x4096 axis 0 the scan alone ran 676-830 us against 511-794 us (tools/cbench
 * "hardmax bound axis 0", 5 alternating runs; docs/performance.md). rel is then 16 KiB of
 * stack. HB_COL_CHUNK_COLS overrides it (a tool's comparison). */
#ifndef HB_COL_CHUNK_COLS
#define HB_COL_CHUNK_COLS 4096
#endif
#define HB_COL_CHUNK HB_COL_CHUNK_COLS
/* The column kernel prefetches, for each line of the four rows it reads, the
 * same line of the next four rows (4 row strides on) into L2 (HB_COL_PF_NEXT 0:
 * no prefetch, a tool's comparison). The hardware prefetcher follows one
 * stream well, but here three of the four row streams start afresh every
 * four rows: at 1024 x 4096 float32 axis 0 (avx512, tools/hm_axis0.c, 31
 * rounds interleaved with memcpy) the scan alone ran 2.35 of memcpy's time
 * ratio with the prefetch against 1.93 without, the whole hardmax 1.35
 * against 1.09; prefetching 1 or 4 KiB ahead within the same rows, or the
 * next rows into L1 (evicting best), ran no faster than none. A prefetch past
 * the array's end (the last rows) is only a hint: it never faults. */
#ifndef HB_COL_PF_NEXT
#define HB_COL_PF_NEXT 1
#endif

/* Rows k..k+3 of the call (x at row k) at column j; c holds k..k+3 broadcast. */
static inline void HB_FN(group4)(const char *x, int64_t stride, size_t j, float *best,
                                 int32_t *rel, int64_t *bi, const HB_I c[4], int64_t r,
                                 int32_t k)
{
    const float *p0 = (const float *)(const void *)x + j;
    const float *p1 = (const float *)(const void *)(x + stride) + j;
    const float *p2 = (const float *)(const void *)(x + 2 * stride) + j;
    const float *p3 = (const float *)(const void *)(x + 3 * stride) + j;
    HB_V v0 = HB_LOAD(p0), v1 = HB_LOAD(p1), v2 = HB_LOAD(p2), v3 = HB_LOAD(p3);
    HB_V b = HB_LOAD(best + j), m01, m23, m;
    HB_M k01, k23, kk;
    if (HB_MANY(HB_MOR(HB_UNORD(v0, v1), HB_UNORD(v2, v3)))) {
        HB_REL_FLUSH(rel, bi + j, r);
        HB_COL1(p0, best + j, bi + j, r + k);
        HB_COL1(p1, best + j, bi + j, r + k + 1);
        HB_COL1(p2, best + j, bi + j, r + k + 2);
        HB_COL1(p3, best + j, bi + j, r + k + 3);
        return;
    }
    k01 = HB_GT(v1, v0);
    m01 = HB_MAX(v1, v0);
    k23 = HB_GT(v3, v2);
    m23 = HB_MAX(v3, v2);
    kk = HB_GT(m23, m01);
    m = HB_MAX(m23, m01);
    HB_STORE(best + j, HB_MAX(m, b));
    HB_REL_RISE(rel, HB_GT(m, b),
                HB_ISEL(HB_ISEL(c[0], k01, c[1]), kk, HB_ISEL(c[2], k23, c[3])));
}

static inline void HB_FN(cols)(const void *xv, int64_t stride, size_t rows, size_t cols,
                               int64_t r, float *best, int64_t *bi)
{
    const char *x = (const char *)xv;
    size_t grouped = cols >= HB_W && rows <= (size_t)INT32_MAX ? rows / 4 * 4 : 0, k;
    for (size_t j0 = 0; grouped && j0 < cols; j0 += HB_COL_CHUNK) {
        int32_t rel[HB_COL_CHUNK];
        size_t cc = cols - j0 < HB_COL_CHUNK ? cols - j0 : HB_COL_CHUNK, j;
        if (cc < HB_W) { /* a narrow last chunk: the HB_W columns ending at cols */
            j0 = cols - HB_W;
            cc = HB_W;
        }
        memset(rel, 0xff, cc * sizeof(int32_t));
        for (k = 0; k < grouped; k += 4) {
            const char *xk = x + (int64_t)k * stride;
            HB_I c[4];
            c[0] = HB_ISET1((int32_t)k);
            c[1] = HB_ISET1((int32_t)k + 1);
            c[2] = HB_ISET1((int32_t)k + 2);
            c[3] = HB_ISET1((int32_t)k + 3);
            for (j = 0; j + HB_W <= cc; j += HB_W) {
#if HB_COL_PF_NEXT
                if ((j * sizeof(float)) % 64 == 0) { /* once per line */
                    /* addresses as integers: past the last row they point nowhere */
                    uintptr_t q = (uintptr_t)xk + (uintptr_t)(4 * stride) + (j0 + j) * sizeof(float);
                    _mm_prefetch((const char *)q, _MM_HINT_T1);
                    _mm_prefetch((const char *)(q + (uintptr_t)stride), _MM_HINT_T1);
                    _mm_prefetch((const char *)(q + 2 * (uintptr_t)stride), _MM_HINT_T1);
                    _mm_prefetch((const char *)(q + 3 * (uintptr_t)stride), _MM_HINT_T1);
                }
#endif
                HB_FN(group4)(xk, stride, j0 + j, best, rel + j, bi, c, r, (int32_t)k);
            }
            if (j < cc)
                HB_FN(group4)(xk, stride, j0 + cc - HB_W, best, rel + cc - HB_W, bi, c, r,
                              (int32_t)k);
        }
        for (j = 0; j + HB_W <= cc; j += HB_W)
            HB_REL_FLUSH(rel + j, bi + j0 + j, r);
        if (j < cc)
            HB_REL_FLUSH(rel + cc - HB_W, bi + j0 + cc - HB_W, r);
    }
    x += (int64_t)grouped * stride;
    r += (int64_t)grouped;
    for (k = grouped; k < rows; k++, x += stride, r++)
        HB_COLS1((const float *)(const void *)x, cols, r, best, bi);
}
