/* simdops C test harness: every kernel of every tier usable on this CPU
 * against the scalar reference (simdops_scalar_kernels()), bit for bit.
 *
 * Inputs: random bit patterns mixed with edge values (NaN payloads, +-inf,
 * -0.0, denormals, type min/max, values next to the parameters), every length
 * 0..130, input/output byte misalignments 0..63, in-place calls, parameters
 * made by simdops_clip_params_init / simdops_shrink_params_init from varied
 * numbers; requant with extreme multipliers, shifts, offsets and bounds.
 * Every call also checks that nothing outside the output was written and that
 * an out-of-place input was not modified.
 *
 * Usage: harness [--seed N] [--require-native TIER] [--elem-aligned] [-v]
 * Prints "tier NAME ran: ..." for each tier tested (with its native and
 * inherited entries), "skipped tier NAME (why)" for the others, then one
 * closing line "N passed, M failed"; exit status 1 on any failure.
 * A case is one kernel call compared with the reference; an entry a tier
 * inherits unchanged from the tier below is not run again.
 *
 * Scalar functions (the reference tier, and entries a tier inherits from it)
 * are called only with element-aligned pointers: they dereference typed
 * pointers, which is undefined when misaligned (UBSan). SIMD kernels promise
 * no alignment at all and get every byte offset, unless --elem-aligned. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixedpoint.h"
#include "fp16.h"
#include "internal.h"
#include "kernels/stream_store.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

/* Under ASan buffers end exactly where the data ends, so over-reads and
 * over-writes are reported; otherwise a trailing canary catches over-writes. */
enum { TRAIL = ASAN ? 0 : 64, CANARY = 0xA5, MAXN = 130 };

/* ---------------------------------------------------------------- rng */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }
static int chance(int percent) { return (int)below(100) < percent; }

/* ---------------------------------------------------------------- dtypes */
/* Filled from the library's dtype table (csrc/dtype.h) by init_dtypes(). */
typedef struct dinfo {
    const char *name;
    int size, is_float, is_signed;
} dinfo;
static dinfo DT[SIMDOPS_DTYPE_COUNT];
/* requant output slots: size and range of each output type */
static int RQ_SIZE[SIMDOPS_RQ_COUNT];
static int32_t RQ_LO[SIMDOPS_RQ_COUNT], RQ_HI[SIMDOPS_RQ_COUNT];

static void init_dtypes(void)
{
    for (int d = 0; d < SIMDOPS_DTYPE_COUNT; d++) {
        const simdops_dtype_row *r = &simdops_dtype_rows[d];
        DT[d].name = d ? r->name : "?";
        DT[d].size = r->size;
        DT[d].is_float = r->is_float;
        DT[d].is_signed = r->is_signed;
        if (r->requant_slot >= 0) {
            RQ_SIZE[r->requant_slot] = r->size;
            RQ_LO[r->requant_slot] = (int32_t)r->lo;
            RQ_HI[r->requant_slot] = (int32_t)r->hi;
        }
    }
}

static uint64_t mask_of(int size) { return size == 8 ? ~0ull : (1ull << (8 * size)) - 1; }
static uint64_t sign_bit(int size) { return 1ull << (8 * size - 1); }

static uint64_t get_elem(const void *buf, size_t i, int size)
{
    const unsigned char *p = (const unsigned char *)buf + i * (size_t)size;
    uint8_t a; uint16_t b; uint32_t c; uint64_t d;
    switch (size) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}

