/* Kernel harness: the argmax entries behind hardmax (one row, and a block of
 * columns) against the scalar tier, and the hardmax driver run with them. */
#include "harness.h"

#include "driver/hardmax_driver.h"
#include "kernels/vec/stream_store.h"

/* ---------------------------------------------------------------- argmax */
/* Row data for argmax: NaN-free or not, ties, +-0, maxima at chosen places. */
static void gen_argmax_data(void *x, size_t n, int dt, int mode)
{
    const int es = DT[dt].size;
    static const double SMALL[] = {-2.0, -1.0, -0.0, 0.0, 1.0, 2.0};
    if (n == 0)
        return;
    switch (mode % 11) {
    case 0: /* random bits (NaN now and then) */
        gen_data(x, n, dt, &MIXES[0], NULL);
        break;
    case 1: /* ties among few values */
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, dbl_bits(dt, SMALL[below(6)]));
        break;
    case 2: /* edges and small values, NaN removed */
    case 3: /* the same with a few NaN added */
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            do
                v = gen_value(dt, &MIXES[1], NULL);
            while (dt == SIMDOPS_FLOAT32 ? ((v & 0x7fffffffu) > 0x7f800000u)
                   : dt == SIMDOPS_FLOAT16 ? ((v & 0x7fffu) > 0x7c00u)
                                           : ((v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull));
            put_elem(x, i, es, v);
        }
        if (mode % 11 == 3) {
            int k = 1 + (int)below(3);
            while (k--) {
                uint64_t nan;
                if (dt == SIMDOPS_FLOAT32)
                    nan = (rnd() & 0x807fffffu) | 0x7f800001u;
                else if (dt == SIMDOPS_FLOAT16)
                    nan = (rnd() & 0x83ffu) | 0x7c01u;
                else
                    nan = (rnd() & 0x800fffffffffffffull) | 0x7ff0000000000001ull;
                put_elem(x, below((uint32_t)n), es, nan);
            }
        }
        break;
    case 4: { /* all equal */
        uint64_t v = dbl_bits(dt, SMALL[below(6)]);
        if (chance(30))
            v = dbl_bits(dt, chance(50) ? -INFINITY : INFINITY);
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, v);
        break;
    }
    case 5: /* +0.0 / -0.0 only, or zeros under negatives */
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, dbl_bits(dt, chance(50) ? -0.0 : chance(50) ? 0.0 : -1.0));
        break;
    case 6: { /* a unique maximum at a random place, a second one later */
        size_t k = below((uint32_t)n), k2 = k + below((uint32_t)(n - k));
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, small_value(dt));
        put_elem(x, k, es, dbl_bits(dt, 1000.0));
        put_elem(x, k2, es, dbl_bits(dt, 1000.0));
        break;
    }
    case 7: /* -inf everywhere, maybe one NaN at the end */
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, dbl_bits(dt, -INFINITY));
        if (chance(50))
            put_elem(x, n - 1, es, dbl_bits(dt, NAN));
        break;
    case 9: /* all negative (a padded tail must not add a 0) */
        for (size_t i = 0; i < n; i++) {
            uint64_t v = chance(80) ? small_value(dt) : edge_value(dt);
            if (DT[dt].is_float)
                v |= sign_bit(es);
            put_elem(x, i, es, v);
        }
        break;
    case 10: /* increasing negatives: the maximum last */
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, dbl_bits(dt, -(double)(n - i) * 0.25));
        break;
    default: /* denormals and zeros */
        for (size_t i = 0; i < n; i++) {
            uint64_t v = chance(70) ? (rnd() & (dt == SIMDOPS_FLOAT32 ? 0x807fffffu
                                                : dt == SIMDOPS_FLOAT16 ? 0x83ffu
                                                                        : 0x800fffffffffffffull))
                                    : 0;
            put_elem(x, i, es, v);
        }
        break;
    }
}

/* A NaN of dtype dt: quiet or signalling, either sign, a random payload. */
static uint64_t argmax_nan_bits(int dt)
{
    if (dt == SIMDOPS_FLOAT32)
        return (rnd() & 0x807fffffu) | 0x7f800001u;
    if (dt == SIMDOPS_FLOAT16)
        return (rnd() & 0x83ffu) | 0x7c01u;
    return (rnd() & 0x800fffffffffffffull) | 0x7ff0000000000001ull;
}

