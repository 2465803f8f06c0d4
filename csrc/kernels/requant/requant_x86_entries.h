/* The x86 requant tiers' table entries, one-line wrappers over the kernels of
 * requant_x86_body.h (double rounding) and requant_x86_rules.h (ties-up,
 * floor), each first through the exact float32 fast path (rq_fast_x86.h) on a
 * tier defining RQ_X86_FAST 1. Included by each requant_<isa>.c after both. */
#ifndef SIMDOPS_REQUANT_X86_ENTRIES_H
#define SIMDOPS_REQUANT_X86_ENTRIES_H

/* A tier defining RQ_X86_FAST 1 runs its per-tensor entries (double rounding
 * and ties-up) through the exact float32 fast path (rq_fast_x86.h), which falls
 * back to rq_kernel / rqr_kernel. */
#if defined(RQ_X86_FAST) && RQ_X86_FAST
#include "rq_fast_x86.h"
#define RQ_X86_PT_KERNEL rq_fast_kernel
#define RQR_PT_KERNEL rqr_fast_kernel
#else
#define RQ_X86_PT_KERNEL rq_kernel
#define RQR_PT_KERNEL rqr_kernel
#endif
/* per channel the fast path is AVX-512's (its arrays are built for K = 16) */
#if defined(RQ_X86_FAST) && RQ_X86_FAST && RQV_LANES == 16
#define RQ_X86_PC_KERNEL rq_pc_fast_kernel
#define RQR_PC_KERNEL rqr_pc_fast_kernel
#else
#define RQ_X86_PC_KERNEL rq_pc_kernel
#define RQR_PC_KERNEL rqr_pc_kernel
#endif

/* The tier's table entries, <tag>_requant[_pc]__<tier>: one-line wrappers, so
 * the kernels above stay functions. A tier whose per-tensor kernels measured
 * no faster than the tier below's defines RQ_X86_PER_TENSOR 0. */
#ifndef RQ_X86_PER_TENSOR
#define RQ_X86_PER_TENSOR 1
#endif
#if RQ_X86_PER_TENSOR
#define RQ_X86_ENTRY_PT(tag, out, tlo, thi)                                            \
    static void SIMDOPS_KERNEL_NAME(tag, requant)(const int32_t *x, void *y, size_t n,  \
                                                  const int32_t *bias,                 \
                                                  const simdops_requant_params *p)     \
    {                                                                                  \
        RQ_X86_PT_KERNEL(x, y, n, bias, p, out, tlo, thi);                             \
    }
#else
#define RQ_X86_ENTRY_PT(tag, out, tlo, thi)
#endif
#define RQ_X86_ENTRY(tag, out, tlo, thi)                                               \
    RQ_X86_ENTRY_PT(tag, out, tlo, thi)                                                \
    static void SIMDOPS_KERNEL_NAME(tag, requant_pc)(                                  \
        const int32_t *x, void *y, size_t n, const int32_t *bias,                      \
        const simdops_requant_channels *ch, const simdops_requant_params *p)           \
    {                                                                                  \
        RQ_X86_PC_KERNEL(x, y, n, bias, ch, p, out, tlo, thi);                         \
    }
RQ_X86_ENTRY(u8, SIMDOPS_RQ_U8, 0, 255)
RQ_X86_ENTRY(i8, SIMDOPS_RQ_I8, -128, 127)
RQ_X86_ENTRY(i16, SIMDOPS_RQ_I16, -32768, 32767)

/* The tier's table entries, <tag>_requant_ties_up[_pc]__<tier> and
 * <tag>_requant_floor[_pc]__<tier> (RQ_RULE_KERNELS in requant_register.h). */
#define RQR_ENTRY_PT(tag, out, tlo, thi, fam, rule)                                    \
    static void SIMDOPS_KERNEL_NAME(tag, requant_##fam)(const int32_t *x, void *y,     \
                                                        size_t n, const int32_t *bias, \
                                                        const simdops_requant_params *p) \
    {                                                                                  \
        RQR_PT_KERNEL(x, y, n, bias, p, rule, out, tlo, thi);                          \
    }
#define RQR_ENTRY_PC(tag, out, tlo, thi, fam, rule)                                    \
    static void SIMDOPS_KERNEL_NAME(tag, requant_##fam##_pc)(                          \
        const int32_t *x, void *y, size_t n, const int32_t *bias,                      \
        const simdops_requant_channels *ch, const simdops_requant_params *p)           \
    {                                                                                  \
        RQR_PC_KERNEL(x, y, n, bias, ch, p, rule, out, tlo, thi);                      \
    }
/* A tier that registers only some of them (RQ_X86_TIES_UP_PT, RQ_X86_FLOOR_PT,
 * by default the body's RQ_X86_PER_TENSOR; RQ_X86_FLOOR_PC) leaves the others
 * out, so that none is defined unused. */
#ifndef RQ_X86_TIES_UP_PT
#define RQ_X86_TIES_UP_PT RQ_X86_PER_TENSOR
#endif
#ifndef RQ_X86_FLOOR_PT
#define RQ_X86_FLOOR_PT RQ_X86_PER_TENSOR
#endif
#ifndef RQ_X86_FLOOR_PC
#define RQ_X86_FLOOR_PC 1
#endif
#define RQR_ENTRIES(tag, out, tlo, thi)                                                \
    RQR_ENTRY_PC(tag, out, tlo, thi, ties_up, RQR_TIES_UP_PC)                          \
    RQR_IF(RQ_X86_TIES_UP_PT, RQR_ENTRY_PT(tag, out, tlo, thi, ties_up, RQR_TIES_UP))  \
    RQR_IF(RQ_X86_FLOOR_PT, RQR_ENTRY_PT(tag, out, tlo, thi, floor, RQR_FLOOR))        \
    RQR_IF(RQ_X86_FLOOR_PC, RQR_ENTRY_PC(tag, out, tlo, thi, floor, RQR_FLOOR_PC))
/* RQR_IF(flag, text): text when flag (0 or 1) is 1 */
#define RQR_IF(flag, ...) SIMDOPS_CAT(RQR_IF_, flag)(__VA_ARGS__)
#define RQR_IF_1(...) __VA_ARGS__
#define RQR_IF_0(...)
RQR_ENTRIES(u8, SIMDOPS_RQ_U8, 0, 255)
RQR_ENTRIES(i8, SIMDOPS_RQ_I8, -128, 127)
RQR_ENTRIES(i16, SIMDOPS_RQ_I16, -32768, 32767)
#undef RQR_ENTRIES
#undef RQR_ENTRY_PT
#undef RQR_ENTRY_PC
#undef RQR_IF
#undef RQR_IF_1
#undef RQR_IF_0

#endif
