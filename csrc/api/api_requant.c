/* The N-d requant entry points: output type and parameters come prepared
 * (requant_families.c); here the per-channel vectors are checked and made contiguous,
 * the per-channel shifts range-checked, and the strided driver run with the
 * calling thread's kernels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/kernel_abi.h"
#include "kernels/registry.h"
#include "kernels/requant/rq_chain_fold.h"
#include "dispatch/dispatch.h"
#include "driver/requant_channels.h"
#include "driver/strided.h"
#include "rules/checks.h"
#include "rules/params.h"
#include "rules/rules.h"

/* Rows of fewer elements are run several to a kernel call: bias and the
 * per-channel vectors are repeated to at least this length, so a tensor of
 * 16 channels (a conv layer's) runs long rows, not one 16-element tail each. */
#define RQ_MIN_PERIOD 512
/* From this many rows on, the derived per-channel arrays are built once per
 * call (see simdops_requant_channels); for fewer the kernels derive inline. */
#define RQ_DERIVE_MIN_ROWS 4
/* Spans of at least this many elements start their kernel calls on x's
 * 64-byte lines (a short head call first): numpy's large buffers start 16
 * bytes past a line, and a vector load across two lines costs two. Below it
 * the second call would cost more than the split loads it saves. */
#define RQ_LINE_CALLS_MIN 1024
/* Channels whose scales times a folded chain's c (simdops_requant_fold_apply) are
 * copied to the caller's stack; more go to memory */
#define RQ_FOLD_STACK 1024

typedef struct requant_ctx {
    simdops_requant_fn kernel;
    simdops_requant_pc_fn kernel_pc;
    simdops_requant_params params;
    const int32_t *bias;         /* the repeated bias, or NULL */
    simdops_requant_channels ch; /* the repeated vectors, when per_channel */
    int per_channel;
    size_t channels;             /* x's last dimension (1 without bias or per-channel vectors) */
    size_t period;               /* a multiple of channels: the vectors repeat after it */
    /* 1: the arrays hold a period and one more row of channels, so a call may
     * run a whole period from any index below channels, and the calls start on
     * x's lines; the arrays were placed on x's offset within a line, so their
     * loads are whole lines too.
     * 0: the arrays hold one period, and a call ends where it wraps. */
    int line_calls;
    /* 1: the per-channel kernel restarts its vectors every period elements
     * itself (the float families', and the fixed-point entries the kernel
     * table marks, requant_pc_restarts): one call per span after the head */
    int restarts;
    size_t out_size;
} requant_ctx;

/* m elements from channel phase at; period: 0, or (float per-channel kernels)
 * where the vectors restart within the call */
static void requant_span(const requant_ctx *c, const int32_t *x, char *y, size_t m, size_t at,
                         size_t period)
{
    const int32_t *bias = c->bias ? c->bias + at : NULL;
    if (c->per_channel) {
        simdops_requant_channels ch = simdops_requant_channels_at(&c->ch, at);
        ch.period = period;
        ch.cycle = period ? c->ch.cycle : 0;
        c->kernel_pc(x, y, m, bias, &ch, &c->params);
    } else {
        c->kernel(x, y, m, bias, &c->params);
    }
}

/* Elements k0.. of a row of the ordered-last-axis walk: element k0 + j is at
 * channel (k0 + j) % channels, so the vectors are read from k0 % channels on
 * (their content repeats every channels elements). */
static void requant_row(const void *xv, void *yv, size_t n, size_t k0, const void *ctx)
{
    const requant_ctx *c = (const requant_ctx *)ctx;
    const int32_t *x = (const int32_t *)xv;
    char *y = (char *)yv;
    size_t at = k0 % c->channels;
    const int whole_lines = c->period == SIZE_MAX || c->line_calls;
    /* kernels that restart their vectors themselves: after the head, one call
     * for the whole span (a call per period cost the float ones 3-4%, the
     * AVX-512 double-rounding one ~8% of a 256x256 call) */
    const int restarts = c->line_calls && c->per_channel && c->restarts;
    if (whole_lines && n >= RQ_LINE_CALLS_MIN && (uintptr_t)x % 4 == 0) {
        size_t head = (64 - (uintptr_t)x % 64) % 64 / 4;
        if (head) {
            requant_span(c, x, y, head, at, 0);
            x += head;
            y += head * c->out_size;
            n -= head;
            at = (at + head) % c->channels;
        }
    }
    while (n > 0) {
        size_t m = restarts ? n : c->line_calls ? c->period : c->period - at;
        m = m < n ? m : n;
        requant_span(c, x, y, m, at, restarts ? c->period : 0);
        x += m;
        y += m * c->out_size;
        n -= m;
        at = c->line_calls ? (at + m) % c->channels : 0;
    }
}

