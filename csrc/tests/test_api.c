/* Tests of the public C API (simdops.h) run by the harness: prepared handles
 * and the 1-D kernels against the N-d entry points, statuses and reasons of
 * bad calls, error formatting, exact big-number rounding, per-thread tiers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simdops/simdops.h"

#define API_EXPECT_LABEL "api"
#include "api_expect.h"

long *simdops_test_api_pass, *simdops_test_api_fail;

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

/* Views whose element count or byte extent does not fit 64 bits: refused
 * with a reason by every N-d entry point, never run (they used to wrap to 0
 * elements: clip returned OK doing nothing, hardmax crashed). */
static void test_oversized_views(void)
{
    static const int64_t huge_shapes[][2] = {{4, (int64_t)1 << 62}, {(int64_t)1 << 32, (int64_t)1 << 32}};
    float buf[16] = {0};
    int32_t ibuf[16] = {0};
    uint8_t obuf[16] = {0};
    simdops_tensor x, y, ok_f, ok_i, ok_u8, bias;
    simdops_prepared pc, ps, pr;
    simdops_requant_args a;
    simdops_error e;
    int64_t axis = -1;
    char what[160];
    ok_f = view1d(buf, SIMDOPS_FLOAT32, 4);
    ok_i = view1d(ibuf, SIMDOPS_INT32, 4);
    ok_u8 = view1d(obuf, SIMDOPS_UINT8, 4);
    simdops_prepare_clip(SIMDOPS_FLOAT32, num_f(0), num_f(1), NULL, NULL, &pc, NULL);
    simdops_prepare_shrink(SIMDOPS_FLOAT32, num_f(0), num_f(1), &ps, NULL);
    simdops_prepare_requant(SIMDOPS_UINT8, 1 << 30, 1, 0, NULL, NULL, &pr, NULL);
    memset(&a, 0, sizeof(a));
    a.multiplier = 1 << 30;
    a.shift = 1;
    for (int k = 0; k < 2; k++) {
        for (int zero_strides = 0; zero_strides < 2; zero_strides++) {
            const char *reason = "TOO_MANY_ELEMENTS";
            x = view1d(buf, SIMDOPS_FLOAT32, 1);
            x.ndim = 2;
            x.shape[0] = huge_shapes[k][0];
            x.shape[1] = huge_shapes[k][1];
            x.strides[0] = 0;
            x.strides[1] = zero_strides ? 0 : 4;
            y = x;
            snprintf(what, sizeof(what), "shape (%lld, %lld) strides (%lld, %lld)",
                     (long long)x.shape[0], (long long)x.shape[1], (long long)x.strides[0],
                     (long long)x.strides[1]);
#define HUGE_CASE(call, st, arg, label)                                                            \
    do {                                                                                           \
        char full[260];                                                                            \
        snprintf(full, sizeof(full), "%s: %s", label, what);                                       \
        expect_named(call, &e, st, reason, arg, full);                                             \
    } while (0)
            HUGE_CASE(simdops_clip(&x, &y, num_f(0), num_f(1), NULL, NULL, &e), SIMDOPS_E_SHAPE,
                      "clip: x", "clip x");
            HUGE_CASE(simdops_clip(&ok_f, &y, num_f(0), num_f(1), NULL, NULL, &e),
                      SIMDOPS_E_SHAPE, "clip: out", "clip out");
            HUGE_CASE(simdops_clip_prepared(&pc, &x, &y, &e), SIMDOPS_E_SHAPE, "clip: x",
                      "clip_prepared");
            HUGE_CASE(simdops_shrink(&x, &y, num_f(0), num_f(1), &e), SIMDOPS_E_SHAPE,
                      "shrink: x", "shrink x");
            HUGE_CASE(simdops_shrink_prepared(&ps, &x, &y, &e), SIMDOPS_E_SHAPE, "shrink: x",
                      "shrink_prepared");
            HUGE_CASE(simdops_hardmax(&x, &y, 1, &axis, &e), SIMDOPS_E_SHAPE, "hardmax: x",
                      "hardmax x");
            HUGE_CASE(simdops_hardmax(&ok_f, &y, 1, &axis, &e), SIMDOPS_E_SHAPE, "hardmax: out",
                      "hardmax out");
            x.dtype = SIMDOPS_INT32;
            y.dtype = SIMDOPS_UINT8;
            y.strides[0] = 0;
            y.strides[1] = zero_strides ? 0 : 1;
            HUGE_CASE(simdops_requant(&x, &y, &a, &e), SIMDOPS_E_SHAPE, "quantize: out",
                      "requant out");
            HUGE_CASE(simdops_requant(&x, &ok_u8, &a, &e), SIMDOPS_E_SHAPE, "quantize: x",
                      "requant x");
            HUGE_CASE(simdops_requant_prepared(&pr, &x, &y, NULL, NULL, NULL, &e),
                      SIMDOPS_E_SHAPE, "quantize: x", "requant_prepared");
#undef HUGE_CASE
        }
    }
    /* few elements, but strides whose byte extent overflows */
    x = view1d(buf, SIMDOPS_FLOAT32, 3);
    x.strides[0] = (int64_t)1 << 62;
    y = view1d(buf + 4, SIMDOPS_FLOAT32, 3);
    expect_named(simdops_clip(&x, &y, num_f(0), num_f(1), NULL, NULL, &e), &e, SIMDOPS_E_SHAPE,
                 "SPAN_TOO_LARGE", "clip: x", "clip: x spans 2 * 2^62 bytes");
    expect_named(simdops_hardmax(&y, &x, 1, &axis, &e), &e, SIMDOPS_E_SHAPE, "SPAN_TOO_LARGE",
                 "hardmax: out", "hardmax: out spans 2 * 2^62 bytes");
    x.strides[0] = -((int64_t)1 << 62);
    expect_named(simdops_shrink(&x, &y, num_f(0), num_f(1), &e), &e, SIMDOPS_E_SHAPE,
                 "SPAN_TOO_LARGE", "shrink: x", "shrink: x spans -2 * 2^62 bytes");
    /* a per-channel vector with such a stride */
    bias = view1d(ibuf, SIMDOPS_INT32, 4);
    bias.strides[0] = INT64_MAX / 2;
    a.bias = &bias;
    expect_named(simdops_requant(&ok_i, &ok_u8, &a, &e), &e, SIMDOPS_E_SHAPE, "SPAN_TOO_LARGE",
                 "quantize: bias", "requant: bias spans 3 * 2^62 bytes");
    a.bias = NULL;
    /* an empty view with a huge extent elsewhere is still empty and fine */
    x = view1d(buf, SIMDOPS_FLOAT32, 0);
    x.ndim = 2;
    x.shape[1] = 1000;
    x.strides[0] = 4000;
    y = x;
    expect(simdops_clip(&x, &y, num_f(0), num_f(1), NULL, NULL, &e) == SIMDOPS_OK,
           "clip of a (0, 1000) view");
    /* the 1-D kernels: n whose byte count does not fit */
    expect_named(simdops_clip_1d(&pc, buf, buf + 8, (int64_t)1 << 62, &e), &e, SIMDOPS_E_PARAM,
                 "COUNT_TOO_LARGE", "clip: n", "clip_1d n = 2^62 float32");
    expect_named(simdops_hardmax_rows(SIMDOPS_FLOAT32, buf, buf, (int64_t)1 << 32,
                                      (int64_t)1 << 32, &e),
                 &e, SIMDOPS_E_PARAM, "SIZE_OVERFLOW", "rows * cols", "hardmax_rows 2^32 x 2^32");
}

