/* The shared rules of csrc/rules/rules.c at their edges: byte ranges near the ends
 * of the address space (no wrap-around), lengths up to 2^64 - 1, axes with
 * positions, per-channel shapes, the 64-bit integer ranges. */
#include <stdio.h>

#include "harness.h"
#include "rules/rules.h"

static long rules_pass, rules_fail;

static void expect(int ok, const char *what, long line)
{
    if (ok) {
        rules_pass++;
        return;
    }
    rules_fail++;
    printf("FAIL rules: %s (line %ld)\n", what, line);
}
#define EXPECT(cond) expect((cond), #cond, __LINE__)

static const void *at(uint64_t address) { return (const void *)(uintptr_t)address; }

static void test_overlap(void)
{
    const uint64_t top = (uint64_t)UINTPTR_MAX;
    simdops_error err;
    EXPECT(!simdops_ranges_overlap(at(100), 10, at(110), 10));
    EXPECT(simdops_ranges_overlap(at(100), 10, at(109), 10));
    EXPECT(simdops_ranges_overlap(at(109), 10, at(100), 10));
    EXPECT(!simdops_ranges_overlap(at(100), 0, at(100), 10)); /* empty shares nothing */
    EXPECT(!simdops_ranges_overlap(at(100), 10, at(100), 0));
    /* ends past the address space would wrap as end addresses; distances do not */
    EXPECT(simdops_ranges_overlap(at(top - 4), UINT64_MAX, at(top - 2), 1));
    EXPECT(!simdops_ranges_overlap(at(top - 4), 2, at(top - 2), 2));
    EXPECT(simdops_ranges_overlap(at(16), UINT64_MAX, at(top), 1));
    EXPECT(!simdops_ranges_overlap(at(top), 1, at(16), top - 16));
    EXPECT(simdops_check_disjoint(at(64), 8, at(64), 8, 1, &err) == SIMDOPS_OK);
    EXPECT(simdops_check_disjoint(at(64), 8, at(64), 8, 0, &err) == SIMDOPS_E_OVERLAP &&
           err.reason == SIMDOPS_R_PARTIAL_OVERLAP && err.arg == SIMDOPS_ARG_OUT);
    EXPECT(simdops_check_disjoint(at(64), 8, at(68), 8, 1, &err) == SIMDOPS_E_OVERLAP);
}

static void test_axes(void)
{
    simdops_error err;
    int reduced[4] = {0};
    const int64_t ok[] = {-1, 0}, out[] = {0, 3}, big[] = {1, INT64_MIN}, rep[] = {1, 2, -2};
    EXPECT(simdops_reduced_axes(3, 2, ok, reduced, &err) == SIMDOPS_OK && reduced[0] &&
           !reduced[1] && reduced[2]);
    for (int i = 0; i < 4; i++)
        reduced[i] = 0;
    EXPECT(simdops_reduced_axes(3, 2, out, reduced, &err) == SIMDOPS_E_PARAM &&
           err.reason == SIMDOPS_R_AXIS_RANGE && err.value == 3 && err.index == 1);
    for (int i = 0; i < 4; i++)
        reduced[i] = 0;
    EXPECT(simdops_reduced_axes(3, 2, big, reduced, &err) == SIMDOPS_E_PARAM &&
           err.reason == SIMDOPS_R_AXIS_RANGE && err.value == INT64_MIN && err.index == 1);
    for (int i = 0; i < 4; i++)
        reduced[i] = 0;
    EXPECT(simdops_reduced_axes(3, 3, rep, reduced, &err) == SIMDOPS_E_PARAM &&
           err.reason == SIMDOPS_R_AXIS_REPEATED && err.value == 1 && err.index == 2);
    EXPECT(simdops_reduced_axes(3, 0, ok, reduced, &err) == SIMDOPS_E_PARAM &&
           err.reason == SIMDOPS_R_AXES_EMPTY);
}

