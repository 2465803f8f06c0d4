/* What a kernel sees: the derived parameter structs, the contiguous 1-D kernel
 * signatures and the per-channel vectors. Kernels include this and
 * kernels/registry.h (the table they fill), nothing above them. */
#ifndef SIMDOPS_KERNEL_ABI_H
#define SIMDOPS_KERNEL_ABI_H

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
    /* the float families' chain (simdops_requant_fp_chain; SIMDOPS_FP_* chain flags in
     * fp_mode say which steps run), in float32 and as given (SIMDOPS_FP_FLOAT64) */
    float pre_scale, post, offset_f;
    double pre64, post64, offset64;
    /* oneDNN's power-of-two chain folded once, when the handle is prepared
     * (simdops_requant_fold_prepare, rules/requant_fold.c): SIMDOPS_RQ_FOLD_* bits, and
     * what a call applies in place of the chain's steps. The kernels never read these. */
    int32_t fold;
    float fold_scale;            /* per tensor: the default's scale, c * scale */
    float fold_c;                /* per channel: c, the scales' multiplier (FOLD_C) */
    uint32_t fold_lb, fold_span; /* per channel: the window of |scale[k]|'s bits */
} simdops_requant_params;

/* fold's bits: per tensor the chain is requantize_fp32's default on fold_scale
 * (FOLD_TENSOR); per channel it is the default on the scales (times fold_c under FOLD_C)
 * when every |scale[k]|'s bits b have b - fold_lb < fold_span (FOLD_CHANNELS), a test the
 * call skips when its scales lie in [SIMDOPS_RQ_SCALE_FLOOR, 1) and FOLD_KNOWN says that
 * range lies inside the window. No fold with a float32 bias (it lies between the steps). */
#define SIMDOPS_RQ_FOLD_TENSOR 1
#define SIMDOPS_RQ_FOLD_CHANNELS 2
#define SIMDOPS_RQ_FOLD_KNOWN 4
#define SIMDOPS_RQ_FOLD_C 8

/* fp_mode's internal flags (above the public SIMDOPS_FP_* ones): which chain steps
 * run. SIMDOPS_RQ_FP_FLOAT_BIAS: the bias vector holds float32 bits. */
#define SIMDOPS_RQ_FP_PRE 16
#define SIMDOPS_RQ_FP_POST_MUL 32
#define SIMDOPS_RQ_FP_POST_DIV 64
#define SIMDOPS_RQ_FP_OFFSET 128
#define SIMDOPS_RQ_FP_FLOAT_BIAS 256
#define SIMDOPS_RQ_FP_EXT (SIMDOPS_FP_TIES_ADD_HALF | SIMDOPS_RQ_FP_PRE | SIMDOPS_RQ_FP_POST_MUL | \
                           SIMDOPS_RQ_FP_POST_DIV | SIMDOPS_RQ_FP_OFFSET |                      \
                           SIMDOPS_RQ_FP_FLOAT_BIAS | SIMDOPS_FP_BIAS_SCALED)

/* ------------------------------------------------------------------ kernel signatures */

/* Contiguous 1-D kernels. n may be 0; x and y may be the same pointer; no
 * alignment is assumed by SIMD kernels (scalar ones need element alignment). */

/* A unary elementwise op whose parameters are up to SIMDOPS_UNARY_PARAMS numbers of x's
 * own type (float16 widened in .f32, as everywhere), converted by its entry's rule (NaN
 * refused). Ops of this shape share this signature and the C harness's test
 * (csrc/tests/test_unary.c: every slot drawn from x's type, NaN excepted), as XNNPACK's
 * vunary kernels share theirs, so such an op adds neither. An op whose kernels rely on
 * an invariant among its parameters, or that takes NaN or another type's numbers, has
 * its own signature and test (clip, shrink). */
enum { SIMDOPS_UNARY_PARAMS = 4 };
typedef struct simdops_unary_params {
    simdops_value v[SIMDOPS_UNARY_PARAMS];
} simdops_unary_params;
typedef void (*simdops_unary_fn)(const void *x, void *y, size_t n, const simdops_unary_params *p);

typedef void (*simdops_clip_fn)(const void *x, void *y, size_t n, const simdops_clip_params *p);
typedef void (*simdops_shrink_fn)(const void *x, void *y, size_t n,
                                  const simdops_shrink_params *p);

/* Index of the first maximum of x[0..n), n >= 1; the first NaN is the maximum. */
typedef size_t (*simdops_argmax_row_fn)(const void *x, size_t n);

/* Vertical argmax over `rows` rows of cols elements, row k at (char *)x +
 * k * row_stride (bytes), in order: for each column j < cols, if row k's
 * element beats best[j] (greater, or NaN over a non-NaN) then best[j] = it,
 * best_index[j] = row_index + k. best has the element type of x. Several rows
 * per call let a kernel combine them before touching best (hardmax_avx512.c). */