static void put_elem(void *buf, size_t i, int size, uint64_t v)
{
    unsigned char *p = (unsigned char *)buf + i * (size_t)size;
    uint8_t a = (uint8_t)v; uint16_t b = (uint16_t)v; uint32_t c = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &a, 1); break;
    case 2: memcpy(p, &b, 2); break;
    case 4: memcpy(p, &c, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* The bits of a double converted to dtype (saturating for integers; only to
 * make test values, so no rounding subtleties matter). */
static uint64_t dbl_bits(int dt, double v)
{
    const dinfo *d = &DT[dt];
    if (dt == SIMDOPS_FLOAT32) {
        float f = fabs(v) >= 3.5e38 ? (v < 0 ? -INFINITY : INFINITY) : (float)v;
        return simdops_f32_bits(f);
    }
    if (dt == SIMDOPS_FLOAT16)
        return simdops_f64_to_f16(v);
    if (dt == SIMDOPS_FLOAT64)
        return simdops_f64_bits(v);
    if (v != v)
        return 0;
    v = trunc(v);
    if (d->is_signed) {
        int64_t lo = -(int64_t)(sign_bit(d->size) - 1) - 1, hi = (int64_t)(sign_bit(d->size) - 1);
        int64_t r = v <= (double)lo ? lo : v >= (double)hi ? hi : (int64_t)v;
        return (uint64_t)r & mask_of(d->size);
    }
    return v <= 0 ? 0 : v >= (double)mask_of(d->size) ? mask_of(d->size) : (uint64_t)v;
}

/* The bits of a parameter value (float16 is stored widened in .f32). */
static uint64_t value_bits(int dt, simdops_value v)
{
    if (dt == SIMDOPS_FLOAT16)
        return simdops_f32_to_f16(v.f32);
    return get_elem(&v, 0, DT[dt].size);
}

/* Edge values of each dtype. */
static const uint64_t EDGE_F32[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
    0xff800001, 0x7fbfffff, 0x7fffffff, 0xffc12345, 0x00000001, 0x80000001, 0x007fffff,
    0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000,
    0x3f000000, 0xbf000000, 0x477fe000, 0x477ff000, 0x477fefff, 0x33800000, 0x33000000,
    0x4f000000, 0xcf000000, 0x4f800000, 0x5f000000};
static const uint64_t EDGE_F16[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01,
                                    0xfc01, 0x7dff, 0x7fff, 0xfe5a, 0x0001, 0x8001, 0x03ff,
                                    0x83ff, 0x0400, 0x8400, 0x7bff, 0xfbff, 0x3c00, 0xbc00,
                                    0x3800, 0xb800, 0x3bff, 0x5bf8, 0x2c00};
static const uint64_t EDGE_F64[] = {
    0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
    0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0x7ff7ffffffffffffull,
    0xfff8123456789abcull, 1, 0x8000000000000001ull, 0x000fffffffffffffull,
    0x0010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
    0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3fe0000000000000ull,
    0x41dfffffffc00000ull, 0xc1e0000000000000ull, 0x41efffffffe00000ull,
    0x43e0000000000000ull, 0x47efffffe0000000ull, 0x3810000000000000ull};

static uint64_t edge_value(int dt)
{
    const dinfo *d = &DT[dt];
    if (dt == SIMDOPS_FLOAT32) {
        if (chance(25)) /* NaN with a random payload (quiet or signalling) and sign */
            return (rnd() & 0x807fffffu) | 0x7f800001u;
        return EDGE_F32[below(sizeof(EDGE_F32) / 8)];
    }
    if (dt == SIMDOPS_FLOAT16) {
        if (chance(25))
            return (rnd() & 0x83ffu) | 0x7c01u;
        return EDGE_F16[below(sizeof(EDGE_F16) / 8)];
    }
    if (dt == SIMDOPS_FLOAT64) {
        if (chance(25))
            return (rnd() & 0x800fffffffffffffull) | 0x7ff0000000000001ull;
        return EDGE_F64[below(sizeof(EDGE_F64) / 8)];
    }
    {
        uint64_t m = mask_of(d->size), sb = sign_bit(d->size);
        uint64_t mn = d->is_signed ? sb : 0, mx = d->is_signed ? sb - 1 : m;
        uint64_t c[] = {0, 1, m, mn, mx, mn + 1, mx - 1, sb, sb - 1, 2, m - 1, 0x7f, 0x80, 0xff};
        return c[below(sizeof(c) / 8)] & m;
    }
}

static uint64_t small_value(int dt)
{
    if (DT[dt].is_float) {
        double v = (double)((int)below(513) - 256) / (double)(1u << below(9));
        return dbl_bits(dt, v);
    }
    return (uint64_t)((int64_t)below(601) - 300) & mask_of(DT[dt].size);
}

/* Values next to interesting ones (parameters): v, v +- 1 (in bits: the
 * neighbouring floats), and the negation for floats. */
typedef struct nearset {
    int count;
    uint64_t v[64];
} nearset;

static void near_add(nearset *s, int dt, uint64_t v)
{
    uint64_t m = mask_of(DT[dt].size);
    uint64_t c[4];
    c[0] = v & m;
    c[1] = (v + 1) & m;
    c[2] = (v - 1) & m;
    c[3] = DT[dt].is_float ? (v ^ sign_bit(DT[dt].size)) & m : (0 - v) & m;
    for (int k = 0; k < 4 && s->count < 64; k++)
        s->v[s->count++] = c[k];
}

/* Mix: percent of random bits, of edges, of values near the parameters; the
 * rest small values. */
typedef struct mix {
    int bits, edge, near;
} mix;

static const mix MIXES[] = {{100, 0, 0}, {25, 25, 25}, {0, 30, 40}, {0, 0, 0}, {10, 10, 60},
                            {0, 100, 0}, {50, 0, 50}};
enum { NMIX = (int)(sizeof(MIXES) / sizeof(MIXES[0])) };

static uint64_t gen_value(int dt, const mix *mx, const nearset *ns)
{
    uint32_t r = below(100);
    if (r < (uint32_t)mx->bits)
        return rnd() & mask_of(DT[dt].size);
    r -= (uint32_t)mx->bits;
    if (r < (uint32_t)mx->edge)
        return edge_value(dt);
    r -= (uint32_t)mx->edge;
    if (r < (uint32_t)mx->near && ns && ns->count)
        return ns->v[below((uint32_t)ns->count)];
    return small_value(dt);
}

static void gen_data(void *buf, size_t n, int dt, const mix *mx, const nearset *ns)
{
    for (size_t i = 0; i < n; i++)
        put_elem(buf, i, DT[dt].size, gen_value(dt, mx, ns));
}

/* ---------------------------------------------------------------- results */
static long g_pass, g_fail;
static int g_verbose, g_elem_aligned;
enum { MAX_PRINTED = 25 };
static int g_printed;

/* Context of the kernel under test, for failure messages. */
typedef struct target {
    const char *tier, *entry, *tname;
    int kind, idx, is_scalar;
    void (*fn)(void);
    void (*ref)(void);
} target;

static void fail_head(const target *t, const char *what, size_t n, size_t o1, size_t o2)
{
    g_fail++;
    if (g_printed++ < MAX_PRINTED)
        printf("FAIL %s %s[%s] %s n=%zu off=%zu/%zu: ", t->tier, t->entry, t->tname, what, n, o1,
               o2);
}

static int printing(void) { return g_printed <= MAX_PRINTED; }

/* 64-byte aligned block of size bytes (at least 1), canary-filled. */
static unsigned char *alloc_buf(size_t size)
{
    void *p = NULL;
    if (size == 0)
        size = 1;
#ifdef _WIN32
    p = _aligned_malloc(size, 64);
#else
    if (posix_memalign(&p, 64, size) != 0)
        p = NULL;
#endif
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, CANARY, size);
    return (unsigned char *)p;
}

static void free_buf(void *p)
{
#ifdef _WIN32
    _aligned_free(p);
#else
    free(p);
#endif
}

static int canary_ok(const unsigned char *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (p[i] != CANARY)
            return 0;
    return 1;
}

static size_t adjust_off(const target *t, size_t off, int align)
{
    if (t->is_scalar || g_elem_aligned)
        return off - off % (size_t)align;
    return off;
}

/* ---------------------------------------------------------------- params */
/* Entries of the kernel table (SIMDOPS_KERNEL_ENTRIES in internal.h). */
enum {
    K_CLIP = SIMDOPS_KE_clip,
    K_CLIP_SB = SIMDOPS_KE_clip_scale_bias,
    K_SHRINK = SIMDOPS_KE_shrink,
    K_ARGMAX_ROW = SIMDOPS_KE_argmax_row,
    K_ARGMAX_COLS = SIMDOPS_KE_argmax_cols,
    K_REQUANT = SIMDOPS_KE_requant,
    K_REQUANT_PC = SIMDOPS_KE_requant_pc,
    K_COUNT = SIMDOPS_KE_COUNT
};
#define KIND_NAME(k) simdops_kernel_entry_name(k)

/* Designated fields: positional initialisers silently shifted when simdops_number
 * gained its `negative` field, and every parameter of this harness became 0. */
static simdops_number numf(double f)
{
    simdops_number n = {.kind = SIMDOPS_NUM_FLOAT, .f = f};
    return n;
}
static simdops_number numi(int64_t i)
{
    simdops_number n = {.kind = SIMDOPS_NUM_INT, .i = i};
    return n;
}
static simdops_number numu(uint64_t u)
{
    simdops_number n = {.kind = SIMDOPS_NUM_UINT, .u = u};
    return n;
}

/* Parameter numbers as a caller may give them. */
static const double SPECIAL_F[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 127.5, -128.5,
                                   255.9, 65504.0, 65519.99, 65520.0, -65520.0, 1e-8, 5.96e-8,
                                   3.0e-5, 3.4e38, 1e39, -1e300, INFINITY, -INFINITY,
                                   4294967295.7, -2147483648.5, 2147483647.5, 9.3e18, 1.8e19,
                                   0.1, 1.0 / 3.0};
static const int64_t SPECIAL_I[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, -32768,
                                    65535, INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN,
                                    -300, 300};
static const uint64_t SPECIAL_U[] = {0x8000000000000000ull, UINT64_MAX};
enum {
    NSPECIAL_F = sizeof(SPECIAL_F) / sizeof(SPECIAL_F[0]),
    NSPECIAL_I = sizeof(SPECIAL_I) / sizeof(SPECIAL_I[0]),
    NSPECIAL = NSPECIAL_F + NSPECIAL_I + sizeof(SPECIAL_U) / sizeof(SPECIAL_U[0])
};

static simdops_number special_number(int idx)
{
    idx %= NSPECIAL;
    if (idx < NSPECIAL_F)
        return numf(SPECIAL_F[idx]);
    if (idx < NSPECIAL_F + NSPECIAL_I)
        return numi(SPECIAL_I[idx - NSPECIAL_F]);
    return numu(SPECIAL_U[idx - NSPECIAL_F - NSPECIAL_I]);
}

