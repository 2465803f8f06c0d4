/* The size above which the x86 kernels write with non-temporal (streaming)
 * stores. A normal store to a line that is not cached first reads it
 * (write-allocate), so a row larger than the last-level cache moves 3x its
 * bytes through memory; streaming stores skip that read (2x, as a large
 * memcpy does) but leave nothing in the cache, which only pays once the
 * output would not stay there anyway. */
#ifndef SIMDOPS_STREAM_STORE_H
#define SIMDOPS_STREAM_STORE_H

#include <stddef.h>

/* Bytes written by one kernel call (a row of a strided call); rows of at
 * least this many bytes stream. Defined in clip_scalar.c (built on every
 * target); a plain global so a benchmark can move it: SIZE_MAX turns
 * streaming off. */
extern size_t simdops_stream_threshold;

/* The shape of every streaming loop (AVX2 and SSE elementwise, hardmax's zeros):
 * stores start on a whole line of y (non-temporal stores combine into lines, and
 * lines left half open go out partially written), then blocks of STREAM_PAGES
 * pages are walked STREAM_STEP bytes of each page in turn, prefetching the same
 * place one block ahead. Measurements: avx2_util.h and docs/performance.md. */
enum {
    SIMDOPS_STREAM_LINE = 64,
    SIMDOPS_STREAM_PAGE = 4096,
    SIMDOPS_STREAM_PAGES = 4,
    SIMDOPS_STREAM_STEP = 128,
    SIMDOPS_STREAM_BLOCK = SIMDOPS_STREAM_PAGE * SIMDOPS_STREAM_PAGES
};

#endif
