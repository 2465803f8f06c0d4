/* The kernel harness's shared parts (declared in harness.h). */
#if !defined(_WIN32) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS under -std=c11 */
#endif
#include "harness.h"

/* ---------------------------------------------------------------- rng */
uint64_t rng_state;
uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }
int chance(int percent) { return (int)below(100) < percent; }

dinfo DT[SIMDOPS_DTYPE_COUNT];
/* requant output slots: size and range of each output type */
int RQ_SIZE[SIMDOPS_RQ_COUNT];
int32_t RQ_LO[SIMDOPS_RQ_COUNT], RQ_HI[SIMDOPS_RQ_COUNT];

/* Edge values of each float format. */
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

static uint64_t f32_from_double(double v)
{
    float f = fabs(v) >= 3.5e38 ? (v < 0 ? -INFINITY : INFINITY) : (float)v;
    return simdops_f32_bits(f);
}
static uint64_t f16_from_double(double v) { return simdops_f64_to_f16(v); }
static uint64_t f64_from_double(double v) { return simdops_f64_bits(v); }

#define N_EDGES(a) (int)(sizeof(a) / sizeof(a[0]))
/* The float types the harness makes values of; a float type of the dtype table that
 * is missing here stops the harness (init_dtypes), as its values would be wrong. */
static const float_format FLOAT_FORMATS[] = {
    {SIMDOPS_FLOAT32, 8, 23, EDGE_F32, N_EDGES(EDGE_F32), f32_from_double},
    {SIMDOPS_FLOAT16, 5, 10, EDGE_F16, N_EDGES(EDGE_F16), f16_from_double},
    {SIMDOPS_FLOAT64, 11, 52, EDGE_F64, N_EDGES(EDGE_F64), f64_from_double},
};

int init_dtypes(void)
{
    int bad = 0;
    for (int d = 0; d < SIMDOPS_DTYPE_COUNT; d++) {
        const simdops_dtype_row *r = &simdops_dtype_rows[d];
        dinfo *di = &DT[d];
        di->name = d ? r->name : "?";
        di->size = r->size;
        di->is_float = r->is_float;
        di->is_signed = r->is_signed;
        di->fmt = NULL;
        if (!d)
            continue;
        if (r->is_float) {
            for (size_t k = 0; k < sizeof(FLOAT_FORMATS) / sizeof(FLOAT_FORMATS[0]); k++)
                if (FLOAT_FORMATS[k].dtype == (simdops_dtype)d)
                    di->fmt = &FLOAT_FORMATS[k];
            if (!di->fmt || 1 + di->fmt->exp_bits + di->fmt->man_bits != 8 * r->size) {
                printf("FAIL dtype %s: a %d-byte float type the harness has no edge values or "
                       "NaN payloads for (add its bit layout to FLOAT_FORMATS in "
                       "csrc/tests/harness.c)\n", r->name, r->size);
                bad = 1;
            }
        } else if (!simdops_dtype_int_range((simdops_dtype)d, &di->lo, &di->hi)) {
            printf("FAIL dtype %s: an integer type without an integer range\n", r->name);
            bad = 1;
        }
        if (r->requant_slot >= 0) {
            RQ_SIZE[r->requant_slot] = r->size;
            RQ_LO[r->requant_slot] = (int32_t)r->lo;
            RQ_HI[r->requant_slot] = (int32_t)r->hi;
        }
    }
    return bad;
}

uint64_t mask_of(int size) { return size == 8 ? ~0ull : (1ull << (8 * size)) - 1; }
uint64_t sign_bit(int size) { return 1ull << (8 * size - 1); }

uint64_t get_elem(const void *buf, size_t i, int size)
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

void put_elem(void *buf, size_t i, int size, uint64_t v)
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
uint64_t dbl_bits(int dt, double v)
{
    const dinfo *d = &DT[dt];
    if (d->is_float)
        return d->fmt->from_double(v);
    if (v != v)
        return 0;
    v = trunc(v);
    if (d->is_signed) {
        int64_t r = v <= (double)d->lo ? d->lo : v >= (double)(int64_t)d->hi ? (int64_t)d->hi
                                                                              : (int64_t)v;
        return (uint64_t)r & mask_of(d->size);
    }
    return v <= 0 ? 0 : v >= (double)d->hi ? d->hi : (uint64_t)v;
}

/* The bits of a parameter value (float16 is stored widened in .f32). */
uint64_t value_bits(int dt, simdops_value v)
{
    if (dt == SIMDOPS_FLOAT16)
        return simdops_f32_to_f16(v.f32);
    return get_elem(&v, 0, DT[dt].size);
}

uint64_t edge_value(int dt)
{
    const dinfo *d = &DT[dt];
    if (d->is_float) {
        const float_format *f = d->fmt;
        uint64_t man = (1ull << f->man_bits) - 1, exp = ((1ull << f->exp_bits) - 1) << f->man_bits;
        if (chance(25)) /* NaN with a random payload (quiet or signalling) and sign */
            return (rnd() & (sign_bit(d->size) | man)) | exp | 1;
        return f->edges[below((uint32_t)f->n_edges)];
    }
    {
        uint64_t m = mask_of(d->size), sb = sign_bit(d->size);
        uint64_t mn = (uint64_t)d->lo & m, mx = d->hi & m;
        uint64_t c[] = {0, 1, m, mn, mx, mn + 1, mx - 1, sb, sb - 1, 2, m - 1, 0x7f, 0x80, 0xff};
        return c[below(sizeof(c) / 8)] & m;
    }
}

