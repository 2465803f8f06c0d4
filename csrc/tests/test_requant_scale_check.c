/* Harness: the float families' per-channel scale check (simdops_requant_check_scales and
 * _floor, rules/requant_families.c): its window pass (every |scale| in
 * [SIMDOPS_RQ_SCALE_FLOOR, 1) answers finite, below one and above the floor at once) and
 * the general pass behind it, against a reference in float comparisons (isfinite, fabsf):
 * status, the first non-finite scale's index, *below_one and *above_floor. Arrays of 0 to
 * 300 scales drawn at the window's edges (the floor and the float below it, 1.0 and the
 * float below it, zeros, subnormals, infinities, NaNs, both signs) at every position.
 * Three mutants of the window pass must fail: one float wider at either end, and its
 * one-sided form's threshold one high (arrays of one value, 1.0 among them, catch it). */
#include "harness.h"
#include "rules/params.h"

typedef int (*scale_check_fn)(const float *scale, int64_t n, int *below_one, int *above_floor,
                              simdops_error *err);

static float edge_scale(void)
{
    const float floor = SIMDOPS_RQ_SCALE_FLOOR;
    float s;
    switch (below(12)) {
    case 0: s = floor; break;
    case 1: s = nextafterf(floor, 0.0f); break;
    case 2: s = nextafterf(floor, 1.0f); break;
    case 3: s = 1.0f; break;
    case 4: s = nextafterf(1.0f, 0.0f); break;
    case 5: s = 0.0f; break;
    case 6: s = ldexpf(1.0f, -130 - (int)below(19)); break; /* subnormal */
    case 7: s = chance(50) ? INFINITY : NAN; break;
    case 8: s = ldexpf(1.0f + (float)below(1u << 23) * ldexpf(1.0f, -23), (int)below(128)); break;
    default: s = (float)(1 + below(100000)) * 1e-7f; break; /* the scales in use */
    }
    return chance(30) ? -s : s;
}

/* the checks' answers, from float comparisons */
static void reference(const float *scale, int64_t n, int *status, int64_t *index,
                      int *below_one, int *above_floor)
{
    *status = SIMDOPS_OK;
    *index = -1;
    *below_one = *above_floor = 1;
    for (int64_t k = 0; k < n; k++) {
        if (!isfinite(scale[k])) {
            *status = SIMDOPS_E_PARAM;
            *index = k;
            return;
        }
        if (!(fabsf(scale[k]) < 1.0f))
            *below_one = 0;
        if (!(fabsf(scale[k]) >= SIMDOPS_RQ_SCALE_FLOOR))
            *above_floor = 0;
    }
}

/* 1 when fn gives the reference's answers on scale[0..n) */
static int agrees(scale_check_fn fn, const float *scale, int64_t n)
{
    int status, below_one, above_floor, got_below = -1, got_above = -1;
    int64_t index;
    simdops_error err;
    reference(scale, n, &status, &index, &below_one, &above_floor);
    memset(&err, 0, sizeof err);
    const int s = fn(scale, n, &got_below, &got_above, &err);
    if (status != SIMDOPS_OK)
        return s == status && err.status == status && err.index == index &&
               err.reason == SIMDOPS_R_NOT_FINITE_SCALE;
    return s == SIMDOPS_OK && got_below == below_one && got_above == above_floor;
}

static int check_floor(const float *scale, int64_t n, int *below_one, int *above_floor,
                       simdops_error *err)
{
    return simdops_requant_check_scales_floor(scale, n, below_one, above_floor, err);
}

static int check_plain(const float *scale, int64_t n, int *below_one, int *above_floor,
                       simdops_error *err)
{
    *above_floor = 1; /* not this check's answer: the reference's is taken */
    int s = simdops_requant_check_scales(scale, n, below_one, err);
    if (s == SIMDOPS_OK) {
        for (int64_t k = 0; k < n; k++)
            if (!(fabsf(scale[k]) >= SIMDOPS_RQ_SCALE_FLOOR))
                *above_floor = 0;
    }
    return s;
}

/* the window pass with its bits' bounds moved by lo_more below and hi_more above, then the
 * real check behind it: a window wider than [floor, 1) claims what is not so */
