/* hardmax 1024x1024 float32 in L3 (last axis, 4 MiB in + 4 MiB out) on the
 * AVX-512 tier: the row scan's designs and the orders of the write, side by
 * side in one process, interleaved with memcpy. Each round times every
 * variant once in a new random order; the report gives per variant the median
 * time and the median and quartiles of the per-round ratio memcpy / variant.
 *
 * The AVX-512 kernel file is compiled into this tool (its static functions
 * are the variants), so it builds with that tier's flags and nothing else of
 * the package:  bash tools/cbench.sh OUT  -> OUT/hm_l3 [rounds] [offset]
 * (offset: bytes past a 64-byte line for x and y; numpy's large buffers: 16).
 *
 *   read          a bare read: 4 max accumulators, no index, no NaN evidence
 *   memset y      the write alone (glibc's memset, rep stosb at this size)
 *   scan max      the kernel before, copied here: NaN evidence as two unordered
 *                 compares per block OR'd into one mask (GCC moves each to a
 *                 general register), and GCC folds each load into both the max
 *                 and the compare (7 loads per 4 vectors)
 *   scan now      the library's row kernel (hm_f32z_row): each vector loaded
 *                 once, NaN evidence as masked ordered compares
 *   scan range    the block loop with no NaN evidence at all (vrangeps as max,
 *                 which is NOT exact: it returns the other operand of a quiet
 *                 NaN): the floor of this loop, for comparison only
 *   scan max128   128-float blocks (max + unordered compares)
 *   range no tail scan range without the row's tail (what the tail costs)
 *   range pairs   two rows' block loops in one loop (independent chains, one
 *                 row's tail beside the other's)
 *   hardmax *     all rows scanned, one memset of y, then the ones (the
 *                 driver's order in cache), with a scan above; "pairs" two
 *                 calls per step; "rowzero" zeroes each row of y with plain
 *                 zmm stores before the next row's scan; "stosb64K" zeroes
 *                 64 KiB of y after each 16 rows */
#include "kernels/hardmax/hardmax_avx512.c"
#include "hm_tool.h"

/* the kernel before (max + two unordered compares per block), kept here */
static size_t scan_max(const float *x, size_t n)
{
    __mmask16 u = 0;
    __m512 best, m;
    __m512i idx = _mm512_setzero_si512(), cur;
    const __m512i step = _mm512_set1_epi32(64);
    size_t i, last = n - 64, a, end = 64;
    a = (size_t)((0u - (uintptr_t)x) & 63) / 4;
    i = a ? a : 64;
    {
        __m512 v0 = _mm512_loadu_ps(x), v1 = _mm512_loadu_ps(x + 16);
        __m512 v2 = _mm512_loadu_ps(x + 32), v3 = _mm512_loadu_ps(x + 48);
        u |= _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v2, v3, _CMP_UNORD_Q);
        best = _mm512_max_ps(_mm512_max_ps(v0, v1), _mm512_max_ps(v2, v3));
    }
    cur = _mm512_set1_epi32((int32_t)i - 64);
    for (; i <= last; i += 64) {
        const float *p = x + i;
        __m512 v0 = _mm512_loadu_ps(p), v1 = _mm512_loadu_ps(p + 16);
        __m512 v2 = _mm512_loadu_ps(p + 32), v3 = _mm512_loadu_ps(p + 48);
        u |= _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v2, v3, _CMP_UNORD_Q);
        m = _mm512_max_ps(_mm512_max_ps(v0, v1), _mm512_max_ps(v2, v3));
        cur = _mm512_add_epi32(cur, step);
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ), cur);
        best = _mm512_max_ps(m, best);
        end = i + 64;
    }
    if (end < n) {
        const float *p = x + last;
        __m512 v0 = _mm512_loadu_ps(p), v1 = _mm512_loadu_ps(p + 16);
        __m512 v2 = _mm512_loadu_ps(p + 32), v3 = _mm512_loadu_ps(p + 48);
        u |= _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v2, v3, _CMP_UNORD_Q);
        m = _mm512_max_ps(_mm512_max_ps(v0, v1), _mm512_max_ps(v2, v3));
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ),
                                    _mm512_set1_epi32((int32_t)last));
        best = _mm512_max_ps(m, best);
    }
    if (u)
        return hm_f32x16_find_nan(x, n, best);
    {
        __m512 mx = _mm512_set1_ps(_mm512_reduce_max_ps(best));
        i = (size_t)(uint32_t)_mm512_reduce_min_epi32(_mm512_mask_mov_epi32(
            _mm512_set1_epi32(INT32_MAX), _mm512_cmp_ps_mask(best, mx, _CMP_EQ_OQ), idx));
        return i + hm_ctz64(hm_f32z_eq64(x + i, mx));
    }
}


