/* NEON kernels of the requantization families, 8 elements a step: the float
 * default (vcvtnq rounds half to even whatever FPCR says, as the x86 tiers
 * under the default MXCSR), single rounding (ties up and away) in 64-bit lanes (vmull_s32, vshlq_s64
 * by a negative count is a floor shift), LiteRT x86's ties-up form and ACL's
 * floor stage in 32-bit lanes. The other float modes run the scalar arithmetic
 * (requant_families.h). */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_NEON
#define SIMDOPS_TIER neon
#include <arm_neon.h>

#include "requant_families.h"

/* 8 int32 results in [min, max] stored as out_dtype */
static inline void rqn_store(void *y, size_t i, int32x4_t lo, int32x4_t hi, int out)
{
    int16x8_t h = vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi));
    if (out == SIMDOPS_RQ_I16)
        vst1q_s16((int16_t *)y + i, h);
    else if (out == SIMDOPS_RQ_U8)
        vst1_u8((uint8_t *)y + i, vqmovun_s16(h));
    else
        vst1_s8((int8_t *)y + i, vqmovn_s16(h));
}

static inline int32x4_t rqn_load(const int32_t *x, const int32_t *bias, size_t i)
{
    int32x4_t a = vld1q_s32(x + i);
    return bias ? vaddq_s32(a, vld1q_s32(bias + i)) : a;
}

/* ------------------------------------------------------------------ float default */
static inline int32x4_t rqn_fp4(int32x4_t a, float32x4_t s, float32x4_t flo, float32x4_t fhi,
                                int32x4_t zp)
{
    float32x4_t v = vmulq_f32(vcvtq_f32_s32(a), s);
    v = vminq_f32(vmaxq_f32(v, flo), fhi);
    return vaddq_s32(vcvtnq_s32_f32(v), zp);
}

static inline void rqn_fp(const int32_t *x, void *y, size_t n, const int32_t *bias,
                          const float *scales, const simdops_requant_params *p, int out)
{
    const float32x4_t flo = vdupq_n_f32((float)(p->min - p->offset));
    const float32x4_t fhi = vdupq_n_f32((float)(p->max - p->offset));
    const int32x4_t zp = vdupq_n_s32(p->offset);
    float32x4_t s0 = vdupq_n_f32(p->scale), s1 = s0;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        if (scales) {
            s0 = vld1q_f32(scales + i);
            s1 = vld1q_f32(scales + i + 4);
        }
        rqn_store(y, i, rqn_fp4(rqn_load(x, bias, i), s0, flo, fhi, zp),
                  rqn_fp4(rqn_load(x, bias, i + 4), s1, flo, fhi, zp), out);
    }
    for (; i < n; i++) {
        float s = scales ? scales[i] : p->scale;
        rqf_store_one(y, i, rqf_fp(rqf_biased(x, bias, i, i), s, s, 0, p->offset, p->min, p->max), out);
    }
}

/* ------------------------------------------------------------------ integer families
 * Single rounding (ties up or away) in 64-bit lanes, two int32 lanes at a time: product, + rounding,
 * floor shift by t, then the family's finish (m, t: the lanes' multiplier and
 * total shift); ties-up and floor in 32-bit lanes. */
static inline int64x2_t rqn_round_shift(int64x2_t prod, int64x2_t t, int64x2_t r)
{
    return vshlq_s64(vaddq_s64(prod, r), vnegq_s64(t));
}

/* single: exact clamp in 64 bits to [min - offset, max - offset], then + offset;
 * ties away (away constant) take 1 off a negative product before the rounding
 * term (vsraq adds its sign, -1 or 0) */
