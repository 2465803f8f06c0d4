/* The tail every elementwise N-d entry whose output has x's dtype shares
 * (api.c's clip and shrink, api_onnx.c's ONNX Clip and Shrink): check y,
 * copy an x that partially overlaps y, run the strided driver. */
#ifndef SIMDOPS_API_RUN_SAME_DTYPE_H
#define SIMDOPS_API_RUN_SAME_DTYPE_H

#include "driver/strided.h"
#include "simdops/simdops.h"

int simdops_run_same_dtype(const simdops_tensor *x, const simdops_tensor *y, simdops_row_fn row,
                           const void *ctx, simdops_error *err);

#endif
