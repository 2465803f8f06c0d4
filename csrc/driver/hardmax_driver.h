#ifndef SIMDOPS_HARDMAX_DRIVER_H
#define SIMDOPS_HARDMAX_DRIVER_H

#include "kernels/registry.h"

/* reduced[d] != 0 marks axis d as reduced. x and y: same shape, float dtype. */
int simdops_hardmax_run(const simdops_kernel_table *kt, const simdops_tensor *x,
                        const simdops_tensor *y, const int *reduced);

/* simdops_hardmax_run on up to simdops_get_num_threads() threads: large
 * calls are cut along one kept axis, so every group (reduction) stays whole
 * on one thread and the result is the same for any thread count. */
int simdops_hardmax_threaded(const simdops_kernel_table *kt, const simdops_tensor *x,
                             const simdops_tensor *y, const int *reduced);

#endif