/* A simdops_number must be one of the four kinds, and a NUM_BIG normalised. */
static void test_invalid_numbers(void)
{
    float buf[4] = {0, 1, 2, 3}, out[4];
    simdops_tensor x = view1d(buf, SIMDOPS_FLOAT32, 4), y = view1d(out, SIMDOPS_FLOAT32, 4);
    simdops_prepared p;
    simdops_error e;
    simdops_number bad = num_f(0.5), nan_bad = num_f(NAN), neg_bad = num_f(-1);
    simdops_number big = num_f(0);
    bad.kind = (simdops_number_kind)7;
    nan_bad.kind = (simdops_number_kind)77;
    neg_bad.kind = (simdops_number_kind)7;
    expect_named(simdops_prepare_clip(SIMDOPS_FLOAT32, bad, num_f(1), NULL, NULL, &p, &e), &e,
                 SIMDOPS_E_PARAM, "NUMBER_KIND", "min", "clip min of kind 7");
    expect_named(simdops_clip(&x, &y, num_f(0), nan_bad, NULL, NULL, &e), &e, SIMDOPS_E_PARAM,
                 "NUMBER_KIND", "max", "clip max of kind 77 holding NaN");
    expect_named(simdops_prepare_clip(SIMDOPS_INT32, num_f(0), num_f(1), &bad, NULL, &p, &e), &e,
                 SIMDOPS_E_PARAM, "NUMBER_KIND", "scale", "clip scale of kind 7");
    expect_named(simdops_prepare_clip(SIMDOPS_FLOAT32, num_f(0), num_f(1), NULL, &bad, &p, &e),
                 &e, SIMDOPS_E_PARAM, "NUMBER_KIND", "bias", "clip bias of kind 7");
    expect_named(simdops_prepare_shrink(SIMDOPS_FLOAT32, num_f(0), neg_bad, &p, &e), &e,
                 SIMDOPS_E_PARAM, "NUMBER_KIND", "threshold", "shrink threshold -1 of kind 7");
    expect_named(simdops_shrink(&x, &y, nan_bad, num_f(1), &e), &e, SIMDOPS_E_PARAM,
                 "NUMBER_KIND", "bias", "shrink bias NaN of kind 77");
    /* NUM_BIG: bit 63 of .u clear, or .i < 0 */
    big.kind = SIMDOPS_NUM_BIG;
    big.u = 5;
    big.i = 10;
    expect_named(simdops_prepare_clip(SIMDOPS_UINT64, big, big, NULL, NULL, &p, &e), &e,
                 SIMDOPS_E_PARAM, "NUMBER_BIG", "min", "NUM_BIG with bit 63 of .u clear");
    big.u = (uint64_t)1 << 63;
    big.i = -1;
    expect_named(simdops_prepare_shrink(SIMDOPS_INT32, num_f(0), big, &p, &e), &e,
                 SIMDOPS_E_PARAM, "NUMBER_BIG", "threshold", "NUM_BIG with .i = -1");
    /* .i == 0 is exact: 2^63 + 5 as uint64 stays itself */
    big.i = 0;
    big.u = ((uint64_t)1 << 63) + 5;
    {
        uint64_t u_in = 0, u_out = 0;
        expect(simdops_prepare_clip(SIMDOPS_UINT64, big, big, NULL, NULL, &p, &e) == SIMDOPS_OK &&
                   simdops_clip_1d(&p, &u_in, &u_out, 1, &e) == SIMDOPS_OK && u_out == big.u,
               "NUM_BIG 2^63 + 5 with .i = 0 is exact for uint64");
    }
    /* a normalised one with a huge exponent is fine: it saturates / is inf */
    big.i = INT64_MAX;
    big.negative = 1;
    expect(simdops_prepare_clip(SIMDOPS_FLOAT32, big, num_f(1), NULL, NULL, &p, &e) == SIMDOPS_OK &&
               simdops_clip_1d(&p, buf, out, 4, &e) == SIMDOPS_OK && out[0] == 0 && out[3] == 1,
           "NUM_BIG -2^(2^63) as min");
}

