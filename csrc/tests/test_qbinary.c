/* Kernel harness: the quantized binary entries (qadd_tflite, qmul_tflite,
 * qadd_xnnpack, qmul_fp, qadd_ort) against the scalar tier: parameters derived
 * by simdops_qbinary_params_init from random model numbers (scales over many
 * binades, zero points at and inside the type's ends, activation bounds),
 * inputs with the type's extremes (saturation), every length 0..MAXN, the three
 * broadcast forms, any byte offsets, in place (y == a, y == b), canaries after
 * y and guard pages around every buffer. */
#include "harness.h"

#include "rules/qbinary.h"
#include "kernels/qbinary/qbinary_plan.h"


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
static int random_params(const target *t, simdops_qbinary_params *p)
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
static void qbinary_all_pairs(const target *t, const simdops_qbinary_params *p)
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
            if (random_params(t, &p))
                qbinary_case(t, &p, 64 + below(MAXN - 63), (int)below(3), 0);
        if (DT[t->idx].size == 1 && random_params(t, &p))
            qbinary_all_pairs(t, &p);
        _mm_setcsr(saved);
    }
}
#else
static void qbinary_rounding_modes(const target *t) { (void)t; }
#endif

static void qbinary_stored_plan(const target *t, const simdops_qbinary_params *p);

/* XNNPACK's 8-bit add: every combination of the rows' plan (qbinary_xnn_plan.h:
 * zero point folded or not, bounds kept or the type's own, multipliers that
 * split for the pair rows or not: a_mult moved to 128 mod 257; the pair rows'
 * high words or not) meets the
 * all-pairs row, so each loop of every tier is compared with scalar; a
 * combination never reached fails. */
static void qbinary_xnn_plans(const target *t)
{
    simdops_qbinary_params p;
    int hit[16] = {0}, missing = 0;
    for (int tries = 0; tries < 4000; tries++) {
        qb_xnn_plan pl;
        int c;
        if (!random_params(t, &p))
            continue;
        if (tries < 4) /* the plan as the init stored it, and ones the kernel must refuse */
            qbinary_stored_plan(t, &p);
        if (chance(30))
            p.a_mult += (int32_t)(((128 - (int64_t)p.a_mult) % 257 + 257) % 257);
        if (chance(30)) { /* one bound the type's own, the other perhaps not */
            if (chance(50))
                p.lo = (int32_t)DT[t->idx].lo;
            else
                p.hi = (int32_t)DT[t->idx].hi;
        }
        p.plan.derived = 0; /* fields changed after the init: the kernel derives its plan */
        qb_xnn_plan_init(&pl, &p, t->idx == SIMDOPS_UINT8);
        c = 8 * pl.high + 4 * pl.fold + 2 * pl.clamp + pl.pairs;
        if (hit[c]++ < 2)
            qbinary_all_pairs(t, &p);
    }
    for (int c = 0; c < 16; c++)
        /* high only with pairs; pairs without high always fold */
        missing += !hit[c] && !(c >= 8 && !(c & 1)) && !(c < 8 && (c & 1) && !(c & 4));
    if (missing)
        fail_head(t, "XNNPACK add plans not all reached", (size_t)missing, 0, 0);
    else
        g_pass++;
}

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
        if (!random_params(t, &p))
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

/* Another kind's stored plan for the type: the parameters' init for kind's entry with
 * the benchmark's numbers (every plan kind takes them: a nonzero plan) */
static void plan_of_kind(int32_t kind, simdops_dtype dt, simdops_qbinary_params *q)
{
    simdops_qbinary_args a;
    simdops_error err;
    memset(&a, 0, sizeof(a));
    a.op = kind == SIMDOPS_QB_TFLITE_MUL ? SIMDOPS_OP_QUANTIZED_MULTIPLY : SIMDOPS_OP_QUANTIZED_ADD;
    a.arithmetic = kind == SIMDOPS_QB_XNNPACK_ADD ? SIMDOPS_ARITH_XNNPACK : SIMDOPS_ARITH_TFLITE;
    a.a_scale = numf(0.0417f);
    a.b_scale = numf(0.0388f);
    a.y_scale = numf(kind == SIMDOPS_QB_TFLITE_MUL ? 0.0271f : 0.0712f);
    a.a_zero_point = 3;
    a.b_zero_point = dt == SIMDOPS_UINT8 ? 5 : -5;
    a.y_zero_point = 1;
    memset(&err, 0, sizeof(err));
    if (simdops_qbinary_params_init(dt, &a, q, &err) != SIMDOPS_OK || q->kind != kind ||
        q->plan.derived != SIMDOPS_QB_PLAN_TAG(kind, dt == SIMDOPS_UINT8))
        memset(q, 0, sizeof(*q));
}

