/* The clip kernels every tier shares, written once over the vector
 * vocabulary of vec/vec_map.h: a tier file defines SIMDOPS_TIER, includes its
 * vector header, then this, which defines <K>_clip__<tier> for each kind of
 * VEC_MINMAX_KINDS and <K>_clip_scale_bias__<tier> for each float kind, and
 * lists them in CLIP_BODY_KERNELS(X) for SIMDOPS_DEFINE_REGISTER.
 *
 * y = max(lo, min(hi, g(x))) in the vocabulary's operand order is the
 * scalar's t = hi < g ? hi : g; y = lo > t ? lo : t (clip_scalar.c): a NaN g
 * fails both compares and passes through with its bits, and -0.0 against a
 * +0.0 bound keeps g. ScaleBias of floats is g = fl(fl(x*scale) + bias), the
 * two roundings of the scalar kernel (no FMA). */
#ifndef SIMDOPS_TIER
#error "define SIMDOPS_TIER and include the tier's vector header before clip_body.h"
#endif

#define CLIP_BODY_CLIP(K, unused)                                                            \
    static inline vec_##K K##_clip_v(vec_##K v, vec_##K lo, vec_##K hi)                     \
    {                                                                                        \
        return vec_max_##K(lo, vec_min_##K(hi, v));                                          \
    }                                                                                        \
    static void SIMDOPS_KERNEL_NAME(K, clip)(const void *x, void *y, size_t n,              \
                                             const simdops_clip_params *p)                   \
    {                                                                                        \
        const vec_##K lo = vec_set1_##K(p->min.K), hi = vec_set1_##K(p->max.K);              \
        VEC_MAP(K, x, y, n, K##_clip_v, lo, hi);                                             \
    }
VEC_MINMAX_KINDS(CLIP_BODY_CLIP, ~)
#undef CLIP_BODY_CLIP

#define CLIP_BODY_SCALE_BIAS(K, unused)                                                      \
    static inline vec_##K K##_clip_sb_v(vec_##K v, vec_##K s, vec_##K b, vec_##K lo,        \
                                        vec_##K hi)                                          \
    {                                                                                        \
        return K##_clip_v(vec_add_##K(vec_mul_##K(v, s), b), lo, hi);                        \
    }                                                                                        \
    static void SIMDOPS_KERNEL_NAME(K, clip_scale_bias)(const void *x, void *y, size_t n,   \
                                                        const simdops_clip_params *p)        \
    {                                                                                        \
        const vec_##K s = vec_set1_##K((vec_elem_##K)p->scale);                              \
        const vec_##K b = vec_set1_##K((vec_elem_##K)p->bias);                               \
        const vec_##K lo = vec_set1_##K(p->min.K), hi = vec_set1_##K(p->max.K);              \
        VEC_MAP(K, x, y, n, K##_clip_sb_v, s, b, lo, hi);                                    \
    }
VEC_FLOAT_KINDS(CLIP_BODY_SCALE_BIAS, ~)
#undef CLIP_BODY_SCALE_BIAS

#define CLIP_BODY_LIST_CLIP(K, X) X(clip, K)
#define CLIP_BODY_LIST_SCALE_BIAS(K, X) X(clip_scale_bias, K)
#define CLIP_BODY_KERNELS(X)                                                                 \
    VEC_MINMAX_KINDS(CLIP_BODY_LIST_CLIP, X) VEC_FLOAT_KINDS(CLIP_BODY_LIST_SCALE_BIAS, X)
/* the body's entries and those a tier writes by hand beside them, for the
 * tiers with every clip entry of their own (AVX2, NEON) */
#define CLIP_EVERY_KERNEL(X)                                                                 \
    CLIP_BODY_KERNELS(X) X(clip, f16) X(clip_scale_bias, f16) X(clip_scale_bias, u8)         \
    X(clip_scale_bias, i8) X(clip_scale_bias, u16) X(clip_scale_bias, i16)                  \
    X(clip_scale_bias, u32) X(clip_scale_bias, i32)