RQF_INLINE int32x4_t rqn_single_of(int32x4_t a, int32x4_t m, int32x4_t shift, int64x2_t lo,
                                   int64x2_t hi, int32x4_t off, const int away)
{
    const int64x2_t one = vdupq_n_s64(1);
    int64x2_t tl = vaddq_s64(vmovl_s32(vget_low_s32(shift)), vdupq_n_s64(31));
    int64x2_t th = vaddq_s64(vmovl_s32(vget_high_s32(shift)), vdupq_n_s64(31));
    int64x2_t pl = vmull_s32(vget_low_s32(a), vget_low_s32(m));
    int64x2_t ph = vmull_s32(vget_high_s32(a), vget_high_s32(m));
    if (away) {
        pl = vsraq_n_s64(pl, pl, 63);
        ph = vsraq_n_s64(ph, ph, 63);
    }
    int64x2_t ql = rqn_round_shift(pl, tl, vshlq_s64(one, vsubq_s64(tl, one)));
    int64x2_t qh = rqn_round_shift(ph, th, vshlq_s64(one, vsubq_s64(th, one)));
    ql = vbslq_s64(vcgtq_s64(ql, hi), hi, vbslq_s64(vcltq_s64(ql, lo), lo, ql));
    qh = vbslq_s64(vcgtq_s64(qh, hi), hi, vbslq_s64(vcltq_s64(qh, lo), lo, qh));
    return vaddq_s32(vcombine_s32(vmovn_s64(ql), vmovn_s64(qh)), off);
}

static inline int32x4_t rqn_single4(int32x4_t a, int32x4_t m, int32x4_t shift, int64x2_t lo,
                                    int64x2_t hi, int32x4_t off)
{
    return rqn_single_of(a, m, shift, lo, hi, off, 0);
}

static inline int32x4_t rqn_single_away4(int32x4_t a, int32x4_t m, int32x4_t shift,
                                         int64x2_t lo, int64x2_t hi, int32x4_t off)
{
    return rqn_single_of(a, m, shift, lo, hi, off, 1);
}

/* ties up (LiteRT x86), in 32-bit lanes as the double-rounding kernel: SSHL by
 * l >= 0 wraps like <<; SQRDMULH is (2am + 2^31) >> 32 = floor((am + 2^30) / 2^31)
 * (ties up), saturating only INT32_MIN * INT32_MIN to INT32_MAX where the family
 * has 2^31; SRSHL by -r is floor((q + 2^(r-1)) / 2^r) in wide precision (ties up).
 * For r >= 1 the saturated INT32_MAX rounds to 2^(31-r), the family's value for
 * 2^31; for r = 0 the family's 2^31 wraps to INT32_MIN = INT32_MAX + 1, so that
 * lane adds one. The offset's add wraps; clamp. */
static inline int32x4_t rqn_ties_up4(int32x4_t a, int32x4_t m, int32x4_t shift, int32x4_t lo,
                                     int32x4_t hi, int32x4_t off)
{
    const int32x4_t zero = vdupq_n_s32(0), min = vdupq_n_s32(INT32_MIN);
    int32x4_t as = vshlq_s32(a, vmaxq_s32(vnegq_s32(shift), zero));
    int32x4_t nr = vminq_s32(vnegq_s32(shift), zero); /* -r */
    int32x4_t q = vqrdmulhq_s32(as, m);
    uint32x4_t wrap = vandq_u32(vandq_u32(vceqq_s32(as, min), vceqq_s32(m, min)),
                                vceqq_s32(nr, zero));
    q = vrshlq_s32(vsubq_s32(q, vreinterpretq_s32_u32(wrap)), nr);
    q = vaddq_s32(q, off);
    return vminq_s32(vmaxq_s32(q, lo), hi);
}

/* ACL floor: ((a + offset) * m) >> shift, wrapping, floor; clamp */
static inline int32x4_t rqn_floor4(int32x4_t a, int32x4_t m, int32x4_t shift, int32x4_t lo,
                                   int32x4_t hi, int32x4_t off)
{
    int32x4_t v = vmulq_s32(vaddq_s32(a, off), m);
    return vminq_s32(vmaxq_s32(vshlq_s32(v, vnegq_s32(shift)), lo), hi);
}

