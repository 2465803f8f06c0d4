/* Kernel signatures, derived parameter structs and the per-ISA kernel table,
 * shared by dispatch, the drivers, the kernels and the C test harness.
 *
 * Two lists drive everything table-shaped (see docs/design.md, "Adding a
 * table entry or a tier"):
 *   SIMDOPS_KERNEL_ENTRIES  one line per table entry (the struct fields, the
 *                           inheritance, the iteration API, info, harness)
 *   SIMDOPS_TIERS           one line per ISA tier (tier table, CPU check,
 *                           register functions, known/available ISAs) */
#ifndef SIMDOPS_INTERNAL_H
#define SIMDOPS_INTERNAL_H

#include "core/dtype.h"
#include "simdops/simdops.h"

/* ------------------------------------------------------------------ derived parameters
 * Made by params.c from exact numbers; the SIMD kernels rely on the
 * invariants it establishes (finite scale/bias for integers, ...). */

/* One element of any supported type. float16 parameters are stored widened in
 * .f32 (exactly); kernels narrow them back when they need the bits. */
typedef union simdops_value {
    float f32;
    double f64;
    uint16_t f16;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
} simdops_value;

typedef struct simdops_clip_params {
    simdops_value min, max;
    float scale, bias; /* read by the scale_bias kernels only */
} simdops_clip_params;

/* shrink: y = x > thr ? x - bias : x < neg_thr ? x + bias : 0 (NaN passes through).
 * Integers: bias is B wrapped to the type; the saturating forms are
 *   x - B -> clamp(x, sub_lo, sub_hi) - B   and   x + B -> clamp(x, add_lo, add_hi) + B
 * with wrapping arithmetic, which never wraps once x is clamped. */
typedef struct simdops_shrink_params {
    simdops_value thr, neg_thr, bias;
    simdops_value sub_lo, sub_hi, add_lo, add_hi;
} simdops_shrink_params;

/* requant, per tensor: q = RDBPOT(SRDHM(wrap32(a << left_shift), multiplier), right_shift);
 * y = clamp(wrap32(q + offset), min, max), bounds already inside the output type. */
typedef struct simdops_requant_params {
    int32_t multiplier;
    int32_t left_shift;  /* max(-shift, 0) */
    int32_t right_shift; /* max(shift, 0) */
    int32_t offset;
    int32_t min, max;
    /* The requantization family (SIMDOPS_ROUNDING_*, or SIMDOPS_ROUNDING_FP for the
     * float families) and what the other families need (see requant_families.h). */
    int32_t family;
    int32_t fp_mode;  /* SIMDOPS_FP_* flags (float families) */
    float scale;      /* float families: the scale rounded to float32 */
    double scale64;   /* float families: the scale as given (SIMDOPS_FP_FLOAT64) */
} simdops_requant_params;

/* ------------------------------------------------------------------ kernel signatures */

/* Contiguous 1-D kernels. n may be 0; x and y may be the same pointer; no
 * alignment is assumed by SIMD kernels (scalar ones need element alignment). */
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

/* Per-channel requant parameters: element k of every array belongs to the
 * k-th element of the kernel's x. The derived arrays (left, right, half) are
 * built once per call for tensors of many rows (simdops_requant_channels_init):
 * rows of a [rows, C] tensor would otherwise redo the same derivations, which
 * cost the AVX2 kernel as much as its arithmetic. With them, mult[n] is
 * readable too (a kernel may load the odd lanes one element on). Without them
 * (left == right == half == NULL: one row, or the C API's 1-D call) kernels
 * derive what they need from shift; the tiers other than AVX2 always do. */
typedef struct simdops_requant_channels {
    const int32_t *mult;  /* the multiplier */
    const int32_t *shift; /* the API's shift (docs/semantics.md), in [-31, 31] */
    const int32_t *left;  /* max(-shift, 0), or NULL */
    const int32_t *right; /* max(shift, 0), or NULL */
    const int32_t *half;  /* (1 << right) >> 1, RDBPOT's rounding term, or NULL */
    int general;          /* derived only: some left != 0 or mult == INT32_MIN */
    int32_t min_right;    /* derived only: the smallest right */
    const float *scale;   /* float families: the per-channel scales (mult/shift unused) */
    int scales_below_one; /* derived only: every |scale| < 1 (0: not known; see
                           * simdops_requant_check_scales) */
    size_t period;        /* float families: when nonzero, element i reads scale[i %
                           * period] and bias[i % period] (the vectors restart every
                           * period elements: a long call over rows of repeated
                           * vectors); 0: scale[i], bias[i] */
    size_t cycle;         /* float families, with period: 0, or a multiple of 16
                           * dividing period after which the scales repeat too
                           * (scale[i % period] == scale[i % cycle]: lcm(channels,
                           * 16)); a kernel may hold one cycle in registers */
} simdops_requant_channels;

