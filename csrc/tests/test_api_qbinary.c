/* Quantized add / subtract / multiply through the N-d entry (simdops_qbinary) on
 * every available tier, with a per-channel vector broadcast along the last axis:
 * the driver's periodic path (one input a tile of repeated rows, the other and y
 * one long row, so a call makes kernel calls of up to 64 KiB each against the tile
 * binary.c keeps between calls, or 8 KiB against one built for the call; their
 * parameters derived once, kernel_abi.h's plan slot), b broadcast and a broadcast, out
 * aliasing the full-shape input, 1 or 2 threads. Each result is compared with the
 * scalar tier's kernel over the broadcast inputs written out in full (the
 * reference), and for TFLite's 8-bit add the elements whose V lies in the AVX-512
 * rows' window (recomputed by the rows) are counted: none would leave the rows'
 * fallback untested, and the test fails. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "driver/binary.h"
#include "driver/threadpool.h"
#include "kernels/qbinary/qbinary_plan.h"
#include "kernels/registry.h"
#include "rules/qbinary.h"

#define API_EXPECT_LABEL "api qbinary"
#include "api_expect.h"

static uint32_t g_seed = 12345u;
static uint32_t next_rand(void)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed >> 8;
}

static simdops_qbinary_fn scalar_kernel(int kind, simdops_dtype dt)
{
    const simdops_kernel_table *kt = simdops_scalar_kernels();
    switch (kind) {
    case SIMDOPS_QB_TFLITE_ADD: return kt->qadd_tflite[dt];
    case SIMDOPS_QB_TFLITE_MUL: return kt->qmul_tflite[dt];
    case SIMDOPS_QB_XNNPACK_ADD: return kt->qadd_xnnpack[dt];
    case SIMDOPS_QB_FP_MUL: return kt->qmul_fp[dt];
    default: return kt->qadd_ort[dt];
    }
}

static simdops_tensor view(void *data, simdops_dtype dt, int ndim, int64_t rows, int64_t cols)
{
    simdops_tensor t;
    memset(&t, 0, sizeof(t));
    t.data = data;
    t.dtype = dt;
    t.ndim = ndim;
    if (ndim == 2) {
        t.shape[0] = rows;
        t.shape[1] = cols;
        t.strides[0] = cols;
        t.strides[1] = 1;
    } else {
        t.shape[0] = cols;
        t.strides[0] = 1;
    }
    return t;
}

/* One call: rows x cols against the vector vec (cols elements), which is b (vec_b)
 * or a; alias: y is the full input. */
static void bcast_case_with(const simdops_qbinary_args *args, simdops_dtype dt, size_t rows,
                            size_t cols, int vec_b, int alias, const unsigned char *vec,
                            long *flagged)
{
    const size_t n = rows * cols;
    unsigned char *full = malloc(n), *fa = malloc(n), *fb = malloc(n);
    unsigned char *want = malloc(n), *got = malloc(n + 64);
    simdops_qbinary_params p;
    simdops_tensor tf, tv, ty;
    simdops_error err;
    char what[200];
    int s;
    const unsigned char tlo = dt == SIMDOPS_UINT8 ? 0x00 : 0x80, thi = tlo ^ 0xFF; /* the type's ends */
    for (size_t i = 0; i < n; i++) /* a seventh of them at the type's ends: saturation */
        full[i] = next_rand() % 7 == 0 ? (next_rand() & 1 ? tlo : thi) : (unsigned char)next_rand();
    /* the reference: the scalar kernel over both inputs in full */
    for (size_t i = 0; i < n; i++) {
        fa[i] = vec_b ? full[i] : vec[i % cols];
        fb[i] = vec_b ? vec[i % cols] : full[i];
    }
    memset(&err, 0, sizeof(err));
    if (simdops_qbinary_params_init(dt, args, &p, &err) != SIMDOPS_OK) {
        snprintf(what, sizeof(what), "qbinary parameters of the broadcast test: reason %s",
                 simdops_reason_name(err.reason));
        expect(0, what);
        goto done;
    }
    scalar_kernel(p.kind, dt)(fa, fb, want, n, SIMDOPS_QB_VV, &p);
    if (p.kind == SIMDOPS_QB_TFLITE_ADD && p.plan.u.tfl_add.pairs) { /* the rows' window, as they test it */
        qb_tfl_plan tp;
        qb_tfl_plan_init(&tp, &p, dt == SIMDOPS_UINT8);
        for (size_t i = 0; i < n; i++) {
            int32_t a = dt == SIMDOPS_UINT8 ? fa[i] : (int8_t)fa[i];
            int32_t b = dt == SIMDOPS_UINT8 ? fb[i] : (int8_t)fb[i];
            *flagged += ((uint32_t)((int64_t)a * tp.ma + (int64_t)b * tp.mb + tp.bias) &
                         tp.window) == 0;
        }
    }
    memset(got, 0xA5, n + 64);
    if (alias)
        memcpy(got, full, n);
    tf = view(alias ? got : full, dt, 2, (int64_t)rows, (int64_t)cols);
    tv = view((void *)vec, dt, 1, 1, (int64_t)cols);
    ty = view(got, dt, 2, (int64_t)rows, (int64_t)cols);
    s = vec_b ? simdops_qbinary(&tf, &tv, &ty, args, &err)
              : simdops_qbinary(&tv, &tf, &ty, args, &err);
    snprintf(what, sizeof(what),
             "%s: kind %d dtype %d %zux%zu %s broadcast%s differs from the scalar kernel",
             simdops_isa(), p.kind, (int)dt, rows, cols, vec_b ? "b" : "a",
             alias ? " (out = the full input)" : "");
    expect(s == SIMDOPS_OK && memcmp(want, got, n) == 0 && got[n] == 0xA5 && got[n + 63] == 0xA5,
           what);
done:
    free(full);
    free(fa);
    free(fb);
    free(want);
    free(got);
}

