/* Reference kernels of the requantization families (requant_families.h):
 * single rounding, LiteRT x86's two ties-up roundings, ACL's floor stage and the float
 * families, per tensor and per channel, into uint8 / int8 / int16. */
#include "kernels/registry.h"
#include "requant_families.h"

#define RQF_BIASED(i) (bias ? simdops_wrap32((int64_t)x[i] + bias[i]) : x[i])
#define RQF_SHIFT(p) ((p)->right_shift - (p)->left_shift)

#define RQF_INT_KERNELS(T, fam, fn)                                                    \
    static void i32_##T##_requant_##fam##__scalar(const int32_t *x, void *yv, size_t n,  \
                                                  const int32_t *bias,                 \
                                                  const simdops_requant_params *p)      \
    {                                                                                  \
        T *y = (T *)yv;                                                                \
        const int32_t shift = RQF_SHIFT(p);                                            \
        for (size_t i = 0; i < n; i++)                                                 \
            y[i] = (T)fn(RQF_BIASED(i), p->multiplier, shift, p->offset, p->min, p->max); \
    }                                                                                  \
    static void i32_##T##_requant_##fam##_pc__scalar(                                  \
        const int32_t *x, void *yv, size_t n, const int32_t *bias,                     \
        const simdops_requant_channels *ch, const simdops_requant_params *p)           \
    {                                                                                  \
        T *y = (T *)yv;                                                                \
        for (size_t i = 0; i < n; i++)                                                 \
            y[i] = (T)fn(RQF_BIASED(i), ch->mult[i], ch->shift[i], p->offset, p->min,  \
                         p->max);                                                      \
    }

#define RQF_FP_KERNELS(T)                                                              \
    static void i32_##T##_requant_fp__scalar(const int32_t *x, void *yv, size_t n,     \
                                             const int32_t *bias,                      \
                                             const simdops_requant_params *p)           \
    {                                                                                  \
        T *y = (T *)yv;                                                                \
        for (size_t i = 0; i < n; i++)                                                 \
            y[i] = (T)rqf_fp(RQF_BIASED(i), p->scale, p->scale64, p->fp_mode, p->offset, \
                             p->min, p->max);                                          \
    }                                                                                  \
    static void i32_##T##_requant_fp_pc__scalar(                                       \
        const int32_t *x, void *yv, size_t n, const int32_t *bias,                     \
        const simdops_requant_channels *ch, const simdops_requant_params *p)           \
    {                                                                                  \
        T *y = (T *)yv;                                                                \
        for (size_t i = 0, k = 0; i < n; i++, k = k + 1 == ch->period ? 0 : k + 1) {   \
            int32_t a = bias ? simdops_wrap32((int64_t)x[i] + bias[k]) : x[i];         \
            y[i] = (T)rqf_fp(a, ch->scale[k], (double)ch->scale[k], p->fp_mode,        \
                             p->offset, p->min, p->max);                               \
        }                                                                              \
    }

#define RQF_ALL(T)                                                                     \
    RQF_INT_KERNELS(T, single, rqf_single)                                             \
    RQF_INT_KERNELS(T, ties_up, rqf_ties_up)                                           \
    RQF_INT_KERNELS(T, floor, rqf_floor)                                               \
    RQF_FP_KERNELS(T)

RQF_ALL(uint8_t)
RQF_ALL(int8_t)
RQF_ALL(int16_t)

#define RQF_SET(fam, slot, T)                                                          \
    t->requant_##fam[slot] = i32_##T##_requant_##fam##__scalar;                        \
    t->requant_##fam##_pc[slot] = i32_##T##_requant_##fam##_pc__scalar;
#define RQF_SET_FAMILY(fam)                                                            \
    RQF_SET(fam, SIMDOPS_RQ_U8, uint8_t)                                               \
    RQF_SET(fam, SIMDOPS_RQ_I8, int8_t)                                                \
    RQF_SET(fam, SIMDOPS_RQ_I16, int16_t)

int requant_families_register__scalar(simdops_kernel_table *t)
{
    RQF_SET_FAMILY(single)
    RQF_SET_FAMILY(ties_up)
    RQF_SET_FAMILY(floor)
    RQF_SET_FAMILY(fp)
    return 1;
}
