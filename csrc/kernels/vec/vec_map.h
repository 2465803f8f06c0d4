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
 * former (undefined: no head), or the loads when it defines VEC_ALIGN_LOADS. */
#ifndef SIMDOPS_VEC_MAP_H
#define SIMDOPS_VEC_MAP_H

#include <stddef.h>
#include <stdint.h>

/* y[0..n) = FN(x[i], ...) for FN(vec_K, ...) -> vec_K, lane-wise. Four
 * vectors are loaded before any is stored, so y == x is safe; the head and
 * the tail run FN on zero-padded vectors whose padding is never stored, so
 * every element goes through the same FN. */
/* Long rows first store a head that aligns y to VEC_ALIGN_BYTES (when
 * y is off by whole elements): a split-line store costs a second access;
 * or x, where the header defines VEC_ALIGN_LOADS (split-line loads cost
 * that tier more). */
#if defined(VEC_ALIGN_LOADS)
#define VEC_ALIGN_PTR_ mx_
#else
#define VEC_ALIGN_PTR_ my_
#endif
#if defined(VEC_ALIGN_BYTES)
#define VEC_MAP_HEAD_(K, FN, ...)                                                         \
    if (mn_ * me_ >= VEC_ALIGN_MIN_BYTES) {                                               \
        size_t h_ = (size_t)(0u - (uintptr_t)VEC_ALIGN_PTR_) & (VEC_ALIGN_BYTES - 1u);    \
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

/* ---- What a tier header builds its vocabulary from (written once) ----
 * VEC_KIND: kind K's vec_K (V, BYTES wide), VEC_LANES_K, vec_loadu/storeu_K
 * (LOADU(p), STOREU(p, v): any alignment), vec_load/store_tail_K (the
 * tier's tail rule LOAD_PART(p, nbytes) / STORE_PART(p, bits, nbytes) on its
 * bits vector, FROM_BITS / TO_BITS converting, VEC_SAME_BITS where V is that
 * vector) and vec_set1_K (SET1(e), e converted to SET1's argument type). */
#define VEC_SAME_BITS(v) (v)
#define VEC_KIND(K, V, BYTES, LOADU, STOREU, LOAD_PART, STORE_PART, FROM_BITS, TO_BITS, SET1)   \
    typedef V vec_##K;                                                                         \
    enum { VEC_LANES_##K = BYTES / sizeof(vec_elem_##K) };                                     \
    static inline vec_##K vec_loadu_##K(const void *p) { return LOADU(p); }                    \
    static inline void vec_storeu_##K(void *p, vec_##K v) { STOREU(p, v); }                    \
    static inline vec_##K vec_load_tail_##K(const void *p, size_t k)                           \
    {                                                                                          \
        return FROM_BITS(LOAD_PART(p, k * sizeof(vec_elem_##K)));                              \
    }                                                                                          \
    static inline void vec_store_tail_##K(void *p, vec_##K v, size_t k)                        \
    {                                                                                          \
        STORE_PART(p, TO_BITS(v), k * sizeof(vec_elem_##K));                                   \
    }                                                                                          \
    static inline vec_##K vec_set1_##K(vec_elem_##K e) { return SET1(e); }

/* OP(op, SUF): the tier's intrinsic for op (min, max, add, ...) on lanes SUF;
 * CMP(SUF, a, b, gt / lt): its ordered compare. */
#define VEC_MINMAX(K, OP, SUF)                                                                 \
    static inline vec_##K vec_min_##K(vec_##K a, vec_##K b) { return OP(min, SUF)(a, b); }    \
    static inline vec_##K vec_max_##K(vec_##K a, vec_##K b) { return OP(max, SUF)(a, b); }
#define VEC_FLOAT_ARITH(K, OP, CMP, SUF)                                                       \
    static inline vec_##K vec_add_##K(vec_##K a, vec_##K b) { return OP(add, SUF)(a, b); }    \
    static inline vec_##K vec_sub_##K(vec_##K a, vec_##K b) { return OP(sub, SUF)(a, b); }    \
    static inline vec_##K vec_mul_##K(vec_##K a, vec_##K b) { return OP(mul, SUF)(a, b); }    \
    static inline vmask_##K vec_gt_##K(vec_##K a, vec_##K b) { return CMP(SUF, a, b, gt); }   \
    static inline vmask_##K vec_lt_##K(vec_##K a, vec_##K b) { return CMP(SUF, a, b, lt); }

/* Float bits as integers, for shrink_body.h's sign-magnitude forms (tiers
 * that define VEC_HAS_FLOAT_BITS: AVX2, AVX-512): abs (ABS: the magnitude
 * mask as V), xor, or through OP; blend is the tier's merge, which needs
 * nothing of rest there. */
#define VEC_FLOAT_BITS_OPS(K, OP, SUF, ABS)                                                    \
    static inline vec_##K vec_abs_##K(vec_##K a) { return OP(and, SUF)(a, ABS); }              \
    static inline vec_##K vec_xor_##K(vec_##K a, vec_##K b) { return OP(xor, SUF)(a, b); }    \
    static inline vec_##K vec_or_##K(vec_##K a, vec_##K b) { return OP(or, SUF)(a, b); }      \
    static inline vec_##K vec_blend_##K(vmask_##K m, vec_##K v, vec_##K rest)                  \
    {                                                                                          \
        return vec_merge_##K(m, v, rest);                                                      \
    }

/* Kind lists: every kind (the tiers with 64-bit integer min/max), the float
 * kinds; a tier header may define other VEC_MINMAX_KINDS / VEC_FLOAT_KINDS. */
#define VEC_ALL_KINDS(X, a)                                                                    \
    X(u8, a) X(i8, a) X(u16, a) X(i16, a) X(u32, a) X(i32, a) X(u64, a) X(i64, a) X(f32, a)    \
    X(f64, a)
#define VEC_FLOAT_KINDS(X, a) X(f32, a) X(f64, a)

/* The x86 integer kinds up to 32 bits: K, the set1 lanes, the min/max lanes. */
#define VEC_X86_INT_KINDS(X)                                                                   \
    X(u8, epi8, epu8) X(i8, epi8, epi8) X(u16, epi16, epu16) X(i16, epi16, epi16)              \
    X(u32, epi32, epu32) X(i32, epi32, epi32)

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