/* vrangeps imm 0x05: max (bits 1:0 = 01), sign from src1 (bits 3:2 = 01);
 * a NaN in either source gives a NaN */
#define RMAX(a, b) _mm512_range_ps(a, b, 0x05)
static inline __m512 rblock(const float *p)
{
    __m512 v0 = _mm512_loadu_ps(p), v1 = _mm512_loadu_ps(p + 16);
    __m512 v2 = _mm512_loadu_ps(p + 32), v3 = _mm512_loadu_ps(p + 48);
    return RMAX(RMAX(v0, v1), RMAX(v2, v3));
}
static size_t scan_range(const float *x, size_t n)
{
    __m512 best, m;
    __m512i idx = _mm512_setzero_si512(), cur;
    const __m512i step = _mm512_set1_epi32(64);
    size_t i, last = n - 64, a, end = 64;
    a = (size_t)((0u - (uintptr_t)x) & 63) / 4;
    i = a ? a : 64;
    best = rblock(x);
    cur = _mm512_set1_epi32((int32_t)i - 64);
    for (; i <= last; i += 64) {
        m = rblock(x + i);
        cur = _mm512_add_epi32(cur, step);
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ), cur);
        best = RMAX(m, best);
        end = i + 64;
    }
    if (end < n) {
        m = rblock(x + last);
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ),
                                    _mm512_set1_epi32((int32_t)last));
        best = RMAX(m, best);
    }
    if (_mm512_cmp_ps_mask(best, best, _CMP_UNORD_Q))
        return hm_f32x16_find_nan(x, n, best);
    {
        __m512 mx = _mm512_set1_ps(_mm512_reduce_max_ps(best));
        i = (size_t)(uint32_t)_mm512_reduce_min_epi32(_mm512_mask_mov_epi32(
            _mm512_set1_epi32(INT32_MAX), _mm512_cmp_ps_mask(best, mx, _CMP_EQ_OQ), idx));
        return i + hm_ctz64(hm_f32z_eq64(x + i, mx));
    }
}
/* 128-float blocks, max + unordered compares */
static size_t scan_max128(const float *x, size_t n)
{
    __mmask16 u = 0;
    __m512 best, m;
    __m512i idx = _mm512_setzero_si512(), cur;
    const __m512i step = _mm512_set1_epi32(128);
    size_t i, last = n - 128, a, end = 128;
    a = (size_t)((0u - (uintptr_t)x) & 63) / 4;
    i = a ? a : 128;
#define QB(p, out) do { __m512 v0 = _mm512_loadu_ps(p), v1 = _mm512_loadu_ps(p + 16); \
        __m512 v2 = _mm512_loadu_ps(p + 32), v3 = _mm512_loadu_ps(p + 48); \
        __m512 v4 = _mm512_loadu_ps(p + 64), v5 = _mm512_loadu_ps(p + 80); \
        __m512 v6 = _mm512_loadu_ps(p + 96), v7 = _mm512_loadu_ps(p + 112); \
        u |= _mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v2, v3, _CMP_UNORD_Q) \
           | _mm512_cmp_ps_mask(v4, v5, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v6, v7, _CMP_UNORD_Q); \
        out = _mm512_max_ps(_mm512_max_ps(_mm512_max_ps(v0, v1), _mm512_max_ps(v2, v3)), \
                            _mm512_max_ps(_mm512_max_ps(v4, v5), _mm512_max_ps(v6, v7))); } while (0)
    QB(x, best);
    cur = _mm512_set1_epi32((int32_t)i - 128);
    for (; i <= last; i += 128) {
        QB(x + i, m);
        cur = _mm512_add_epi32(cur, step);
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ), cur);
        best = _mm512_max_ps(m, best);
        end = i + 128;
    }
    if (end < n) {
        QB(x + last, m);
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ),
                                    _mm512_set1_epi32((int32_t)last));
        best = _mm512_max_ps(m, best);
    }
    if (u)
        return hm_f32x16_find_nan(x, n, best);
    {
        __m512 mx = _mm512_set1_ps(_mm512_reduce_max_ps(best));
        i = (size_t)(uint32_t)_mm512_reduce_min_epi32(_mm512_mask_mov_epi32(
            _mm512_set1_epi32(INT32_MAX), _mm512_cmp_ps_mask(best, mx, _CMP_EQ_OQ), idx));
        uint64_t e0 = hm_f32z_eq64(x + i, mx), e1 = hm_f32z_eq64(x + i + 64, mx);
        unsigned c0 = (unsigned)__builtin_ctzll(e0 | (1ull << 63)), c1 = 64 + (unsigned)__builtin_ctzll(e1);
        return i + (e0 ? c0 : c1);
    }
}


