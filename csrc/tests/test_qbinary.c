/* Kernel harness: the quantized binary entries (qadd_tflite, qmul_tflite,
 * qadd_xnnpack, qmul_fp, qadd_ort) against the scalar tier: parameters derived
 * by simdops_qbinary_params_init from random model numbers (scales over many
 * binades, zero points at and inside the type's ends, activation bounds),
 * inputs with the type's extremes (saturation), every length 0..MAXN, the three
 * broadcast forms, any byte offsets, in place (y == a, y == b), canaries after
 * y and guard pages around every buffer. The AVX-512 rows' plans have their own rows
 * (test_qbinary_plans.c). */
#include "harness.h"

#include "rules/qbinary.h"
#include "test_qbinary.h"


/* The op and arithmetics an entry runs. */
static void entry_kind(int kind, int *op, int *arith)
{
    if (kind == SIMDOPS_KE_qadd_tflite || kind == SIMDOPS_KE_qadd_xnnpack) {
        *op = chance(50) ? SIMDOPS_OP_QUANTIZED_ADD : SIMDOPS_OP_QUANTIZED_SUBTRACT;
        *arith = kind == SIMDOPS_KE_qadd_tflite ? SIMDOPS_ARITH_TFLITE : SIMDOPS_ARITH_XNNPACK;
    } else if (kind == SIMDOPS_KE_qmul_tflite) {
        *op = SIMDOPS_OP_QUANTIZED_MULTIPLY;
        *arith = SIMDOPS_ARITH_TFLITE;
    } else if (kind == SIMDOPS_KE_qmul_fp) {
        *op = SIMDOPS_OP_QUANTIZED_MULTIPLY;
        *arith = chance(50) ? SIMDOPS_ARITH_XNNPACK : SIMDOPS_ARITH_ONNXRUNTIME;
    } else {
        *op = SIMDOPS_OP_QUANTIZED_ADD;
        *arith = SIMDOPS_ARITH_ONNXRUNTIME;
    }
}

static double random_scale(void)
{
    static const double S[] = {1.0, 0.5, 0.25, 0.1, 0.05, 0.0078125, 1.0 / 255, 3.0, 1e-3, 7.5};
    if (chance(40))
        return S[below(sizeof(S) / sizeof(S[0]))];
    return ldexp(1.0 + (double)below(1u << 23) / 8388608.0, (int)below(16) - 12);
}

static int64_t random_zp(int64_t lo, int64_t hi)
{
    if (chance(20))
        return chance(50) ? lo : hi;
    if (chance(20))
        return 0;
    return lo + (int64_t)below((uint32_t)(hi - lo + 1));
}

/* Parameters the entry's runtimes accept (a few tries; 0 when none came). */
int qbinary_random_params(const target *t, simdops_qbinary_params *p)
{
    const simdops_dtype_row *r = &simdops_dtype_rows[t->idx];
    for (int tries = 0; tries < 100; tries++) {
        simdops_qbinary_args a;
        simdops_error err;
        memset(&a, 0, sizeof(a));
        entry_kind(t->kind, &a.op, &a.arithmetic);
        a.a_scale = numf(random_scale());
        a.b_scale = numf(chance(30) ? a.a_scale.f : random_scale());
        a.y_scale = numf(random_scale());
        a.a_zero_point = random_zp(r->lo, r->hi);
        a.b_zero_point = random_zp(r->lo, r->hi);
        a.y_zero_point = random_zp(r->lo, r->hi);
        if (t->idx == SIMDOPS_INT16 && a.op == SIMDOPS_OP_QUANTIZED_MULTIPLY)
            a.a_zero_point = a.b_zero_point = a.y_zero_point = 0;
        if (chance(30)) {
            a.has_min = a.has_max = 1;
            a.min = r->lo + (int64_t)below((uint32_t)(r->hi - r->lo + 1));
            a.max = a.min + (int64_t)below((uint32_t)(r->hi - a.min + 1));
        }
        memset(&err, 0, sizeof(err));
        if (simdops_qbinary_params_init((simdops_dtype)t->idx, &a, p, &err) == SIMDOPS_OK)
            return 1;
    }
    return 0;
}

