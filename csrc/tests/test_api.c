/* Tests of the public C API (simdops.h) run by the harness: prepared handles
 * and the 1-D kernels against the N-d entry points, statuses and reasons of
 * bad calls, error formatting, exact big-number rounding, per-thread tiers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simdops/simdops.h"

static long *g_api_pass, *g_api_fail;

static void expect(int ok, const char *what)
{
    if (ok) {
        ++*g_api_pass;
    } else {
        ++*g_api_fail;
        printf("FAIL api: %s\n", what);
    }
}

static simdops_tensor view1d(void *data, simdops_dtype dt, int64_t n)
{
    simdops_tensor t;
    memset(&t, 0, sizeof(t));
    t.data = data;
    t.dtype = dt;
    t.ndim = 1;
    t.shape[0] = n;
    t.strides[0] = (int64_t)simdops_dtype_size(dt);
    return t;
}

static simdops_number num_f(double f)
{
    simdops_number n;
    memset(&n, 0, sizeof(n));
    n.kind = SIMDOPS_NUM_FLOAT;
    n.f = f;
    return n;
}

/* reason of a call, and its formatted message contains `word` */
static void expect_reason(int status, const simdops_error *e, int reason, const char *word,
                          const char *what)
{
    char msg[512];
    simdops_error_format(e, msg, sizeof(msg));
    expect(status != SIMDOPS_OK && status == e->status && e->reason == reason &&
               status == simdops_reason_status(reason) && strstr(msg, word) != NULL,
           what);
}

static void test_elementwise_1d(void)
{
    float x[37], y1[37], y2[37];
    simdops_prepared p;
    simdops_error e;
    simdops_number sc = num_f(0.5), lo = num_f(-2), hi = num_f(3);
    simdops_tensor tx = view1d(x, SIMDOPS_FLOAT32, 37), ty = view1d(y2, SIMDOPS_FLOAT32, 37);
    for (int i = 0; i < 37; i++)
        x[i] = (float)(i - 18) * 0.37f;
    expect(simdops_prepare_clip(SIMDOPS_FLOAT32, lo, hi, &sc, NULL, &p, &e) == SIMDOPS_OK,
           "prepare_clip");
    expect(simdops_clip_1d(&p, x, y1, 37, &e) == SIMDOPS_OK, "clip_1d");
    expect(simdops_clip(&tx, &ty, lo, hi, &sc, NULL, NULL) == SIMDOPS_OK, "clip N-d, err NULL");
    expect(memcmp(y1, y2, sizeof(y1)) == 0, "clip_1d == clip N-d");
    expect(simdops_clip_prepared(&p, &tx, &ty, &e) == SIMDOPS_OK && memcmp(y1, y2, sizeof(y1)) == 0,
           "clip_prepared == clip_1d");
    expect(simdops_prepare_shrink(SIMDOPS_FLOAT32, num_f(0.25), num_f(0.5), &p, &e) == SIMDOPS_OK,
           "prepare_shrink");
    expect(simdops_shrink_1d(&p, x, y1, 37, &e) == SIMDOPS_OK, "shrink_1d");
    expect(simdops_shrink(&tx, &ty, num_f(0.25), num_f(0.5), &e) == SIMDOPS_OK &&
               memcmp(y1, y2, sizeof(y1)) == 0,
           "shrink_1d == shrink N-d");
    /* bad calls */
    expect_reason(simdops_clip_1d(&p, x, y1, 37, &e), &e, SIMDOPS_R_NOT_PREPARED, "prepared",
                  "clip_1d with a shrink handle");
    expect_reason(simdops_shrink_1d(&p, x, x + 1, 30, &e), &e, SIMDOPS_R_PARTIAL_OVERLAP, "out",
                  "partial overlap");
    expect_reason(simdops_shrink_1d(&p, (const char *)x + 1, y1, 3, &e), &e, SIMDOPS_R_MISALIGNED,
                  "x", "misaligned x");
    expect_reason(simdops_shrink_1d(&p, x, y1, -1, &e), &e, SIMDOPS_R_NEGATIVE_COUNT, "n",
                  "negative n");
    expect(simdops_shrink_1d(&p, x, x, 37, &e) == SIMDOPS_OK, "in place");
    expect_reason(simdops_prepare_clip(SIMDOPS_FLOAT32, num_f(NAN), hi, NULL, NULL, &p, &e), &e,
                  SIMDOPS_R_NAN, "clip: min is NaN", "NaN min");
    expect_reason(simdops_prepare_shrink(SIMDOPS_INT64, lo, hi, &p, &e), &e,
                  SIMDOPS_R_DTYPE_UNSUPPORTED, "int64", "shrink int64");
}

static void test_hardmax_rows(void)
{
    float x[3 * 5] = {1, 5, 5, 2, 0, -1, -2, -3, -4, -5, 0, NAN, 7, NAN, 1}, y1[15], y2[15];
    simdops_tensor tx = view1d(x, SIMDOPS_FLOAT32, 15), ty = view1d(y2, SIMDOPS_FLOAT32, 15);
    int64_t axis = -1;
    simdops_error e;
    tx.ndim = ty.ndim = 2;
    tx.shape[0] = ty.shape[0] = 3;
    tx.shape[1] = ty.shape[1] = 5;
    tx.strides[0] = ty.strides[0] = 20;
    tx.strides[1] = ty.strides[1] = 4;
    expect(simdops_hardmax_rows(SIMDOPS_FLOAT32, x, y1, 3, 5, &e) == SIMDOPS_OK, "hardmax_rows");
    expect(simdops_hardmax(&tx, &ty, 1, &axis, &e) == SIMDOPS_OK, "hardmax N-d");
    expect(memcmp(y1, y2, sizeof(y1)) == 0 && y1[1] == 1 && y1[5] == 1 && y1[11] == 1,
           "hardmax_rows == hardmax N-d");
    expect_reason(simdops_hardmax_rows(SIMDOPS_INT32, x, y1, 3, 5, &e), &e,
                  SIMDOPS_R_DTYPE_UNSUPPORTED, "int32", "hardmax_rows int32");
    axis = 2;
    expect_reason(simdops_hardmax(&tx, &ty, 1, &axis, &e), &e, SIMDOPS_R_AXIS_RANGE,
                  "axis 2 is out of range", "hardmax axis 2");
}

