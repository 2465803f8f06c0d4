/* The two-input elementwise driver: y = f(a, b) with a and b broadcast to y's
 * shape (numpy's rule, checked by the caller), without copying an input. */
#ifndef SIMDOPS_BINARY_H
#define SIMDOPS_BINARY_H

#include "simdops/simdops.h"

/* Row function: n elements of y; form SIMDOPS_QB_VV (a and b hold n elements),
 * SV (a holds one element, broadcast), VS (b holds one). Contiguous,
 * element-aligned pointers. */
typedef void (*simdops_binary_row_fn)(const void *a, const void *b, void *y, size_t n, int form,
                                      const void *ctx);

/* Calls row over every element of y. a, b and y have one element size; a's
 * and b's dimensions align with y's last ones, each of extent 1 (broadcast) or
 * y's. A dimension where an input has extent 1 and y more is a broadcast one:
 * rows along it see that input as one element (form SV / VS); an input whose
 * stride is 0 where its extent equals y's is read as the vector it is (gathered),
 * so a row's form depends on the shapes only, never on the strides. Dimensions
 * merge while every operand's strides and broadcast flags allow; rows that are
 * not unit-stride and aligned go through small stack buffers; large calls split
 * over the thread pool as simdops_elementwise does. */
void simdops_binary_elementwise(const simdops_tensor *a, const simdops_tensor *b,
                                const simdops_tensor *y, simdops_binary_row_fn row,
                                const void *ctx);

/* The harness's hook: hold (1) or give back (0) the per-channel tile binary.c
 * keeps between calls, so calls meanwhile build their own; 1 when taken. */
int simdops_binary_kept_tile_hold(int hold);

#endif