/* dst = reps copies of src[0..n) (src may be dst: its first copy is in
 * place), then one 0 (kernels may read one element past). */
void simdops_repeat_words(int32_t *dst, const int32_t *src, size_t n, size_t reps);

/* int32 words simdops_requant_channels_init stores for arrays of n elements. */
static inline size_t simdops_requant_channels_words(size_t n) { return 5 * (n + 1); }

/* ch with derived arrays from n multipliers and shifts (range-checked), all
 * repeated reps times (arrays of n * reps elements, for rows of several
 * channel periods) and held in storage (simdops_requant_channels_words(n *
 * reps) int32). */
void simdops_requant_channels_init(simdops_requant_channels *ch, int32_t *storage,
                                   const int32_t *multiplier, const int32_t *shift, size_t n,
                                   size_t reps);

/* How many of the left elements a per-channel float kernel runs with its
 * vectors read from their start: all, or ch->period when they restart. */
static inline size_t simdops_requant_stretch(const simdops_requant_channels *ch, size_t left)
{
    return ch->period && ch->period < left ? ch->period : left;
}

/* Single rounding's arrays derived once per call (the driver, from 4 rows on):
 * each channel's pair normalised to a total shift t = 31 + shift >= 32 where
 * m << (32 - t) fits int32 (the same quotient), in mult and shift; right holds
 * u = t - 32, the arithmetic shift of the 64-bit product's high word; left and
 * half stay NULL. general: some channel could not be normalised or has u == 0
 * (its rounding term 2^31 lies in the low word). Storage as for
 * simdops_requant_channels_init. */
void simdops_requant_channels_init_single(simdops_requant_channels *ch, int32_t *storage,
                                          const int32_t *multiplier, const int32_t *shift,
                                          size_t n, size_t reps);

/* ch with every array advanced by k elements. */
static inline simdops_requant_channels simdops_requant_channels_at(const simdops_requant_channels *ch,
                                                                   size_t k)
{
    simdops_requant_channels r = *ch;
    if (r.scale) {
        r.scale += k;
        return r;
    }
    r.mult += k;
    r.shift += k;
    if (r.left)
        r.left += k;
    if (r.right)
        r.right += k;
    if (r.half)
        r.half += k;
    return r;
}

/* requant of n int32 elements into uint8/int8/int16 y. bias may be NULL.
 * Per-channel kernels read element i's parameters from ch's arrays at i
 * (simdops_requant_channels) and ignore p->multiplier/left_shift/right_shift. */
typedef void (*simdops_requant_fn)(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                   const simdops_requant_params *p);
typedef void (*simdops_requant_pc_fn)(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                      const simdops_requant_channels *ch,
                                      const simdops_requant_params *p);

/* ONNX QuantizeLinear / DequantizeLinear, one scale and zero point (per
 * tensor, or one channel of per-axis). quantize: q = x / scale in float32
 * (rounded to float16 first when div_f16), clamped to [lo - zp, hi - zp]
 * (NaN -> lo - zp), rounded half to even, + zp. dequantize: y = float32(x -
 * zp) * scale (float16 output: that product rounded once more). */
typedef struct simdops_qlinear_params {
    float scale;  /* exact widening of a float16 scale */
    int div_f16;  /* quantize of float16 x by a float16 scale */
    int32_t zero_point;
    float qlo, qhi; /* quantize: lo - zp, hi - zp of the output type */
} simdops_qlinear_params;

/* quantize: x float32 (or float16), y of the slot's dtype; dequantize: x of
 * the slot's dtype, y float32 (or float16). */
typedef void (*simdops_qlinear_fn)(const void *x, void *y, size_t n,
                                   const simdops_qlinear_params *p);

/* ------------------------------------------------------------------ the kernel table
 * X(field, function type, slots, slot kind, simdops_op whose dtypes fill it)
 * slot kind DTYPE: indexed by simdops_dtype; RQ: by requant output slot. */