static void argmax_row_case(const target *t, const void *x, size_t n, size_t xoff, int mode)
{
    const int es = DT[t->idx].size;
    const size_t bytes = n * (size_t)es;
    unsigned char *xb;
    size_t want = ((simdops_argmax_row_fn)t->ref)(x, n), got;
    xoff = adjust_off(t, xoff, es);
    xb = alloc_buf(xoff + bytes);
    memcpy(xb + xoff, x, bytes);
    got = ((simdops_argmax_row_fn)t->fn)(xb + xoff, n);
    if (got == want && memcmp(xb + xoff, x, bytes) == 0) {
        g_pass++;
    } else {
        fail_head(t, "row", n, xoff, 0);
        if (printing())
            printf("mode %d want %zu got %zu (x[want]=%#llx x[got]=%#llx)\n", mode, want, got,
                   (unsigned long long)get_elem(x, want, es),
                   (unsigned long long)(got < n ? get_elem(x, got, es) : 0));
    }
    free_buf(xb);
}

static void argmax_cols_case(const target *t, const void *row, const void *best,
                             const int64_t *bidx, size_t cols, int64_t r, size_t roff, size_t boff,
                             size_t ioff)
{
    const int es = DT[t->idx].size;
    const size_t bytes = cols * (size_t)es, ibytes = cols * 8;
    unsigned char *wb = alloc_buf(bytes), *wi = alloc_buf(ibytes), *rb, *bb, *ib;
    int ok;
    memcpy(wb, best, bytes);
    memcpy(wi, bidx, ibytes);
    ((simdops_argmax_cols_fn)t->ref)(row, 0, 1, cols, r, wb, (int64_t *)(void *)wi);

    roff = adjust_off(t, roff, es);
    boff = adjust_off(t, boff, es);
    ioff -= ioff % 8; /* int64_t *: always naturally aligned */
    rb = alloc_buf(roff + bytes);
    bb = alloc_buf(boff + bytes + TRAIL);
    ib = alloc_buf(ioff + ibytes + TRAIL);
    memcpy(rb + roff, row, bytes);
    memcpy(bb + boff, best, bytes);
    memcpy(ib + ioff, bidx, ibytes);
    ((simdops_argmax_cols_fn)t->fn)(rb + roff, 0, 1, cols, r, bb + boff,
                                    (int64_t *)(void *)(ib + ioff));
    ok = memcmp(bb + boff, wb, bytes) == 0 && memcmp(ib + ioff, wi, ibytes) == 0 &&
         memcmp(rb + roff, row, bytes) == 0 && canary_ok(bb, 0, boff) &&
         canary_ok(bb, boff + bytes, boff + bytes + TRAIL) && canary_ok(ib, 0, ioff) &&
         canary_ok(ib, ioff + ibytes, ioff + ibytes + TRAIL);
    if (ok) {
        g_pass++;
    } else {
        fail_head(t, "cols", cols, roff, boff);
        if (memcmp(bb + boff, wb, bytes) != 0)
            report_diff(row, wb, bb + boff, cols, es, es);
        else
            report_diff(row, wi, ib + ioff, cols, es, 8);
    }
    free_buf(rb);
    free_buf(bb);
    free_buf(ib);
    free_buf(wb);
    free_buf(wi);
}

/* Several rows per call (rows k at x + k * stride, the stride padded past
 * cols): the kernel against the reference applied to the same rows, from the
 * same best and indices. The rows cover groups of four and the rows after
 * them; some rows carry NaN (a group taken row by row) or repeat the row
 * before (ties across rows); best starts from a row of the data or from other
 * values. */
