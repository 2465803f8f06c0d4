/* The ufuncs' strided loops: numpy hands each one an inner run of n elements
 * (operand pointers and byte strides). Parameters are prepared by C
 * (simdops_capi_prepare_*: validation and conversion to x's type) once per run
 * of equal parameter values, and the N-d entry point over the prepared handle
 * runs that stretch of x. A parameter with stride 0 (a scalar, or one value
 * broadcast over the run, e.g. per-channel on NCHW once numpy has coalesced H
 * and W) is one run: one prepare, the SIMD kernel over the whole run. A
 * parameter that changes from element to element gives runs of one element:
 * the same prepare and kernel per element, the same bits, slower. */
#include "_ufunc.h"
#include "_ufunc_read.h"

#include <fenv.h>
#include <string.h>


/* Sets the exception simdops raises for err (TypeError for a dtype, MemoryError,
 * ValueError otherwise) with C's message, named after the ufunc; returns -1. */
static int uf_fail(const uf_op *op, const simdops_error *err)
{
    char buf[1024];
    const char *text = buf, *colon;
    PyGILState_STATE gil;
    PyObject *exc = err->status == SIMDOPS_E_DTYPE   ? PyExc_TypeError
                    : err->status == SIMDOPS_E_NOMEM ? PyExc_MemoryError
                                                     : PyExc_ValueError;
    simdops_capi_error_format(err, buf, sizeof(buf));
    colon = strstr(buf, ": "); /* C's op name ("quantize") -> the ufunc's */
    if (colon)
        text = colon + 2;
    gil = PyGILState_Ensure();
    PyErr_Format(exc, "%s: %s", op ? op->name : "simdops.ufunc", text);
    PyGILState_Release(gil);
    return -1;
}

static int uf_no_op(void)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    PyErr_SetString(PyExc_RuntimeError, "simdops.ufunc: loop called without its ufunc");
    PyGILState_Release(gil);
    return -1;
}

static void uf_vec(simdops_tensor *t, char *data, simdops_dtype d, npy_intp n, npy_intp stride)
{
    t->data = data;
    t->dtype = d;
    t->ndim = 1;
    t->shape[0] = n;
    t->strides[0] = stride;
}

#define UF_AT(k, i) (data[k] + (i) * strides[k])

/* A run shorter than this over contiguous x and y takes the contiguous 1-D kernel: the N-d
 * entry point's per-call work (layout analysis, overlap and threading decisions) costs as
 * much as a few hundred elements, and numpy hands NCHW per-channel parameters over one
 * H*W plane (or one 8192-element buffer) at a time. Longer runs take the N-d entry point,
 * which can split a call over simdops' threads. */
#define UF_SHORT_RUN 65536

static int uf_short_contiguous(npy_intp n, npy_intp xstride, npy_intp xsize, npy_intp ystride,
                               npy_intp ysize)
{
    return n < UF_SHORT_RUN && xstride == xsize && ystride == ysize;
}

/* ---------------------------------------------------------------- the loop shape
 * Every elementwise kind runs the same loop: walk the runs of equal parameters, prepare each
 * run's parameters (C validates and converts), run the 1-D kernel over a short contiguous
 * run and the N-d prepared entry over any other. A kind differs only in its parameter
 * operands, how it prepares them and which entry points run a run: uf_shape says so, and
 * uf_param_loop (inlined into each kind's loop with its shape's constants) is the one loop. */

#if defined(__GNUC__)
#define UF_INLINE static inline __attribute__((always_inline))
#else
#define UF_INLINE static inline
#endif

typedef struct uf_at {        /* one run's parameters, read at its first element */
    PyObject *caller;         /* the ufunc (ctx->caller) */
    void *method;             /* the registered loop (ctx->method): the ufunc and every type */
    int typed;                /* xt, yt, pt read from the descriptors (uf_read_types) */
    const uf_op *op;          /* its op: read from the module's table on a memo miss */
    simdops_dtype xt, yt;     /* x's and y's simdops types */
    simdops_dtype pt[3];      /* the parameters' types (the registered loop's) */
    char *v[3];               /* the parameters' bytes */
} uf_at;