/* The parameters' plan slot (qbinary_plan.h) of a parameter set p the init derived: the
 * stored plan is the one derived afresh (tag and bytes), and the all-pairs row meets
 * the kernel with the slot as stored, cleared (the kernel derives it), holding the
 * other 8-bit type's plan of p, and holding another kind's plan (a parameter set of
 * that kind's): the kernel must take neither (the test it uses, QB_PLAN_STORED, is
 * asked too). The mutant QB_PLAN_MUTANT_ANY_KIND (the kind not checked) reads another
 * kind's layout and fails here. */
static void qbinary_stored_plan(const target *t, const simdops_qbinary_params *p)
{
    static const int32_t kinds[3] = {SIMDOPS_QB_TFLITE_ADD, SIMDOPS_QB_TFLITE_MUL,
                                     SIMDOPS_QB_XNNPACK_ADD};
    const int u8 = t->idx == SIMDOPS_UINT8;
    simdops_qbinary_params fresh = *p, none = *p, other = *p;
    qb_plan_store(&fresh, u8);
    if (p->plan.derived != SIMDOPS_QB_PLAN_TAG(p->kind, u8) || !QB_PLAN_STORED(p, p->kind, u8) ||
        memcmp(&fresh.plan, &p->plan, sizeof(p->plan)))
        fail_head(t, "stored plan: not the one the parameters' init derives", 0, 0, 0);
    else
        g_pass++;
    qbinary_all_pairs(t, p);
    none.plan.derived = 0;
    qbinary_all_pairs(t, &none);
    qb_plan_store(&other, !u8);
    if (QB_PLAN_STORED(&other, p->kind, u8))
        fail_head(t, "stored plan: the other type's plan taken", 0, 0, 0);
    qbinary_all_pairs(t, &other);
    for (int k = 0; k < 3; k++) {
        simdops_qbinary_params q, wrong = *p;
        if (kinds[k] == p->kind)
            continue;
        plan_of_kind(kinds[k], (simdops_dtype)t->idx, &q);
        if (!q.plan.derived) {
            fail_head(t, "stored plan: no plan of another kind to test with", (size_t)k, 0, 0);
            continue;
        }
        wrong.plan = q.plan;
        /* the kernels' test itself (the TFLite multiply's rows would also survive some
         * wrong plans: constants that flag every lane send it to the exact int32 step) */
        if (QB_PLAN_STORED(&wrong, p->kind, u8))
            fail_head(t, "stored plan: another kind's plan taken", (size_t)k, 0, 0);
        else
            g_pass++;
        qbinary_all_pairs(t, &wrong);
    }
}

/* TFLite's 8-bit add, the AVX-512 rows' plan (qbinary_tfl_plan.h): parameter
 * sets it takes meet the all-pairs row (every input pair, so every lane of
 * the window, flagged or not); and among them, pairs whose V lies in the
 * window, i.e. the rows' scalar recompute runs, counted by the plan's own
 * arithmetic (in int64). Fails when the plan is never taken or no pair was
 * ever flagged: the fallback would go untested. Each also meets
 * qbinary_stored_plan's rows (the plan as the init stored it, none, another
 * type's, another kind's). */
static void qbinary_tfl_plans(const target *t)
{
    simdops_qbinary_params p;
    const int u8 = t->idx == SIMDOPS_UINT8;
    const int32_t tlo = u8 ? 0 : -128, thi = u8 ? 255 : 127;
    long taken = 0, flagged = 0;
    for (int tries = 0; tries < 60; tries++) {
        qb_tfl_plan tp;
        if (!random_params(t, &p))
            continue;
        qb_tfl_plan_init(&tp, &p, u8);
        if (!tp.ok)
            continue;
        taken++;
        for (int32_t a = tlo; a <= thi; a++)
            for (int32_t b = tlo; b <= thi; b++) {
                int64_t v = (int64_t)a * tp.ma + (int64_t)b * tp.mb + tp.bias;
                flagged += ((uint32_t)v & tp.window) == 0;
            }
        if (taken <= 6) /* the parameters' stored plan and the ones the kernel must refuse */
            qbinary_stored_plan(t, &p);
        else
            qbinary_all_pairs(t, &p);
    }
    if (!taken || !flagged) {
        fail_head(t, "TFLite add plan: not taken or no pair flagged", (size_t)taken, 0, 0);
    } else {
        g_pass++;
        if (printing() && g_verbose)
            printf("tflite add plan: %ld parameter sets, %ld pairs flagged\n", taken, flagged);
    }
}

/* Whether the AVX-512 TFLite multiply rows flag the product x (the plan's float
 * arithmetic in scalar: fmaf and rintf round to nearest here, as the rows'
 * embedded rounding; out of int32: INT32_MIN, flagged). */
