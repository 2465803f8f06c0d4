/* argmax kernels behind hardmax, NEON (AArch64 Advanced SIMD); the same
 * indices as hardmax_scalar.c: first maximum, first NaN beats all, +0 == -0. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_NEON
#define SIMDOPS_TIER neon
#include "core/fp16.h"
#include "kernels/vec/neon_util.h"

#include "hardmax_kernels.h"

/* argmax_row in two passes. 1: FMAX/FMAXV propagate NaN, so the reduction is
 * NaN iff the row holds one, else it is the maximum. 2: the first element
 * that is NaN or equals that value (== treats -0.0 and +0.0 alike) -- the
 * first NaN if there is one, else the first maximum. */

static inline uint32x4_t hit_f32(float32x4_t v, float32x4_t m)
{
    return vorrq_u32(vceqq_f32(v, m), vmvnq_u32(vceqq_f32(v, v)));
}

static inline uint64x2_t hit_f64(float64x2_t v, float64x2_t m)
{
    return vorrq_u64(vceqq_f64(v, m),
                     vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(vceqq_f64(v, v)))));
}

/* The row kernel over vectors of L lanes of T (LD loads from a byte pointer,
 * ANY: a hit in any lane). */
#define ARGMAX_ROW(name, T, L, V, H, DUP, LD, MAX, MAXV, HIT, OR, ANY)                          \
    static size_t name(const void *xv, size_t n)                                               \
    {                                                                                          \
        const uint8_t *x = (const uint8_t *)xv;                                                \
        T first, m, v, b[L];                                                                   \
        V m0, m1, m2, m3, mv;                                                                  \
        size_t i = 0;                                                                          \
        memcpy(&first, x, sizeof(T));                                                          \
        m0 = m1 = m2 = m3 = DUP(first);                                                        \
        for (; i + 4 * L <= n; i += 4 * L) {                                                   \
            m0 = MAX(m0, LD(x + sizeof(T) * i));                                               \
            m1 = MAX(m1, LD(x + sizeof(T) * (i + L)));                                         \
            m2 = MAX(m2, LD(x + sizeof(T) * (i + 2 * L)));                                     \
            m3 = MAX(m3, LD(x + sizeof(T) * (i + 3 * L)));                                     \
        }                                                                                      \
        for (; i + L <= n; i += L)                                                             \
            m0 = MAX(m0, LD(x + sizeof(T) * i));                                               \
        if (i < n) { /* pad with x[0]: repeats do not change the maximum */                    \
            for (size_t k = 0; k < L; k++)                                                     \
                b[k] = first;                                                                  \
            memcpy(b, x + sizeof(T) * i, (n - i) * sizeof(T));                                 \
            m1 = MAX(m1, LD((const uint8_t *)b));                                              \
        }                                                                                      \
        m = MAXV(MAX(MAX(m0, m1), MAX(m2, m3)));                                               \
        mv = DUP(m);                                                                           \
        for (i = 0; i + 4 * L <= n; i += 4 * L) {                                              \
            H h = OR(OR(HIT(LD(x + sizeof(T) * i), mv), HIT(LD(x + sizeof(T) * (i + L)), mv)),   \
                     OR(HIT(LD(x + sizeof(T) * (i + 2 * L)), mv),                              \
                        HIT(LD(x + sizeof(T) * (i + 3 * L)), mv)));                            \
            if (ANY(h))                                                                        \
                break;                                                                         \
        }                                                                                      \
        for (; i < n; i++) {                                                                   \
            memcpy(&v, x + sizeof(T) * i, sizeof(T));                                          \
            if (v == m || v != v)                                                              \
                return i;                                                                      \
        }                                                                                      \
        return 0; /* not reached: x holds m */                                                 \
    }
ARGMAX_ROW(f32_argmax_row__neon, float, 4, float32x4_t, uint32x4_t, vdupq_n_f32, simdops_ld_f32,
           vmaxq_f32, vmaxvq_f32, hit_f32, vorrq_u32, vmaxvq_u32)
