/* Kernel harness: the int8 matmul accumulator entries (int8_dot, exact;
 * int8_dot_pairsat, VPMADDUBSW pairs) against the scalar tier for every k up
 * to 3 vector steps and beyond (odd k, tails), n up to 9, unaligned rows, and
 * operands at the saturation edges (255 / -128 / 127 everywhere, where every
 * pair saturates); the scalar tier against an independent int64 reference
 * (pairs summed exactly, clamped to int16, the +128 offset for int8). */
#include "harness.h"

enum { MAXK = 200, MAXNN = 9 };

static int64_t independent_dot(int pairsat, int is_signed, const unsigned char *a,
                               const int8_t *w, size_t k)
{
    int64_t sum = 0, wsum = 0, off = (pairsat && is_signed) ? 128 : 0;
    for (size_t i = 0; i < k; i += pairsat ? 2 : 1) {
        int64_t a0 = is_signed ? (int64_t)(int8_t)a[i] : (int64_t)a[i];
        int64_t p = (a0 + off) * w[i];
        wsum += w[i];
        if (pairsat && i + 1 < k) {
            int64_t a1 = is_signed ? (int64_t)(int8_t)a[i + 1] : (int64_t)a[i + 1];
            p += (a1 + off) * w[i + 1];
            wsum += w[i + 1];
        }
        if (pairsat)
            p = p > 32767 ? 32767 : p < -32768 ? -32768 : p;
        sum += p;
    }
    sum -= off * wsum;
    return (int64_t)(int32_t)(uint32_t)(uint64_t)sum; /* int32 wrap */
}

static uint8_t edge_byte(int style)
{
    static const uint8_t E[] = {0x00, 0xff, 0x80, 0x7f, 0x01, 0x81};
    if (style == 1)
        return E[below(sizeof(E) / sizeof(E[0]))];
    if (style == 2)
        return chance(50) ? 0xff : 0x7f;
    return (uint8_t)rnd();
}

static void int8mm_case(const target *t, size_t n, size_t k, int style)
{
    const int pairsat = t->kind == SIMDOPS_KE_int8_dot_pairsat;
    const int is_signed = t->idx == SIMDOPS_INT8;
    size_t ao = adjust_off(t, rand_off(), 1), wo = adjust_off(t, rand_off(), 1);
    size_t oo = adjust_off(t, rand_off(), 4);
    unsigned char *ab = alloc_buf(ao + k + TRAIL), *wb = alloc_buf(wo + n * k + TRAIL);
    unsigned char *rb = alloc_buf(oo + n * 4 + TRAIL), *gb = alloc_buf(oo + n * 4 + TRAIL);
    unsigned char *a = ab + ao;
    int8_t *w = (int8_t *)(wb + wo);
    int32_t want[MAXNN], got[MAXNN];
    for (size_t i = 0; i < k; i++)
        a[i] = edge_byte(style);
    for (size_t i = 0; i < n * k; i++) /* style 2: 127 / -128 weights with 255 / 127 a */
        w[i] = (int8_t)(style == 2 ? (chance(50) ? 0x7f : 0x80) : edge_byte(style));
    ((simdops_int8_dot_fn)t->ref)(a, w, (int32_t *)(void *)(rb + oo), n, k);
    ((simdops_int8_dot_fn)t->fn)(a, w, (int32_t *)(void *)(gb + oo), n, k);
    memcpy(want, rb + oo, n * 4);
    memcpy(got, gb + oo, n * 4);
    if (memcmp(want, got, n * 4) || !canary_ok(gb, 0, oo) || !canary_ok(gb, oo + n * 4, oo + n * 4 + TRAIL)) {
        fail_head(t, "differs from scalar", n, ao, oo);
        if (printing())
            printf("k=%zu style=%d\n", k, style);
    } else {
        g_pass++;
    }
    if (t->is_scalar) {
        for (size_t j = 0; j < n; j++) {
            int64_t r = independent_dot(pairsat, is_signed, a, w + j * k, k);
            if (r != want[j]) {
                fail_head(t, "scalar vs int64 reference", n, j, 0);
                if (printing())
                    printf("k=%zu want %lld got %d\n", k, (long long)r, want[j]);
                break;
            }
        }
    }
    free_buf(ab);
    free_buf(wb);
    free_buf(rb);
    free_buf(gb);
}

void test_int8mm(const target *t)
{
    for (size_t k = 0; k <= MAXK; k++)
        for (int rep = 0; rep < 4; rep++)
            int8mm_case(t, below(MAXNN + 1), k, rep % 3);
}
