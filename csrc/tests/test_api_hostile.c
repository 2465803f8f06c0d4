/* Hostile calls to the public C API's ONNX quantize/dequantize entries and the
 * requantizing 1-D kernels, run by the harness after test_api.c's tests:
 * NULL and malformed views (each a status naming the argument, never a
 * crash), a per-axis scale or zero point inside out (read as if copied
 * first), an empty x with 2^44 channels (returns at once), an out that shares
 * memory with an input of a kernel that has no in-place form. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "simdops/simdops.h"

#define API_EXPECT_LABEL "api hostile"
#include "api_expect.h"

static simdops_tensor view2d(void *data, simdops_dtype dt, int64_t rows, int64_t cols)
{
    simdops_tensor t = view1d(data, dt, rows);
    t.ndim = 2;
    t.shape[1] = cols;
    t.strides[1] = t.strides[0];
    t.strides[0] *= cols;
    return t;
}

typedef int (*qlinear_fn)(const simdops_tensor *, const simdops_tensor *, const simdops_tensor *,
                          int64_t, const simdops_tensor *, simdops_error *);

/* NULL and malformed scale / zero point / x / out views: a status, the
 * argument named as ONNX names it (the scale's element count was read before
 * the scale was checked: a NULL scale or ndim = INT_MAX crashed). */
