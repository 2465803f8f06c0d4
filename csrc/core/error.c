/* Reasons -> statuses and messages (the lists live in simdops.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/errors.h"

static const struct {
    int status;
    const char *message, *name;
} reasons[SIMDOPS_R_COUNT] = {
#define SIMDOPS_X_REASON_ROW(name, status, message) {status, message, #name},
    SIMDOPS_REASONS(SIMDOPS_X_REASON_ROW)
#undef SIMDOPS_X_REASON_ROW
};

static const char *const arg_names[SIMDOPS_ARG_COUNT] = {
#define SIMDOPS_X_ARG_NAME(name, text) text,
    SIMDOPS_ARGS(SIMDOPS_X_ARG_NAME)
#undef SIMDOPS_X_ARG_NAME
};

#define SIMDOPS_X_OP_LINE(name, code, text) +1
/* Every code from 0 to SIMDOPS_OP_COUNT - 1 has its line: a missing one would
 * leave a NULL name for simdops_error_format to print. */
typedef char every_code_below_SIMDOPS_OP_COUNT_needs_its_SIMDOPS_OPS_line
    [(0 SIMDOPS_OPS(SIMDOPS_X_OP_LINE)) == SIMDOPS_OP_COUNT ? 1 : -1];
#undef SIMDOPS_X_OP_LINE

static const char *const op_names[SIMDOPS_OP_COUNT] = {
#define SIMDOPS_X_OP_NAME(name, code, text) [code] = text,
    SIMDOPS_OPS(SIMDOPS_X_OP_NAME)
#undef SIMDOPS_X_OP_NAME
};

int simdops_reason_status(int reason)
{
    return reason >= 0 && reason < SIMDOPS_R_COUNT ? reasons[reason].status : SIMDOPS_E_PARAM;
}

const char *simdops_reason_message(int reason)
{
    return reason >= 0 && reason < SIMDOPS_R_COUNT ? reasons[reason].message : "unknown reason";
}

const char *simdops_reason_name(int reason)
{
    return reason >= 0 && reason < SIMDOPS_R_COUNT ? reasons[reason].name : "";
}

const char *simdops_status_message(int status)
{
    switch (status) {
    case SIMDOPS_OK: return "ok";
    case SIMDOPS_E_DTYPE: return "unsupported dtype for this operation";
    case SIMDOPS_E_SHAPE: return "shape mismatch";
    case SIMDOPS_E_PARAM: return "invalid parameter";
    case SIMDOPS_E_OVERLAP: return "output has elements that share memory";
    case SIMDOPS_E_NOMEM: return "out of memory";
    case SIMDOPS_E_ISA: return "ISA not available";
    default: return "unknown status";
    }
}

const char *simdops_arg_name(int arg)
{
    return arg >= 0 && arg < SIMDOPS_ARG_COUNT ? arg_names[arg] : "";
}

const char *simdops_op_name(int op)
{
    /* one case per line: two lines with one code are a duplicate case */
    switch (op) {
#define SIMDOPS_X_OP_CASE(name, code, text) case code:
        SIMDOPS_OPS(SIMDOPS_X_OP_CASE)
#undef SIMDOPS_X_OP_CASE
        return op_names[op];
    }
    return "";
}

int simdops_fail_value(simdops_error *err, int reason, int arg, int64_t value, int64_t expected)
{
    int op = err->op;
    memset(err, 0, sizeof(*err));
    err->op = op;
    err->status = simdops_reason_status(reason);
    err->reason = reason;
    err->arg = arg;
    err->index = -1;
    err->value = value;
    err->expected = expected;
    return err->status;
}

int simdops_fail(simdops_error *err, int reason, int arg)
{
    return simdops_fail_value(err, reason, arg, 0, 0);
}

int simdops_fail_dtype(simdops_error *err, int reason, int arg, simdops_dtype dtype,
                       simdops_dtype expected)
{
    simdops_fail_value(err, reason, arg, dtype, expected);
    err->dtype = dtype;
    return err->status;
}

/* Appends to buf[*len..cap), keeping the count of what was needed. */
typedef struct out {
    char *buf;
    size_t cap, len;
} out;

static void put(out *o, const char *s)
{
    size_t n = strlen(s);
    if (o->len < o->cap) {
        size_t room = o->cap - o->len - 1;
        memcpy(o->buf + o->len, s, n < room ? n : room);
        o->buf[o->len + (n < room ? n : room)] = '\0';
    }
    o->len += n;
}

static void put_i64(out *o, int64_t v)
{
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
    put(o, tmp);
}

/* The dtypes op accepts, as "float16, float32, ..." (sorted by name). */
static void put_supported(out *o, int op)
{
    const char *names[SIMDOPS_DTYPE_COUNT];
    int n = 0;
    for (int d = 1; d < SIMDOPS_DTYPE_COUNT; d++)
        if (simdops_op_supports(op, (simdops_dtype)d))
            names[n++] = simdops_dtype_name((simdops_dtype)d);
    for (int i = 1; i < n; i++) /* insertion sort: a dozen names */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        if (i)
            put(o, ", ");
        put(o, names[i]);
    }
}

size_t simdops_error_format(const simdops_error *e, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    const char *t;
    int op;
    if (cap)
        buf[0] = '\0';
    if (!e)
        return 0;
    op = e->op;
    /* the dtype list of an output argument is the op's output list */
    if (op == SIMDOPS_OP_REQUANT && (e->arg == SIMDOPS_ARG_OUT || e->arg == SIMDOPS_ARG_OUT_DTYPE))
        op = SIMDOPS_OP_REQUANT_OUT;
    if (*simdops_op_name(op)) {
        put(&o, simdops_op_name(op));
        put(&o, ": ");
    }
    for (t = simdops_reason_message(e->reason); *t; t++) {
        char c[2] = {*t, '\0'};
        if (*t != '%' || !t[1]) {
            put(&o, c);
            continue;
        }
        switch (*++t) {
        case 'A': put(&o, simdops_arg_name(e->arg)); break;
        case 'O': put(&o, simdops_op_name(op)); break;
        case 'D': put(&o, simdops_dtype_name((simdops_dtype)e->dtype)); break;
        case 'X': put(&o, simdops_dtype_name((simdops_dtype)e->expected)); break;
        case 'S': put_supported(&o, op); break;
        case 'V': put_i64(&o, e->value); break;
        case 'E': put_i64(&o, e->expected); break;
        case 'I': put_i64(&o, e->index); break;
        case 'L':
        case 'H':
            if (simdops_dtype_valid(e->dtype))
                put_i64(&o, *t == 'L' ? simdops_dtype_rows[e->dtype].lo
                                      : simdops_dtype_rows[e->dtype].hi);
            break;
        case 'N': { /* the number as given: a real (fvalue) or an integer (value) */
            char tmp[40];
            if (e->fvalue != 0.0 || e->value == 0) {
                /* the shortest form that reads back as the same double */
                for (int prec = 1; prec <= 17; prec++) {
                    snprintf(tmp, sizeof(tmp), "%.*g", prec, e->fvalue);
                    if (strtod(tmp, NULL) == e->fvalue)
                        break;
                }
            } else
                snprintf(tmp, sizeof(tmp), "%lld", (long long)e->value);
            put(&o, tmp);
            break;
        }
        case 'J': /* " at index I" for per-channel values */
            if (e->index >= 0) {
                put(&o, " at index ");
                put_i64(&o, e->index);
            }
            break;
        default: put(&o, c); c[0] = *t; put(&o, c); break;
        }
    }
    return o.len;
}
