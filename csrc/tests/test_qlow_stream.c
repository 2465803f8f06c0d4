/* The low-bit dequantize driver beyond the cache (api_qlow.c's streamed path
 * through simdops_stream_fill): every tier through the C API with the
 * streaming threshold lowered to 1 KiB against the scalar tier's plain call
 * (threshold SIZE_MAX), for the quantized types with and without kernels of
 * their own, to float32 / float16 / bfloat16, per tensor, blocked along the
 * last axis (runs of one scale, odd block sizes), blocked and per axis along
 * axis 0 (rows reading scale rows), with zero points. y ends at a guard page,
 * on a line, 16 bytes past one, or one byte off its element size (the plain
 * path), canaries around it; x ends at a guard page. Outputs span several 4
 * KiB stream blocks with short last blocks and partial last lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/qtype.h"
#include "dispatch/dispatch.h"
#include "kernels/vec/stream_store.h"

static const int STREAM_QTS[] = {SIMDOPS_QT_i4, SIMDOPS_QT_u4, SIMDOPS_QT_i2, SIMDOPS_QT_u2,
                                 SIMDOPS_QT_e4m3fn, SIMDOPS_QT_e5m2fnuz, SIMDOPS_QT_f4e2m1,
                                 SIMDOPS_QT_i8, SIMDOPS_QT_u16};
static const int FLOAT_ONNX[3] = {1, 10, 16}; /* float32, float16, bfloat16 */
static const size_t FLOAT_SIZE[3] = {4, 2, 2};

enum { L_TENSOR, L_LAST_AXIS, L_AXIS0, L_PER_AXIS0, L_COUNT };

typedef struct sq_case {
    simdops_qdq_call c;
    int64_t shape[2], sshape[2];
    unsigned char *x, *zp;
    float *scale;
} sq_case;

/* a random call of type qt, layout l, rows x cols, into y (set later) */
static void make_case(sq_case *k, int qt, int fi, int l, int64_t rows, int64_t cols)
{
    const simdops_qtype_row *r = &simdops_qtype_rows[qt];
    const size_t xbytes = ((size_t)(rows * cols) * (size_t)r->bits + 7) / 8;
    int64_t block = 1 + (int64_t)below(40), ns;
    memset(k, 0, sizeof *k);
    k->shape[0] = rows;
    k->shape[1] = cols;
    k->x = alloc_buf(xbytes); /* its last byte at the guard page */
    for (size_t i = 0; i < xbytes; i++)
        k->x[i] = (unsigned char)rnd();
    k->c.x = k->x;
    k->c.shape = k->shape;
    k->c.ndim = 2;
    k->c.x_type = r->onnx;
    k->c.y_type = FLOAT_ONNX[fi];
    k->c.scale_type = 1;
    k->c.packed = 3;
    k->c.opset = 25;
    k->c.scale_shape = k->sshape;
    switch (l) {
    case L_TENSOR: k->c.scale_ndim = 0; k->c.axis = 1; break;
    case L_LAST_AXIS:
        k->sshape[0] = rows;
        k->sshape[1] = (cols + block - 1) / block;
        k->c.scale_ndim = 2; k->c.axis = 1; k->c.block_size = block;
        break;
    case L_AXIS0:
        k->sshape[0] = (rows + block - 1) / block;
        k->sshape[1] = cols;
        k->c.scale_ndim = 2; k->c.axis = 0; k->c.block_size = block;
        break;
    default: k->sshape[0] = rows; k->c.scale_ndim = 1; k->c.axis = 0; break;
    }
    ns = k->c.scale_ndim == 0 ? 1 : k->c.scale_ndim == 1 ? k->sshape[0] : k->sshape[0] * k->sshape[1];
    k->scale = (float *)malloc((size_t)ns * sizeof(float));
    for (int64_t i = 0; i < ns; i++)
        k->scale[i] = (float)(1 + below(1000)) * (chance(50) ? 1e-3f : 0.37f);
    k->c.scale = k->scale;
    if (r->kind == QT_INT) { /* zero points in range: random fields of x's type */
        size_t zb = ((size_t)ns * (size_t)r->bits + 7) / 8;
        k->zp = (unsigned char *)malloc(zb);
        for (size_t i = 0; i < zb; i++)
            k->zp[i] = (unsigned char)rnd();
        k->c.zero_point = k->zp;
        k->c.zero_point_shape = k->sshape;
        k->c.zero_point_ndim = k->c.scale_ndim;
        k->c.zero_point_type = r->onnx;
    }
}