static void qbinary_case(const target *t, const simdops_qbinary_params *p, size_t n, int form,
                         int inplace)
{
    const int es = DT[t->idx].size;
    const size_t na = form == SIMDOPS_QB_SV ? 1 : n, nb = form == SIMDOPS_QB_VS ? 1 : n;
    size_t ao = adjust_off(t, rand_off(), es), bo = adjust_off(t, rand_off(), es);
    size_t yo = adjust_off(t, rand_off(), es);
    unsigned char src_a[MAXN * 2 + 2], src_b[MAXN * 2 + 2];
    unsigned char *ab, *bb, *wb, *gb;
    void *a, *b, *want, *got;
    size_t yend;
    for (size_t i = 0; i < na; i++)
        put_elem(src_a, i, es, chance(15) ? (chance(50) ? DT[t->idx].lo : DT[t->idx].hi) : rnd());
    for (size_t i = 0; i < nb; i++)
        put_elem(src_b, i, es, chance(15) ? (chance(50) ? DT[t->idx].lo : DT[t->idx].hi) : rnd());
    if (inplace == 1 && form != SIMDOPS_QB_VV && form != SIMDOPS_QB_VS)
        inplace = 0;
    if (inplace == 2 && form != SIMDOPS_QB_VV && form != SIMDOPS_QB_SV)
        inplace = 0;
    if (inplace)
        yo = inplace == 1 ? ao : bo;
    yend = yo + n * (size_t)es;
    ab = alloc_buf(ao + na * (size_t)es);
    bb = alloc_buf(bo + nb * (size_t)es);
    wb = alloc_buf(yend + TRAIL);
    gb = alloc_buf(yend + TRAIL);
    a = ab + ao;
    b = bb + bo;
    want = wb + yo;
    got = gb + yo;
    memcpy(a, src_a, na * (size_t)es);
    memcpy(b, src_b, nb * (size_t)es);
    ((simdops_qbinary_fn)t->ref)(a, b, want, n, form, p);
    if (inplace) { /* y is the input itself: its buffer, refilled */
        void *y = inplace == 1 ? a : b;
        ((simdops_qbinary_fn)t->fn)(a, b, y, n, form, p);
        memcpy(got, y, n * (size_t)es);
        memcpy(a, src_a, na * (size_t)es);
        memcpy(b, src_b, nb * (size_t)es);
    } else {
        ((simdops_qbinary_fn)t->fn)(a, b, got, n, form, p);
    }
    if (memcmp(want, got, n * (size_t)es) || !canary_ok(gb, 0, yo) ||
        !canary_ok(gb, yend, yend + TRAIL) || memcmp(a, src_a, na * (size_t)es) ||
        memcmp(b, src_b, nb * (size_t)es)) {
        fail_head(t, "differs from scalar", n, ao, yo);
        if (printing())
            printf("kind=%d form=%d inplace=%d bo=%zu ", p->kind, form, inplace, bo);
        /* the input printed beside each element is one with n elements */
        report_diff(form == SIMDOPS_QB_SV ? b : a, want, got, n, es, es);
    } else {
        g_pass++;
    }
    free_buf(ab);
    free_buf(bb);
    free_buf(wb);
    free_buf(gb);
}

/* 8-bit types: every (a, b) pair in one row of 65,536 (a the low byte of the
 * index, b the high one), and each one-element form over all 256 values of the
 * other input, for a few parameter sets: a table or a float shortcut that is
 * wrong for one pair cannot pass. */
void qbinary_all_pairs(const target *t, const simdops_qbinary_params *p)
{
    enum { N = 65536 };
    unsigned char *ab = alloc_buf(N), *bb = alloc_buf(N), *wb = alloc_buf(N), *gb = alloc_buf(N);
    for (size_t i = 0; i < N; i++) {
        ab[i] = (unsigned char)i;
        bb[i] = (unsigned char)(i >> 8);
    }
    for (int form = 0; form < 3; form++) {
        /* one-element forms: the scalar input runs over its 256 values, one
         * 256-element row each */
        size_t rows = form == SIMDOPS_QB_VV ? 1 : 256, n = form == SIMDOPS_QB_VV ? N : 256;
        int bad = 0;
        for (size_t r = 0; r < rows && !bad; r++) {
            const void *a = form == SIMDOPS_QB_SV ? (const void *)(bb + r * 256) : (const void *)ab;
            const void *b = form == SIMDOPS_QB_VS ? (const void *)(bb + r * 256) : (const void *)bb;
            if (form == SIMDOPS_QB_SV)
                b = ab;
            if (form == SIMDOPS_QB_VS)
                a = ab;
            ((simdops_qbinary_fn)t->ref)(a, b, wb, n, form, p);
            ((simdops_qbinary_fn)t->fn)(a, b, gb, n, form, p);
            if (memcmp(wb, gb, n)) {
                bad = 1;
                fail_head(t, "all pairs differ from scalar", n, 0, 0);
                if (printing())
                    printf("kind=%d form=%d row=%zu ", p->kind, form, r);
                report_diff(form == SIMDOPS_QB_SV ? b : a, wb, gb, n, 1, 1);
            }
        }
        if (!bad)
            g_pass++;
    }
    /* in place, y = a and y = b (the AVX-512 TFLite rows fix a flagged block from a copy
     * of its inputs there, and defer the fix otherwise) */
    for (int which = 0; which < 2; which++) {
        ((simdops_qbinary_fn)t->ref)(ab, bb, wb, N, SIMDOPS_QB_VV, p);
        memcpy(gb, which ? bb : ab, N);
        ((simdops_qbinary_fn)t->fn)(which ? ab : gb, which ? gb : bb, gb, N, SIMDOPS_QB_VV, p);
        if (memcmp(wb, gb, N)) {
            fail_head(t, which ? "all pairs in place (y = b) differ from scalar"
                               : "all pairs in place (y = a) differ from scalar", N, 0, 0);
            report_diff(ab, wb, gb, N, 1, 1);
        } else {
            g_pass++;
        }
    }
    free_buf(ab);
    free_buf(bb);
    free_buf(wb);
    free_buf(gb);
}

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <xmmintrin.h>
/* The caller's rounding mode (MXCSR RC = toward -inf, +inf, zero): the scalar
 * element of the float entries (ONNX Runtime's add, the fp32 multiply) follows
 * it, so every tier must give the scalar bits under each mode too (a vector
 * step that rounds to nearest in the instruction would not). */