static void argmax_cols_rows_case(const target *t, size_t rows, size_t cols, size_t pad,
                                  size_t xoff, int mode)
{
    const int es = DT[t->idx].size;
    const size_t stride = (cols + pad) * (size_t)es, bytes = cols * (size_t)es;
    const size_t xbytes = rows ? (rows - 1) * stride + bytes : 0, ibytes = cols * 8;
    unsigned char *x = malloc(xbytes + 1), *wb = malloc(bytes + 1), *bb, *xb;
    int64_t *wi = (int64_t *)malloc(ibytes + 8), *ib;
    int64_t r0 = (int64_t)below(1u << 20);
    int ok;
    if (!x || !wb || !wi) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t k = 0; k < rows; k++) {
        unsigned char *row = x + k * stride;
        if (k > 0 && chance(20))
            memcpy(row, row - stride, bytes);
        else
            gen_argmax_data(row, cols, t->idx, mode + (int)k * (chance(50) ? 11 : 1));
    }
    gen_argmax_data(wb, cols, t->idx, mode + 5);
    if (rows && chance(30))
        memcpy(wb, x, bytes);
    for (size_t j = 0; j < cols; j++)
        wi[j] = (int64_t)j - 7;
    xoff = adjust_off(t, xoff, es);
    xb = alloc_buf(xoff + xbytes);
    bb = alloc_buf(bytes + TRAIL);
    ib = (int64_t *)(void *)alloc_buf(ibytes + TRAIL);
    memcpy(xb + xoff, x, xbytes);
    memcpy(bb, wb, bytes);
    memcpy(ib, wi, ibytes);
    ((simdops_argmax_cols_fn)t->ref)(x, (int64_t)stride, rows, cols, r0, wb, wi);
    ((simdops_argmax_cols_fn)t->fn)(xb + xoff, (int64_t)stride, rows, cols, r0, bb, ib);
    ok = memcmp(bb, wb, bytes) == 0 && memcmp(ib, wi, ibytes) == 0 &&
         memcmp(xb + xoff, x, xbytes) == 0 && canary_ok(bb, bytes, bytes + TRAIL) &&
         canary_ok((unsigned char *)ib, ibytes, ibytes + TRAIL);
    if (ok) {
        g_pass++;
    } else {
        fail_head(t, "cols rows", rows * cols, xoff, pad);
        if (printing())
            printf("rows %zu cols %zu stride %zu mode %d\n", rows, cols, stride, mode);
    }
    free(x);
    free(wb);
    free(wi);
    free_buf(xb);
    free_buf(bb);
    free_buf((unsigned char *)ib);
}

/* ------------------------------------------------------- the driver */
/* simdops_hardmax_run over a rows x cols block with this target's kernel (the
 * rest of the table scalar), reduced along axis, against the reference
 * kernel applied to each group and a one-hot built here. threshold moves the
 * streaming decision: SIZE_MAX keeps the whole call in one cached run (the
 * answers on the heap past 256 rows), 0 streams 64 KiB runs with the ones
 * inside the non-temporal lines. y starts yoff bytes into a buffer that ends
 * at a guard page (yoff not a multiple of the element size: the plain-store
 * path); in place, y is x. */
static void hardmax_driver_case(const target *t, size_t rows, size_t cols, int axis, size_t yoff,
                                int inplace, size_t threshold, int mode)
{
    const int dt = t->idx, es = DT[dt].size;
    const size_t bytes = rows * cols * (size_t)es, saved = simdops_stream_threshold;
    unsigned char *x = malloc(bytes), *want = calloc(bytes, 1), *yb, *y;
    int reduced[2] = {axis == 0, axis == 1}, s, ok;
    simdops_kernel_table kt = *simdops_scalar_kernels();
    simdops_tensor tx, ty;
    if (!x || !want) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t r = 0; r < rows; r++)
        gen_argmax_data(x + r * cols * (size_t)es, cols, dt, mode + (int)r);
    if (axis == 1) {
        for (size_t r = 0; r < rows; r++) {
            size_t at = ((simdops_argmax_row_fn)t->ref)(x + r * cols * (size_t)es, cols);
            put_elem(want, r * cols + at, es, dbl_bits(dt, 1.0));
        }
        kt.argmax_row[dt] = (simdops_argmax_row_fn)t->fn;
    } else {
        unsigned char *best = malloc(cols * (size_t)es);
        int64_t *bi = calloc(cols, sizeof(int64_t));
        if (!best || !bi) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        memcpy(best, x, cols * (size_t)es);
        for (size_t r = 1; r < rows; r++)
            ((simdops_argmax_cols_fn)t->ref)(x + r * cols * (size_t)es, 0, 1, cols, (int64_t)r,
                                             best, bi);
        for (size_t j = 0; j < cols; j++)
            put_elem(want, (size_t)bi[j] * cols + j, es, dbl_bits(dt, 1.0));
        free(best);
        free(bi);
        kt.argmax_cols[dt] = (simdops_argmax_cols_fn)t->fn;
    }
    if (inplace)
        yoff -= yoff % (size_t)es; /* the kernels read x element-aligned */
    yb = alloc_buf(yoff + bytes);
    y = yb + yoff;
    if (inplace)
        memcpy(y, x, bytes);
    memset(&tx, 0, sizeof tx);
    tx.data = inplace ? (void *)y : (void *)x;
    tx.dtype = (simdops_dtype)dt;
    tx.ndim = 2;
    tx.shape[0] = (int64_t)rows;
    tx.shape[1] = (int64_t)cols;
    tx.strides[0] = (int64_t)(cols * (size_t)es);
    tx.strides[1] = es;
    ty = tx;
    ty.data = y;
    simdops_stream_threshold = threshold;
    s = simdops_hardmax_run(&kt, &tx, &ty, reduced);
    simdops_stream_threshold = saved;
    ok = s == SIMDOPS_OK && memcmp(y, want, bytes) == 0 && canary_ok(yb, 0, yoff);
    if (ok) {
        g_pass++;
    } else {
        fail_head(t, "driver", rows * cols, yoff, (size_t)inplace);
        if (printing())
            printf("%zux%zu axis %d threshold %zu status %d\n", rows, cols, axis, threshold, s);
    }
    free_buf(yb);
    free(x);
    free(want);
}

