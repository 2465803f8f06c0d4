/* hardmax 1024x1024 float32 (last axis, 4 MiB in + 4 MiB out) with the row
 * scan's variants side by side, in one process, interleaved with memcpy:
 * each round times every variant once in a rotating order; the report gives
 * per variant the median time and the median and quartiles of the per-round
 * ratio memcpy / variant (both measured in the same round).
 *
 * The AVX2 kernel file is compiled into this tool (its static functions are
 * the variants), so it builds with the AVX2 tier's flags and nothing else of
 * the package:  bash tools/cbench.sh OUT  -> OUT/hmbench [rounds]
 *
 *   old chunks  the row scan in chunks of 8 vectors (64 floats), the design
 *               before: a compare per vector against the running best, a
 *               closer look (max of the chunk + branch) where it rises
 *   4K chunks   chunks of 4 KiB (the other dtypes' kernels now): a 1024-float row is one
 *               branch-free max-reduce (4 accumulators) and one find pass
 *               over the row, which is then in L1
 *   blocks      one branch-free pass over 64-float blocks, the index tracked
 *               per lane and per block (hm_f32b_row: the kernel now)
 *   each variant: all rows scanned, one memset of y, then the ones (the
 *   driver's order in cache); "fused" zeroes each row right after its scan;
 *   "nt" writes the zeros with non-temporal stores. */
#include "kernels/hardmax/hardmax_avx2.c"
#include "hm_tool.h"

static void nt_zero(float *y, size_t n) /* y aligned to 32 bytes, else memset */
{
    const __m256 z = _mm256_setzero_ps();
    if ((uintptr_t)y % 32) {
        memset(y, 0, n * sizeof(float));
        return;
    }
    for (size_t i = 0; i < n; i += 32) {
        _mm256_stream_ps(y + i, z);
        _mm256_stream_ps(y + i + 8, z);
        _mm256_stream_ps(y + i + 16, z);
        _mm256_stream_ps(y + i + 24, z);
    }
    _mm_sfence();
}


static void v_read(void)
{
    size_t s = 0;
    for (int r = 0; r < ROWS; r += 8) { /* a bare read: max-reduce, no index */
        int nan;
        __m256 m = hm_f32x8_scan(X + (size_t)r * COLS, 8 * COLS, &nan);
        s += (size_t)_mm256_cvtss_f32(m) + (size_t)nan;
    }
    SINK = s;
}
#define SCAN(ch)                                                                            \
    for (int r = 0; r < ROWS; r++)                                                          \
        AT[r] = hm_f32x8_row_chunked(X + (size_t)r * COLS, COLS, ch)
static void v_scan_old(void) { SCAN(64); SINK = AT[7]; }
static void v_scan_new(void) { SCAN(1024); SINK = AT[7]; }
static void v_old(void) { SCAN(64); memset(Y, 0, sizeof(float) * ROWS * COLS); ones(); }
static void v_new(void) { SCAN(1024); memset(Y, 0, sizeof(float) * ROWS * COLS); ones(); }
static void v_scan_blk(void)
{
    for (int r = 0; r < ROWS; r++)
        AT[r] = hm_f32b_row(X + (size_t)r * COLS, COLS);
    SINK = AT[7];
}
static void v_blk(void) { v_scan_blk(); memset(Y, 0, sizeof(float) * ROWS * COLS); ones(); }
static void v_new_nt(void) { SCAN(1024); nt_zero(Y, (size_t)ROWS * COLS); ones(); }
static void v_new_fused(void)
{
    for (int r = 0; r < ROWS; r++) {
        AT[r] = hm_f32x8_row_chunked(X + (size_t)r * COLS, COLS, 1024);
        memset(Y + (size_t)r * COLS, 0, sizeof(float) * COLS);
    }
    ones();
}
static void v_new_pair(void) /* two rows' scans interleaved by the out-of-order core */
{
    for (int r = 0; r < ROWS; r += 2) {
        AT[r] = hm_f32x8_row_chunked(X + (size_t)r * COLS, COLS, 1024);
        AT[r + 1] = hm_f32x8_row_chunked(X + (size_t)(r + 1) * COLS, COLS, 1024);
    }
    memset(Y, 0, sizeof(float) * ROWS * COLS);
    ones();
}

int main(int argc, char **argv)
{
    const hm_variant v[] = {
        {"memcpy", v_copy},          {"read (max-reduce)", v_read},
        {"scan old chunks", v_scan_old}, {"scan 4K chunks", v_scan_new},
        {"hardmax old chunks", v_old},   {"hardmax 4K chunks", v_new},
        {"4K chunks, nt zeros", v_new_nt}, {"4K chunks, fused zero", v_new_fused},
        {"4K chunks, row pairs", v_new_pair},
        {"scan blocks", v_scan_blk},     {"hardmax blocks", v_blk},
    };
    int nv = (int)(sizeof v / sizeof v[0]), rounds = argc > 1 ? atoi(argv[1]) : 200;
    /* argv[2]: bytes past a 64-byte line for x and y (numpy's large buffers: 16) */
    size_t off = argc > 2 ? (size_t)atoi(argv[2]) : 0;
    char title[160];
    hm_setup(off);
    for (int r = 0; r < ROWS; r++) /* the variants agree with the scalar rule */
        if (hm_f32x8_row_chunked(X + (size_t)r * COLS, COLS, 64) != hm_f32s_row(X + (size_t)r * COLS, COLS) ||
            hm_f32x8_row_chunked(X + (size_t)r * COLS, COLS, 1024) != hm_f32s_row(X + (size_t)r * COLS, COLS) ||
            hm_f32b_row(X + (size_t)r * COLS, COLS) != hm_f32s_row(X + (size_t)r * COLS, COLS)) {
            fprintf(stderr, "row %d differs\n", r);
            return 1;
        }
    snprintf(title, sizeof title, "x, y %zu bytes past a line; hardmax 1024x1024 float32 variants", off);
    hm_run(v, nv, rounds, 0, title);
    return 0;
}