typedef int (*uf_prepare_fn)(const uf_at *a, simdops_prepared *p, simdops_error *err);
typedef int (*uf_run_1d_fn)(const simdops_prepared *p, char *x, char *y, npy_intp n,
                            simdops_error *err);
typedef int (*uf_run_nd_fn)(const simdops_prepared *p, const simdops_tensor *x,
                            const simdops_tensor *y, simdops_error *err);

typedef struct uf_shape {
    int nparams;              /* operands 1..nparams; y is operand nparams + 1 */
    int x_int32;              /* x is int32 whatever y is (the requantizations) */
    uf_prepare_fn prepare;
    uf_run_1d_fn run_1d;
    uf_run_nd_fn run_nd;
} uf_shape;

#if defined(_MSC_VER)
#define UF_THREAD_LOCAL __declspec(thread)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define UF_THREAD_LOCAL _Thread_local
#else
#define UF_THREAD_LOCAL __thread
#endif

/* What this thread prepared lately and what C made of it: a few slots, picked by the
 * parameters' bytes. A prepare is a pure function of its inputs (C's validation and
 * conversion; ~240-390 instructions, as much as a 16-element kernel call) and calls repeat
 * their parameters: the same layer called again, a per-tensor scale, and per channel on an
 * NCHW axis, where numpy calls the loop once per H*W plane with that channel's scale (64
 * different prepares per call of a 64-channel layer, the same 64 on its next call). A hit
 * copies the handle. Only successes are kept, so an invalid parameter still reaches C and
 * raises every time. The key holds the ufunc object (the table of ops is read only on a miss
 * or an error); the ufuncs live as long as the process, so a pointer names one op. */
typedef struct uf_prepare_key {
    PyObject *caller;
    void *method;             /* the loop numpy picked: one per registered type tuple, whose
                               * descriptors numpy makes native (the default resolver), so it
                               * stands for xt, yt and the parameters' types */
    uint64_t v[3];            /* the parameters' bytes, zero-padded to 8 */
} uf_prepare_key;             /* 8-byte fields only: built and compared as whole words (a key
                               * built with 4-byte stores and compared with 8-byte loads
                               * stalled store forwarding on every call) */

/* 4-way sets picked by a hash of the parameters: 64 different prepares (a 64-channel NCHW
 * layer) fit with few evictions, where one slot per hash value lost ~40% of them to
 * collisions. 256 entries of 176 bytes: 45 KB per thread that calls a ufunc. */
#define UF_MEMO_SETS 64       /* a power of two */
#define UF_MEMO_WAYS 4

typedef struct uf_memo_slot {
    uf_prepare_key key;       /* key.caller NULL: empty */
    simdops_prepared prepared;
    struct uf_memo_slot *after; /* the slot this thread looked up next, last time (a guess) */
} uf_memo_slot;

typedef struct uf_memo_set {
    uf_memo_slot way[UF_MEMO_WAYS];
    unsigned next;            /* the way a miss replaces (round robin) */
} uf_memo_set;

/* Lookups repeat in order: per channel on NCHW numpy asks for channel 0, 1, ..., 63 on every
 * call of a layer, and a small tensor through the same layer asks for the same slot again. So
 * the slot that followed the last one last time (its `after`) is compared first, before the
 * hash and the set walk: after a plane's 80 KB went through the cache the set's lines are
 * misses, and the walk compared up to four keys (perf: a third of the loop's samples on NCHW).
 * A wrong guess costs one key compare; the set walk follows. */
typedef struct uf_memo_table {
    uf_memo_slot *last;       /* the slot of this thread's last lookup */
    uf_memo_set set[UF_MEMO_SETS];
} uf_memo_table;

static UF_THREAD_LOCAL uf_memo_table uf_memo; /* one thread-local block: one TLS lookup */

