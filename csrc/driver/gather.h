/* Strided element copies for the strided driver: gather a row into a
 * contiguous buffer, scatter a buffer into a strided row. */
#ifndef SIMDOPS_GATHER_H
#define SIMDOPS_GATHER_H

#include <stddef.h>
#include <stdint.h>

/* dst[i * dst_stride] = src[i * src_stride] for i < n (byte strides, elements
 * of esize 1, 2, 4 or 8 bytes, no alignment assumed, no overlap). Reversed
 * rows (one side -esize, the other +esize) and every-other-element gathers
 * (src_stride 2 * esize) have vector paths on baseline SSE2 / NEON. */
void simdops_copy_elements(char *dst, int64_t dst_stride, const char *src, int64_t src_stride,
                           size_t n, size_t esize);

#endif
