/* Software prefetch for the quantized binary rows of every tier (qbinary_body.h's and
 * the AVX-512 rows of their own). */
#ifndef SIMDOPS_QBINARY_PREFETCH_H
#define SIMDOPS_QBINARY_PREFETCH_H

#include <stddef.h>

/* The inputs fetched QB_AHEAD bytes ahead of the step. At 64K the three arrays live in L2
 * and the hardware prefetchers leave part of each load's wait exposed: ONNX Runtime's add
 * on AVX-512, int8 64K in C, 2.55-2.61 -> 2.43-2.51 us with 1,024 bytes (256: 2.46, 512:
 * 2.42-2.52, 2,048: 2.43-2.45; prefetching y for writing gained nothing). A prefetch past
 * an array's end is harmless: it never faults and changes no result. */
enum { QB_AHEAD = 1024 };
#if defined(__GNUC__) || defined(__clang__)
#define QB_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 3)
#else
#define QB_PREFETCH(p) ((void)0)
#endif
/* both inputs of a qb_xnn_io step at element i (a one-element input, stride 0, reads its
 * 64-byte copy: that is what gets fetched, already in L1) */
#define QB_PREFETCH_IO(a, b, i, io)                                                                \
    (QB_PREFETCH((const char *)((a) + (i) * (io)->sa) + (size_t)QB_AHEAD * (io)->sa),             \
     QB_PREFETCH((const char *)((b) + (i) * (io)->sb) + (size_t)QB_AHEAD * (io)->sb))

#endif
