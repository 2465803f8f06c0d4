/* Contiguous 1-D entry points over a prepared handle (the C API's hot path):
 * pointer/count/alignment/overlap checks, then one kernel call from the
 * calling thread's table. */
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "driver/hardmax_driver.h"
#include "rules/checks.h"
#include "rules/params.h"
#include "rules/rules.h"

/* n >= 0 and its bytes (at the larger element size) below
 * SIMDOPS_BYTES_LIMIT, so the overlap test below cannot wrap; x and y not
 * NULL when n > 0, element-aligned; y == x (when in_place_ok is 1) or
 * disjoint (in_place_ok < 0: the caller checks overlap itself). */
static int check_1d(const void *x, const void *y, int64_t n, size_t ex, size_t ey, int in_place_ok,
                    simdops_error *err)
{
    uintptr_t xa = (uintptr_t)x, ya = (uintptr_t)y;
    if (n < 0)
        return simdops_fail_value(err, SIMDOPS_R_NEGATIVE_COUNT, SIMDOPS_ARG_N, n, 0);
    if (n == 0)
        return SIMDOPS_OK;
    if (n > (SIMDOPS_BYTES_LIMIT - 1) / (int64_t)(ex > ey ? ex : ey))
        return simdops_fail_value(err, SIMDOPS_R_COUNT_TOO_LARGE, SIMDOPS_ARG_N, n,
                                  SIMDOPS_BYTES_LIMIT);
    if (!x)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_X);
    if (!y)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_OUT);
    if (xa % ex)
        return simdops_fail(err, SIMDOPS_R_MISALIGNED, SIMDOPS_ARG_X);
    if (ya % ey)
        return simdops_fail(err, SIMDOPS_R_MISALIGNED, SIMDOPS_ARG_OUT);
    if (in_place_ok < 0)
        return SIMDOPS_OK;
    return simdops_check_disjoint(x, (uint64_t)n * ex, y, (uint64_t)n * ey, in_place_ok, err);
}

/* The bytes a requant call writes (n checked by check_1d) */
static uint64_t requant_out_bytes(const simdops_prepared_impl *impl, int64_t n)
{
    return (uint64_t)n * simdops_dtype_rows[impl->dtype].size;
}

/* An elementwise handle of ops [lo, hi] loaded, and x, y, n checked for it. */
static int load_elementwise_1d(const simdops_prepared *p, simdops_op lo, simdops_op hi,
                               const void *x, const void *y, int64_t n,
                               simdops_prepared_impl *impl, simdops_error *err)
{
    size_t es;
    int s;
    SIMDOPS_ENTRY(err, lo);
    if ((s = simdops_prepared_load(p, lo, hi, impl, err)))
        return s;
    es = simdops_dtype_rows[impl->dtype].size;
    return check_1d(x, y, n, es, es, 1, err);
}

int simdops_clip_1d(const simdops_prepared *p, const void *x, void *y, int64_t n,
                    simdops_error *err)
{
    simdops_prepared_impl impl;
    const simdops_kernel_table *kt;
    int s;
    if ((s = load_elementwise_1d(p, SIMDOPS_OP_CLIP, SIMDOPS_OP_CLIP_SCALE_BIAS, x, y, n, &impl,
                                 err)))
        return s;
    kt = simdops_current_kernels();
    (impl.op == SIMDOPS_OP_CLIP ? kt->clip : kt->clip_scale_bias)[impl.dtype](x, y, (size_t)n,
                                                                             &impl.u.clip);
    return SIMDOPS_OK;
}

int simdops_shrink_1d(const simdops_prepared *p, const void *x, void *y, int64_t n,
                      simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    if ((s = load_elementwise_1d(p, SIMDOPS_OP_SHRINK, SIMDOPS_OP_SHRINK, x, y, n, &impl, err)))
        return s;
    simdops_current_kernels()->shrink[impl.dtype](x, y, (size_t)n, &impl.u.shrink);
    return SIMDOPS_OK;
}

int simdops_hardmax_rows(simdops_dtype dtype, const void *x, void *y, int64_t rows, int64_t cols,
                         simdops_error *err)
{
    static const int last_axis[2] = {0, 1};
    simdops_tensor xt = {0}, yt = {0};
    size_t es;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_HARDMAX);
    if ((s = simdops_check_op_dtype(SIMDOPS_OP_HARDMAX, dtype, SIMDOPS_ARG_X, err)))
        return s;
    if (rows < 0)
        return simdops_fail_value(err, SIMDOPS_R_NEGATIVE_COUNT, SIMDOPS_ARG_ROWS, rows, 0);
    if (cols < 0)
        return simdops_fail_value(err, SIMDOPS_R_NEGATIVE_COUNT, SIMDOPS_ARG_COLS, cols, 0);
    es = simdops_dtype_rows[dtype].size;
    if (rows > 0 && cols > (SIMDOPS_BYTES_LIMIT - 1) / (int64_t)es / rows) {
        simdops_fail_value(err, SIMDOPS_R_SIZE_OVERFLOW, SIMDOPS_ARG_ROWS, rows, cols);
        err->index = SIMDOPS_BYTES_LIMIT;
        return err->status;
    }
    if ((s = check_1d(x, y, rows * cols, es, es, 1, err)))
        return s;
    if (rows == 0 || cols == 0)
        return SIMDOPS_OK;
    /* the general driver's last-axis path, on the calling thread */
    xt.data = (void *)(uintptr_t)x;
    yt.data = y;
    xt.dtype = yt.dtype = dtype;
    xt.ndim = yt.ndim = 2;
    xt.shape[0] = yt.shape[0] = rows;
    xt.shape[1] = yt.shape[1] = cols;
    xt.strides[0] = yt.strides[0] = cols * (int64_t)es;
    xt.strides[1] = yt.strides[1] = (int64_t)es;
    return simdops_hardmax_run(simdops_current_kernels(), &xt, &yt, last_axis);
}