static simdops_number random_number(void)
{
    switch (below(6)) {
    case 0:
    case 1: return special_number((int)below(NSPECIAL));
    case 2: return numf((double)((int)below(2001) - 1000) / (double)(1u << below(6)));
    case 3: { /* random magnitude */
        double m = (double)(rnd() >> 11) / 9007199254740992.0;
        return numf((chance(50) ? -1 : 1) * ldexp(m, (int)below(140) - 70));
    }
    case 4: { /* any magnitude, either sign (negated as unsigned: no overflow) */
        uint64_t u = rnd() >> below(64);
        return numi((int64_t)(chance(50) ? 0 - u : u));
    }
    default: return numi((int64_t)below(1001) - 500);
    }
}

static float random_scale_or_bias(int finite_only)
{
    static const float S[] = {1.0f, 0.0f, -0.0f, -1.0f, 0.5f, 2.0f, 1e-3f, 3e38f, -3e38f,
                              1e-45f, 1e10f, -7.25f, 65504.0f, 0.333333f, 4294967296.0f,
                              INFINITY, -INFINITY};
    float v;
    if (chance(50)) {
        do
            v = S[below(sizeof(S) / sizeof(S[0]))];
        while (finite_only && !isfinite(v));
        return v;
    }
    return (float)((double)((int)below(4001) - 2000) / (double)(1u << below(10)));
}

/* ---------------------------------------------------------------- calls */
static void call_ew(int kind, void (*fn)(void), const void *x, void *y, size_t n, const void *p)
{
    if (kind == K_SHRINK)
        ((simdops_shrink_fn)fn)(x, y, n, (const simdops_shrink_params *)p);
    else
        ((simdops_clip_fn)fn)(x, y, n, (const simdops_clip_params *)p);
}

#define U(v) ((unsigned long long)(v))

static void print_params(int kind, int dt, const void *pv)
{
    if (!printing())
        return;
    if (kind == K_SHRINK) {
        const simdops_shrink_params *p = (const simdops_shrink_params *)pv;
        printf("  params thr=%#llx neg_thr=%#llx bias=%#llx sub=[%#llx,%#llx] add=[%#llx,%#llx]\n",
               U(value_bits(dt, p->thr)), U(value_bits(dt, p->neg_thr)), U(value_bits(dt, p->bias)),
               U(value_bits(dt, p->sub_lo)), U(value_bits(dt, p->sub_hi)),
               U(value_bits(dt, p->add_lo)), U(value_bits(dt, p->add_hi)));
    } else {
        const simdops_clip_params *p = (const simdops_clip_params *)pv;
        printf("  params min=%#llx max=%#llx scale=%a bias=%a\n",
               U(value_bits(dt, p->min)), U(value_bits(dt, p->max)),
               (double)p->scale, (double)p->bias);
    }
}

static void report_diff(const void *x, const void *want, const void *got, size_t n, int xs, int ys)
{
    for (size_t i = 0; i < n; i++) {
        if (get_elem(want, i, ys) != get_elem(got, i, ys)) {
            if (printing())
                printf("first diff at %zu: x=%#llx want=%#llx got=%#llx\n", i,
                       U(get_elem(x, i, xs)), U(get_elem(want, i, ys)), U(get_elem(got, i, ys)));
            return;
        }
    }
    if (printing())
        printf("output ok, but memory outside it was written or the input changed\n");
}

/* One elementwise call out of place (x at xoff, y at yoff) and one in place
 * (at ioff), both against the reference output. */
static void ew_case(const target *t, const void *p, const unsigned char *x, size_t n, size_t xoff,
                    size_t yoff, size_t ioff)
{
    const int es = DT[t->idx].size;
    const size_t bytes = n * (size_t)es;
    unsigned char *want = alloc_buf(bytes), *xb, *yb;
    call_ew(t->kind, t->ref, x, want, n, p);

    xoff = adjust_off(t, xoff, es);
    yoff = adjust_off(t, yoff, es);
    ioff = adjust_off(t, ioff, es);
    xb = alloc_buf(xoff + bytes);
    yb = alloc_buf(yoff + bytes + TRAIL);
    if (bytes)
        memcpy(xb + xoff, x, bytes);
    call_ew(t->kind, t->fn, xb + xoff, yb + yoff, n, p);
    if (memcmp(yb + yoff, want, bytes) == 0 && canary_ok(yb, 0, yoff) &&
        canary_ok(yb, yoff + bytes, yoff + bytes + TRAIL) && canary_ok(xb, 0, xoff) &&
        memcmp(xb + xoff, x, bytes) == 0) {
        g_pass++;
    } else {
        fail_head(t, "out-of-place", n, xoff, yoff);
        report_diff(x, want, yb + yoff, n, es, es);
        print_params(t->kind, t->idx, p);
    }
    free_buf(xb);
    free_buf(yb);

    yb = alloc_buf(ioff + bytes + TRAIL);
    if (bytes)
        memcpy(yb + ioff, x, bytes);
    call_ew(t->kind, t->fn, yb + ioff, yb + ioff, n, p);
    if (memcmp(yb + ioff, want, bytes) == 0 && canary_ok(yb, 0, ioff) &&
        canary_ok(yb, ioff + bytes, ioff + bytes + TRAIL)) {
        g_pass++;
    } else {
        fail_head(t, "in-place", n, ioff, ioff);
        report_diff(x, want, yb + ioff, n, es, es);
        print_params(t->kind, t->idx, p);
    }
    free_buf(yb);
    free_buf(want);
}

/* Parameters of an elementwise op from numbers; 0 when init rejects them. */
typedef union ew_params {
    simdops_clip_params clip;
    simdops_shrink_params shrink;
} ew_params;

static int make_clip(int dt, int sb, simdops_number lo, simdops_number hi, float s, float b,
                     ew_params *p)
{
    simdops_number scale = numf(s), bias = numf(b);
    simdops_error err;
    memset(p, 0, sizeof(*p));
    memset(&err, 0, sizeof(err));
    return simdops_clip_params_init((simdops_dtype)dt, lo, hi, sb ? &scale : NULL,
                                    sb ? &bias : NULL, &p->clip, &err) == SIMDOPS_OK;
}

static int make_shrink(int dt, simdops_number bias, simdops_number thr, ew_params *p)
{
    simdops_error err;
    memset(p, 0, sizeof(*p));
    memset(&err, 0, sizeof(err));
    return simdops_shrink_params_init((simdops_dtype)dt, bias, thr, &p->shrink, &err) == SIMDOPS_OK;
}

static simdops_number random_threshold(void)
{
    simdops_number t = random_number();
    if (t.kind == SIMDOPS_NUM_FLOAT)
        t.f = fabs(t.f);
    else if (t.kind == SIMDOPS_NUM_INT && t.i < 0)
        t.i = t.i == INT64_MIN ? INT64_MAX : -t.i;
    return t;
}

/* Random parameters valid for this op (tries until init accepts them). */
static void random_ew_params(int kind, int dt, ew_params *p)
{
    for (;;) {
        simdops_number a = random_number(), b = chance(10) ? a : random_number();
        int ok;
        if (kind == K_SHRINK)
            ok = make_shrink(dt, a, random_threshold(), p);
        else
            ok = make_clip(dt, kind == K_CLIP_SB, a, b, random_scale_or_bias(!DT[dt].is_float),
                           random_scale_or_bias(!DT[dt].is_float), p);
        if (ok)
            return;
    }
}

