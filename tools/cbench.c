/* Kernel micro-benchmark in C: min-of-many, interleaved, each case against
 * memcpy of the same bytes (what np.copyto does for contiguous arrays).
 * Build: bash tools/cbench.sh (links the C harness objects). Run: /tmp/kb/cbench [filter] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simdops/simdops.h"
#include "internal.h"
#include "kernels/stream_store.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

typedef void (*fn)(void *);

static double time_once(fn f, void *a, int reps)
{
    double t0 = now();
    for (int i = 0; i < reps; i++)
        f(a);
    return (now() - t0) / reps;
}

static void mk2(simdops_tensor *t, void *d, simdops_dtype dt, int64_t r, int64_t c, int es)
{
    memset(t, 0, sizeof *t);
    t->data = d;
    t->dtype = dt;
    t->ndim = 2;
    t->shape[0] = r;
    t->shape[1] = c;
    t->strides[0] = c * es;
    t->strides[1] = es;
}

typedef struct ctx {
    simdops_tensor x, y;
    void *xd, *yd, *cd;
    size_t bytes, ybytes;
    int axis;
    simdops_number a, b;
    simdops_requant_args rq;
    simdops_tensor mt, st, bt;
} ctx;

static void do_copy(void *p) { ctx *c = p; memcpy(c->cd, c->xd, c->bytes); }
static void do_hardmax(void *p) { ctx *c = p; simdops_hardmax(&c->x, &c->y, 1, &c->axis); }
static void do_shrink(void *p) { ctx *c = p; simdops_shrink(&c->x, &c->y, c->a, c->b); }
static void do_clip(void *p) { ctx *c = p; simdops_clip(&c->x, &c->y, c->a, c->b, NULL); }
static void do_rq(void *p) { ctx *c = p; simdops_requant(&c->x, &c->y, &c->rq); }
static void do_cast(void *p)
{
    ctx *c = p;
    const int32_t *x = c->xd;
    uint8_t *y = c->cd;
    for (size_t i = 0; i < c->bytes / 4; i++)
        y[i] = (uint8_t)x[i];
}

static void run(const char *label, fn f, fn base, ctx *c, int rounds)
{
    double bf = 1e9, bb = 1e9;
    int rf, rb;
    f(c);
    base(c);
    rf = (int)(0.01 / time_once(f, c, 1)) + 1;
    rb = (int)(0.01 / time_once(base, c, 1)) + 1;
    for (int r = 0; r < rounds; r++) {
        double t;
        if (r & 1) {
            t = time_once(f, c, rf); if (t < bf) bf = t;
            t = time_once(base, c, rb); if (t < bb) bb = t;
        } else {
            t = time_once(base, c, rb); if (t < bb) bb = t;
            t = time_once(f, c, rf); if (t < bf) bf = t;
        }
    }
    printf("%-44s op %9.1f us  base %9.1f us  ratio %5.2f\n", label, bf * 1e6, bb * 1e6, bb / bf);
    fflush(stdout);
}

static float frand(void) { return (float)rand() / RAND_MAX * 2 - 1; }

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "";
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    if (argc > 3)
        simdops_use_isa(argv[3]);
    if (getenv("STREAM"))
        simdops_stream_threshold = (size_t)atoll(getenv("STREAM"));
    ctx c;
    size_t maxb = (size_t)64 << 20;
    c.xd = aligned_alloc(4096, maxb);
    c.yd = aligned_alloc(4096, maxb);
    c.cd = aligned_alloc(4096, maxb);
    /* numpy places large buffers 16 bytes past a page: do the same */
    c.xd = (char *)c.xd + 16;
    c.yd = (char *)c.yd + 16;
    c.cd = (char *)c.cd + 16;
    memset(c.yd, 1, maxb - 16);
    memset(c.cd, 1, maxb - 16);
    {
        float *xf = c.xd;
        for (size_t i = 0; i < (maxb - 16) / 4; i++)
            xf[i] = frand();
    }
    printf("isa %s\n", simdops_isa());
    struct { const char *label; int64_t r, cols; int axis; } hm[] = {
        {"hardmax f32 1024x1024 axis 1", 1024, 1024, 1},
        {"hardmax f32 4096x1024 axis 1", 4096, 1024, 1},
        {"hardmax f32 1024x4096 axis 0", 1024, 4096, 0},
    };
    for (int k = 0; k < 3; k++) {
        if (!strstr(hm[k].label, only))
            continue;
        mk2(&c.x, c.xd, SIMDOPS_FLOAT32, hm[k].r, hm[k].cols, 4);
        mk2(&c.y, c.yd, SIMDOPS_FLOAT32, hm[k].r, hm[k].cols, 4);
        c.axis = hm[k].axis;
        c.bytes = hm[k].r * hm[k].cols * 4;
        run(hm[k].label, do_hardmax, do_copy, &c, rounds);
    }
    struct { const char *label; simdops_dtype dt; int es; int64_t n; fn f; double a, b; } ew[] = {
        {"shrink f16 b=.5 1M", SIMDOPS_FLOAT16, 2, 1 << 20, do_shrink, 0.5, 0.5},
        {"shrink f16 b=.5 64K", SIMDOPS_FLOAT16, 2, 1 << 16, do_shrink, 0.5, 0.5},
        {"shrink f32 1M", SIMDOPS_FLOAT32, 4, 1 << 20, do_shrink, 0.5, 0.5},
        {"shrink f32 16M", SIMDOPS_FLOAT32, 4, 1 << 24, do_shrink, 0.5, 0.5},
        {"clip f32 1M", SIMDOPS_FLOAT32, 4, 1 << 20, do_clip, -1.0, 1.0},
        {"clip f32 16M", SIMDOPS_FLOAT32, 4, 1 << 24, do_clip, -1.0, 1.0},
    };
    for (int k = 0; k < 6; k++) {
        if (!strstr(ew[k].label, only))
            continue;
        if (ew[k].dt == SIMDOPS_FLOAT16) { /* halves from the floats */
            uint16_t *h = c.xd;
            for (int64_t i = 0; i < ew[k].n; i++)
                h[i] = (uint16_t)(0x3800 + (rand() & 0x7ff)) | (rand() & 1 ? 0x8000 : 0);
        }
        mk2(&c.x, c.xd, ew[k].dt, 1, ew[k].n, ew[k].es);
        mk2(&c.y, c.yd, ew[k].dt, 1, ew[k].n, ew[k].es);
        c.a.kind = c.b.kind = SIMDOPS_NUM_FLOAT;
        c.a.f = ew[k].a;
        c.b.f = ew[k].b;
        c.bytes = ew[k].n * ew[k].es;
        run(ew[k].label, ew[k].f, do_copy, &c, rounds);
    }
    if (strstr("requant per-tensor / pc", only) || strstr(only, "requant")) {
        int64_t n = 1 << 20, ch = 256;
        int32_t *xi = c.xd, mult[256], shift[256], bias[256];
        for (int64_t i = 0; i < n; i++)
            xi[i] = rand() % 300000 - 150000;
        for (int k = 0; k < ch; k++) {
            mult[k] = 1100000000 + k * 1000000;
            shift[k] = 10 + (k & 1);
            bias[k] = 40 * (k - 128);
        }
        c.bytes = n * 4;
        mk2(&c.x, c.xd, SIMDOPS_INT32, 1, n, 4);
        mk2(&c.y, c.yd, SIMDOPS_UINT8, 1, n, 1);
        memset(&c.rq, 0, sizeof c.rq);
        c.rq.multiplier = 1125899907;
        c.rq.shift = 9;
        c.rq.offset = 100;
        run("requant per-tensor vs cast i32->u8", do_rq, do_cast, &c, rounds);
        {
            ctx d = c;
            mk2(&d.x, d.xd, SIMDOPS_INT32, n / ch, ch, 4);
            mk2(&d.y, d.yd, SIMDOPS_UINT8, n / ch, ch, 1);
            mk2(&d.mt, mult, SIMDOPS_INT32, 1, ch, 4);
            d.mt.ndim = 1; d.mt.shape[0] = ch; d.mt.strides[0] = 4;
            d.st = d.mt; d.st.data = shift;
            d.bt = d.mt; d.bt.data = bias;
            d.rq.multipliers = &d.mt;
            d.rq.shifts = &d.st;
            d.rq.bias = &d.bt;
            d.rq.min = 10;
            d.rq.max = 245;
            /* baseline: per-tensor on the same ctx, swapped in through a wrapper */
            static ctx pt;
            pt = c;
            {
                double bf = 1e9, bb = 1e9;
                for (int r = 0; r < rounds; r++) {
                    double t = time_once(do_rq, &d, 20); if (t < bf) bf = t;
                    t = time_once(do_rq, &pt, 20); if (t < bb) bb = t;
                }
                printf("%-44s op %9.1f us  base %9.1f us  ratio %5.2f\n",
                       "requant pc+bias vs per-tensor", bf * 1e6, bb * 1e6, bb / bf);
            }
        }
    }
    return 0;
}