UF_INLINE uint64_t uf_param_bits(const char *v, npy_intp size)
{
    uint64_t u = 0;
    switch (size) {       /* fixed-size copies: no memcpy call */
    case 8: memcpy(&u, v, 8); break;
    case 4: { uint32_t w; memcpy(&w, v, 4); u = w; break; }
    case 2: { uint16_t w; memcpy(&w, v, 2); u = w; break; }
    default: { uint8_t w; memcpy(&w, v, 1); u = w; break; }
    }
    return u;
}

UF_INLINE int uf_same_key(const uf_prepare_key *a, const uf_prepare_key *b)
{
    return a->caller == b->caller && a->method == b->method && a->v[0] == b->v[0] &&
           a->v[1] == b->v[1] && a->v[2] == b->v[2];
}

/* x's, y's and the parameters' simdops types, from the descriptors (once per loop call, and
 * only when a prepare or the N-d entry needs them: a memo hit does not). */
UF_INLINE void uf_read_types(const uf_shape s, uf_at *a, PyArray_Descr *const *d)
{
    int k;
    if (a->typed)
        return;
    a->yt = uf_dtype_of(d[s.nparams + 1]);
    a->xt = s.x_int32 ? SIMDOPS_INT32 : a->yt;
    for (k = 0; k < s.nparams; k++)
        a->pt[k] = uf_dtype_of(d[k + 1]);
    a->typed = 1;
}

/* The handle of a's parameters, in this thread's memo (a hit, or C's prepare stored there):
 * valid until the loop's next call of this function. a->op is read here on a miss; NULL when
 * the loop's caller is no ufunc of this module. */
UF_INLINE const simdops_prepared *uf_prepare_cached(const uf_shape s, uf_at *a,
                                                    PyArray_Descr *const *d, simdops_error *err)
{
    uf_prepare_key key;
    uf_memo_set *set;
    uf_memo_slot *slot;
    uint64_t h;
    int k;
    key.caller = a->caller;
    key.method = a->method;
    key.v[0] = key.v[1] = key.v[2] = 0;
    for (k = 0; k < s.nparams; k++)
        key.v[k] = uf_param_bits(a->v[k], PyDataType_ELSIZE(d[k + 1])); /* <= 8 bytes */
    slot = uf_memo.last ? uf_memo.last->after : NULL;
    if (slot && slot->key.caller && uf_same_key(&key, &slot->key))
        goto found;
    h = (key.v[0] ^ (key.v[1] * 0x9E3779B97F4A7C15u) ^ (key.v[2] * 0xC2B2AE3D27D4EB4Fu)) *
        0x9E3779B97F4A7C15u;
    set = &uf_memo.set[(h >> 58) & (UF_MEMO_SETS - 1)];
    for (k = 0; k < UF_MEMO_WAYS; k++)
        if (set->way[k].key.caller && uf_same_key(&key, &set->way[k].key)) {
            slot = &set->way[k];
            goto found;
        }
    if (!a->op && !(a->op = uf_op_of(a->caller)))
        return NULL; /* no C status: the caller raises the loop's own error */
    uf_read_types(s, a, d);
    slot = &set->way[set->next];
    slot->key.caller = NULL; /* empty unless C's prepare succeeds */
    if (s.prepare(a, &slot->prepared, err))
        return NULL;
    slot->key = key;
    set->next = (set->next + 1) % UF_MEMO_WAYS;
found:
    if (uf_memo.last)
        uf_memo.last->after = slot;
    uf_memo.last = slot;
    return &slot->prepared;
}

/* The loop's error for err, or for a caller that is not one of this module's ufuncs. */
static int uf_fail_at(PyObject *caller, const simdops_error *err)
{
    const uf_op *op = uf_op_of(caller);
    if (!op)
        return uf_no_op();
    return uf_fail(op, err);
}

