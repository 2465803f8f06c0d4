/* Public entry points: check tensors, convert parameters once, copy an input
 * that partially overlaps the output, then run the active ISA's kernels
 * through the strided driver. */
#include <stdlib.h>
#include <string.h>

#include "hardmax_driver.h"
#include "strided.h"

size_t simdops_dtype_size(simdops_dtype dtype)
{
    static const unsigned char sizes[SIMDOPS_DTYPE_COUNT] = {0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8};
    return (dtype > SIMDOPS_UNKNOWN && dtype < SIMDOPS_DTYPE_COUNT) ? sizes[dtype] : 0;
}

const char *simdops_status_message(int status)
{
    switch (status) {
    case SIMDOPS_OK: return "ok";
    case SIMDOPS_E_DTYPE: return "unsupported dtype for this operation";
    case SIMDOPS_E_SHAPE: return "shape mismatch";
    case SIMDOPS_E_PARAM: return "invalid parameter";
    case SIMDOPS_E_OVERLAP: return "output has elements that share memory";
    case SIMDOPS_E_NOMEM: return "out of memory";
    case SIMDOPS_E_ISA: return "ISA not available";
    default: return "unknown status";
    }
}

static int check_tensor(const simdops_tensor *t)
{
    if (!t || simdops_dtype_size(t->dtype) == 0)
        return SIMDOPS_E_DTYPE;
    if (t->ndim < 0 || t->ndim > SIMDOPS_MAX_DIMS)
        return SIMDOPS_E_SHAPE;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] < 0)
            return SIMDOPS_E_SHAPE;
    if (!t->data && simdops_numel(t) > 0)
        return SIMDOPS_E_PARAM;
    return SIMDOPS_OK;
}

static int same_shape(const simdops_tensor *a, const simdops_tensor *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return 0;
    return 1;
}

/* Common checks of a unary op; on success *xin is x, or a copy of x (to free
 * via *tmp) when x overlaps y other than exactly. */
static int prepare(const simdops_tensor *x, const simdops_tensor *y, int same_dtype,
                   simdops_tensor *xin, void **tmp)
{
    int s;
    *tmp = NULL;
    if ((s = check_tensor(x)) || (s = check_tensor(y)))
        return s;
    if (same_dtype && x->dtype != y->dtype)
        return SIMDOPS_E_DTYPE;
    if (!same_shape(x, y))
        return SIMDOPS_E_SHAPE;
    if (simdops_self_overlaps(y))
        return SIMDOPS_E_OVERLAP;
    if (simdops_may_overlap(x, y) && !(same_dtype && simdops_same_layout(x, y)))
        return simdops_contiguous_copy(x, xin, tmp);
    *xin = *x;
    return SIMDOPS_OK;
}

/* An elementwise op whose output has x's dtype: checks, then the driver. */
static int run_same_dtype(const simdops_tensor *x, const simdops_tensor *y, simdops_row_fn row,
                          const void *ctx)
{
    simdops_tensor xin;
    void *tmp;
    int s = prepare(x, y, 1, &xin, &tmp);
    if (s)
        return s;
    simdops_elementwise(&xin, y, 0, row, ctx);
    free(tmp);
    return SIMDOPS_OK;
}

typedef struct clip_ctx {
    simdops_clip_fn kernel;
    simdops_clip_params params;
} clip_ctx;

static void clip_row(const void *x, void *y, size_t n, size_t k0, const void *ctx)
{
    const clip_ctx *c = (const clip_ctx *)ctx;
    (void)k0;
    c->kernel(x, y, n, &c->params);
}

int simdops_clip(const simdops_tensor *x, const simdops_tensor *y, simdops_number min,
                 simdops_number max, const float *scale_bias)
{
    clip_ctx c;
    int s = check_tensor(x);
    if (s || (s = simdops_clip_params_init(x->dtype, min, max, scale_bias, &c.params)))
        return s;
    c.kernel = scale_bias ? simdops_active_kernels()->clip_scale_bias[x->dtype]
                          : simdops_active_kernels()->clip[x->dtype];
    return c.kernel ? run_same_dtype(x, y, clip_row, &c) : SIMDOPS_E_DTYPE;
}

typedef struct shrink_ctx {
    simdops_shrink_fn kernel;
    simdops_shrink_params params;
} shrink_ctx;

static void shrink_row(const void *x, void *y, size_t n, size_t k0, const void *ctx)
{
    const shrink_ctx *c = (const shrink_ctx *)ctx;
    (void)k0;
    c->kernel(x, y, n, &c->params);
}

int simdops_shrink(const simdops_tensor *x, const simdops_tensor *y, simdops_number bias,
                   simdops_number threshold)
{
    shrink_ctx c;
    int s = check_tensor(x);
    if (s || (s = simdops_shrink_params_init(x->dtype, bias, threshold, &c.params)))
        return s;
    c.kernel = simdops_active_kernels()->shrink[x->dtype];
    return c.kernel ? run_same_dtype(x, y, shrink_row, &c) : SIMDOPS_E_DTYPE;
}

/* Checks shared by the 1-D entry points; kernel is the table entry for dtype. */
static int check_1d(const void *kernel, const void *x, void *y, int64_t n, const void *p)
{
    if (!kernel)
        return SIMDOPS_E_DTYPE;
    if (n < 0 || (n > 0 && (!x || !y)) || !p)
        return SIMDOPS_E_PARAM;
    return SIMDOPS_OK;
}

static int valid_dtype(simdops_dtype dtype)
{
    return dtype > SIMDOPS_UNKNOWN && dtype < SIMDOPS_DTYPE_COUNT;
}

