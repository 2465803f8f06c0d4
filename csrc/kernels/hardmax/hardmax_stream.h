/* hardmax along a contiguous last axis past the streaming threshold: float32
 * row scans that write the finished lines of y with non-temporal stores while
 * they read the next row (hardmax_driver.c runs them; hardmax_f32_body.h
 * makes them). Reading x and streaming y in the same loop lets the core
 * overlap the loads and the stores; alternating 64 KiB of reads with 64 KiB
 * of stores (the order before) kept one of the two idle at a time:
 * tools/hm_stream.c, docs/performance.md.
 *
 * A fused scan is the tier's argmax_row kernel with stores added to its loop
 * (the same vectors, compares and index arithmetic, in the same order, and
 * nothing it computes reads y), so it returns what that kernel returns. The
 * driver takes it only when the table's float32 argmax_row IS that kernel
 * (simdops_hm_stream_pair: the pointers compared), so a table built with any
 * other row kernel (a lower tier, the harness's reference) keeps the path
 * before. Not a table entry: no other dtype or tier has one. */
#ifndef SIMDOPS_HARDMAX_STREAM_H
#define SIMDOPS_HARDMAX_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/kernel_abi.h"

/* The lines of y still to write: every 64-byte line in [cur, limit) is final
 * (all the rows it holds have been scanned) and its ones are at the addresses
 * one[k..n) (ascending; ones below cur were written). A scan streams lines from
 * cur, never past limit, and advances cur and k. */
typedef struct simdops_hm_lines {
    uintptr_t cur, limit;
    const uintptr_t *one;
    size_t k, n;
} simdops_hm_lines;

/* Index of the first maximum of the float32 row x[0..n) (the argmax_row rule);
 * streams up to four lines of s per 64 floats read (none for n < 64). */
typedef size_t (*simdops_hm_row_stream_fn)(const void *x, size_t n, simdops_hm_lines *s);

typedef struct simdops_hm_stream_pair {
    simdops_argmax_row_fn row;       /* the tier's float32 argmax_row */
    simdops_hm_row_stream_fn fused;  /* the same scan, streaming lines */
} simdops_hm_stream_pair;

/* Defined by hardmax_avx512.c and hardmax_avx2.c (all NULL where the tier is
 * not compiled): data, so the driver reads them on any CPU. */
extern const simdops_hm_stream_pair simdops_hm_stream_pair__avx512;
extern const simdops_hm_stream_pair simdops_hm_stream_pair__avx2;

/* The lines of [s->cur, upto) (upto <= s->limit, line-aligned) written:
 * zeros and the queued ones. line_zero(p) / line_copy(p, src) store one
 * 64-byte line at p (src: 64 aligned bytes). Shared by the fused scans and the
 * driver's SSE2 flush, so a line is built the same way everywhere. */
#define SIMDOPS_HM_LINES_WRITE(s, upto, line_zero, line_copy)                                    \
    do {                                                                                        \
        uintptr_t p_ = (s)->cur, e_ = (upto);                                                   \
        for (; p_ < e_; p_ += 64) {                                                             \
            if ((s)->k < (s)->n && (s)->one[(s)->k] < p_ + 64) {                                \
                SIMDOPS_HM_ALIGNED_64 float l_[16] = {0};                                       \
                do                                                                              \
                    l_[((s)->one[(s)->k] - p_) / 4] = 1.0f;                                     \
                while (++(s)->k < (s)->n && (s)->one[(s)->k] < p_ + 64);                        \
                line_copy(p_, l_);                                                              \
            } else {                                                                            \
                line_zero(p_);                                                                  \
            }                                                                                   \
        }                                                                                       \
        (s)->cur = p_ > (s)->cur ? p_ : (s)->cur;                                               \
    } while (0)

#if defined(_MSC_VER)
#define SIMDOPS_HM_ALIGNED_64 __declspec(align(64))
#else
#define SIMDOPS_HM_ALIGNED_64 __attribute__((aligned(64)))
#endif

#endif