UF_INLINE int uf_param_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                            const npy_intp *strides, const uf_shape s)
{
    PyArray_Descr *const *d = ctx->descriptors;
    const int yop = s.nparams + 1;
    npy_intp n = dims[0], i = 0, end, xsize, ysize;
    const simdops_prepared *p;
    simdops_error err;
    simdops_tensor x, y;
    uf_at a;
    int k;
    a.caller = ctx->caller;
    a.method = ctx->method;
    a.op = NULL;
    a.typed = 0;
    a.xt = a.yt = a.pt[0] = a.pt[1] = a.pt[2] = SIMDOPS_UNKNOWN; /* read on a miss */
    if (!a.caller)
        return uf_no_op();
    xsize = s.x_int32 ? 4 : PyDataType_ELSIZE(d[0]);
    ysize = s.x_int32 ? PyDataType_ELSIZE(d[yop]) : xsize;
    for (; i < n; i = end) {
        end = uf_run_end(data, strides, d, 1, s.nparams, i, n);
        for (k = 0; k < s.nparams; k++)
            a.v[k] = UF_AT(k + 1, i);
        if (!(p = uf_prepare_cached(s, &a, d, &err)))
            return a.op ? uf_fail(a.op, &err) : uf_no_op();
        if (uf_short_contiguous(end - i, strides[0], xsize, strides[yop], ysize)) {
            if (s.run_1d(p, UF_AT(0, i), UF_AT(yop, i), end - i, &err))
                return uf_fail_at(a.caller, &err);
            continue;
        }
        uf_read_types(s, &a, d);
        uf_vec(&x, UF_AT(0, i), a.xt, end - i, strides[0]);
        uf_vec(&y, UF_AT(yop, i), a.yt, end - i, strides[yop]);
        if (s.run_nd(p, &x, &y, &err))
            return uf_fail_at(a.caller, &err);
    }
    return 0;
}

/* ---------------------------------------------------------------- the kinds */

static int uf_prepare_clip(const uf_at *a, simdops_prepared *p, simdops_error *err)
{
    return simdops_capi_prepare_clip(a->xt, uf_number(a->v[0], a->pt[0]),
                                     uf_number(a->v[1], a->pt[1]), NULL, NULL, p, err);
}

static int uf_prepare_shrink(const uf_at *a, simdops_prepared *p, simdops_error *err)
{
    return simdops_capi_prepare_shrink(a->xt, uf_number(a->v[0], a->pt[0]),
                                       uf_number(a->v[1], a->pt[1]), p, err);
}

/* (multiplier, shift, offset): the family op->code, no clamp beyond y's type */
static int uf_prepare_requant(const uf_at *a, simdops_prepared *p, simdops_error *err)
{
    return simdops_capi_prepare_requant_rounding(
        a->yt, a->op->code, uf_int(a->v[0], a->pt[0]), uf_int(a->v[1], a->pt[1]),
        uf_int(a->v[2], a->pt[2]), NULL, NULL, p, err);
}

/* (scale, zero_point): the float family of mode op->code, no clamp beyond y's type */
static int uf_prepare_requant_fp(const uf_at *a, simdops_prepared *p, simdops_error *err)
{
    return simdops_capi_prepare_requant_fp(a->yt, uf_real(a->v[0], a->pt[0]),
                                           uf_int(a->v[1], a->pt[1]), NULL, NULL, a->op->code,
                                           p, err);
}

static int uf_clip_1d(const simdops_prepared *p, char *x, char *y, npy_intp n, simdops_error *e)
{
    return simdops_capi_clip_1d(p, x, y, n, e);
}

static int uf_shrink_1d(const simdops_prepared *p, char *x, char *y, npy_intp n,
                        simdops_error *e)
{
    return simdops_capi_shrink_1d(p, x, y, n, e);
}

static int uf_requant_1d(const simdops_prepared *p, char *x, char *y, npy_intp n,
                         simdops_error *e)
{
    return simdops_capi_requant_1d(p, (const int32_t *)x, y, n, NULL, e);
}

