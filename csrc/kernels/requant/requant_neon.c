/* requant kernels for NEON (AArch64 Advanced SIMD): gemmlowp's NEON output
 * stage, bit for bit requant_scalar.c.
 *   SRDHM(a, b)  = SQRDMULH: (2ab + 2^31) >> 32, saturating only
 *                  INT32_MIN * INT32_MIN -- exactly floor((ab + 2^30) / 2^31).
 *   RDBPOT(x, e) = SRSHL(x + fixup, -e), SRSHL by -e being (v + 2^(e-1)) >> e
 *                  in wide precision (ties up); fixup = -1 when x < 0 and e > 0
 *                  (sign bit of x & -e) turns ties away from zero. Its
 *                  saturating add only touches x = INT32_MIN, whose remainder
 *                  is 0 either way. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_NEON
#define SIMDOPS_TIER neon
#include "kernels/vec/neon_util.h"
#include "requant_register.h"

typedef struct rq_consts {
    int32x4_t offset, lo, hi;
} rq_consts;

/* a (bias added) -> clamped int32; lsh = left shift (>= 0), nrs = -right shift. */
static inline int32x4_t rq_v(int32x4_t a, int32x4_t m, int32x4_t lsh, int32x4_t nrs,
                             const rq_consts *c)
{
    int32x4_t q = vqrdmulhq_s32(vshlq_s32(a, lsh), m); /* SSHL by >= 0 wraps like << */
    int32x4_t fixup = vshrq_n_s32(vandq_s32(q, nrs), 31);
    q = vrshlq_s32(vqaddq_s32(q, fixup), nrs);
    q = vaddq_s32(q, c->offset);
    return vminq_s32(vmaxq_s32(q, c->lo), c->hi);
}

/* Narrowing keeps the low bits, as the scalar (T) cast does. */
static inline void rq_store_8(uint8_t *y, int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d)
{
    int16x8_t ab = vcombine_s16(vmovn_s32(a), vmovn_s32(b));
    int16x8_t cd = vcombine_s16(vmovn_s32(c), vmovn_s32(d));
    simdops_st_s8(y, vcombine_s8(vmovn_s16(ab), vmovn_s16(cd)));
}

static inline void rq_store_16(uint8_t *y, int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d)
{
    simdops_st_s16(y, vcombine_s16(vmovn_s32(a), vmovn_s32(b)));
    simdops_st_s16(y + 16, vcombine_s16(vmovn_s32(c), vmovn_s32(d)));
}

static inline int32x4_t add_bias(int32x4_t a, const uint8_t *bias)
{
    return bias ? vaddq_s32(a, simdops_ld_s32(bias)) : a;
}

/* 16 elements: x, bias (or NULL), per-channel mult/shift (or NULL: per tensor). */
#define RQ_BLOCK(STORE, OSIZE)                                                               \
    static inline void rq_block_##OSIZE(const uint8_t *x, uint8_t *y, const uint8_t *bias,   \
                                        const uint8_t *mult, const uint8_t *shift,           \
                                        int32x4_t m, int32x4_t lsh, int32x4_t nrs,           \
                                        const rq_consts *c)                                  \
    {                                                                                        \
        int32x4_t r[4];                                                                      \
        for (int k = 0; k < 4; k++) {                                                        \
            int32x4_t a = add_bias(simdops_ld_s32(x + 16 * k), bias ? bias + 16 * k : NULL); \
            if (mult) {                                                                      \
                int32x4_t s = vnegq_s32(simdops_ld_s32(shift + 16 * k));                     \
                r[k] = rq_v(a, simdops_ld_s32(mult + 16 * k), vmaxq_s32(s, vdupq_n_s32(0)),  \
                            vminq_s32(s, vdupq_n_s32(0)), c);                                \
            } else {                                                                         \
                r[k] = rq_v(a, m, lsh, nrs, c);                                              \
            }                                                                                \
        }                                                                                    \
        STORE(y, r[0], r[1], r[2], r[3]);                                                    \
    }