int simdops_clip_1d(simdops_dtype dtype, const void *x, void *y, int64_t n,
                    const simdops_clip_params *p, int scale_bias)
{
    const simdops_kernel_table *kt = simdops_active_kernels();
    simdops_clip_fn k = !valid_dtype(dtype) ? NULL
                        : scale_bias        ? kt->clip_scale_bias[dtype]
                                            : kt->clip[dtype];
    int s = check_1d((const void *)k, x, y, n, p);
    if (!s)
        k(x, y, (size_t)n, p);
    return s;
}

int simdops_shrink_1d(simdops_dtype dtype, const void *x, void *y, int64_t n,
                      const simdops_shrink_params *p)
{
    simdops_shrink_fn k = valid_dtype(dtype) ? simdops_active_kernels()->shrink[dtype] : NULL;
    int s = check_1d((const void *)k, x, y, n, p);
    if (!s)
        k(x, y, (size_t)n, p);
    return s;
}

int simdops_hardmax(const simdops_tensor *x, const simdops_tensor *y, int naxes, const int *axes)
{
    int reduced[SIMDOPS_MAX_DIMS] = {0};
    const simdops_kernel_table *kt = simdops_active_kernels();
    simdops_tensor xin;
    void *tmp;
    int s = check_tensor(x);
    if (s)
        return s;
    if (!kt->argmax_row[x->dtype])
        return SIMDOPS_E_DTYPE;
    if (naxes < 1 || naxes > x->ndim || !axes)
        return SIMDOPS_E_PARAM;
    for (int k = 0; k < naxes; k++) {
        int a = axes[k] < 0 ? axes[k] + x->ndim : axes[k];
        if (a < 0 || a >= x->ndim || reduced[a])
            return SIMDOPS_E_PARAM;
        reduced[a] = 1;
    }
    if ((s = prepare(x, y, 1, &xin, &tmp)))
        return s;
    /* the argmax kernels read x in place: give them element-aligned data */
    if (!tmp && !simdops_is_aligned(&xin) && (s = simdops_contiguous_copy(x, &xin, &tmp)))
        return s;
    s = simdops_hardmax_threaded(kt, &xin, y, reduced);
    free(tmp);
    return s;
}

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

/* A per-channel int32 vector as a contiguous array (copied when strided or
 * when it overlaps y). */
static int channel_vector(const simdops_tensor *v, const simdops_tensor *x,
                          const simdops_tensor *y, const int32_t **out, void **tmp)
{
    simdops_tensor c;
    int s;
    *tmp = NULL;
    if ((s = check_tensor(v)))
        return s;
    if (v->dtype != SIMDOPS_INT32)
        return SIMDOPS_E_DTYPE;
    if (v->ndim != 1 || x->ndim < 1 || v->shape[0] != x->shape[x->ndim - 1])
        return SIMDOPS_E_SHAPE;
    if ((v->strides[0] == 4 || v->shape[0] <= 1) && (uintptr_t)v->data % 4 == 0) {
        if (!simdops_may_overlap(v, y)) {
            *out = (const int32_t *)v->data;
            return SIMDOPS_OK;
        }
    }
    if ((s = simdops_contiguous_copy(v, &c, tmp)))
        return s;
    *out = (const int32_t *)c.data;
    return SIMDOPS_OK;
}

int simdops_requant(const simdops_tensor *x, const simdops_tensor *y,
                    const simdops_requant_args *a)
{
    requant_ctx c;
    simdops_tensor xin;
    void *tmp[4] = {NULL, NULL, NULL, NULL};
    int s, out;
    int32_t lo, hi;
    const simdops_kernel_table *kt = simdops_active_kernels();
    if ((s = check_tensor(x)) || (s = check_tensor(y)))
        return s;
    if (x->dtype != SIMDOPS_INT32)
        return SIMDOPS_E_DTYPE;
    switch (y->dtype) {
    case SIMDOPS_UINT8: out = SIMDOPS_RQ_U8; lo = 0; hi = 255; break;
    case SIMDOPS_INT8: out = SIMDOPS_RQ_I8; lo = -128; hi = 127; break;
    case SIMDOPS_INT16: out = SIMDOPS_RQ_I16; lo = -32768; hi = 32767; break;
    default: return SIMDOPS_E_DTYPE;
    }
    if (!a || a->shift < -31 || a->shift > 31 || a->min > a->max || a->min < lo || a->max > hi ||
        (!a->multipliers) != (!a->shifts))
        return SIMDOPS_E_PARAM;
    memset(&c, 0, sizeof(c));
    c.kernel = kt->requant[out];
    c.kernel_pc = kt->requant_pc[out];
    c.params.multiplier = a->multiplier;
    c.params.left_shift = a->shift < 0 ? -a->shift : 0;
    c.params.right_shift = a->shift > 0 ? a->shift : 0;
    c.params.offset = a->offset;
    c.params.min = a->min != a->max ? a->min : lo;
    c.params.max = a->min != a->max ? a->max : hi;
    if ((s = prepare(x, y, 0, &xin, &tmp[0])))
        return s;
    if (a->bias && (s = channel_vector(a->bias, x, y, &c.bias, &tmp[1])))
        goto done;
    if (a->multipliers) {
        if ((s = channel_vector(a->multipliers, x, y, &c.mult, &tmp[2])) ||
            (s = channel_vector(a->shifts, x, y, &c.shift, &tmp[3])))
            goto done;
        for (int64_t k = 0; k < a->shifts->shape[0]; k++) {
            if (c.shift[k] < -31 || c.shift[k] > 31) {
                s = SIMDOPS_E_PARAM;
                goto done;
            }
        }
    }
    simdops_elementwise(&xin, y, c.bias || c.mult, requant_row, &c);
done:
    for (int k = 0; k < 4; k++)
        free(tmp[k]);
    return s;
}