static int call(const sq_case *k, void *y, const char *isa, size_t threshold)
{
    simdops_error err;
    simdops_qdq_call c = k->c;
    const size_t saved = simdops_stream_threshold;
    int s;
    c.y = y;
    if (simdops_set_thread_isa(isa, &err))
        return -1;
    simdops_stream_threshold = threshold;
    s = simdops_dequantize_linear_ex(&c, &err);
    simdops_stream_threshold = saved;
    simdops_set_thread_isa(NULL, &err);
    return s;
}

/* y's place: 0 ends at the guard page, 1 on a line, 2 16 bytes past a line,
 * 3 one byte past a line (not float-aligned: the plain path) */
static void one_case(int qt, int fi, int l, int place)
{
    sq_case k;
    const int64_t cols = l == L_TENSOR || l == L_LAST_AXIS ? 1 + (int64_t)below(5000)
                                                           : (int64_t[]){1, 3, 64, 1000, 1027}[below(5)];
    const int64_t rows = (int64_t)(6000 + below(6000)) / cols + 1;
    const size_t ybytes = (size_t)(rows * cols) * FLOAT_SIZE[fi], room = 65;
    unsigned char *want = (unsigned char *)malloc(ybytes), *buf = alloc_buf(ybytes + room), *y;
    size_t head = room;
    static const size_t LINE_OFF[4] = {0, 0, 16, 1};
    make_case(&k, qt, fi, l, rows, cols);
    if (place > 0)
        head = (LINE_OFF[place] - (size_t)(uintptr_t)buf) & 63;
    y = buf + head;
    if (call(&k, want, "scalar", SIZE_MAX) != SIMDOPS_OK) {
        g_fail++;
        printf("FAIL qlow stream: the scalar plain call of %s failed\n", simdops_qtype_rows[qt].name);
    } else {
        for (int ti = 0; ti < simdops_tier_count(); ti++) {
            const char *tier = simdops_tier_name(ti);
            int s;
            if (!simdops_tier_table(ti))
                continue;
            memset(buf, CANARY, ybytes + room);
            s = call(&k, y, tier, 1024);
            if (s == SIMDOPS_OK && memcmp(y, want, ybytes) == 0 && canary_ok(buf, 0, head) &&
                canary_ok(buf, head + ybytes, ybytes + room)) {
                g_pass++;
            } else {
                size_t bad = 0;
                while (bad < ybytes && y[bad] == want[bad])
                    bad++;
                g_fail++;
                if (printing())
                    printf("FAIL qlow stream %s %s -> %s layout %d place %d %lldx%lld (y %% 64 = %u):"
                           " status %d, first differing byte %zu of %zu\n",
                           tier, simdops_qtype_rows[qt].name, FLOAT_ONNX[fi] == 1 ? "f32" : FLOAT_ONNX[fi] == 10 ? "f16" : "bf16",
                           l, place, (long long)rows, (long long)cols, (unsigned)((uintptr_t)y & 63), s, bad,
                           ybytes);
            }
        }
    }
    free_buf(k.x);
    free(k.scale);
    free(k.zp);
    free_buf(buf);
    free(want);
}

void test_qlow_stream(void)
{
    long f0 = g_fail, p0 = g_pass;
    for (size_t q = 0; q < sizeof STREAM_QTS / sizeof STREAM_QTS[0]; q++)
        for (int fi = 0; fi < 3; fi++)
            for (int l = 0; l < L_COUNT; l++)
                for (int place = 0; place < 4; place++)
                    one_case(STREAM_QTS[q], fi, l, place);
    printf("qlow dequantize streamed (threshold 1 KiB), every tier against scalar's plain call: "
           "%ld passed, %ld failed\n", g_pass - p0, g_fail - f0);
}
