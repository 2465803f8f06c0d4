/* Entry points of quantized add / subtract / multiply: the views checked
 * (dtypes, numpy broadcasting onto out's shape, out's layout, inputs that
 * overlap out read from copies), the kernel of the prepared arithmetic taken
 * from the calling thread's table, the two-input driver run. */
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "driver/binary.h"
#include "driver/strided.h"
#include "kernels/registry.h"
#include "rules/checks.h"
#include "rules/params.h"
#include "rules/qbinary.h"
#include "rules/qbinary_proof.h"
#include "rules/rules.h"

typedef struct qbinary_ctx {
    simdops_qbinary_fn kernel;
    simdops_qbinary_params params;
} qbinary_ctx;

static void qbinary_row(const void *a, const void *b, void *y, size_t n, int form, const void *ctx)
{
    const qbinary_ctx *c = (const qbinary_ctx *)ctx;
    c->kernel(a, b, y, n, form, &c->params);
}

static simdops_qbinary_fn kernel_of(const simdops_kernel_table *kt, int kind, simdops_dtype dtype)
{
    switch (kind) {
    case SIMDOPS_QB_TFLITE_ADD: return kt->qadd_tflite[dtype];
    case SIMDOPS_QB_TFLITE_MUL: return kt->qmul_tflite[dtype];
    case SIMDOPS_QB_XNNPACK_ADD: return kt->qadd_xnnpack[dtype];
    case SIMDOPS_QB_FP_MUL: return kt->qmul_fp[dtype];
    default: return kt->qadd_ort[dtype];
    }
}

/* A qbinary handle (any of the three ops) into *impl; err->op becomes its op. */
static int load(const simdops_prepared *p, simdops_prepared_impl *impl, simdops_error *err)
{
    int s = simdops_prepared_load(p, SIMDOPS_OP_QUANTIZED_ADD, SIMDOPS_OP_QUANTIZED_SUBTRACT,
                                  impl, err);
    if (s && p)
        s = simdops_prepared_load(p, SIMDOPS_OP_QUANTIZED_MULTIPLY,
                                  SIMDOPS_OP_QUANTIZED_MULTIPLY, impl, err);
    if (!s)
        err->op = impl->op;
    return s;
}

/* An input's dtype and its broadcast onto y's shape. */
static int check_input(const simdops_tensor *t, int arg, const simdops_tensor *y,
                       simdops_dtype dtype, simdops_error *err)
{
    if (t->dtype != dtype)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, arg, t->dtype, dtype);
    if (t->ndim > y->ndim)
        return simdops_fail_value(err, SIMDOPS_R_BROADCAST_NDIM, arg, t->ndim, y->ndim);
    for (int k = 0; k < t->ndim; k++) {
        int64_t ye = y->shape[k + y->ndim - t->ndim];
        if (t->shape[k] != 1 && t->shape[k] != ye) {
            simdops_fail_value(err, SIMDOPS_R_BROADCAST, arg, t->shape[k], ye);
            err->index = k;
            return err->status;
        }
    }
    return SIMDOPS_OK;
}

/* Every extent of y is the broadcast extent of a and b. */
static int check_out_shape(const simdops_tensor *a, const simdops_tensor *b,
                           const simdops_tensor *y, simdops_error *err)
{
    for (int d = 0; d < y->ndim; d++) {
        int ka = d - (y->ndim - a->ndim), kb = d - (y->ndim - b->ndim);
        int64_t ea = ka < 0 ? 1 : a->shape[ka], eb = kb < 0 ? 1 : b->shape[kb];
        int64_t want = ea != 1 ? ea : eb;
        if (y->shape[d] != want) {
            simdops_fail_value(err, SIMDOPS_R_BROADCAST_OUT, SIMDOPS_ARG_OUT, y->shape[d], want);
            err->index = d;
            return err->status;
        }
    }
    return SIMDOPS_OK;
}

