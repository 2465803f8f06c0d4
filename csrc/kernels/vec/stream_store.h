/* The size above which the drivers (strided.c, hardmax_driver.c) write with
 * non-temporal (streaming) stores; kernels never stream. A normal store to a line that is not cached first reads it
 * (write-allocate), so a row larger than the last-level cache moves 3x its
 * bytes through memory; streaming stores skip that read (2x, as a large
 * memcpy does) but leave nothing in the cache, which only pays once the
 * output would not stay there anyway. */
#ifndef SIMDOPS_STREAM_STORE_H
#define SIMDOPS_STREAM_STORE_H

#include <stddef.h>

#if defined(_MSC_VER)
#define SIMDOPS_ALIGNED_64 __declspec(align(64))
#else
#define SIMDOPS_ALIGNED_64 __attribute__((aligned(64)))
#endif

/* Bytes written by one call; calls writing at least this many bytes stream
 * their long rows. Defined in strided.c; a plain global so a benchmark or the
 * harness can move it: SIZE_MAX turns streaming off. */
extern size_t simdops_stream_threshold;

/* Streaming starts on a whole line of y (non-temporal stores combine into
 * lines, and lines left half open go out partially written); the elementwise
 * driver computes SIMDOPS_STREAM_BLOCK bytes at a time into an L1 buffer and
 * streams it out. Measurements: docs/performance.md. */
enum {
    SIMDOPS_STREAM_LINE = 64,
    SIMDOPS_STREAM_PAGE = 4096,
    SIMDOPS_STREAM_PAGES = 4,
    SIMDOPS_STREAM_STEP = 128,
    SIMDOPS_STREAM_BLOCK = SIMDOPS_STREAM_PAGE * SIMDOPS_STREAM_PAGES
};

#endif
