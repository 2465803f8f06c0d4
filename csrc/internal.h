/* Kernel signatures and the per-ISA kernel table, shared by dispatch, the
 * strided driver and the C test harness. */
#ifndef SIMDOPS_INTERNAL_H
#define SIMDOPS_INTERNAL_H

#include "simdops/simdops.h"

/* Contiguous 1-D kernels. n may be 0; x and y may be the same pointer; no
 * alignment is assumed. */
typedef void (*simdops_clip_fn)(const void *x, void *y, size_t n, const simdops_clip_params *p);
typedef void (*simdops_shrink_fn)(const void *x, void *y, size_t n,
                                  const simdops_shrink_params *p);

/* Index of the first maximum of x[0..n), n >= 1; the first NaN is the maximum. */
typedef size_t (*simdops_argmax_row_fn)(const void *x, size_t n);

/* Vertical argmax step: for each column j < cols, if row[j] beats best[j]
 * (greater, or NaN over a non-NaN) then best[j] = row[j], best_index[j] = row_index.
 * best has the element type of row. */
typedef void (*simdops_argmax_cols_fn)(const void *row, size_t cols, int64_t row_index,
                                       void *best, int64_t *best_index);

/* requant of n int32 elements into uint8/int8/int16 y. bias may be NULL.
 * Per-channel kernels read multiplier[i] and shift[i] (signed SPEC shift, in
 * [-31, 31]) and ignore p->multiplier/left_shift/right_shift. */
typedef void (*simdops_requant_fn)(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                   const simdops_requant_params *p);
typedef void (*simdops_requant_pc_fn)(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                      const int32_t *multiplier, const int32_t *shift,
                                      const simdops_requant_params *p);

enum simdops_requant_out { SIMDOPS_RQ_U8 = 0, SIMDOPS_RQ_I8 = 1, SIMDOPS_RQ_I16 = 2, SIMDOPS_RQ_COUNT = 3 };

/* One table per ISA. A NULL entry means "not provided by this tier"; dispatch
 * fills it from the tier below, so every entry of a built table is callable
 * where that op supports the dtype. */
typedef struct simdops_kernel_table {
    const char *isa;
    simdops_clip_fn clip[SIMDOPS_DTYPE_COUNT];
    simdops_clip_fn clip_scale_bias[SIMDOPS_DTYPE_COUNT];
    simdops_shrink_fn shrink[SIMDOPS_DTYPE_COUNT];
    simdops_argmax_row_fn argmax_row[SIMDOPS_DTYPE_COUNT];
    simdops_argmax_cols_fn argmax_cols[SIMDOPS_DTYPE_COUNT];
    simdops_requant_fn requant[SIMDOPS_RQ_COUNT];
    simdops_requant_pc_fn requant_pc[SIMDOPS_RQ_COUNT];
} simdops_kernel_table;

/* Each kernels/<op>/<op>_<isa>.c defines one of these; it fills the entries it
 * implements and returns 1, or returns 0 when its ISA was not compiled in. */
typedef int (*simdops_register_fn)(simdops_kernel_table *t);

#define SIMDOPS_DECLARE_REGISTER(op)                             \
    int op##_register__scalar(simdops_kernel_table *t);          \
    int op##_register__sse2(simdops_kernel_table *t);            \
    int op##_register__sse41(simdops_kernel_table *t);           \
    int op##_register__avx2(simdops_kernel_table *t);            \
    int op##_register__neon(simdops_kernel_table *t);
SIMDOPS_DECLARE_REGISTER(clip)
SIMDOPS_DECLARE_REGISTER(shrink)
SIMDOPS_DECLARE_REGISTER(hardmax)
SIMDOPS_DECLARE_REGISTER(requant)
#undef SIMDOPS_DECLARE_REGISTER

/* Tiers, lowest first. tier_count() counts every tier this target knows. */
enum { SIMDOPS_MAX_TIERS = 5 };
int simdops_tier_count(void);
/* The built table of tier i, or NULL when it is not compiled in or not supported. */
const simdops_kernel_table *simdops_tier_table(int i);
const char *simdops_tier_name(int i);
/* The active table (never NULL). */
const simdops_kernel_table *simdops_active_kernels(void);

/* The scalar kernel table: the reference every tier is tested against. */
const simdops_kernel_table *simdops_scalar_kernels(void);

#endif