#define ANY_U64(h) vmaxvq_u32(vreinterpretq_u32_u64(h))
ARGMAX_ROW(f64_argmax_row__neon, double, 2, float64x2_t, uint64x2_t, vdupq_n_f64, simdops_ld_f64,
           vmaxq_f64, vmaxvq_f64, hit_f64, vorrq_u64, ANY_U64)
#undef ANY_U64
#undef ARGMAX_ROW

/* float16: widened exactly to float32, then as f32. */
static size_t f16_argmax_row__neon(const void *xv, size_t n)
{
    const uint8_t *x = (const uint8_t *)xv;
    uint16_t first, h;
    float m, v;
    float32x4_t m0, m1, m2, m3, mv;
    size_t i = 0;
    memcpy(&first, x, 2);
    m0 = m1 = m2 = m3 = vdupq_n_f32(simdops_f16_to_f32(first));
    for (; i + 16 <= n; i += 16) {
        uint16x8_t a = simdops_ld_u16(x + 2 * i), b = simdops_ld_u16(x + 2 * i + 16);
        m0 = vmaxq_f32(m0, simdops_f16_lo(a));
        m1 = vmaxq_f32(m1, simdops_f16_hi(a));
        m2 = vmaxq_f32(m2, simdops_f16_lo(b));
        m3 = vmaxq_f32(m3, simdops_f16_hi(b));
    }
    if (i < n) { /* up to 15 left: two padded vectors */
        uint16_t b[16];
        uint16x8_t a0, a1;
        for (int k = 0; k < 16; k++)
            b[k] = first;
        memcpy(b, x + 2 * i, (n - i) * 2);
        a0 = simdops_ld_u16(b);
        a1 = simdops_ld_u16(b + 8);
        m0 = vmaxq_f32(m0, simdops_f16_lo(a0));
        m1 = vmaxq_f32(m1, simdops_f16_hi(a0));
        m2 = vmaxq_f32(m2, simdops_f16_lo(a1));
        m3 = vmaxq_f32(m3, simdops_f16_hi(a1));
    }
    m = vmaxvq_f32(vmaxq_f32(vmaxq_f32(m0, m1), vmaxq_f32(m2, m3)));
    mv = vdupq_n_f32(m);
    for (i = 0; i + 16 <= n; i += 16) {
        uint16x8_t a = simdops_ld_u16(x + 2 * i), b = simdops_ld_u16(x + 2 * i + 16);
        uint32x4_t hh = vorrq_u32(vorrq_u32(hit_f32(simdops_f16_lo(a), mv),
                                            hit_f32(simdops_f16_hi(a), mv)),
                                  vorrq_u32(hit_f32(simdops_f16_lo(b), mv),
                                            hit_f32(simdops_f16_hi(b), mv)));
        if (vmaxvq_u32(hh))
            break;
    }
    for (; i < n; i++) {
        memcpy(&h, x + 2 * i, 2);
        v = simdops_f16_to_f32(h);
        if (v == m || v != v)
            return i;
    }
    return 0;
}

/* argmax_cols: per lane, row beats best when row > best or (row is NaN and
 * best is not); then best takes row's bits and best_index takes r. The last
 * partial vector runs through zeroed stack buffers. */
static inline uint32x4_t beats_f32(float32x4_t v, float32x4_t b)
{
    return vorrq_u32(vcgtq_f32(v, b), vbicq_u32(vceqq_f32(b, b), vceqq_f32(v, v)));
}

static inline void sel_index(uint8_t *idx, uint64x2_t m, int64x2_t r)
{
    simdops_st_s64(idx, vbslq_s64(m, r, simdops_ld_s64(idx)));
}

static inline void f32_cols_v(const uint8_t *row, uint8_t *best, uint8_t *idx, int64x2_t r)
{
    uint32x4_t v = simdops_ld_u32(row), b = simdops_ld_u32(best);
    uint32x4_t m = beats_f32(vreinterpretq_f32_u32(v), vreinterpretq_f32_u32(b));
    simdops_st_u32(best, vbslq_u32(m, v, b));
    sel_index(idx, simdops_mask32to64_lo(m), r);
    sel_index(idx + 16, simdops_mask32to64_hi(m), r);
}

