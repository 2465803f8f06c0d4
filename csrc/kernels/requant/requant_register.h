/* Registration of the requant_<tier>.c files: the lists of the
 * double-rounding entries (per tensor, per channel; a requant entry takes its
 * output type's tag: u8_requant__<tier>), and requant_register__<SIMDOPS_TIER>
 * of a tier that also has a families file (requant_families_<tier>.c): this
 * file's kernels from its list, then the families' own register function.
 * The x86 tiers' lists add RQ_RULE_KERNELS (requant_x86_rules.h). */
#ifndef SIMDOPS_REQUANT_REGISTER_H
#define SIMDOPS_REQUANT_REGISTER_H

#include "kernels/registry.h"

#define RQ_PT_KERNELS(X) X(requant, u8) X(requant, i8) X(requant, i16)
#define RQ_PC_KERNELS(X) X(requant_pc, u8) X(requant_pc, i8) X(requant_pc, i16)
#define RQ_KERNELS(X) RQ_PT_KERNELS(X) RQ_PC_KERNELS(X)
/* the families requant_x86_rules.h writes once for every x86 tier (avx512: the
 * ties-up entries only, RQ_TIES_UP_KERNELS; see requant_avx512.c) */
#define RQ_RULES_OF(X, tag)                                                            \
    X(requant_ties_up, tag) X(requant_ties_up_pc, tag) X(requant_floor, tag)           \
    X(requant_floor_pc, tag)
#define RQ_RULE_KERNELS(X) RQ_RULES_OF(X, u8) RQ_RULES_OF(X, i8) RQ_RULES_OF(X, i16)
#define RQ_TIES_UP_KERNELS(X)                                                          \
    X(requant_ties_up, u8) X(requant_ties_up, i8) X(requant_ties_up, i16)              \
    X(requant_ties_up_pc, u8) X(requant_ties_up_pc, i8) X(requant_ties_up_pc, i16)

/* the rules' per-channel entries (requant_x86_rules.h's rqr_pc_kernel restarts
 * every ch->period elements), and a list of none */
#define RQ_RULE_PC_KERNELS(X)                                                          \
    X(requant_ties_up_pc, u8) X(requant_ties_up_pc, i8) X(requant_ties_up_pc, i16)     \
    X(requant_floor_pc, u8) X(requant_floor_pc, i8) X(requant_floor_pc, i16)
#define RQ_NO_KERNELS(X)

/* LIST registered, RESTARTS (a sublist) marked as restarting every ch->period
 * elements (the kernel table's requant_pc_restarts) */
#define RQ_DEFINE_REGISTER_WITH_FAMILIES(LIST, RESTARTS)                               \
    static SIMDOPS_DEFINE_REGISTER_RESTARTING(requant_gemmlowp, LIST, RESTARTS)        \
    int SIMDOPS_CAT(requant_register__, SIMDOPS_TIER)(simdops_kernel_table * t)        \
    {                                                                                  \
        return SIMDOPS_CAT(requant_gemmlowp_register__, SIMDOPS_TIER)(t) &&           \
               SIMDOPS_CAT(requant_families_register__, SIMDOPS_TIER)(t);             \
    }

#endif