/* One call against a random vector of its own (a new buffer, new bytes) */
static void bcast_case(const simdops_qbinary_args *args, simdops_dtype dt, size_t rows,
                       size_t cols, int vec_b, int alias, long *flagged)
{
    unsigned char *vec = malloc(cols);
    for (size_t j = 0; j < cols; j++)
        vec[j] = (unsigned char)next_rand();
    bcast_case_with(args, dt, rows, cols, vec_b, alias, vec, flagged);
    free(vec);
}

/* The tile binary.c keeps between calls (exact only if a call takes it for the very
 * bytes it was built from): calls against one vector buffer whose bytes stay or change
 * at one address. The same bytes (taken); then one byte changed, at the period's end
 * (the mutant SIMDOPS_BINARY_MUTANT_KEPT_CMP compares all but a period's last byte and
 * takes the stale tile: these rows fail it), and at its start; more rows than the tile
 * was built for (built longer) and fewer (taken); a shorter period whose bytes are the
 * longer one's first (built again); and the same calls with the kept tile held by this
 * test, so each call builds its own on the stack. */
static void kept_tile_cases(const simdops_qbinary_args *args, simdops_dtype dt, long *flagged)
{
    static const size_t rows[] = {3, 3, 3, 3, 300, 40, 600, 300}; /* 600 x 256: past 64 KiB */
    enum { COLS = 256 };
    unsigned char *vec = malloc(COLS);
    for (int held = 0; held < 2; held++) {
        if (held)
            expect(simdops_binary_kept_tile_hold(1), "qbinary kept tile: not free to hold");
        for (size_t j = 0; j < COLS; j++)
            vec[j] = (unsigned char)next_rand();
        for (int k = 0; k < 8; k++) {
            if (k == 2)
                vec[COLS - 1] ^= 0x5A; /* the period's last byte */
            if (k == 3)
                vec[0] ^= 0x81;
            if (k == 5)
                vec[COLS - 1] ^= 0x01;
            bcast_case_with(args, dt, rows[k], COLS, k & 1, 0, vec, flagged);
        }
        /* a shorter period, its bytes the longer one's first: a tile of the longer
         * period must not serve it */
        bcast_case_with(args, dt, 200, COLS / 2, 1, 0, vec, flagged);
        bcast_case_with(args, dt, 200, COLS, 1, 0, vec, flagged);
        bcast_case_with(args, dt, 200, COLS / 2, 0, 0, vec, flagged);
        if (held)
            simdops_binary_kept_tile_hold(0);
    }
    free(vec);
}