/* int32 words of the caller's stack the repeated arrays use when they fit (a
 * 256-channel layer's scales and bias do), beside the 64-byte alignment: a
 * malloc and free of a few KB cost about as much as repeating the vectors */
#define RQ_STACK_WORDS 2048

/* Fills c's bias, ch and period from the contiguous vectors (mult and shift
 * both or neither), repeating them and deriving the per-channel arrays as
 * the row count makes worthwhile, in stack (RQ_STACK_WORDS + 16 words) when
 * they fit, else in memory *mem gets (to free). */
static int setup_channels(requant_ctx *c, const simdops_tensor *x, const int32_t *bias,
                          const int32_t *mult, const int32_t *shift, const float *scales,
                          const double *scales64, int scales_below_one, int32_t *stack,
                          void **mem)
{
    int64_t numel = simdops_numel(x);
    size_t channels = x->ndim > 0 ? (size_t)x->shape[x->ndim - 1] : 1;
    size_t rows = channels > 0 ? (size_t)numel / channels : 0, reps = 1, words = 0, period,
           stride, len, lead;
    /* the derived arrays serve the double-rounding (and ties-up) and single-rounding
     * kernels (ties up or away: a normalised pair gives both the same quotient) */
    const int single = c->params.family == SIMDOPS_ROUNDING_SINGLE ||
                       c->params.family == SIMDOPS_ROUNDING_SINGLE_AWAY;
    int derive = mult && rows >= RQ_DERIVE_MIN_ROWS &&
                 (c->params.family == SIMDOPS_ROUNDING_DOUBLE ||
                  c->params.family == SIMDOPS_ROUNDING_DOUBLE_TIES_UP || single);
    int32_t *storage;
    c->bias = bias;
    c->per_channel = mult != NULL || scales != NULL || scales64 != NULL;
    if (scales || scales64) {
        /* the float scales take the place of the multipliers: one repeated array */
        memset(&c->ch, 0, sizeof c->ch);
        c->ch.scale = scales;
        c->ch.scale64 = scales64;
        c->ch.scales_below_one = scales_below_one;
    }
    c->channels = 1;
    c->period = SIZE_MAX; /* per tensor: one kernel call per row */
    c->line_calls = 0;
    if (!(bias || c->per_channel) || numel == 0)
        return 0;
    if (channels < RQ_MIN_PERIOD && rows > 1) {
        /* calls from x's lines need periods of whole lines (4 * period % 64 ==
         * 0): reps a multiple of 16 / gcd(channels, 16) */
        size_t g = channels & (0 - channels), step = g >= 16 ? 1 : 16 / g, lined;
        reps = (RQ_MIN_PERIOD + channels - 1) / channels;
        lined = (reps + step - 1) / step * step;
        if ((uintptr_t)x->data % 4 == 0 && rows >= 2 * lined) {
            reps = lined;
            c->line_calls = 1;
            c->ch.cycle = scales || scales64 ? channels * step : 0; /* lcm(channels, 16) */
        } else {
            reps = reps < rows ? reps : rows;
        }
    }
    period = channels * reps;
    len = c->line_calls ? period + channels : period;
    lead = c->line_calls ? (uintptr_t)x->data % 64 / 4 : 0;
    stride = (lead + len + 1 + 15) & ~(size_t)15; /* words between arrays: whole cache lines */
    c->channels = channels;
    c->period = period;
    if (mult) {
        c->ch.mult = mult;
        c->ch.shift = shift;
    }
    if (bias && reps > 1)
        words += stride;
    /* the derived arrays carry the AVX-512 fast path's constants too (double
     * rounding and ties-up share them: the rules differ only in the sign term;
     * single rounding's have no sign term and no h) */
    if (derive) /* five arrays (single rounding: three) stride words apart */
        words += 5 * stride + simdops_requant_channels_fast_words(stride);
    else if (mult && reps > 1)
        words += 2 * stride;
    if (scales && reps > 1)
        words += stride;
    if (scales64 && reps > 1)
        words += 2 * stride; /* doubles: two words each */
    if (!words)
        return 0;
    /* each array starts on a 64-byte line, plus x's offset within its line
     * when the calls start on x's lines: the vector loads then never split a
     * line either */
    if (words <= RQ_STACK_WORDS)
        storage = stack;
    else if (!(storage = *mem = malloc(words * sizeof(int32_t) + 64)))
        return -1;
    storage = (int32_t *)(void *)(((uintptr_t)storage + 63) & ~(uintptr_t)63);
    if (bias && reps > 1) {
        simdops_repeat_words(storage + lead, bias, channels, len / channels);
        c->bias = storage + lead;
        storage += stride;
    }
    if (derive && single) {
        simdops_requant_channels_init_single(&c->ch, storage + lead, stride, mult, shift, channels,
                                             len / channels);
    } else if (derive) {
        simdops_requant_channels_init_strided(&c->ch, storage + lead, stride, mult, shift,
                                              channels, len / channels);
    }
    if (derive) {
        simdops_requant_channels_init_fast(&c->ch, storage + 5 * stride + lead, stride,
                                           channels, len, c->params.offset, c->params.min,
                                           c->params.max);
    } else if (mult && reps > 1) {
        simdops_repeat_words(storage + lead, mult, channels, len / channels);
        simdops_repeat_words(storage + stride + lead, shift, channels, len / channels);
        c->ch.mult = storage + lead;
        c->ch.shift = storage + stride + lead;
        storage += 2 * stride;
    }
    if (scales && reps > 1) {
        /* float32 and int32 have one size: repeated as words */
        simdops_repeat_words(storage + lead, (const int32_t *)(const void *)scales, channels,
                             len / channels);
        c->ch.scale = (const float *)(void *)(storage + lead);
        storage += stride;
    }
    if (scales64 && reps > 1) {
        /* a double is two words: the block of 2 * channels words repeated, placed on
         * x's offset within a line as the others (8-byte aligned: storage is) */
        simdops_repeat_words(storage + 2 * lead, (const int32_t *)(const void *)scales64,
                             2 * channels, len / channels);
        c->ch.scale64 = (const double *)(void *)(storage + 2 * lead);
    }
    return 0;
}