static inline void f64_cols_v(const uint8_t *row, uint8_t *best, uint8_t *idx, int64x2_t r)
{
    uint64x2_t v = simdops_ld_u64(row), b = simdops_ld_u64(best);
    float64x2_t vf = vreinterpretq_f64_u64(v), bf = vreinterpretq_f64_u64(b);
    uint64x2_t m = vorrq_u64(vcgtq_f64(vf, bf), vbicq_u64(vceqq_f64(bf, bf), vceqq_f64(vf, vf)));
    simdops_st_u64(best, vbslq_u64(m, v, b));
    sel_index(idx, m, r);
}

static inline void f16_cols_v(const uint8_t *row, uint8_t *best, uint8_t *idx, int64x2_t r)
{
    uint16x8_t v = simdops_ld_u16(row), b = simdops_ld_u16(best);
    uint32x4_t ml = beats_f32(simdops_f16_lo(v), simdops_f16_lo(b));
    uint32x4_t mh = beats_f32(simdops_f16_hi(v), simdops_f16_hi(b));
    simdops_st_u16(best, vbslq_u16(simdops_mask32to16(ml, mh), v, b));
    sel_index(idx, simdops_mask32to64_lo(ml), r);
    sel_index(idx + 16, simdops_mask32to64_hi(ml), r);
    sel_index(idx + 32, simdops_mask32to64_lo(mh), r);
    sel_index(idx + 48, simdops_mask32to64_hi(mh), r);
}

#define ARGMAX_COLS(name, BLOCK, ESIZE)                                                      \
    static void name##_row(const void *rowv, size_t cols, int64_t r, void *bestv,            \
                           int64_t *best_index)                                              \
    {                                                                                        \
        enum { L = 16 / (ESIZE) };                                                           \
        const uint8_t *row = (const uint8_t *)rowv;                                          \
        uint8_t *best = (uint8_t *)bestv, *idx = (uint8_t *)best_index;                      \
        const int64x2_t rv = vdupq_n_s64(r);                                                 \
        size_t j = 0;                                                                        \
        for (; j + 2 * L <= cols; j += 2 * L) {                                              \
            BLOCK(row + j * (ESIZE), best + j * (ESIZE), idx + j * 8, rv);                   \
            BLOCK(row + (j + L) * (ESIZE), best + (j + L) * (ESIZE), idx + (j + L) * 8, rv); \
        }                                                                                    \
        for (; j + L <= cols; j += L)                                                        \
            BLOCK(row + j * (ESIZE), best + j * (ESIZE), idx + j * 8, rv);                   \
        if (j < cols) {                                                                      \
            uint8_t rb[16] = {0}, bb[16] = {0}, ib[8 * L];                                   \
            size_t k = cols - j;                                                             \
            memcpy(rb, row + j * (ESIZE), k * (ESIZE));                                      \
            memcpy(bb, best + j * (ESIZE), k * (ESIZE));                                     \
            memset(ib, 0, sizeof(ib));                                                       \
            memcpy(ib, idx + j * 8, k * 8);                                                  \
            BLOCK(rb, bb, ib, rv);                                                           \
            memcpy(best + j * (ESIZE), bb, k * (ESIZE));                                     \
            memcpy(idx + j * 8, ib, k * 8);                                                  \
        }                                                                                    \
    }                                                                                        \
    static void name(const void *x, int64_t stride, size_t rows, size_t cols, int64_t r,     \
                     void *bestv, int64_t *best_index)                                       \
    {                                                                                        \
        for (size_t k = 0; k < rows; k++)                                                    \
            name##_row((const uint8_t *)x + (int64_t)k * stride, cols, r + (int64_t)k, bestv, \
                       best_index);                                                          \
    }
ARGMAX_COLS(f32_argmax_cols__neon, f32_cols_v, 4)
ARGMAX_COLS(f64_argmax_cols__neon, f64_cols_v, 8)
ARGMAX_COLS(f16_argmax_cols__neon, f16_cols_v, 2)
#undef ARGMAX_COLS

SIMDOPS_DEFINE_REGISTER(hardmax, HARDMAX_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(hardmax, neon)
#endif