/* rqn_<fam>, an RQF_ENTRIES function (fid: the family's RQF_* for the tail) */
#define RQN_INT_FAMILY(fam, LOTYPE, lo_init, hi_init)                                  \
    static inline void rqn_##fam(const int32_t *x, void *y, size_t n, const int32_t *bias, \
                                 const simdops_requant_channels *ch,                   \
                                 const simdops_requant_params *p, int out, int fid)    \
    {                                                                                  \
        const LOTYPE lo = lo_init, hi = hi_init;                                       \
        const int32x4_t off = vdupq_n_s32(p->offset);                                  \
        const int32_t shift = p->right_shift - p->left_shift;                          \
        int32x4_t m0 = vdupq_n_s32(p->multiplier), m1 = m0;                            \
        int32x4_t s0 = vdupq_n_s32(shift), s1 = s0;                                    \
        size_t i = 0;                                                                  \
        for (; n - i >= 8; i += 8) {                                                   \
            if (ch) {                                                                  \
                m0 = vld1q_s32(ch->mult + i);                                          \
                m1 = vld1q_s32(ch->mult + i + 4);                                      \
                s0 = vld1q_s32(ch->shift + i);                                         \
                s1 = vld1q_s32(ch->shift + i + 4);                                     \
            }                                                                          \
            rqn_store(y, i, rqn_##fam##4(rqn_load(x, bias, i), m0, s0, lo, hi, off),   \
                      rqn_##fam##4(rqn_load(x, bias, i + 4), m1, s1, lo, hi, off), out); \
        }                                                                              \
        rqf_int_rest(x, y, i, n, bias, ch, p, out, fid);                               \
    }

#define RQN_LO64 vdupq_n_s64((int64_t)p->min - p->offset)
#define RQN_HI64 vdupq_n_s64((int64_t)p->max - p->offset)
RQN_INT_FAMILY(single, int64x2_t, RQN_LO64, RQN_HI64)
RQN_INT_FAMILY(single_away, int64x2_t, RQN_LO64, RQN_HI64)
RQN_INT_FAMILY(ties_up, int32x4_t, vdupq_n_s32(p->min), vdupq_n_s32(p->max))
RQN_INT_FAMILY(floor, int32x4_t, vdupq_n_s32(p->min), vdupq_n_s32(p->max))

/* ------------------------------------------------------------------ entries */
static inline void rqn_fp_entry(const int32_t *x, void *y, size_t n, const int32_t *bias,
                                const simdops_requant_channels *ch,
                                const simdops_requant_params *p, int out, int unused)
{
    (void)unused;
    if (p->fp_mode) {
        rqf_fp_rows(x, y, n, bias, ch, p, out, 0);
        return;
    }
    if (!ch) {
        rqn_fp(x, y, n, bias, NULL, p, out);
        return;
    }
    for (size_t done = 0, m; done < n; done += m) {
        m = simdops_requant_stretch(ch, n - done);
        rqn_fp(x + done, (char *)y + done * simdops_requant_out_size(out), m, bias, ch->scale, p,
               out);
    }
}

RQF_ENTRIES3(fp, rqn_fp_entry, 0)
RQF_ENTRIES3(single, rqn_single, RQF_SINGLE)
RQF_ENTRIES3(single_away, rqn_single_away, RQF_SINGLE_AWAY)
RQF_ENTRIES3(ties_up, rqn_ties_up, RQF_TIES_UP)
RQF_ENTRIES3(floor, rqn_floor, RQF_FLOOR)

#define RQN_KERNELS(X)                                                                 \
    RQF_LIST(X, fp) RQF_LIST(X, single) RQF_LIST(X, single_away) RQF_LIST(X, ties_up)  \
    RQF_LIST(X, floor)
SIMDOPS_DEFINE_REGISTER(requant_families, RQN_KERNELS)

#else
SIMDOPS_TIER_NOT_COMPILED(requant_families, neon)
#endif
