/* The checks the public-API tests share (test_api.c, test_api_hostile.c, test_api_qbinary.c):
 * pass/fail counting into one pair of counters (test_api.c's entry point
 * sets them, then runs test_api_hostile.c's tests), a bad call's status +
 * reason name + message words, 1-D views. Define API_EXPECT_LABEL (the FAIL
 * lines' prefix) first. */
#ifndef SIMDOPS_TESTS_API_EXPECT_H
#define SIMDOPS_TESTS_API_EXPECT_H

#include <stdio.h>
#include <string.h>

#include "simdops/simdops.h"

extern long *simdops_test_api_pass, *simdops_test_api_fail; /* test_api.c */
void simdops_test_api_hostile(void);                        /* test_api_hostile.c */
void simdops_test_api_qbinary(void);                        /* test_api_qbinary.c */

static void expect(int ok, const char *what)
{
    if (ok) {
        ++*simdops_test_api_pass;
    } else {
        ++*simdops_test_api_fail;
        printf("FAIL " API_EXPECT_LABEL ": %s\n", what);
    }
}

/* status, reason name and message words of a bad call (names, not enum
 * values, so these read the same before the reasons existed) */
static void expect_named(int status, const simdops_error *e, int want_status, const char *reason,
                         const char *word, const char *what)
{
    char msg[512], line[800];
    simdops_error_format(e, msg, sizeof(msg));
    if (status == want_status && e->status == status &&
        strcmp(simdops_reason_name(e->reason), reason) == 0 && strstr(msg, word) != NULL) {
        expect(1, what);
        return;
    }
    snprintf(line, sizeof(line), "%s (status %d, reason %s, message \"%s\")", what, status,
             simdops_reason_name(e->reason), msg);
    expect(0, line);
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

#endif