static void test_qlinear_bad_views(void)
{
    static const struct {
        qlinear_fn fn;
        const char *name, *scale, *zp;
        simdops_dtype xd, yd;
    } ops[2] = {{simdops_quantize_linear, "quantize_linear", "y_scale", "y_zero_point",
                 SIMDOPS_FLOAT32, SIMDOPS_UINT8},
                {simdops_dequantize_linear, "dequantize_linear", "x_scale", "x_zero_point",
                 SIMDOPS_UINT8, SIMDOPS_FLOAT32}};
    static const int bad_ndims[] = {1000000, INT_MAX, 65};
    float fx[8] = {0}, fy[8] = {0}, fs[8] = {0.5f};
    uint8_t ux[8] = {0}, uy[8] = {0}, uz[8] = {0};
    char what[200], word[80];
    simdops_error e;
    for (int k = 0; k < 2; k++) {
        simdops_tensor x = ops[k].xd == SIMDOPS_FLOAT32 ? view1d(fx, SIMDOPS_FLOAT32, 4)
                                                        : view1d(ux, SIMDOPS_UINT8, 4);
        simdops_tensor y = ops[k].yd == SIMDOPS_FLOAT32 ? view1d(fy, SIMDOPS_FLOAT32, 4)
                                                        : view1d(uy, SIMDOPS_UINT8, 4);
        simdops_tensor s = view1d(fs, SIMDOPS_FLOAT32, 1), z = view1d(uz, SIMDOPS_UINT8, 1), bad;
        qlinear_fn fn = ops[k].fn;
        snprintf(word, sizeof(word), "%s: %s is NULL", ops[k].name, ops[k].scale);
        snprintf(what, sizeof(what), "%s with a NULL scale", ops[k].name);
        expect_named(fn(&x, NULL, NULL, 1, &y, &e), &e, SIMDOPS_E_PARAM, "NULL_ARG", word, what);
        expect_named(fn(&x, NULL, &z, 0, &y, &e), &e, SIMDOPS_E_PARAM, "NULL_ARG", word, what);
        expect_named(fn(&x, NULL, NULL, 1, &y, NULL), &e, SIMDOPS_E_PARAM, "NULL_ARG", word,
                     what); /* err NULL: the status alone (e still holds the last call's) */
        expect_named(fn(NULL, &s, NULL, 0, &y, &e), &e, SIMDOPS_E_PARAM, "NULL_ARG", "x is NULL",
                     "NULL x");
        expect_named(fn(&x, &s, NULL, 0, NULL, &e), &e, SIMDOPS_E_PARAM, "NULL_ARG",
                     "out is NULL", "NULL out");
        for (unsigned b = 0; b < sizeof(bad_ndims) / sizeof(bad_ndims[0]); b++) {
            bad = s;
            bad.ndim = bad_ndims[b];
            snprintf(word, sizeof(word), "%s has %d dimensions", ops[k].scale, bad_ndims[b]);
            snprintf(what, sizeof(what), "%s scale ndim %d", ops[k].name, bad_ndims[b]);
            expect_named(fn(&x, &bad, NULL, 0, &y, &e), &e, SIMDOPS_E_SHAPE, "NDIM", word, what);
            bad = z;
            bad.ndim = bad_ndims[b];
            snprintf(word, sizeof(word), "%s has %d dimensions", ops[k].zp, bad_ndims[b]);
            snprintf(what, sizeof(what), "%s zero point ndim %d", ops[k].name, bad_ndims[b]);
            expect_named(fn(&x, &s, &bad, 0, &y, &e), &e, SIMDOPS_E_SHAPE, "NDIM", word, what);
        }
        bad = s;
        bad.ndim = -1;
        snprintf(word, sizeof(word), "%s has ndim = -1", ops[k].scale);
        expect_named(fn(&x, &bad, NULL, 0, &y, &e), &e, SIMDOPS_E_SHAPE, "NDIM_NEGATIVE", word,
                     "scale ndim -1");
        bad = s;
        bad.dtype = (simdops_dtype)99;
        snprintf(word, sizeof(word), "%s has an unknown dtype value 99", ops[k].scale);
        expect_named(fn(&x, &bad, NULL, 0, &y, &e), &e, SIMDOPS_E_DTYPE, "DTYPE_UNKNOWN", word,
                     "scale dtype 99");
        bad = s;
        bad.data = NULL;
        snprintf(word, sizeof(word), "%s has elements but a NULL data pointer", ops[k].scale);
        expect_named(fn(&x, &bad, NULL, 0, &y, &e), &e, SIMDOPS_E_PARAM, "NULL_DATA", word,
                     "scale with NULL data");
        bad = z;
        bad.data = NULL;
        snprintf(word, sizeof(word), "%s has elements but a NULL data pointer", ops[k].zp);
        expect_named(fn(&x, &s, &bad, 0, &y, &e), &e, SIMDOPS_E_PARAM, "NULL_DATA", word,
                     "zero point with NULL data");
        bad = view1d(fs, SIMDOPS_FLOAT32, (int64_t)1 << 62);
        bad.strides[0] = 0;
        snprintf(word, sizeof(word), "%s has too many elements", ops[k].scale);
        expect_named(fn(&x, &bad, NULL, 0, &y, &e), &e, SIMDOPS_E_SHAPE, "TOO_MANY_ELEMENTS",
                     word, "scale of 2^62 elements");
        bad = view1d(fs, SIMDOPS_FLOAT32, 3);
        bad.strides[0] = (int64_t)1 << 62;
        snprintf(word, sizeof(word), "%s spans too many bytes", ops[k].scale);
        expect_named(fn(&x, &bad, NULL, 0, &y, &e), &e, SIMDOPS_E_SHAPE, "SPAN_TOO_LARGE", word,
                     "scale spanning 2^63 bytes");
        bad = view1d(fs, SIMDOPS_FLOAT32, 3);
        snprintf(word, sizeof(word), "%s must be a scalar, one element, or 1-D of length 4",
                 ops[k].scale);
        expect_named(fn(&x, &bad, NULL, 0, &y, &e), &e, SIMDOPS_E_SHAPE, "QL_SCALE_SHAPE", word,
                     "scale of the wrong length");
        bad = view1d(fs, SIMDOPS_INT32, 1);
        snprintf(word, sizeof(word), "%s has dtype int32; expected float32", ops[k].scale);
        expect_named(fn(&x, &bad, NULL, 0, &y, &e), &e, SIMDOPS_E_DTYPE, "DTYPE_MISMATCH", word,
                     "int32 scale");
        bad = s;
        expect_named(fn(&x, &s, NULL, (int64_t)INT64_MIN, &y, &e), &e, SIMDOPS_OK, "NONE", "",
                     "per-tensor scale ignores axis");
        bad = view1d(fs, SIMDOPS_FLOAT32, 4);
        expect_named(fn(&x, &bad, NULL, INT64_MIN, &y, &e), &e, SIMDOPS_E_PARAM, "AXIS_RANGE",
                     "out of range", "per-axis scale, axis INT64_MIN");
        /* out overlapping itself: refused */
        bad = y;
        bad.strides[0] = 0;
        expect_named(fn(&x, &s, NULL, 0, &bad, &e), &e, SIMDOPS_E_OVERLAP, "SELF_OVERLAP", "out",
                     "broadcast out");
    }
    /* the zero point's type names the zero point, before out's (whose type a
     * caller may have taken from it) */
    {
        int32_t iz = 3;
        int32_t iy[4];
        simdops_tensor x = view1d(fx, SIMDOPS_FLOAT32, 4), s = view1d(fs, SIMDOPS_FLOAT32, 1);
        simdops_tensor z = view1d(&iz, SIMDOPS_INT32, 1), y = view1d(iy, SIMDOPS_INT32, 4);
        expect_named(simdops_quantize_linear(&x, &s, &z, 1, &y, &e), &e, SIMDOPS_E_DTYPE,
                     "DTYPE_UNSUPPORTED", "quantize_linear: y_zero_point has dtype int32",
                     "int32 zero point with an int32 out");
    }
}

