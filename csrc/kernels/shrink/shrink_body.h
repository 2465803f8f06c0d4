/* The float shrink kernels every tier shares, written once over the vector
 * vocabulary of vec/vec_map.h: a tier file defines SIMDOPS_TIER, includes its
 * vector header, then this, which defines <K>_shrink__<tier> for each kind of
 * VEC_FLOAT_KINDS and lists them in SHRINK_BODY_KERNELS(X).
 *
 * y = x > thr ? x - b : x < neg_thr ? x + b : x is NaN ? x : +0.0, as
 * shrink_scalar.c. The three masks are exclusive (params.c makes
 * thr >= 0 >= neg_thr, and a NaN fails both compares), so each branch merges
 * into lanes the others left zero.
 *
 * Headers with VEC_HAS_FLOAT_BITS (integer compares on a float vector's bits:
 * vec_abs_K, vec_xor_K, vec_or_K, vec_gt_bits_K(a, b) comparing a and b as
 * signed integers, vec_blend_K(m, v, rest) = m ? v : rest, vec_keep_K(m, v)
 * = m ? v : +0.0, vec_keep_signed_K(m, v, x, mag) = m ? v | (x's sign bit) : +0.0
 * with mag = vec_abs_K(x), VEC_DAZ() true when denormals read as zero) also get the
 * cheaper forms the usual parameters allow; see float_shrink_form. */
#ifndef SIMDOPS_TIER
#error "define SIMDOPS_TIER and include the tier's vector header before shrink_body.h"
#endif

#define SHRINK_BODY_GENERAL(K, unused)                                                       \
    static inline vec_##K K##_shrink_v(vec_##K x, vec_##K thr, vec_##K neg_thr, vec_##K b)   \
    {                                                                                        \
        vec_##K r = vec_nan_keep_##K(x);                                                     \
        r = vec_merge_##K(vec_lt_##K(x, neg_thr), vec_add_##K(x, b), r);                     \
        return vec_merge_##K(vec_gt_##K(x, thr), vec_sub_##K(x, b), r);                      \
    }
VEC_FLOAT_KINDS(SHRINK_BODY_GENERAL, ~)
#undef SHRINK_BODY_GENERAL

#if defined(VEC_HAS_FLOAT_BITS)
#include <math.h> /* INFINITY */

/* The usual parameters (neg_thr == -thr, thr >= 0, bias not NaN) allow
 * fewer compares, which bound these kernels: x > thr or x < -thr is
 * |x| > thr on the magnitude bits (NaN lands above too), and then
 * y = x - (b with x's sign flipped in), as x - (-b) == x + b exactly.
 * A NaN x takes its own bits (the subtraction would quiet a signaling one).
 * Not when denormals read as zero, where the scalar's compares see them as 0.
 *
 * ... and when also bias <= thr (softshrink: bias == thr), one operation
 * fewer, on the magnitude: y = (|x| - b) with x's sign, as x -/+ b ==
 * +-(|x| - b) exactly (round to nearest is symmetric), never zero since
 * |x| > thr >= b, so the sign is always x's. A NaN |x| - b is replaced by |x|
 * itself by vec_min/vec_max, which return their second operand when the
 * first is NaN; b >= 0 makes |x| - b <= |x| (min), b < 0 makes it >= |x|
 * (max), so a number passes through unchanged. */
enum shrink_form { SHRINK_GENERAL, SHRINK_SYM, SHRINK_MAG_MIN, SHRINK_MAG_MAX };
static enum shrink_form float_shrink_form(double t, double nt, double bias)
{
    if (!(t >= 0.0 && nt == -t && bias == bias) || VEC_DAZ())
        return SHRINK_GENERAL;
    if (bias > t)
        return SHRINK_SYM;
    return bias >= 0.0 ? SHRINK_MAG_MIN : SHRINK_MAG_MAX;
}

#define SHRINK_BODY_FORMS(K, unused)                                                         \
    static inline vec_##K K##_shrink_sym_v(vec_##K x, vec_##K thr_bits, vec_##K inf_bits,    \
                                           vec_##K b)                                        \
    {                                                                                        \
        const vec_##K mag = vec_abs_##K(x);                                                  \
        const vec_##K r = vec_sub_##K(x, vec_xor_##K(b, vec_xor_##K(x, mag)));               \
        return vec_keep_##K(vec_gt_bits_##K(mag, thr_bits),                                  \
                            vec_blend_##K(vec_gt_bits_##K(mag, inf_bits), x, r));            \
    }                                                                                        \
    static inline vec_##K K##_shrink_mag_min_v(vec_##K x, vec_##K thr_bits, vec_##K b)       \
    {                                                                                        \
        const vec_##K mag = vec_abs_##K(x);                                                  \
        const vec_##K r = vec_min_##K(vec_sub_##K(mag, b), mag);                              \
        return vec_keep_signed_##K(vec_gt_bits_##K(mag, thr_bits), r, x, mag);                \
    }                                                                                        \
    static inline vec_##K K##_shrink_mag_max_v(vec_##K x, vec_##K thr_bits, vec_##K b)       \
    {                                                                                        \
        const vec_##K mag = vec_abs_##K(x);                                                  \
        const vec_##K r = vec_max_##K(vec_sub_##K(mag, b), mag);                              \
        return vec_keep_signed_##K(vec_gt_bits_##K(mag, thr_bits), r, x, mag);                \
    }
VEC_FLOAT_KINDS(SHRINK_BODY_FORMS, ~)
#undef SHRINK_BODY_FORMS
#endif

#if defined(VEC_HAS_FLOAT_BITS)
#define SHRINK_BODY_FORM_DISPATCH(K)                                                         \
    const vec_##K thr_bits = vec_abs_##K(vec_set1_##K(t));                                   \
    const vec_##K inf_bits = vec_set1_##K((vec_elem_##K)INFINITY);                           \
    switch (float_shrink_form(t, nt, bias)) {                                                \
    case SHRINK_MAG_MIN: VEC_MAP(K, x, y, n, K##_shrink_mag_min_v, thr_bits, b); return;     \
    case SHRINK_MAG_MAX: VEC_MAP(K, x, y, n, K##_shrink_mag_max_v, thr_bits, b); return;     \
    case SHRINK_SYM: VEC_MAP(K, x, y, n, K##_shrink_sym_v, thr_bits, inf_bits, b); return;   \
    default: break;                                                                          \
    }
#else
#define SHRINK_BODY_FORM_DISPATCH(K)
#endif

#define SHRINK_BODY_KERNEL(K, unused)                                                        \
    static void SIMDOPS_KERNEL_NAME(K, shrink)(const void *x, void *y, size_t n,            \
                                               const simdops_shrink_params *p)               \
    {                                                                                        \
        const vec_elem_##K t = p->thr.K, nt = p->neg_thr.K, bias = p->bias.K;                \
        const vec_##K b = vec_set1_##K(bias);                                                \
        SHRINK_BODY_FORM_DISPATCH(K)                                                         \
        {                                                                                    \
            const vec_##K thr = vec_set1_##K(t), neg_thr = vec_set1_##K(nt);                 \
            VEC_MAP(K, x, y, n, K##_shrink_v, thr, neg_thr, b);                              \
        }                                                                                    \
    }
VEC_FLOAT_KINDS(SHRINK_BODY_KERNEL, ~)
#undef SHRINK_BODY_KERNEL

#define SHRINK_BODY_LIST(K, X) X(shrink, K)
#define SHRINK_BODY_KERNELS(X) VEC_FLOAT_KINDS(SHRINK_BODY_LIST, X)
