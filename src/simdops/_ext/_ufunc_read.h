/* Reading the loops' operands: a parameter element as the number C converts, and the runs
 * of equal parameter bytes the loops prepare once each. Static functions for the one
 * translation unit that includes this (_ufunc_loops.c), so they inline into the loops. */
#ifndef SIMDOPS_UFUNC_READ_H
#define SIMDOPS_UFUNC_READ_H

#include "_ufunc.h"

#include <string.h>

/* A parameter element exactly as the simdops_number C converts (the loops are
 * registered for these parameter types only; the promoter maps others here). */
static simdops_number uf_number(const char *p, simdops_dtype t)
{
    switch (t) {
    case SIMDOPS_FLOAT64: {
        double v;
        memcpy(&v, p, sizeof(v));
        return simdops_float_number(v);
    }
    case SIMDOPS_FLOAT32: {
        float v;
        memcpy(&v, p, sizeof(v));
        return simdops_float_number((double)v);
    }
    case SIMDOPS_INT32: {
        int32_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    case SIMDOPS_INT8: {
        int8_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    case SIMDOPS_UINT8: {
        uint8_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    case SIMDOPS_INT16: {
        int16_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    case SIMDOPS_UINT64: {
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_uint_number(v);
    }
    default: { /* SIMDOPS_INT64 */
        int64_t v;
        memcpy(&v, p, sizeof(v));
        return simdops_int_number(v);
    }
    }
}

static int64_t uf_int(const char *p, simdops_dtype t)
{
    simdops_number n = uf_number(p, t); /* integer types up to int64 (the registered loops) */
    return n.i;
}

static double uf_real(const char *p, simdops_dtype t)
{
    simdops_number n = uf_number(p, t); /* FLOAT32 / FLOAT64 only */
    return n.f;
}

/* Bytewise equality of two parameter elements (fixed-size loads: this runs per element when
 * numpy hands a broadcast parameter over materialized in its buffer). */
static inline int uf_same(const char *a, const char *b, npy_intp size)
{
    switch (size) {
    case 8: {
        uint64_t u, v;
        memcpy(&u, a, 8);
        memcpy(&v, b, 8);
        return u == v;
    }
    case 4: {
        uint32_t u, v;
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        return u == v;
    }
    default:
        return !memcmp(a, b, (size_t)size);
    }
}

/* How many of the n contiguous elements at q, each sz (1, 2, 4, 8) bytes, equal the element
 * at v, counted in whole 32-byte blocks (the caller finishes the tail element by element):
 * numpy hands a per-channel parameter over small planes as a buffer of runs of equal values,
 * and an element-by-element scan of that buffer cost ~20x the kernel. */
static npy_intp uf_same_prefix(const char *v, const char *q, npy_intp sz, npy_intp n)
{
    uint64_t pattern = 0, w[4];
    npy_intp done = 0, per_block = 32 / sz;
    int k;
    for (k = 0; k < 8; k += (int)sz)
        memcpy((char *)&pattern + k, v, (size_t)sz);
    for (; done + per_block <= n; done += per_block, q += 32) {
        memcpy(w, q, 32);
        if ((w[0] ^ pattern) | (w[1] ^ pattern) | (w[2] ^ pattern) | (w[3] ^ pattern))
            break;
    }
    return done;
}

/* End of the run starting at i over which parameter operands first..last keep
 * the bytes they have at i (n when every parameter has stride 0). */
static npy_intp uf_run_end(char *const *data, const npy_intp *strides,
                           PyArray_Descr *const *descrs, int first, int last, npy_intp i,
                           npy_intp n)
{
    npy_intp j, size[4] = {0, 0, 0, 0};
    int k, moving = 0;
    for (k = first; k <= last; k++)
        if (strides[k]) {
            moving = 1;
            size[k] = PyDataType_ELSIZE(descrs[k]); /* an API call: once, not per element */
        }
    if (!moving)
        return n;
    if (first == last || (!strides[last] && first + 1 == last) ||
        (!strides[first] && first + 1 == last)) {
        /* one moving parameter (the common case): a tight loop */
        int m = strides[first] ? first : last;
        const char *v = data[m] + i * strides[m], *q = v + strides[m];
        npy_intp st = strides[m], sz = size[m];
        j = i + 1;
        if (st == sz && (sz == 1 || sz == 2 || sz == 4 || sz == 8))
            j += uf_same_prefix(v, q, sz, n - j); /* a parameter numpy copied into its buffer */
        for (q = v + (j - i) * st; j < n && uf_same(q, v, sz); j++, q += st)
            ;
        return j;
    }
    for (j = i + 1; j < n; j++)
        for (k = first; k <= last; k++)
            if (strides[k] && !uf_same(data[k] + j * strides[k], data[k] + i * strides[k],
                                       size[k]))
                return j;
    return n;
}

#endif
