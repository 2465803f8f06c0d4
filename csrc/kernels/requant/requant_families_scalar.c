/* Reference kernels of the requantization families (requant_families.h):
 * single rounding (ties up; ties away: TVM), LiteRT x86's two ties-up roundings, ACL's floor stage and the float
 * families, per tensor and per channel, into uint8 / int8 / int16. */
#include "kernels/registry.h"
#include "requant_families.h"

#define SIMDOPS_TIER scalar

#define RQF_INT_KERNELS(tag, out, fam, fn)                                             \
    static void SIMDOPS_KERNEL_NAME(tag, requant_##fam)(const int32_t *x, void *y,     \
                                                        size_t n, const int32_t *bias, \
                                                        const simdops_requant_params *p) \
    {                                                                                  \
        const int32_t shift = p->right_shift - p->left_shift;                          \
        for (size_t i = 0; i < n; i++)                                                 \
            rqf_store_one(y, i, fn(rqf_biased(x, bias, i, i), p->multiplier, shift,    \
                                   p->offset, p->min, p->max), out);                   \
    }                                                                                  \
    static void SIMDOPS_KERNEL_NAME(tag, requant_##fam##_pc)(                          \
        const int32_t *x, void *y, size_t n, const int32_t *bias,                      \
        const simdops_requant_channels *ch, const simdops_requant_params *p)           \
    {                                                                                  \
        for (size_t i = 0; i < n; i++)                                                 \
            rqf_store_one(y, i, fn(rqf_biased(x, bias, i, i), ch->mult[i], ch->shift[i], \
                                   p->offset, p->min, p->max), out);                   \
    }

#define RQF_FP_KERNELS(tag, out)                                                       \
    static void SIMDOPS_KERNEL_NAME(tag, requant_fp)(const int32_t *x, void *y, size_t n, \
                                                     const int32_t *bias,              \
                                                     const simdops_requant_params *p)  \
    {                                                                                  \
        rqf_fp_row(x, y, n, bias, p, out);                                             \
    }                                                                                  \
    static void SIMDOPS_KERNEL_NAME(tag, requant_fp_pc)(                               \
        const int32_t *x, void *y, size_t n, const int32_t *bias,                      \
        const simdops_requant_channels *ch, const simdops_requant_params *p)           \
    {                                                                                  \
        rqf_fp_pc_row(x, y, n, bias, ch, p, out);                                      \
    }

#define RQF_ALL(tag, out)                                                              \
    RQF_INT_KERNELS(tag, out, single, rqf_single)                                      \
    RQF_INT_KERNELS(tag, out, ties_up, rqf_ties_up)                                    \
    RQF_INT_KERNELS(tag, out, floor, rqf_floor)                                        \
    RQF_INT_KERNELS(tag, out, single_away, rqf_single_away)                            \
    RQF_FP_KERNELS(tag, out)

RQF_ALL(u8, SIMDOPS_RQ_U8)
RQF_ALL(i8, SIMDOPS_RQ_I8)
RQF_ALL(i16, SIMDOPS_RQ_I16)

#define RQF_OF(X, tag)                                                                 \
    X(requant_single, tag) X(requant_single_pc, tag) X(requant_ties_up, tag)           \
    X(requant_ties_up_pc, tag) X(requant_floor, tag) X(requant_floor_pc, tag)          \
    X(requant_fp, tag) X(requant_fp_pc, tag) X(requant_single_away, tag)               \
    X(requant_single_away_pc, tag)
#define RQF_KERNELS(X) RQF_OF(X, u8) RQF_OF(X, i8) RQF_OF(X, i16)
SIMDOPS_DEFINE_REGISTER(requant_families, RQF_KERNELS)