/* A per-axis scale / zero point inside out: every channel reads the values
 * the parameters held before the call (channel 0 used to overwrite them). */
static void test_qlinear_params_inside_out(void)
{
    float buf[16], want_f[12];
    uint8_t ub[16], want_u[12], zcopy[3] = {7, 100, 250};
    const float scales[3] = {0.5f, 2.0f, 4.0f};
    uint8_t ones[12];
    float xq[12];
    simdops_error e;
    simdops_tensor x, s, z, y;
    int status;
    memset(ones, 1, sizeof(ones));
    for (int i = 0; i < 12; i++)
        xq[i] = (float)(i * 37 % 11) - 3.0f;
    /* dequantize: scale = buf[1:4], out = buf[0:12] as 3 x 4 */
    memset(buf, 0, sizeof(buf));
    memcpy(buf + 1, scales, sizeof(scales));
    x = view2d(ones, SIMDOPS_UINT8, 3, 4);
    s = view1d((void *)scales, SIMDOPS_FLOAT32, 3);
    y = view2d(want_f, SIMDOPS_FLOAT32, 3, 4);
    expect(simdops_dequantize_linear(&x, &s, NULL, 0, &y, &e) == SIMDOPS_OK, "dequantize per axis");
    s = view1d(buf + 1, SIMDOPS_FLOAT32, 3);
    y = view2d(buf, SIMDOPS_FLOAT32, 3, 4);
    status = simdops_dequantize_linear(&x, &s, NULL, 0, &y, &e);
    expect(status == SIMDOPS_OK && memcmp(buf, want_f, sizeof(want_f)) == 0,
           "dequantize: a per-axis scale inside out reads as if copied first");
    /* quantize: zero point = ub[2:5], out = ub[0:12] */
    s = view1d((void *)scales, SIMDOPS_FLOAT32, 3);
    x = view2d(xq, SIMDOPS_FLOAT32, 3, 4);
    z = view1d(zcopy, SIMDOPS_UINT8, 3);
    y = view2d(want_u, SIMDOPS_UINT8, 3, 4);
    expect(simdops_quantize_linear(&x, &s, &z, 0, &y, &e) == SIMDOPS_OK, "quantize per axis");
    memset(ub, 0, sizeof(ub));
    memcpy(ub + 2, zcopy, 3);
    z = view1d(ub + 2, SIMDOPS_UINT8, 3);
    y = view2d(ub, SIMDOPS_UINT8, 3, 4);
    status = simdops_quantize_linear(&x, &s, &z, 0, &y, &e);
    expect(status == SIMDOPS_OK && memcmp(ub, want_u, sizeof(want_u)) == 0,
           "quantize: a per-axis zero point inside out reads as if copied first");
    /* the scale inside a float16 out's bytes, axis 1, reversed out */
    {
        uint16_t hb[16];
        float s4[4] = {0.25f, 8.0f, -1.0f, 3.0f};
        uint16_t want_h[12];
        float sf[8];
        x = view2d(ones, SIMDOPS_UINT8, 3, 4);
        s = view1d(s4, SIMDOPS_FLOAT32, 4);
        y = view2d(want_h, SIMDOPS_FLOAT16, 3, 4);
        expect(simdops_dequantize_linear(&x, &s, NULL, 1, &y, &e) == SIMDOPS_OK,
               "dequantize to float16 per axis");
        memcpy(sf, s4, sizeof(s4));
        memset(hb, 0, sizeof(hb));
        memcpy(hb + 4, sf, sizeof(s4)); /* the four floats at out's row 1 */
        s = view1d(hb + 4, SIMDOPS_FLOAT32, 4);
        y = view2d(hb, SIMDOPS_FLOAT16, 3, 4);
        status = simdops_dequantize_linear(&x, &s, NULL, 1, &y, &e);
        expect(status == SIMDOPS_OK && memcmp(hb, want_h, sizeof(want_h)) == 0,
               "dequantize to float16: a scale inside out reads as if copied first");
    }
}