/* Values next to the parameters, where compares flip. */
static void ew_nearset(int kind, int dt, const ew_params *p, nearset *ns)
{
    ns->count = 0;
    if (kind == K_SHRINK) {
        const simdops_shrink_params *s = &p->shrink;
        near_add(ns, dt, value_bits(dt, s->thr));
        near_add(ns, dt, value_bits(dt, s->neg_thr));
        near_add(ns, dt, value_bits(dt, s->bias));
        if (!DT[dt].is_float) {
            near_add(ns, dt, value_bits(dt, s->sub_lo));
            near_add(ns, dt, value_bits(dt, s->sub_hi));
            near_add(ns, dt, value_bits(dt, s->add_lo));
            near_add(ns, dt, value_bits(dt, s->add_hi));
        }
        return;
    }
    near_add(ns, dt, value_bits(dt, p->clip.min));
    near_add(ns, dt, value_bits(dt, p->clip.max));
    if (kind == K_CLIP_SB && p->clip.scale != 0 && isfinite(p->clip.scale)) {
        /* x with x*scale+bias near the bounds, the type's ends, 0 and +-0.5 */
        double s = p->clip.scale, b = p->clip.bias, tg[8];
        double lo, hi;
        int k = 0;
        if (dt == SIMDOPS_FLOAT64) {
            lo = p->clip.min.f64;
            hi = p->clip.max.f64;
        } else if (DT[dt].is_float) {
            lo = p->clip.min.f32;
            hi = p->clip.max.f32;
        } else {
            uint64_t lb = value_bits(dt, p->clip.min), hb = value_bits(dt, p->clip.max);
            if (DT[dt].is_signed) {
                uint64_t sb = sign_bit(DT[dt].size);
                lo = (double)(int64_t)((lb ^ sb) - sb);
                hi = (double)(int64_t)((hb ^ sb) - sb);
            } else {
                lo = (double)lb;
                hi = (double)hb;
            }
        }
        tg[k++] = lo;
        tg[k++] = hi;
        tg[k++] = 0.0;
        tg[k++] = 0.5;
        tg[k++] = -0.5;
        tg[k++] = -1.0;
        tg[k++] = DT[dt].is_signed ? -(double)sign_bit(DT[dt].size) : 0.0;
        tg[k++] = DT[dt].is_signed ? (double)(sign_bit(DT[dt].size) - 1)
                                   : (double)mask_of(DT[dt].size);
        for (int i = 0; i < k; i++)
            near_add(ns, dt, dbl_bits(dt, (tg[i] - b) / s));
    }
}

/* ---------------------------------------------------------------- elementwise */
static size_t rand_off(void) { return below(64); }

static void test_elementwise(const target *t)
{
    const int dt = t->idx;
    unsigned char x[MAXN * 8];
    ew_params p;
    nearset ns;

    /* every length, random parameters, data mixes and offsets */
    for (size_t n = 0; n <= MAXN; n++) {
        for (int rep = 0; rep < 3; rep++) {
            random_ew_params(t->kind, dt, &p);
            ew_nearset(t->kind, dt, &p, &ns);
            gen_data(x, n, dt, &MIXES[(n + (size_t)rep) % NMIX], &ns);
            ew_case(t, &p, x, n, rand_off(), rand_off(), rand_off());
        }
    }
    /* every byte offset 0..63 of input and output on a few lengths */
    {
        static const size_t LENS[] = {7, 40, 130};
        for (size_t li = 0; li < 3; li++) {
            size_t n = LENS[li];
            for (size_t off = 0; off < 64; off++) {
                random_ew_params(t->kind, dt, &p);
                ew_nearset(t->kind, dt, &p, &ns);
                gen_data(x, n, dt, &MIXES[off % NMIX], &ns);
                ew_case(t, &p, x, n, off, (off * 29 + 7) & 63, off);
                ew_case(t, &p, x, n, (off * 13 + 5) & 63, off, (off + 32) & 63);
            }
        }
    }
    /* Rows past the stream threshold (lowered to 1 KiB here) take the non-temporal
     * loop, which walks several 4 KiB pages in turn: rows of several such blocks and
     * a tail, at offsets that do and do not let the stores align. */
    {
        enum { STREAM_ROW_BYTES = 3 * 16384 + 4096 + 200 };
        static unsigned char xs[STREAM_ROW_BYTES + 64];
        const size_t saved = simdops_stream_threshold;
        simdops_stream_threshold = 1024;
        for (int rep = 0; rep < 6; rep++) {
            size_t n = STREAM_ROW_BYTES / (size_t)DT[dt].size - (size_t)rep;
            random_ew_params(t->kind, dt, &p);
            ew_nearset(t->kind, dt, &p, &ns);
            gen_data(xs, n, dt, &MIXES[(size_t)rep % NMIX], &ns);
            ew_case(t, &p, xs, n, rand_off(), rep < 3 ? 0 : rand_off(), rand_off());
        }
        simdops_stream_threshold = saved;
    }
    /* softshrink-like parameters (bias <= threshold, both small): the float kernels'
     * magnitude forms, where bias and |x| are close enough for x - b to differ from x */
    if (t->kind == K_SHRINK) {
        static const double PAIRS[][2] = {{0.5, 0.5},  {0.25, 1.0}, {0.0, 0.5},  {-0.5, 0.5},
                                          {1e-3, 2.0}, {3.0, 3.0},  {-2.0, 0.0}, {-0.0, 1.0}};
        for (size_t k = 0; k < sizeof(PAIRS) / sizeof(PAIRS[0]); k++) {
            for (int rep = 0; rep < 4; rep++) {
                size_t n = 1 + below(MAXN);
                if (!make_shrink(dt, numf(PAIRS[k][0]), numf(PAIRS[k][1]), &p))
                    continue;
                ew_nearset(t->kind, dt, &p, &ns);
                gen_data(x, n, dt, &MIXES[(size_t)rep % NMIX], &ns);
                ew_case(t, &p, x, n, rand_off(), rand_off(), rand_off());
            }
        }
    }
    /* parameter sweep: special numbers against each other */
    for (int i = 0; i < NSPECIAL; i++) {
        for (int j = 0; j < 6; j++) {
            simdops_number a = special_number(i);
            simdops_number b = j == 0 ? a : special_number((int)below(NSPECIAL));
            int ok;
            size_t n = j < 3 ? 70 : 1 + below(MAXN);
            if (t->kind == K_SHRINK) {
                if (b.kind == SIMDOPS_NUM_FLOAT)
                    b.f = fabs(b.f);
                else if (b.kind == SIMDOPS_NUM_INT && b.i < 0)
                    b.i = b.i == INT64_MIN ? INT64_MAX : -b.i;
                ok = make_shrink(dt, a, b, &p);
            } else {
                int fin = !DT[dt].is_float;
                ok = make_clip(dt, t->kind == K_CLIP_SB, a, b, random_scale_or_bias(fin),
                               random_scale_or_bias(fin), &p);
            }
            if (!ok)
                continue;
            ew_nearset(t->kind, dt, &p, &ns);
            gen_data(x, n, dt, &MIXES[(size_t)(i + j) % NMIX], &ns);
            ew_case(t, &p, x, n, rand_off(), rand_off(), rand_off());
        }
    }
}

