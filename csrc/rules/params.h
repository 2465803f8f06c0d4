/* Parameter rules: clip's and shrink's (params.c), requant's of every family and
 * its kernel choice (requant_families.c); the private layout of a prepared handle. */
#ifndef SIMDOPS_PARAMS_H
#define SIMDOPS_PARAMS_H

#include <string.h>

#include "core/kernel_abi.h"
#include "kernels/registry.h"

/* ------------------------------------------------------------------ parameters (params.c) */

int simdops_clip_params_init(simdops_dtype dtype, simdops_number min, simdops_number max,
                             const simdops_number *scale, const simdops_number *bias,
                             simdops_clip_params *p, simdops_error *err);
int simdops_shrink_params_init(simdops_dtype dtype, simdops_number bias,
                               simdops_number threshold, simdops_shrink_params *p,
                               simdops_error *err);

/* An ONNX FLOAT attribute (Shrink's bias, lambd) rounded once to float32; NaN
 * refused (SIMDOPS_R_NAN naming arg) unless allow_nan. */
int simdops_f32_attribute(simdops_number v, int arg, int allow_nan, float *out,
                          simdops_error *err);

/* ------------------------------------------------------------------ requant (requant_families.c) */

/* Every family a prepared requant handle can carry (simdops_requant_params.family). */
#define SIMDOPS_REQUANT_FAMILIES(X) SIMDOPS_ROUNDINGS(X) SIMDOPS_INTERNAL_FAMILIES(X)

int simdops_requant_params_init(simdops_dtype out_dtype, int64_t multiplier, int64_t shift,
                                int64_t offset, const int64_t *min, const int64_t *max,
                                simdops_requant_params *p, simdops_error *err);

/* ACL's later GEMMLowpOutputStage: the bounds [min, max] always clamp, min ==
 * max included (every output is then min), unlike simdops_prepare_requant's
 * ACL 18.03 convention. Needs type_lo <= min <= max <= type_hi; otherwise as
 * simdops_prepare_requant. Used by the acl descriptor layer (not in the C API:
 * the array API's semantics are docs/semantics.md's). */
int simdops_prepare_requant_clamped(simdops_dtype out_dtype, int64_t multiplier, int64_t shift,
                                    int64_t offset, int64_t min, int64_t max,
                                    simdops_prepared *p, simdops_error *err);

/* Every shift[k] in [-31, 31], else SIMDOPS_R_SHIFT_RANGE with the index. */
int simdops_requant_check_shifts(const int32_t *shift, int64_t n, simdops_error *err);

/* The shift range of a public family, its SIMDOPS_ROUNDINGS line's; an empty
 * range (lo > hi) for any other code. */
void simdops_requant_shift_range(int family, int32_t *lo, int32_t *hi);
/* shift (index -1 for per tensor) in its family's range, else SHIFT_RANGE /
 * SHIFT_RANGE_FOR with the index. */
int simdops_requant_check_shift_for(int family, int64_t shift, int64_t index, simdops_error *err);
/* Every scale[k] finite (float families), else NOT_FINITE_SCALE with the index.
 * *below_one (may be NULL) tells whether every |scale[k]| < 1: then no product
 * float(acc) * scale reaches 2^31, which lets float kernels skip a clamp. */
int simdops_requant_check_scales(const float *scale, int64_t n, int *below_one,
                                 simdops_error *err);
/* The floor of simdops_requant_check_scales_floor: a power of two, far below the
 * scales in use (oneDNN's 1e-3..1e-6), far above the fold's lowest bound (2^-126 / lo,
 * requant_fold.c) for the multipliers in use */
#define SIMDOPS_RQ_SCALE_FLOOR 0x1p-64f
/* simdops_requant_check_scales, and *above_floor: whether every |scale[k]| >= the floor
 * (no zero). below_one and above_floor not NULL. */
int simdops_requant_check_scales_floor(const float *scale, int64_t n, int *below_one,
                                       int *above_floor, simdops_error *err);