#define SIMDOPS_KERNEL_ENTRIES(X)                                                                 \
    X(clip, simdops_clip_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_CLIP)                         \
    X(clip_scale_bias, simdops_clip_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_CLIP_SCALE_BIAS)   \
    X(shrink, simdops_shrink_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_SHRINK)                   \
    X(argmax_row, simdops_argmax_row_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_HARDMAX)          \
    X(argmax_cols, simdops_argmax_cols_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_HARDMAX)        \
    X(requant, simdops_requant_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)                  \
    X(requant_pc, simdops_requant_pc_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)           \
    X(quantize_f32, simdops_qlinear_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QUANTIZE_LINEAR)   \
    X(quantize_f16, simdops_qlinear_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QUANTIZE_LINEAR)   \
    X(dequantize_f32, simdops_qlinear_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_DEQUANTIZE_LINEAR) \
    X(dequantize_f16, simdops_qlinear_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_DEQUANTIZE_LINEAR) \
    X(requant_single, simdops_requant_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)           \
    X(requant_single_pc, simdops_requant_pc_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)     \
    X(requant_ties_up, simdops_requant_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)          \
    X(requant_ties_up_pc, simdops_requant_pc_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)    \
    X(requant_floor, simdops_requant_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)            \
    X(requant_floor_pc, simdops_requant_pc_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)      \
    X(requant_fp, simdops_requant_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)               \
    X(requant_fp_pc, simdops_requant_pc_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT)

/* One table per ISA. A NULL entry means "not provided by this tier"; dispatch
 * fills it from the tier below, so every entry of a built table is callable
 * where that op supports the dtype. */
typedef struct simdops_kernel_table {
    const char *isa;
#define SIMDOPS_X_FIELD(field, type, slots, kind, op) type field[slots];
    SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_FIELD)
#undef SIMDOPS_X_FIELD
} simdops_kernel_table;

/* Entry numbers, in list order: SIMDOPS_KE_clip, ... */
enum simdops_kernel_entry {
#define SIMDOPS_X_KE(field, type, slots, kind, op) SIMDOPS_KE_##field,
    SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_KE)
#undef SIMDOPS_X_KE
    SIMDOPS_KE_COUNT
};

/* Iteration over the table (for dispatch, info, the harness, Python). */
typedef void (*simdops_any_fn)(void);
int simdops_kernel_entry_count(void);
const char *simdops_kernel_entry_name(int entry);
int simdops_kernel_entry_slots(int entry);
/* The dtype name of a slot ("float32"; requant slots: the output type). */
const char *simdops_kernel_slot_name(int entry, int slot);
/* The dtype of a slot (requant slots: the output dtype). */
simdops_dtype simdops_kernel_slot_dtype(int entry, int slot);
/* 1 when the op of this entry supports the slot's dtype (the entry must be set). */
int simdops_kernel_slot_required(int entry, int slot);
simdops_any_fn simdops_kernel_get(const simdops_kernel_table *t, int entry, int slot);

/* ------------------------------------------------------------------ tiers
 * X(name, tier it inherits from, built for this architecture (0/1),
 *   CPU support test on `const simdops_cpu *c`) -- lowest first; a tier is
 * usable when its architecture matches, the CPU passes and its parent is. */
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define SIMDOPS_ARCH_X86 1
#else
#define SIMDOPS_ARCH_X86 0
#endif
#if defined(__aarch64__) || defined(_M_ARM64)
#define SIMDOPS_ARCH_ARM64 1
#else
#define SIMDOPS_ARCH_ARM64 0
#endif

#define SIMDOPS_TIERS(X)                                                                          \
    X(scalar, scalar, 1, 1)                                                                       \
    X(sse2, scalar, SIMDOPS_ARCH_X86, c->sse2)                                                    \
    X(sse41, sse2, SIMDOPS_ARCH_X86, c->sse2 && c->sse41)                                         \
    X(avx2, sse41, SIMDOPS_ARCH_X86, c->avx && c->avx2 && c->f16c)                                \
    X(avx512, avx2, SIMDOPS_ARCH_X86, c->avx512f && c->avx512bw && c->avx512vl && c->avx512dq)    \
    X(neon, scalar, SIMDOPS_ARCH_ARM64, c->neon)

/* The kernel files of every tier: csrc/kernels/<op>/<op>_<tier>.c */
#define SIMDOPS_KERNEL_FILES(X, tier) X(clip, tier) X(shrink, tier) X(hardmax, tier) X(requant, tier) \
    X(qlinear, tier)

enum simdops_tier_id {
#define SIMDOPS_X_TIER_ID(name, parent, arch, cpu_ok) SIMDOPS_TIER_##name,
    SIMDOPS_TIERS(SIMDOPS_X_TIER_ID)
#undef SIMDOPS_X_TIER_ID
    SIMDOPS_TIER_COUNT
};
enum { SIMDOPS_MAX_TIERS = SIMDOPS_TIER_COUNT };