/* An empty x is an empty result, however many channels its other axes give
 * (2^44 empty channel calls took hours). */
static void test_qlinear_empty_channels(void)
{
    float f = 0.5f, fx = 0;
    uint8_t u = 0;
    simdops_error e;
    simdops_tensor x = view2d(&fx, SIMDOPS_FLOAT32, (int64_t)1 << 44, 0);
    simdops_tensor y = view2d(&u, SIMDOPS_UINT8, (int64_t)1 << 44, 0);
    simdops_tensor s = view1d(&f, SIMDOPS_FLOAT32, (int64_t)1 << 44);
    simdops_tensor z = view1d(&u, SIMDOPS_UINT8, (int64_t)1 << 44);
    int32_t iz = 0, ix = 0;
    simdops_tensor xi = view2d(&ix, SIMDOPS_INT32, (int64_t)1 << 44, 0);
    simdops_tensor zi = view1d(&iz, SIMDOPS_INT32, (int64_t)1 << 44);
    simdops_tensor yf = view2d(&fx, SIMDOPS_FLOAT32, (int64_t)1 << 44, 0);
    s.strides[0] = z.strides[0] = zi.strides[0] = 0;
    expect(simdops_quantize_linear(&x, &s, &z, 0, &y, &e) == SIMDOPS_OK,
           "quantize of an empty x with 2^44 channels");
    expect(simdops_dequantize_linear(&xi, &s, &zi, 0, &yf, &e) == SIMDOPS_OK,
           "dequantize of an empty int32 x with 2^44 broadcast zero points");
}

/* y sharing memory with any input of the requantizing 1-D kernels (which
 * write another type than they read: no in-place form) is refused naming the
 * input; it used to run (bias, vectors) with results that differed between
 * tiers, or be reported as "out overlaps x without being x" for y == x. */
