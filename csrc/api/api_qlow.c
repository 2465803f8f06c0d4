/* The low-bit QuantizeLinear / DequantizeLinear (simdops_qdq_call): rules
 * (rules/qlow_rules.c) -> plan -> runs of the qlow kernels. x is read as
 * [outer, dim, inner] around the axis: with inner == 1 every block (or
 * channel, or the whole tensor) is one run sharing a scale (dq_run / q_run);
 * otherwise each of the dim rows of inner elements reads a row of scales
 * (dq_row / q_row), converted to float32 once per block row. 4/2-bit operands
 * given one a byte (ml_dtypes' layout) are packed into a scratch buffer first
 * (dequantize) or unpacked from one after (quantize). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/qlow_abi.h"
#include "dispatch/dispatch.h"
#include "dispatch/qlow_dispatch.h"
#include "driver/strided.h"
#include "kernels/qlow/qlow_element.h"
#include "kernels/vec/stream_store.h"
#include "rules/qlow_rules.h"

static float scale_at(int sq, const void *s, int64_t i)
{
    const char *b = (const char *)s;
    switch (sq) {
    case SIMDOPS_QT_f32: { float f; memcpy(&f, b + 4 * i, 4); return f; }
    case SIMDOPS_QT_f16: { uint16_t h; memcpy(&h, b + 2 * i, 2); return simdops_f16_to_f32(h); }
    case SIMDOPS_QT_bf16: { uint16_t h; memcpy(&h, b + 2 * i, 2); return qlow_bf16_to_f32(h); }
    default: return qlow_e8m0_to_f32(((const uint8_t *)b)[i]);
    }
}

static int bits_of(int qt) { return simdops_qtype_rows[qt].bits; }
static int is_sub_byte(int qt) { return bits_of(qt) < 8; }

/* the raw field of element i of a quantized operand (packed or one a byte) */
static uint32_t field_at(int qt, const void *b, int64_t i, int packed)
{
    int bits = bits_of(qt);
    if (bits < 8)
        return packed ? qlow_field((const uint8_t *)b, (size_t)i, bits)
                      : ((const uint8_t *)b)[i] & ((1u << bits) - 1);
    if (bits == 8)
        return ((const uint8_t *)b)[i];
    if (bits == 16) { uint16_t v; memcpy(&v, (const char *)b + 2 * i, 2); return v; }
    { uint32_t v; memcpy(&v, (const char *)b + 4 * i, 4); return v; }
}

/* a zero point's value as float32: integers exactly, float4 its value */
static float zp_at(int qt, const void *z, int64_t i, int packed)
{
    uint32_t v = field_at(qt, z, i, packed);
    const simdops_qtype_row *r = &simdops_qtype_rows[qt];
    if (r->kind == QT_F4) {
        qlow_format f = qlow_format_of(qt);
        return qlow_fmt_to_f32(v, &f);
    }
    if (r->lo < 0) /* sign-extend the field */
        return (float)(r->bits == 32 ? (int32_t)v : qlow_sext(v, r->bits));
    return (float)v;
}

typedef struct run_state {
    const simdops_qlow_plan *p;
    const simdops_qdq_call *c;
    const simdops_qlow_table *t;
    const void *x; /* quantized x (packed) of dequantize, or float x */
    void *y;       /* packed y of quantize, or float y */
    float *srow, *zrow; /* one row of inner scales / zero points */
    int64_t row_key;    /* the block row srow / zrow hold (-1: none) */
    simdops_qlow_params row_q; /* its parameters */
} run_state;

static size_t float_size(int ft) { return ft == SIMDOPS_QF_F32 ? 4 : 2; }

static void fill_params(run_state *r, int64_t si, simdops_qlow_params *q)
{
    const simdops_qlow_plan *p = r->p;
    *q = p->params;
    q->scale = qlow_round_to(scale_at(p->scale_qt, r->c->scale, si), p->scale_round);
    q->zp_f = p->use_zp ? zp_at(p->qt, r->c->zero_point, si, (r->c->packed >> 1) & 1) : 0.0f;
    q->zero_point = (int32_t)q->zp_f;
}

/* n zero points of a 4/2-bit type from element si0 on, as float32; called
 * with a constant bits, so that qlow_field's division by the fields a byte is
 * a shift (a run-time division per element cost as much as the kernel) */