typedef void (*simdops_argmax_cols_fn)(const void *x, int64_t row_stride, size_t rows,
                                       size_t cols, int64_t row_index, void *best,
                                       int64_t *best_index);

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
    const double *scale64; /* SIMDOPS_FP_FLOAT64 with float64 scales: these (scale NULL) */
    int scales_below_one; /* derived only: every |scale| < 1 (0: not known; see
                           * simdops_requant_check_scales) */
    size_t period;        /* float families: when nonzero, element i reads scale[i %
                           * period] and bias[i % period] (the vectors restart every
                           * period elements: a long call over rows of repeated
                           * vectors); 0: scale[i], bias[i]. The fixed-point
                           * families' entries the kernel table marks
                           * (requant_pc_restarts) the same, every array and the
                           * bias; other kernels get 0 */
    /* derived only, double rounding and ties-up: the AVX-512 fast path's float32 constants
     * per element (mu and h, rq_fast_params.h, K = 16) and the call's window
     * half-width, base and Tc; fast_mult NULL when a channel or the call is
     * outside what that path covers (simdops_requant_channels_init_fast) */
    const float *fast_mult, *fast_h;
    int32_t fast_window;
    float fast_base, fast_tc;
    size_t cycle;         /* float families, with period: 0, or a multiple of 16
                           * dividing period after which the scales repeat too
                           * (scale[i % period] == scale[i % cycle]: lcm(channels,
                           * 16)); a kernel may hold one cycle in registers */
} simdops_requant_channels;

/* How many of the left elements a per-channel float kernel runs with its
 * vectors read from their start: all, or ch->period when they restart. */