/* the block loop of scan_range without the row's tail (what the tail costs) */
static size_t scan_range_notail(const float *x, size_t n)
{
    __m512 best, m;
    __m512i idx = _mm512_setzero_si512(), cur;
    const __m512i step = _mm512_set1_epi32(64);
    size_t i, last = n - 64, a, end = 64;
    a = (size_t)((0u - (uintptr_t)x) & 63) / 4;
    i = a ? a : 64;
    best = rblock(x);
    cur = _mm512_set1_epi32((int32_t)i - 64);
    for (; i <= last; i += 64) {
        m = rblock(x + i);
        cur = _mm512_add_epi32(cur, step);
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ), cur);
        best = RMAX(m, best);
        end = i + 64;
    }
    if (end < n) {
        m = rblock(x + last);
        idx = _mm512_mask_mov_epi32(idx, _mm512_cmp_ps_mask(m, best, _CMP_GT_OQ),
                                    _mm512_set1_epi32((int32_t)last));
        best = RMAX(m, best);
    }
    return (size_t)_mm512_cvtsi512_si32(idx) + (size_t)_mm512_cvtss_f32(best);
}
/* two rows' block loops in one loop: independent chains, tails after */
static void scan_range_pair(const float *x0, const float *x1, size_t n, size_t *a0, size_t *a1)
{
    __m512 b0, b1, m0, m1;
    __m512i i0 = _mm512_setzero_si512(), i1 = i0, cur;
    const __m512i step = _mm512_set1_epi32(64);
    size_t i, last = n - 64, a, end = 64;
    /* both rows at the same alignment (n * 4 a multiple of 64) */
    a = (size_t)((0u - (uintptr_t)x0) & 63) / 4;
    i = a ? a : 64;
    b0 = rblock(x0);
    b1 = rblock(x1);
    cur = _mm512_set1_epi32((int32_t)i - 64);
    for (; i <= last; i += 64) {
        m0 = rblock(x0 + i);
        m1 = rblock(x1 + i);
        cur = _mm512_add_epi32(cur, step);
        i0 = _mm512_mask_mov_epi32(i0, _mm512_cmp_ps_mask(m0, b0, _CMP_GT_OQ), cur);
        i1 = _mm512_mask_mov_epi32(i1, _mm512_cmp_ps_mask(m1, b1, _CMP_GT_OQ), cur);
        b0 = RMAX(m0, b0);
        b1 = RMAX(m1, b1);
        end = i + 64;
    }
    if (end < n) {
        __m512i l = _mm512_set1_epi32((int32_t)last);
        m0 = rblock(x0 + last);
        m1 = rblock(x1 + last);
        i0 = _mm512_mask_mov_epi32(i0, _mm512_cmp_ps_mask(m0, b0, _CMP_GT_OQ), l);
        i1 = _mm512_mask_mov_epi32(i1, _mm512_cmp_ps_mask(m1, b1, _CMP_GT_OQ), l);
        b0 = RMAX(m0, b0);
        b1 = RMAX(m1, b1);
    }
    {
        __m512 mx0 = _mm512_set1_ps(_mm512_reduce_max_ps(b0));
        __m512 mx1 = _mm512_set1_ps(_mm512_reduce_max_ps(b1));
        size_t j0 = (size_t)(uint32_t)_mm512_reduce_min_epi32(_mm512_mask_mov_epi32(
            _mm512_set1_epi32(INT32_MAX), _mm512_cmp_ps_mask(b0, mx0, _CMP_EQ_OQ), i0));
        size_t j1 = (size_t)(uint32_t)_mm512_reduce_min_epi32(_mm512_mask_mov_epi32(
            _mm512_set1_epi32(INT32_MAX), _mm512_cmp_ps_mask(b1, mx1, _CMP_EQ_OQ), i1));
        if (_mm512_cmp_ps_mask(b0, b0, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(b1, b1, _CMP_UNORD_Q)) {
            *a0 = hm_f32s_row(x0, n);
            *a1 = hm_f32s_row(x1, n);
            return;
        }
        *a0 = j0 + hm_ctz64(hm_f32z_eq64(x0 + j0, mx0));
        *a1 = j1 + hm_ctz64(hm_f32z_eq64(x1 + j1, mx1));
    }
}

static void v_zero(void) { memset(Y, 0, sizeof(float) * ROWS * COLS); }
static void v_read(void)
{
    __m512 a0 = _mm512_set1_ps(-1e30f), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < (size_t)ROWS * COLS; i += 64) {
        a0 = _mm512_max_ps(_mm512_loadu_ps(X + i), a0);
        a1 = _mm512_max_ps(_mm512_loadu_ps(X + i + 16), a1);
        a2 = _mm512_max_ps(_mm512_loadu_ps(X + i + 32), a2);
        a3 = _mm512_max_ps(_mm512_loadu_ps(X + i + 48), a3);
    }
    SINK = (size_t)_mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(a0, a1), _mm512_max_ps(a2, a3)));
}
static void v_scan_max(void)
{
    for (int r = 0; r < ROWS; r++)
        AT[r] = scan_max(X + (size_t)r * COLS, COLS);
    SINK = AT[7];
}
static void v_scan_cur(void)
{
    for (int r = 0; r < ROWS; r++)
        AT[r] = hm_f32z_row(X + (size_t)r * COLS, COLS);
    SINK = AT[7];
}
static void v_scan_range(void)
{
    for (int r = 0; r < ROWS; r++)
        AT[r] = scan_range(X + (size_t)r * COLS, COLS);
    SINK = AT[7];
}
static void v_scan_max128(void)
{
    for (int r = 0; r < ROWS; r++)
        AT[r] = scan_max128(X + (size_t)r * COLS, COLS);
    SINK = AT[7];
}
static void v_scan_notail(void)
{
    for (int r = 0; r < ROWS; r++)
        AT[r] = scan_range_notail(X + (size_t)r * COLS, COLS);
    SINK = AT[7];
}
static void v_scan_pair(void)
{
    for (int r = 0; r < ROWS; r += 2)
        scan_range_pair(X + (size_t)r * COLS, X + (size_t)(r + 1) * COLS, COLS, AT + r, AT + r + 1);
    SINK = AT[7];
}
static void v_hm_range(void) { v_scan_range(); v_zero(); ones(); }
static void v_hm_max(void) { v_scan_max(); v_zero(); ones(); }
static void v_hm_cur(void) { v_scan_cur(); v_zero(); ones(); }
static void v_hm_stosb64k(void)
{
    for (int r = 0; r < ROWS; r++) {
        AT[r] = hm_f32z_row(X + (size_t)r * COLS, COLS);
        if (r % 16 == 15)
            memset(Y + (size_t)(r - 15) * COLS, 0, sizeof(float) * 16 * COLS);
    }
    ones();
}
/* row r's scan with plain zmm zero stores of y's row r - 1 inside its loop */
static void v_hm_rowzero(void)
{
    for (int r = 0; r < ROWS; r++) {
        const float *x = X + (size_t)r * COLS;
        float *z = r ? Y + (size_t)(r - 1) * COLS : NULL;
        if (z) {
            for (size_t i = 0; i < COLS; i += 64) {
                _mm512_storeu_ps(z + i, _mm512_setzero_ps());
                _mm512_storeu_ps(z + i + 16, _mm512_setzero_ps());
                _mm512_storeu_ps(z + i + 32, _mm512_setzero_ps());
                _mm512_storeu_ps(z + i + 48, _mm512_setzero_ps());
            }
        }
        AT[r] = hm_f32z_row(x, COLS);
    }
    memset(Y + (size_t)(ROWS - 1) * COLS, 0, sizeof(float) * COLS);
    ones();
}
static void v_hm_pairs(void)
{
    for (int r = 0; r < ROWS; r += 2) {
        AT[r] = hm_f32z_row(X + (size_t)r * COLS, COLS);
        AT[r + 1] = hm_f32z_row(X + (size_t)(r + 1) * COLS, COLS);
    }
    v_zero();
    ones();
}