static void test_hardmax_driver(const target *t)
{
    /* rows x cols: one-row runs past 64 KiB, runs cut by bytes and by rows, rows
     * shorter than a line (several ones in one line, ones in the partial lines).
     * Axis 0: up to 16 KiB of columns is one block whose y is written once after
     * the scan (streamed: the ones sorted by position, several per line and in the
     * partial lines; past 65,536 rows the ones after the zeros), wider ones in
     * column blocks with each row zeroed after its batch. */
    static const size_t SHAPES[][2] = {{1, 1},      {3, 5},     {300, 3},   {70, 100},
                                       {5, 20000},  {41, 5000}, {600, 128}, {1200, 17},
                                       {65537, 3}};
    static const size_t THRESHOLDS[] = {0, (size_t)-1};
    int mode = 0;
    for (size_t k = 0; k < sizeof(SHAPES) / sizeof(SHAPES[0]); k++)
        for (size_t h = 0; h < 2; h++)
            for (int v = 0; v < 4; v++) {
                /* y on a line, 16 bytes past one (numpy), misaligned, in place */
                static const size_t YOFF[] = {0, 16, 3, 16};
                size_t rows = SHAPES[k][0], cols = SHAPES[k][1];
                /* past 65,536 rows, axis 0: the unsorted streamed ones (streamed, 2
                 * layouts); the last axis: runs cut at 65,536 rows (in cache, on a
                 * line and in place) */
                if (rows > 65536 && (t->kind == K_ARGMAX_ROW ? h == 0 || v % 3 != 0
                                                             : h == 1 || v % 2 == 0))
                    continue;
                hardmax_driver_case(t, rows, cols, t->kind == K_ARGMAX_ROW ? 1 : 0,
                                    YOFF[v] + (v == 2 ? 64 * below(4) : 0), v == 3,
                                    THRESHOLDS[h], mode++);
            }
    /* Streamed float32 rows of 64 or more (the fused scans of avx2/avx512,
     * kernels/hardmax/hardmax_stream.h, where t is that tier's kernel): rows of
     * exactly 64 (no line streamed inside the scan), rows that are not a whole
     * number of lines, one row, y at every 4-byte offset class of a line (ones in
     * the partial first and last lines), in place. */
    if (t->kind == K_ARGMAX_ROW) {
        static const size_t FUSED[][2] = {{1, 64},   {1, 300},  {2, 1027}, {33, 64},
                                          {257, 65}, {9, 4099}, {40, 1024}, {3, 129}};
        for (size_t k = 0; k < sizeof(FUSED) / sizeof(FUSED[0]); k++)
            for (int v = 0; v < 6; v++) {
                static const size_t YOFF[] = {0, 4, 16, 60, 4 * 9, 16};
                hardmax_driver_case(t, FUSED[k][0], FUSED[k][1], 1, YOFF[v], v == 5, 0, mode++);
            }
    }
}

enum { LONG_ROW_MAX = 4500 };
static const size_t NAN_ROWS[] = {64, 65, 100, 128, 129, 257, 1031};
static const size_t LONG_ROWS[] = {255, 256, 257, 300, 511, 640, 1024, 1027, 2100, LONG_ROW_MAX};