static int uf_clip_nd(const simdops_prepared *p, const simdops_tensor *x, const simdops_tensor *y,
                      simdops_error *e)
{
    return simdops_capi_clip_prepared(p, x, y, e);
}

static int uf_shrink_nd(const simdops_prepared *p, const simdops_tensor *x,
                        const simdops_tensor *y, simdops_error *e)
{
    return simdops_capi_shrink_prepared(p, x, y, e);
}

static int uf_requant_nd(const simdops_prepared *p, const simdops_tensor *x,
                         const simdops_tensor *y, simdops_error *e)
{
    return simdops_capi_requant_prepared(p, x, y, NULL, NULL, NULL, e);
}

static int uf_requant_fp_nd(const simdops_prepared *p, const simdops_tensor *x,
                            const simdops_tensor *y, simdops_error *e)
{
    return simdops_capi_requant_fp_prepared(p, x, y, NULL, NULL, e);
}

static const uf_shape uf_clip_shape = {2, 0, uf_prepare_clip, uf_clip_1d, uf_clip_nd};
static const uf_shape uf_shrink_shape = {2, 0, uf_prepare_shrink, uf_shrink_1d, uf_shrink_nd};
static const uf_shape uf_requant_shape = {3, 1, uf_prepare_requant, uf_requant_1d,
                                          uf_requant_nd};
static const uf_shape uf_requant_fp_shape = {2, 1, uf_prepare_requant_fp, uf_requant_1d,
                                             uf_requant_fp_nd};

int uf_clip_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                 const npy_intp *strides, NpyAuxData *aux)
{
    (void)aux;
    return uf_param_loop(ctx, data, dims, strides, uf_clip_shape);
}

int uf_shrink_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                   const npy_intp *strides, NpyAuxData *aux)
{
    (void)aux;
    return uf_param_loop(ctx, data, dims, strides, uf_shrink_shape);
}

/* (x, multiplier, shift, offset) -> y */
int uf_requant_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                    const npy_intp *strides, NpyAuxData *aux)
{
    (void)aux;
    return uf_param_loop(ctx, data, dims, strides, uf_requant_shape);
}

/* Whether operand k keeps its first element's bytes over all n elements (stride 0, or a value
 * numpy copied into its buffer once per element). */
static int uf_constant(char *const *data, const npy_intp *strides, PyArray_Descr *const *descrs,
                       int k, npy_intp n)
{
    return !strides[k] || uf_run_end(data, strides, descrs, k, k, 0, n) == n;
}

/* (x, scale, zero_point) -> y */
int uf_requant_fp_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                       const npy_intp *strides, NpyAuxData *aux)
{
    PyArray_Descr *const *d = ctx->descriptors;
    npy_intp n = dims[0];
    (void)aux;
    /* float32 scales that move every element over contiguous x and y (per channel on the last
     * axis, or a broadcast scale numpy copied into its buffer, where it may copy the zero point
     * too) with one zero point: the per-channel kernel over the run, as the function's
     * per-channel call (C checks each scale; the prepared scale, 1.0, is unused there, as in
     * the function). */
    if (n > 1 && strides[1] == 4 && strides[0] == 4 && uf_dtype_of(d[1]) == SIMDOPS_FLOAT32 &&
        strides[3] == PyDataType_ELSIZE(d[3]) && uf_constant(data, strides, d, 2, n)) {
        const uf_op *op = uf_op_of(ctx->caller);
        simdops_prepared p;
        simdops_error err;
        if (!op)
            return uf_no_op();
        if (simdops_capi_prepare_requant_fp(uf_dtype_of(d[3]), 1.0,
                                            uf_int(data[2], uf_dtype_of(d[2])), NULL, NULL,
                                            op->code, &p, &err) ||
            simdops_capi_requant_fp_pc_1d(&p, (const int32_t *)data[0], data[3], n, NULL,
                                          (const float *)data[1], &err))
            return uf_fail(op, &err);
        return 0;
    }
    return uf_param_loop(ctx, data, dims, strides, uf_requant_fp_shape);
}