int main(int argc, char **argv)
{
    const hm_variant v[] = {
        {"memcpy", v_copy},           {"read (max-reduce)", v_read},
        {"memset y", v_zero},         {"scan max", v_scan_max},
        {"scan now", v_scan_cur},     {"hardmax scan max", v_hm_max},
        {"hardmax scan now", v_hm_cur}, {"hardmax stosb64K", v_hm_stosb64k},
        {"hardmax rowzero", v_hm_rowzero}, {"hardmax pairs", v_hm_pairs},
        {"scan range", v_scan_range}, {"scan max128", v_scan_max128}, {"hardmax range", v_hm_range},
        {"scan range no tail", v_scan_notail}, {"scan range pairs", v_scan_pair},
    };
    int nv = (int)(sizeof v / sizeof v[0]), rounds = argc > 1 ? atoi(argv[1]) : 200;
    size_t off = argc > 2 ? (size_t)atoi(argv[2]) : 16;
    char title[160];
    hm_setup(off);
    for (int r = 0; r < ROWS; r++) /* the variants agree with the scalar rule */
        if (scan_max(X + (size_t)r * COLS, COLS) != hm_f32s_row(X + (size_t)r * COLS, COLS) ||
            hm_f32z_row(X + (size_t)r * COLS, COLS) != hm_f32s_row(X + (size_t)r * COLS, COLS) ||
            scan_range(X + (size_t)r * COLS, COLS) != hm_f32s_row(X + (size_t)r * COLS, COLS) ||
            scan_max128(X + (size_t)r * COLS, COLS) != hm_f32s_row(X + (size_t)r * COLS, COLS)) {
            fprintf(stderr, "row %d differs\n", r);
            return 1;
        }
    snprintf(title, sizeof title, "x, y %zu bytes past a line; hardmax 1024x1024 float32 (avx512)", off);
    hm_run(v, nv, rounds, 1, title);
    return 0;
}