/* simdops_big_number builds exact integers of any size from 64-bit words. */
static void test_big_number_helper(void)
{
    /* 2^100 + 2^76 + 1 as words, least significant first */
    const uint64_t words[2] = {1u, ((uint64_t)1 << 36) | ((uint64_t)1 << 12)};
    const uint64_t small[3] = {12345, 0, 0}, top[2] = {0, (uint64_t)1 << 63};
    simdops_number v = simdops_big_number(0, words, 2), w;
    simdops_prepared p;
    float x = 0, y = 0;
    uint64_t ux = 0, uy = 1;
    expect(v.kind == SIMDOPS_NUM_BIG && v.i == 101 - 64 && v.negative == 0 &&
               v.u == ((1ull << 63) | (1ull << 39) | 1u),
           "big_number: top 64 bits, sticky bit, exponent");
    expect(simdops_prepare_clip(SIMDOPS_FLOAT32, v, v, NULL, NULL, &p, NULL) == SIMDOPS_OK &&
               simdops_clip_1d(&p, &x, &y, 1, NULL) == SIMDOPS_OK &&
               y == ldexpf(1.0f, 100) + ldexpf(1.0f, 77),
           "big_number rounds once to float32");
    w = simdops_big_number(1, small, 3);
    expect(w.kind == SIMDOPS_NUM_INT && w.i == -12345, "big_number of a small value is an INT");
    w = simdops_big_number(0, top, 2);
    expect(w.kind == SIMDOPS_NUM_BIG && w.i == 64 && w.u == top[1], "big_number 2^127");
    w = simdops_big_number(0, top + 1, 1);
    expect(w.kind == SIMDOPS_NUM_UINT && w.u == top[1], "big_number 2^63 is a UINT");
    w = simdops_big_number(1, top + 1, 1);
    expect(w.kind == SIMDOPS_NUM_INT && w.i == INT64_MIN, "big_number -2^63 is an INT");
    w = simdops_big_number(1, NULL, 0);
    expect(w.kind == SIMDOPS_NUM_INT && w.i == 0 && w.negative == 0, "big_number of no words is 0");
    w = simdops_big_number(0, top, 2);
    expect(simdops_prepare_clip(SIMDOPS_UINT64, w, w, NULL, NULL, &p, NULL) == SIMDOPS_OK &&
               simdops_clip_1d(&p, &ux, &uy, 1, NULL) == SIMDOPS_OK && uy == UINT64_MAX,
           "big_number 2^127 saturates uint64");
}