/* ---------------------------------------------------------------- argmax */
/* Row data for argmax: NaN-free or not, ties, +-0, maxima at chosen places. */
static void gen_argmax_data(void *x, size_t n, int dt, int mode)
{
    const int es = DT[dt].size;
    static const double SMALL[] = {-2.0, -1.0, -0.0, 0.0, 1.0, 2.0};
    if (n == 0)
        return;
    switch (mode % 11) {
    case 0: /* random bits (NaN now and then) */
        gen_data(x, n, dt, &MIXES[0], NULL);
        break;
    case 1: /* ties among few values */
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, dbl_bits(dt, SMALL[below(6)]));
        break;
    case 2: /* edges and small values, NaN removed */
    case 3: /* the same with a few NaN added */
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            do
                v = gen_value(dt, &MIXES[1], NULL);
            while (dt == SIMDOPS_FLOAT32 ? ((v & 0x7fffffffu) > 0x7f800000u)
                   : dt == SIMDOPS_FLOAT16 ? ((v & 0x7fffu) > 0x7c00u)
                                           : ((v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull));
            put_elem(x, i, es, v);
        }
        if (mode % 11 == 3) {
            int k = 1 + (int)below(3);
            while (k--) {
                uint64_t nan;
                if (dt == SIMDOPS_FLOAT32)
                    nan = (rnd() & 0x807fffffu) | 0x7f800001u;
                else if (dt == SIMDOPS_FLOAT16)
                    nan = (rnd() & 0x83ffu) | 0x7c01u;
                else
                    nan = (rnd() & 0x800fffffffffffffull) | 0x7ff0000000000001ull;
                put_elem(x, below((uint32_t)n), es, nan);
            }
        }
        break;
    case 4: { /* all equal */
        uint64_t v = dbl_bits(dt, SMALL[below(6)]);
        if (chance(30))
            v = dbl_bits(dt, chance(50) ? -INFINITY : INFINITY);
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, v);
        break;
    }
    case 5: /* +0.0 / -0.0 only, or zeros under negatives */
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, dbl_bits(dt, chance(50) ? -0.0 : chance(50) ? 0.0 : -1.0));
        break;
    case 6: { /* a unique maximum at a random place, a second one later */
        size_t k = below((uint32_t)n), k2 = k + below((uint32_t)(n - k));
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, small_value(dt));
        put_elem(x, k, es, dbl_bits(dt, 1000.0));
        put_elem(x, k2, es, dbl_bits(dt, 1000.0));
        break;
    }
    case 7: /* -inf everywhere, maybe one NaN at the end */
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, dbl_bits(dt, -INFINITY));
        if (chance(50))
            put_elem(x, n - 1, es, dbl_bits(dt, NAN));
        break;
    case 9: /* all negative (a padded tail must not add a 0) */
        for (size_t i = 0; i < n; i++) {
            uint64_t v = chance(80) ? small_value(dt) : edge_value(dt);
            if (DT[dt].is_float)
                v |= sign_bit(es);
            put_elem(x, i, es, v);
        }
        break;
    case 10: /* increasing negatives: the maximum last */
        for (size_t i = 0; i < n; i++)
            put_elem(x, i, es, dbl_bits(dt, -(double)(n - i) * 0.25));
        break;
    default: /* denormals and zeros */
        for (size_t i = 0; i < n; i++) {
            uint64_t v = chance(70) ? (rnd() & (dt == SIMDOPS_FLOAT32 ? 0x807fffffu
                                                : dt == SIMDOPS_FLOAT16 ? 0x83ffu
                                                                        : 0x800fffffffffffffull))
                                    : 0;
            put_elem(x, i, es, v);
        }
        break;
    }
}

static void argmax_row_case(const target *t, const void *x, size_t n, size_t xoff, int mode)
{
    const int es = DT[t->idx].size;
    const size_t bytes = n * (size_t)es;
    unsigned char *xb;
    size_t want = ((simdops_argmax_row_fn)t->ref)(x, n), got;
    xoff = adjust_off(t, xoff, es);
    xb = alloc_buf(xoff + bytes);
    memcpy(xb + xoff, x, bytes);
    got = ((simdops_argmax_row_fn)t->fn)(xb + xoff, n);
    if (got == want && memcmp(xb + xoff, x, bytes) == 0) {
        g_pass++;
    } else {
        fail_head(t, "row", n, xoff, 0);
        if (printing())
            printf("mode %d want %zu got %zu (x[want]=%#llx x[got]=%#llx)\n", mode, want, got,
                   (unsigned long long)get_elem(x, want, es),
                   (unsigned long long)(got < n ? get_elem(x, got, es) : 0));
    }
    free_buf(xb);
}

static void argmax_cols_case(const target *t, const void *row, const void *best,
                             const int64_t *bidx, size_t cols, int64_t r, size_t roff, size_t boff,
                             size_t ioff)
{
    const int es = DT[t->idx].size;
    const size_t bytes = cols * (size_t)es, ibytes = cols * 8;
    unsigned char *wb = alloc_buf(bytes), *wi = alloc_buf(ibytes), *rb, *bb, *ib;
    int ok;
    memcpy(wb, best, bytes);
    memcpy(wi, bidx, ibytes);
    ((simdops_argmax_cols_fn)t->ref)(row, cols, r, wb, (int64_t *)(void *)wi);

    roff = adjust_off(t, roff, es);
    boff = adjust_off(t, boff, es);
    ioff -= ioff % 8; /* int64_t *: always naturally aligned */
    rb = alloc_buf(roff + bytes);
    bb = alloc_buf(boff + bytes + TRAIL);
    ib = alloc_buf(ioff + ibytes + TRAIL);
    memcpy(rb + roff, row, bytes);
    memcpy(bb + boff, best, bytes);
    memcpy(ib + ioff, bidx, ibytes);
    ((simdops_argmax_cols_fn)t->fn)(rb + roff, cols, r, bb + boff, (int64_t *)(void *)(ib + ioff));
    ok = memcmp(bb + boff, wb, bytes) == 0 && memcmp(ib + ioff, wi, ibytes) == 0 &&
         memcmp(rb + roff, row, bytes) == 0 && canary_ok(bb, 0, boff) &&
         canary_ok(bb, boff + bytes, boff + bytes + TRAIL) && canary_ok(ib, 0, ioff) &&
         canary_ok(ib, ioff + ibytes, ioff + ibytes + TRAIL);
    if (ok) {
        g_pass++;
    } else {
        fail_head(t, "cols", cols, roff, boff);
        if (memcmp(bb + boff, wb, bytes) != 0)
            report_diff(row, wb, bb + boff, cols, es, es);
        else
            report_diff(row, wi, ib + ioff, cols, es, 8);
    }
    free_buf(rb);
    free_buf(bb);
    free_buf(ib);
    free_buf(wb);
    free_buf(wi);
}

enum { LONG_ROW_MAX = 1027 };
static const size_t LONG_ROWS[] = {255, 256, 257, 300, 511, 640, 1024, LONG_ROW_MAX};