static inline void zp_fields(float *z, const uint8_t *zb, int64_t si0, int64_t n, int bits, int sg,
                             int packed)
{
    for (int64_t k = 0; k < n; k++) {
        uint32_t v = packed ? qlow_field(zb, (size_t)(si0 + k), bits) : zb[si0 + k] & ((1u << bits) - 1u);
        z[k] = (float)(sg ? qlow_sext(v, bits) : (int32_t)v);
    }
}

/* The scale row (and zero-point row) of a block row: inner values from
 * index si0 on (or, per axis, inner copies of index si0). The loops are typed
 * outside the element loop: scale_at / zp_at per element cost more than the
 * kernel at block 32 (one scale for every 32 outputs). */
static void fill_rows(run_state *r, int64_t si0, int same)
{
    const simdops_qlow_plan *p = r->p;
    const int64_t n = p->inner;
    float *s = r->srow, *z = r->zrow;
    const int zpacked = (r->c->packed >> 1) & 1;
    if (same) {
        float sv = qlow_round_to(scale_at(p->scale_qt, r->c->scale, si0), p->scale_round);
        float zv = z ? zp_at(p->qt, r->c->zero_point, si0, zpacked) : 0.0f;
        for (int64_t k = 0; k < n; k++) {
            s[k] = sv;
            if (z)
                z[k] = zv;
        }
        return;
    }
    if (p->scale_qt == SIMDOPS_QT_f32)
        memcpy(s, (const float *)r->c->scale + si0, (size_t)n * sizeof(float));
    else
        for (int64_t k = 0; k < n; k++)
            s[k] = scale_at(p->scale_qt, r->c->scale, si0 + k);
    if (p->scale_round != SIMDOPS_QR_NONE)
        for (int64_t k = 0; k < n; k++)
            s[k] = qlow_round_to(s[k], p->scale_round);
    if (!z)
        return;
    {
        const simdops_qtype_row *row = &simdops_qtype_rows[p->qt];
        const uint8_t *zb = (const uint8_t *)r->c->zero_point;
        if (row->kind == QT_F4 || row->bits > 8) {
            for (int64_t k = 0; k < n; k++)
                z[k] = zp_at(p->qt, zb, si0 + k, zpacked);
        } else if (row->bits == 8) {
            if (row->lo < 0)
                for (int64_t k = 0; k < n; k++)
                    z[k] = (float)(int8_t)zb[si0 + k];
            else
                for (int64_t k = 0; k < n; k++)
                    z[k] = (float)zb[si0 + k];
        } else if (row->bits == 4) { /* packed or one a byte; sign-extended for int4 */
            zp_fields(z, zb, si0, n, 4, row->lo < 0, zpacked);
        } else {
            zp_fields(z, zb, si0, n, 2, row->lo < 0, zpacked);
        }
    }
}

/* Elements [k, k + m) of the call in order: dequantize writes them to dst (the
 * place of element k), quantize to y's stream. Pieces are runs of one scale
 * (inner 1: a block, a channel, the tensor) or parts of rows of inner elements
 * that read the scale row of their block row, filled when the block row
 * changes (r->row_key). The position is divided out once a call; the pieces
 * walk on from it (a division per 32-element block cost ~10%). */