/* A per-channel int32 vector as a contiguous array (copied when strided,
 * misaligned or overlapping y). */
static int channel_vector(const simdops_tensor *v, int arg, simdops_dtype dtype,
                          const simdops_tensor *x, const simdops_tensor *y, const void **out,
                          void **tmp, simdops_error *err)
{
    simdops_tensor c;
    int s;
    *tmp = NULL;
    if ((s = simdops_check_tensor(v, arg, err)) || (s = simdops_check_channels(v, arg, dtype, x, err)))
        return s;
    const int64_t size = simdops_dtype_rows[dtype].size;
    if ((v->strides[0] == size || v->shape[0] <= 1) && (uintptr_t)v->data % size == 0 &&
        !simdops_may_overlap(v, y)) {
        *out = v->data;
        return SIMDOPS_OK;
    }
    if (simdops_contiguous_copy(v, &c, tmp))
        return simdops_fail(err, SIMDOPS_R_NOMEM, arg);
    *out = c.data;
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

/* Every shift[k] in family's range (simdops_requant_shift_range, the rule), else
 * the first one outside it with its index (simdops_requant_check_shift_for, the
 * error). The range test is a branch-free min/max scan, which vectorises: a
 * check per element was ~5% of a 256x256 per-channel call. */
static int check_shifts_for(int family, const int32_t *shift, int64_t n, simdops_error *err)
{
    int32_t lo, hi, smin = INT32_MAX, smax = INT32_MIN;
    simdops_requant_shift_range(family, &lo, &hi);
    for (int64_t k = 0; k < n; k++) {
        smin = shift[k] < smin ? shift[k] : smin;
        smax = shift[k] > smax ? shift[k] : smax;
    }
    if (n == 0 || (smin >= lo && smax <= hi))
        return SIMDOPS_OK;
    for (int64_t k = 0; k < n; k++) {
        int s = simdops_requant_check_shift_for(family, shift[k], k, err);
        if (s)
            return s;
    }
    return SIMDOPS_OK; /* not reached: some shift is outside */
}

int simdops_requant_check_shifts(const int32_t *shift, int64_t n, simdops_error *err)
{
    return check_shifts_for(SIMDOPS_ROUNDING_DOUBLE, shift, n, err);
}

/* A float chain's fold, made when the handle was prepared (simdops_requant_fold_prepare),
 * applied to the call where it is exact (simdops_requant_fold_apply): the kernel called
 * is then requantize_fp32's default, with *scales (n, or NULL per tensor) replaced by
 * their products by c when the fold leaves a multiplier c per channel (in buf when they
 * fit, else in memory *mem gets), and *below_one for them. known: every |scale| in
 * [SIMDOPS_RQ_SCALE_FLOOR, 1), as the caller's check found. */
static int fold_chain(simdops_requant_params *p, const float **scales, int64_t n, int known,
                      int *below_one, float *buf, void **mem, simdops_error *err)
{
    float c;
    if (simdops_requant_fold_apply(p, *scales, n, known, &c) != 2)
        return SIMDOPS_OK;
    if (n > RQ_FOLD_STACK && !(buf = *mem = malloc((size_t)n * sizeof(float))))
        return simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_SCALE);
    for (int64_t k = 0; k < n; k++)
        buf[k] = (*scales)[k] * c; /* exact: a power of two times a float32, normal */
    *scales = buf;
    return simdops_requant_check_scales(buf, n, below_one, err); /* finite: only *below_one */
}

