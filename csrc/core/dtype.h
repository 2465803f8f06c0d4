/* The one dtype table (a leaf header: it needs only the public enums).
 * Sizes, names, integer ranges and the requant output slot come from
 * SIMDOPS_DTYPES (which op takes which type: SIMDOPS_OPS's lines); everything else (validation, the
 * Python names, the harness, selftest) reads it through the functions below. */
#ifndef SIMDOPS_DTYPE_H
#define SIMDOPS_DTYPE_H

#include "simdops/simdops.h"

/* Slots of the requant kernel entries (one per output type). */
enum simdops_requant_out { SIMDOPS_RQ_U8 = 0, SIMDOPS_RQ_I8 = 1, SIMDOPS_RQ_I16 = 2, SIMDOPS_RQ_COUNT = 3 };

/* Bytes of one output element of a requant slot. */
static inline size_t simdops_requant_out_size(int out) { return out == SIMDOPS_RQ_I16 ? 2 : 1; }

/* Which ops take a dtype is not a column here: each SIMDOPS_OPS line in
 * simdops.h names its dtypes (simdops_op_supports reads them). */
typedef char simdops_dtype_bits_fit_unsigned[SIMDOPS_DTYPE_COUNT <= 32 ? 1 : -1];

/* X(ENUM, tag, name, size, is_float, is_signed, lo, hi, requant slot)
 * tag: the prefix of the type's kernel names (f32_clip__avx2; SIMDOPS_DT_f32).
 * lo/hi: the integer range for types up to 32 bits (0, 0 otherwise). */
#define SIMDOPS_DTYPES(X)                                                                         \
    X(FLOAT32, f32, "float32", 4, 1, 1, 0, 0, -1)                                                  \
    X(FLOAT16, f16, "float16", 2, 1, 1, 0, 0, -1)                                                  \
    X(UINT32, u32, "uint32", 4, 0, 0, 0, 4294967295, -1)                                           \
    X(UINT16, u16, "uint16", 2, 0, 0, 0, 65535, -1)                                                \
    X(UINT8, u8, "uint8", 1, 0, 0, 0, 255, SIMDOPS_RQ_U8)                                          \
    X(INT32, i32, "int32", 4, 0, 1, -2147483647 - 1, 2147483647, -1)                               \
    X(INT16, i16, "int16", 2, 0, 1, -32768, 32767, SIMDOPS_RQ_I16)                                 \
    X(INT8, i8, "int8", 1, 0, 1, -128, 127, SIMDOPS_RQ_I8)                                         \
    X(FLOAT64, f64, "float64", 8, 1, 1, 0, 0, -1)                                                  \
    X(UINT64, u64, "uint64", 8, 0, 0, 0, 0, -1)                                                    \
    X(INT64, i64, "int64", 8, 0, 1, 0, 0, -1)

/* SIMDOPS_DT_<tag>: the dtype of a kernel name's prefix (SIMDOPS_DT_f32 == SIMDOPS_FLOAT32). */
enum simdops_dtype_tag {
#define SIMDOPS_X_DTYPE_TAG(e, tag, ...) SIMDOPS_DT_##tag = SIMDOPS_##e,
    SIMDOPS_DTYPES(SIMDOPS_X_DTYPE_TAG)
#undef SIMDOPS_X_DTYPE_TAG
};
/* SIMDOPS_RQ_SLOT_<tag>: the requant output slot of a type (-1: none). */
enum simdops_requant_slot_tag {
#define SIMDOPS_X_RQ_SLOT_TAG(e, tag, nm, sz, fl, sg, lo, hi, rq) SIMDOPS_RQ_SLOT_##tag = rq,
    SIMDOPS_DTYPES(SIMDOPS_X_RQ_SLOT_TAG)
#undef SIMDOPS_X_RQ_SLOT_TAG
};

typedef struct simdops_dtype_row {
    const char *name;
    unsigned char size, is_float, is_signed;
    signed char requant_slot;
    int64_t lo, hi;
} simdops_dtype_row;

/* Indexed by simdops_dtype; row 0 (UNKNOWN) is all zero. */
extern const simdops_dtype_row simdops_dtype_rows[SIMDOPS_DTYPE_COUNT];

static inline int simdops_dtype_valid(int d) { return d > SIMDOPS_UNKNOWN && d < SIMDOPS_DTYPE_COUNT; }

static inline int simdops_dtype_is_float(simdops_dtype d)
{
    return simdops_dtype_valid(d) && simdops_dtype_rows[d].is_float;
}

#endif
