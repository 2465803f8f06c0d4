/* Kernel harness: the unary ops with parameters (simdops_unary_fn, core/kernel_abi.h: the
 * entries whose SIMDOPS_KERNEL_ENTRIES line names test_unary) against the scalar tier.
 * Every parameter slot is drawn from x's type (edges, small values, random bits; never a
 * NaN: such an op's rule refuses it), and the data from the same mixes as clip's, with
 * values next to the parameters: every length to MAXN, byte offsets 0..63, in place and out
 * of place, canaries and an unmodified input (harness_ew.c's ew_case), and rows through the
 * strided driver's streaming path (stream_case).
 *
 * test_unary_selfcheck() runs the test once on a kernel written here, against itself and
 * against a mutant of it, so the test is exercised and shown able to fail on every build,
 * whether or not an op of the shape exists yet. */
#include "harness.h"
#include "driver/strided.h" /* simdops_stream_threshold */

enum { PARAM_DRAWS = 12 };

static const mix PARAM_MIX = {25, 50, 0}; /* bits, edges, (no near set); the rest small */

static int is_nan_bits(int dt, uint64_t b)
{
    const float_format *f = DT[dt].fmt;
    uint64_t man = (1ull << f->man_bits) - 1, exp = ((1ull << f->exp_bits) - 1) << f->man_bits;
    return DT[dt].is_float && (b & exp) == exp && (b & man);
}

/* the simdops_value holding bits of dt (value_bits' inverse) */
static simdops_value value_of(int dt, uint64_t bits)
{
    simdops_value v;
    memset(&v, 0, sizeof v);
    if (dt == SIMDOPS_FLOAT16)
        v.f32 = simdops_f16_to_f32((uint16_t)bits);
    else
        put_elem(&v, 0, DT[dt].size, bits);
    return v;
}

static void draw_params(int dt, simdops_unary_params *p, nearset *ns)
{
    ns->count = 0;
    for (int k = 0; k < SIMDOPS_UNARY_PARAMS; k++) {
        uint64_t b;
        do
            b = gen_value(dt, &PARAM_MIX, NULL);
        while (DT[dt].is_float && is_nan_bits(dt, b));
        p->v[k] = value_of(dt, b);
        near_add(ns, dt, b);
    }
}

void test_unary(const target *t)
{
    const int dt = t->idx;
    unsigned char x[MAXN * 8];
    simdops_unary_params p;
    nearset ns;
    /* every length, out of place and in place, random offsets */
    for (int d = 0; d < PARAM_DRAWS; d++) {
        draw_params(dt, &p, &ns);
        for (size_t n = 0; n <= MAXN; n++) {
            gen_data(x, n, dt, &MIXES[(n + (size_t)d) % NMIX], &ns);
            ew_case(t, &p, x, n, rand_off(), rand_off(), rand_off());
        }
    }
    /* every byte offset 0..63 of input and output on a few lengths */
    {
        static const size_t LENS[] = {7, 40, 130};
        for (size_t li = 0; li < 3; li++)
            for (size_t off = 0; off < 64; off++) {
                draw_params(dt, &p, &ns);
                gen_data(x, LENS[li], dt, &MIXES[off % NMIX], &ns);
                ew_case(t, &p, x, LENS[li], off, (off * 29 + 7) & 63, (off + 32) & 63);
            }
    }
    /* rows past the stream threshold (lowered to 1 KiB here): the driver's
     * non-temporal path, blocks and a tail */
    {
        enum { STREAM_ROW_BYTES = 3 * 16384 + 4096 + 200 };
        static unsigned char xs[STREAM_ROW_BYTES + 64];
        const size_t saved = simdops_stream_threshold;
        simdops_stream_threshold = 1024;
        for (int rep = 0; rep < 3; rep++) {
            draw_params(dt, &p, &ns);
            gen_data(xs, STREAM_ROW_BYTES / (size_t)DT[dt].size - (size_t)rep, dt,
                     &MIXES[(size_t)rep % NMIX], &ns);
            stream_case(t, &p, xs, STREAM_ROW_BYTES / (size_t)DT[dt].size - (size_t)rep,
                        rand_off(), rep ? rand_off() : 0);
        }
        simdops_stream_threshold = saved;
    }
}

/* ---------------------------------------------------------------- self-check
 * A kernel of the shape for any dtype: y = x, except that an element whose bits equal
 * v[0]'s becomes v[1] (the element size comes from g_size: the signature has no dtype).
 * The mutant forgets the replacement in the last element of a call, a tail's mistake. */
static int g_size;

static void replace_kernel(const void *x, void *y, size_t n, const simdops_unary_params *p,
                           size_t upto)
{
    const uint64_t from = get_elem(&p->v[0], 0, g_size), to = get_elem(&p->v[1], 0, g_size);
    for (size_t i = 0; i < n; i++) {
        const uint64_t e = get_elem(x, i, g_size);
        put_elem(y, i, g_size, i < upto && e == from ? to : e);
    }
}

static void replace_ref(const void *x, void *y, size_t n, const simdops_unary_params *p)
{
    replace_kernel(x, y, n, p, n);
}

static void replace_mutant(const void *x, void *y, size_t n, const simdops_unary_params *p)
{
    replace_kernel(x, y, n, p, n ? n - 1 : 0);
}

void test_unary_selfcheck(void)
{
    static const int DTS[] = {SIMDOPS_INT8, SIMDOPS_INT32, SIMDOPS_FLOAT32, SIMDOPS_FLOAT64};
    long same = 0, mutant = 0;
    for (size_t k = 0; k < sizeof(DTS) / sizeof(DTS[0]); k++) {
        const int dt = DTS[k];
        target t = {"harness", "test_unary self-check", DT[dt].name, K_COUNT, dt, 1,
                    (void (*)(void))replace_ref, (void (*)(void))replace_ref};
        long f0 = g_fail, p0 = g_pass;
        int printed = g_printed;
        g_size = DT[dt].size;
        test_unary(&t); /* the kernel against itself: passes */
        same += g_pass - p0;
        if (g_fail != f0 || g_pass == p0)
            printf("FAIL test_unary self-check[%s]: %ld of %ld cases failed on a kernel against "
                   "itself\n", DT[dt].name, g_fail - f0, g_pass - p0 + g_fail - f0);
        /* the mutant: must fail; its failures are the check's, not the run's */
        f0 = g_fail;
        p0 = g_pass;
        g_printed = MAX_PRINTED; /* quiet */
        t.fn = (void (*)(void))replace_mutant;
        t.is_scalar = 0;
        test_unary(&t);
        {
            const long caught = g_fail - f0;
            mutant += caught;
            g_fail = f0;
            g_pass = p0;
            g_printed = printed;
            if (caught)
                g_pass++;
            else {
                g_fail++;
                printf("FAIL test_unary self-check[%s]: a mutant (the last element not "
                       "replaced) passed\n", DT[dt].name);
            }
        }
    }
    printf("test_unary self-check (int8, int32, float32, float64): a kernel against itself "
           "%ld passed; its mutant failed %ld cases\n", same, mutant);
}