static int mutant_window(const float *scale, int64_t n, uint32_t lo_more, uint32_t hi_more,
                         int *below_one, int *above_floor, simdops_error *err)
{
    const float floor = SIMDOPS_RQ_SCALE_FLOOR, one = 1.0f;
    uint32_t lb, hb, bad = 0;
    memcpy(&lb, &floor, sizeof lb);
    memcpy(&hb, &one, sizeof hb);
    lb -= lo_more;
    hb += hi_more;
    for (int64_t k = 0; k < n; k++) {
        uint32_t bits;
        memcpy(&bits, &scale[k], sizeof bits);
        const uint32_t d = (bits & 0x7fffffffu) - lb;
        bad |= d | (hb - lb - 1 - d);
    }
    if (!(bad >> 31)) {
        *below_one = *above_floor = 1;
        return SIMDOPS_OK;
    }
    return simdops_requant_check_scales_floor(scale, n, below_one, above_floor, err);
}

/* the window pass's one-sided form (its span a power of two) with its threshold one high:
 * an OR of exactly span (every scale 1.0, or 1.0 and the floor) passes as inside */
static int mutant_or_threshold(const float *scale, int64_t n, int *below_one, int *above_floor,
                               simdops_error *err)
{
    const float floor = SIMDOPS_RQ_SCALE_FLOOR, one = 1.0f;
    uint32_t lb, hb, bad = 0;
    memcpy(&lb, &floor, sizeof lb);
    memcpy(&hb, &one, sizeof hb);
    for (int64_t k = 0; k < n; k++) {
        uint32_t bits;
        memcpy(&bits, &scale[k], sizeof bits);
        bad |= (bits & 0x7fffffffu) - lb;
    }
    if (bad <= hb - lb) {
        *below_one = *above_floor = 1;
        return SIMDOPS_OK;
    }
    return simdops_requant_check_scales_floor(scale, n, below_one, above_floor, err);
}

static int mutant_low(const float *scale, int64_t n, int *below_one, int *above_floor,
                      simdops_error *err)
{
    return mutant_window(scale, n, 1, 0, below_one, above_floor, err);
}

static int mutant_high(const float *scale, int64_t n, int *below_one, int *above_floor,
                       simdops_error *err)
{
    return mutant_window(scale, n, 0, 1, below_one, above_floor, err);
}

void test_requant_scale_check(void)
{
    enum { MAXN = 300, CASES = 4000 };
    static const struct {
        const char *name;
        scale_check_fn fn;
        int mutant;
    } checks[] = {{"check_scales_floor", check_floor, 0},
                  {"check_scales", check_plain, 0},
                  {"mutant: window one float below the floor", mutant_low, 1},
                  {"mutant: window one float past 1.0", mutant_high, 1},
                  {"mutant: the one-sided window's threshold one high", mutant_or_threshold, 1}};
    float *scale = (float *)(void *)alloc_buf(MAXN * sizeof(float));
    long wrong[5] = {0, 0, 0, 0, 0}, cases = 0;
    for (int c = 0; c < CASES; c++) {
        const int64_t n = c < 8 ? c : (int64_t)below(MAXN + 1);
        /* mostly scales in use, with one or a few edge values among them (the window's
         * answer turns on a single element), now and then all drawn at the edges */
        const int all_edges = chance(10), one_value = !all_edges && chance(5);
        const float v = edge_scale();
        for (int64_t k = 0; k < n; k++)
            scale[k] = one_value ? (chance(50) ? v : -v)
                       : all_edges ? edge_scale() : (float)(1 + below(100000)) * 1e-7f;
        for (int e = (int)below(3); e > 0 && n > 0 && !all_edges && !one_value; e--)
            scale[below((uint32_t)n)] = edge_scale();
        cases++;
        for (int i = 0; i < 5; i++)
            wrong[i] += !agrees(checks[i].fn, scale, n);
    }
    for (int i = 0; i < 5; i++) {
        const int ok = checks[i].mutant ? wrong[i] > 0 : wrong[i] == 0;
        if (ok) {
            g_pass++;
        } else {
            g_fail++;
            printf("FAIL test_requant_scale_check[%s]: %ld of %ld arrays %s\n", checks[i].name,
                   wrong[i], cases, checks[i].mutant ? "caught (none: the test cannot fail)"
                                                     : "differ from the reference");
        }
    }
    printf("test_requant_scale_check: %ld arrays; the checks agree with the reference on all; "
           "mutants caught on %ld, %ld and %ld\n", cases, wrong[2], wrong[3], wrong[4]);
    free_buf(scale);
}