static int run_requant(const simdops_prepared_impl *impl, const simdops_tensor *x,
                       const simdops_tensor *y, const simdops_tensor *bias,
                       const simdops_tensor *multipliers, const simdops_tensor *shifts,
                       const simdops_tensor *scales, simdops_error *err)
{
    const simdops_kernel_table *kt;
    requant_ctx c;
    simdops_tensor xin;
    const int32_t *mult = NULL, *shift = NULL;
    const float *scale_v = NULL;
    const double *scale64_v = NULL;
    int scales_below_one = 0, scales_known = 0;
    void *tmp[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int32_t stack[RQ_STACK_WORDS + 16];
    float fold_stack[RQ_FOLD_STACK];
    const int32_t *bias_v = NULL;
    const int family = impl->u.requant.family;
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
    c.kernel = simdops_requant_kernel(kt, family, slot);
    c.kernel_pc = simdops_requant_pc_kernel(kt, family, slot);
    /* asked only of a call with per-channel vectors (the flag serves nothing else) */
    c.restarts =
        (multipliers || shifts || scales) && simdops_requant_pc_restarts(kt, family, slot);
    if ((s = simdops_input_view(x, y, &xin, &tmp[0], err)))
        return s;
    if (bias) {
        /* a float family's float32 bias: added in the working precision, unrounded
         * (fbgemm's float bias); its bits travel in the int32 bias vector */
        const int fbias = family == SIMDOPS_ROUNDING_FP && !(c.params.fp_mode & SIMDOPS_FP_ACL) &&
                          bias->dtype == SIMDOPS_FLOAT32;
        if ((s = channel_vector(bias, SIMDOPS_ARG_BIAS, fbias ? SIMDOPS_FLOAT32 : SIMDOPS_INT32,
                                x, y, (const void **)&bias_v, &tmp[1], err)))
            goto done;
        if (fbias) {
            for (int64_t k = 0; k < bias->shape[0]; k++) {
                float f;
                memcpy(&f, &bias_v[k], sizeof f);
                if (!isfinite(f)) {
                    s = simdops_fail(err, SIMDOPS_R_NOT_FINITE_BIAS, SIMDOPS_ARG_BIAS);
                    err->fvalue = f;
                    err->index = k;
                    goto done;
                }
            }
            c.params.fp_mode |= SIMDOPS_RQ_FP_FLOAT_BIAS;
        }
    }
    if (multipliers && (s = channel_vector(multipliers, SIMDOPS_ARG_MULTIPLIER, SIMDOPS_INT32, x,
                                           y, (const void **)&mult, &tmp[2], err)))
        goto done;
    if (shifts && (s = channel_vector(shifts, SIMDOPS_ARG_SHIFT, SIMDOPS_INT32, x, y,
                                      (const void **)&shift, &tmp[3], err)))
        goto done;
    if (scales && family == SIMDOPS_ROUNDING_FP && (c.params.fp_mode & SIMDOPS_FP_FLOAT64) &&
        !(c.params.fp_mode & SIMDOPS_FP_ACL) && scales->dtype == SIMDOPS_FLOAT64) {
        /* float64 scales under float64 precision: used as doubles */
        if ((s = channel_vector(scales, SIMDOPS_ARG_SCALE, SIMDOPS_FLOAT64, x, y,
                                (const void **)&scale64_v, &tmp[5], err)))
            goto done;
        for (int64_t k = 0; k < scales->shape[0]; k++)
            if (!isfinite(scale64_v[k])) {
                s = simdops_fail(err, SIMDOPS_R_NOT_FINITE_SCALE, SIMDOPS_ARG_SCALE);
                err->fvalue = scale64_v[k];
                err->index = k;
                goto done;
            }
    } else if (scales) {
        if ((s = channel_vector(scales, SIMDOPS_ARG_SCALE, SIMDOPS_FLOAT32, x, y,
                                (const void **)&scale_v, &tmp[5], err)))
            goto done;
        /* the float families' one pass: it also tells whether the scales lie where a
         * chain's fold needs no scan of them. Asked of every float call, not only of a
         * chain's, so the default and a chain that folds to it run the same check (the
         * floor's test is one more subtract and OR a vector of scales) */
        if (family == SIMDOPS_ROUNDING_FP) {
            int above_floor;
            if ((s = simdops_requant_check_scales_floor(scale_v, x->shape[x->ndim - 1],
                                                        &scales_below_one, &above_floor, err)))
                goto done;
            scales_known = scales_below_one && above_floor;
        } else if ((s = simdops_requant_check_scales(scale_v, x->shape[x->ndim - 1],
                                                     &scales_below_one, err))) {
            goto done;
        }
    }
    if (multipliers || shifts) {
        int64_t channels = x->shape[x->ndim - 1];
        if (!multipliers && !(mult = (const int32_t *)(tmp[2] = filled(channels, c.params.multiplier)))) {
            s = simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_MULTIPLIER);
            goto done;
        }
        if (!shifts && !(shift = (const int32_t *)(tmp[3] = filled(
                             channels, c.params.right_shift - c.params.left_shift)))) {
            s = simdops_fail(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_SHIFT);
            goto done;
        }
        if ((s = check_shifts_for(family, shift, channels, err)))
            goto done;
    }
    /* the fold's bias rule (rqc_bias_allows_fold: no float32 bias); bias, the tensor, is
     * given whenever SIMDOPS_RQ_FP_FLOAT_BIAS was set above */
    if (c.params.fold && rqc_bias_allows_fold(&c.params, bias) && !scale64_v &&
        (s = fold_chain(&c.params, &scale_v, scale_v ? x->shape[x->ndim - 1] : 0, scales_known,
                        &scales_below_one, fold_stack, &tmp[6], err)))
        goto done;
    if (setup_channels(&c, &xin, bias_v, mult, shift, scale_v, scale64_v, scales_below_one, stack,
                       &tmp[4])) {
        s = simdops_fail(err, SIMDOPS_R_NOMEM, mult ? SIMDOPS_ARG_MULTIPLIER : SIMDOPS_ARG_BIAS);
        goto done;
    }
    c.out_size = simdops_dtype_rows[impl->dtype].size;
    simdops_elementwise(&xin, y, c.bias || c.per_channel, requant_row, &c);
done:
    for (int k = 0; k < 7; k++)
        free(tmp[k]);
    return s;
}