/* A float chain's plan (requant_fold.c, rq_chain_fold.h): oneDNN's power-of-two pre and
 * post multipliers (either or both) folded where the fold is exact for every int32
 * input. simdops_requant_fold_prepare, once per handle: p's fold fields
 * (SIMDOPS_RQ_FOLD_*) from its chain and scale. simdops_requant_fold_apply, per call with
 * no float32 bias: per tensor (scales NULL) or per channel (n finite float32 scales).
 * known: 1 when the caller knows every |scales[k]| in [SIMDOPS_RQ_SCALE_FLOOR, 1)
 * (simdops_requant_check_scales_floor), which spares the scales' scan where that range
 * lies inside the fold's; else 0. 0: p kept; 1: p rewritten to requantize_fp32's
 * default (the per-tensor scale times c, the scales as they are); 2 (per channel): p
 * the default to run on the scales times *c, a power of two (every product exact and
 * normal). */
void simdops_requant_fold_prepare(simdops_requant_params *p);
int simdops_requant_fold_apply(simdops_requant_params *p, const float *scales, int64_t n,
                               int known, float *c);
/* Per-channel float scales given as doubles, for the float families' kernels,
 * which read float32: each rounded once to float32 (nearest even). Under
 * SIMDOPS_FP_FLOAT64 (the scales widened exactly) a value float32 does not hold
 * exactly is refused (SCALE_NOT_F32), as is one that is not finite as a float32
 * (NOT_FINITE_SCALE), each with its index. */
int simdops_requant_scales_from_f64(const double *src, int64_t n, int mode, float *dst,
                                    simdops_error *err);
/* simdops_prepare_requant_clamped with a rounding family (the acl layer's
 * QUANTIZE_DOWN: SIMDOPS_ROUNDING_FLOOR). */
int simdops_prepare_requant_rounding_clamped(simdops_dtype out_dtype, int rounding,
                                             int64_t multiplier, int64_t shift, int64_t offset,
                                             int64_t min, int64_t max, simdops_prepared *p,
                                             simdops_error *err);
/* The kernel of a family: its SIMDOPS_REQUANT_FAMILIES line's table entry (per
 * tensor / per channel); NULL for a code no line has. */
simdops_requant_fn simdops_requant_kernel(const simdops_kernel_table *t, int family, int slot);
simdops_requant_pc_fn simdops_requant_pc_kernel(const simdops_kernel_table *t, int family,
                                                int slot);
/* 1 when t's per-channel kernel of family and slot restarts its arrays and bias
 * every ch->period elements (the float family's always do; the others as the
 * table's requant_pc_restarts says) */
int simdops_requant_pc_restarts(const simdops_kernel_table *t, int family, int slot);

/* The private layout behind simdops_prepared. */
typedef struct simdops_prepared_impl {
    uint32_t magic; /* SIMDOPS_PREPARED_MAGIC + op */
    int32_t op;     /* simdops_op: CLIP, CLIP_SCALE_BIAS, SHRINK or REQUANT */
    int32_t dtype;  /* x's dtype (requant: the output dtype) */
    int32_t reserved;
    union {
        simdops_clip_params clip;
        simdops_shrink_params shrink;
        simdops_requant_params requant;
        simdops_qbinary_params qbinary;
    } u;
} simdops_prepared_impl;
#define SIMDOPS_PREPARED_MAGIC 0x53494d00u

/* Writes *impl, stamped for op and dtype, into the handle (its unused bytes zeroed). */
static inline void simdops_prepared_store(simdops_prepared *p, simdops_prepared_impl *impl,
                                          int op, simdops_dtype dtype)
{
    impl->magic = SIMDOPS_PREPARED_MAGIC + (uint32_t)op;
    impl->op = op;
    impl->dtype = dtype;
    memset(p, 0, sizeof(*p));
    memcpy(p, impl, sizeof(*impl));
}

/* Copies the handle's content into *impl when it was prepared for op1 or op2
 * (else SIMDOPS_R_NOT_PREPARED). */
int simdops_prepared_load(const simdops_prepared *p, int op1, int op2, simdops_prepared_impl *impl,
                          simdops_error *err);

#endif