/* Clears the FP "invalid" flag a NaN compare set: numpy's gufunc call checks the FP status
 * whatever the loop's flags say, and NaN is a value hardmax takes (it wins), not an error.
 * Tested first: glibc's feclearexcept rewrites the x87 environment as well as MXCSR (~100
 * cycles a call), fetestexcept only reads them, and most rows hold no NaN. */
static void uf_clear_invalid(void)
{
    if (fetestexcept(FE_INVALID))
        feclearexcept(FE_INVALID);
}

/* The gufunc (n)->(n): dims = (outer, n), strides = (x, y outer; x, y core). */
int uf_hardmax_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                    const npy_intp *strides, NpyAuxData *aux)
{
    const uf_op *op = uf_op_of(ctx->caller);
    simdops_dtype xt = uf_dtype_of(ctx->descriptors[0]);
    simdops_tensor x, y;
    simdops_error err;
    int64_t axis = 1;
    (void)aux;
    npy_intp size = PyDataType_ELSIZE(ctx->descriptors[0]), row = dims[1] * size;
    if (!op)
        return uf_no_op();
    /* C-contiguous rows in x and y (1x16 with out=, a C-order array over its last axis): the
     * row kernel's entry point, without the N-d entry's layout analysis */
    if (strides[2] == size && strides[3] == size &&
        (dims[0] == 1 || (strides[0] == row && strides[1] == row))) {
        if (simdops_capi_hardmax_rows(xt, data[0], data[1], dims[0], dims[1], &err))
            return uf_fail(op, &err);
        uf_clear_invalid();
        return 0;
    }
    uf_vec(&x, data[0], xt, dims[0], strides[0]);
    uf_vec(&y, data[1], xt, dims[0], strides[1]);
    x.ndim = y.ndim = 2;
    x.shape[1] = y.shape[1] = dims[1];
    x.strides[1] = strides[2];
    y.strides[1] = strides[3];
    if (simdops_capi_hardmax(&x, &y, 1, &axis, &err))
        return uf_fail(op, &err);
    uf_clear_invalid();
    return 0;
}

/* The loop of the _floor_* ufuncs (the bench's measure of numpy's own per-call and per-run
 * cost): registered exactly as its op's loops, it computes nothing. */
int uf_floor_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                  const npy_intp *strides, NpyAuxData *aux)
{
    (void)ctx, (void)data, (void)dims, (void)strides, (void)aux;
    return 0;
}

/* The loop of _kernel_floor_requantize_fp32 (the bench's measure of what per channel on NCHW
 * cannot beat): numpy's iteration plus the 1-D kernel over each contiguous run, with a handle
 * this thread prepared once for y's type (scale 1/1000, zero point 0) whatever the parameters,
 * so no parameter is read, looked up or prepared. Its output is not the op's. */
int uf_kernel_floor_loop(PyArrayMethod_Context *ctx, char *const *data, const npy_intp *dims,
                         const npy_intp *strides, NpyAuxData *aux)
{
    static UF_THREAD_LOCAL simdops_prepared p;
    static UF_THREAD_LOCAL simdops_dtype prepared_for; /* SIMDOPS_UNKNOWN: none yet */
    PyArray_Descr *const *d = ctx->descriptors;
    simdops_dtype yt = uf_dtype_of(d[3]);
    simdops_error err;
    (void)aux;
    if (prepared_for != yt) {
        if (simdops_capi_prepare_requant_fp(yt, 1.0 / 1000, 0, NULL, NULL, 0, &p, &err))
            return uf_fail_at(ctx->caller, &err);
        prepared_for = yt;
    }
    if (strides[0] == 4 && strides[3] == PyDataType_ELSIZE(d[3]) &&
        simdops_capi_requant_1d(&p, (const int32_t *)data[0], data[3], dims[0], NULL, &err))
        return uf_fail_at(ctx->caller, &err);
    return 0;
}
