/* The loops' memo of prepared parameters: what this thread prepared lately, keyed on the
 * ufunc, numpy's loop for the types and the parameters' bytes, with C's handle. Static
 * functions for the one translation unit that includes this (_ufunc_loops.c), so they
 * inline into the loops; the loop shape's types (uf_at, uf_shape) live here because the
 * lookup takes them. */
#ifndef SIMDOPS_UFUNC_MEMO_H
#define SIMDOPS_UFUNC_MEMO_H

#include "_ufunc.h"

#include <stdint.h>
#include <string.h>

#include "_memo_common.h"

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
    uint64_t fp_env;          /* simdops_py_fp_env() (_memo_common.h, shared with the other
                               * memos' keys): C's conversions of a parameter to x's type
                               * round in the current rounding mode ((float)0.1 under
                               * FE_DOWNWARD is one ulp below nearest's), so a handle prepared
                               * under one mode is not the handle of another */
} uf_prepare_key;             /* 8-byte fields only: built and compared as whole words (a key
                               * built with 4-byte stores and compared with 8-byte loads
                               * stalled store forwarding on every call) */

/* 4-way sets picked by a hash of the parameters: 64 different prepares (a 64-channel NCHW
 * layer) fit with few evictions, where one slot per hash value lost ~40% of them to
 * collisions. 256 entries of 184 bytes: 46 KB per thread that calls a ufunc. */
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

static SIMDOPS_PY_TLS uf_memo_table uf_memo; /* one thread-local block: one TLS lookup */

/* The slot the next lookup will most likely want (this one's `after`), brought toward L2
 * now: per channel on NCHW the kernel streams a plane (80 KB for 16,384 int32 -> uint8)
 * between two lookups, which leaves the next plane's slot, last touched a whole call ago,
 * in L3 or memory; a prefetch of its lines to L2 here overlaps those misses with the
 * kernel instead of paying them one after another at the next lookup. A hint only: a
 * wrong guess costs four prefetches. */
UF_INLINE void uf_prefetch_slot(const uf_memo_slot *s)
{
#if defined(__GNUC__) || defined(__clang__)
    if (s) {
        const char *p = (const char *)s;
        __builtin_prefetch(p, 0, 2);
        __builtin_prefetch(p + 64, 0, 2);
        __builtin_prefetch(p + 128, 0, 2);
        __builtin_prefetch(p + sizeof(*s) - 1, 0, 2); /* a slot need not start a line */
    }
#else
    (void)s;
#endif
}

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
           a->v[1] == b->v[1] && a->v[2] == b->v[2] && a->fp_env == b->fp_env;
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

/* The handle of a's parameters, in this thread's memo m (&uf_memo, taken once per loop call:
 * each use of a thread-local in a shared library is a __tls_get_addr call, and the loop made
 * two per run). A hit, or C's prepare stored there: valid until the loop's next call of this
 * function. a->op is read here on a miss; NULL when the loop's caller is no ufunc of this
 * module. */
UF_INLINE const simdops_prepared *uf_prepare_cached(const uf_shape s, uf_at *a,
                                                    PyArray_Descr *const *d, uf_memo_table *m,
                                                    simdops_error *err)
{
    uf_prepare_key key;
    uf_memo_set *set;
    uf_memo_slot *slot;
    uint64_t h;
    int k;
    key.caller = a->caller;
    key.method = a->method;
    key.v[0] = key.v[1] = key.v[2] = 0;
    key.fp_env = simdops_py_fp_env();
    for (k = 0; k < s.nparams; k++)
        key.v[k] = uf_param_bits(a->v[k], PyDataType_ELSIZE(d[k + 1])); /* <= 8 bytes */
    slot = m->last ? m->last->after : NULL;
    if (slot && slot->key.caller && uf_same_key(&key, &slot->key))
        goto found;
    h = (key.v[0] ^ (key.v[1] * 0x9E3779B97F4A7C15u) ^ (key.v[2] * 0xC2B2AE3D27D4EB4Fu)) *
        0x9E3779B97F4A7C15u;
    set = &m->set[(h >> 58) & (UF_MEMO_SETS - 1)];
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
    if (m->last)
        m->last->after = slot;
    m->last = slot;
    uf_prefetch_slot(slot->after);
    return &slot->prepared;
}

#endif