static void run_range(run_state *r, int64_t k, int64_t m, char *dst)
{
    const simdops_qlow_plan *p = r->p;
    const size_t fsz = float_size(p->ft);
    const int64_t end = k + m, lines = p->inner == 1 ? 1 : p->inner;
    /* per axis (block 1, 1-D scale): scale index d; blocked: (mo, b) */
    const int per_axis = p->block == 1 && r->c->scale_ndim == 1;
    const int64_t row = k / lines;
    int64_t c = k - row * lines, mo = row / p->dim, d = row - mo * p->dim, b = d / p->block;
    char *out = dst - k * (int64_t)fsz; /* element e at out + e * fsz */
    while (k < end) {
        int64_t n;
        if (p->inner == 1) {
            int64_t stop = (b + 1) * p->block < p->dim ? (b + 1) * p->block : p->dim;
            simdops_qlow_params q;
            n = stop - d < end - k ? stop - d : end - k;
            fill_params(r, per_axis ? b : mo * p->nblocks + b, &q);
            if (p->quantize)
                r->t->q_run[p->qt][p->ft]((const char *)r->x + k * fsz, (size_t)n, r->y, (size_t)k, &q);
            else
                r->t->dq_run[p->qt][p->ft](r->x, (size_t)k, (size_t)n, out + k * fsz, &q);
            d += n;
        } else {
            int64_t key = mo * p->nblocks + b;
            n = p->inner - c < end - k ? p->inner - c : end - k;
            if (key != r->row_key) {
                fill_params(r, 0, &r->row_q);
                fill_rows(r, per_axis ? b : key * p->inner, per_axis);
                r->row_key = key;
            }
            if (p->quantize)
                r->t->q_row[p->qt][p->ft]((const char *)r->x + k * fsz, (size_t)n, r->y, (size_t)k,
                                          r->srow + c, r->zrow ? r->zrow + c : NULL, &r->row_q);
            else
                r->t->dq_row[p->qt][p->ft](r->x, (size_t)k, (size_t)n, out + k * fsz, r->srow + c,
                                           r->zrow ? r->zrow + c : NULL, &r->row_q);
            c += n;
            if (c == p->inner) {
                c = 0;
                d++;
            }
        }
        k += n;
        if (d == (b + 1) * p->block || d == p->dim)
            b++;
        if (d == p->dim) {
            d = 0;
            b = 0;
            mo++;
        }
    }
}

static void fill_range(const void *ctx, size_t k, size_t m, void *dst)
{
    run_range((run_state *)(uintptr_t)ctx, (int64_t)k, (int64_t)m, (char *)dst);
}

/* 1 when the tier runs this dequantize with a SIMD kernel of its own: those
 * outpace memory, where streaming pays (int4 -> float32 at 16M: 1.6x); the
 * scalar loops (2-bit codes, float4, the scalar tier) are compute-bound, and
 * there a block's burst of non-temporal stores no longer overlaps the
 * arithmetic (uint2 -> float32 at 16M streamed: 0.74 of plain). */
static int runs_simd(const run_state *r)
{
    const simdops_qlow_plan *p = r->p;
    const simdops_qlow_table *ref = simdops_qlow_tier_table(0);
    return p->inner == 1 ? r->t->dq_run[p->qt][p->ft] != ref->dq_run[p->qt][p->ft]
                         : r->t->dq_row[p->qt][p->ft] != ref->dq_row[p->qt][p->ft];
}

/* Dequantize past simdops_stream_threshold bytes of output streams it (the
 * driver's non-temporal path, strided.h) when a SIMD kernel computes it and y
 * does not overlap x (blocks computed ahead of their stores would read what
 * the stream already wrote). Quantize writes 1/4 to 1/16 of what it reads and
 * stays plain. */
static void run_all(run_state *r)
{
    const simdops_qlow_plan *p = r->p;
    const size_t fsz = float_size(p->ft);
    const char *x = (const char *)r->x, *y = (const char *)r->y;
    const size_t xbytes = (size_t)((p->numel * bits_of(p->qt) + 7) / 8), ybytes = (size_t)p->numel * fsz;
    r->row_key = -1;
    if (!p->quantize && ybytes >= simdops_stream_threshold && (y >= x + xbytes || x >= y + ybytes) &&
        runs_simd(r))
        simdops_stream_fill((char *)r->y, (size_t)p->numel, fsz, (const char *)r->x,
                            (size_t)bits_of(p->qt), fill_range, r);
    else
        run_range(r, 0, p->numel, (char *)r->y);
}

/* float8 x: onnx.reference refuses a zero point other than 0 (its uint8 cast is 0) */
static int check_float8_zero_point(const simdops_qdq_call *c, const simdops_qlow_plan *p,
                                   simdops_error *err)
{
    int64_t n = 1;
    qlow_format f;
    if (!c->zero_point || simdops_qtype_rows[p->qt].kind != QT_F8)
        return SIMDOPS_OK;
    f = qlow_format_of(p->zp_qt);
    for (int i = 0; i < c->zero_point_ndim; i++)
        n *= c->zero_point_shape[i];
    for (int64_t i = 0; i < n; i++) {
        uint8_t v = ((const uint8_t *)c->zero_point)[i];
        if (qlow_fmt_to_f32(v, &f) != 0.0f) {
            simdops_fail_value(err, SIMDOPS_R_QL_ZERO_POINT_FLOAT8, SIMDOPS_ARG_X_ZERO_POINT, v, 0);
            err->index = c->zero_point_ndim ? i : -1;
            return err->status;
        }
    }
    return SIMDOPS_OK;
}

