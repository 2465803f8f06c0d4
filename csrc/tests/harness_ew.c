/* Kernel harness: one call of an elementwise entry (clip, clip with ScaleBias,
 * shrink, and every entry of the unary shape, simdops_unary_fn) checked against
 * the scalar tier's output, shared by test_elementwise.c and test_unary.c: out
 * of place and in place at byte offsets with canaries around the output and an
 * untouched input (ew_case), and through the strided driver's streaming path
 * (stream_case). */
#include "harness.h"
#include "driver/strided.h"

/* The entry's call: p points at the kind's params struct; every kind other than
 * clip's and shrink's has the unary shape. */
static void call_ew(int kind, void (*fn)(void), const void *x, void *y, size_t n, const void *p)
{
    if (kind == K_SHRINK)
        ((simdops_shrink_fn)fn)(x, y, n, (const simdops_shrink_params *)p);
    else if (kind == K_CLIP || kind == K_CLIP_SB)
        ((simdops_clip_fn)fn)(x, y, n, (const simdops_clip_params *)p);
    else
        ((simdops_unary_fn)fn)(x, y, n, (const simdops_unary_params *)p);
}

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
    } else if (kind == K_CLIP || kind == K_CLIP_SB) {
        const simdops_clip_params *p = (const simdops_clip_params *)pv;
        printf("  params min=%#llx max=%#llx scale=%a bias=%a\n",
               U(value_bits(dt, p->min)), U(value_bits(dt, p->max)),
               (double)p->scale, (double)p->bias);
    } else {
        const simdops_unary_params *p = (const simdops_unary_params *)pv;
        printf("  params (bits):");
        for (int k = 0; k < SIMDOPS_UNARY_PARAMS; k++)
            printf(" %#llx", U(value_bits(dt, p->v[k])));
        printf("\n");
    }
}

/* The strided driver over one contiguous row of a tier's kernel: with the
 * stream threshold lowered, the driver's streaming path (kernel blocks into
 * an L1 buffer, streamed out) runs under every tier's kernels. */
typedef struct driver_ctx {
    int kind;
    void (*fn)(void);
    const void *p;
} driver_ctx;

static void driver_row(const void *x, void *y, size_t n, size_t k0, const void *ctx)
{
    const driver_ctx *c = (const driver_ctx *)ctx;
    (void)k0;
    call_ew(c->kind, c->fn, x, y, n, c->p);
}

/* One call's output: y (at yoff in yb, TRAIL canary bytes after it) equals want,
 * its canaries are intact and inputs_ok holds: a pass, else a report naming what. */
static void expect_out(const target *t, const char *what, const void *p, const unsigned char *x,
                       const unsigned char *want, const unsigned char *yb, size_t n, size_t xoff,
                       size_t yoff, int inputs_ok)
{
    const int es = DT[t->idx].size;
    const size_t bytes = n * (size_t)es;
    if (memcmp(yb + yoff, want, bytes) == 0 && canary_ok(yb, 0, yoff) &&
        canary_ok(yb, yoff + bytes, yoff + bytes + TRAIL) && inputs_ok) {
        g_pass++;
    } else {
        fail_head(t, what, n, xoff, yoff);
        report_diff(x, want, yb + yoff, n, es, es);
        print_params(t->kind, t->idx, p);
    }
}

void stream_case(const target *t, const void *p, const unsigned char *x, size_t n, size_t xoff,
                 size_t yoff)
{
    const int es = DT[t->idx].size;
    const size_t bytes = n * (size_t)es;
    unsigned char *want = alloc_buf(bytes), *xb, *yb;
    simdops_tensor xt, yt;
    driver_ctx c;
    call_ew(t->kind, t->ref, x, want, n, p);
    xoff = xoff / (size_t)es * (size_t)es; /* element-aligned rows take the direct path */
    yoff = yoff / (size_t)es * (size_t)es;
    xb = alloc_buf(xoff + bytes);
    yb = alloc_buf(yoff + bytes + TRAIL);
    memcpy(xb + xoff, x, bytes);
    memset(&xt, 0, sizeof(xt));
    xt.data = xb + xoff;
    xt.dtype = (simdops_dtype)t->idx;
    xt.ndim = 1;
    xt.shape[0] = (int64_t)n;
    xt.strides[0] = es;
    yt = xt;
    yt.data = yb + yoff;
    c.kind = t->kind;
    c.fn = t->fn;
    c.p = p;
    simdops_elementwise(&xt, &yt, 0, driver_row, &c);
    expect_out(t, "streaming driver", p, x, want, yb, n, xoff, yoff,
               memcmp(xb + xoff, x, bytes) == 0);
    free_buf(xb);
    free_buf(yb);
    free_buf(want);
}

void ew_case(const target *t, const void *p, const unsigned char *x, size_t n, size_t xoff,
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
    expect_out(t, "out-of-place", p, x, want, yb, n, xoff, yoff,
               canary_ok(xb, 0, xoff) && memcmp(xb + xoff, x, bytes) == 0);
    free_buf(xb);
    free_buf(yb);

    yb = alloc_buf(ioff + bytes + TRAIL);
    if (bytes)
        memcpy(yb + ioff, x, bytes);
    call_ew(t->kind, t->fn, yb + ioff, yb + ioff, n, p);
    expect_out(t, "in-place", p, x, want, yb, n, ioff, ioff, 1);
    free_buf(yb);
    free_buf(want);
}