static int tmf_flagged(const qb_tmf_plan *tp, int32_t x)
{
    const float f = fmaf((float)x, tp->mu, x < 0 ? tp->cneg : tp->cpos);
    const int32_t j = f >= -2147483648.0f && f < 2147483648.0f ? (int32_t)rintf(f) : INT32_MIN;
    return ((uint32_t)j & tp->window) == 0;
}

/* TFLite's 8-bit multiply, the AVX-512 rows' plan (qbinary_tfl_mul_plan.h):
 * parameter sets it takes meet the all-pairs row (every input pair, so every
 * lane of the window, flagged or not), random ones and ones built to sit on
 * the window: M = 2^30 + d (d < 64, below float's precision at 2^30) puts the
 * products with p + sgn(p) = 2^e mod 2^(e+1) a distance p d 2^(16-31-e) < 1
 * unit from a rounding boundary, on the side that p's sign picks, so a window
 * narrower than the proof's a (the mutant QB_TMF_WINDOW_DIV = 2) leaves the
 * negative ones wrong. Counts the flagged pairs by the plan's own arithmetic
 * (the rows' int32 recompute runs); fails when the plan is never taken, one of
 * its three forms (the sign spread, the product picking c+ / c- with or without
 * a moved output offset) never, or no pair was ever flagged. */
static void qbinary_tfl_mul_plans(const target *t)
{
    simdops_qbinary_params p;
    const int u8 = t->idx == SIMDOPS_UINT8;
    const int32_t tlo = u8 ? 0 : -128, thi = u8 ? 255 : 127;
    long taken = 0, flagged = 0, forms[3] = {0, 0, 0}, stored = 0;
    for (int tries = 0; tries < 80; tries++) {
        qb_tmf_plan tp;
        if (!random_params(t, &p))
            continue;
        if (tries % 2) { /* on the window */
            p.y_mult = (1 << 30) + (int32_t)below(64);
            p.y_shift = 1 + (int32_t)below(8);
            p.left_shift = 0;
            if (tries % 4 == 1) /* an offset the pick form takes as it is */
                p.y_offset = u8 || chance(50) ? 1 : -2;
            p.plan.derived = 0; /* fields changed after the init: the kernel derives its plan */
        }
        qb_tmf_plan_init(&tp, &p, u8);
        if (tp.ok)
            forms[tp.pick ? (tp.zp_add ? 1 : 2) : 0]++;
        if (!tp.ok)
            continue;
        taken++;
        for (int32_t a = tlo; a <= thi; a++)
            for (int32_t b = tlo; b <= thi; b++)
                flagged += tmf_flagged(&tp, (a + p.a_offset) * (b + p.b_offset));
        if (p.plan.derived && ++stored <= 6) /* as the init stored it, and refused ones */
            qbinary_stored_plan(t, &p);
        else
            qbinary_all_pairs(t, &p);
    }
    if (!taken || !flagged || !forms[0] || !forms[1] || !forms[2]) {
        fail_head(t, "TFLite multiply plan: not taken, a form never taken or no pair flagged",
                  (size_t)taken, 0, 0);
    } else {
        g_pass++;
        if (printing() && g_verbose)
            printf("tflite multiply plan: %ld parameter sets (sign spread %ld, picked with an "
                   "offset moved %ld, picked %ld), %ld pairs flagged\n",
                   taken, forms[0], forms[1], forms[2], flagged);
    }
}

void test_qbinary(const target *t)
{
    simdops_qbinary_params p;
    qbinary_rounding_modes(t);
    if (t->kind == SIMDOPS_KE_qmul_fp && DT[t->idx].size == 1)
        qbinary_fp_mul_edges(t);
    if (t->kind == SIMDOPS_KE_qadd_tflite && DT[t->idx].size == 1)
        qbinary_tfl_plans(t);
    if (t->kind == SIMDOPS_KE_qmul_tflite && DT[t->idx].size == 1)
        qbinary_tfl_mul_plans(t);
    if (t->kind == SIMDOPS_KE_qadd_xnnpack && DT[t->idx].size == 1)
        qbinary_xnn_plans(t);
    if (DT[t->idx].size == 1)
        for (int rep = 0; rep < 24; rep++)
            if (random_params(t, &p))
                qbinary_all_pairs(t, &p);
    for (size_t n = 0; n <= MAXN; n++)
        for (int rep = 0; rep < 6; rep++) {
            if (!random_params(t, &p))
                continue;
            qbinary_case(t, &p, n, (int)below(3), chance(20) ? 1 + (int)below(2) : 0);
        }
    /* long rows: whole vectors of every width plus tails */
    for (int rep = 0; rep < 200; rep++)
        if (random_params(t, &p))
            qbinary_case(t, &p, 64 + below(MAXN - 63), (int)below(3), 0);
}