/* Messages name what is wrong. */
static void test_messages(void)
{
    int32_t x[4] = {0};
    uint8_t y[4];
    simdops_tensor tx = view1d(x, SIMDOPS_INT32, 4), ty = view1d(y, SIMDOPS_UINT8, 4);
    simdops_error e;
    char msg[256];
    expect_named(simdops_requant(&tx, &ty, NULL, &e), &e, SIMDOPS_E_PARAM, "NULL_ARG",
                 "quantize: args is NULL", "requant with args NULL");
    expect_named(simdops_hardmax_rows(SIMDOPS_FLOAT32, x, x, -1, 4, &e), &e, SIMDOPS_E_PARAM,
                 "NEGATIVE_COUNT", "hardmax: rows = -1 is negative", "hardmax_rows rows = -1");
    expect_named(simdops_hardmax_rows(SIMDOPS_FLOAT32, x, x, 1, -3, &e), &e, SIMDOPS_E_PARAM,
                 "NEGATIVE_COUNT", "hardmax: cols = -3 is negative", "hardmax_rows cols = -3");
    tx.ndim = -1;
    expect_named(simdops_requant(&tx, &ty, NULL, &e), &e, SIMDOPS_E_PARAM, "NULL_ARG", "args",
                 "requant args NULL before x");
    expect_named(simdops_clip(&tx, &tx, num_f(0), num_f(1), NULL, NULL, &e), &e,
                 SIMDOPS_E_SHAPE, "NDIM_NEGATIVE", "clip: x has ndim = -1", "ndim = -1");
    simdops_error_format(&e, msg, sizeof(msg));
    expect(strstr(msg, "at most") == NULL, "ndim = -1 is not reported as too many dimensions");
    expect_named(simdops_hardmax_check(SIMDOPS_FLOAT32, -2, 1, NULL, &e), &e, SIMDOPS_E_SHAPE,
                 "NDIM_NEGATIVE", "ndim = -2", "hardmax_check ndim = -2");
    tx.ndim = 65;
    expect_named(simdops_clip(&tx, &tx, num_f(0), num_f(1), NULL, NULL, &e), &e,
                 SIMDOPS_E_SHAPE, "NDIM", "at most 64", "ndim = 65");
}

void simdops_test_public_api(long *pass, long *fail)
{
    simdops_test_api_pass = pass;
    simdops_test_api_fail = fail;
    test_elementwise_1d();
    test_hardmax_rows();
    test_requant_1d();
    test_big_numbers();
    test_thread_isa();
    test_invalid_numbers();
    test_messages();
    test_big_number_helper();
    test_oversized_views(); /* before the fix, hardmax crashed here */
    simdops_test_api_hostile();
    simdops_test_api_qbinary();
}
