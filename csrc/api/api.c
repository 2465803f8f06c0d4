/* N-d entry points of clip, shrink and hardmax: check the views, convert the
 * parameters once (params.c), resolve the calling thread's kernel table once,
 * copy an input that partially overlaps the output, then run the strided /
 * hardmax driver with that table's kernels. */
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "api/run_same_dtype.h"
#include "dispatch/dispatch.h"
#include "driver/hardmax_driver.h"
#include "driver/strided.h"
#include "rules/checks.h"
#include "rules/params.h"
#include "rules/rules.h"

int simdops_prepared_load(const simdops_prepared *p, int op1, int op2, simdops_prepared_impl *impl,
                         simdops_error *err)
{
    if (!p)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_PREPARED);
    memcpy(impl, p, sizeof(*impl));
    if (impl->magic != SIMDOPS_PREPARED_MAGIC + (uint32_t)impl->op ||
        (impl->op != op1 && impl->op != op2) || !simdops_dtype_valid(impl->dtype))
        return simdops_fail(err, SIMDOPS_R_NOT_PREPARED, SIMDOPS_ARG_PREPARED);
    return SIMDOPS_OK;
}

/* An elementwise op whose output has x's dtype: checks, then the driver. */
int simdops_run_same_dtype(const simdops_tensor *x, const simdops_tensor *y, simdops_row_fn row,
                           const void *ctx, simdops_error *err)
{
    simdops_tensor xin;
    void *tmp;
    int s;
    if ((s = simdops_check_output(x, y, x->dtype, err)) ||
        (s = simdops_input_view(x, y, &xin, &tmp, err)))
        return s;
    simdops_elementwise(&xin, y, 0, row, ctx);
    free(tmp);
    return SIMDOPS_OK;
}

/* An elementwise op's row function and its context: the kernel (from the caller's
 * table) and its parameters. A chunk run on another thread uses these, never a
 * table of its own. */
#define ELEMENTWISE_ROW(op)                                                                       \
    typedef struct op##_ctx {                                                                     \
        simdops_##op##_fn kernel;                                                                 \
        const simdops_##op##_params *params;                                                      \
    } op##_ctx;                                                                                   \
    static inline void op##_row(const void *x, void *y, size_t n, size_t k0, const void *ctx)    \
    {                                                                                             \
        const op##_ctx *c = (const op##_ctx *)ctx;                                                \
        (void)k0;                                                                                 \
        c->kernel(x, y, n, c->params);                                                            \
    }
ELEMENTWISE_ROW(clip)
ELEMENTWISE_ROW(shrink)
ELEMENTWISE_ROW(unary) /* every op of the simdops_unary_fn shape (inline: unused until one is) */

static int run_clip(const simdops_clip_params *p, int scale_bias, const simdops_tensor *x,
                    const simdops_tensor *y, simdops_error *err)
{
    const simdops_kernel_table *kt = simdops_current_kernels();
    clip_ctx c;
    c.kernel = scale_bias ? kt->clip_scale_bias[x->dtype] : kt->clip[x->dtype];
    c.params = p;
    return simdops_run_same_dtype(x, y, clip_row, &c, err);
}

/* x valid and of the prepared dtype. */
static int check_prepared_input(const simdops_tensor *x, const simdops_prepared_impl *impl,
                                simdops_error *err)
{
    int s = simdops_check_tensor(x, SIMDOPS_ARG_X, err);
    if (!s && (int)x->dtype != impl->dtype)
        s = simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_X, x->dtype,
                               (simdops_dtype)impl->dtype);
    return s;
}

int simdops_clip(const simdops_tensor *x, const simdops_tensor *y, simdops_number min,
                 simdops_number max, const simdops_number *scale, const simdops_number *bias,
                 simdops_error *err)
{
    simdops_clip_params p;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_CLIP);
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)) ||
        (s = simdops_clip_params_init(x->dtype, min, max, scale, bias, &p, err)))
        return s;
    return run_clip(&p, scale || bias, x, y, err);
}


