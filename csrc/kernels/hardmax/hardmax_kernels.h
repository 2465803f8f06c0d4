/* The argmax entries behind hardmax, as the (entry, dtype tag) list of
 * SIMDOPS_DEFINE_REGISTER: what the reference and every complete tier provide
 * (a tier that improves only some names its own list, as avx512 does). */
#ifndef SIMDOPS_HARDMAX_KERNELS_H
#define SIMDOPS_HARDMAX_KERNELS_H

#define HARDMAX_KERNELS(X)                                                                        \
    X(argmax_row, f32) X(argmax_row, f64) X(argmax_row, f16)                                      \
    X(argmax_cols, f32) X(argmax_cols, f64) X(argmax_cols, f16)

#endif