static void test_argmax(const target *t)
{
    const int dt = t->idx;
    unsigned char x[MAXN * 8], best[MAXN * 8];
    int64_t bidx[MAXN];
    if (t->kind == K_ARGMAX_ROW) {
        for (size_t n = 1; n <= MAXN; n++) {
            for (int mode = 0; mode < 11; mode++) {
                gen_argmax_data(x, n, dt, mode + (int)n);
                argmax_row_case(t, x, n, rand_off(), mode + (int)n);
            }
        }
        for (size_t off = 0; off < 64; off++) {
            size_t n = off % 2 ? 130 : 37;
            gen_argmax_data(x, n, dt, (int)off);
            argmax_row_case(t, x, n, off, (int)off);
        }
        /* rows of several chunks (a chunk is 8 vectors: up to 128 float16 lanes) */
        for (size_t k = 0; k < sizeof(LONG_ROWS) / sizeof(LONG_ROWS[0]); k++) {
            static unsigned char xl[LONG_ROW_MAX * 8];
            for (int mode = 0; mode < 11; mode++) {
                gen_argmax_data(xl, LONG_ROWS[k], dt, mode + (int)k);
                argmax_row_case(t, xl, LONG_ROWS[k], rand_off(), mode + (int)k);
            }
        }
        return;
    }
    for (size_t cols = 0; cols <= MAXN; cols++) {
        for (int rep = 0; rep < 6; rep++) {
            gen_argmax_data(x, cols, dt, rep * 3 + (int)cols);
            gen_argmax_data(best, cols, dt, rep * 5 + (int)cols + 1);
            if (rep % 3 == 2) /* row == best in places */
                for (size_t j = 0; j < cols; j++)
                    if (chance(50))
                        memcpy(best + j * (size_t)DT[dt].size, x + j * (size_t)DT[dt].size,
                               (size_t)DT[dt].size);
            for (size_t j = 0; j < cols; j++)
                bidx[j] = (int64_t)(rnd() >> 1);
            argmax_cols_case(t, x, best, bidx, cols, (int64_t)below(1u << 30), rand_off(),
                             rand_off(), rand_off());
        }
    }
    for (size_t off = 0; off < 64; off++) {
        size_t cols = off % 2 ? 130 : 37;
        gen_argmax_data(x, cols, dt, (int)off);
        gen_argmax_data(best, cols, dt, (int)off + 3);
        for (size_t j = 0; j < cols; j++)
            bidx[j] = (int64_t)j;
        argmax_cols_case(t, x, best, bidx, cols, 12345, off, (off * 29 + 3) & 63, off);
    }
}

/* ---------------------------------------------------------------- requant */
static int32_t s32(uint64_t bits) { return (int32_t)(uint32_t)bits; }

static int32_t edge_i32(void)
{
    static const int32_t E[] = {INT32_MIN, INT32_MAX, 0, 1, -1, INT32_MIN + 1, INT32_MAX - 1,
                                1 << 30, -(1 << 30), 255, 256, -128, -129, 32767, -32768};
    return E[below(sizeof(E) / sizeof(E[0]))];
}

static int32_t random_multiplier(void)
{
    static const int32_t M[] = {INT32_MIN, INT32_MAX, 0, 1, -1, 1 << 30, -(1 << 30),
                                1518500250, INT32_MIN + 1, 1 << 29};
    if (chance(40))
        return M[below(sizeof(M) / sizeof(M[0]))];
    return chance(50) ? s32(rnd()) : (int32_t)((1u << 30) + below(1u << 30));
}

static int32_t random_shift(void)
{
    static const int32_t S[] = {0, 1, 31, -1, -31, 2, 30, -30, 16, -16};
    return chance(50) ? S[below(sizeof(S) / sizeof(S[0]))] : (int32_t)below(63) - 31;
}

static int32_t random_offset(void)
{
    static const int32_t O[] = {INT32_MIN, INT32_MAX, 0, 128, -128, 1, -1, INT32_MIN + 100,
                                INT32_MAX - 100, 32768};
    if (chance(50))
        return O[below(sizeof(O) / sizeof(O[0]))];
    return chance(50) ? (int32_t)below(601) - 300 : s32(rnd());
}

/* min/max as api.c turns ACL's (min, max) into kernel bounds, or raw equal
 * bounds (the kernel then outputs that constant). */
static void random_bounds(int out, int32_t *lo, int32_t *hi)
{
    int32_t a = RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    int32_t b = RQ_LO[out] + (int32_t)below((uint32_t)(RQ_HI[out] - RQ_LO[out] + 1));
    switch (below(5)) {
    case 0: *lo = RQ_LO[out]; *hi = RQ_HI[out]; break; /* min == max in ACL: no clamp */
    case 1: *lo = *hi = a; break;                       /* a one-value range */
    case 2: *lo = RQ_LO[out]; *hi = a; break;
    default: *lo = a < b ? a : b; *hi = a < b ? b : a; break;
    }
}

/* x values near RDBPOT ties of q = SRDHM(x << ls, M) for the shift e. */
static int32_t tie_value(int32_t m, int e)
{
    uint32_t k = (uint32_t)rnd();
    int64_t t = (int64_t)(k >> (e + 1 < 32 ? e + 1 : 31)) * ((int64_t)1 << e);
    int64_t d = (int64_t)below(3) - 1;
    if (e > 0)
        t += (int64_t)1 << (e - 1);
    if (chance(50))
        t = -t;
    t += d;
    if (m == (1 << 30))
        t *= 2; /* SRDHM(a, 2^30) = a / 2 rounded */
    else if (m == INT32_MIN)
        t = -t;
    return simdops_wrap32(t);
}

static void gen_rq_input(int32_t *x, size_t n, int32_t m, int e, int mixi)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = below(100);
        if (mixi % 3 == 0 ? r < 60 : r < 20)
            x[i] = s32(rnd());
        else if (r < 70)
            x[i] = tie_value(m, e);
        else if (r < 85)
            x[i] = edge_i32();
        else
            x[i] = (int32_t)below(2001) - 1000;
    }
}

static void gen_bias(int32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = chance(20) ? edge_i32() : chance(50) ? (int32_t)below(2001) - 1000 : s32(rnd());
}

/* One call of t on copies at offsets offs, checked against t's reference.
 * Per channel, derived != 0 passes the derived arrays (built at the
 * multiplier's offset), else the raw multiplier and shift vectors. */