/* Both prepared forms: the float families' handle takes scales (fp != 0), a
 * fixed-point family's takes multipliers and shifts; a handle of the other kind
 * is refused (a float handle with no vectors runs per tensor either way). */
static int run_prepared(const simdops_prepared *p, int fp, const simdops_tensor *x,
                        const simdops_tensor *y, const simdops_tensor *bias,
                        const simdops_tensor *multipliers, const simdops_tensor *shifts,
                        const simdops_tensor *scales, simdops_error *err)
{
    simdops_prepared_impl impl;
    int s, is_fp;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    if ((s = simdops_prepared_load(p, SIMDOPS_OP_REQUANT, SIMDOPS_OP_REQUANT, &impl, err)))
        return s;
    is_fp = impl.u.requant.family == SIMDOPS_ROUNDING_FP;
    if (fp ? !is_fp : is_fp && (multipliers || shifts))
        return simdops_fail(err, SIMDOPS_R_NOT_PREPARED, SIMDOPS_ARG_PREPARED);
    return run_requant(&impl, x, y, bias, multipliers, shifts, scales, err);
}

int simdops_requant_prepared(const simdops_prepared *p, const simdops_tensor *x,
                             const simdops_tensor *y, const simdops_tensor *bias,
                             const simdops_tensor *multipliers, const simdops_tensor *shifts,
                             simdops_error *err)
{
    return run_prepared(p, 0, x, y, bias, multipliers, shifts, NULL, err);
}

int simdops_requant_fp_prepared(const simdops_prepared *p, const simdops_tensor *x,
                                const simdops_tensor *y, const simdops_tensor *bias,
                                const simdops_tensor *scales, simdops_error *err)
{
    return run_prepared(p, 1, x, y, bias, NULL, NULL, scales, err);
}

int simdops_requant(const simdops_tensor *x, const simdops_tensor *y,
                    const simdops_requant_args *a, simdops_error *err)
{
    simdops_prepared_impl impl;
    int s;
    SIMDOPS_ENTRY(err, SIMDOPS_OP_REQUANT);
    if (!a)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_ARGS);
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
    return run_requant(&impl, x, y, a->bias, a->multipliers, a->shifts, NULL, err);
}
