/* The row loop of the width-agnostic kernel bodies (clip/clip_body.h,
 * shrink/shrink_body.h), written once over the vocabulary of a tier's vector
 * header (vec/sse2.h, sse41.h, avx2.h, avx512.h, neon.h), included first.
 * Per element kind K (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64) a header gives:
 *   vec_K, VEC_LANES_K         the vector type and its count of vec_elem_K
 *   vec_loadu_K(p), vec_storeu_K(p, v)              any alignment
 *   vec_load_tail_K(p, k), vec_store_tail_K(p, v, k)
 *                              the first k < VEC_LANES_K elements; lanes past
 *                              k load as zero, no byte past p + k elements
 *                              is touched
 *   vec_set1_K(e)
 *   vec_min_K(a, b) = a < b ? a : b,  vec_max_K(a, b) = a > b ? a : b
 *                              as written: when either is NaN, b (x86 minps/
 *                              maxps do this natively; NEON's fmin/fmax
 *                              return NaN, so NEON compares and selects)
 * and for the float kinds also
 *   vmask_K, vec_gt_K(a, b), vec_lt_K(a, b)         ordered: false on NaN
 *   vec_add_K, vec_sub_K, vec_mul_K                 one rounding each
 *   vec_nan_keep_K(a)          a in NaN lanes, +0.0 elsewhere
 *   vec_merge_K(m, v, rest)    m ? v : rest, where rest is +0.0 under m (so
 *                              SSE2 merges with one AND and one OR)
 * VEC_MINMAX_KINDS(X, a) and VEC_FLOAT_KINDS(X, a) call X(K, a) for each kind
 * the header has min/max for, and each float kind. Before including this
 * file a header may define VEC_ALIGN_BYTES and VEC_ALIGN_MIN_BYTES: rows of
 * at least the latter bytes first run a head that aligns the stores to the
 * former (undefined: no head). */
#ifndef SIMDOPS_VEC_MAP_H
#define SIMDOPS_VEC_MAP_H

#include <stddef.h>
#include <stdint.h>

/* y[0..n) = FN(x[i], ...) for FN(vec_K, ...) -> vec_K, lane-wise. Four
 * vectors are loaded before any is stored, so y == x is safe; the head and
 * the tail run FN on zero-padded vectors whose padding is never stored, so
 * every element goes through the same FN. */
/* Long rows first store a head that aligns y to VEC_ALIGN_BYTES (when
 * y is off by whole elements): a split-line store costs a second access. */
#if defined(VEC_ALIGN_BYTES)
#define VEC_MAP_HEAD_(K, FN, ...)                                                         \
    if (mn_ * me_ >= VEC_ALIGN_MIN_BYTES) {                                               \
        size_t h_ = (size_t)(0u - (uintptr_t)my_) & (VEC_ALIGN_BYTES - 1u);               \
        if (h_ != 0 && h_ % me_ == 0) {                                                   \
            h_ /= me_;                                                                    \
            vec_store_tail_##K(my_, FN(vec_load_tail_##K(mx_, h_), __VA_ARGS__), h_);     \
            mx_ += h_ * me_;                                                              \
            my_ += h_ * me_;                                                              \
            mn_ -= h_;                                                                    \
        }                                                                                 \
    }
#else
#define VEC_MAP_HEAD_(K, FN, ...)
#endif

#define VEC_MAP(K, xv, yv, n, FN, ...)                                                    \
    do {                                                                                  \
        const unsigned char *mx_ = (const unsigned char *)(xv);                           \
        unsigned char *my_ = (unsigned char *)(yv);                                       \
        size_t mn_ = (n);                                                                 \
        const size_t me_ = sizeof(vec_elem_##K), ml_ = VEC_LANES_##K;                            \
        VEC_MAP_HEAD_(K, FN, __VA_ARGS__)                                                 \
        for (; mn_ >= 4 * ml_; mn_ -= 4 * ml_, mx_ += 4 * ml_ * me_, my_ += 4 * ml_ * me_) { \
            vec_##K a_ = vec_loadu_##K(mx_);                                              \
            vec_##K b_ = vec_loadu_##K(mx_ + ml_ * me_);                                  \
            vec_##K c_ = vec_loadu_##K(mx_ + 2 * ml_ * me_);                              \
            vec_##K d_ = vec_loadu_##K(mx_ + 3 * ml_ * me_);                              \
            a_ = FN(a_, __VA_ARGS__);                                                     \
            b_ = FN(b_, __VA_ARGS__);                                                     \
            c_ = FN(c_, __VA_ARGS__);                                                     \
            d_ = FN(d_, __VA_ARGS__);                                                     \
            vec_storeu_##K(my_, a_);                                                      \
            vec_storeu_##K(my_ + ml_ * me_, b_);                                          \
            vec_storeu_##K(my_ + 2 * ml_ * me_, c_);                                      \
            vec_storeu_##K(my_ + 3 * ml_ * me_, d_);                                      \
        }                                                                                 \
        for (; mn_ >= ml_; mn_ -= ml_, mx_ += ml_ * me_, my_ += ml_ * me_)                \
            vec_storeu_##K(my_, FN(vec_loadu_##K(mx_), __VA_ARGS__));                     \
        if (mn_ != 0)                                                                     \
            vec_store_tail_##K(my_, FN(vec_load_tail_##K(mx_, mn_), __VA_ARGS__), mn_);   \
    } while (0)

/* The element types by kind tag, for VEC_MAP and the bodies. */
typedef uint8_t vec_elem_u8;
typedef int8_t vec_elem_i8;
typedef uint16_t vec_elem_u16;
typedef int16_t vec_elem_i16;
typedef uint32_t vec_elem_u32;
typedef int32_t vec_elem_i32;
typedef uint64_t vec_elem_u64;
typedef int64_t vec_elem_i64;
typedef float vec_elem_f32;
typedef double vec_elem_f64;

#endif