RQ_BLOCK(rq_store_8, 1)
RQ_BLOCK(rq_store_16, 2)
#undef RQ_BLOCK

/* The whole row: 16 at a time, the last partial block through zeroed stack
 * buffers (computes what the body computes). */
#define RQ_ROW(OSIZE)                                                                         \
    static inline void rq_row_##OSIZE(const int32_t *xv, void *yv, size_t n,                  \
                                      const int32_t *biasv, const int32_t *multv,             \
                                      const int32_t *shiftv, const simdops_requant_params *p) \
    {                                                                                         \
        const uint8_t *x = (const uint8_t *)xv, *bias = (const uint8_t *)biasv;               \
        const uint8_t *mult = (const uint8_t *)multv, *shift = (const uint8_t *)shiftv;       \
        uint8_t *y = (uint8_t *)yv;                                                           \
        const int32x4_t m = vdupq_n_s32(p->multiplier), lsh = vdupq_n_s32(p->left_shift);     \
        const int32x4_t nrs = vdupq_n_s32(-p->right_shift);                                   \
        rq_consts c;                                                                          \
        c.offset = vdupq_n_s32(p->offset);                                                    \
        c.lo = vdupq_n_s32(p->min);                                                           \
        c.hi = vdupq_n_s32(p->max);                                                           \
        for (; n >= 16; n -= 16) {                                                            \
            rq_block_##OSIZE(x, y, bias, mult, shift, m, lsh, nrs, &c);                       \
            x += 64;                                                                          \
            y += 16 * (OSIZE);                                                                \
            bias = bias ? bias + 64 : NULL;                                                   \
            if (mult) {                                                                       \
                mult += 64;                                                                   \
                shift += 64;                                                                  \
            }                                                                                 \
        }                                                                                     \
        if (n) {                                                                              \
            uint8_t xb[64] = {0}, bb[64] = {0}, mb[64] = {0}, sb[64] = {0}, yb[32];           \
            memcpy(xb, x, n * 4);                                                             \
            if (bias)                                                                         \
                memcpy(bb, bias, n * 4);                                                      \
            if (mult) {                                                                       \
                memcpy(mb, mult, n * 4);                                                      \
                memcpy(sb, shift, n * 4);                                                     \
            }                                                                                 \
            rq_block_##OSIZE(xb, yb, bias ? bb : NULL, mult ? mb : NULL, mult ? sb : NULL, m, \
                             lsh, nrs, &c);                                                   \
            memcpy(y, yb, n * (OSIZE));                                                       \
        }                                                                                     \
    }
RQ_ROW(1)
RQ_ROW(2)
#undef RQ_ROW

#define REQUANT_KERNELS_OF(tag, OSIZE)                                            \
    static void SIMDOPS_KERNEL_NAME(tag, requant)(const int32_t *x, void *y, size_t n, \
                                                  const int32_t *bias,            \
                                                  const simdops_requant_params *p) \
    {                                                                             \
        rq_row_##OSIZE(x, y, n, bias, NULL, NULL, p);                             \
    }                                                                             \
    static void SIMDOPS_KERNEL_NAME(tag, requant_pc)(const int32_t *x, void *y, size_t n, \
                                                     const int32_t *bias,         \
                                                     const simdops_requant_channels *ch, \
                                                     const simdops_requant_params *p) \
    { /* SSHL/SRSHL take signed counts: the raw shifts are all NEON needs */      \
        rq_row_##OSIZE(x, y, n, bias, ch->mult, ch->shift, p);                    \
    }
REQUANT_KERNELS_OF(u8, 1)
REQUANT_KERNELS_OF(i8, 1)
REQUANT_KERNELS_OF(i16, 2)
#undef REQUANT_KERNELS_OF

RQ_DEFINE_REGISTER_WITH_FAMILIES(RQ_KERNELS, RQ_NO_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(requant, neon)
#endif