static int run_shrink(const simdops_shrink_params *p, const simdops_tensor *x,
                      const simdops_tensor *y, simdops_error *err)
{
    shrink_ctx c;
    c.kernel = simdops_current_kernels()->shrink[x->dtype];
    c.params = p;
    return simdops_run_same_dtype(x, y, shrink_row, &c, err);
}

int simdops_shrink(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                   simdops_number threshold, simdops_error *err)
{
    simdops_shrink_params p;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_SHRINK);
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)) ||
        (s = simdops_shrink_params_init(x->dtype, bias, threshold, &p, err)))
        return s;
    return run_shrink(&p, x, y, err);
}

/* A prepared elementwise handle of ops [lo, hi] run over x into y. */
static int run_prepared(const simdops_prepared *p, simdops_op lo, simdops_op hi,
                        const simdops_tensor *x, const simdops_tensor *y, simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, lo);
    if ((s = simdops_prepared_load(p, lo, hi, &impl, err)) ||
        (s = check_prepared_input(x, &impl, err)))
        return s;
    if (impl.op == SIMDOPS_OP_SHRINK)
        return run_shrink(&impl.u.shrink, x, y, err);
    return run_clip(&impl.u.clip, impl.op == SIMDOPS_OP_CLIP_SCALE_BIAS, x, y, err);
}

int simdops_clip_prepared(const simdops_prepared *p, const simdops_tensor *x,
                          const simdops_tensor *y, simdops_error *err)
{
    return run_prepared(p, SIMDOPS_OP_CLIP, SIMDOPS_OP_CLIP_SCALE_BIAS, x, y, err);
}

int simdops_shrink_prepared(const simdops_prepared *p, const simdops_tensor *x,
                            const simdops_tensor *y, simdops_error *err)
{
    return run_prepared(p, SIMDOPS_OP_SHRINK, SIMDOPS_OP_SHRINK, x, y, err);
}

int simdops_hardmax_check(simdops_dtype dtype, int ndim, int naxes, const int64_t *axes,
                          simdops_error *err)
{
    int reduced[SIMDOPS_MAX_DIMS] = {0};
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_HARDMAX);
    if ((s = simdops_check_op_dtype(SIMDOPS_OP_HARDMAX, dtype, SIMDOPS_ARG_X, err)))
        return s;
    if (ndim < 0)
        return simdops_fail_value(err, SIMDOPS_R_NDIM_NEGATIVE, SIMDOPS_ARG_X, ndim, 0);
    if (ndim > SIMDOPS_MAX_DIMS)
        return simdops_fail_value(err, SIMDOPS_R_NDIM, SIMDOPS_ARG_X, ndim, SIMDOPS_MAX_DIMS);
    return simdops_reduced_axes(ndim, naxes, axes, reduced, err);
}

int simdops_hardmax(const simdops_tensor *x, const simdops_tensor *y, int naxes,
                    const int64_t *axes, simdops_error *err)
{
    int reduced[SIMDOPS_MAX_DIMS] = {0};
    const simdops_kernel_table *kt;
    simdops_tensor xin;
    void *tmp;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_HARDMAX);
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)))
        return s;
    if (!simdops_op_supports(SIMDOPS_OP_HARDMAX, x->dtype))
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_UNSUPPORTED, SIMDOPS_ARG_X, x->dtype, 0);
    if ((s = simdops_reduced_axes(x->ndim, naxes, axes, reduced, err)) ||
        (s = simdops_check_output(x, y, x->dtype, err)) ||
        (s = simdops_input_view(x, y, &xin, &tmp, err)))
        return s;
    /* the argmax kernels read x in place: give them element-aligned data */
    if (!tmp && !simdops_is_aligned(&xin) && simdops_contiguous_copy(x, &xin, &tmp))
        return simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_X);
    kt = simdops_current_kernels();
    s = simdops_hardmax_threaded(kt, &xin, y, reduced);
    free(tmp);
    return s ? simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_X) : SIMDOPS_OK;
}