static void qbinary_rounding_modes(const target *t)
{
    const unsigned saved = _mm_getcsr();
    simdops_qbinary_params p;
    for (unsigned rc = 1; rc < 4; rc++) {
        _mm_setcsr((saved & ~0x6000u) | (rc << 13));
        for (int rep = 0; rep < 40; rep++)
            if (qbinary_random_params(t, &p))
                qbinary_case(t, &p, 64 + below(MAXN - 63), (int)below(3), 0);
        if (DT[t->idx].size == 1 && qbinary_random_params(t, &p))
            qbinary_all_pairs(t, &p);
        _mm_setcsr(saved);
    }
}
#else
static void qbinary_rounding_modes(const target *t) { (void)t; }
#endif

/* The fp32 multiply's parameters at and beyond what the AVX-512 int16 rows
 * take (qbinary_fpmul_avx512.h, qb_fpw_ok: |scale| <= 4096 unless the integer
 * zero point is 0): scales around 2^31 / 260100 (where a product's conversion
 * overflows), nonzero integer zero points, offsets up to +-255 and beyond,
 * each through the all-pairs row. A wider scale limit lets INT32_MIN + zp
 * wrap differently from the rows' saturation: the mutant this catches. */
static void qbinary_fp_mul_edges(const target *t)
{
    static const float S[] = {4096.0f, 4097.0f, 8256.0f, 33000.0f, 40000.0f, 1e6f, 1e30f};
    simdops_qbinary_params p;
    for (int rep = 0; rep < 24; rep++) {
        if (!qbinary_random_params(t, &p))
            continue;
        p.scale = chance(50) ? S[below(7)] : -S[below(7)];
        if (chance(70))
            p.y_offset = (int32_t)below(511) - 255;
        if (chance(20))
            p.y_offset = chance(50) ? 256 : -256;
        if (chance(30))
            p.y_offset_f = chance(50) ? 0.0f : (float)(int)below(300) - 150.0f;
        if (chance(30))
            p.a_offset = chance(50) ? 255 : -256;
        if (chance(30))
            p.b_offset = chance(50) ? -255 : 256;
        qbinary_all_pairs(t, &p);
    }
}

void test_qbinary(const target *t)
{
    simdops_qbinary_params p;
    qbinary_rounding_modes(t);
    if (t->kind == SIMDOPS_KE_qmul_fp && DT[t->idx].size == 1)
        qbinary_fp_mul_edges(t);
    if (t->kind == SIMDOPS_KE_qadd_tflite && DT[t->idx].size == 1) {
        qbinary_tfl_plans(t);
        qbinary_tfl_proofs(t);
    }
    if (t->kind == SIMDOPS_KE_qmul_tflite && DT[t->idx].size == 1) {
        qbinary_tfl_mul_plans(t);
        qbinary_tfl_mul_proofs(t);
    }
    if (t->kind == SIMDOPS_KE_qadd_xnnpack && DT[t->idx].size == 1)
        qbinary_xnn_plans(t);
    if (DT[t->idx].size == 1)
        for (int rep = 0; rep < 24; rep++)
            if (qbinary_random_params(t, &p))
                qbinary_all_pairs(t, &p);
    for (size_t n = 0; n <= MAXN; n++)
        for (int rep = 0; rep < 6; rep++) {
            if (!qbinary_random_params(t, &p))
                continue;
            qbinary_case(t, &p, n, (int)below(3), chance(20) ? 1 + (int)below(2) : 0);
        }
    /* long rows: whole vectors of every width plus tails */
    for (int rep = 0; rep < 200; rep++)
        if (qbinary_random_params(t, &p))
            qbinary_case(t, &p, 64 + below(MAXN - 63), (int)below(3), 0);
}
