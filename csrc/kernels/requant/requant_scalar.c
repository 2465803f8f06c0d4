/* Reference requant kernels: ACL's ScaleByFixedPoint output stage (docs/semantics.md). */
#include "kernels/registry.h"
#include "core/fixedpoint.h"

#define REQUANT_KERNELS(T, name, pc_name)                                              \
    static void name(const int32_t *x, void *yv, size_t n, const int32_t *bias,        \
                     const simdops_requant_params *p)                                  \
    {                                                                                  \
        T *y = (T *)yv;                                                                \
        for (size_t i = 0; i < n; i++) {                                               \
            int32_t a = bias ? simdops_wrap32((int64_t)x[i] + bias[i]) : x[i];         \
            y[i] = (T)simdops_requant_one(a, p->multiplier, p->left_shift,             \
                                          p->right_shift, p->offset, p->min, p->max);  \
        }                                                                              \
    }                                                                                  \
    static void pc_name(const int32_t *x, void *yv, size_t n, const int32_t *bias,     \
                        const simdops_requant_channels *ch,                            \
                        const simdops_requant_params *p)                               \
    {                                                                                  \
        T *y = (T *)yv;                                                                \
        for (size_t i = 0; i < n; i++) {                                               \
            int32_t a = bias ? simdops_wrap32((int64_t)x[i] + bias[i]) : x[i];         \
            int32_t s = ch->shift[i];                                                  \
            y[i] = (T)simdops_requant_one(a, ch->mult[i], s < 0 ? -s : 0, s > 0 ? s : 0, \
                                          p->offset, p->min, p->max);                  \
        }                                                                              \
    }

REQUANT_KERNELS(uint8_t, i32_u8_requant__scalar, i32_u8_requant_pc__scalar)
REQUANT_KERNELS(int8_t, i32_i8_requant__scalar, i32_i8_requant_pc__scalar)
REQUANT_KERNELS(int16_t, i32_i16_requant__scalar, i32_i16_requant_pc__scalar)

int requant_register__scalar(simdops_kernel_table *t)
{
    t->requant[SIMDOPS_RQ_U8] = i32_u8_requant__scalar;
    t->requant[SIMDOPS_RQ_I8] = i32_i8_requant__scalar;
    t->requant[SIMDOPS_RQ_I16] = i32_i16_requant__scalar;
    t->requant_pc[SIMDOPS_RQ_U8] = i32_u8_requant_pc__scalar;
    t->requant_pc[SIMDOPS_RQ_I8] = i32_i8_requant_pc__scalar;
    t->requant_pc[SIMDOPS_RQ_I16] = i32_i16_requant_pc__scalar;
    return requant_families_register__scalar(t);
}