uint64_t small_value(int dt)
{
    if (DT[dt].is_float) {
        double v = (double)((int)below(513) - 256) / (double)(1u << below(9));
        return dbl_bits(dt, v);
    }
    return (uint64_t)((int64_t)below(601) - 300) & mask_of(DT[dt].size);
}


void near_add(nearset *s, int dt, uint64_t v)
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


const mix MIXES[NMIX] = {{100, 0, 0}, {25, 25, 25}, {0, 30, 40}, {0, 0, 0}, {10, 10, 60},
                            {0, 100, 0}, {50, 0, 50}};

uint64_t gen_value(int dt, const mix *mx, const nearset *ns)
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

void gen_data(void *buf, size_t n, int dt, const mix *mx, const nearset *ns)
{
    for (size_t i = 0; i < n; i++)
        put_elem(buf, i, DT[dt].size, gen_value(dt, mx, ns));
}

/* ---------------------------------------------------------------- results */
long g_pass, g_fail;
int g_verbose, g_elem_aligned;
int g_printed;


void fail_head(const target *t, const char *what, size_t n, size_t o1, size_t o2)
{
    g_fail++;
    if (g_printed++ < MAX_PRINTED)
        printf("FAIL %s %s[%s] %s n=%zu off=%zu/%zu: ", t->tier, t->entry, t->tname, what, n, o1,
               o2);
}

int printing(void) { return g_printed <= MAX_PRINTED; }

/* A canary-filled block of size bytes that ends exactly where a PROT_NONE
 * page begins, with another PROT_NONE page before its first page: a kernel
 * that reads or writes past either end faults, on every tier, without ASan.
 * The block's start is then only as aligned as size makes it (callers add
 * their own offsets; element alignment follows from sizes that are multiples
 * of the element). Windows (no mmap): a 64-byte aligned heap block, with the
 * canaries only. */
#if defined(_WIN32)
unsigned char *alloc_buf(size_t size)
{
    void *p;
    if (size == 0)
        size = 1;
    p = _aligned_malloc(size, 64);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, CANARY, size);
    return (unsigned char *)p;
}

void free_buf(void *p) { _aligned_free(p); }
#else
#include <sys/mman.h>
#include <unistd.h>

/* Live blocks: the mapping behind each pointer alloc_buf returned. */
enum { MAX_LIVE = 256 };
static struct {
    unsigned char *user, *map;
    size_t len;
} live[MAX_LIVE];

unsigned char *alloc_buf(size_t size)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t body, len;
    unsigned char *map, *user;
    if (size == 0)
        size = 1;
    body = (size + page - 1) / page * page;
    len = body + 2 * page;
    map = (unsigned char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                -1, 0);
    if (map == (unsigned char *)MAP_FAILED || mprotect(map, page, PROT_NONE) != 0 ||
        mprotect(map + page + body, page, PROT_NONE) != 0) {
        fprintf(stderr, "alloc_buf: mmap/mprotect failed\n");
        exit(2);
    }
    user = map + page + (body - size);
    for (int i = 0; i < MAX_LIVE; i++) {
        if (!live[i].user) {
            live[i].user = user;
            live[i].map = map;
            live[i].len = len;
            memset(user, CANARY, size);
            return user;
        }
    }
    fprintf(stderr, "alloc_buf: more than %d live buffers\n", MAX_LIVE);
    exit(2);
}

void free_buf(void *p)
{
    if (!p)
        return;
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live[i].user == p) {
            munmap(live[i].map, live[i].len);
            live[i].user = NULL;
            return;
        }
    }
    fprintf(stderr, "free_buf: %p was not allocated by alloc_buf\n", p);
    exit(2);
}
#endif

int canary_ok(const unsigned char *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (p[i] != CANARY)
            return 0;
    return 1;
}

size_t adjust_off(const target *t, size_t off, int align)
{
    if (t->is_scalar || g_elem_aligned)
        return off - off % (size_t)align;
    return off;
}


/* Designated fields: positional initialisers silently shifted when simdops_number
 * gained its `negative` field, and every parameter of this harness became 0. */
simdops_number numf(double f)
{
    simdops_number n = {.kind = SIMDOPS_NUM_FLOAT, .f = f};
    return n;
}
simdops_number numi(int64_t i)
{
    simdops_number n = {.kind = SIMDOPS_NUM_INT, .i = i};
    return n;
}
simdops_number numu(uint64_t u)
{
    simdops_number n = {.kind = SIMDOPS_NUM_UINT, .u = u};
    return n;
}


void report_diff(const void *x, const void *want, const void *got, size_t n, int xs, int ys)
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

size_t rand_off(void) { return below(64); }