/* Each kernels/<op>/<op>_<tier>.c defines <op>_register__<tier>: it fills the
 * entries it implements and returns 1, or returns 0 when its ISA was not
 * compiled in. The linker sees them as simdops_<op>_register__<tier> (every
 * global symbol carries the simdops_ prefix). */
typedef int (*simdops_register_fn)(simdops_kernel_table *t);
#if defined(__GNUC__) || defined(__clang__)
#define SIMDOPS_STR_(x) #x
#define SIMDOPS_STR(x) SIMDOPS_STR_(x)
#define SIMDOPS_LINK_NAME(name) __asm__(SIMDOPS_STR(__USER_LABEL_PREFIX__) "simdops_" #name)
#else
#define SIMDOPS_LINK_NAME(name)
#endif
#define SIMDOPS_X_DECLARE_REGISTER_OP(op, tier)                                                   \
    int op##_register__##tier(simdops_kernel_table *t) SIMDOPS_LINK_NAME(op##_register__##tier);
#define SIMDOPS_X_DECLARE_REGISTER_TIER(name, parent, arch, cpu_ok)                               \
    SIMDOPS_KERNEL_FILES(SIMDOPS_X_DECLARE_REGISTER_OP, name)
SIMDOPS_TIERS(SIMDOPS_X_DECLARE_REGISTER_TIER)
#undef SIMDOPS_X_DECLARE_REGISTER_TIER
/* The requantization families' kernels (kernels/requant/requant_families_<tier>.c),
 * registered by the requant register function of the tiers that have them. */
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, scalar)
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, avx2)
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, avx512)
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, neon)

/* Registration from lists. A kernel file defines SIMDOPS_TIER (its tier's name)
 * before including this header's users' bodies, names what it implements as a
 * list of (entry, dtype tag) pairs -- requant entries by their output type's
 * tag -- and SIMDOPS_DEFINE_REGISTER makes <op>_register__<tier>, which sets each
 * slot to the function <tag>_<entry>__<tier>:
 *     #define CLIP_KERNELS(X) X(clip, f32) X(clip, f16) X(clip_scale_bias, f32)
 *     SIMDOPS_DEFINE_REGISTER(clip, CLIP_KERNELS)
 * A pair without its function fails to compile; a pair on a slot the dtype
 * table does not give the entry's op fails the harness (a tier may only
 * override what the scalar table has). */
#define SIMDOPS_CAT_(a, b) a##b
#define SIMDOPS_CAT(a, b) SIMDOPS_CAT_(a, b)
/* <tag>_<entry>__<SIMDOPS_TIER>: a kernel's name in the tier being compiled. */
#define SIMDOPS_KERNEL_NAME(tag, entry) SIMDOPS_CAT(tag##_##entry##__, SIMDOPS_TIER)
enum { SIMDOPS_SLOT_KIND_IS_RQ_DTYPE = 0, SIMDOPS_SLOT_KIND_IS_RQ_RQ = 1 };
enum simdops_kernel_entry_is_rq {
#define SIMDOPS_X_KE_RQ(field, type, slots, kind, op) SIMDOPS_KE_RQ_##field = SIMDOPS_SLOT_KIND_IS_RQ_##kind,
    SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_KE_RQ)
