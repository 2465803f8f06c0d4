/* simdops_int8_matmul_accumulators: check the three views, pack a's rows and
 * w's columns into contiguous copies (w transposed, so each output is one dot
 * of two contiguous rows), then one kernel call per row of a. The copies are
 * why out may overlap a or w, and why any strides work. */
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "dispatch/dispatch.h"
#include "driver/strided.h"
#include "rules/checks.h"
#include "rules/rules.h"

#define OP_DTYPES (-1) /* check_2d's want for a: a dtype the op takes (uint8, int8) */

/* One of the three views: a 2-D view of the dtype want (w: int8, out: int32;
 * a: OP_DTYPES). */
static int check_2d(const simdops_tensor *t, int arg, int want, simdops_error *err)
{
    int s;
    if ((s = simdops_check_tensor(t, arg, err)))
        return s;
    if (t->ndim != 2)
        return simdops_fail_value(err, SIMDOPS_R_MATMUL_NDIM, arg, t->ndim, 2);
    if (want == OP_DTYPES)
        return simdops_check_op_dtype(SIMDOPS_OP_INT8_MATMUL, t->dtype, arg, err);
    if (t->dtype != (simdops_dtype)want)
        return simdops_fail_dtype(err, SIMDOPS_R_DTYPE_MISMATCH, arg, t->dtype,
                                  (simdops_dtype)want);
    return SIMDOPS_OK;
}

static int check_out(const simdops_tensor *out, int64_t m, int64_t n, simdops_error *err)
{
    int s;
    if ((s = check_2d(out, SIMDOPS_ARG_OUT, SIMDOPS_INT32, err)))
        return s;
    for (int d = 0; d < 2; d++) {
        int64_t want = d ? n : m;
        if (out->shape[d] != want) {
            simdops_fail_value(err, SIMDOPS_R_MATMUL_OUT_SHAPE, SIMDOPS_ARG_OUT, out->shape[d], want);
            err->index = d;
            return err->status;
        }
    }
    if (simdops_self_overlaps(out))
        return simdops_fail(err, SIMDOPS_R_SELF_OVERLAP, SIMDOPS_ARG_OUT);
    return SIMDOPS_OK;
}

static const char *at(const simdops_tensor *t, int64_t i, int64_t j)
{
    return (const char *)t->data + i * t->strides[0] + j * t->strides[1];
}

int simdops_int8_matmul_accumulators(const simdops_tensor *a, const simdops_tensor *w,
                                     const simdops_tensor *out, int pair_saturation,
                                     simdops_error *err)
{
    int s;
    int64_t m, k, n;
    unsigned char *ap = NULL;
    int8_t *wt = NULL;
    int32_t *row = NULL;
    simdops_int8_dot_fn kernel;
    const simdops_kernel_table *table;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_INT8_MATMUL);
    if ((s = check_2d(a, SIMDOPS_ARG_A, OP_DTYPES, err)) ||
        (s = check_2d(w, SIMDOPS_ARG_W, SIMDOPS_INT8, err)))
        return s;
    m = a->shape[0];
    k = a->shape[1];
    n = w->shape[1];
    if (w->shape[0] != k)
        return simdops_fail_value(err, SIMDOPS_R_MATMUL_INNER, SIMDOPS_ARG_W, w->shape[0], k);
    if ((s = check_out(out, m, n, err)))
        return s;
    if (m == 0 || n == 0)
        return SIMDOPS_OK;
    /* sizes below 2^62 bytes each (simdops_check_tensor), so these products fit */
    ap = (unsigned char *)malloc((size_t)(m * k) + 1);
    wt = (int8_t *)malloc((size_t)(n * k) + 1);
    row = (int32_t *)malloc((size_t)n * sizeof(int32_t));
    if (!ap || !wt || !row) {
        free(ap);
        free(wt);
        free(row);
        return simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_NONE);
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++)
            ap[i * k + p] = *(const unsigned char *)at(a, i, p);
    for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < n; j++)
            wt[j * k + p] = *(const int8_t *)at(w, p, j);
    table = simdops_current_kernels();
    kernel = pair_saturation ? table->int8_dot_pairsat[a->dtype] : table->int8_dot[a->dtype];
    for (int64_t i = 0; i < m; i++) {
        kernel(ap + i * k, wt, row, (size_t)n, (size_t)k);
        for (int64_t j = 0; j < n; j++)
            memcpy((char *)at(out, i, j), &row[j], sizeof(int32_t));
    }
    free(ap);
    free(wt);
    free(row);
    return SIMDOPS_OK;
}