/* One-a-byte operands (ml_dtypes' layout) to and from the packed stream: the
 * fields of a byte at a time (qlow_set_field / qlow_field per element divide by
 * a run-time field count, ~20x slower at 1M elements). Fields are the raw low
 * bits, as qlow_field reads them. */
static void pack_fields(uint8_t *dst, const uint8_t *src, int64_t n, int bits)
{
    const int per = 8 / bits;
    const unsigned mask = (1u << bits) - 1;
    int64_t whole = n / per, i;
    for (i = 0; i < whole; i++) {
        unsigned v = 0;
        for (int k = 0; k < per; k++)
            v |= (src[i * per + k] & mask) << (k * bits);
        dst[i] = (uint8_t)v;
    }
    for (int64_t k = whole * per; k < n; k++)
        qlow_set_field(dst, (size_t)k, bits, src[k]);
}

static void unpack_fields(uint8_t *dst, const uint8_t *src, int64_t n, int bits)
{
    const int per = 8 / bits;
    const unsigned mask = (1u << bits) - 1;
    int64_t whole = n / per, i;
    for (i = 0; i < whole; i++)
        for (int k = 0; k < per; k++)
            dst[i * per + k] = (uint8_t)((src[i] >> (k * bits)) & mask);
    for (int64_t k = whole * per; k < n; k++)
        dst[k] = (uint8_t)qlow_field(src, (size_t)k, bits);
}

static int run(const simdops_qdq_call *c, int quantize, simdops_error *err)
{
    simdops_qlow_plan p;
    run_state r;
    void *scratch = NULL, *rows = NULL;
    int s;
    if ((s = simdops_qlow_check(c, quantize, &p, err)))
        return s;
    if (!quantize && (s = check_float8_zero_point(c, &p, err)))
        return s;
    if (p.numel == 0)
        return SIMDOPS_OK;
    memset(&r, 0, sizeof(r));
    r.p = &p;
    r.c = c;
    r.t = simdops_qlow_kernels(simdops_current_kernels());
    r.x = c->x;
    r.y = c->y;
    if (is_sub_byte(p.qt) && !(c->packed & 1)) { /* one a byte: through a packed copy */
        int bits = bits_of(p.qt);
        size_t bytes = (size_t)((p.numel * bits + 7) / 8);
        scratch = calloc(bytes ? bytes : 1, 1);
        if (!scratch)
            return simdops_fail_value(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_X, (int64_t)bytes, 0);
        if (quantize) {
            r.y = scratch;
        } else {
            pack_fields((uint8_t *)scratch, (const uint8_t *)c->x, p.numel, bits);
            r.x = scratch;
        }
    }
    if (p.inner > 1) {
        /* the scale and zero-point rows on 64-byte boundaries: the kernels' vector
         * loads of them then split no cache line (malloc's 16-byte alignment cost the
         * int4 row dequantize with zero points ~25% on AVX-512) */
        size_t row = ((size_t)p.inner * sizeof(float) + 63) & ~(size_t)63;
        rows = malloc(2 * row + 63);
        if (!rows) {
            free(scratch);
            return simdops_fail_value(err, SIMDOPS_R_NOMEM, SIMDOPS_ARG_X, p.inner, 0);
        }
        r.srow = (float *)(((uintptr_t)rows + 63) & ~(uintptr_t)63);
        r.zrow = p.use_zp ? (float *)((char *)r.srow + row) : NULL;
    }
    run_all(&r);
    if (quantize && scratch)
        unpack_fields((uint8_t *)c->y, (const uint8_t *)scratch, p.numel, bits_of(p.qt));
    free(rows);
    free(scratch);
    return SIMDOPS_OK;
}

int simdops_quantize_linear_ex(const simdops_qdq_call *call, simdops_error *err)
{
    SIMDOPS_ENTRY(err, SIMDOPS_OP_QUANTIZE_LINEAR);
    return run(call, 1, err);
}

int simdops_dequantize_linear_ex(const simdops_qdq_call *call, simdops_error *err)
{
    SIMDOPS_ENTRY(err, SIMDOPS_OP_DEQUANTIZE_LINEAR);
    return run(call, 0, err);
}