static void random_args(simdops_qbinary_args *a, simdops_dtype dt, int bench_numbers)
{
    static const int arith[] = {SIMDOPS_ARITH_TFLITE, SIMDOPS_ARITH_TFLITE, SIMDOPS_ARITH_XNNPACK,
                                SIMDOPS_ARITH_ONNXRUNTIME};
    memset(a, 0, sizeof(*a));
    a->arithmetic = arith[next_rand() % 4];
    a->op = a->arithmetic == SIMDOPS_ARITH_ONNXRUNTIME ? SIMDOPS_OP_QUANTIZED_ADD
            : next_rand() % 4 == 0                     ? SIMDOPS_OP_QUANTIZED_MULTIPLY
            : next_rand() % 3 == 0                     ? SIMDOPS_OP_QUANTIZED_SUBTRACT
                                                       : SIMDOPS_OP_QUANTIZED_ADD;
    if (bench_numbers) { /* the bench's model numbers: TFLite add, lanes flagged in ~9% of blocks */
        a->arithmetic = SIMDOPS_ARITH_TFLITE;
        a->op = SIMDOPS_OP_QUANTIZED_ADD;
        a->a_scale = simdops_float_number(0.0417);
        a->b_scale = simdops_float_number(0.0388);
        a->y_scale = simdops_float_number(0.0712);
        a->a_zero_point = -3;
        a->b_zero_point = 5;
        a->y_zero_point = -1;
        if (dt == SIMDOPS_UINT8) /* the same numbers about uint8's middle */
            a->a_zero_point += 128, a->b_zero_point += 128, a->y_zero_point += 128;
        return;
    }
    a->a_scale = simdops_float_number(0.01 + (next_rand() % 1000) * 1e-4);
    a->b_scale = simdops_float_number(0.01 + (next_rand() % 1000) * 1e-4);
    a->y_scale = simdops_float_number(0.02 + (next_rand() % 1000) * 2e-4);
    a->a_zero_point = (int64_t)(next_rand() % 41) - 20;
    a->b_zero_point = (int64_t)(next_rand() % 41) - 20;
    a->y_zero_point = (int64_t)(next_rand() % 41) - 20;
    if (dt == SIMDOPS_UINT8)
        a->a_zero_point += 128, a->b_zero_point += 128, a->y_zero_point += 128;
    if (next_rand() % 4 == 0) {
        a->has_min = a->has_max = 1;
        a->min = dt == SIMDOPS_UINT8 ? 20 : -100;
        a->max = dt == SIMDOPS_UINT8 ? 230 : 90;
    }
}

void simdops_test_api_qbinary(void)
{
    static const size_t shapes[][2] = {{70, 256}, {3, 256}, {40, 100}, {9, 1000}, {33, 64},
                                       {5, 3},    {2, 4096}, {800, 256}}; /* the last past two grains: 2 threads split it */
    const char *isas[16];
    int nisa = simdops_available_isas(isas, 16);
    const int threads = simdops_get_num_threads();
    long flagged = 0;
    simdops_error err;
    (void)expect_named; /* api_expect.h's, unused here */
    (void)view1d;
    for (int k = 0; k < nisa && k < 16; k++) {
        memset(&err, 0, sizeof(err));
        if (simdops_set_thread_isa(isas[k], &err) != SIMDOPS_OK)
            continue;
        for (int rep = 0; rep < 24; rep++) {
            simdops_qbinary_args args;
            const size_t *sh = shapes[rep % 8];
            const simdops_dtype dt = next_rand() % 3 == 0 ? SIMDOPS_UINT8 : SIMDOPS_INT8;
            random_args(&args, dt, rep % 3 == 0);
            simdops_set_num_threads(rep % 5 == 4 ? 2 : 1);
            bcast_case(&args, dt, sh[0], sh[1], 1, 0, &flagged);
            bcast_case(&args, dt, sh[0], sh[1], 0, 0, &flagged);
            bcast_case(&args, dt, sh[0], sh[1], rep & 1, 1, &flagged);
            if (rep % 6 == 0)
                kept_tile_cases(&args, dt, &flagged);
        }
    }
    simdops_set_num_threads(threads);
    simdops_set_thread_isa(NULL, &err);
    expect(flagged > 0, "qbinary broadcast: no TFLite add element in the AVX-512 rows' window");
}