static inline size_t simdops_requant_stretch(const simdops_requant_channels *ch, size_t left)
{
    return ch->period && ch->period < left ? ch->period : left;
}
/* ch with every array advanced by k elements. */
static inline simdops_requant_channels simdops_requant_channels_at(const simdops_requant_channels *ch,
                                                                   size_t k)
{
    simdops_requant_channels r = *ch;
    if (r.scale || r.scale64) {
        if (r.scale)
            r.scale += k;
        if (r.scale64)
            r.scale64 += k;
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
    if (r.fast_mult) {
        r.fast_mult += k;
        r.fast_h += k;
    }
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

/* int8 matmul accumulators: one row a[0..k) (the slot's dtype: uint8 or int8)
 * against n rows of w transposed, wt[j * k + i]: out[j] = the row's sum, in
 * int32 wrapping. int8_dot: exact products; int8_dot_pairsat: VPMADDUBSW's
 * int16-saturated pair sums (simdops_int8_matmul_accumulators). */
typedef void (*simdops_int8_dot_fn)(const void *a, const int8_t *wt, int32_t *out, size_t n,
                                    size_t k);

/* Quantized add / subtract / multiply (simdops_prepare_qbinary derives these;
 * kind says which element formula of kernels/qbinary/qbinary_element.h runs).
 * Every integer below fits int32; lo/hi are y's bounds (dtype range and the
 * fused activation's min/max). */
enum simdops_qbinary_kind {
    SIMDOPS_QB_TFLITE_ADD = 0, /* also SUB (b_mult negated) */
    SIMDOPS_QB_TFLITE_MUL = 1,
    SIMDOPS_QB_XNNPACK_ADD = 2, /* also SUB (b's multiplier negative) */
    SIMDOPS_QB_FP_MUL = 3,      /* XNNPACK vmul (x86) and ONNX Runtime QLinearMul */
    SIMDOPS_QB_ORT_ADD = 4,
    SIMDOPS_QB_KIND_COUNT = 5
};
/* The AVX-512 rows' plans of the 8-bit kinds (the kernels' headers in kernels/qbinary
 * derive them and say what each field means: qbinary_tfl_plan.h, qbinary_tfl_mul_plan.h,
 * qbinary_xnn_plan.h), stored in the parameters' one plan slot below. */
typedef struct simdops_qb_tfl_add_plan { /* TFLITE_ADD: the linear form's pair rows */
    uint8_t pairs;       /* 1: the pair rows run; 0: the plan is refused (int32 rows) */
    uint8_t shift;       /* S: y = V >> S */
    uint8_t proved;      /* 1: V >> S is proved equal to TFLite's add for every input pair
                          * (qbinary_tfl_proof.h): the rows run without the window, V from
                          * the proved form's constants below. Set only on a call's own copy
                          * of the parameters (rules/qbinary_proof.c), never in a handle. */
    uint32_t window;     /* bits w..S-1: a lane whose V has none is recomputed (unless proved) */
    uint32_t pair_bias;  /* V's bias with the pairs' constant */
    uint32_t q_ab, r_ab; /* the split multipliers as the rows' dwords: b's high, a's low */
} simdops_qb_tfl_add_plan;
typedef struct simdops_qb_tfl_mul_plan { /* TFLITE_MUL: the float form with a window */
    uint8_t ok;
    uint8_t pick;         /* 1: c+ / c- picked by vpternlogd on the product itself; 2 (proved
                           * only): one constant, cpos == cneg, no pick */
    uint8_t proved;       /* 1: the form below without the window is proved equal to TFLite's
                           * multiply for every input pair (qbinary_tfl_mul_proof.h): mu, cpos,
                           * cneg are then the proved form's (no window's a), window 0. Set
                           * only on a call's own copy of the parameters
                           * (rules/qbinary_proof.c), never in a handle. */
    uint8_t floor_cvt;    /* proved only: J converted rounding down (vcvtps2dq {rd-sae}) with
                           * the floor form's constants (qbinary_tfl_mul_proof.h), pick 1 with
                           * no moved offset; 0: rounding to nearest */
    int16_t zp_add;       /* with pick: o - o', added to the high words (int16, saturating) */
    float mu, cpos, cneg; /* rq_fast_x86.h's mu, c+ + a and c- + a (K = 16) for offset o' */
    uint32_t window;      /* bits w..15: a lane is flagged when J has none (unless proved) */
} simdops_qb_tfl_mul_plan;
typedef struct simdops_qb_xnn_add_plan { /* XNNPACK_ADD: which rows, their constants */
    uint8_t fold, clamp, pairs, high;
    uint32_t bias;      /* the vpmulld rows' bias (+ zp 2^s when folded) */
    uint32_t pair_bias; /* the pair rows' bias: bias + the pairs' constant */
    int16_t q_a, q_b;   /* the multipliers' split m = 257 q + r (|q| < 2^13) */
    int8_t r_a, r_b;
} simdops_qb_xnn_add_plan;
/* The plans are packed (bytes and halves) so that the parameters with their plan slot
 * fit the prepared handle (rules/params.c's size check). */
/* the plan slot's derived value for a kind and an 8-bit type (never 0) */
#define SIMDOPS_QB_PLAN_TAG(kind, is_u8) (1 + 2 * (int32_t)(kind) + ((is_u8) ? 1 : 0))

typedef struct simdops_qbinary_params {
    int32_t kind;
    int32_t a_offset, b_offset; /* TFLITE_*: -zero points; FP_MUL, XNNPACK: zero points */
    int32_t left_shift;         /* TFLITE_ADD: 20 (15 for int16); TFLITE_MUL: the shift's left part */
    int32_t a_mult, a_shift;    /* TFLITE_ADD: multiplier and right shift of each input */
    int32_t b_mult, b_shift;
    int32_t y_mult, y_shift;    /* TFLITE_*: the output multiplier and right shift */
    int32_t y_offset;           /* y's zero point */
    int32_t bias;               /* XNNPACK_ADD: rounding - a_mult * za - b_mult * zb */
    int32_t shift;              /* XNNPACK_ADD: the one right shift */
    int32_t lo, hi;
    float ratio_a, ratio_b;     /* ORT_ADD: scale ratios a/y, b/y */
    float fixed;                /* ORT_ADD: zp_y - (ratio_a * zp_a + ratio_b * zp_b) */
    float scale;                /* FP_MUL: the product's scale a*b/y */
    float y_offset_f;           /* FP_MUL: a zero point added in float before rounding (ONNX
                                 * Runtime; y_offset is then 0), 0 for XNNPACK */
    int32_t ort;                /* FP_MUL: the parameters are ONNX Runtime's (names only) */
    /* The AVX-512 rows' plan of the fields above for this kind and an 8-bit type
     * (TFLITE_ADD, TFLITE_MUL, XNNPACK_ADD; kernels/qbinary/qbinary_plan.h), derived once by
     * simdops_qbinary_params_init, so a call the driver splits into many kernel calls (a
     * per-channel broadcast: one per 8 KiB of the repeated row) does not derive it again in
     * each. One slot for every kind: a kernel takes it only when derived names its own kind
     * and type (SIMDOPS_QB_PLAN_TAG), else derives it itself; whoever changes a field above
     * after the init clears derived. */
    struct {
        int32_t derived; /* 0 not derived; else SIMDOPS_QB_PLAN_TAG(kind, is_u8) */
        union {
            simdops_qb_tfl_add_plan tfl_add;
            simdops_qb_tfl_mul_plan tfl_mul;
            simdops_qb_xnn_add_plan xnn_add;
        } u;
    } plan;
} simdops_qbinary_params;

/* Broadcast form of one row: 0 both vectors; 1 a is one element (a[0] for
 * every i); 2 b is one element. Every arithmetic gives the same bits in every
 * form (ONNX Runtime's add too: measured); the form only says where to read. */
enum { SIMDOPS_QB_VV = 0, SIMDOPS_QB_SV = 1, SIMDOPS_QB_VS = 2 };
typedef void (*simdops_qbinary_fn)(const void *a, const void *b, void *y, size_t n, int form,
                                   const simdops_qbinary_params *p);

#endif