/* A vector of n int32 / float32 the kernel reads beside x (bias, multipliers,
 * shifts, scales): element-aligned, and apart from y's ylen bytes (a kernel
 * reads it while it writes y, so a shared byte would give each tier's
 * order of reads and writes; its results differed between tiers). */
static int check_vector(const void *v, int64_t n, int arg, const void *y, uint64_t ylen,
                        simdops_error *err)
{
    if ((uintptr_t)v % 4)
        return simdops_fail(err, SIMDOPS_R_MISALIGNED, arg);
    return simdops_check_out_apart(v, (uint64_t)n * 4, arg, y, ylen, err);
}

/* The checks every requant form makes: handle, x/y (apart: int32 in, another
 * type out, so y == x is no in-place form), bias. */
static int requant_1d_checks(const simdops_prepared *p, const int32_t *x, const void *y,
                             int64_t n, const int32_t *bias, simdops_prepared_impl *impl,
                             simdops_error *err)
{
    int s;
    if ((s = simdops_prepared_load(p, SIMDOPS_OP_REQUANT, SIMDOPS_OP_REQUANT, impl, err)) ||
        (s = check_1d(x, y, n, 4, simdops_dtype_rows[impl->dtype].size, -1, err)))
        return s;
    if (n == 0)
        return SIMDOPS_OK;
    if ((s = simdops_check_out_apart(x, (uint64_t)n * 4, SIMDOPS_ARG_X, y,
                                     requant_out_bytes(impl, n), err)))
        return s;
    if (bias && (s = check_vector(bias, n, SIMDOPS_ARG_BIAS, y, requant_out_bytes(impl, n), err)))
        return s;
    return SIMDOPS_OK;
}

int simdops_requant_1d(const simdops_prepared *p, const int32_t *x, void *y, int64_t n,
                       const int32_t *bias, simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    if ((s = requant_1d_checks(p, x, y, n, bias, &impl, err)))
        return s;
    if (impl.u.requant.fold) {
        float c; /* per tensor: the prepared fold (a power-of-two chain) to the default */
        simdops_requant_fold_apply(&impl.u.requant, NULL, 0, 0, &c);
    }
    simdops_requant_kernel(simdops_current_kernels(), impl.u.requant.family,
                           simdops_dtype_rows[impl.dtype].requant_slot)(x, y, (size_t)n, bias,
                                                                         &impl.u.requant);
    return SIMDOPS_OK;
}

int simdops_requant_pc_1d(const simdops_prepared *p, const int32_t *x, void *y, int64_t n,
                          const int32_t *bias, const int32_t *multipliers,
                          const int32_t *shifts, simdops_error *err)
{
    simdops_prepared_impl impl;
    simdops_requant_channels ch;
    int s, slot;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    if ((s = requant_1d_checks(p, x, y, n, bias, &impl, err)))
        return s;
    if (n > 0) {
        if (!multipliers)
            return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_MULTIPLIER);
        if (!shifts)
            return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_SHIFT);
        if ((s = check_vector(multipliers, n, SIMDOPS_ARG_MULTIPLIER, y,
                              requant_out_bytes(&impl, n), err)) ||
            (s = check_vector(shifts, n, SIMDOPS_ARG_SHIFT, y, requant_out_bytes(&impl, n), err)))
            return s;
        for (int64_t k = 0; k < n; k++)
            if ((s = simdops_requant_check_shift_for(impl.u.requant.family, shifts[k], k, err)))
                return s;
    }
    if (impl.u.requant.family == SIMDOPS_ROUNDING_FP)
        return simdops_fail(err, SIMDOPS_R_NOT_PREPARED, SIMDOPS_ARG_PREPARED);
    slot = simdops_dtype_rows[impl.dtype].requant_slot;
    memset(&ch, 0, sizeof ch); /* one row: the kernels derive the shifts inline */
    ch.mult = multipliers;
    ch.shift = shifts;
    simdops_requant_pc_kernel(simdops_current_kernels(), impl.u.requant.family, slot)(
        x, y, (size_t)n, bias, &ch, &impl.u.requant);
    return SIMDOPS_OK;
}

int simdops_requant_fp_pc_1d(const simdops_prepared *p, const int32_t *x, void *y, int64_t n,
                             const int32_t *bias, const float *scales, simdops_error *err)
{
    simdops_prepared_impl impl;
    simdops_requant_channels ch;
    int s, below_one = 0;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    if ((s = requant_1d_checks(p, x, y, n, bias, &impl, err)))
        return s;
    if (impl.u.requant.family != SIMDOPS_ROUNDING_FP)
        return simdops_fail(err, SIMDOPS_R_NOT_PREPARED, SIMDOPS_ARG_PREPARED);
    if (n > 0) {
        if (!scales)
            return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_SCALE);
        if ((s = check_vector(scales, n, SIMDOPS_ARG_SCALE, y, requant_out_bytes(&impl, n), err)))
            return s;
        if ((s = simdops_requant_check_scales(scales, n, &below_one, err)))
            return s;
    }
    memset(&ch, 0, sizeof ch);
    ch.scale = scales;
    ch.scales_below_one = below_one;
    simdops_current_kernels()->requant_fp_pc[simdops_dtype_rows[impl.dtype].requant_slot](
        x, y, (size_t)n, bias, &ch, &impl.u.requant);
    return SIMDOPS_OK;
}