void test_argmax(const target *t)
{
    const int dt = t->idx;
    unsigned char x[MAXN * 8], best[MAXN * 8];
    int64_t bidx[MAXN];
    if (t->kind == K_ARGMAX_ROW) {
        for (size_t n = 1; n <= MAXN; n++) {
            for (int mode = 0; mode < 11; mode++) {
                gen_argmax_data(x, n, dt, mode + (int)n);
                argmax_row_case(t, x, n, rand_off(), mode + (int)n);
            }
        }
        for (size_t off = 0; off < 64; off++) {
            size_t n = off % 2 ? 130 : 37;
            gen_argmax_data(x, n, dt, (int)off);
            argmax_row_case(t, x, n, off, (int)off);
        }
        /* rows of several blocks and chunks (float32 avx2: 64-float blocks, a
         * partial last one; the others: chunks of 4 KiB, 512 to 2048 lanes) */
        for (size_t k = 0; k < sizeof(LONG_ROWS) / sizeof(LONG_ROWS[0]); k++) {
            static unsigned char xl[LONG_ROW_MAX * 8];
            for (int mode = 0; mode < 11; mode++) {
                gen_argmax_data(xl, LONG_ROWS[k], dt, mode + (int)k);
                argmax_row_case(t, xl, LONG_ROWS[k], rand_off(), mode + (int)k);
            }
        }
        /* one NaN at every position of rows of one to several blocks (the
         * float32 block scans: the head block, vectors 0-3 of each block, the
         * last block at n - 64; NaN evidence is kept per pair of vectors), the
         * rest NaN-free: the answer is the NaN's index */
        for (size_t k = 0; k < sizeof(NAN_ROWS) / sizeof(NAN_ROWS[0]); k++) {
            static unsigned char xn[1100 * 8];
            const size_t n = NAN_ROWS[k];
            for (size_t p = 0; p < n; p++) {
                gen_argmax_data(xn, n, dt, p % 2 ? 2 : 1);
                put_elem(xn, p, DT[dt].size, argmax_nan_bits(dt));
                argmax_row_case(t, xn, n, rand_off(), 3);
            }
        }
        test_hardmax_driver(t);
        return;
    }
    test_hardmax_driver(t);
    {
        static const size_t ROWS[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 13};
        /* past 4096: the kernels' column chunk (a narrow last chunk, and a wider one) */
        static const size_t COLS[] = {1, 5, 15, 16, 17, 31, 32, 33, 47, 100, 1029, 1039, 4101, 4133};
        int mode = 0;
        for (size_t a = 0; a < sizeof(ROWS) / sizeof(ROWS[0]); a++)
            for (size_t c = 0; c < sizeof(COLS) / sizeof(COLS[0]); c++)
                for (int rep = 0; rep < 3; rep++, mode++)
                    argmax_cols_rows_case(t, ROWS[a], COLS[c], below(3) * 3, rand_off(), mode);
    }
    for (size_t cols = 0; cols <= MAXN; cols++) {
        for (int rep = 0; rep < 6; rep++) {
            gen_argmax_data(x, cols, dt, rep * 3 + (int)cols);
            gen_argmax_data(best, cols, dt, rep * 5 + (int)cols + 1);
            if (rep % 3 == 2) /* row == best in places */
                for (size_t j = 0; j < cols; j++)
                    if (chance(50))
                        memcpy(best + j * (size_t)DT[dt].size, x + j * (size_t)DT[dt].size,
                               (size_t)DT[dt].size);
            for (size_t j = 0; j < cols; j++)
                bidx[j] = (int64_t)(rnd() >> 1);
            argmax_cols_case(t, x, best, bidx, cols, (int64_t)below(1u << 30), rand_off(),
                             rand_off(), rand_off());
        }
    }
    for (size_t off = 0; off < 64; off++) {
        size_t cols = off % 2 ? 130 : 37;
        gen_argmax_data(x, cols, dt, (int)off);
        gen_argmax_data(best, cols, dt, (int)off + 3);
        for (size_t j = 0; j < cols; j++)
            bidx[j] = (int64_t)j;
        argmax_cols_case(t, x, best, bidx, cols, 12345, off, (off * 29 + 3) & 63, off);
    }
}

