/* Reference requant kernels: ACL's ScaleByFixedPoint output stage (docs/semantics.md). */
#include "kernels/registry.h"
#include "core/fixedpoint.h"
#include "requant_register.h"

#define SIMDOPS_TIER scalar

#define REQUANT_KERNELS_OF(T, tag)                                                     \
    static void SIMDOPS_KERNEL_NAME(tag, requant)(const int32_t *x, void *yv, size_t n, \
                                                  const int32_t *bias,                 \
                                                  const simdops_requant_params *p)     \
    {                                                                                  \
        T *y = (T *)yv;                                                                \
        for (size_t i = 0; i < n; i++) {                                               \
            int32_t a = bias ? simdops_wrap32((int64_t)x[i] + bias[i]) : x[i];         \
            y[i] = (T)simdops_requant_one(a, p->multiplier, p->left_shift,             \
                                          p->right_shift, p->offset, p->min, p->max);  \
        }                                                                              \
    }                                                                                  \
    static void SIMDOPS_KERNEL_NAME(tag, requant_pc)(const int32_t *x, void *yv, size_t n, \
                                                     const int32_t *bias,              \
                                                     const simdops_requant_channels *ch, \
                                                     const simdops_requant_params *p)  \
    {                                                                                  \
        T *y = (T *)yv;                                                                \
        for (size_t i = 0; i < n; i++) {                                               \
            int32_t a = bias ? simdops_wrap32((int64_t)x[i] + bias[i]) : x[i];         \
            int32_t s = ch->shift[i];                                                  \
            y[i] = (T)simdops_requant_one(a, ch->mult[i], s < 0 ? -s : 0, s > 0 ? s : 0, \
                                          p->offset, p->min, p->max);                  \
        }                                                                              \
    }

REQUANT_KERNELS_OF(uint8_t, u8)
REQUANT_KERNELS_OF(int8_t, i8)
REQUANT_KERNELS_OF(int16_t, i16)

RQ_DEFINE_REGISTER_WITH_FAMILIES(RQ_KERNELS, RQ_NO_KERNELS)