static void requant_form(const target *t, const simdops_requant_params *p, const int32_t *x,
                         const int32_t *bias, const int32_t *mult, const int32_t *shift, size_t n,
                         const size_t offs[5], int derived)
{
    const int os = RQ_SIZE[t->idx];
    const size_t ib = n * 4, ob = n * (size_t)os;
    unsigned char *want = alloc_buf(ob), *buf[5] = {NULL, NULL, NULL, NULL, NULL};
    const void *src[4] = {x, bias, derived ? NULL : mult, derived ? NULL : shift};
    size_t off[5];
    simdops_requant_channels ch, ch_ref;
    int ok;
    memset(&ch, 0, sizeof ch);
    if (t->kind == K_REQUANT_PC) {
        memset(&ch_ref, 0, sizeof ch_ref);
        ch_ref.mult = mult;
        ch_ref.shift = shift;
        ((simdops_requant_pc_fn)t->ref)(x, want, n, bias, &ch_ref, p);
    } else
        ((simdops_requant_fn)t->ref)(x, want, n, bias, p);
    for (int k = 0; k < 5; k++)
        off[k] = adjust_off(t, offs[k], k == 4 ? os : 4);
    for (int k = 0; k < 4; k++) {
        if (!src[k])
            continue;
        buf[k] = alloc_buf(off[k] + ib);
        memcpy(buf[k] + off[k], src[k], ib);
    }
    buf[4] = alloc_buf(off[4] + ob + TRAIL);
#define ARG(k, T) (buf[k] ? (const T *)(const void *)(buf[k] + off[k]) : NULL)
    if (t->kind == K_REQUANT_PC && derived) { /* int32-aligned, as C writes them */
        off[2] -= off[2] % 4;
        buf[2] = alloc_buf(off[2] + simdops_requant_channels_words(n) * 4);
        simdops_requant_channels_init(&ch, (int32_t *)(void *)(buf[2] + off[2]), mult, shift, n,
                                      1);
    } else if (t->kind == K_REQUANT_PC) {
        ch.mult = ARG(2, int32_t);
        ch.shift = ARG(3, int32_t);
    }
    if (t->kind == K_REQUANT_PC)
        ((simdops_requant_pc_fn)t->fn)(ARG(0, int32_t), buf[4] + off[4], n, ARG(1, int32_t),
                                       &ch, p);
    else
        ((simdops_requant_fn)t->fn)(ARG(0, int32_t), buf[4] + off[4], n, ARG(1, int32_t), p);
#undef ARG
    ok = memcmp(buf[4] + off[4], want, ob) == 0 && canary_ok(buf[4], 0, off[4]) &&
         canary_ok(buf[4], off[4] + ob, off[4] + ob + TRAIL);
    for (int k = 0; k < 4; k++)
        if (src[k] && memcmp(buf[k] + off[k], src[k], ib) != 0)
            ok = 0;
    if (ok) {
        g_pass++;
    } else {
        fail_head(t, bias ? (derived ? "bias derived" : "bias") : (derived ? "derived" : "no-bias"),
                  n, off[0], off[4]);
        report_diff(x, want, buf[4] + off[4], n, 4, os);
        if (printing()) {
            size_t i = 0;
            while (i + 1 < n && get_elem(want, i, os) == get_elem(buf[4] + off[4], i, os))
                i++;
            printf("  params M=%d ls=%d rs=%d offset=%d min=%d max=%d", p->multiplier,
                   p->left_shift, p->right_shift, p->offset, p->min, p->max);
            if (n)
                printf(" bias[i]=%d M[i]=%d shift[i]=%d", bias ? bias[i] : 0, mult ? mult[i] : 0,
                       shift ? shift[i] : 0);
            printf("\n");
        }
    }
    for (int k = 0; k < 5; k++)
        free_buf(buf[k]);
    free_buf(want);
}

static void requant_case(const target *t, const simdops_requant_params *p, const int32_t *x,
                         const int32_t *bias, const int32_t *mult, const int32_t *shift, size_t n,
                         const size_t offs[5])
{
    requant_form(t, p, x, bias, mult, shift, n, offs, 0);
    if (t->kind == K_REQUANT_PC)
        requant_form(t, p, x, bias, mult, shift, n, offs, 1);
}

static void random_rq_params(int out, simdops_requant_params *p, int *e)
{
    int32_t sh = random_shift();
    p->multiplier = random_multiplier();
    p->left_shift = sh < 0 ? -sh : 0;
    p->right_shift = sh > 0 ? sh : 0;
    p->offset = random_offset();
    random_bounds(out, &p->min, &p->max);
    *e = p->right_shift;
}

static void test_requant(const target *t)
{
    int32_t x[MAXN], bias[MAXN], mult[MAXN], shift[MAXN];
    simdops_requant_params p;
    const int pc = t->kind == K_REQUANT_PC;
    int e;
    for (size_t n = 0; n <= MAXN; n++) {
        for (int rep = 0; rep < 6; rep++) {
            size_t offs[5];
            for (int k = 0; k < 5; k++)
                offs[k] = rand_off();
            random_rq_params(t->idx, &p, &e);
            if (pc) {
                /* rep % 3: any channels; none that saturates or shifts left (the
                 * kernels' fast variants); and every right shift >= 1 (RQ_F_OFF16) */
                for (size_t i = 0; i < n; i++) {
                    mult[i] = chance(30) ? p.multiplier : random_multiplier();
                    shift[i] = random_shift();
                    if (rep % 3 == 0)
                        continue;
                    if (mult[i] == INT32_MIN)
                        mult[i] = INT32_MIN + 1;
                    shift[i] = shift[i] < 0 ? -shift[i] : shift[i];
                    if (rep % 3 == 2 && shift[i] == 0)
                        shift[i] = 1 + (int32_t)below(31);
                }
            }
            gen_rq_input(x, n, p.multiplier, e, rep + (int)n);
            gen_bias(bias, n);
            requant_case(t, &p, x, rep % 2 ? bias : NULL, pc ? mult : NULL, pc ? shift : NULL, n,
                         offs);
        }
    }
    /* systematic: every shift with the extreme multipliers and offsets */
    {
        static const int32_t MS[] = {INT32_MIN, INT32_MAX, 1 << 30, -(1 << 30),
                                     0,         1,         -1,      1518500250};
        static const int32_t OF[] = {0, INT32_MIN, INT32_MAX, 100, -100};
        for (int sh = -31; sh <= 31; sh++) {
            for (size_t mi = 0; mi < sizeof(MS) / sizeof(MS[0]); mi++) {
                size_t n = 37 + (size_t)below(40), offs[5];
                for (int k = 0; k < 5; k++)
                    offs[k] = rand_off();
                p.multiplier = MS[mi];
                p.left_shift = sh < 0 ? -sh : 0;
                p.right_shift = sh > 0 ? sh : 0;
                p.offset = OF[below(5)];
                random_bounds(t->idx, &p.min, &p.max);
                for (size_t i = 0; i < n; i++) {
                    mult[i] = chance(50) ? MS[mi] : random_multiplier();
                    shift[i] = chance(50) ? sh : random_shift();
                }
                gen_rq_input(x, n, p.multiplier, p.right_shift, (int)mi);
                gen_bias(bias, n);
                requant_case(t, &p, x, mi % 2 ? bias : NULL, pc ? mult : NULL, pc ? shift : NULL,
                             n, offs);
            }
        }
    }
    /* every byte offset of each pointer */
    for (size_t off = 0; off < 64; off++) {
        size_t n = off % 2 ? 130 : 23;
        size_t offs[5] = {off, (off * 7 + 1) & 63, (off * 11 + 2) & 63, (off * 13 + 3) & 63,
                          (off * 29 + 4) & 63};
        random_rq_params(t->idx, &p, &e);
        for (size_t i = 0; i < n; i++) {
            mult[i] = random_multiplier();
            shift[i] = random_shift();
        }
        gen_rq_input(x, n, p.multiplier, e, (int)off);
        gen_bias(bias, n);
        requant_case(t, &p, x, bias, pc ? mult : NULL, pc ? shift : NULL, n, offs);
        offs[4] = off;
        offs[0] = (off * 5 + 9) & 63;
        requant_case(t, &p, x, NULL, pc ? mult : NULL, pc ? shift : NULL, n, offs);
    }
}