static void test_shapes_and_numbers(void)
{
    simdops_error err;
    simdops_tensor x = {0}, y = {0}, v = {0};
    int64_t lo;
    uint64_t hi;
    x.dtype = SIMDOPS_INT32;
    x.ndim = 2;
    x.shape[0] = 3;
    x.shape[1] = 5;
    y = x;
    EXPECT(simdops_check_same_shape(&x, &y, SIMDOPS_INT32, &err) == SIMDOPS_OK);
    EXPECT(simdops_check_same_shape(&x, &y, SIMDOPS_UINT8, &err) == SIMDOPS_E_DTYPE &&
           err.reason == SIMDOPS_R_DTYPE_MISMATCH);
    y.shape[1] = 4;
    EXPECT(simdops_check_same_shape(&x, &y, SIMDOPS_INT32, &err) == SIMDOPS_E_SHAPE &&
           err.reason == SIMDOPS_R_SHAPE_MISMATCH && err.index == 1 && err.value == 4 &&
           err.expected == 5);
    y.ndim = 3;
    EXPECT(simdops_check_same_shape(&x, &y, SIMDOPS_INT32, &err) == SIMDOPS_E_SHAPE &&
           err.reason == SIMDOPS_R_NDIM_MISMATCH);
    v.dtype = SIMDOPS_INT32;
    v.ndim = 1;
    v.shape[0] = 5;
    EXPECT(simdops_check_channels(&v, SIMDOPS_ARG_BIAS, SIMDOPS_INT32, &x, &err) == SIMDOPS_OK);
    v.shape[0] = 4;
    EXPECT(simdops_check_channels(&v, SIMDOPS_ARG_BIAS, SIMDOPS_INT32, &x, &err) == SIMDOPS_E_SHAPE &&
           err.reason == SIMDOPS_R_CHANNELS && err.index == 4 && err.expected == 5);
    x.ndim = 0;
    EXPECT(simdops_check_channels(&v, SIMDOPS_ARG_BIAS, SIMDOPS_INT32, &x, &err) == SIMDOPS_E_SHAPE &&
           err.reason == SIMDOPS_R_NEEDS_AXIS);
    EXPECT(simdops_check_int32(SIMDOPS_ARG_MIN, INT32_MIN, &err) == SIMDOPS_OK);
    EXPECT(simdops_check_int32(SIMDOPS_ARG_MIN, (int64_t)INT32_MAX + 1, &err) == SIMDOPS_E_PARAM &&
           err.reason == SIMDOPS_R_INT32_RANGE);
    EXPECT(simdops_check_bound(SIMDOPS_INT8, SIMDOPS_ARG_MAX, 127, &err) == SIMDOPS_OK);
    EXPECT(simdops_check_bound(SIMDOPS_INT8, SIMDOPS_ARG_MAX, 128, &err) == SIMDOPS_E_PARAM &&
           err.reason == SIMDOPS_R_BOUND_RANGE && err.dtype == SIMDOPS_INT8);
    EXPECT(simdops_check_min_max(2, 2, &err) == SIMDOPS_OK);
    EXPECT(simdops_check_min_max(3, 2, &err) == SIMDOPS_E_PARAM &&
           err.reason == SIMDOPS_R_MIN_ABOVE_MAX);
    EXPECT(simdops_dtype_int_range(SIMDOPS_UINT64, &lo, &hi) && lo == 0 && hi == UINT64_MAX);
    EXPECT(simdops_dtype_int_range(SIMDOPS_INT64, &lo, &hi) && lo == INT64_MIN &&
           hi == (uint64_t)INT64_MAX);
    EXPECT(simdops_dtype_int_range(SIMDOPS_UINT16, &lo, &hi) && lo == 0 && hi == 65535);
    EXPECT(!simdops_dtype_int_range(SIMDOPS_FLOAT16, &lo, &hi));
    EXPECT(!simdops_dtype_int_range(SIMDOPS_UNKNOWN, &lo, &hi));
}

void test_rules(long *pass, long *fail)
{
    rules_pass = rules_fail = 0;
    test_overlap();
    test_axes();
    test_shapes_and_numbers();
    printf("shared rules: %ld passed, %ld failed\n", rules_pass, rules_fail);
    *pass += rules_pass;
    *fail += rules_fail;
}