#undef SIMDOPS_X_KE_RQ
};
#define SIMDOPS_SLOT_OF(entry, tag)                                                               \
    (SIMDOPS_KE_RQ_##entry ? (int)SIMDOPS_RQ_SLOT_##tag : (int)SIMDOPS_DT_##tag)
#define SIMDOPS_X_REGISTER(entry, tag) t->entry[SIMDOPS_SLOT_OF(entry, tag)] = SIMDOPS_KERNEL_NAME(tag, entry);
#define SIMDOPS_DEFINE_REGISTER(op, LIST)                                                         \
    int SIMDOPS_CAT(op##_register__, SIMDOPS_TIER)(simdops_kernel_table * t)                     \
    {                                                                                             \
        LIST(SIMDOPS_X_REGISTER)                                                                  \
        return 1;                                                                                 \
    }

/* Every tier this target knows (all architectures; see simdops_tier_known). */
int simdops_tier_count(void);
/* 1 when tier i is built for this architecture. */
int simdops_tier_known(int i);
/* 1 when this CPU passes tier i's test and its parents' (whether or not the
 * tier was compiled in: a supported tier without a table is a build fault). */
int simdops_tier_cpu_supported(int i);
/* The built table of tier i, or NULL when it is not compiled in or not supported. */
const simdops_kernel_table *simdops_tier_table(int i);
const char *simdops_tier_name(int i);
/* The tier tier i inherits its missing entries from (0 for scalar). */
int simdops_tier_parent(int i);
/* The tier whose own kernel tier i's table uses for (entry, slot); -1 when unset. */
int simdops_kernel_origin(int tier, int entry, int slot);

/* The calling thread's table (its forced tier, else the process tier); also
 * records it as the thread's last-call tier. Entry points call it once and
 * pass the table down. Never NULL. */
const simdops_kernel_table *simdops_current_kernels(void);

/* The scalar kernel table: the reference every tier is tested against. */
const simdops_kernel_table *simdops_scalar_kernels(void);

/* Builds the tables (idempotent; done at import, under the GIL). */
void simdops_init(void);

/* ------------------------------------------------------------------ errors (error.c) */

/* Starts a call: clears *err (or points it at a scratch record when NULL). */
#define SIMDOPS_ERROR_BEGIN(err, scratch, op_)                                                    \
    do {                                                                                          \
        if (!(err))                                                                               \
            (err) = &(scratch);                                                                   \
        (err)->status = 0;                                                                        \
        (err)->reason = 0;                                                                        \
        (err)->op = (op_);                                                                        \
    } while (0)

/* Records reason/arg (other fields zeroed, index -1) and returns its status. */
int simdops_fail(simdops_error *err, int reason, int arg);
/* The same with the offending value and the expected one. */
int simdops_fail_value(simdops_error *err, int reason, int arg, int64_t value, int64_t expected);
/* The same with a dtype (value = the dtype, expected = the wanted dtype or 0). */
int simdops_fail_dtype(simdops_error *err, int reason, int arg, simdops_dtype dtype,
                       simdops_dtype expected);

/* ------------------------------------------------------------------ parameters (params.c) */

int simdops_clip_params_init(simdops_dtype dtype, simdops_number min, simdops_number max,
                             const simdops_number *scale, const simdops_number *bias,
                             simdops_clip_params *p, simdops_error *err);
int simdops_shrink_params_init(simdops_dtype dtype, simdops_number bias,
                               simdops_number threshold, simdops_shrink_params *p,
                               simdops_error *err);
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

/* The shift range of a rounding family (SIMDOPS_ROUNDING_*): the one place it
 * is stated. double/double_ties_up [-31, 31]; single [-30, 31] (total right
 * shift 31 + shift in [1, 62]: TFLite's [1, 62], XNNPACK rndnu's [16, 55]);
 * floor (ACL QUANTIZE_DOWN) [0, 31]. */
void simdops_requant_shift_range(int family, int32_t *lo, int32_t *hi);
/* shift (index -1 for per tensor) in its family's range, else SHIFT_RANGE /
 * SHIFT_RANGE_FOR with the index. */
int simdops_requant_check_shift_for(int family, int64_t shift, int64_t index, simdops_error *err);
/* Every scale[k] finite (float families), else NOT_FINITE_SCALE with the index.
 * *below_one (may be NULL) tells whether every |scale[k]| < 1: then no product
 * float(acc) * scale reaches 2^31, which lets float kernels skip a clamp. */
int simdops_requant_check_scales(const float *scale, int64_t n, int *below_one,
                                 simdops_error *err);
/* simdops_prepare_requant_clamped with a rounding family (the acl layer's
 * QUANTIZE_DOWN: SIMDOPS_ROUNDING_FLOOR). */
int simdops_prepare_requant_rounding_clamped(simdops_dtype out_dtype, int rounding,
                                             int64_t multiplier, int64_t shift, int64_t offset,
                                             int64_t min, int64_t max, simdops_prepared *p,
                                             simdops_error *err);
/* The kernel of a family: the table's entry for p->family (per tensor / per channel). */
simdops_requant_fn simdops_requant_kernel(const simdops_kernel_table *t, int family, int slot);
simdops_requant_pc_fn simdops_requant_pc_kernel(const simdops_kernel_table *t, int family,
                                                int slot);

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
    } u;
} simdops_prepared_impl;
#define SIMDOPS_PREPARED_MAGIC 0x53494d00u

/* Copies the handle's content into *impl when it was prepared for op1 or op2
 * (else SIMDOPS_R_NOT_PREPARED). */
int simdops_prepared_load(const simdops_prepared *p, int op1, int op2, simdops_prepared_impl *impl,
                          simdops_error *err);

#endif