static void test_requant_1d_out_shares_input(void)
{
    int32_t xs[64], vec[64], mult[64], shift[64];
    float scales[64];
    simdops_prepared p, pf;
    simdops_error e;
    char msg[512];
    for (int i = 0; i < 64; i++) {
        xs[i] = i * 1000;
        vec[i] = i;
        mult[i] = 1 << 30;
        shift[i] = 1;
        scales[i] = 0.25f;
    }
    expect(simdops_prepare_requant(SIMDOPS_UINT8, 1 << 30, 1, 0, NULL, NULL, &p, &e) ==
               SIMDOPS_OK, "prepare_requant");
    expect(simdops_prepare_requant_fp(SIMDOPS_UINT8, 0.25, 0, NULL, NULL, 0, &pf, &e) ==
               SIMDOPS_OK, "prepare_requant_fp");
    /* y inside bias */
    expect_named(simdops_requant_1d(&p, xs, (uint8_t *)vec + 8, 16, vec, &e), &e,
                 SIMDOPS_E_OVERLAP, "OUT_SHARES_INPUT", "out shares memory with bias",
                 "requant_1d: out inside bias");
    expect_named(simdops_requant_pc_1d(&p, xs, (uint8_t *)vec + 8, 16, vec, mult, shift, &e), &e,
                 SIMDOPS_E_OVERLAP, "OUT_SHARES_INPUT", "out shares memory with bias",
                 "requant_pc_1d: out inside bias");
    expect_named(simdops_requant_pc_1d(&p, xs, (uint8_t *)mult + 3, 16, NULL, mult, shift, &e),
                 &e, SIMDOPS_E_OVERLAP, "OUT_SHARES_INPUT", "out shares memory with multiplier",
                 "requant_pc_1d: out inside the multipliers");
    expect_named(simdops_requant_pc_1d(&p, xs, (uint8_t *)shift + 60, 16, NULL, mult, shift, &e),
                 &e, SIMDOPS_E_OVERLAP, "OUT_SHARES_INPUT", "out shares memory with shift",
                 "requant_pc_1d: out inside the shifts");
    expect_named(simdops_requant_fp_pc_1d(&pf, xs, (uint8_t *)vec + 8, 16, vec, scales, &e), &e,
                 SIMDOPS_E_OVERLAP, "OUT_SHARES_INPUT", "out shares memory with bias",
                 "requant_fp_pc_1d: out inside bias");
    expect_named(simdops_requant_fp_pc_1d(&pf, xs, (uint8_t *)scales + 1, 16, NULL, scales, &e),
                 &e, SIMDOPS_E_OVERLAP, "OUT_SHARES_INPUT", "out shares memory with scale",
                 "requant_fp_pc_1d: out inside the scales");
    /* y == x: the message says what happened */
    expect_named(simdops_requant_fp_pc_1d(&pf, xs, xs, 16, NULL, scales, &e), &e,
                 SIMDOPS_E_OVERLAP, "OUT_SHARES_INPUT", "out shares memory with x",
                 "requant_fp_pc_1d: y == x");
    simdops_error_format(&e, msg, sizeof(msg));
    expect(strstr(msg, "without being x") == NULL, "y == x is not reported as 'without being x'");
    expect_named(simdops_requant_1d(&p, xs, xs, 16, NULL, &e), &e, SIMDOPS_E_OVERLAP,
                 "OUT_SHARES_INPUT", "out shares memory with x", "requant_1d: y == x");
    expect_named(simdops_requant_1d(&p, xs, (uint8_t *)xs + 5, 16, NULL, &e), &e,
                 SIMDOPS_E_OVERLAP, "OUT_SHARES_INPUT", "out shares memory with x",
                 "requant_1d: y inside x");
    /* inputs may share memory with each other (all are read), and y next to
     * them is fine */
    expect(simdops_requant_pc_1d(&p, xs, (uint8_t *)(xs + 16), 16, xs, xs, shift, &e) ==
               SIMDOPS_OK, "inputs sharing memory with each other, out apart");
    expect(simdops_requant_1d(&p, xs, (uint8_t *)vec + 64, 16, vec, &e) == SIMDOPS_OK,
           "out right after bias");
    /* nothing to write: nothing overlaps */
    expect(simdops_requant_1d(&p, xs, xs, 0, xs, &e) == SIMDOPS_OK, "n = 0 with y == x");
}

void simdops_test_api_hostile(void)
{
    test_qlinear_bad_views();
    test_qlinear_params_inside_out();
    test_qlinear_empty_channels();
    test_requant_1d_out_shares_input();
}