static void test_requant_1d(void)
{
    int32_t x[19], bias[19], mult[19], shift[19];
    uint8_t y1[19], y2[19];
    simdops_prepared p;
    simdops_error e;
    simdops_requant_args a;
    simdops_tensor tx = view1d(x, SIMDOPS_INT32, 19), ty = view1d(y2, SIMDOPS_UINT8, 19);
    simdops_tensor tb = view1d(bias, SIMDOPS_INT32, 19), tm = view1d(mult, SIMDOPS_INT32, 19);
    simdops_tensor ts = view1d(shift, SIMDOPS_INT32, 19);
    int64_t lo = 3;
    for (int i = 0; i < 19; i++) {
        x[i] = (i - 9) * 123457;
        bias[i] = i * 1000 - 7000;
        mult[i] = (1 << 30) + i * 4567;
        shift[i] = i % 9 - 3;
    }
    memset(&a, 0, sizeof(a));
    a.multiplier = 1518500250;
    a.shift = 9;
    a.offset = 100;
    a.min = lo;
    a.has_min = 1;
    a.bias = &tb;
    expect(simdops_prepare_requant(SIMDOPS_UINT8, 1518500250, 9, 100, &lo, NULL, &p, &e) ==
               SIMDOPS_OK,
           "prepare_requant");
    expect(simdops_requant_1d(&p, x, y1, 19, bias, &e) == SIMDOPS_OK, "requant_1d");
    expect(simdops_requant(&tx, &ty, &a, &e) == SIMDOPS_OK && memcmp(y1, y2, 19) == 0,
           "requant_1d == requant N-d");
    a.multipliers = &tm;
    a.shifts = &ts;
    expect(simdops_requant_pc_1d(&p, x, y1, 19, bias, mult, shift, &e) == SIMDOPS_OK,
           "requant_pc_1d");
    expect(simdops_requant(&tx, &ty, &a, &e) == SIMDOPS_OK && memcmp(y1, y2, 19) == 0,
           "requant_pc_1d == requant N-d per channel");
    shift[7] = 32;
    expect_reason(simdops_requant_pc_1d(&p, x, y1, 19, bias, mult, shift, &e), &e,
                  SIMDOPS_R_SHIFT_RANGE, "at index 7", "per-channel shift 32");
    expect_reason(simdops_prepare_requant(SIMDOPS_INT16, 1, 1, 5, NULL, NULL, &p, &e), &e,
                  SIMDOPS_R_QSYMM16_OFFSET, "offset", "int16 offset");
    expect_reason(simdops_prepare_requant(SIMDOPS_FLOAT32, 1, 1, 0, NULL, NULL, &p, &e), &e,
                  SIMDOPS_R_DTYPE_UNSUPPORTED, "out_dtype", "float32 output");
}

static void test_big_numbers(void)
{
    /* 2^100 + 2^76 + 1 (top 64 bits: bit 0 sticky): float32 rounds up to
     * 2^100 + 2^77; rounding to double first would give 2^100. */
    simdops_number v;
    simdops_prepared p;
    float x = 0, y = 0;
    memset(&v, 0, sizeof(v));
    v.kind = SIMDOPS_NUM_BIG;
    v.i = 101 - 64;
    v.u = (1ull << 63) | (1ull << 39) | 1u;
    expect(simdops_prepare_clip(SIMDOPS_FLOAT32, v, v, NULL, NULL, &p, NULL) == SIMDOPS_OK &&
               simdops_clip_1d(&p, &x, &y, 1, NULL) == SIMDOPS_OK &&
               y == ldexpf(1.0f, 100) + ldexpf(1.0f, 77),
           "big number rounds once to float32");
}

static void test_thread_isa(void)
{
    const char *names[8];
    int n = simdops_available_isas(names, 8);
    const char *process = simdops_isa();
    float x = 1, y;
    simdops_prepared p;
    simdops_error e;
    simdops_prepare_clip(SIMDOPS_FLOAT32, num_f(0), num_f(1), NULL, NULL, &p, NULL);
    expect(simdops_set_thread_isa(names[0], &e) == SIMDOPS_OK && simdops_clip_1d(&p, &x, &y, 1, NULL) == 0 &&
               strcmp(simdops_last_call_isa(), names[0]) == 0 && strcmp(simdops_isa(), names[0]) == 0,
           "thread tier forced");
    expect(simdops_set_thread_isa(NULL, &e) == SIMDOPS_OK && strcmp(simdops_isa(), process) == 0 &&
               simdops_thread_isa() == NULL,
           "thread tier cleared");
    expect_reason(simdops_set_thread_isa("bogus", &e), &e, SIMDOPS_R_ISA_UNKNOWN, "ISA",
                  "unknown ISA");
    expect(n >= 1 && strcmp(simdops_isa(), process) == 0, "process tier unchanged");
}

void simdops_test_public_api(long *pass, long *fail)
{
    g_api_pass = pass;
    g_api_fail = fail;
    test_elementwise_1d();
    test_hardmax_rows();
    test_requant_1d();
    test_big_numbers();
    test_thread_isa();
}