/* csrc/tests/test_api.c */
void simdops_test_public_api(long *pass, long *fail);

/* ---------------------------------------------------------------- tables */
static void (*entry_fn(const simdops_kernel_table *t, int kind, int idx))(void)
{
    return simdops_kernel_get(t, kind, idx);
}

static int entry_count(int kind) { return simdops_kernel_entry_slots(kind); }

static const char *entry_tname(int kind, int idx) { return simdops_kernel_slot_name(kind, idx); }

/* The test of each entry: a new table entry with a new kernel signature needs
 * its case here (the harness reports it as untested otherwise). */
static void run_entry(const target *t)
{
    switch (t->kind) {
    case K_CLIP:
    case K_CLIP_SB:
    case K_SHRINK: test_elementwise(t); break;
    case K_ARGMAX_ROW:
    case K_ARGMAX_COLS: test_argmax(t); break;
    case K_REQUANT:
    case K_REQUANT_PC: test_requant(t); break;
    default:
        fail_head(t, "no harness test for this entry", 0, 0, 0);
        printf("\n");
        break;
    }
}

/* The scalar table must hold exactly the dtype table's op x dtype set, or
 * entries would go untested (or be tested without a reference). */
static void check_scalar_table(void)
{
    const simdops_kernel_table *s = simdops_scalar_kernels();
    for (int k = 0; k < K_COUNT; k++) {
        unsigned have = 0, want = 0;
        for (int idx = 0; idx < entry_count(k); idx++) {
            if (entry_fn(s, k, idx))
                have |= 1u << idx;
            if (simdops_kernel_slot_required(k, idx))
                want |= 1u << idx;
        }
        if (have != want) {
            target t = {"scalar", KIND_NAME(k), "-", k, 0, 1, NULL, NULL};
            fail_head(&t, "table", 0, 0, 0);
            printf("scalar entries %#x, dtype table lists %#x\n", have, want);
        } else {
            g_pass++;
        }
    }
}

void test_threadpool(long *pass, long *fail); /* test_threadpool.c */

int main(int argc, char **argv)
{
    /* Before anything initialises the library: a process's first call runs on the
     * detected tier (simdops_current_kernels once read the tier before detecting it). */
    float first[4] = {0.0f, 2.0f, 1.0f, 2.0f}, first_y[4];
    int first_ok = simdops_hardmax_rows(SIMDOPS_FLOAT32, first, first_y, 1, 4, NULL) == SIMDOPS_OK &&
                   first_y[1] == 1.0f && strcmp(simdops_last_call_isa(), simdops_isa()) == 0;
    uint64_t seed = 0x5eed5eedull;
    const char *require = NULL;
    int ntiers = simdops_tier_count(), required_found = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--require-native") && i + 1 < argc)
            require = argv[++i];
        else if (!strcmp(argv[i], "--elem-aligned"))
            g_elem_aligned = 1;
        else if (!strcmp(argv[i], "-v"))
            g_verbose = 1;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--require-native TIER] [--elem-aligned] [-v]\n",
                    argv[0]);
            return 2;
        }
    }
    rng_state = seed;
    simdops_init();
    init_dtypes();
    printf("simdops kernel harness: seed %#llx, cpu features \"%s\", %d tier(s) known\n",
           (unsigned long long)seed, simdops_cpu_features(), ntiers);
    if (first_ok) {
        g_pass++;
    } else {
        g_fail++;
        printf("FAIL the process's first call ran on %s, not the detected %s\n",
               simdops_last_call_isa(), simdops_isa());
    }
    check_scalar_table();
    simdops_test_public_api(&g_pass, &g_fail);

    for (int ti = 0; ti < ntiers; ti++) {
        const simdops_kernel_table *tab = simdops_tier_table(ti), *below_tab;
        const simdops_kernel_table *ref = simdops_scalar_kernels();
        const char *name = simdops_tier_name(ti);
        long pass0 = g_pass, fail0 = g_fail;
        int total = 0, native = 0;
        char natives[2048] = "", inherited[2048] = "";
        if (!simdops_tier_known(ti))
            continue; /* another architecture's tier */
        if (!tab) {
            printf("skipped tier %s (not compiled in, or not supported by this CPU)\n", name);
            continue;
        }
        below_tab = ti > 0 ? simdops_tier_table(simdops_tier_parent(ti)) : NULL;
        for (int k = 0; k < K_COUNT; k++) {
            char nat[512] = "", inh[512] = "";
            for (int idx = 0; idx < entry_count(k); idx++) {
                void (*fn)(void) = entry_fn(tab, k, idx);
                if (!fn)
                    continue;
                total++;
                if (below_tab && entry_fn(below_tab, k, idx) == fn) {
                    snprintf(inh + strlen(inh), sizeof(inh) - strlen(inh), " %s",
                             entry_tname(k, idx));
                    continue;
                }
                native++;
                snprintf(nat + strlen(nat), sizeof(nat) - strlen(nat), " %s", entry_tname(k, idx));
                {
                    target t;
                    t.tier = name;
                    t.entry = KIND_NAME(k);
                    t.tname = entry_tname(k, idx);
                    t.kind = k;
                    t.idx = idx;
                    t.fn = fn;
                    t.ref = entry_fn(ref, k, idx);
                    t.is_scalar = fn == t.ref;
                    if (!t.ref) {
                        fail_head(&t, "no scalar reference", 0, 0, 0);
                        printf("\n");
                        continue;
                    }
                    {
                        long f0 = g_fail, p0 = g_pass;
                        run_entry(&t);
                        if (g_verbose)
                            printf("  %s %s[%s]: %ld passed, %ld failed\n", name, KIND_NAME(k),
                                   t.tname, g_pass - p0, g_fail - f0);
                    }
                }
            }
            if (nat[0])
                snprintf(natives + strlen(natives), sizeof(natives) - strlen(natives), " %s[%s ]",
                         KIND_NAME(k), nat);
            if (inh[0])
                snprintf(inherited + strlen(inherited), sizeof(inherited) - strlen(inherited),
                         " %s[%s ]", KIND_NAME(k), inh);
        }
        printf("tier %-6s ran: %d/%d entries native, %ld passed, %ld failed\n", name, native,
               total, g_pass - pass0, g_fail - fail0);
        printf("  native:   %s\n", natives[0] ? natives : " (none)");
        printf("  inherited:%s\n", inherited[0] ? inherited : " (none)");
        if (require && !strcmp(require, name)) {
            required_found = 1;
            if (native != total) {
                target t = {name, "require-native", "-", 0, 0, 0, NULL, NULL};
                fail_head(&t, "entries inherited", 0, 0, 0);
                printf("%d of %d entries are not native\n", total - native, total);
            }
        }
    }
    if (require && !required_found) {
        target t = {require, "require-native", "-", 0, 0, 0, NULL, NULL};
        fail_head(&t, "tier did not run", 0, 0, 0);
        printf("\n");
    }
    test_threadpool(&g_pass, &g_fail);
    printf("%ld passed, %ld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
