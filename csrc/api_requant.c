/* The N-d requant entry points: output type and parameters come prepared
 * (params.c); here the per-channel vectors are checked and made contiguous,
 * the per-channel shifts range-checked, and the strided driver run with the
 * calling thread's kernels. */
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "strided.h"

typedef struct requant_ctx {
    simdops_requant_fn kernel;
    simdops_requant_pc_fn kernel_pc;
    simdops_requant_params params;
    const int32_t *bias, *mult, *shift;
} requant_ctx;

static void requant_row(const void *x, void *y, size_t n, size_t k0, const void *ctx)
{
    const requant_ctx *c = (const requant_ctx *)ctx;
    const int32_t *bias = c->bias ? c->bias + k0 : NULL;
    if (c->mult)
        c->kernel_pc((const int32_t *)x, y, n, bias, c->mult + k0, c->shift + k0, &c->params);
    else
        c->kernel((const int32_t *)x, y, n, bias, &c->params);
}

/* A per-channel int32 vector as a contiguous array (copied when strided,
 * misaligned or overlapping y). */
static int channel_vector(const simdops_tensor *v, int arg, const simdops_tensor *x,
                          const simdops_tensor *y, const int32_t **out, void **tmp,
                          simdops_error *err)
{
    simdops_tensor c;
    int s;
    *tmp = NULL;
    if ((s = simdops_check_tensor(v, arg, err)))
        return s;
    if (v->dtype != SIMDOPS_INT32)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, arg, v->dtype, SIMDOPS_INT32);
    if (x->ndim < 1)
        return simdops_fail(err, SIMDOPS_R_NEEDS_AXIS, arg);
    if (v->ndim != 1 || v->shape[0] != x->shape[x->ndim - 1]) {
        simdops_fail_value(err, SIMDOPS_R_CHANNELS, arg, v->ndim, x->shape[x->ndim - 1]);
        return err->status;
    }
    if ((v->strides[0] == 4 || v->shape[0] <= 1) && (uintptr_t)v->data % 4 == 0 &&
        !simdops_may_overlap(v, y)) {
        *out = (const int32_t *)v->data;
        return SIMDOPS_OK;
    }
    if (simdops_contiguous_copy(v, &c, tmp))
        return simdops_fail(err, SIMDOPS_R_NOMEM, arg);
    *out = (const int32_t *)c.data;
    return SIMDOPS_OK;
}

/* n copies of value (for the per-channel vector the caller left per tensor). */
static int32_t *filled(int64_t n, int32_t value)
{
    int32_t *v = (int32_t *)malloc(n > 0 ? (size_t)n * sizeof(int32_t) : 1);
    for (int64_t k = 0; v && k < n; k++)
        v[k] = value;
    return v;
}

int simdops_requant_check_shifts(const int32_t *shift, int64_t n, simdops_error *err)
{
    for (int64_t k = 0; k < n; k++) {
        if (shift[k] < -31 || shift[k] > 31) {
            simdops_fail_value(err, SIMDOPS_R_SHIFT_RANGE, SIMDOPS_ARG_SHIFT, shift[k], 0);
            err->index = k;
            return err->status;
        }
    }
    return SIMDOPS_OK;
}

static int run_requant(const simdops_prepared_impl *impl, const simdops_tensor *x,
                       const simdops_tensor *y, const simdops_tensor *bias,
                       const simdops_tensor *multipliers, const simdops_tensor *shifts,
                       simdops_error *err)
{
    const simdops_kernel_table *kt;
    requant_ctx c;
    simdops_tensor xin;
    void *tmp[4] = {NULL, NULL, NULL, NULL};
    int s, slot;
    if ((s = simdops_check_tensor(x, SIMDOPS_ARG_X, err)))
        return s;
    if (!simdops_op_supports(SIMDOPS_OP_REQUANT, x->dtype))
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_UNSUPPORTED, SIMDOPS_ARG_X, x->dtype, 0);
    if ((s = simdops_check_output(x, y, (simdops_dtype)impl->dtype, err)))
        return s;
    memset(&c, 0, sizeof(c));
    c.params = impl->u.requant;
    slot = simdops_dtype_rows[impl->dtype].requant_slot;
    kt = simdops_current_kernels();
    c.kernel = kt->requant[slot];
    c.kernel_pc = kt->requant_pc[slot];
    if ((s = simdops_input_view(x, y, &xin, &tmp[0], err)))
        return s;
    if (bias && (s = channel_vector(bias, SIMDOPS_ARG_BIAS, x, y, &c.bias, &tmp[1], err)))
        goto done;
    if (multipliers && (s = channel_vector(multipliers, SIMDOPS_ARG_MULTIPLIER, x, y, &c.mult,
                                           &tmp[2], err)))
        goto done;
    if (shifts && (s = channel_vector(shifts, SIMDOPS_ARG_SHIFT, x, y, &c.shift, &tmp[3], err)))
        goto done;
    if (multipliers || shifts) {
        int64_t channels = x->shape[x->ndim - 1];
        if (!multipliers && !(c.mult = (const int32_t *)(tmp[2] = filled(channels, c.params.multiplier)))) {
            s = simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_MULTIPLIER);
            goto done;
        }
        if (!shifts && !(c.shift = (const int32_t *)(tmp[3] = filled(
                             channels, c.params.right_shift - c.params.left_shift)))) {
            s = simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_SHIFT);
            goto done;
        }
        if ((s = simdops_requant_check_shifts(c.shift, channels, err)))
            goto done;
    }
    simdops_elementwise(&xin, y, c.bias || c.mult, requant_row, &c);
done:
    for (int k = 0; k < 4; k++)
        free(tmp[k]);
    return s;
}

int simdops_requant_prepared(const simdops_prepared *p, const simdops_tensor *x,
                             const simdops_tensor *y, const simdops_tensor *bias,
                             const simdops_tensor *multipliers, const simdops_tensor *shifts,
                             simdops_error *err)
{
    simdops_error scratch;
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ERROR_BEGIN(err, scratch, SIMDOPS_OP_REQUANT);
    if ((s = simdops_prepared_load(p, SIMDOPS_OP_REQUANT, SIMDOPS_OP_REQUANT, &impl, err)))
        return s;
    return run_requant(&impl, x, y, bias, multipliers, shifts, err);
}

int simdops_requant(const simdops_tensor *x, const simdops_tensor *y,
                    const simdops_requant_args *a, simdops_error *err)
{
    simdops_error scratch;
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ERROR_BEGIN(err, scratch, SIMDOPS_OP_REQUANT);
    if (!a)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_NONE);
    if ((s = simdops_check_tensor(y, SIMDOPS_ARG_OUT, err)))
        return s;
    memset(&impl, 0, sizeof(impl));
    if ((s = simdops_requant_params_init(y->dtype, a->multiplier, a->shift, a->offset,
                                         a->has_min ? &a->min : NULL, a->has_max ? &a->max : NULL,
                                         &impl.u.requant, err))) {
        if (err->arg == SIMDOPS_ARG_OUT_DTYPE) /* here the output type is out's */
            err->arg = SIMDOPS_ARG_OUT;
        return s;
    }
    impl.op = SIMDOPS_OP_REQUANT;
    impl.dtype = y->dtype;
    return run_requant(&impl, x, y, a->bias, a->multipliers, a->shifts, err);
}