static int run(const simdops_prepared_impl *impl, const simdops_tensor *a,
               const simdops_tensor *b, const simdops_tensor *y, simdops_error *err)
{
    simdops_dtype dtype = (simdops_dtype)impl->dtype;
    simdops_tensor acopy, bcopy; /* filled only for an input that overlaps y */
    const simdops_tensor *ain, *bin;
    void *atmp = NULL, *btmp = NULL;
    qbinary_ctx c;
    int s;
    if ((s = simdops_check_tensor(a, SIMDOPS_ARG_A, err)) ||
        (s = simdops_check_tensor(b, SIMDOPS_ARG_B, err)) ||
        (s = simdops_check_tensor(y, SIMDOPS_ARG_OUT, err)))
        return s;
    if ((s = check_input(a, SIMDOPS_ARG_A, y, dtype, err)) ||
        (s = check_input(b, SIMDOPS_ARG_B, y, dtype, err)))
        return s;
    if (y->dtype != dtype)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, SIMDOPS_ARG_OUT, y->dtype, dtype);
    if ((s = check_out_shape(a, b, y, err)))
        return s;
    if (simdops_self_overlaps(y))
        return simdops_fail(err, SIMDOPS_R_SELF_OVERLAP, SIMDOPS_ARG_OUT);
    if (simdops_numel(y) == 0)
        return SIMDOPS_OK;
    memset(&c, 0, sizeof(c));
    c.params = impl->u.qbinary;
    c.kernel = kernel_of(simdops_current_kernels(), c.params.kind, dtype);
    /* TFLite's 8-bit add and multiply: the proved form where this thread has proved the parameters
     * (once, after they served enough elements; rules/qbinary_proof.c) */
    simdops_qbinary_proof(&c.params, dtype, (uint64_t)simdops_numel(y), c.kernel);
    if ((s = simdops_input_ref(a, y, &acopy, &ain, &atmp, err))) {
        err->arg = SIMDOPS_ARG_A;
        return s;
    }
    if ((s = simdops_input_ref(b, y, &bcopy, &bin, &btmp, err))) {
        err->arg = SIMDOPS_ARG_B;
        free(atmp);
        return s;
    }
    simdops_binary_elementwise(ain, bin, y, qbinary_row, &c);
    free(atmp);
    free(btmp);
    return SIMDOPS_OK;
}

int simdops_qbinary_prepared(const simdops_prepared *p, const simdops_tensor *a,
                             const simdops_tensor *b, const simdops_tensor *y,
                             simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_QUANTIZED_ADD);
    if ((s = load(p, &impl, err)))
        return s;
    return run(&impl, a, b, y, err);
}

int simdops_qbinary(const simdops_tensor *a, const simdops_tensor *b, const simdops_tensor *y,
                    const simdops_qbinary_args *args, simdops_error *err)
{
    simdops_prepared prep;
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_QUANTIZED_ADD);
    if ((s = simdops_check_tensor(a, SIMDOPS_ARG_A, err)))
        return s;
    if ((s = simdops_prepare_qbinary(a->dtype, args, &prep, err)))
        return s;
    memcpy(&impl, &prep, sizeof(impl));
    return run(&impl, a, b, y, err);
}

int simdops_qbinary_1d(const simdops_prepared *p, const void *a, const void *b, void *y,
                       int64_t n, simdops_error *err)
{
    simdops_prepared_impl impl;
    size_t es;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_QUANTIZED_ADD);
    if ((s = load(p, &impl, err)))
        return s;
    es = simdops_dtype_size((simdops_dtype)impl.dtype);
    if (n < 0)
        return simdops_fail_value(err, SIMDOPS_R_NEGATIVE_COUNT, SIMDOPS_ARG_N, n, 0);
    if (n == 0)
        return SIMDOPS_OK;
    if (n > (SIMDOPS_BYTES_LIMIT - 1) / (int64_t)es)
        return simdops_fail_value(err, SIMDOPS_R_COUNT_TOO_LARGE, SIMDOPS_ARG_N, n,
                                  SIMDOPS_BYTES_LIMIT);
    if (!a)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_A);
    if (!b)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_B);
    if (!y)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_OUT);
    if ((uintptr_t)a % es)
        return simdops_fail(err, SIMDOPS_R_MISALIGNED, SIMDOPS_ARG_A);
    if ((uintptr_t)b % es)
        return simdops_fail(err, SIMDOPS_R_MISALIGNED, SIMDOPS_ARG_B);
    if ((uintptr_t)y % es)
        return simdops_fail(err, SIMDOPS_R_MISALIGNED, SIMDOPS_ARG_OUT);
    if ((s = simdops_check_disjoint(a, (uint64_t)n * es, y, (uint64_t)n * es, 1, err)) ||
        (s = simdops_check_disjoint(b, (uint64_t)n * es, y, (uint64_t)n * es, 1, err)))
        return s;
    if (impl.u.qbinary.kind == SIMDOPS_QB_TFLITE_ADD) /* only a proof marks a call proved */
        impl.u.qbinary.plan.u.tfl_add.proved = 0;
    if (impl.u.qbinary.kind == SIMDOPS_QB_TFLITE_MUL)
        impl.u.qbinary.plan.u.tfl_mul.proved = 0;
    kernel_of(simdops_current_kernels(), impl.u.qbinary.kind,
              (simdops_dtype)impl.dtype)(a, b, y, (size_t)n, SIMDOPS_QB_VV, &impl.u.qbinary);
    return SIMDOPS_OK;
}
